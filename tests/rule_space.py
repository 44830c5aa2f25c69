"""The rule space (issue 52 item 4, issue 53 item 2): random valid combinations of rule knobs of every kind, and
games played under them with every variant-free invariant checked.

:func:`rule_sets` is a hypothesis strategy for ``(variant, overrides)``: a variant's preset with two to six knobs
changed, each drawn from every value its kind accepts (bounded where a value only makes a game long: decks,
hands, ponies), not only the presets' values; the player count with its team size (and ``table_modes=null`` so
that any table is allowed). Knobs are applied one by one and a knob whose value the loader refuses, with its one-line
reason, is left out, so every drawn rule set is valid (:func:`load_drawn` says which were refused).

:func:`play_checked` plays one game of ``max_hands`` 1 or 2 under a rule set with random and heuristic players
(built-in strategies by spec name), each deal under :class:`SpaceChecker` (cards conserved, hands agree with their
sizes, the stock the undrawn deck, the score parts adding up, the game totals the sum of the deals) and with seat 0
a :class:`TwinProbe`, which at some of its decisions builds the state's no-leak twins (tests/leak_twins.py) and
requires the same view answers and the same heuristic decisions from each. Every decision is legal because the
engine refuses any other (an illegal decision stops the game); a game that stops in play (an illegal decision, an
engine error, a deal over its turn limit) is recorded as such, and the tests require none.

Run as a script for the long report (the note's figures)::

    .venv/bin/python tests/rule_space.py RULE_SETS [SEED [THREES_MODE]]  # drawn rule sets, a checked game each
    .venv/bin/python tests/rule_space.py --threes [GAMES]     # issue 53: every variant under each threes mode
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":
    sys.path[:0] = [str(HERE), str(HERE.parent)]

import numpy as np  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402
from invariant_harness import END_REASON, DealChecker  # noqa: E402
from leak_twins import public_outputs, twins  # noqa: E402

from simcli.engine.deal import DealResult  # noqa: E402
from simcli.engine.state import DealState  # noqa: E402
from simcli.engine.view import PlayerView  # noqa: E402
from simcli.players.loading import Strategy, strategy_factory  # noqa: E402
from simcli.players.seating import make_strategies, play_game  # noqa: E402
from simcli.primitives.cards import BLACK_THREE, NUM_RANKS, RANK_NAMES, RED_THREE, counts_of, parse_cards  # noqa: E402
from simcli.rules.knob_values import MELD_TABLES, RuleError  # noqa: E402
from simcli.rules.knobs import CANASTA_TYPES, KNOBS, Knob  # noqa: E402
from simcli.rules.presets import load_rules  # noqa: E402
from simcli.rules.ruleset import RuleSet  # noqa: E402

VARIANTS = ("classic", "ponytail", "americana", "spanish")
#: The built-in heuristics (by spec name, through the project's loader) and the random player.
HEURISTICS = ("greedy", "americana", "ponytail", "spanish", "handfoot")
RANDOM = "random"
#: Knobs not drawn: the game's length is set by the test (max_hands), the table by :func:`tables`.
NOT_DRAWN = {"max_hands", "num_players", "team_size", "table_modes"}
#: Bounds on int knobs whose large values only make a game long (the rest use their own bounds, within +-5000).
INT_BOUNDS = {"decks": (1, 4), "hand_size": (1, 20), "pony_size": (0, 15), "draw_count": (1, 3),
              "initial_pile_facedown": (0, 8), "wing_cutoff_stock_remaining": (0, 30), "exact_cut_target": (1, 150),
              "game_target": (1, 20000)}
#: (players, team size) tables: every table the loader allows some variant to play, with table_modes=null.
TABLES = ((2, 1), (3, 1), (4, 1), (4, 2), (5, 1), (6, 1), (6, 2), (6, 3))


def knob_values(k: Knob) -> hs.SearchStrategy[str]:
    """Every value of knob ``k``'s kind, written as on the command line (``--rule NAME=VALUE``)."""
    values: hs.SearchStrategy[str]
    kind = k.kind
    if kind == "bool":
        values = hs.sampled_from(["true", "false"])
    elif kind == "int":
        lo, hi = INT_BOUNDS.get(k.name, (max(int(k.lo if k.lo is not None else -5000), -5000),
                                         min(int(k.hi if k.hi is not None else 5000), 5000)))
        values = hs.integers(lo, hi).map(str)
    elif kind == "float":
        values = hs.floats(0, 10, allow_nan=False).map(lambda x: f"{x:.2f}")
    elif kind == "enum":
        values = hs.sampled_from(k.allowed)
    elif kind == "enumset":
        values = hs.sets(hs.sampled_from(k.allowed)).map(lambda s: ",".join(sorted(s)) or "none")
    elif kind == "ranks":
        values = hs.sets(hs.sampled_from(RANK_NAMES)).map(lambda s: ",".join(sorted(s)) or "none")
    elif kind == "table":
        bands = hs.lists(hs.tuples(hs.integers(0, 6000), hs.integers(0, 200)), min_size=1, max_size=4).map(
            lambda b: ",".join(f"{t}:{v}" for t, v in sorted(dict(b).items())))
        values = hs.one_of(hs.sampled_from(sorted(MELD_TABLES)), bands,
                           bands.map(lambda s: "neg:15," + s))
    elif kind == "requirement":
        values = hs.dictionaries(hs.sampled_from(CANASTA_TYPES), hs.integers(1, 2), min_size=1, max_size=3).map(
            lambda d: ",".join(f"{t}:{n}" for t, n in sorted(d.items())))
    elif kind == "range":
        values = hs.tuples(hs.integers(3, 8), hs.integers(0, 4)).map(lambda t: f"{t[0]}-{t[0] + t[1]}")
    elif kind == "intlist":
        values = hs.lists(hs.integers(1, 6), max_size=3).map(lambda v: ",".join(map(str, v)) or "none")
    elif kind == "signs":
        values = hs.lists(hs.sampled_from([-1, 0, 1]), min_size=3, max_size=3).map(
            lambda v: ",".join(map(str, v)))
    else:  # pragma: no cover - a new kind must be added here
        raise AssertionError(f"no values for knob kind {kind!r} ({k.name})")
    if k.nullable:
        values = hs.one_of(values, hs.just("null"))
    return values


