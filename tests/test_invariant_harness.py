"""The shared invariant harness (tests/invariant_harness.py) can fail, for every variant's checker.

Two kinds of evidence: the harness's own checks fire on hand-broken states and results, and engine bugs planted in
the rules code (a scoring function and a legality function replaced by wrong ones) are caught by each variant's
checker within a short sample of random play. The engine functions are replaced wherever a loaded ``simcli`` or
``strategies`` module holds them, so the plant still reaches the engine when a module is split or renamed.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import pytest
import test_invariants as classic
import test_invariants_americana as americana
import test_invariants_ponytail as ponytail
import test_invariants_spanish as spanish
from invariant_harness import END_REASON, DealChecker, InvariantError, play_games, same_seats

import simcli.engine.melds
import simcli.engine.scoring
from simcli.engine.game import prepare_deal
from simcli.engine.scoring import SCORE_PARTS
from simcli.engine.state import DealState
from simcli.primitives.cards import NATURAL_RANKS, deck_cards
from simcli.primitives.seeding import deal_rng

#: Per variant: its rules, its checker class, and a short checked sample of random play (returns the deals played).
VARIANTS: dict[str, tuple[Any, type[DealChecker], Callable[[Counter[str]], int]]] = {
    "classic": (classic.CLASSIC, classic.Checker,
                lambda stats: classic.play_checked(classic.CLASSIC, classic.R4, 5, range(6), stats)),
    "ponytail": (ponytail.PONYTAIL, ponytail.PonyChecker,
                 lambda stats: ponytail.play_checked(ponytail.PONYTAIL, 5, 40, stats, mixes=(0,))),
    "americana": (americana.AMERICANA, americana.AmChecker,
                  lambda stats: americana.play_checked(americana.AMERICANA, [americana.R4], 5, 60, stats)),
    "spanish": (spanish.spanish("4x2"), spanish.SpanishChecker,
                lambda stats: spanish.play_checked(spanish.spanish("4x2"), 5, 60, stats)),
}


def fresh(variant: str) -> tuple[DealState, DealChecker]:
    """A freshly dealt position of ``variant`` (seeded) and its checker, before any event."""
    rules, checker_class, _ = VARIANTS[variant]
    st = prepare_deal(rules, deck_cards(rules.decks, rules.jokers_per_deck), deal_rng(1, 0), 0, 3,
                      [0] * rules.n_teams)
    return st, checker_class(st, Counter(), where="fresh:")


# ---------------------------------------------------------------------------------------------- the harness's checks
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_checker_accounts_for_every_card(variant: str) -> None:
    st, checker = fresh(variant)
    checker.check_state("cut")
    rank = next(r for r in NATURAL_RANKS if st.hands[0][r])
    st.hands[0][rank] -= 1
    st.hand_sizes[0] -= 1
    with pytest.raises(InvariantError, match="cards not accounted for"):
        checker.check_state("discard")
    st.hands[0][rank] += 1
    with pytest.raises(InvariantError, match=r"hand_sizes"):
        checker.check_state("discard")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_checker_names_the_place_and_refuses_events_after_the_end(variant: str) -> None:
    st, checker = fresh(variant)
    checker.ended_by = "going_out"
    checker("deal_scored", {})  # the deal's scoring may follow its end
    with pytest.raises(InvariantError, match=r"^fresh: deal 0 turn 0, after event #2 'discard': event after the "
                                             r"deal ended by 'going_out'$"):
        checker("discard", {"seat": 0, "card": "5"})


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_checker_refuses_a_stock_drawn_out_of_order(variant: str) -> None:
    st, checker = fresh(variant)
    st.stock[-1], st.stock[0] = st.stock[0], st.stock[-1]
    if st.stock[-1] == st.stock[0]:  # the same rank at both ends: swap with a card of another rank
        i = next(i for i, c in enumerate(st.stock) if c != st.stock[-1])
        st.stock[-1], st.stock[i] = st.stock[i], st.stock[-1]
    with pytest.raises(InvariantError, match="the stock is not the undrawn top of the shuffled deck"):
        checker.check_state("cut")


def test_the_end_of_a_deal_needs_events_and_the_right_ending() -> None:
    st, checker = fresh("classic")
    with pytest.raises(InvariantError, match="no event reached the checker"):
        checker.finish_common(SimpleNamespace(end_reason="went_out"))  # type: ignore[arg-type]
    checker.events = 1
    checker.ended_by = "stock_out"
    with pytest.raises(InvariantError, match="end_reason went_out but the deal ended with 'stock_out'"):
        checker.finish_common(SimpleNamespace(end_reason="went_out"))  # type: ignore[arg-type]
    assert checker.finish_common(SimpleNamespace(end_reason=END_REASON["stock_out"])) == "finish"  # type: ignore


def test_score_parts_must_add_up_and_be_the_known_parts() -> None:
    _, checker = fresh("classic")
    score = dict.fromkeys(SCORE_PARTS, 0) | {"melded": 120, "hand": -30, "total": 90}
    checker.check_score_sums("finish", SimpleNamespace(scores=[score]))  # type: ignore[arg-type]
    with pytest.raises(InvariantError, match="team 0: parts do not add up"):
        checker.check_score_sums("finish", SimpleNamespace(scores=[score | {"total": 91}]))  # type: ignore
    with pytest.raises(InvariantError, match="score keys"):
        checker.check_score_sums("finish", SimpleNamespace(scores=[score | {"bonus": 0}]))  # type: ignore


def test_black_threes_only_by_the_player_going_out() -> None:
    st, checker = fresh("classic")
    st.turn = 9
    checker.check_black_three_melds("finish", [(2, 9)], 2)
    with pytest.raises(InvariantError, match="black threes melded by seat 1 on turn 9"):
        checker.check_black_three_melds("finish", [(1, 9)], 2)
    with pytest.raises(InvariantError, match="black threes melded by seat 2 on turn 8"):
        checker.check_black_three_melds("finish", [(2, 8)], 2)


def test_play_games_fails_when_deals_bypass_the_checker() -> None:
    """A checker whose deals are never finished (the engine stopped calling it) fails the sample."""

    class Unfinished(classic.Checker):
        def finish(self, result: Any) -> None:
            pass

    with pytest.raises(AssertionError, match="of .* deals went through the checker"):
        play_games(classic.CLASSIC, 1, Counter(), lambda st, emit, where: Unfinished(st, Counter(), emit, where),
                   same_seats(classic.R4), games=[0])
    with pytest.raises(ValueError, match="needs the games"):
        play_games(classic.CLASSIC, 1, Counter(), classic.Checker, same_seats(classic.R4))


# ---------------------------------------------------------------------------------------------- planted engine bugs
@contextmanager
def planted(original: Callable[..., Any], replacement: Callable[..., Any]) -> Iterator[int]:
    """Replace the engine function ``original`` by ``replacement`` in every loaded simcli/strategies module that
    holds it (not in the tests: the oracles keep the copies they imported); yields how many places were patched."""
    places = [(module, name) for module_name, module in list(sys.modules.items())
              if module is not None and module_name.split(".")[0] in ("simcli", "strategies")
              for name, value in list(vars(module).items()) if value is original]
    try:
        for module, name in places:
            setattr(module, name, replacement)
        yield len(places)
    finally:
        for module, name in places:
            setattr(module, name, original)


def _no_hand_penalty(rules: Any, counts: Any) -> int:
    return 0


def _every_meld_legal(*args: Any, **kwargs: Any) -> None:
    return None


#: (the engine function, its wrong replacement, what the checker must say)
BUGS = {
    "hand-cards-cost-nothing": (simcli.engine.scoring.hand_points, _no_hand_penalty, "recomputed"),
    "every-meld-legal": (simcli.engine.melds.meld_error, _every_meld_legal, "illegal meld"),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_checker_catches_a_planted_engine_bug(variant: str, bug: str) -> None:
    """The same short sample passes on the real engine and fails, with the expected complaint, on a broken one."""
    sample = VARIANTS[variant][2]
    assert sample(Counter()) > 0
    original, replacement, message = BUGS[bug]
    with planted(original, replacement) as places:
        assert places >= 1, f"{original.__name__} is no longer used by any simcli module"
        with pytest.raises(InvariantError, match=message):
            sample(Counter())


def test_plants_are_undone() -> None:
    with planted(simcli.engine.scoring.hand_points, _no_hand_penalty):
        assert simcli.engine.scoring.hand_points is _no_hand_penalty
    assert simcli.engine.scoring.hand_points is not _no_hand_penalty
