"""Hand-dealt Classic scenarios: each one stacks the deck, scripts the players and checks the state after the moves.

Seats: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2, team 1 = seats 1 and 3. Every
expected value below comes from RULES.md (§1.4–§1.11, §2.1), worked out by hand, not from the engine.
Stock cards are listed in the order they are drawn: turn 1 (seat 0) draws the first one, turn 2 (seat 1) the next.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import (
    AUTO,
    Scripted,
    Table,
    cards,
    counts,
    deal_state,
    fallback_discard,
    make_rules,
    meld,
    play_until,
    players,
    run_deal,
    stack_deck,
    take,
)

from simcli.engine.deal import new_deal
from simcli.players.loading import load_strategy
from simcli.players.seating import play_game
from simcli.primitives.actions import DRAW_STOCK
from simcli.primitives.cards import BLACK_THREE, JOKER, RED_THREE, TWO, deck_cards, parse_rank
from simcli.primitives.errors import GameContext, IllegalDecision

DEALER = 3  # seat 0 plays first

#: A hand worth 55 in points (eleven 5-point cards) for a partner whose cards only count against the team.
FIVES_HAND = "4 4 4 4 5 5 5 5 6 6 6"


def setup(hands: dict[int, str], upcards: str | None = None, stock: str = "", rules: Any = None,
          team_scores: tuple[int, int] = (0, 0), fill_stock: bool = True) -> Any:
    """A prepared deal with seat 0 to play first."""
    return deal_state(rules or make_rules(), hands, upcards, stock, dealer=DEALER, team_scores=team_scores,
                      fill_stock=fill_stock)


def meld_of(st: Any, team: int, rank: str) -> list[int] | None:
    """A team's meld of ``rank`` as ``[naturals, twos, jokers]`` (or ``None``)."""
    m = st.melds[team][parse_rank(rank)]
    return None if m is None else list(m)


def vec_sub(a: list[int], *bs: list[int]) -> list[int]:
    out = list(a)
    for b in bs:
        out = [x - y for x, y in zip(out, b, strict=True)]
    return out


def vec_add(a: list[int], *bs: list[int]) -> list[int]:
    out = list(a)
    for b in bs:
        out = [x + y for x, y in zip(out, b, strict=True)]
    return out


# ============================================================================ the helpers themselves
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
@pytest.mark.parametrize("direction", ["CW", "CCW"])
def test_stack_deck_deals_the_requested_hands(dealer: int, direction: str) -> None:
    rules = make_rules(play_direction=direction)
    hands = {0: "K K 5 JK", 1: "A A A A 2", 2: "9 9 9 9 9 9 9 9", 3: "R3 B3 B3"}
    deck = stack_deck(rules, hands, upcards="2 R3 7", stock="Q J 10", dealer=dealer)
    assert sorted(deck) == sorted(deck_cards(2, 2))  # every card of the pack exactly once
    st = new_deal(rules, deck, dealer, 0, [0, 0], cut_count=0)
    for seat, text in hands.items():
        hand = st.hands[seat]
        for r, n in enumerate(counts(text)):
            assert hand[r] >= n, (seat, r)
        assert st.hand_sizes[seat] == sum(hand) == 11
    assert st.hands[2][parse_rank("9")] == 8
    assert st.pile == cards("2 R3 7") and st.pile_frozen
    assert st.stock[-3:] == cards("10 J Q")  # stock[-1] is drawn first
    assert len(st.stock) == 108 - 44 - 3


def test_stack_deck_rejects_impossible_requests() -> None:
    rules = make_rules()
    with pytest.raises(ValueError, match="no K left"):
        stack_deck(rules, {0: "K K K K K K K K", 1: "K"})
    with pytest.raises(ValueError, match="hand_size"):
        stack_deck(rules, {0: "4 4 4 4 5 5 5 5 6 6 6 6"})
    with pytest.raises(ValueError, match="upcards"):
        stack_deck(rules, upcards="9 2")  # a 9 is not covered, so it cannot lie under the 2


def test_dealt_red_threes_are_replaced_from_the_top_of_the_stock_in_seat_order() -> None:
    st = setup({0: "R3 4 4 5 5 6 6 7 7 8 8", 1: "R3 R3 4 4 5 5 6 6 7 7 8"}, stock="A K Q")
    table = Table(st, players())
    assert st.red_threes == [1, 2] and st.red_threes_by_seat == [1, 2, 0, 0]
    assert st.hands[0] == counts("A 4 4 5 5 6 6 7 7 8 8")
    assert st.hands[1] == counts("K Q 4 4 5 5 6 6 7 7 8")
    assert st.hand_sizes == [11, 11, 11, 11]
    assert not table.over


