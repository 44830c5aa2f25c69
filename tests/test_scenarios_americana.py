"""Hand-dealt Canasta Americana scenarios: each Americana rule or knob changes play (RULES.md §2.3, §3, §4.2).

Seats: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2, team 1 = seats 1 and 3. The deck is
stacked with :func:`helpers_americana.stack_am_deck`: 13-card hands, then the wings (4 then 3 cards), then the stock
in drawing order (draw_count = 1: replacements for dealt threes first, then turn 1 = seat 0's draw, turn 2 = seat
1's, ...). Players without a script draw from the stock, never meld and discard their lowest natural. Every
expected value was worked out by hand from RULES.md (card values §1.3, scoring §1.12, the §2.3 tables), not from the
engine. Strategies are scripted only (the built-in ones are being reworked for Americana).
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from helpers import Scripted, counts, hand_of, meld, players, take
from helpers_americana import AmTable, Holder, am_deal_state, am_play, am_rules
from scoring_paths import fake_deal

import simcli.engine.game
from simcli.engine.deal import DealResult
from simcli.players.seating import play_game
from simcli.primitives.actions import Meld, SpecialHand
from simcli.primitives.cards import (
    ACE,
    BLACK_THREE,
    JACK,
    KING,
    NINE,
    QUEEN,
    RED_THREE,
    SEVEN,
    TEN,
    TWO,
    WILD_MELD,
)
from simcli.primitives.errors import IllegalDecision

#: Seat 0 opens with K K K + Q Q Q = 60 (minimum 50 at a team score of 0).
OPEN_60 = [meld("K", 3), meld("Q", 3)]


def wild(twos: int = 0, jokers: int = 0) -> Meld:
    """A meld of wild cards only."""
    return Meld(WILD_MELD, 0, twos, jokers)


def parts(score: dict[str, int]) -> dict[str, int]:
    """The non-zero parts of a team's score (plus the total)."""
    return {k: v for k, v in score.items() if v}


def illegal(st: Any, scripts: dict[int, Any], turns: int) -> str:
    """Play up to ``turns`` turns and return the message of the IllegalDecision that must stop them."""
    table = AmTable(st, players(scripts))
    with pytest.raises(IllegalDecision) as exc:
        table.step(turns)
    return str(exc.value)


# ============================================================================ the pile is always frozen
def frozen_deal(rules: Any = None) -> Any:
    """Seat 0 opens on turn 1 and discards a 4; seat 1 discards a 9; seat 2 (team 0, opened) holds 9 9 2."""
    return am_deal_state(rules, hands={0: "K K K Q Q Q 4", 1: "9", 2: "9 9 2"})


def frozen_scripts(turn3: Any) -> dict[int, Any]:
    return {0: Scripted(melds={1: OPEN_60}, discards={1: "4"}), 1: Scripted(discards={2: "9"}),
            2: Scripted(draws={3: turn3})}


def test_pile_always_frozen_refuses_natural_plus_wild() -> None:
    msg = illegal(frozen_deal(), frozen_scripts(take("9", 1, twos=1)), 3)
    assert "the pile is frozen for this team: a natural pair of 9 is needed" in msg


def test_pile_always_frozen_natural_pair_takes() -> None:
    st = frozen_deal()
    am_play(st, players(frozen_scripts(take("9", 2))), 3)
    assert st.melds[0][NINE] == [3, 0, 0] and [len(t) for t in st.take_sizes] == [1, 0]
    assert len(st.pile) == 1  # the pile went into seat 2's hand; only seat 2's discard is on it


def test_unfrozen_pile_with_nat_wild_allowed_takes_with_natural_plus_wild() -> None:
    rules = am_rules(pile_always_frozen=False, take_methods_unfrozen="PAIR,NAT_WILD")
    st = frozen_deal(rules)
    am_play(st, players(frozen_scripts(take("9", 1, twos=1))), 3)
    assert st.melds[0][NINE] == [2, 1, 0]


def test_unfrozen_pile_still_limited_by_take_methods() -> None:
    rules = am_rules(pile_always_frozen=False)  # take_methods_unfrozen stays PAIR
    msg = illegal(frozen_deal(rules), frozen_scripts(take("9", 1, twos=1)), 3)
    assert "taking by NAT_WILD is not allowed" in msg


# ============================================================================ dead ranks
def dead_k_deal(rules: Any = None) -> Any:
    """Turn 1 seat 0 opens K x5 + 2; turn 2 seat 1 opens K K JK; turn 3 seat 2 adds a 2: K x5 + 2 2 closes K.

    All 8 kings are placed: 5 (seat 0) + 2 (seat 1) + 1 (seat 3).
    """
    return am_deal_state(rules, hands={0: "K K K K K 2 4", 1: "K K JK", 2: "2", 3: "K"})


def dead_k_scripts(turn4: Any) -> dict[int, Any]:
    return {0: Scripted(melds={1: [meld("K", 5, twos=1)]}, discards={1: "4"}),
            1: Scripted(melds={2: [meld("K", 2, jokers=1)]}),
            2: Scripted(melds={3: [meld("K", twos=1)]}),
            3: Scripted(melds={4: turn4})}


def test_closed_rank_dead_for_all_opponent_cannot_add() -> None:
    st = dead_k_deal()
    table = am_play(st, players(dead_k_scripts([meld("K", 1)])), 3)
    assert st.melds[0][KING] == [5, 2, 0] and st.canastas[0]["MIXED"] == 1
    assert st.melds[1][KING] == [2, 0, 1]
    assert st.rank_has_canasta(KING)
    with pytest.raises(IllegalDecision, match=r"rank K is closed \(closed_rank_dead_for_all\)"):
        table.step(1)  # turn 4: seat 3 adds its K to team 1's meld


def test_closed_rank_not_dead_when_knob_off() -> None:
    st = dead_k_deal(am_rules(closed_rank_dead_for_all=False))
    am_play(st, players(dead_k_scripts([meld("K", 1)])), 4)
    assert st.melds[1][KING] == [3, 0, 1]