DRAWN_KNOBS = tuple(k for k in KNOBS if k.name not in NOT_DRAWN)
#: Knobs that change what other knobs do (their help says how): drawn more often, so that pairs of them meet.
INTERACTING = ("initial_pile_facedown", "initial_pile_faceup", "upcard_cover_ranks", "upcard_cover_facedown",
               "aces_special", "mixed_aces_only_in_opening", "threes_mode", "may_hold_one_three_before_opening",
               "discard_restrictions", "empty_pile_no_dead_card", "black_three_meld_when_going_out",
               "red_three_from_pile_replaced", "pony_size", "pony_unlock", "wing_sizes", "meld_max_size",
               "new_meld_after_closed_canasta", "closed_rank_dead_for_all", "allow_8th_card_when_going_out",
               "go_out_requirement", "wild_melds_allowed", "canasta_bonus.sevens", "sevens_wilds_allowed",
               "pile_always_frozen", "take_methods_unfrozen", "first_take_pair_only", "special_hands",
               "ask_partner_permission", "stock_exhaustion_rule", "partial_draw_allowed", "draw_count")
INTERACTING_KNOBS = tuple(k for k in DRAWN_KNOBS if k.name in INTERACTING)
KINDS = sorted({k.kind for k in DRAWN_KNOBS} | {"modes"})


@hs.composite
def rule_sets(draw: Any, variants: Sequence[str] = VARIANTS, min_knobs: int = 2, max_knobs: int = 6,
              threes_mode: str | None = None) -> tuple[str, dict[str, str]]:
    """``(variant, overrides)``: a preset and some of its knobs changed (not yet checked: :func:`load_drawn`)."""
    variant = draw(hs.sampled_from(list(variants)))
    chosen = draw(hs.lists(hs.sampled_from(DRAWN_KNOBS), min_size=1, max_size=max_knobs - 2,
                           unique_by=lambda k: k.name))
    chosen += draw(hs.lists(hs.sampled_from(INTERACTING_KNOBS), min_size=min_knobs - 1, max_size=2,
                            unique_by=lambda k: k.name))
    overrides = {k.name: draw(knob_values(k)) for k in chosen}
    if draw(hs.booleans()):
        p, t = draw(hs.sampled_from(TABLES))
        overrides.update(num_players=str(p), team_size=str(t), table_modes="null")
    if threes_mode is not None:
        overrides["threes_mode"] = threes_mode
    overrides["max_hands"] = str(draw(hs.integers(1, 2)))
    return variant, overrides