def test_table_matches_deal_play() -> None:
    """Driving turns through helpers.Table plays exactly the deal that Deal.play plays."""
    rules = make_rules()
    deck = stack_deck(rules, {0: "R3 K K", 1: "R3 Q Q", 2: "A A 2", 3: "JK 9 9"}, upcards="8", dealer=DEALER)
    greedy = load_strategy("greedy")
    results = []
    for use_table in (False, True):
        st = new_deal(rules, deck, DEALER, 0, [0, 0], cut_count=0)
        strategies = [greedy(np.random.default_rng(s)) for s in range(4)]
        res = Table(st, strategies).finish() if use_table else run_deal(st, strategies)
        results.append((res.scores, res.turns, res.end_reason, res.went_out_seat, res.red_threes))
    assert results[0] == results[1]
    assert results[0][1] > 4


def test_scripted_fallback_and_pending() -> None:
    assert fallback_discard(counts("K 4 B3 2")) == parse_rank("4")
    assert fallback_discard(counts("B3 2 JK")) == BLACK_THREE
    assert fallback_discard(counts("JK 2")) == TWO
    st = setup({0: "A K Q J 10 9 8 7 6 5 4"}, stock="5")
    s0 = Scripted(draws=[DRAW_STOCK], discards={1: "K", 5: "Q"})
    play_until(st, players({0: s0}), 1)
    assert st.hands[0][parse_rank("K")] == 0 and st.hands[0][parse_rank("5")] == 2
    assert st.pile[-1] == parse_rank("K")
    assert s0.pending == {"discard": 1}


# ============================================================================ taking the pile (§1.7)
#: (upcards, seat 0's turn-1 discard, rule overrides, pile frozen for an opened team?)
FREEZES = {
    "plain": ("5", "4", {}, False),
    "wild_discard_2": ("5", "2", {}, True),
    "wild_discard_joker": ("5", "JK", {}, True),
    "wild_discard_no_freeze_knob": ("5", "2", {"freeze_on_wild_discard": False}, False),
    "red_three_upcard": ("R3 5", "4", {}, True),
    "wild_upcard": ("2 5", "4", {}, True),
    "two_covered_upcards": ("JK R3 5", "4", {}, True),
    "red_three_upcard_cover_effect_none": ("R3 5", "4", {"upcard_cover_effect": "NONE"}, False),
}

#: How seat 2 takes the pile (top card 9): its hand, the take, the team's 9-meld afterwards.
METHODS = {
    "M1_pair": ("9 9 4 4 5 5 6 6 7 7 8", take("9", 2), [3, 0, 0]),
    "M2_natural_wild": ("9 2 4 4 5 5 6 6 7 7 8", take("9", 1, twos=1), [2, 1, 0]),
    "M3_layoff": ("4 4 5 5 6 6 7 7 8 8 10", take("9"), [4, 0, 0]),
}


def pile_scenario(freeze: str, method: str) -> tuple[Any, Any]:
    """Turn 1: seat 0 opens (A A A, K K K; plus 9 9 9 for the lay-off) and discards the drawn card.
    Turn 2: seat 1 discards a 9. Turn 3: seat 2 (team 0, opened) takes the pile with ``method``."""
    upcards, d0, overrides, _ = FREEZES[freeze]
    hand2, how, _ = METHODS[method]
    opening = [meld("A", 3), meld("K", 3)] + ([meld("9", 3)] if method == "M3_layoff" else [])
    st = setup({0: "A A A K K K 9 9 9 Q J", 1: "9", 2: hand2}, upcards=upcards, stock=f"{d0} 4",
               rules=make_rules(**overrides))
    strategies = players({
        0: Scripted(melds=[opening], discards=[d0]),
        1: Scripted(discards=["9"]),
        2: Scripted(draws=[how], discards=["8" if method != "M3_layoff" else "10"]),
    })
    return st, strategies