def dead_q_deal(rules: Any = None) -> Any:
    """Turn 1 seat 0 opens with a mixed canasta Q x5 + 2 2; seat 2 discards a Q on turn 3; seat 3 holds Q Q J J J.

    8 queens: 5 + 1 + 2.
    """
    return am_deal_state(rules, hands={0: "Q Q Q Q Q 2 2 4", 2: "Q", 3: "Q Q J J J"})


def dead_q_scripts() -> dict[int, Any]:
    return {0: Scripted(melds={1: [meld("Q", 5, twos=2)]}, discards={1: "4"}),
            2: Scripted(discards={3: "Q"}),
            3: Scripted(draws={4: take("Q", 2, extra=[meld("J", 3)])})}  # 30 + 30 = 60 >= 50


def test_closed_rank_blocks_pile() -> None:
    msg = illegal(dead_q_deal(), dead_q_scripts(), 4)
    assert "rank Q already has a canasta (closed_rank_blocks_pile)" in msg


def test_closed_rank_pile_without_blocks_pile_still_dead() -> None:
    msg = illegal(dead_q_deal(am_rules(closed_rank_blocks_pile=False)), dead_q_scripts(), 4)
    assert "rank Q is closed (closed_rank_dead_for_all)" in msg


def test_closed_rank_pile_taken_when_both_knobs_off() -> None:
    st = dead_q_deal(am_rules(closed_rank_blocks_pile=False, closed_rank_dead_for_all=False))
    am_play(st, players(dead_q_scripts()), 4)
    assert st.melds[1][QUEEN] == [3, 0, 0] and st.melds[1][JACK] == [3, 0, 0] and st.opened == [True, True]


# ====================================================================== AMERICAN wild rule, sevens, aces, wild melds
def opening_attempt(hand: str, melds: list[Meld], rules: Any = None, stock: str = "") -> Any:
    """Seat 0 holds ``hand`` and tries ``melds`` on turn 1; returns the state (raises on an illegal opening)."""
    st = am_deal_state(rules, hands={0: hand}, stock=stock)
    am_play(st, players({0: Scripted(melds={1: melds})}), 1)
    return st


@pytest.mark.parametrize(("hand", "melds", "needle"), [
    ("K K K 2 2 2", [meld("K", 3, twos=3)], "3 naturals with 3 wild cards break wild_rule=AMERICAN"),
    ("K K K 2 2 JK", [meld("K", 3, twos=2, jokers=1)], "break wild_rule=AMERICAN"),
    ("7 7 7 2 K K K", [meld("7", 3, twos=1), meld("K", 3)], "wild cards may not join a meld of sevens"),
    ("2 2 K K K", [wild(twos=2), meld("K", 3)], "a wild meld needs at least 3 wild cards to start"),
])
def test_illegal_openings(hand: str, melds: list[Meld], needle: str) -> None:
    with pytest.raises(IllegalDecision, match=needle):
        opening_attempt(hand, melds)


@pytest.mark.parametrize(("hand", "melds", "rank", "meld_after"), [
    ("K K K 2 2", [meld("K", 3, twos=2)], KING, [3, 2, 0]),  # W = 2 is the most
    ("6 6 2 2", [meld("6", 2, twos=2)], 6, [2, 2, 0]),  # R1: 6-6-2-2 is legal under AMERICAN (= 50)
    ("7 7 7 K K K 2", [meld("7", 3), meld("K", 3, twos=1)], SEVEN, [3, 0, 0]),
    ("2 2 JK", [wild(twos=2, jokers=1)], WILD_MELD, [0, 2, 1]),  # 90 points of wild cards open
    ("A A A 2", [meld("A", 3, twos=1)], ACE, [3, 1, 0]),  # wilds on aces in the opening
])
def test_legal_openings(hand: str, melds: list[Meld], rank: int, meld_after: list[int]) -> None:
    st = opening_attempt(hand, melds)
    assert st.melds[0][rank] == meld_after and st.opened[0]


@pytest.mark.parametrize(("hand", "melds", "knobs"), [
    ("K K K 2 2 2", [meld("K", 3, twos=3)], {"wild_rule": "PAGAT", "max_wilds_per_meld": 3}),
    ("7 7 7 2 K K K", [meld("7", 3, twos=1), meld("K", 3)], {"sevens_wilds_allowed": True}),
])
def test_knobs_lift_the_americana_meld_limits(hand: str, melds: list[Meld], knobs: dict[str, Any]) -> None:
    st = opening_attempt(hand, melds, am_rules(**knobs))
    assert st.opened[0]


def later_add_deal(seat0: str, opening: list[Meld], seat2: str, turn3: list[Meld], rules: Any = None) -> AmTable:
    st = am_deal_state(rules, hands={0: seat0 + " 4", 2: seat2})
    strategies = players({0: Scripted(melds={1: opening}, discards={1: "4"}), 2: Scripted(melds={3: turn3})})
    return am_play(st, strategies, 3)


@pytest.mark.parametrize(("seat0", "opening", "seat2", "turn3", "needle"), [
    # wild cards join aces only in the team's opening (the partner adds later)
    ("A A A 2", [meld("A", 3, twos=1)], "2", [meld("A", twos=1)], "wild cards may join aces only in the team's"),
    ("A A A", [meld("A", 3)], "JK", [meld("A", jokers=1)], "mixed_aces_only_in_opening"),
    # never a wild on sevens, later either
    ("7 7 7 K K K K", [meld("7", 3), meld("K", 4)], "2", [meld("7", twos=1)], "may not join a meld of sevens"),
    # a third wild card on a meld
    ("K K K 2 2", [meld("K", 3, twos=2)], "2", [meld("K", twos=1)], "break wild_rule=AMERICAN"),
    # an 8th wild card
    ("2 2 2 2 JK JK JK", [wild(twos=4, jokers=3)], "2", [wild(twos=1)], "exceeds meld_max_size=7"),
])
def test_illegal_later_additions(seat0: str, opening: list[Meld], seat2: str, turn3: list[Meld],
                                 needle: str) -> None:
    with pytest.raises(IllegalDecision, match=needle):
        later_add_deal(seat0, opening, seat2, turn3)


