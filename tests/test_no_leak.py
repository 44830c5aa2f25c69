"""No hidden card reaches a player through its view: twins built without the sampler must look the same.

At every decision of the probed seat, each twin of the true state (tests/leak_twins.py: one card of each hidden
place swapped with another hidden card, the stock reshuffled, every hidden card dealt anew) must give the very
same sampled world for the same random stream, the same answer to everything the view offers (every property,
every method, every legality check over candidate moves, the table's history), the same decision of each heuristic
and the same ``mc`` (also with ``infer``) and ``ismcts`` decision with the same per-candidate sums (``ismcts``: root
visits, sums and availability counts). The test's power is shown three ways: a change to a card the player sees
always changes the view, ``oracle`` and a cheating ``ismcts`` (both read the true state) tell twins apart, and a
sampler that forgets one kind of hidden place (it copies that place's true cards) is caught by that place's twins.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np
import pytest
from helpers import seat_order, stack_deck
from leak_twins import (
    METHODS,
    cards_at,
    hidden_places,
    properties,
    public_outputs,
    snapshot,
    twins,
)

import simcli.engine.worlds as sampler
from simcli.engine.deal import new_deal
from simcli.engine.judge import take_error
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.forward import sample_world
from simcli.players.seating import play_game
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import NINE, RED_THREE
from simcli.rules.presets import load_rules
from simcli.strategies.search.ismcts import Ismcts
from simcli.strategies.search.mc import MonteCarlo
from simcli.strategies.search.opponent_model import fitted_model
from simcli.strategies.search.oracle import Oracle
from simcli.strategy import Strategy, load_strategy

#: variant -> (its heuristic, game seed, rule overrides, twins that must have been built in the game)
GAMES = {
    "classic": ("greedy", 3, {}, {"hand:partner", "hand:opponent", "stock", "stock_order", "all"}),
    "ponytail": ("ponytail", 3, {}, {"hand:partner", "hand:opponent", "stock", "pony:own", "pony:other", "all"}),
    "americana": ("americana", 0, {}, {"hand:partner", "hand:opponent", "stock", "wing", "pending", "void", "all"}),
    "spanish": ("spanish", 3, {}, {"hand:partner", "hand:opponent", "stock", "pile", "all"}),
    # The feet are ponies: face down until picked up, their owner's too (RULES-hand-and-foot.md §2.5.1).
    "handfoot": ("handfoot", 3, {}, {"hand:partner", "hand:opponent", "stock", "pony:own", "pony:other", "all"}),
}
#: The searches run at every decision but in Hand and Foot, whose deals are three times as long (half of them)
MC_EVERY = {"handfoot": 2}
PHASES = ("draw", "melds", "discard")


class Recording(MonteCarlo):
    """``mc`` that keeps, for each search, the summed gains (and squares) of every candidate over the first."""

    def __init__(self, rng: np.random.Generator, **options: Any):
        super().__init__(rng, **options)
        self.sums: list[tuple[list[float], list[float], int]] = []

    def _pick(self, gain: list[float], gain2: list[float], worlds: int) -> int:
        self.sums.append((list(gain), list(gain2), worlds))
        return super()._pick(gain, gain2, worlds)


class RecordingOracle(Recording, Oracle):
    """``oracle`` with the sums recorded (it reads the true state: twins must tell it apart)."""


class RecordingIsmcts(Ismcts):
    """``ismcts`` that keeps, for each search, every root action's visits, summed margins and availability."""

    def __init__(self, rng: np.random.Generator, **options: Any):
        super().__init__(rng, **options)
        self.sums: list[list[tuple[int, float, float, int]]] = []

    def _tree_search(self, view: PlayerView, phase: str, candidates: list[Any]) -> Any:
        chosen = super()._tree_search(view, phase, candidates)
        self.sums.append([(e.visits, e.total, e.total2, e.avail) for e in self.last_root])
        return chosen


class CheatingIsmcts(RecordingIsmcts):
    """``ismcts`` searching the true state (``cheat``): twins must tell it apart, or the ismcts check is blind."""

    cheat = True


def has_opponent_model(variant: str) -> bool:
    """Whether ``mc:opponent=mc`` has a model fitted to ``mc`` for ``variant`` (it refuses the others in one line)."""
    try:
        fitted_model(variant)
    except ValueError:
        return False
    return True