@pytest.mark.parametrize("freeze", list(FREEZES))
def test_freeze_conditions(freeze: str) -> None:
    """A wild discard, a covered R3 or wild upcard freeze the pile; the knobs switch two of them off."""
    upcards, _, _, frozen = FREEZES[freeze]
    st, strategies = pile_scenario(freeze, "M1_pair")
    assert st.pile == cards(upcards)
    table = play_until(st, strategies, 2)
    assert st.opened == [True, False]
    assert st.pile_frozen is frozen
    assert st.frozen_for(0) is frozen  # team 0 has opened: only the freeze conditions count
    assert st.frozen_for(1) is True  # team 1 has not opened (frozen_until_team_opens)
    assert table.deal.views[2].pile_frozen is frozen


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("freeze", list(FREEZES))
def test_take_pile_each_way(freeze: str, method: str) -> None:
    """M1 works even on a frozen pile; M2 and M3 only on an unfrozen one. The rest of the pile goes to the hand
    (a red three in it is laid without replacement) and the pile is unfrozen after the take."""
    upcards, d0, _, frozen = FREEZES[freeze]
    hand2, how, nine_meld = METHODS[method]
    st, strategies = pile_scenario(freeze, method)
    if frozen and method != "M1_pair":
        with pytest.raises(IllegalDecision, match="frozen for this team: a natural pair of 9 is needed"):
            play_until(st, strategies, 3)
        assert meld_of(st, 0, "9") == ([3, 0, 0] if method == "M3_layoff" else None)  # unchanged
        assert len(st.pile) == len(cards(upcards)) + 2 and st.hand_sizes[2] == 11
        return
    pile_before = cards(upcards) + cards(d0) + cards("9")
    play_until(st, strategies, 3)
    assert meld_of(st, 0, "9") == nine_meld
    rest = [c for c in pile_before[:-1] if c != RED_THREE]
    used = counts(["9"] * how.meld.naturals + ["2"] * how.meld.twos)
    discard = "8" if method != "M3_layoff" else "10"
    assert st.hands[2] == vec_sub(vec_add(counts(hand2), counts(rest)), used, counts(discard))
    assert st.hand_sizes[2] == 11 - how.meld.size + len(rest) - 1
    assert st.red_threes == [pile_before.count(RED_THREE), 0]
    assert st.pile == cards(discard)  # the pile was emptied by the take; only seat 2's discard is on it
    assert st.pile_frozen is False and st.frozen_for(0) is False
    assert st.take_sizes == [[len(pile_before)], []]


def test_pile_frozen_for_a_team_that_has_not_opened() -> None:
    """Team 1 has not opened: M2 is rejected (frozen_until_team_opens), M1 with the opening melds works."""

    def run(hand1: str, how: Any, **knobs: Any) -> Any:
        # turn 1: seat 0 opens A A A + K K K and discards a Q; turn 2: seat 1 takes the pile
        st = setup({0: "Q A A A K K K 4 4 5 5", 1: hand1}, stock="6 7", rules=make_rules(**knobs))
        table = play_until(st, players({0: Scripted(melds=[[meld("A", 3), meld("K", 3)]], discards=["Q"]),
                                        1: Scripted(draws=[how], discards=["4"])}), 1)
        assert st.pile_frozen is False and st.frozen_for(0) is False
        assert st.frozen_for(1) is knobs.get("frozen_until_team_opens", True)
        table.step(1)
        return st

    m2 = take("Q", 1, twos=1, extra=[meld("8", 3)])  # Q + Q + 2 + 8 8 8 = 70
    with pytest.raises(IllegalDecision, match="frozen for this team: a natural pair of Q is needed"):
        run("Q 2 8 8 8 4 5 6 7 9 10", m2)
    st = run("Q 2 8 8 8 4 5 6 7 9 10", m2, frozen_until_team_opens=False)
    assert meld_of(st, 1, "Q") == [2, 1, 0] and meld_of(st, 1, "8") == [3, 0, 0] and st.opened == [True, True]

    m1 = take("Q", 2, extra=[meld("8", 3)])  # Q Q Q + 8 8 8 = 60
    st = run("Q Q 8 8 8 4 5 6 7 9 10", m1)
    assert meld_of(st, 1, "Q") == [3, 0, 0] and meld_of(st, 1, "8") == [3, 0, 0] and st.opened == [True, True]


# ============================================================================ black-three stop
def b3_scenario() -> tuple[Any, dict[int, Any]]:
    st = setup({0: "B3 A A A K K K 4 5 6 7", 1: "B3 B3 8", 2: "8 8 4 4 5 5 6 6 7 7 10"}, stock="9 10")
    scripts = {0: Scripted(melds=[[meld("A", 3), meld("K", 3)]], discards=["B3"])}
    return st, scripts


def test_black_three_on_top_cannot_be_taken() -> None:
    st, scripts = b3_scenario()
    scripts[1] = Scripted(draws=[take("B3", 2)])
    with pytest.raises(IllegalDecision, match="cannot be taken with B3 on top"):
        play_until(st, players(scripts), 2)
    assert st.pile[-1] == BLACK_THREE and len(st.pile) == 2


def test_black_three_stops_only_one_turn() -> None:
    st, scripts = b3_scenario()
    scripts[1] = Scripted(discards=["8"])
    scripts[2] = Scripted(draws=[take("8", 2)], discards=["10"])
    play_until(st, players(scripts), 3)
    assert meld_of(st, 0, "8") == [3, 0, 0]
    assert st.hands[2][BLACK_THREE] == 1  # the stop card came into the hand with the rest of the pile
    assert st.pile == cards("10")