def test_wild_on_aces_later_when_knob_off() -> None:
    table = later_add_deal("A A A 2", [meld("A", 3, twos=1)], "2", [meld("A", twos=1)],
                           am_rules(mixed_aces_only_in_opening=False))
    assert table.st.melds[0][ACE] == [3, 2, 0]


def test_mixed_aces_completed_with_naturals_is_a_mixed_canasta() -> None:
    table = later_add_deal("A A A 2", [meld("A", 3, twos=1)], "A A A", [meld("A", 3)])
    st = table.st
    assert st.melds[0][ACE] == [6, 1, 0]
    assert st.canastas[0] == {"NATURAL": 0, "MIXED": 1, "WILD": 0, "SEVENS": 0, "ACES": 0}


def test_wild_meld_grows_to_a_wild_canasta() -> None:
    table = later_add_deal("2 2 JK", [wild(twos=2, jokers=1)], "2 2 JK JK", [wild(twos=2, jokers=2)])
    assert table.st.melds[0][WILD_MELD] == [0, 4, 3] and table.st.canastas[0]["WILD"] == 1


# ---------------------------------------------------------------------------- scoring at the end of a played deal
# Short stock of three cards: seats 0, 1 and 2 draw one each; seat 3 finds the stock empty on turn 4 and the deal
# ends (END_ON_EMPTY_DRAW). Seat 0 opens on turn 1 with only two stock cards left, below the wing cutoff: no wing.
PENALTY_HANDS = {
    0: "7 7 7 2 2 JK A A A 4 5 6 8",
    1: "A A A 7 7 7 4 5 6 8 9 10 J",
    2: "4 5 6 8 9 10 J Q K 4 5 6 8",
    3: "9 10 J Q K 9 10 J Q K 8 5 6",
}
PENALTY_OPENING = [meld("7", 3), wild(twos=2, jokers=1), meld("A", 3)]  # 15 + 90 + 60 = 165


def penalty_deal(rules: Any = None, hands: dict[int, str] | None = None, opening: list[Meld] | None = None,
                 seat2_melds: list[Meld] | None = None) -> DealResult:
    st = am_deal_state(rules, hands={**PENALTY_HANDS, **(hands or {})}, stock="K Q J", fill_stock=False)
    s0 = Scripted(melds={1: opening or PENALTY_OPENING}, discards={1: "4"})
    s2 = Scripted(melds={3: seat2_melds or []})
    res = AmTable(st, players({0: s0, 2: s2})).finish()
    assert res.end_reason == "stock_out" and res.turns == 4 and res.wings == []
    return res


def test_incomplete_and_hand_rank_penalties_at_the_end() -> None:
    res = penalty_deal()
    # Team 0: sevens -2500, wild -2000, pure aces -2500; no canasta so melds count -165;
    # seat 0 keeps 5 6 8 K (30), seat 2 keeps 5 5 6 6 8 8 9 10 J J Q K 4 (105: drew J, discarded a 4).
    assert parts(res.scores[0]) == {"incomplete_melds": -7000, "melded": -165, "hand": -135, "total": -7300}
    # Team 1: seat 1 (drew Q, discarded 4) keeps A A A 7 7 7 5 6 8 9 10 J Q (135): three aces and three sevens,
    # -1500 each; seat 3 never drew: 9 9 10 10 J J Q Q K K 8 5 6 (120).
    assert parts(res.scores[1]) == {"hand_rank_penalty": -3000, "hand": -255, "total": -3255}


def test_penalty_knobs_change_the_end_score() -> None:
    res = penalty_deal(am_rules(**{"hand_rank_penalty.aces": 0, "incomplete_penalty.wild": -500}))
    assert res.scores[0]["incomplete_melds"] == -5500 and res.scores[0]["total"] == -5800
    assert res.scores[1]["hand_rank_penalty"] == -1500 and res.scores[1]["total"] == -1755


def test_mixed_aces_meld_has_no_incomplete_penalty() -> None:
    # as in the deal above, but seat 0 opens A A A 2 + 7 7 7 (80 + 15) and keeps its 2 and JK
    res = penalty_deal(opening=[meld("A", 3, twos=1), meld("7", 3)])
    # A A A 2 (wilds laid in the opening) is an ordinary meld: only the sevens are penalised
    assert res.scores[0]["incomplete_melds"] == -2500 and res.scores[0]["melded"] == -(80 + 15)
    # seat 0 keeps 2 JK 5 6 8 K (100), seat 2 105
    assert res.scores[0]["hand"] == -205 and res.scores[0]["total"] == -2500 - 95 - 205


def test_mixed_aces_canasta_scores_300() -> None:
    """Seat 0 opens A A A 2, seat 2 adds A A A: a mixed canasta of aces is worth 300, not 2500, and no penalty."""
    res = penalty_deal(opening=[meld("A", 3, twos=1), meld("7", 3)],
                       hands={1: "4 4 5 5 6 6 8 8 9 9 10 10 J", 2: "A A A 4 5 6 8 9 10 J Q K 5"},
                       seat2_melds=[meld("A", 3)])
    s = res.scores[0]
    assert (s["canasta_mixed"], s["canasta_aces"]) == (300, 0)
    # one canasta: melds count plus (A x6 + 2 = 140, 7 7 7 = 15); only the sevens meld is penalised
    assert (s["melded"], s["incomplete_melds"]) == (155, -2500)


def test_incomplete_wild_meld_penalty() -> None:
    res = penalty_deal(opening=[wild(twos=2, jokers=1), meld("K", 3)],
                       hands={0: "2 2 JK K K K 4 5 6 8 9 10 Q", 3: "9 10 J Q 9 10 J Q 8 5 6 8 5"})
    assert res.scores[0]["incomplete_melds"] == -2000 and res.scores[0]["melded"] == -(90 + 30)


# ============================================================================ threes of both colours
class Recorder:
    """Collects (kind, seat, source) of every laid three."""

    def __init__(self) -> None:
        self.threes: list[tuple[str, int, str]] = []

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if kind in ("red_three", "black_three"):
            self.threes.append((kind, data["seat"], data["source"]))