def decide(cls: Any, st: DealState, seat: int, phase: str, seed: int, **options: Any) -> Any:
    """A fresh ``cls`` (seeded ``seed``) deciding ``phase`` on a clone of ``st``; ``mc`` players also give
    their sums."""
    player = cls(np.random.default_rng(seed), **options)
    decision = getattr(player, f"choose_{phase}")(PlayerView(st.clone(), seat))
    return decision, getattr(player, "sums", None)


class Probe(Strategy):
    """Plays like ``policy`` and, at each decision of its seat, compares the true state with its twins."""

    reads_history = True  # the history is recorded, so that the twins compare it

    def __init__(self, policy: Strategy, seed: int, heuristics: list[Any], mc_every: int = 0,
                 samples_only: bool = False):
        super().__init__(policy.rng)
        self.policy = policy
        self.rng2 = np.random.default_rng(seed)
        self.heuristics = heuristics
        self.mc_every = mc_every
        self.samples_only = samples_only
        self.checked = 0
        self.built: Counter[str] = Counter()
        self.diffs: defaultdict[str, set[str]] = defaultdict(set)
        self.first_diff: dict[str, str] = {}
        self.oracle_apart = 0  # decisions at which oracle's sums differed between the state and its "all" twin
        self.cheat_apart = 0  # the same for the cheating ismcts
        self.visible_apart = 0  # visible changes told apart by the view (must be all of them)
        self.visible = 0
        self.mc_searches = 0  # searches (more than one candidate) whose sums were compared

    def _differ(self, name: str, what: str, detail: str = "") -> None:
        self.diffs[name].add(what)
        self.first_diff.setdefault(f"{name}/{what}", detail)

    def _check(self, view: PlayerView, phase: str, decision: Any) -> Any:
        st, seat = view._st, view.seat
        seed = int(self.rng2.integers(1 << 30))
        sample = snapshot(sample_world(st, seat, np.random.default_rng(seed)))
        full = not self.samples_only
        outputs = public_outputs(st, seat) if full else {}
        chosen = [decide(h, st, seat, phase, seed) for h in self.heuristics] if full else []
        searched = self.mc_every and self.checked % self.mc_every == 0 and full
        mc = decide(Recording, st, seat, phase, seed, samples=2) if searched else None
        # With inference (strategies/search/inference.py): the worlds weighed by the history, resampled.
        inferring = decide(Recording, st, seat, phase, seed, samples=2, infer=20.0) if searched else None
        # ... and with the opponent model fitted to mc, where one is fitted (not yet for handfoot).
        reads_mc = searched and has_opponent_model(st.rules.variant)
        reading_mc = decide(Recording, st, seat, phase, seed, samples=2, infer=1.0, opponent="mc") if reads_mc else None
        oracle = decide(RecordingOracle, st, seat, phase, seed) if searched else None
        tree = decide(RecordingIsmcts, st, seat, phase, seed, iterations=6) if searched else None
        cheat = decide(CheatingIsmcts, st, seat, phase, seed, iterations=6) if searched else None
        self.mc_searches += len(mc[1]) if mc else 0
        for name, twin in twins(st, seat, self.rng2):
            self.built[name] += 1
            if snapshot(sample_world(twin, seat, np.random.default_rng(seed))) != sample:
                self._differ(name, "sample")
            if not full:
                continue
            other = public_outputs(twin, seat)
            if other != outputs:
                self._differ(name, "view", next(k for k in outputs if other[k] != outputs[k]))
            if [decide(h, twin, seat, phase, seed) for h in self.heuristics] != chosen:
                self._differ(name, "heuristic")
            if searched:
                if decide(Recording, twin, seat, phase, seed, samples=2) != mc:
                    self._differ(name, "mc")
                if decide(Recording, twin, seat, phase, seed, samples=2, infer=20.0) != inferring:
                    self._differ(name, "mc:infer")
                if reads_mc and decide(Recording, twin, seat, phase, seed, samples=2, infer=1.0,
                                       opponent="mc") != reading_mc:
                    self._differ(name, "mc:infer,opponent=mc")
                if decide(RecordingIsmcts, twin, seat, phase, seed, iterations=6) != tree:
                    self._differ(name, "ismcts")
                if name == "all" and decide(RecordingOracle, twin, seat, phase, seed) != oracle:
                    self.oracle_apart += 1
                if name == "all" and decide(CheatingIsmcts, twin, seat, phase, seed, iterations=6) != cheat:
                    self.cheat_apart += 1
        if full:
            self._visible_change(st, seat, outputs)
        self.checked += 1
        return decision

    def _visible_change(self, st: DealState, seat: int, outputs: dict[str, Any]) -> None:
        """A card of the player's own hand exchanged with a different stock card: the view must tell."""
        hand = st.hands[seat]
        for k, card in enumerate(st.stock):
            mine = next((r for r, n in enumerate(hand) if n and r != card), None)
            if mine is not None and not st.is_bonus_three[card]:
                twin = st.clone()
                twin.hands[seat][mine] -= 1
                twin.hands[seat][card] += 1
                twin.stock[k] = mine
                self.visible += 1
                self.visible_apart += public_outputs(twin, seat) != outputs
                return

    def choose_draw(self, view: PlayerView) -> Any:
        """The policy's draw, checked."""
        return self._check(view, "draw", self.policy.choose_draw(view))

    def choose_melds(self, view: PlayerView) -> Any:
        """The policy's melds, checked."""
        return self._check(view, "melds", self.policy.choose_melds(view))

    def choose_discard(self, view: PlayerView) -> Any:
        """The policy's discard, checked."""
        return self._check(view, "discard", self.policy.choose_discard(view))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The policy's."""
        return self.policy.hold_three(view, rank)