# ============================================================================ opening via the pile (§1.8.2)
@pytest.mark.parametrize("extra,accepted,count", [
    ((), False, 15),
    ((meld("K", 3),), False, 45),
    ((meld("K", 4),), True, 55),
])
def test_opening_by_pile_counts_top_card_not_the_rest(extra: tuple, accepted: bool, count: int) -> None:
    """Pile JK 2 5 (140 points, frozen): 5 5 + the top 5 counts 15; the joker and the 2 below do not count."""
    st = setup({0: "5 5 K K K K 4 6 7 8 9"}, upcards="JK 2 5")
    strategies = players({0: Scripted(draws=[take("5", 2, extra=extra)], discards=["4"])})
    if not accepted:
        with pytest.raises(IllegalDecision, match=f"opening melds count {count}, below the minimum 50"):
            play_until(st, strategies, 1)
        assert st.opened == [False, False] and st.pile == cards("JK 2 5")
        return
    play_until(st, strategies, 1)
    assert meld_of(st, 0, "5") == [3, 0, 0] and meld_of(st, 0, "K") == [4, 0, 0]
    assert st.hands[0] == counts("JK 2 6 7 8 9")  # 11 - 6 melded + JK, 2 from the pile - the 4 discarded
    assert st.opened == [True, False]


@pytest.mark.parametrize("score,accepted", [(0, True), (1500, False)])
def test_opening_by_pile_top_card_counts(score: int, accepted: bool) -> None:
    """A A from the hand is 40, but with the top A the take counts 60: enough for 50, not for 90."""
    st = setup({0: "A A 4 5 6 7 8 9 10 J Q"}, upcards="A", team_scores=(score, 0))
    strategies = players({0: Scripted(draws=[take("A", 2)], discards=["4"])})
    if accepted:
        play_until(st, strategies, 1)
        assert meld_of(st, 0, "A") == [3, 0, 0] and st.hand_sizes[0] == 8
    else:
        with pytest.raises(IllegalDecision, match="opening melds count 60, below the minimum 90"):
            play_until(st, strategies, 1)


# ============================================================================ opening minimum by score band
BANDS = [
    # team score, minimum, seat 0's hand, melds just below the minimum, melds exactly at it
    (-10, 15, "4 4 4 6 7 8 9 10 J Q K", None, [meld("4", 3)]),
    (0, 50, "K K K 2 5 5 5 8 9 10 J", [meld("K", 3), meld("5", 3)], [meld("K", 3, twos=1)]),
    (1500, 90, "A A A K K K 5 5 5 5 5", [meld("A", 3), meld("5", 5)], [meld("A", 3), meld("K", 3)]),
    (3000, 120, "A A A A K K K K 5 5 5", [meld("A", 3), meld("K", 4), meld("5", 3)],
     [meld("A", 4), meld("K", 4)]),
]


@pytest.mark.parametrize("score,minimum,hand,below,at", BANDS)
def test_opening_minimum_by_band(score: int, minimum: int, hand: str, below: Any, at: Any) -> None:
    st = setup({0: hand}, stock="6", team_scores=(score, 0))
    assert st.minimum == [minimum, 50]
    if below is not None:  # every "below" case counts exactly 5 points short
        with pytest.raises(IllegalDecision, match=f"opening melds count {minimum - 5}, below the minimum {minimum}"):
            play_until(st, players({0: Scripted(melds=[below])}), 1)
        st = setup({0: hand}, stock="6", team_scores=(score, 0))
    play_until(st, players({0: Scripted(melds=[at])}), 1)
    assert st.opened == [True, False]
    assert st.hand_sizes[0] == 11 + 1 - sum(m.size for m in at) - 1


def test_opening_minimum_band_edges() -> None:
    edges = {-5: 15, 0: 50, 1495: 50, 1500: 90, 2995: 90, 3000: 120, 9000: 120}
    for score, minimum in edges.items():
        assert setup({}, team_scores=(score, -score)).minimum[0] == minimum
    # the same 15-point meld that opens at -10 is rejected at 0
    st = setup({0: "4 4 4 6 7 8 9 10 J Q K"}, stock="6")
    with pytest.raises(IllegalDecision, match="opening melds count 15, below the minimum 50"):
        play_until(st, players({0: Scripted(melds=[[meld("4", 3)]])}), 1)


# ============================================================================ concealed going out (§1.10)
CONCEALED_HAND = "7 7 7 7 7 7 7 J J J 2"  # 7x7 (35) + J J J 2 (50) = 85 points, one natural canasta