def test_threes_of_both_colours_are_laid_and_replaced() -> None:
    st = am_deal_state(hands={0: "R3 B3 K K K K 4 4 5 5 6 6 8", 1: "B3 4 4 5 5 6 6 8 8 9 9 10 10"},
                       stock="9 10 J B3 Q")
    rec = Recorder()
    table = AmTable(st, players({0: Scripted(discards={1: "4"})}), emit=rec)
    assert st.red_threes == [1, 0] and st.black_threes == [1, 1]
    assert hand_of(st, 0) == "K K K K 10 9 8 6 6 5 5 4 4"  # R3 -> 9, B3 -> 10
    assert hand_of(st, 1) == "J 10 10 9 9 8 8 6 6 5 5 4 4"  # B3 -> J
    assert st.hand_sizes[:2] == [13, 13]
    table.step(1)  # seat 0 draws a B3: laid at once, replaced by the Q
    assert st.black_threes == [2, 1]
    assert hand_of(st, 0) == "K K K K Q 10 9 8 6 6 5 5 4"
    assert rec.threes == [("red_three", 0, "dealt"), ("black_three", 0, "dealt"), ("black_three", 1, "dealt"),
                          ("black_three", 0, "stock")]


def test_black_threes_are_ordinary_cards_in_red_bonus_mode() -> None:
    """With threes_mode = RED_BONUS the black three stays in hand (Classic behaviour)."""
    st = am_deal_state(am_rules(threes_mode="RED_BONUS"), hands={0: "R3 B3 K K K K 4 4 5 5 6 6 8"}, stock="9 10")
    AmTable(st, players())
    assert st.red_threes == [1, 0] and st.black_threes == [0, 0] and st.hands[0][BLACK_THREE] == 1


HOLD_SEAT2 = "B3 4 4 5 5 6 6 8 8 J J Q A"


def test_partner_holds_a_three_until_the_team_opens() -> None:
    st = am_deal_state(hands={0: "K K K Q Q Q", 2: HOLD_SEAT2}, stock="5 6 9 10")
    holder = Holder(hold=True, discards={3: "4"})
    rec = Recorder()
    table = AmTable(st, players({0: Scripted(melds={1: OPEN_60}), 2: holder}), emit=rec)
    assert holder.asked == [(0, "B3")] and st.hands[2][BLACK_THREE] == 1 and st.hand_sizes[2] == 13
    table.step(2)  # team 0 opens on turn 1; the three stays in seat 2's hand until seat 2's own turn
    assert st.opened[0] and st.hands[2][BLACK_THREE] == 1 and st.black_threes == [0, 0]
    table.step(1)  # turn 3 starts: the three is laid and replaced (9), then seat 2 draws the 10 and discards a 4
    assert st.black_threes == [1, 0] and st.hands[2][BLACK_THREE] == 0
    assert hand_of(st, 2) == "A Q J J 10 9 8 8 6 6 5 5 4"
    assert rec.threes == [("black_three", 2, "held")]
    assert holder.asked == [(0, "B3")]


def test_opener_keeps_the_three_until_the_next_turn_start() -> None:
    st = am_deal_state(hands={0: "B3 K K K Q Q Q 4"})
    holder = Holder(hold=True, melds={1: OPEN_60}, discards={1: "4"})
    table = am_play(st, players({0: holder}), 1)
    assert st.opened[0] and st.hands[0][BLACK_THREE] == 1  # opened this turn: not laid yet
    table.step(4)
    assert st.black_threes[0] == 1 and st.hands[0][BLACK_THREE] == 0


def test_only_one_three_may_be_held() -> None:
    st = am_deal_state(hands={0: "R3 B3"}, stock="9 R3 10")
    holder = Holder(hold=True, discards={1: "9"})
    table = AmTable(st, players({0: holder}))
    # two threes dealt: the red one is laid (and replaced by the 9), the player is asked about the black one
    assert holder.asked == [(0, "B3")] and st.red_threes == [1, 0] and st.hands[0][BLACK_THREE] == 1
    before = list(st.hands[0])
    table.step(1)  # draws a R3 while holding a three: laid without asking, replaced by the 10; discards the 9
    assert holder.asked == [(0, "B3")] and st.red_threes == [2, 0] and st.hands[0][RED_THREE] == 0
    before[TEN] += 1
    before[NINE] -= 1
    assert st.hands[0] == before


def test_a_drawn_three_may_be_held_before_opening() -> None:
    st = am_deal_state(stock="B3 9")
    holder = Holder(hold=True)
    am_play(st, players({0: holder}), 1)
    assert holder.asked == [(1, "B3")] and st.hands[0][BLACK_THREE] == 1 and st.black_threes == [0, 0]


def test_a_three_left_in_hand_costs_100() -> None:
    """Team 0 never opens; seat 0 keeps its B3 to the end of the deal (stock out on turn 4)."""
    hands = {0: "B3 4 4 5 5 6 6 8 8 9 9 10 10", 2: "4 4 5 5 6 6 8 8 9 9 10 10 Q"}
    st = am_deal_state(hands=hands, stock="J K Q", fill_stock=False)
    res = AmTable(st, players({0: Holder(hold=True)})).finish()
    assert res.turns == 4 and res.black_threes == [0, 0]
    # seat 0: B3 (-100) 4 5 5 6 6 8 8 9 9 10 10 J = 195; seat 2: 4 5 5 6 6 8 8 9 9 10 10 Q Q = 105
    assert parts(res.scores[0]) == {"hand": -300, "total": -300}


def test_hold_knob_off_the_three_is_laid_at_once() -> None:
    hands = {0: "B3 4 4 5 5 6 6 8 8 9 9 10 10", 2: "4 4 5 5 6 6 8 8 9 9 10 10 Q"}
    st = am_deal_state(am_rules(may_hold_one_three_before_opening=False), hands=hands, stock="J K Q",
                       fill_stock=False)
    holder = Holder(hold=True)
    res = AmTable(st, players({0: holder})).finish()
    assert holder.asked == [] and res.black_threes == [1, 0]
    # the J replaces the B3, so the stock runs out one turn earlier (seat 2 on turn 3)
    # seat 0: 4 5 5 6 6 8 8 9 9 10 10 J K = 105; seat 2: its 13 dealt cards = 100; the B3 counts -100 (no canasta)
    assert res.turns == 3
    assert parts(res.scores[0]) == {"black_threes": -100, "hand": -205, "total": -305}