def probed_game(variant: str, seats: tuple[int, ...] = (0, 1), **probe_options: Any) -> list[Probe]:
    """Play one deal of ``variant`` with its heuristic in every seat, ``seats`` probed."""
    heuristic, seed, overrides, _ = GAMES[variant]
    rules = load_rules(variant, {"max_hands": 1, **overrides})
    cls = load_strategy(heuristic)
    players: list[Strategy] = [cls(np.random.default_rng(s)) for s in range(rules.num_players)]
    heuristics = [cls, load_strategy("greedy"), load_strategy("random")]
    probes = [Probe(players[s], 100 + s, heuristics, **probe_options) for s in seats]
    for s, probe in zip(seats, probes, strict=True):
        players[s] = probe
    play_game(rules, [heuristic] * rules.num_players, seed, strategies=players)
    return probes


def merged(probes: list[Probe]) -> tuple[Counter[str], dict[str, set[str]], dict[str, str]]:
    """The twins built, what differed and the first difference of each, over several probes."""
    built: Counter[str] = Counter()
    diffs: defaultdict[str, set[str]] = defaultdict(set)
    first: dict[str, str] = {}
    for p in probes:
        built += p.built
        for k, v in p.diffs.items():
            diffs[k] |= v
        first.update(p.first_diff)
    return built, dict(diffs), first


def test_the_view_has_nothing_the_twins_do_not_compare() -> None:
    """Every public attribute of PlayerView is a property, a method public_outputs calls, or a constant.

    A constant (a class attribute that is a plain ``str``/``int``, e.g. ``ASK_FIRST``) is the same for every player
    and state, so it carries no information a twin could differ in.
    """
    public = {n for n in dir(PlayerView) if not n.startswith("_")}
    constants = {n for n in public if type(getattr(PlayerView, n)) in (str, int)}
    assert public - constants == set(properties()) | set(METHODS)


@pytest.mark.parametrize("variant", list(GAMES))
def test_twins_look_the_same(variant: str) -> None:
    probes = probed_game(variant, mc_every=MC_EVERY.get(variant, 1))
    built, diffs, first = merged(probes)
    assert not diffs, first
    assert GAMES[variant][3] <= set(built), built  # every hidden place of the variant was tried
    assert min(p.checked for p in probes) > 10
    # Power: every visible change is seen, and the cheating search tells some twins apart.
    assert sum(p.visible for p in probes) > 10
    assert all(p.visible_apart == p.visible for p in probes)
    assert sum(p.mc_searches for p in probes) > 3
    assert sum(p.oracle_apart for p in probes) > 0
    assert sum(p.cheat_apart for p in probes) > 0


