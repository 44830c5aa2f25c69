"""A wild card turned up at the start freezes the pile even when it is not covered (RULES.md §1.7).

§1.7 lists "Pile holds a wild card (discarded, or turned up at the start)" among the freeze conditions of Classic,
Ponytail and Spanish (``freeze_on_wild_discard``). The presets cover every wild upcard, and a covered wild freezes
through ``upcard_freeze_ranks``; with ``upcard_cover_ranks`` empty the wild stays on the pile as the upcard, and it
must freeze the pile all the same. Seats: dealer 3, so seat 0 plays first; team 0 = seats 0 and 2.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import Scripted, cards, deal_state, make_rules, meld, play_until, players, take

from simcli.primitives.errors import IllegalDecision

DEALER = 3

#: (the upcard, extra knobs, whether an opened team finds the pile frozen)
CASES = {
    "uncovered_two": ("2", {}, True),
    "uncovered_joker": ("JK", {}, True),
    "uncovered_natural": ("5", {}, False),
    "uncovered_two_no_wild_freeze": ("2", {"freeze_on_wild_discard": False}, False),
    "covered_two_cover_effect_none": ("2 5", {"upcard_cover_ranks": ["JK", "2"], "upcard_cover_effect": "NONE"},
                                      True),
}


def scenario(case: str, hand2: str, how: Any) -> tuple[Any, list[Any]]:
    """Turn 1: seat 0 opens (A A A, K K K) and discards a 4; turn 2: seat 1 discards a 9; turn 3: seat 2 (team 0,
    opened) takes the pile with ``how``."""
    upcards, knobs, _ = CASES[case]
    rules = make_rules(**{"upcard_cover_ranks": [], **knobs})
    st = deal_state(rules, {0: "A A A K K K 4 Q J 10 8", 1: "9", 2: hand2}, upcards, stock="6 7 8",
                    dealer=DEALER)
    strategies = players({
        0: Scripted(melds=[[meld("A", 3), meld("K", 3)]], discards=["4"]),
        1: Scripted(discards=["9"]),
        2: Scripted(draws=[how], discards=["8"]),
    })
    return st, strategies


@pytest.mark.parametrize("case", list(CASES))
def test_wild_upcard_freezes_the_pile(case: str) -> None:
    upcards, _, frozen = CASES[case]
    st, strategies = scenario(case, "9 2 4 4 5 5 6 6 7 7 8", take("9", 1, twos=1))
    assert st.upcards == cards(upcards) and st.pile == cards(upcards)
    assert st.pile_frozen is frozen  # at the start, before any discard
    table = play_until(st, strategies, 2)
    assert st.opened == [True, False]
    assert st.pile_frozen is frozen and st.frozen_for(0) is frozen
    assert table.deal.views[2].pile_frozen is frozen


@pytest.mark.parametrize("case", list(CASES))
def test_natural_and_wild_take_needs_an_unfrozen_pile(case: str) -> None:
    """M2 (a natural and a wild with the top 9) is refused on the frozen pile, and M1 (a natural pair) still works."""
    upcards, _, frozen = CASES[case]
    st, strategies = scenario(case, "9 2 4 4 5 5 6 6 7 7 8", take("9", 1, twos=1))
    if frozen:
        with pytest.raises(IllegalDecision, match="frozen for this team: a natural pair of 9 is needed"):
            play_until(st, strategies, 3)
    else:
        play_until(st, strategies, 3)
        assert st.take_sizes[0] == [len(cards(upcards)) + 2]
    st, strategies = scenario(case, "9 9 4 4 5 5 6 6 7 7 8", take("9", 2))
    play_until(st, strategies, 3)
    assert st.take_sizes[0] == [len(cards(upcards)) + 2] and st.pile == cards("8")
    assert st.pile_frozen is False
