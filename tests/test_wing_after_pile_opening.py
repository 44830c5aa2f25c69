"""Knob ``wing_after_pile_opening`` (RULES.md A-AM-4b): which wing the other team gets after a pile opening.

A team that opens by taking the pile gets no wing (``wing_denied_if_opened_via_pile``). With THREE (the default) the
4-card wing it would have taken is not given: it stays set aside (``DealState.wings_void``, never counted) and the
other team's first opener takes the 3-card wing. With FOUR (the engine's earlier behaviour) the other team's first
opener takes the 4-card wing and the 3-card wing is never given.

Seats: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2, team 1 = seats 1 and 3. The deck is
stacked with :func:`helpers_americana.stack_am_deck` (hands, then the wings 4 then 3, then the stock). Seat 0
discards a 9 on turn 1 without melding; seat 1 takes it with 9 9 and opens team 1 with J J J (30 + 30 = 60); seat 2
opens team 0 from the hand with A A A + K K K (60 + 30 = 90) on turn 3, and its wing joins the hand on turn 7.
"""

from __future__ import annotations

from typing import Any

from click.testing import CliRunner
from helpers import Scripted, counts, meld, players, take
from helpers_americana import AmTable, am_deal_state, am_rules

from simcli.cli import main
from simcli.primitives.cards import JACK, TEN
from simcli.rules.presets import load_rules

HANDS = {0: "K K K Q Q Q 9 4 4 5 5 6 6", 1: "9 9 J J J", 2: "A A A K K K 4 5 6 8 10 Q 4"}
WINGS = ("9 9 8 B3", "10 10 J")
STOCK = "7 4 5 6 8"  # turn 1: seat 0 draws the 7; seat 1 takes the pile; turn 3: seat 2 draws the 4 ...


def deal(**knobs: Any) -> tuple[Any, AmTable]:
    st = am_deal_state(am_rules(**knobs), hands=HANDS, wings=WINGS, stock=STOCK)
    scripts = {
        0: Scripted(discards={1: "9"}),
        1: Scripted(draws={2: take("9", 2, extra=[meld("J", 3)])}),
        2: Scripted(melds={3: [meld("A", 3), meld("K", 3)]}, discards={3: "4"}),
    }
    return st, AmTable(st, players(scripts))


def test_default_is_three() -> None:
    assert load_rules("americana").wing_after_pile_opening == "THREE"
    res = CliRunner().invoke(main, ["rules", "show", "americana"])
    line = next(x for x in res.output.splitlines() if "wing_after_pile_opening" in x)
    assert "= THREE" in line and "the 4 is not given" in line
    bad = CliRunner().invoke(main, ["rules", "show", "americana", "--rule", "wing_after_pile_opening=TWO"])
    assert bad.exit_code != 0 and "Traceback" not in bad.output
    assert "bad value 'TWO' for rule knob 'wing_after_pile_opening': allowed is one of THREE, FOUR" in bad.output


def test_three_the_other_team_takes_the_three_card_wing() -> None:
    st, table = deal()
    table.step(2)
    assert st.opened == [False, True] and st.wing_log == [] and st.wing_taken == [False, True]
    assert st.wings_void == [counts("9 9 8 B3")] and st.wings == [counts("10 10 J")]  # the 4 is not given
    table.step(1)
    assert st.opened == [True, True] and st.wing_log == [(2, 3, 3)]
    assert st.wing_pending[2] == counts("10 10 J") and st.wings == []
    table.step(4)  # turn 7: the wing joins seat 2's hand
    # seat 2: 13 - 6 melded + 4 drawn - 4 discarded = 7 cards, + the wing's 3 + the 8 it draws, - the discard
    assert st.hand_sizes[2] == 7 + 3 + 1 - 1 and st.black_threes == [0, 0]
    assert st.hands[2][TEN] >= 2 and st.hands[2][JACK] >= 1  # the wing's 10 10 J are in the hand


def test_four_the_other_team_takes_the_four_card_wing() -> None:
    st, table = deal(wing_after_pile_opening="FOUR")
    table.step(2)
    assert st.wings_void == [] and st.wings == [counts("9 9 8 B3"), counts("10 10 J")]
    table.step(1)
    assert st.wing_log == [(2, 4, 3)] and st.wing_pending[2] == counts("9 9 8 B3")
    assert st.wings == [counts("10 10 J")]  # the 3-card wing is never given
    table.step(4)  # turn 7: the wing's B3 is laid and replaced by the stock's next card
    assert st.black_threes == [1, 0]
    assert st.hand_sizes[2] == 7 + 3 + 1 + 1 - 1  # the wing's 9 9 8, the B3's replacement, the draw, a discard


def test_the_knob_matters_only_when_pile_openers_get_no_wing() -> None:
    """With wing_denied_if_opened_via_pile=false the pile opener takes the 4 and the next opener the 3, either way."""
    for value in ("THREE", "FOUR"):
        st, table = deal(wing_denied_if_opened_via_pile=False, wing_after_pile_opening=value)
        table.step(3)
        assert st.wing_log == [(1, 4, 2), (2, 3, 3)] and st.wings_void == [] and st.wings == []


def test_a_team_opening_second_via_the_pile_changes_nothing() -> None:
    """Team 0 opens first from the hand (the 4), team 1 via the pile: no wing for team 1 under both values."""
    hands = {0: "K K K Q Q Q 9 4 4 5 5 6 6", 1: "9 9 J J J"}
    for value in ("THREE", "FOUR"):
        st = am_deal_state(am_rules(wing_after_pile_opening=value), hands=hands, wings=WINGS, stock="10")
        table = AmTable(st, players({0: Scripted(melds={1: [meld("K", 3), meld("Q", 3)]}, discards={1: "9"}),
                                     1: Scripted(draws={2: take("9", 2, extra=[meld("J", 3)])})}))
        table.step(2)
        assert st.wing_log == [(0, 4, 1)] and st.wing_taken == [True, True]
        # Under THREE the 3-card wing, due to no one any more, is set aside with the forfeited ones.
        assert [sum(w) for w in st.wings + st.wings_void] == [3]