def load_drawn(variant: str, overrides: dict[str, str]) -> tuple[RuleSet, dict[str, str], list[str]]:
    """The rules of a drawn set: knobs applied one by one (table first, ``max_hands`` last), a knob the loader
    refuses left out. Returns the rules, the overrides kept and the refusals (each must be one line)."""
    kept: dict[str, str] = {}
    refused: list[str] = []
    table = {k: overrides[k] for k in ("num_players", "team_size", "table_modes") if k in overrides}
    order = [table] if table else []
    order += [{k: v} for k, v in overrides.items() if k not in table and k != "max_hands"]
    for step in order:
        try:
            load_rules(variant, {**kept, **step})
        except RuleError as exc:
            text = str(exc)
            if "\n" in text:
                raise AssertionError(f"a refusal of more than one line: {text!r}") from None
            refused.append(text)
            continue
        kept.update(step)
    kept["max_hands"] = overrides["max_hands"]
    return load_rules(variant, kept), kept, refused


# ---------------------------------------------------------------------------------------------- the checker
class SpaceChecker(DealChecker):
    """What holds under every rule set: every card of the pack in one place after every event, hands agreeing
    with their sizes, the stock the undrawn top of the deck, nothing after the deal's end, the score parts adding
    up. (The variants' oracles, tests/test_invariants*.py, check the rules themselves, preset by preset.)"""

    special: list[int]

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        if kind in END_REASON:
            self.ended_by = kind
        self.stats[f"event:{kind}"] += 1
        if kind == "discard" and "bar_lifted" in data:
            self.stats[f"bar_lifted:{data['bar_lifted']}"] += 1
        if kind == "special_hand":
            self.special = counts_of(parse_cards(data["cards"]))

    def check_state(self, kind: str, data: dict[str, Any] | None = None) -> None:
        st = self.st
        if kind == "decision" and data is not None and data["kind"] in ("draw", "melds", "discard"):
            self.check_bonus_threes(kind)
        total = self.stock_counts(kind)
        for seat, hand in enumerate(st.hands):
            self.check_hand(kind, seat, hand)
            for r in range(NUM_RANKS):
                total[r] += hand[r]
        for vec in (*st.ponies, *st.wings, *st.wings_void, *(w for w in st.wing_pending if w is not None)):
            for r in range(NUM_RANKS):
                total[r] += vec[r]
        for card in st.pile:
            total[card] += 1
        for team_melds in st.melds:
            for r, m in enumerate(team_melds):
                if m is not None:
                    total[r] += m[0]
                    total[1] += m[1]
                    total[0] += m[2]
        for closed in st.closed:
            for r, n, tw, jk in closed:
                total[r] += n
                total[1] += tw
                total[0] += jk
        total[RED_THREE] += sum(st.red_threes)
        total[BLACK_THREE] += sum(st.black_threes)
        for r, n in enumerate(getattr(self, "special", ())):
            total[r] += n
        self.check_pack(kind, total)

    def check_bonus_threes(self, kind: str) -> None:
        """At a player's decision no hand holds a bonus three (red; under AMERICAN_COLOUR_TABLE black too), wherever
        it came from, but the one ``may_hold_one_three_before_opening`` lets a player keep (issue 52 item 3), and
        before a player's first turn under ``dealt_threes_laid=FIRST_TURN`` its dealt ones."""
        st = self.st
        cap = 1 if self.rules.may_hold_one_three_before_opening else 0
        for seat, hand in enumerate(st.hands):
            if self.rules.dealt_threes_laid == "FIRST_TURN" and not st.seat_turns[seat]:
                continue  # dealt threes wait for the player's first turn
            held = sum(hand[r] for r in (RED_THREE, BLACK_THREE) if st.is_bonus_three[r])
            if held > cap:
                self.fail(kind, f"seat {seat} holds {held} bonus threes (threes_mode={self.rules.threes_mode}, "
                                f"may_hold_one_three_before_opening={self.rules.may_hold_one_three_before_opening})")

    def finish(self, result: DealResult) -> None:
        kind = self.finish_common(result)
        self.check_score_sums(kind, result)
        self.stats[f"end:{result.end_reason}"] += 1