# ============================================================================ discard restrictions
def test_a_three_cannot_be_discarded_unless_going_out() -> None:
    st = am_deal_state(hands={0: "B3"})
    msg = illegal(st, {0: Holder(hold=True, discards={1: "B3"})}, 1)
    assert "discard B3: a three may be discarded only when going out" in msg


@pytest.mark.parametrize("restrictions", [[], ["NO_WILD_UNLESS_OUT_OR_ONLY_WILDS", "EMPTY_PILE_NO_A7_UNLESS_ONLY"]])
def test_three_discard_allowed_without_the_restriction(restrictions: list[str]) -> None:
    st = am_deal_state(am_rules(discard_restrictions=restrictions), hands={0: "B3"})
    am_play(st, players({0: Holder(hold=True, discards={1: "B3"})}), 1)
    assert st.pile == [BLACK_THREE]


WILD_DISCARD_OPENING = [meld("K", 4), meld("Q", 3), meld("J", 3)]  # 40 + 30 + 30 = 100


def wild_discard(last: str, rules: Any = None) -> Any:
    """Seat 0 draws a K, melds K x4, Q x3, J x3 and keeps 2 2 JK + ``last``, then discards a 2."""
    st = am_deal_state(rules, hands={0: "K K K Q Q Q J J J 2 2 JK " + last}, stock="K")
    am_play(st, players({0: Scripted(melds={1: WILD_DISCARD_OPENING}, discards={1: "2"})}), 1)
    return st


def test_a_wild_cannot_be_discarded_while_a_natural_is_held() -> None:
    with pytest.raises(IllegalDecision, match="a wild card may be discarded only when going out or when the hand"):
        wild_discard("10")


def test_a_wild_may_be_discarded_when_only_wilds_are_held() -> None:
    st = wild_discard("JK")
    assert st.pile == [TWO] and hand_of(st, 0) == "2 JK JK"


def test_wild_discard_allowed_without_the_restriction() -> None:
    st = wild_discard("10", am_rules(discard_restrictions="NO_THREE_UNLESS_OUT,EMPTY_PILE_NO_A7_UNLESS_ONLY"))
    assert hand_of(st, 0) == "10 2 JK"


@pytest.mark.parametrize("card", ["A", "7"])
def test_empty_pile_ace_or_seven_refused_with_other_naturals(card: str) -> None:
    st = am_deal_state(hands={0: "A 7 K"})
    msg = illegal(st, {0: Scripted(discards={1: card})}, 1)
    assert "on an empty pile an ace or a seven may be discarded only if no other natural card is held" in msg


@pytest.mark.parametrize("card", ["A", "7"])
def test_empty_pile_ace_or_seven_allowed_when_only_aces_sevens_and_wilds(card: str) -> None:
    st = am_deal_state(hands={0: "A A A A 7 7 7 7 2 2 2 JK JK"}, stock="A")
    am_play(st, players({0: Scripted(discards={1: card})}), 1)
    assert len(st.pile) == 1 and st.pile[0] == (ACE if card == "A" else SEVEN)


def test_ace_allowed_on_a_non_empty_pile() -> None:
    st = am_deal_state(hands={0: "4", 1: "A K"})
    am_play(st, players({0: Scripted(discards={1: "4"}), 1: Scripted(discards={2: "A"})}), 2)
    assert st.pile[-1] == ACE


def test_empty_pile_ace_allowed_without_the_restriction() -> None:
    st = am_deal_state(am_rules(discard_restrictions="NO_THREE_UNLESS_OUT,NO_WILD_UNLESS_OUT_OR_ONLY_WILDS"),
                       hands={0: "A 7 K"})
    am_play(st, players({0: Scripted(discards={1: "A"})}), 1)
    assert st.pile == [ACE]


# ============================================================================ wings
WING_HANDS = {0: "K K K Q Q Q 4 4 5 5 6 6 10", 2: "A A A", 3: "J J J 8 8 8 4 5 6 9 9 10 10"}
WINGS = ("9 9 8 B3", "10 10 J")


def wing_players() -> list[Any]:
    return players({
        0: Scripted(melds={1: OPEN_60}, discards={1: "4", 5: "4"}),
        2: Scripted(melds={3: [meld("A", 3)]}),  # team 0 has already opened: no wing for the partner
        3: Scripted(melds={4: [meld("J", 3), meld("8", 3)]}, discards={4: "4", 8: "9"}),  # 60: team 1 opens
    })


def test_wings_go_to_each_team_first_opener_at_the_next_turn_start() -> None:
    st = am_deal_state(hands=WING_HANDS, wings=WINGS, stock="5 6 Q 4 K A")
    rec = Recorder()
    table = AmTable(st, wing_players(), emit=rec)
    table.step(1)
    assert st.wing_log == [(0, 4, 1)] and st.wing_pending[0] == counts("9 9 8 B3")
    assert hand_of(st, 0) == "10 6 6 5 5 5 4"  # the wing is not in the hand yet
    table.step(3)
    assert st.wing_log == [(0, 4, 1), (3, 3, 4)]  # seat 2 opened nothing new; seat 3 opened team 1
    assert st.wing_pending[3] == counts("10 10 J") and st.wings == [] and st.wing_pending[2] is None
    assert hand_of(st, 3) == "10 10 9 9 6 5 4"
    table.step(1)  # turn 5: the wing joins seat 0's hand, its B3 is laid and replaced (K); seat 0 draws an A
    assert st.wing_pending[0] is None and st.black_threes == [1, 0]
    assert hand_of(st, 0) == "A K 10 9 9 8 6 6 5 5 5"
    assert rec.threes == [("black_three", 0, "wing")]
    table.step(2)
    before = list(st.hands[3])
    drawn = st.stock[-1]
    table.step(1)  # turn 8: seat 3's wing of 3 joins the hand, then it draws and discards a 9
    expected = [b + w for b, w in zip(before, counts("10 10 J"), strict=True)]
    expected[drawn] += 1
    expected[NINE] -= 1
    assert st.hands[3] == expected and st.hand_sizes[3] == 7 + 3 + 1 - 1