def forgetful(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """Make the sampler forget one kind of hidden place: it keeps that place's true cards (a leak)."""
    real_places, real_unseen = sampler.hidden_places, sampler.unseen_counts

    def places(st: DealState, seat: int) -> list[tuple[str, int, int, bool]]:
        return [p for p in real_places(st, seat) if p[0] != kind]

    def unseen(st: DealState, seat: int) -> list[int]:
        pool = real_unseen(st, seat)
        for k, idx, _, _ in real_places(st, seat):
            if k == kind:
                for card in cards_at(st, (k, idx)):
                    pool[card] -= 1
        return pool

    monkeypatch.setattr(sampler, "hidden_places", places)
    monkeypatch.setattr(sampler, "unseen_counts", unseen)


#: (variant, the kind of place the sampler forgets, the twins that must then catch it)
FORGOTTEN = [
    ("classic", "hand", {"hand:partner", "hand:opponent", "all"}),
    ("classic", "stock", {"stock", "stock_order", "all"}),
    ("ponytail", "pony", {"pony:own", "pony:other", "all"}),
    ("americana", "wing", {"wing"}),
    ("americana", "pending", {"pending"}),
    ("americana", "void", {"void"}),
    ("spanish", "pile", {"pile", "all"}),
    ("handfoot", "pony", {"pony:own", "pony:other", "all"}),
]


@pytest.mark.parametrize(("variant", "kind", "catchers"), FORGOTTEN, ids=[f"{v}-{k}" for v, k, _ in FORGOTTEN])
def test_a_forgotten_hidden_place_is_caught(variant: str, kind: str, catchers: set[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    forgetful(monkeypatch, kind)
    _, diffs, _ = merged(probed_game(variant, samples_only=True))
    assert catchers <= {name for name, what in diffs.items() if "sample" in what}, diffs


def test_hidden_places_match_the_samplers() -> None:
    """The twins' own list of hidden places and the sampler's agree (kinds, indices and sizes), in all four
    variants at every decision of a game."""
    seen = Counter()

    def compare(st: DealState, seat: int) -> None:
        ours = {p: len(cards_at(st, p)) for p in hidden_places(st, seat)}
        theirs = {(k, i): n for k, i, n, _ in sampler.hidden_places(st, seat) if n}
        assert ours == theirs
        seen[st.rules.variant] += 1

    class Compare(Strategy):
        def choose_discard(self, view: PlayerView) -> int | None:
            compare(view._st, view.seat)
            return self.inner.choose_discard(view)

    for variant, (heuristic, seed, overrides, _) in GAMES.items():
        rules = load_rules(variant, {"max_hands": 1, **overrides})
        cls = load_strategy(heuristic)
        players: list[Strategy] = [cls(np.random.default_rng(s)) for s in range(rules.num_players)]
        for s in range(rules.num_players):
            wrapper = type("C", (Compare, cls), {})(np.random.default_rng(s))
            wrapper.inner = cls(np.random.default_rng(s))  # type: ignore[attr-defined]
            players[s] = wrapper
        play_game(rules, [heuristic] * rules.num_players, seed, strategies=players)
    assert set(seen) == set(GAMES) and min(seen.values()) > 10


# ------------------------------------------------------------------ a take's legality reads public cards only
#: The first player of a Spanish deal dealt by seat 0 with 6 players.
FIRST = seat_order(load_rules("spanish", {"num_players": 6}), 0)[0]


def spanish_take_twins() -> tuple[DealState, DealState]:
    """A Spanish deal (6 players, 4 decks) whose face-down initial pile is six red threes, and its twin with six
    natural cards there instead; the first player holds 9 9 and the upcard is a 9."""
    rules = load_rules("spanish", {"num_players": 6})
    deck_for = {}
    for down in ("R3 R3 R3 R3 R3 R3", "4 5 6 8 10 J"):
        deck = stack_deck(rules, {FIRST: "9 9"}, upcards="9", dealer=0, facedown=down)
        deck_for[down] = new_deal(rules, deck, 0, 0, [-100] * rules.n_teams, cut_count=0)
    hidden, plain = deck_for.values()
    for st in (hidden, plain):
        assert st.first_player == FIRST and st.pile[-1] == NINE and st.minimum[st.team_of[FIRST]] == 15
        # The first player's hand down to the pair (as if it had melded the rest): only its size and the pair
        # matter to the take.
        st.hands[FIRST] = [0] * len(st.hands[FIRST])
        st.hands[FIRST][NINE] = 2
        st.hand_sizes[FIRST] = 2
        st.turn = 1
        st.current = FIRST
    assert hidden.pile.count(RED_THREE) == 6 and plain.pile.count(RED_THREE) == 0
    return hidden, plain


def test_take_legality_ignores_face_down_red_threes() -> None:
    """RULES.md §1.7: a take's legality depends on what the taker can see. The face-down cards of a Spanish pile
    come into the hand as far as anyone can tell, so six hidden red threes and six hidden naturals give the same
    answer: 9 9 + the top 9 leaves the hand at six cards, a legal opening take (15 needed, 27 counted)."""
    hidden, plain = spanish_take_twins()
    take = TakePile(Meld(NINE, 2))
    assert take_error(plain, FIRST, take) is None
    assert take_error(hidden, FIRST, take) is None
    assert PlayerView(hidden, FIRST).check_take(take) == PlayerView(plain, FIRST).check_take(take)