# ---------------------------------------------------------------------------------------------- the probe
def decide(name: str, st: DealState, seat: int, phase: str, seed: int) -> Any:
    """A fresh ``name`` (built by spec name, seeded ``seed``) deciding ``phase`` on a clone of ``st``."""
    player = strategy_factory(name)(np.random.default_rng(seed))
    return getattr(player, f"choose_{phase}")(PlayerView(st.clone(), seat))


class TwinProbe(Strategy):
    """Plays like ``policy``; at ``probes`` of its decisions (every ``every``-th) compares the state with its twins:
    every answer of the view (tests/leak_twins.py :func:`public_outputs`) and each heuristic's decision."""

    reads_history = True  # the history is recorded, so that the twins compare it

    def __init__(self, policy: Strategy, seed: int, every: int = 7, probes: int = 2):
        super().__init__(policy.rng)
        self.policy = policy
        self.name = policy.name
        self.rng2 = np.random.default_rng(seed)
        self.every, self.probes = every, probes
        self.decisions = 0
        self.checked = 0
        self.twins = 0
        self.leaks: list[str] = []

    def _probe(self, view: PlayerView, phase: str) -> None:
        self.decisions += 1
        if self.checked >= self.probes or self.decisions % self.every:
            return
        self.checked += 1
        st, seat = view._st, view.seat
        seed = int(self.rng2.integers(1 << 30))
        base = public_outputs(st, seat)
        chosen = {name: decide(name, st, seat, phase, seed) for name in (*HEURISTICS, RANDOM)}
        for name, twin in twins(st, seat, self.rng2):
            self.twins += 1
            out = public_outputs(twin, seat)
            diff = sorted(k for k in base if base[k] != out[k])
            if diff:
                self.leaks.append(f"twin {name} at {phase}, turn {st.turn}: the view differs in {diff[:4]}")
            for h, decision in chosen.items():
                other = decide(h, twin, seat, phase, seed)
                if other != decision:
                    self.leaks.append(f"twin {name} at {phase}, turn {st.turn}: {h} decides {other!r}, "
                                      f"not {decision!r}")

    def choose_draw(self, view: PlayerView) -> Any:
        self._probe(view, "draw")
        return self.policy.choose_draw(view)

    def choose_melds(self, view: PlayerView) -> Any:
        self._probe(view, "melds")
        return self.policy.choose_melds(view)

    def choose_discard(self, view: PlayerView) -> Any:
        self._probe(view, "discard")
        return self.policy.choose_discard(view)

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        return self.policy.hold_three(view, rank)

    def ask_to_go_out(self, view: PlayerView) -> bool:
        return self.policy.ask_to_go_out(view)

    def answer_go_out(self, view: PlayerView) -> bool:
        return self.policy.answer_go_out(view)


# ---------------------------------------------------------------------------------------------- a game
def seats(rules: RuleSet, heuristic: str, mix: int) -> list[str]:
    """Seat names: all random (mix 0), all ``heuristic`` (1), or alternating (2)."""
    p = rules.num_players
    if mix == 0:
        return [RANDOM] * p
    if mix == 1:
        return [heuristic] * p
    return [heuristic if s % 2 == 0 else RANDOM for s in range(p)]


def play_checked(rules: RuleSet, names: list[str], seed: int, stats: Counter[str], probes: int = 2) -> str | None:
    """Play one checked game; return ``None`` if it played to its end, else why it stopped (counted in
    ``stats['stopped']``). An invariant or a leak is an AssertionError, raised."""
    from helpers import checking_deals

    players = make_strategies(names, seed, 0)
    probe = TwinProbe(players[0], seed, probes=probes)
    players[0] = probe
    stats["games"] += 1
    try:
        with checking_deals(lambda st, emit: SpaceChecker(st, stats, emit, f"{names} seed {seed}:")):
            result = play_game(rules, names, seed, 0, strategies=players)
    except AssertionError:
        raise
    except Exception as exc:  # an illegal decision, an engine error, a deal over its turn limit
        stats["stopped"] += 1
        return f"{type(exc).__name__}: {exc}"
    stats["played_to_end"] += 1
    stats["deals"] += 0  # counted by the checker
    stats["twins"] += probe.twins
    stats["probes"] += probe.checked
    totals = [sum(d.scores[t]["total"] for d in result.deals) for t in range(rules.n_teams)]
    if list(result.totals) != totals:
        raise AssertionError(f"game totals {result.totals} are not the sums of the deals' totals {totals}")
    if probe.leaks:
        raise AssertionError(f"{names} seed {seed}: a hidden card reached seat 0: {probe.leaks[:3]}")
    return None