def test_wing_denied_when_opening_via_the_pile() -> None:
    hands = {0: "K K K Q Q Q 9 4 4 5 5 6 6", 1: "9 9 J J J"}
    s0 = Scripted(melds={1: OPEN_60}, discards={1: "9"})
    s1 = Scripted(draws={2: take("9", 2, extra=[meld("J", 3)])})  # 9 x3 (30) + J x3 (30)
    st = am_deal_state(hands=hands, wings=WINGS, stock="10")
    am_play(st, players({0: s0, 1: s1}), 2)
    assert st.opened == [True, True] and st.wing_log == [(0, 4, 1)]
    assert st.wing_taken == [True, True] and st.wing_pending[1] is None and st.wings == []
    assert [sum(w) for w in st.wings_void] == [3]  # the 3 team 1 would have taken stays set aside (A-AM-4b)
    st = am_deal_state(am_rules(wing_denied_if_opened_via_pile=False), hands=hands, wings=WINGS, stock="10")
    s0 = Scripted(melds={1: OPEN_60}, discards={1: "9"})
    s1 = Scripted(draws={2: take("9", 2, extra=[meld("J", 3)])})
    am_play(st, players({0: s0, 1: s1}), 2)
    assert st.wing_log == [(0, 4, 1), (1, 3, 2)] and st.wing_pending[1] == counts("10 10 J")


@pytest.mark.parametrize(("stock_cards", "knobs", "granted"), [
    (10, {}, True),  # 9 cards left after seat 0's draw
    (9, {}, False),  # 8 left: the turn card has been drawn (cutoff 8)
    (9, {"wing_cutoff_stock_remaining": None}, True),
    (9, {"wing_cutoff_stock_remaining": 7}, True),
    (8, {"wing_cutoff_stock_remaining": 7}, False),
])
def test_wing_cutoff(stock_cards: int, knobs: dict[str, Any], granted: bool) -> None:
    stock = "4 5 6 8 9 10 J 4 5 6".split()[:stock_cards]
    st = am_deal_state(am_rules(**knobs), hands={0: "K K K Q Q Q"}, wings=WINGS, stock=" ".join(stock),
                       fill_stock=False)
    am_play(st, players({0: Scripted(melds={1: OPEN_60})}), 1)
    assert len(st.stock) == stock_cards - 1 and st.opened[0] and st.wing_taken[0]
    assert st.wing_log == ([(0, 4, 1)] if granted else [])
    assert (st.wing_pending[0] is not None) is granted and len(st.wings) == (1 if granted else 2)


def test_wing_timing_immediate() -> None:
    hands = {0: "K K K Q Q Q 4 4 5 5 6 6 10"}
    st = am_deal_state(am_rules(wing_timing="IMMEDIATE"), hands=hands, wings=WINGS, stock="5 K")
    am_play(st, players({0: Scripted(melds={1: OPEN_60}, discards={1: "9"})}), 1)
    # the wing joins the hand during the turn: its B3 is laid and replaced by the K, a 9 of it is discarded
    assert st.wing_pending[0] is None and st.wing_log == [(0, 4, 1)] and st.black_threes == [1, 0]
    assert hand_of(st, 0) == "K 10 9 8 6 6 5 5 5 4 4"


def test_wing_timing_next_turn_cannot_use_the_wing_at_once() -> None:
    st = am_deal_state(hands={0: "K K K Q Q Q 4 4 5 5 6 6 10"}, wings=WINGS, stock="5 K")
    msg = illegal(st, {0: Scripted(melds={1: OPEN_60}, discards={1: "9"})}, 1)
    assert "which is not a card in hand" in msg


# ============================================================================ going out
GO_OUT_HAND = "K K K K K K K Q Q Q Q Q 2"
OTHER_100 = "4 4 5 5 6 6 8 8 9 9 10 10 J"  # 30 + 70 = 100 points


def go_out_deal(rules: Any = None, seat0: str = GO_OUT_HAND) -> Any:
    return am_deal_state(rules, hands={0: seat0, 1: OTHER_100, 2: OTHER_100, 3: OTHER_100}, stock="2")


def test_going_out_must_end_with_a_discard() -> None:
    msg = illegal(go_out_deal(), {0: Scripted(melds={1: [meld("K", 7), meld("Q", 5, twos=2)]}, discards={1: None})},
                  1)
    assert "going out must end with a discard (going_out_requires_discard)" in msg


def test_going_out_with_two_canastas_and_a_wild_discard() -> None:
    """Two canastas and a discard need 15 cards: seat 2 lays K x7 on turn 3, seat 0 goes out on turn 5."""
    hands = {0: "Q Q Q Q Q 2 2 J J J J J J", 1: OTHER_100, 2: "K K K K K K K 4 4 5 5 6 6", 3: OTHER_100}
    st = am_deal_state(hands=hands, stock="8 9 10 A 2")
    s0 = Scripted(melds={5: [meld("Q", 5, twos=2), meld("J", 6)]}, discards={1: "8", 5: "2"})
    s2 = Scripted(melds={3: [meld("K", 7)]})
    res = AmTable(st, players({0: s0, 2: s2})).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 5 and st.pile[-1] == TWO
    # 100 + 500 + 300; melded K x7 70, Q x5 + 2 2 90, J x6 60 (no penalty for an ordinary incomplete meld);
    # seat 2 keeps 4 5 5 6 6 10 (35: drew the 10, discarded a 4); its wing never reached the hand
    assert parts(res.scores[0]) == {"going_out": 100, "canasta_natural": 500, "canasta_mixed": 300,
                                    "melded": 220, "hand": -35, "total": 1085}
    # seat 1 drew a 9 and seat 3 an A, each discarded a 4: 100 - 5 + 10 and 100 - 5 + 20
    assert parts(res.scores[1]) == {"hand": -220, "total": -220}