@pytest.mark.parametrize("waiver,accepted", [(True, True), (False, False)])
def test_concealed_out_after_stock_draw_waives_minimum(waiver: bool, accepted: bool) -> None:
    """Team score 1500 (minimum 90): an 85-point concealed going out after a stock draw is legal."""
    st = setup({0: CONCEALED_HAND, 2: FIVES_HAND}, stock="4", team_scores=(1500, 0),
               rules=make_rules(concealed_out_waives_minimum=waiver))
    strategies = players({0: Scripted(melds=[[meld("7", 7), meld("J", 3, twos=1)]], discards=["4"])})
    if not accepted:
        with pytest.raises(IllegalDecision, match="opening melds count 85, below the minimum 90"):
            play_until(st, strategies, 1)
        return
    res = Table(st, strategies).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.concealed and res.turns == 1
    a = res.scores[0]
    assert (a["going_out"], a["canasta_natural"], a["melded"], a["hand"]) == (200, 500, 85, -55)
    assert a["total"] == 200 + 500 + 85 - 55
    assert res.scores[1]["going_out"] == 0


@pytest.mark.parametrize("score,accepted", [(1500, False), (0, True)])
def test_concealed_out_after_pile_take_needs_the_minimum(score: int, accepted: bool) -> None:
    """The same 85 points laid by taking the pile (top 7): not waived at 1500, concealed (200) at 0."""
    st = setup({0: "7 7 7 7 7 7 J J J 2 4", 2: FIVES_HAND}, upcards="7", team_scores=(score, 0))
    strategies = players({0: Scripted(draws=[take("7", 6, extra=[meld("J", 3, twos=1)])], discards=["4"])})
    if not accepted:
        with pytest.raises(IllegalDecision, match="opening melds count 85, below the minimum 90"):
            play_until(st, strategies, 1)
        return
    res = Table(st, strategies).finish()
    assert res.end_reason == "went_out" and res.concealed
    assert res.scores[0]["going_out"] == 200 and res.pile_takes == [[1], []]


@pytest.mark.parametrize("last_card,melds_turn5,concealed,bonus", [
    ("2", [meld("7", 7), meld("J", 3, twos=1)], True, 200),
    ("K", [meld("7", 7), meld("J", 3), meld("K", 1)], False, 100),  # a K added to partner's meld
])
def test_concealed_only_without_adding_to_partners_melds(last_card: str, melds_turn5: list, concealed: bool,
                                                          bonus: int) -> None:
    """Partner (seat 2) opened with K K K 2 on turn 3; seat 0 goes out in one go on turn 5."""
    st = setup({0: "7 7 7 7 7 7 7 J J J " + last_card, 2: "K K K 2 4 4 5 5 6 6 8"}, stock="4 5 6 8 9")
    strategies = players({
        0: Scripted(discards=["4", "9"], melds={5: melds_turn5}),
        2: Scripted(melds=[[meld("K", 3, twos=1)]]),
    })
    res = Table(st, strategies).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 5
    assert res.concealed is concealed
    assert res.scores[0]["going_out"] == bonus
    assert meld_of(st, 0, "K") == ([3, 1, 0] if concealed else [4, 1, 0])


# ============================================================================ going out (§1.10)
def test_going_out_needs_a_canasta() -> None:
    st = setup({0: "K K K Q Q Q J J J 2 2"}, stock="4")
    melds = [meld("K", 3, twos=1), meld("Q", 3, twos=1), meld("J", 3)]
    with pytest.raises(IllegalDecision, match="cannot go out: the team needs canastas ANY:1"):
        play_until(st, players({0: Scripted(melds=[melds], discards=["4"])}), 1)
    assert st.opened == [False, False] and st.hand_sizes[0] == 12


def going_out_scenario(with_discard: bool, **knobs: Any) -> tuple[Any, Any, Scripted]:
    """Seat 0 opens with K x7 on turn 1 and goes out on turn 5 with J J J (J) 2, with or without a discard."""
    st = setup({0: "K K K K K K K J J J 2"}, stock="4 5 6 8 J", rules=make_rules(**knobs))
    last = [meld("J", 3, twos=1)] if with_discard else [meld("J", 4, twos=1)]
    s0 = Scripted(melds=[[meld("K", 7)], last], discards=["4", "J"] if with_discard else ["4"])
    return st, players({0: s0}), s0


@pytest.mark.parametrize("with_discard", [True, False])
def test_going_out_with_and_without_discard(with_discard: bool) -> None:
    st, strategies, s0 = going_out_scenario(with_discard)
    table = play_until(st, strategies, 4)
    pile_before = list(st.pile)
    res = table.finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 5
    assert not res.concealed and res.scores[0]["going_out"] == 100  # seat 0 had melded on turn 1
    assert st.hand_sizes[0] == 0 and meld_of(st, 0, "J") == ([3, 1, 0] if with_discard else [4, 1, 0])
    assert st.pile == pile_before + (cards("J") if with_discard else [])
    assert [k for t, k, _ in s0.log if t == 5] == (["draw", "melds", "discard"] if with_discard else ["draw", "melds"])