def run(n: int, seed: int = 0, threes_mode: str | None = None, probes: int = 2) -> Counter[str]:
    """Draw ``n`` rule sets (hypothesis seeded with ``seed``) and play one game under each, with a drawn mix of
    random and heuristic players; return the counters (per variant and threes mode too)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    stats: Counter[str] = Counter()
    stops: list[str] = []
    counter = iter(range(10**9))

    @hypothesis_seed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(drawn=rule_sets(threes_mode=threes_mode), heuristic=hs.sampled_from(HEURISTICS),
           mix=hs.integers(0, 2), game_seed=hs.integers(0, 10**6))
    def one(drawn: tuple[str, dict[str, str]], heuristic: str, mix: int, game_seed: int) -> None:
        next(counter)
        variant, overrides = drawn
        rules, kept, refused = load_drawn(variant, overrides)
        stats["rule_sets"] += 1
        stats["knobs_changed"] += len(kept) - 1
        stats["knobs_refused"] += len(refused)
        for name in kept:
            if name != "max_hands":
                stats[f"knob:{name}"] += 1
        names = seats(rules, heuristic, mix)
        before = stats["stopped"]
        why = play_checked(rules, names, game_seed + seed, stats, probes)
        key = f"{variant}/{rules.threes_mode}"
        stats[f"games:{key}"] += 1
        if why is None:
            stats[f"to_end:{key}"] += 1
        elif stats["stopped"] > before:
            stops.append(f"{variant} {kept} {names} seed {game_seed + seed}: {why}")

    one()
    for s in stops:
        print("STOPPED:", s)
    return stats


#: Each variant's own heuristic (the seats of :func:`threes_census`).
OWN_HEURISTIC = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana", "spanish": "spanish"}


def threes_census(games: int, seed: int = 8000) -> Counter[str]:
    """Issue 53's count: per variant and threes mode (the preset with only ``threes_mode`` set, and
    ``max_hands=2``), ``games`` games of the variant's heuristic in every seat and as many with it against
    ``random``, seeds ``seed``, ``seed + 1``, ...: how many played to their end and how many stopped in play."""
    out: Counter[str] = Counter()
    for variant in VARIANTS:
        for mode in ("RED_BONUS", "AMERICAN_COLOUR_TABLE"):
            rules = load_rules(variant, {"threes_mode": mode, "max_hands": 2})
            own = OWN_HEURISTIC[variant]
            for mix, names in (("heuristic", [own] * rules.num_players),
                               ("mixed", [own if s % 2 == 0 else RANDOM for s in range(rules.num_players)])):
                for g in range(games):
                    try:
                        play_game(rules, names, seed + g, 0)
                    except Exception as exc:  # an illegal decision, an engine error
                        out[f"{variant}/{mode}/{mix}: stopped"] += 1
                        print(f"STOPPED {variant} threes_mode={mode} {names} seed {seed + g}: {exc}")
                    else:
                        out[f"{variant}/{mode}/{mix}: to_end"] += 1
    return out


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--threes":
        games = int(argv[1]) if len(argv) > 1 else 40
        t0 = time.perf_counter()
        census = threes_census(games)
        print(f"threes census, {games} games per cell (max_hands=2), {time.perf_counter() - t0:.0f}s")
        for k, v in sorted(census.items()):
            print(f"  {k}: {v}")
        return
    n = int(argv[0]) if argv else 200
    seed = int(argv[1]) if len(argv) > 1 else 0
    mode = argv[2] if len(argv) > 2 else None
    t0 = time.perf_counter()
    stats = run(n, seed, threes_mode=mode)
    print(f"{n} drawn rule sets, {time.perf_counter() - t0:.0f}s")
    knobs = sorted(k[5:] for k in stats if k.startswith("knob:"))
    never = sorted(k.name for k in DRAWN_KNOBS if k.name not in knobs)
    print(f"  distinct knobs changed: {len(knobs)} of {len(DRAWN_KNOBS) + 3} (never: {', '.join(never) or 'none'})")
    for k, v in sorted(stats.items()):
        if not k.startswith(("knob:", "event:")):
            print(f"  {k}: {v}")


if __name__ == "__main__":
    main(sys.argv[1:])