def test_going_out_needs_two_canastas() -> None:
    # K x7 and Q x4 + 2 2 (not a canasta) leave one card: discarding it would go out with one canasta
    msg = illegal(go_out_deal(seat0="K K K K K K K Q Q Q Q 2 4"),
                  {0: Scripted(melds={1: [meld("K", 7), meld("Q", 4, twos=2)]})}, 1)
    assert "cannot go out: the team needs canastas ANY:2" in msg


def test_going_out_without_discard_when_knob_off() -> None:
    st = go_out_deal(am_rules(going_out_requires_discard=False))
    res = AmTable(st, players({0: Scripted(melds={1: [meld("K", 7), meld("Q", 5, twos=2)]},
                                           discards={1: None})})).finish()
    assert res.end_reason == "went_out" and st.pile == []
    assert parts(res.scores[0]) == {"going_out": 100, "canasta_natural": 500, "canasta_mixed": 300,
                                    "melded": 160, "hand": -100, "total": 960}


def test_going_out_with_a_three_as_the_last_discard() -> None:
    """A three is discarded only when going out: with draw_count=2 seat 0 opens and goes out in one turn."""
    st = am_deal_state(am_rules(draw_count=2), hands={0: "K K K K K K K Q Q Q Q Q B3", 1: OTHER_100, 2: OTHER_100,
                                                      3: OTHER_100}, stock="2 2")
    holder = Holder(hold=True, melds={1: [meld("K", 7), meld("Q", 5, twos=2)]}, discards={1: "B3"})
    res = AmTable(st, players({0: holder})).finish()
    assert holder.asked == [(0, "B3")]
    assert res.end_reason == "went_out" and st.pile == [BLACK_THREE] and res.black_threes == [0, 0]
    # 100 + 500 + 300 + melded 70 + 90; seat 2 holds 100
    assert parts(res.scores[0]) == {"going_out": 100, "canasta_natural": 500, "canasta_mixed": 300,
                                    "melded": 160, "hand": -100, "total": 960}


# ============================================================================ special hands
OTHER_120 = "5 5 8 8 9 9 10 10 J Q Q K K"  # 10 + 60 + 50 = 120 points

SPECIAL = {
    "STRAIGHT": ("A 2 B3 4 5 6 7 8 9 10 J Q K", "JK", 3000),
    "PAIRS_NATURAL": ("4 4 5 5 7 7 8 8 9 9 10 10 Q", "Q", 2500),
    "PAIRS_WITH_2_7_A": ("2 2 6 6 7 7 9 9 J J K K A", "A", 2000),
    "GARBAGE": ("4 4 4 6 6 6 6 J J J J A A", "A", 2000),  # the seed's example
}


@pytest.mark.parametrize("kind", list(SPECIAL))
def test_special_hand_ends_the_deal_and_scores_only_its_value(kind: str) -> None:
    hand, draw, value = SPECIAL[kind]
    st = am_deal_state(hands={0: hand, 1: OTHER_120, 2: OTHER_120, 3: OTHER_120}, stock=draw)
    s0 = Holder(hold=True, melds={1: [SpecialHand(kind)]})  # keeps the straight's B3
    res = AmTable(st, players({0: s0})).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 1
    assert res.special_hand == kind and st.hand_sizes[0] == 0 and st.pile == []
    assert [k for _, k, _ in s0.log] == ["draw", "melds"]  # 13 + 1 = 14 cards: no discard
    assert parts(res.scores[0]) == {"special_hand": value, "total": value}  # seat 2's 120 points are ignored
    assert parts(res.scores[1]) == {"hand": -240, "total": -240}


def test_special_hand_refused_after_the_team_opened() -> None:
    hands = {0: "K K K Q Q Q", 2: "4 4 5 5 7 7 8 8 9 9 10 10 Q"}
    msg = illegal(am_deal_state(hands=hands, stock="5 6 Q"),
                  {0: Scripted(melds={1: OPEN_60}), 2: Scripted(melds={3: [SpecialHand("PAIRS_NATURAL")]})}, 3)
    assert "a special hand may be laid only while the team has not opened" in msg


def test_special_hand_after_opening_when_knob_off() -> None:
    hands = {0: "K K K Q Q Q", 2: "4 4 5 5 7 7 8 8 9 9 10 10 Q"}
    st = am_deal_state(am_rules(special_hand_requires_team_unopened=False), hands=hands, stock="5 6 Q")
    res = AmTable(st, players({0: Scripted(melds={1: OPEN_60}),
                               2: Scripted(melds={3: [SpecialHand("PAIRS_NATURAL")]})})).finish()
    assert res.went_out_seat == 2 and res.turns == 3
    assert parts(res.scores[0]) == {"special_hand": 2500, "total": 2500}  # team 0's melds are ignored


def test_special_hand_not_in_the_rules() -> None:
    st = am_deal_state(am_rules(special_hands="STRAIGHT"), hands={0: SPECIAL["PAIRS_NATURAL"][0]}, stock="Q")
    msg = illegal(st, {0: Scripted(melds={1: [SpecialHand("PAIRS_NATURAL")]})}, 1)
    assert "special hand 'PAIRS_NATURAL' is not allowed; allowed: STRAIGHT" in msg


def test_special_hand_must_be_held() -> None:
    st = am_deal_state(hands={0: SPECIAL["PAIRS_NATURAL"][0]}, stock="K")  # 13 + K: six pairs only
    msg = illegal(st, {0: Scripted(melds={1: [SpecialHand("PAIRS_NATURAL")]})}, 1)
    assert "the hand does not hold a PAIRS_NATURAL special hand" in msg


def test_special_hand_must_be_alone() -> None:
    st = am_deal_state(hands={0: SPECIAL["PAIRS_NATURAL"][0]}, stock="Q")
    msg = illegal(st, {0: Scripted(melds={1: [SpecialHand("PAIRS_NATURAL"), meld("Q", 3)]})}, 1)
    assert "a special hand must be returned alone" in msg


