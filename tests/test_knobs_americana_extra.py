"""Americana knobs beyond the preset defaults: special_hand_waives_minimum, pairs_wild_pair_ranks,
empty_pile_no_dead_card. Each test shows the knob changing what is legal."""

from __future__ import annotations

from helpers_americana import am_deal_state, am_rules

from simcli.engine.judge import discard_error, special_hand_error
from simcli.primitives.cards import parse_rank

# Seven natural pairs (hand_size=14 so that the deal itself gives the 14 cards).
LOW_PAIRS = "4 4 5 5 6 6 8 8 9 9 10 10 J J"  # 2*5*3 + 2*10*4 = 30 + 80 = 110 points



def test_special_hand_waives_minimum() -> None:
    # Team score 3000 -> AM_PAGAT minimum 120; the pairs count 110.
    for waives, expected_ok in ((True, True), (False, False)):
        rules = am_rules(special_hand_waives_minimum=str(waives).lower(), hand_size=14)
        st = am_deal_state(rules, {0: LOW_PAIRS}, team_scores=[3000, 3000])
        seat = 0
        err = special_hand_error(st, seat, "PAIRS_NATURAL")
        assert (err is None) is expected_ok, err
        if not expected_ok:
            assert "110" in err and "120" in err


def test_special_hand_minimum_met_when_the_pairs_count_enough() -> None:
    rules = am_rules(special_hand_waives_minimum="false", hand_size=14)
    st = am_deal_state(rules, {0: LOW_PAIRS}, team_scores=[0, 0])  # minimum 50 <= 110
    assert special_hand_error(st, 0, "PAIRS_NATURAL") is None


def test_pairs_wild_pair_ranks_admits_jokers() -> None:
    hand = "JK JK 7 7 A A 4 4 5 5 6 6 8 8"
    st = am_deal_state(am_rules(hand_size=14), {0: hand})
    assert special_hand_error(st, 0, "PAIRS_WITH_2_7_A") is not None  # S1: a pair of 2s only
    st = am_deal_state(am_rules(pairs_wild_pair_ranks="2,JK", hand_size=14), {0: hand})
    assert special_hand_error(st, 0, "PAIRS_WITH_2_7_A") is None


def test_empty_pile_no_dead_card() -> None:
    king = parse_rank("K")
    for knob, refused in (("false", False), ("true", True)):
        st = am_deal_state(am_rules(empty_pile_no_dead_card=knob), {0: "K 5 6 8 9 10 J Q 4 4 5 6 8"})
        st.add_to_meld(1, king, 7, 0, 0)  # the other team closed kings: K is dead for everyone
        assert not st.pile
        err = discard_error(st, 0, king)
        assert (err is not None) is refused, err
        assert discard_error(st, 0, parse_rank("Q")) is None