def test_going_out_requires_discard_forbids_melding_out() -> None:
    st, strategies, _ = going_out_scenario(False, going_out_requires_discard=True)
    with pytest.raises(IllegalDecision, match="going out must end with a discard"):
        play_until(st, strategies, 5)
    st, strategies, _ = going_out_scenario(True, going_out_requires_discard=True)
    assert Table(st, strategies).finish().end_reason == "went_out"


# ============================================================================ black threes (§1.4.6)
def test_black_threes_melded_when_going_out() -> None:
    st = setup({0: "7 7 7 7 7 7 7 7 B3 B3 B3", 2: FIVES_HAND}, stock="4")
    res = Table(st, players({0: Scripted(melds=[[meld("7", 8), meld("B3", 3)]], discards=["4"])})).finish()
    assert res.end_reason == "went_out" and meld_of(st, 0, "B3") == [3, 0, 0]
    a = res.scores[0]
    assert (a["going_out"], a["canasta_natural"], a["melded"]) == (200, 500, 8 * 5 + 3 * 5)
    assert a["total"] == 200 + 500 + 55 - 55


def test_black_threes_not_melded_unless_going_out() -> None:
    st = setup({0: "7 7 7 7 7 7 7 7 B3 B3 B3"}, stock="4")
    with pytest.raises(IllegalDecision, match="black threes may be melded only by a player going out"):
        play_until(st, players({0: Scripted(melds=[[meld("7", 7), meld("B3", 3)]])}), 1)
    assert st.melds[0][BLACK_THREE] is None and st.melds[0][parse_rank("7")] is None


# ============================================================================ single-card rule
@pytest.mark.parametrize("rule_on", [True, False])
def test_single_card_hand_cannot_take_single_card_pile(rule_on: bool) -> None:
    """Seat 0 opens with K x7 + Q Q Q and keeps one card; seat 3 takes the pile and leaves a single K on it."""
    st = setup({0: "K K K K K K K Q Q Q 4", 2: "A", 3: "A A K"}, stock="5 6 8",
               rules=make_rules(forbid_single_card_pile_with_single_card_hand=rule_on))
    strategies = players({
        0: Scripted(draws=[DRAW_STOCK, take("K")], melds=[[meld("K", 7), meld("Q", 3)]], discards=["5", "4"]),
        2: Scripted(discards=["A"]),
        3: Scripted(draws=[take("A", 2)], discards=["K"]),  # the eighth king
    })
    table = play_until(st, strategies, 4)
    assert st.hand_sizes[0] == 1 and st.pile == cards("K") and not st.frozen_for(0)
    if rule_on:
        with pytest.raises(IllegalDecision, match="a player holding one card may not take a one-card pile"):
            table.step(1)
        return
    res = table.finish()
    assert meld_of(st, 0, "K") == [8, 0, 0]
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and st.pile == cards("4")


# ============================================================================ stock exhaustion (§1.11)
def exhaustion_scenario(discard1: str, **knobs: Any) -> tuple[Any, dict[int, Any]]:
    """A two-card stock. Turn 1: seat 0 opens A A A + K K K. Turn 2: seat 1 draws the last card, discards."""
    st = setup({0: "A A A K K K 9 4 5 6 7", 1: "K 8 8"}, stock="Q 10", fill_stock=False,
               rules=make_rules(**knobs))
    scripts = {0: Scripted(melds=[[meld("A", 3), meld("K", 3)]], discards=["9"]), 1: Scripted(discards=[discard1])}
    return st, scripts


def test_stock_out_forced_take_when_top_matches_a_team_meld() -> None:
    st, scripts = exhaustion_scenario("K")
    scripts[2] = Scripted(draws=[DRAW_STOCK])
    table = play_until(st, players(scripts), 2)
    assert st.stock == [] and st.pile[-1] == parse_rank("K")
    assert table.deal.views[2].must_take_pile is True
    assert table.deal.views[3].must_take_pile is False  # team 1 has no K meld
    with pytest.raises(IllegalDecision, match="the stock is empty and the pile matches a team meld"):
        table.step(1)