def test_special_hand_with_draw_two_discards_the_fifteenth_card() -> None:
    hand = SPECIAL["PAIRS_NATURAL"][0]
    st = am_deal_state(am_rules(draw_count=2), hands={0: hand, 1: OTHER_120, 2: OTHER_120, 3: OTHER_120},
                       stock="Q K")
    s0 = Scripted(melds={1: [SpecialHand("PAIRS_NATURAL")]}, discards={1: "K"})
    res = AmTable(st, players({0: s0})).finish()
    assert [k for _, k, _ in s0.log] == ["draw", "melds", "discard"]
    assert res.went_out_seat == 0 and res.turns == 1 and st.pile == [KING] and st.hand_sizes[0] == 0
    assert parts(res.scores[0]) == {"special_hand": 2500, "total": 2500}


def test_the_straight_needs_the_held_three() -> None:
    """Without holding the B3 (the hook says no) it is laid and replaced: no straight."""
    hand, draw, _ = SPECIAL["STRAIGHT"]
    st = am_deal_state(hands={0: hand}, stock="4 " + draw)
    msg = illegal(st, {0: Holder(hold=False, melds={1: [SpecialHand("STRAIGHT")]})}, 1)
    assert "does not hold a STRAIGHT special hand" in msg and st.black_threes == [1, 0]


# ============================================================================ opening table
@pytest.mark.parametrize(("table", "score", "minimum"), [
    ("AM_PAGAT", -10, 15), ("AM_PAGAT", 0, 50), ("AM_PAGAT", 1495, 50), ("AM_PAGAT", 1500, 90),
    ("AM_PAGAT", 2995, 90), ("AM_PAGAT", 3000, 120), ("AM_PAGAT", 4995, 120), ("AM_PAGAT", 5000, 150),
    ("AM_PAGAT", 8000, 150),
    ("AM_MODERN_2020S", -10, 125), ("AM_MODERN_2020S", 0, 125), ("AM_MODERN_2020S", 2995, 125),
    ("AM_MODERN_2020S", 3000, 155), ("AM_MODERN_2020S", 4995, 155), ("AM_MODERN_2020S", 5000, 180),
])
def test_initial_meld_table_bands(table: str, score: int, minimum: int) -> None:
    st = am_deal_state(am_rules(initial_meld_table=table), team_scores=[score, 0])
    assert st.minimum == [minimum, 50 if table == "AM_PAGAT" else 125]  # team 1 is on 0


def test_americana_preset_uses_am_pagat() -> None:
    assert am_deal_state(team_scores=[5000, -1]).minimum == [150, 15]


@pytest.mark.parametrize(("table", "score", "ok"), [
    ("AM_PAGAT", 0, True),  # 60 >= 50
    ("AM_PAGAT", 1500, False),  # 60 < 90
    ("AM_MODERN_2020S", 0, False),  # 60 < 125
])
def test_opening_minimum_changes_play(table: str, score: int, ok: bool) -> None:
    st = am_deal_state(am_rules(initial_meld_table=table), hands={0: "K K K Q Q Q"}, team_scores=[score, 0])
    strategies = players({0: Scripted(melds={1: OPEN_60})})
    if ok:
        am_play(st, strategies, 1)
        assert st.opened[0]
    else:
        with pytest.raises(IllegalDecision, match=f"opening melds count 60, below the minimum {st.minimum[0]}"):
            am_play(st, strategies, 1)


def test_modern_table_opening_of_140() -> None:
    st = am_deal_state(am_rules(initial_meld_table="AM_MODERN_2020S"), hands={0: "K K K K Q Q Q Q A A A"})
    am_play(st, players({0: Scripted(melds={1: [meld("K", 4), meld("Q", 4), meld("A", 3)]})}), 1)
    assert st.opened[0] and st.minimum[0] == 125


def test_negative_score_opens_with_15() -> None:
    st = am_deal_state(hands={0: "4 4 4"}, team_scores=[-200, 0])
    am_play(st, players({0: Scripted(melds={1: [meld("4", 3)]})}), 1)
    assert st.opened[0] and st.minimum == [15, 50]


# ============================================================================ game target 8500, GT
PER_DEAL = [[4000, 1000], [4500, 1000], [100, 7000], [0, 0]]


@pytest.mark.parametrize(("knobs", "deals", "totals", "winner"), [
    ({}, 3, [8600, 9000], 1),  # 8500 after deal 2 is not more than 8500: deal 3 is played and B passes A
    ({"target_comparison": "GE"}, 2, [8500, 2000], 0),
])
def test_game_target_8500(knobs: dict[str, str], deals: int, totals: list[int], winner: int) -> None:
    rules = am_rules(**knobs)
    assert rules.game_target == 8500
    with mock.patch.object(simcli.engine.game, "Deal", fake_deal(PER_DEAL)):
        res = play_game(rules, ["x"] * 4, 3, strategies=players())
    assert (len(res.deals), res.totals, res.winner_team) == (deals, totals, winner)


# ============================================================================ the stacked layout itself
def test_stacked_deck_layout_hands_wings_stock() -> None:
    st = am_deal_state(hands={0: "K K K", 3: "A A"}, wings=("9 9 8 B3", "10 10 J"), stock="5 6 7")
    assert st.hand_sizes == [13] * 4 and st.hands[0][KING] >= 3 and st.hands[3][ACE] >= 2
    assert st.wings == [counts("9 9 8 B3"), counts("10 10 J")]
    assert st.stock[-3:] == [SEVEN, 6, 5]  # 5 is drawn first
    assert len(st.stock) == 108 - 4 * 13 - 7 and st.pile == [] and st.upcards == []


def test_helpers_stack_deck_puts_the_first_seven_stock_cards_in_the_wings() -> None:
    """Why helpers_americana exists: with helpers.deal_state the wings take the first 7 'stock' cards."""
    from helpers import deal_state

    st = deal_state(am_rules(), stock="9 9 9 9 10 10 10 J", dealer=3)
    assert st.wings == [counts("9 9 9 9"), counts("10 10 10")] and st.stock[-1] == JACK
