"""A strategy's PlayerView shows what its player may know and nothing else, and cannot change the game.

Two deal states that agree on everything the player in a seat may know (own hand, melds, red
threes, pile top and size, stock size, hand sizes, ...) but differ in the other players' hands,
the stock order and the pile below its top must look the same through that seat's view: every
public property and method, and the answers of the ``check_*`` methods to a set of candidate
decisions. The states come from a hand-built table and from snapshots of real deals whose hidden
cards are then re-dealt at random.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

import simcli.engine.game as game_module
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.planning import opening_plan
from simcli.players.seating import play_game
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import (
    ACE,
    BLACK_THREE,
    IS_NATURAL,
    JOKER,
    KING,
    NATURAL_RANKS,
    NUM_RANKS,
    QUEEN,
    RED_THREE,
    SEVEN,
    SIX,
    TWO,
    counts_of,
    deck_cards,
    deck_counts,
    parse_cards,
)
from simcli.rules.presets import load_rules

CLASSIC = load_rules("classic")
_ARGS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


# ---------------------------------------------------------------------------------------------- what a view shows
def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) and not isinstance(value, dict) else value


def public_snapshot(view: PlayerView) -> dict[str, Any]:
    """Every public property and method result of ``view`` (methods called for every team / rank they take)."""
    cls = type(view)
    teams = [None, *range(view.n_teams)]
    out: dict[str, Any] = {}
    for name in dir(cls):
        if name.startswith("_") or name.startswith("check_"):
            continue
        if name in ("sample_world", "pile_cards", "unseen"):
            # The forward model and the card memory remember the discards the player watched, which the states
            # here re-deal as hidden; tests/test_forward.py checks the sampler against its own information set, the
            # no-leak twins (tests/test_no_leak.py, which keep the face-up pile) compare the memory.
            continue
        if name == "melds_if_yes":
            # What the view's checks say supposing partner's yes (issue 51), as a strategy deciding to ask reads them.
            out[name] = view.melds_if_yes(lambda v: (v.legal_discards(), v.go_out_error(), v.may_ask))
            continue
        static = inspect.getattr_static(cls, name)
        value = getattr(view, name)
        if isinstance(static, property) or not callable(value):
            out[name] = _plain(value)
            continue
        params = {p.name: p for p in inspect.signature(value).parameters.values() if p.kind in _ARGS}
        required = {n for n, p in params.items() if p.default is p.empty}
        if required - {"rank"}:
            raise AssertionError(f"PlayerView.{name} takes {sorted(required)}: teach public_snapshot to call it")
        ranks = range(NUM_RANKS) if "rank" in required else [None]
        team_args = teams if "team" in params else [None]
        for rank in ranks:
            for team in team_args:
                kwargs = {k: v for k, v in (("rank", rank), ("team", team)) if v is not None}
                out[f"{name}({kwargs})"] = _plain(value(**kwargs))
    return out


def candidate_decisions(view: PlayerView) -> tuple[list[TakePile], list[list[Meld]]]:
    """Pile takes and meld plans worth asking the judge about for this hand."""
    hand = view.hand
    takes: list[TakePile] = []
    top = view.pile_top
    if top is not None and IS_NATURAL[top]:
        for n in range(min(hand[top], 3) + 1):
            for tw in range(min(hand[TWO], 1) + 1):
                for jk in range(min(hand[JOKER], 1) + 1):
                    meld = Meld(top, n, tw, jk)
                    takes.append(TakePile(meld))
                    left = list(hand)
                    left[top] -= n
                    plan = opening_plan(left, view.minimum, 0, exclude=top)
                    if plan:
                        takes.append(TakePile(meld, tuple(plan)))
    plans: list[list[Meld]] = []
    everything = []
    for r in (*NATURAL_RANKS, BLACK_THREE):
        if hand[r]:
            plans.append([Meld(r, hand[r])])
            everything.append(Meld(r, hand[r]))
            if hand[TWO]:
                plans.append([Meld(r, hand[r], 1, 0)])
            if hand[JOKER]:
                plans.append([Meld(r, 0, 0, 1)])
    plans.append(everything)
    plans.append(everything[:-1])
    plan = opening_plan(list(hand), view.minimum)
    if plan:
        plans.append(plan)
    return takes, plans


def judge_answers(view: PlayerView) -> list[Any]:
    takes, plans = candidate_decisions(view)
    answers: list[Any] = [view.check_take(t) for t in takes]
    for plan in plans:
        answers.append(view.check_melds(plan))
        answers.append(view.check_melds(plan, partial=True))
    return answers


def assert_same_view(a: DealState, b: DealState, seat: int) -> None:
    va, vb = PlayerView(a, seat), PlayerView(b, seat)
    snap_a, snap_b = public_snapshot(va), public_snapshot(vb)
    diff = {k: (snap_a[k], snap_b.get(k)) for k in snap_a if snap_a[k] != snap_b.get(k)}
    assert not diff and snap_a.keys() == snap_b.keys(), f"seat {seat} can tell the states apart: {diff}"
    assert judge_answers(va) == judge_answers(vb)


# ---------------------------------------------------------------------------------------------- building states
def clone(st: DealState) -> DealState:
    """A deep copy of a state; private caches start empty."""
    new = DealState(st.rules, st.deal_index, st.dealer, st.team_scores)
    for name in DealState.__slots__:
        if name != "rules" and not name.startswith("_"):
            setattr(new, name, copy.deepcopy(getattr(st, name)))
    return new


def rehide(st: DealState, seat: int, rng: np.random.Generator) -> DealState:
    """A copy of ``st`` with what ``seat`` cannot see dealt again: other hands, stock order, pile below the top.

    Sizes stay, red threes stay where they are (in the stock, or turned up in the pile)."""
    new = clone(st)
    pool: list[int] = []
    for s in range(st.n_players):
        if s != seat:
            pool += [r for r in range(NUM_RANKS) for _ in range(st.hands[s][r])]
    stock_threes = st.stock.count(RED_THREE)
    pool += [c for c in st.stock if c != RED_THREE]
    below = st.pile[:-1]
    pool += [c for c in below if c != RED_THREE]
    pool = rng.permutation(np.array(pool, dtype=np.int64)).tolist()
    for s in range(st.n_players):
        if s != seat:
            size = st.hand_sizes[s]
            new.hands[s] = counts_of(pool[:size])
            del pool[:size]
    new.pile = [RED_THREE if c == RED_THREE else pool.pop() for c in below] + st.pile[-1:]
    stock = pool + [RED_THREE] * stock_threes
    new.stock = rng.permutation(np.array(stock, dtype=np.int64)).tolist()
    new.deck = rng.permutation(np.array(st.deck, dtype=np.int64)).tolist()
    return new


def hand_built_state(own: str, hidden_seed: int) -> DealState:
    """Turn 9 of a Classic deal: seat 0 holds ``own``; the other cards are placed by ``hidden_seed``."""
    rules = CLASSIC
    st = DealState(rules, 2, 3, [1600, 700])
    pack = deck_counts(rules.decks, rules.jokers_per_deck)
    public_melds = {0: [(ACE, 3, 1, 0), (SEVEN, 7, 0, 0)], 1: [(SIX, 4, 0, 1)]}
    own_cards = parse_cards(own)
    top = QUEEN
    for c in own_cards + [top] + [BLACK_THREE]:  # B3 was the upcard, below the top now
        pack[c] -= 1
    for team, melds in public_melds.items():
        for rank, n, tw, jk in melds:
            st.add_to_meld(team, rank, n, tw, jk)
            pack[rank] -= n
            pack[TWO] -= tw
            pack[JOKER] -= jk
    st.red_threes = [1, 2]
    st.red_threes_by_seat = [1, 1, 0, 1]
    pack[RED_THREE] -= 3
    rng = np.random.default_rng(hidden_seed)
    hidden = rng.permutation([r for r in range(NUM_RANKS) if r != RED_THREE for _ in range(pack[r])]).tolist()
    st.hands[0] = counts_of(own_cards)
    sizes = [len(own_cards), 9, 4, 12]
    for s in (1, 2, 3):
        st.hands[s] = counts_of(hidden[:sizes[s]])
        del hidden[:sizes[s]]
    st.hand_sizes = sizes
    st.pile = [hidden.pop() for _ in range(5)] + [BLACK_THREE] + [hidden.pop() for _ in range(6)] + [top]
    st.stock = rng.permutation(hidden + [RED_THREE] * pack[RED_THREE]).tolist()
    st.deck = rng.permutation(deck_cards(rules.decks, rules.jokers_per_deck)).tolist()
    st.upcards = [BLACK_THREE]
    st.pile_frozen = False
    st.opened = [True, True]
    st.first_meld_turn = [3, 6]
    st.has_melded = [True, False, False, True]
    st.turn = 9
    st.seat_turns = [3, 2, 2, 2]
    st.current = 0
    st.drew_from_stock = True
    return st


OWN = "K K K Q Q 2 JK 5 5 B3"


def test_hand_built_states_look_the_same_to_seat_0() -> None:
    a = hand_built_state(OWN, hidden_seed=1)
    b = hand_built_state(OWN, hidden_seed=2)
    assert a.hands[1:] != b.hands[1:] and a.stock != b.stock and a.pile[:-1] != b.pile[:-1]
    assert a.pile[-1] == b.pile[-1] and len(a.pile) == len(b.pile) and len(a.stock) == len(b.stock)
    assert_same_view(a, b, 0)


def test_the_comparison_can_tell_states_apart() -> None:
    """Controls: the harness notices a different own hand, and a view that leaks the stock."""
    a = hand_built_state(OWN, hidden_seed=1)
    b = hand_built_state(OWN.replace("5 5", "5 6"), hidden_seed=1)
    with pytest.raises(AssertionError, match="hand"):
        assert_same_view(a, b, 0)

    class LeakyView(PlayerView):
        __slots__ = ()

        @property
        def next_stock_card(self) -> int:
            return self._st.stock[-1]

    c = hand_built_state(OWN, hidden_seed=2)
    assert public_snapshot(PlayerView(a, 0)) == public_snapshot(PlayerView(c, 0))
    assert public_snapshot(LeakyView(a, 0)) != public_snapshot(LeakyView(c, 0))


def deal_snapshots(rules: Any, names: list[str], seed: int, game: int, rng: np.random.Generator,
                   rate: float) -> list[tuple[DealState, int]]:
    """Copies of the live state at a random sample of the decision events of one game, with the deciding seat."""
    snapshots: list[tuple[DealState, int]] = []
    live: list[DealState] = []
    real_new_deal = game_module.new_deal

    def new_deal(*args: Any, **kwargs: Any) -> DealState:
        live.append(real_new_deal(*args, **kwargs))
        return live[-1]

    def emit(kind: str, data: dict[str, Any]) -> None:
        if kind == "decision" and rng.random() < rate:
            snapshots.append((clone(live[-1]), data["seat"]))

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(game_module, "new_deal", new_deal)
        play_game(rules, names, seed, game, emit=emit)
    return snapshots


@pytest.mark.parametrize("knobs", [{}, {"num_players": 2}, {"num_players": 6}, {"draw_count": 2}],
                         ids=["classic", "2p", "6p", "draw2"])
def test_views_of_real_deals_hide_other_cards(knobs: dict[str, Any]) -> None:
    """Snapshots of random/greedy deals, the hidden cards re-dealt: no seat can tell the difference."""
    rules = load_rules("classic", {**knobs, "max_hands": 2})
    rng = np.random.default_rng(7)
    names = ["random", "greedy"] * 3
    snapshots = deal_snapshots(rules, ["random"] * rules.num_players, 55, 0, rng, 0.05)
    snapshots += deal_snapshots(rules, names[:rules.num_players], 55, 1, rng, 0.05)
    assert len(snapshots) >= 15
    for st, current in snapshots:
        assert PlayerView(st, current).hand == tuple(st.hands[current])
        for seat in range(st.n_players):
            hidden = rehide(st, seat, rng)
            assert hidden.hands[seat] == st.hands[seat]
            assert_same_view(st, hidden, seat)


# ---------------------------------------------------------------------------------------------- no way back in
def _state_objects(st: DealState) -> dict[int, str]:
    """ids of every mutable container inside the state."""
    found: dict[int, str] = {}

    def walk(obj: Any, path: str) -> None:
        if isinstance(obj, (list, dict, set)):
            found[id(obj)] = path
            for i, x in enumerate(obj.values() if isinstance(obj, dict) else obj):
                walk(x, f"{path}[{i}]")

    for name in DealState.__slots__:
        walk(getattr(st, name, None), name)
    return found


def test_view_has_slots_and_returns_no_live_state() -> None:
    st = hand_built_state(OWN, hidden_seed=3)
    view = PlayerView(st, 0)
    assert "__slots__" in PlayerView.__dict__ and not hasattr(view, "__dict__")
    with pytest.raises(AttributeError):
        view.anything = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        view.hand = (0,) * NUM_RANKS  # type: ignore[misc]
    assert isinstance(view.hand, tuple) and isinstance(view.hand_sizes, tuple)
    live = _state_objects(st)
    for name, value in public_snapshot(view).items():
        assert not isinstance(value, DealState), name
        for v in [value, *(value.values() if isinstance(value, dict) else [])]:
            assert id(v) not in live, f"{name} returns the state's own {live.get(id(v))}"


def test_mutating_what_a_view_returns_changes_nothing() -> None:
    st = hand_built_state(OWN, hidden_seed=4)
    view = PlayerView(st, 0)
    before = copy.deepcopy((st.hands, st.melds, st.canastas, st.red_threes, st.pile, st.stock, st.hand_sizes))
    snapshot = public_snapshot(view)

    melds = view.melds()
    try:
        melds[KING] = (7, 0, 0)  # type: ignore[index]
        del melds[ACE]  # type: ignore[attr-defined]
    except TypeError:
        pass  # a read-only mapping is fine too
    canastas = view.canastas()
    canastas["NATURAL"] = 99
    canastas.clear()
    for team in range(view.n_teams):
        m = view.melds(team)
        if isinstance(m, dict):
            m.clear()
    with pytest.raises(TypeError):
        view.hand[KING] = 0  # type: ignore[index]

    after = (st.hands, st.melds, st.canastas, st.red_threes, st.pile, st.stock, st.hand_sizes)
    assert after == before
    assert public_snapshot(view) == snapshot
    assert view.melds()[ACE] == (3, 1, 0) and view.canastas()["NATURAL"] == 1


def test_a_view_cannot_be_pointed_at_another_seat() -> None:
    st = hand_built_state(OWN, hidden_seed=5)
    view = PlayerView(st, 0)
    with pytest.raises(AttributeError):
        view.seat = 1  # type: ignore[misc]
    assert view.seat == 0 and view.hand == tuple(st.hands[0])