def test_stock_out_forced_take_then_deal_ends_when_next_player_cannot_take() -> None:
    st, scripts = exhaustion_scenario("K")
    scripts[2] = Scripted(draws=[take("K")])
    res = Table(st, players(scripts)).finish()
    assert meld_of(st, 0, "K") == [4, 0, 0]
    # seat 3 (team 1, not opened: the pile is frozen for it) cannot be forced and draws from the empty stock
    assert res.end_reason == "stock_out" and res.turns == 4 and res.went_out_seat is None
    assert res.pile_takes == [[3], []]  # upcard, 9, K
    assert res.scores[0]["going_out"] == 0 and res.scores[1]["going_out"] == 0


def test_stock_out_deal_ends_when_player_will_not_take() -> None:
    st, scripts = exhaustion_scenario("8")  # team 0 has no 8 meld: seat 2 is not forced
    res = Table(st, players(scripts)).finish()
    assert res.end_reason == "stock_out" and res.turns == 3 and res.pile_takes == [[], []]


def test_end_on_empty_draw_does_not_force_the_take() -> None:
    st, scripts = exhaustion_scenario("K", stock_exhaustion_rule="END_ON_EMPTY_DRAW")
    scripts[2] = Scripted(draws=[DRAW_STOCK])
    table = play_until(st, players(scripts), 2)
    assert table.deal.views[2].must_take_pile is False
    res = table.finish()
    assert res.end_reason == "stock_out" and res.turns == 3 and meld_of(st, 0, "K") == [3, 0, 0]


@pytest.mark.parametrize("ends", [True, False])
def test_last_stock_card_red_three_ends_deal_without_discard(ends: bool) -> None:
    st = setup({0: "A A A K K K 4 5 6 7 8"}, upcards="9", stock="R3", fill_stock=False,
               rules=make_rules(last_card_red_three_ends_deal=ends))
    s0 = Scripted(melds=[[meld("A", 3), meld("K", 3)]], discards=["4"])
    table = play_until(st, players({0: s0}), 1)
    assert st.red_threes == [1, 0] and st.stock == []
    assert meld_of(st, 0, "A") == [3, 0, 0]
    if ends:
        assert table.over and st.end_reason == "stock_out" and st.went_out_seat is None
        assert st.hand_sizes[0] == 5 and st.pile == cards("9")  # no discard
        assert [k for _, k, _ in s0.log] == ["draw", "melds"] and s0.pending == {"discard": 1}
    else:
        assert not table.over and st.hand_sizes[0] == 4 and st.pile == cards("9 4")


# ============================================================================ other knobs
@pytest.mark.parametrize("draw_count", [1, 2])
def test_draw_count(draw_count: int) -> None:
    hand = "4 4 5 5 6 6 7 7 8 8 10"
    st = setup({0: hand}, stock="9 J Q", rules=make_rules(draw_count=draw_count))
    stock0 = len(st.stock)
    play_until(st, players({0: Scripted(discards=["9"])}), 1)
    drawn = "J" if draw_count == 2 else ""
    assert st.hands[0] == vec_add(counts(hand), counts(drawn))
    assert st.hand_sizes[0] == 11 + draw_count - 1 and len(st.stock) == stock0 - draw_count


@pytest.mark.parametrize("partial,expected_end", [(True, None), (False, "stock_out")])
def test_partial_draw_with_draw_count_2(partial: bool, expected_end: str | None) -> None:
    st = setup({0: "4 4 5 5 6 6 7 7 8 8 10"}, stock="9", fill_stock=False,
               rules=make_rules(draw_count=2, partial_draw_allowed=partial))
    play_until(st, players({0: Scripted(discards=["9"])}), 1)
    assert st.end_reason == expected_end and st.hand_sizes[0] == 11
    if partial:  # drew the one card left, discarded it
        assert st.stock == [] and len(st.pile) == 2 and st.pile[-1] == parse_rank("9")
    else:  # fewer than draw_count cards left and no partial draw: the deal ends, nothing drawn or discarded
        assert st.stock == cards("9") and len(st.pile) == 1


def test_hand_size_13() -> None:
    rules = make_rules(hand_size=13)
    hand = "A A K K Q Q J J 10 10 9 9 8"
    st = deal_state(rules, {0: hand}, dealer=DEALER)
    assert st.hand_sizes == [13, 13, 13, 13] and st.hands[0] == counts(hand)
    assert len(st.stock) == 108 - 4 * 13 - 1
    st11 = setup({0: "A A K K Q Q J J 10 10 9"})
    assert st11.hand_sizes == [11] * 4 and len(st11.stock) == 108 - 44 - 1


@pytest.mark.parametrize("wild_rule,legal", [("PAGAT", True), ("WIKI", False)])
def test_wild_rule_5_5_2_2_joker(wild_rule: str, legal: bool) -> None:
    st = setup({0: "5 5 2 2 JK 4 6 7 8 9 10"}, stock="Q", rules=make_rules(wild_rule=wild_rule))
    strategies = players({0: Scripted(melds=[[meld("5", 2, twos=2, jokers=1)]])})
    if legal:
        play_until(st, strategies, 1)
        assert meld_of(st, 0, "5") == [2, 2, 1] and st.hands[0][TWO] == 0 and st.hands[0][JOKER] == 0
    else:
        with pytest.raises(IllegalDecision, match="2 naturals with 3 wild cards break wild_rule=WIKI"):
            play_until(st, strategies, 1)


@pytest.mark.parametrize("cap,legal", [(None, True), (7, False)])
def test_meld_max_size_rejects_an_eighth_card(cap: int | None, legal: bool) -> None:
    """Seat 0 lays K x7 on turn 1 and draws the eighth K on turn 5."""
    rules = make_rules() if cap is None else make_rules(meld_max_size=cap)
    st = setup({0: "K K K K K K K 4 5 6 7"}, stock="Q 4 5 6 K", rules=rules)
    strategies = players({0: Scripted(melds={1: [meld("K", 7)], 5: [meld("K", 1)]}, discards=["Q"])})
    table = play_until(st, strategies, 4)
    assert meld_of(st, 0, "K") == [7, 0, 0] and st.canastas[0]["NATURAL"] == 1
    if legal:
        table.step(1)
        assert meld_of(st, 0, "K") == [8, 0, 0] and st.canastas[0]["NATURAL"] == 1
    else:
        with pytest.raises(IllegalDecision, match="meld of 8 cards exceeds meld_max_size=7"):
            table.step(1)


def test_game_target_changes_when_the_game_ends() -> None:
    short = play_game(make_rules(game_target=1), ["greedy"] * 4, 1, 0)
    full = play_game(make_rules(), ["greedy"] * 4, 1, 0)
    assert len(short.deals) == 1 and max(short.totals) >= 1
    assert len(full.deals) > 1 and max(full.totals) >= 5000
    assert all(max(sum(d.scores[t]["total"] for d in full.deals[:k]) for t in (0, 1)) < 5000
               for k in range(1, len(full.deals)))
    assert full.deals[0].scores == short.deals[0].scores  # same seed, same first deal


# ============================================================================ illegal decisions
#: seat 1's bad decision on turn 2 and the reason the engine gives
ILLEGAL = {
    "bad_draw": ({"draws": ["bogus"]}, "choose_draw returned 'bogus'"),
    "bad_take": ({"draws": [take("K", 2)]}, "the take meld is of K but the top card is 4"),
    "bad_meld": ({"melds": [[meld("A", 2)]]}, "a new meld needs at least 3 cards"),
    "bad_discard": ({"discards": ["JK"]}, "not a card in hand"),
}


@pytest.mark.parametrize("case", list(ILLEGAL))
def test_illegal_decision_message_names_strategy_seat_game_seed_turn(case: str) -> None:
    script, reason = ILLEGAL[case]
    st = setup({0: "4 5 6 7 8 9 10 J Q K A", 1: "A A 4 5 6 7 8 9 10 J Q"}, upcards="9", stock="5 6")
    ctx = GameContext(game_index=3, seed=42, deal_index=1)
    with pytest.raises(IllegalDecision) as info:
        play_until(st, players({1: Scripted(name="bad-bot", **script)}), 2, ctx=ctx)
    msg = str(info.value)
    for part in ("strategy 'bad-bot'", "seat 1", "game 3", "seed 42", "turn 2", reason):
        assert part in msg, (part, msg)
    e = info.value
    assert (e.strategy, e.seat, e.game_index, e.seed, e.deal_index, e.turn) == ("bad-bot", 1, 3, 42, 1, 2)


def test_illegal_decision_through_play_game() -> None:
    bots = [Scripted(draws=["bogus"], name=f"bot{s}") for s in range(4)]
    with pytest.raises(IllegalDecision) as info:
        play_game(make_rules(), ["x"] * 4, 99, 5, strategies=bots)
    e = info.value
    msg = str(e)
    assert e.turn == 1 and e.seed == 99 and e.game_index == 5
    for part in (f"strategy 'bot{e.seat}'", f"seat {e.seat}", "game 5", "seed 99", "turn 1"):
        assert part in msg, (part, msg)


def test_auto_sentinel_in_a_queue() -> None:
    """AUTO in a queue plays the fallback for that one call and keeps the rest of the script."""
    st = setup({0: "4 5 6 7 8 9 10 J Q K A"}, stock="5 6 7 8 9")
    s0 = Scripted(discards=[AUTO, "A"])
    play_until(st, players({0: s0}), 5)
    assert [d for t, k, d in s0.log if k == "discard"] == [parse_rank("4"), parse_rank("A")]
