"""Hand-dealt Ponytail scenarios: each Ponytail knob changes play or scoring (RULES.md §2.2, §3, §4.1).

Seats: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2, team 1 = seats 1 and 3. The deck is
stacked with :func:`helpers_ponytail.stack_pony_deck`: hands, then ponies, then the upcard(s), then the stock in
drawing order (draw_count = 2: turn 1 = seat 0 draws the first two stock cards, turn 2 = seat 1 the next two, ...).
Players without a script draw from the stock, never meld and discard their lowest natural. Every expected value
was worked out by hand from RULES.md (card values §1.3, scoring §1.12, bonus table §2.2), not from the engine.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import Scripted, Table, cards, counts, hand_of, meld, play_until, players, take
from helpers_ponytail import DEALER, all_cards, pony_deal_state, pt_rules, stack_pony_deck

from simcli.engine.deal import new_deal
from simcli.engine.game import prepare_deal
from simcli.engine.melds import meld_error
from simcli.players.seating import play_game
from simcli.positions.reader import PositionError, parse_position
from simcli.primitives.actions import Meld
from simcli.primitives.cards import (
    BLACK_THREE,
    JOKER,
    NUM_RANKS,
    RED_THREE,
    SEVEN,
    TWO,
    WILD_MELD,
    deck_cards,
    deck_counts,
    parse_rank,
)
from simcli.primitives.errors import IllegalDecision
from simcli.primitives.seeding import deal_rng
from simcli.rules.knobs import RuleError

MISSING_FOUR = "cannot go out: the team needs canastas NATURAL:1,MIXED:1,WILD:1,SEVENS:1"


def wild(twos: int = 0, jokers: int = 0) -> Meld:
    """A meld of wild cards only."""
    return Meld(WILD_MELD, 0, twos, jokers)


def meld_of(st: Any, team: int, rank: str) -> list[int] | None:
    """A team's meld of ``rank``: the one in its slot, else the last closed canasta of the rank set aside
    (``new_meld_after_closed_canasta``), else None."""
    r = WILD_MELD if rank == "WILD" else parse_rank(rank)
    m = st.melds[team][r]
    if m is None:
        m = next((c[1:] for c in reversed(st.closed[team]) if c[0] == r), None)
    return None if m is None else list(m)


def kinds(canastas: dict[str, int]) -> dict[str, int]:
    """A team's canasta counts by type, without the zero ones."""
    return {k: v for k, v in canastas.items() if v}


def parts(score: dict[str, int]) -> dict[str, int]:
    """The non-zero parts of a team's score (plus the total)."""
    return {k: v for k, v in score.items() if v}


# ============================================================================ the four-canasta deal
# Seat 0 lays K x7 (natural) and Q x6 + 2 (mixed) on turn 1: the team's first canasta, so seat 0 picks up its pony
# at once, is asked for melds again and lays 7 x7 (sevens) and 2 2 2 2 JK JK JK (wild) from it; it keeps a 9.
# Partner seat 2 picks up at the start of turn 3. On turn 5 seat 0 draws 9 9 and goes out with 9 9 9.
FOUR_HANDS = {0: "K K K K K K K Q Q Q Q Q Q 2 JK", 1: "8 " * 15, 2: "4 " * 15, 3: "J " * 15}
FOUR_PONIES = {0: "7 7 7 7 7 7 2 2 2 2 JK JK 9", 1: "10 " * 13, 2: "5 " * 13, 3: "Q " * 13}
FOUR_STOCK = "7 9  8 8  4 4  J J  9 9"
OPEN = [meld("K", 7), meld("Q", 6, twos=1)]  # 70 + 80 = 150 >= 50
FROM_PONY = [meld("7", 7), wild(twos=4, jokers=3)]


def four_deal(rules: Any = None, hands: dict[int, str] | None = None, ponies: dict[int, str] | None = None,
              stock: str = FOUR_STOCK) -> Any:
    return pony_deal_state(rules or pt_rules(), {**FOUR_HANDS, **(hands or {})}, {**FOUR_PONIES, **(ponies or {})},
                           upcards="6", stock=stock)


def four_players(melds: list[Any] | None = None, discards: list[Any] | None = None) -> tuple[list[Any], Scripted]:
    s0 = Scripted(melds=melds if melds is not None else [OPEN, FROM_PONY, [meld("9", 3)]],
                  discards=discards if discards is not None else ["9"])
    return players({0: s0}), s0


def test_four_canastas_deal_goes_out_and_scores() -> None:
    st = four_deal()
    strategies, s0 = four_players()
    table = play_until(st, strategies, 1)
    assert kinds(st.canastas[0]) == {"NATURAL": 1, "MIXED": 1, "WILD": 1, "SEVENS": 1}
    assert meld_of(st, 0, "7") == [7, 0, 0] and meld_of(st, 0, "WILD") == [0, 4, 3]
    assert hand_of(st, 0) == "9" and st.pile == cards("6 9")
    res = table.finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 5
    assert st.pile == cards("6 9 8 4 J")  # seat 0 went out by melding everything: no discard on turn 5
    # Team 0: 200 + 500 + 300 + 1000 + 1500; melded K x7 70, Q x6 + 2 80, 7 x7 35, 2 x4 + JK x3 230, 9 x3 30;
    # seat 2 keeps 4 x16 (80) and its pony 5 x13 (65), picked up on turn 3.
    assert parts(res.scores[0]) == {"going_out": 200, "canasta_natural": 500, "canasta_mixed": 300,
                                    "canasta_wild": 1000, "canasta_sevens": 1500, "melded": 445, "hand": -145,
                                    "total": 3800}
    # Team 1 never melded: 8 x16 and J x16 in hand (160 + 160), ponies 10 x13 and Q x13 never picked up.
    assert parts(res.scores[1]) == {"hand": -320, "pony": -260, "total": -580}
    assert res.pony_pickup_turns == [1, None, 3, None]
    assert res.required_set_turn == [1, None]


# ============================================================================ pony_unlock / pony_partner_pickup
def test_team_first_canasta_picks_up_at_once_and_melds_again() -> None:
    st = four_deal()
    strategies, s0 = four_players()
    play_until(st, strategies, 1)
    assert [k for t, k, _ in s0.log] == ["draw", "melds", "melds", "discard"]  # asked for melds twice
    assert st.pony_picked == [True, False, False, False]
    assert st.pony_unlocked == [True, False, True, False]  # the partner's pony waits for the partner's turn
    assert st.pony_turn == [1, None, None, None]
    assert sum(st.ponies[0]) == 0 and st.ponies[2] == counts("5 " * 13)
    # 15 dealt + 2 drawn - 14 melded + 13 from the pony - 14 melded - 1 discarded
    assert st.hand_sizes[0] == 1


def test_partner_picks_up_at_the_start_of_the_next_turn() -> None:
    st = four_deal()
    strategies, _ = four_players()
    table = play_until(st, strategies, 2)
    assert st.hand_sizes[2] == 15 and st.pony_picked[2] is False
    s2 = strategies[2]
    table.step(1)  # turn 3: seat 2 picks up, draws 4 4, discards a 4
    assert st.pony_turn == [1, None, 3, None] and st.pony_picked[2]
    assert st.hands[2] == counts("4 " * 16 + "5 " * 13) and st.hand_sizes[2] == 29
    assert [k for t, k, _ in s2.log if t == 3] == ["draw", "melds", "discard"]


def test_own_first_canasta_partner_does_not_pick_up() -> None:
    st = four_deal(pt_rules(pony_unlock="OWN_FIRST_CANASTA"))
    strategies, s0 = four_players()
    res = Table(st, strategies).finish()
    assert [k for t, k, _ in s0.log if t == 1] == ["draw", "melds", "melds", "discard"]
    assert res.pony_pickup_turns == [1, None, None, None] and res.went_out_seat == 0
    # seat 2 keeps 4 x16 (80); its pony 5 x13 (65) now counts as an unpicked pony: same total, other parts
    assert parts(res.scores[0]) == {"going_out": 200, "canasta_natural": 500, "canasta_mixed": 300,
                                    "canasta_wild": 1000, "canasta_sevens": 1500, "melded": 445, "hand": -80,
                                    "pony": -65, "total": 3800}


def test_immediate_out_of_turn_partner_pickup_lays_its_red_threes() -> None:
    """IMMEDIATE_OUT_OF_TURN: seat 2 picks up during seat 0's turn 1; its two R3 are laid and replaced from the
    stock right after seat 0's draw (A and K), before seat 1 draws."""
    st = four_deal(pt_rules(pony_partner_pickup="IMMEDIATE_OUT_OF_TURN"),
                   ponies={2: "R3 R3 " + "5 " * 11}, stock="7 9  A K  8 8")
    strategies, _ = four_players()
    table = play_until(st, strategies, 1)
    assert st.pony_turn == [1, None, 1, None] and st.pony_picked == [True, False, True, False]
    assert st.red_threes == [2, 0] and st.red_threes_by_seat == [0, 0, 2, 0]
    assert st.hands[2] == counts("4 " * 15 + "5 " * 11 + "A K") and st.hand_sizes[2] == 28
    table.step(1)  # turn 2: seat 1 draws the next two cards, 8 8
    assert st.hands[1][parse_rank("8")] == 16 and st.hand_sizes[1] == 16


def test_next_turn_start_is_the_default() -> None:
    assert pt_rules().pony_partner_pickup == "NEXT_TURN_START" and pt_rules().pony_unlock == "TEAM_FIRST_CANASTA"


def _hand_empty_meld_all() -> tuple[Any, Scripted]:
    rules = pt_rules(pony_unlock="HAND_EMPTY")
    st = pony_deal_state(rules, {0: "K K K K K K K Q Q Q Q Q Q Q 9"}, {0: "A A A 5 5 5 6 6 6 8 8 8 10"},
                         stock="9 9")
    s0 = Scripted(melds=[[meld("K", 7), meld("Q", 7), meld("9", 3)], [meld("A", 3)]], discards=["10"])
    return st, s0


def test_hand_empty_melding_everything_picks_up_the_pony() -> None:
    """HAND_EMPTY: a canasta does not unlock the pony; melding the whole hand does and is not a going out."""
    st, s0 = _hand_empty_meld_all()
    play_until(st, players({0: s0}), 1)
    assert st.end_reason is None and st.pony_turn[0] == 1 and st.canastas[0]["NATURAL"] == 2
    assert st.pile[-1] == parse_rank("10")


def test_hand_empty_pickup_lets_the_player_meld_again() -> None:
    st, s0 = _hand_empty_meld_all()
    play_until(st, players({0: s0}), 1)
    assert [k for t, k, _ in s0.log] == ["draw", "melds", "melds", "discard"]
    assert st.hands[0] == counts("5 5 5 6 6 6 8 8 8") and meld_of(st, 0, "A") == [3, 0, 0]


def test_hand_empty_discarding_the_last_card_picks_up_the_pony() -> None:
    """HAND_EMPTY: meld all but one card and discard it -> the pony comes into the hand; this is not a going out,
    so the four required canastas are not needed (engine fix: this used to be refused as a going out)."""
    rules = pt_rules(pony_unlock="HAND_EMPTY")
    st = pony_deal_state(rules, {0: "K K K K K K K Q Q Q Q Q 9 9 9"}, {0: "A A A 5 5 5 6 6 6 8 8 8 10"},
                         stock="Q 4")
    s0 = Scripted(melds=[[meld("K", 7), meld("Q", 6), meld("9", 3)]], discards=["4"])
    play_until(st, players({0: s0}), 1)
    assert st.end_reason is None and st.pony_picked[0] and st.pony_turn[0] == 1
    assert st.hands[0] == counts("A A A 5 5 5 6 6 6 8 8 8 10") and st.pile[-1] == parse_rank("4")


def test_hand_empty_canasta_alone_does_not_unlock() -> None:
    rules = pt_rules(pony_unlock="HAND_EMPTY")
    st = four_deal(rules)
    s0 = Scripted(melds=[OPEN], discards=["9"])
    play_until(st, players({0: s0}), 1)
    assert st.pony_picked[0] is False and st.canastas[0]["NATURAL"] == 1
    assert hand_of(st, 0) == "7 JK" and [k for t, k, _ in s0.log] == ["draw", "melds", "discard"]


def test_first_canasta_by_taking_the_pile_picks_up_at_once() -> None:
    """Seat 0 opens K x4 + A x3; seat 1 discards a K; seat 2 takes the pile with K K: 7 kings, the team's first
    canasta, so seat 2 picks up its pony in the same turn; seat 0 picks up at the start of turn 5."""
    st = pony_deal_state(None, {0: "K K K K A A A 4 5 6 7 8 9 10 J", 1: "K", 2: "K K"},
                         {2: "Q Q Q Q Q Q Q 5 5 5 5 5 5"}, upcards="6", stock="4 5 6 8 9 10 J Q")
    s2 = Scripted(draws=[take("K", 2)], melds=[[meld("Q", 7)]])
    strategies = players({0: Scripted(melds=[[meld("K", 4), meld("A", 3)]]), 1: Scripted(discards=["K"]), 2: s2})
    table = play_until(st, strategies, 3)
    assert meld_of(st, 0, "K") == [7, 0, 0] and meld_of(st, 0, "Q") == [7, 0, 0]
    assert st.pony_turn == [None, None, 3, None] and st.pony_unlocked[0]
    assert [k for t, k, _ in s2.log] == ["draw", "melds", "discard"]  # the pony was already in hand
    table.step(2)
    assert st.pony_turn == [5, None, 3, None]


# ============================================================================ must_pick_pony / unpicked ponies
def _seat2_goes_out(**knobs: Any) -> tuple[Any, Any]:
    """OWN_FIRST_CANASTA: seat 0 makes all four canastas on turn 1; on turn 3 seat 2 (who never made a canasta,
    so its pony is still locked) melds A x6, 10 x6, 8 x4 and discards its last 8."""
    rules = pt_rules(pony_unlock="OWN_FIRST_CANASTA", **knobs)
    st = four_deal(rules, hands={2: "A A A A A A 10 10 10 10 10 10 8 8 8"}, stock="7 9  8 8  8 8")
    s2 = Scripted(melds=[[meld("A", 6), meld("10", 6), meld("8", 4)]], discards=["8"])
    strategies, _ = four_players()
    strategies[2] = s2
    return st, strategies


def test_must_pick_pony_before_going_out() -> None:
    st, strategies = _seat2_goes_out()
    table = play_until(st, strategies, 2)
    with pytest.raises(IllegalDecision, match="cannot go out before picking up the pony"):
        table.step(1)
    assert meld_of(st, 0, "A") is None and st.hand_sizes[2] == 17


@pytest.mark.parametrize(("counts_against", "pony_part"), [(True, -65), (False, 0)])
def test_going_out_without_the_pony_when_allowed(counts_against: bool, pony_part: int) -> None:
    st, strategies = _seat2_goes_out(must_pick_pony_before_going_out=False,
                                     unpicked_pony_counts_against=counts_against)
    res = Table(st, strategies).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 2 and res.turns == 3
    # 200 + 3300; melded 445 - 30 (no 9s) + A x6 120 + 10 x6 60 + 8 x4 40 = 635; seat 0 keeps a 9 (-10);
    # seat 2's pony 5 x13 = 65 counts against the team unless the knob is off
    expected = {"going_out": 200, "canasta_natural": 500, "canasta_mixed": 300, "canasta_wild": 1000,
                "canasta_sevens": 1500, "melded": 635, "hand": -10, "pony": pony_part}
    assert parts(res.scores[0]) == parts({**expected, "total": 200 + 3300 + 635 - 10 + pony_part})
    # team 1: hands 8 x16 (160), J x15 (150: seat 3 never played); ponies 10 x13 + Q x13 (260) unless the knob is off
    assert res.scores[1]["hand"] == -310 and res.scores[1]["pony"] == (-260 if counts_against else 0)


# ============================================================================ pony_size / unpicked pony scoring
def test_deal_order_hands_then_ponies() -> None:
    """An unstacked check of new_deal: the first 60 cards are the hands, the next 4 x pony_size the ponies."""
    for pony_size in (13, 11):
        rules = pt_rules(pony_size=pony_size)
        order = [0, 1, 2, 3]  # dealer 3: seat 0 first
        hand_rank = dict(zip(order, cards("4 5 6 8"), strict=True))
        pony_rank = dict(zip(order, cards("9 10 J Q"), strict=True))
        deck = [hand_rank[order[i % 4]] for i in range(60)] + [pony_rank[order[i % 4]] for i in range(4 * pony_size)]
        left = deck_counts(6, 2)
        for c in deck:
            left[c] -= 1
        deck += [r for r in reversed(range(NUM_RANKS)) for _ in range(left[r])]  # naturals first: upcard A
        st = new_deal(rules, deck, DEALER, 0, [0, 0], cut_count=0)
        for s in range(4):
            assert st.hands[s] == counts([hand_rank[s]] * 15) and st.hand_sizes[s] == 15
            assert st.ponies[s] == counts([pony_rank[s]] * pony_size)
        assert len(st.stock) + len(st.pile) == 324 - 60 - 4 * pony_size
        assert all_cards(st) == deck_counts(6, 2)


STOCK_OUT_HANDS = {0: "6 " * 15, 1: "B3 B3 " + "8 " * 13, 2: "5 " * 15, 3: "9 " * 15}
PONIES_13 = {0: "K " * 13, 1: "4 " * 13, 2: "A " * 13, 3: "JK JK R3 " + "10 " * 10}
PONIES_11 = {s: " ".join(p.split()[:11]) for s, p in PONIES_13.items()}


@pytest.mark.parametrize(("pony_size", "ponies", "team0_pony", "team1_pony"), [
    (13, PONIES_13, -(130 + 260), -(65 + 100 + 100 + 100)),  # seat 3: JK JK (100), R3 (-100), 10 x10 (100)
    (11, PONIES_11, -(110 + 220), -(55 + 100 + 100 + 80)),
])
def test_stock_out_with_unpicked_ponies(pony_size: int, ponies: dict[int, str], team0_pony: int,
                                        team1_pony: int) -> None:
    """A two-card stock: seat 0 draws it on turn 1, seat 1 finds it empty on turn 2 and the deal ends. Nobody made
    a canasta, so all four ponies count (A-PT-15: R3 -100, at card value otherwise). B3 in hand -100 each."""
    for counts_against in (True, False):
        rules = pt_rules(pony_size=pony_size, unpicked_pony_counts_against=counts_against)
        st = pony_deal_state(rules, STOCK_OUT_HANDS, ponies, upcards="9", stock="6 6", fill_stock=False)
        assert [sum(p) for p in st.ponies] == [pony_size] * 4
        res = Table(st, players()).finish()
        assert res.end_reason == "stock_out" and res.turns == 2
        assert res.pony_pickup_turns == [None] * 4 and res.red_threes == [0, 0]  # a pony's R3 is never laid
        t0, t1 = res.scores
        assert t0["hand"] == -(16 * 5 + 15 * 5)  # seat 0: 6 x16 after drawing 6 6 and discarding a 6
        assert t1["hand"] == -(100 + 100 + 13 * 10 + 15 * 10)  # seat 1: B3 B3 8 x13; seat 3: 9 x15
        assert (t0["pony"], t1["pony"]) == ((team0_pony, team1_pony) if counts_against else (0, 0))
        assert t0["total"] == t0["hand"] + t0["pony"] and t1["total"] == t1["hand"] + t1["pony"]


def test_pony_size_in_position_scoring() -> None:
    pos = {"variant": "ponytail", "rules": {"pony_size": 11},
           "teams": [{"melds": ["A A A A A A A"], "hands": [["4"], []]},
                     {"hands": [[], []], "ponies": ["K K K K K K K K K K K"]}]}
    rules, teams = parse_position(pos)
    assert teams[1].ponies[0][parse_rank("K")] == 11
    pos["teams"][1]["ponies"] = ["K " * 13]
    with pytest.raises(PositionError, match="exactly pony_size=11"):
        parse_position(pos)


# ============================================================================ red threes in a pony
def test_red_threes_in_a_pony_are_laid_and_replaced_at_pickup() -> None:
    """Seat 0's pony holds R3 R3: both are laid when it is picked up and replaced from the stock; the first
    replacement is another R3, laid and replaced in turn."""
    st = pony_deal_state(None, {0: "K K K K K K K 4 4 5 5 6 6 8 8"}, {0: "R3 R3 A A A 9 9 9 10 10 10 J J"},
                         upcards="6", stock="5 6  R3 Q A")
    play_until(st, players({0: Scripted(melds=[[meld("K", 7)], []], discards=["J"])}), 1)
    assert st.red_threes == [3, 0] and st.red_threes_by_seat == [3, 0, 0, 0]
    assert st.hands[0] == counts("4 4 5 5 5 6 6 6 8 8 A A A 9 9 9 10 10 10 J Q A")
    assert st.hand_sizes[0] == 15 + 2 - 7 + 11 + 2 - 1


def test_dealt_red_three_replaced_at_the_players_first_turn() -> None:
    """Seat 2 was dealt a R3. Read literally, seat 0 draws A K on turn 1 and seat 2's replacement comes later."""
    st = pony_deal_state(None, {0: "4 " * 15, 2: "R3 " + "5 " * 14}, upcards="6", stock="A K  Q J  10 9")
    play_until(st, players({0: Scripted(discards=["4"])}), 1)
    assert st.hands[0][parse_rank("A")] == 1 and st.hands[0][parse_rank("K")] == 1


# ============================================================================ draw_count
@pytest.mark.parametrize("draw_count", [1, 2, 3])
def test_draw_count(draw_count: int) -> None:
    rules = pt_rules(draw_count=draw_count)
    hand = "4 4 5 5 6 6 8 8 9 9 10 10 J J Q"
    st = pony_deal_state(rules, {0: hand}, upcards="6", stock="K A 7 A")
    stock0 = len(st.stock)
    play_until(st, players({0: Scripted(discards=["K"])}), 1)
    drawn = {1: "", 2: "A", 3: "A 7"}[draw_count]  # K A 7 drawn in that order; the K is discarded
    assert st.hands[0] == [a + b for a, b in zip(counts(hand), counts(drawn), strict=True)]
    assert st.hand_sizes[0] == 15 + draw_count - 1 and len(st.stock) == stock0 - draw_count


def test_partial_draw_with_one_card_left() -> None:
    st = pony_deal_state(None, {0: "4 " * 15}, upcards="6", stock="K", fill_stock=False)
    play_until(st, players({0: Scripted(discards=["K"])}), 1)
    assert st.stock == [] and st.hand_sizes[0] == 15 and st.end_reason is None


# ============================================================================ meld_max_size
def _kings_then(turn5: list[Meld], **knobs: Any) -> tuple[Any, Any]:
    """Seat 0 lays K x7 on turn 1 (the first canasta: it picks up its pony, lays nothing more and discards the J
    it drew); on turn 5 it draws K 9 and lays ``turn5``."""
    st = pony_deal_state(pt_rules(**knobs), {0: "K K K K K K K 2 JK 4 5 6 8 9 10"}, {0: "5 " * 13},
                         upcards="6", stock="J 4  5 5  6 6  8 8  K 9")
    return st, players({0: Scripted(melds=[[meld("K", 7)], [], turn5], discards=["J"])})


@pytest.mark.parametrize(("turn5", "error"), [
    ([meld("K", 1)], "meld of 8 cards exceeds meld_max_size=7"),
    ([meld("K", 0, twos=1)], "meld of 8 cards exceeds meld_max_size=7"),
    ([meld("K", 0, jokers=1)], "meld of 8 cards exceeds meld_max_size=7"),
])
def test_closed_canasta_accepts_nothing(turn5: Any, error: str) -> None:
    # With the knob off a closed canasta stays in its slot and takes no more cards (with it on, the test in
    # test_new_meld_after_closed_canasta.py: the next kings start a new meld).
    st, strategies = _kings_then(turn5, new_meld_after_closed_canasta=False)
    table = play_until(st, strategies, 4)
    assert meld_of(st, 0, "K") == [7, 0, 0] and st.hands[0][parse_rank("K")] == 0
    with pytest.raises(IllegalDecision, match=error):
        table.step(1)
    assert meld_of(st, 0, "K") == [7, 0, 0]


def test_closed_canasta_cannot_take_the_pile_by_layoff() -> None:
    """Seat 3 discards a K on turn 4; seat 0 (opened, K x7 closed) cannot lay the top K off onto the canasta."""
    # Knob off: the closed canasta keeps its slot (with it on there is no meld to lay the top card on).
    st = pony_deal_state(pt_rules(new_meld_after_closed_canasta=False), {0: "K K K K K K K 2 JK 4 5 6 8 9 10", 3: "K"},
                         {0: "5 " * 13},
                         upcards="6", stock="J 4  5 5  6 6  8 8  9 9")
    strategies = players({0: Scripted(draws={5: take("K", 0)}, melds=[[meld("K", 7)], []], discards=["J"]),
                          3: Scripted(discards=["K"])})
    table = play_until(st, strategies, 4)
    assert st.pile[-1] == parse_rank("K") and not st.frozen_for(0)
    with pytest.raises(IllegalDecision, match="meld of 8 cards exceeds meld_max_size=7"):
        table.step(1)


def test_no_cap_accepts_an_eighth_card() -> None:
    st, strategies = _kings_then([meld("K", 1)], meld_max_size=None)
    play_until(st, strategies, 5)
    assert meld_of(st, 0, "K") == [8, 0, 0] and st.canastas[0]["NATURAL"] == 1


# ============================================================================ go_out_requirement
def _going_out_at_turn5(turn5_melds: list[Meld], discards: list[str], **knobs: Any) -> tuple[Any, Any]:
    """As the four-canasta deal, but seat 0 keeps its seven wild cards on turn 1 (lays only 7 x7 from the pony)
    and tries to go out on turn 5 with ``turn5_melds``."""
    st = four_deal(pt_rules(**knobs))
    strategies, _ = four_players(melds=[OPEN, [meld("7", 7)], turn5_melds], discards=discards)
    return st, strategies


def test_going_out_refused_without_the_four_types() -> None:
    st, strategies = _going_out_at_turn5([meld("9", 3), wild(twos=4, jokers=2)], ["9", "JK"])
    table = play_until(st, strategies, 4)
    assert kinds(st.canastas[0]) == {"NATURAL": 1, "MIXED": 1, "SEVENS": 1}
    assert st.hands[0] == counts("2 2 2 2 JK JK JK 9")
    with pytest.raises(IllegalDecision, match=MISSING_FOUR):
        table.step(1)
    assert meld_of(st, 0, "9") is None and meld_of(st, 0, "WILD") is None


def test_going_out_refused_by_discarding_the_last_card() -> None:
    """Melds that leave one card are a going out too: refused without the four types."""
    st, strategies = _going_out_at_turn5([meld("9", 3), wild(twos=4, jokers=2)], ["9", "JK"])
    with pytest.raises(IllegalDecision, match=MISSING_FOUR + r" \(and a player must keep a card to discard\)"):
        play_until(st, strategies, 5)


def test_going_out_allowed_with_the_four_types() -> None:
    st, strategies = _going_out_at_turn5([meld("9", 3), wild(twos=4, jokers=3)], ["9"])
    res = Table(st, strategies).finish()
    assert res.went_out_seat == 0 and res.turns == 5
    assert res.scores[0]["total"] == 3800 and res.required_set_turn == [5, None]


def test_weaker_requirement_allows_going_out_earlier() -> None:
    """go_out_requirement = NATURAL:1,MIXED:1: the same turn-5 melds (a 6-card wild meld, not a canasta) go out."""
    st, strategies = _going_out_at_turn5([meld("9", 3), wild(twos=4, jokers=2)], ["9", "JK"],
                                         go_out_requirement="NATURAL:1,MIXED:1")
    res = Table(st, strategies).finish()
    assert res.went_out_seat == 0 and res.turns == 5 and st.pile[-1] == JOKER
    assert res.required_set_turn == [1, None]  # met as soon as K x7 and Q x6 + 2 were down
    # 200 + 500 + 300 + 1500; melded 70 + 80 + 35 + 30 + (80 + 100); seat 2's hand 145
    assert parts(res.scores[0]) == {"going_out": 200, "canasta_natural": 500, "canasta_mixed": 300,
                                    "canasta_sevens": 1500, "melded": 395, "hand": -145, "total": 2750}


def test_requirement_knob_validation() -> None:
    with pytest.raises(RuleError, match="WILD canasta but wild_melds_allowed=false"):
        pt_rules(wild_melds_allowed=False)
    with pytest.raises(RuleError, match="SEVENS canasta but canasta_bonus.sevens is null"):
        pt_rules(canasta_bonus__sevens=None)
    assert pt_rules(wild_melds_allowed=False, go_out_requirement="NATURAL:1,MIXED:1,SEVENS:1")


# ============================================================================ exact cut, cut_sigma, pony dealer
def test_cut_sigma_zero_every_cut_exact_bonus_to_cutter_team() -> None:
    rules = pt_rules(cut_sigma=0, max_hands=2)
    result = play_game(rules, ["greedy"] * 4, 5, 0)
    assert len(result.deals) == 2
    for d in result.deals:
        cutter = (d.dealer - 1) % 4  # the player to the dealer's right (play is clockwise)
        assert (d.cut_count, d.cut_target, d.exact_cut) == (61, 61, True)
        assert d.exact_cut_team == cutter % 2 != d.dealer % 2
        assert [s["exact_cut"] for s in d.scores] == [100 if t == cutter % 2 else 0 for t in range(2)]
        assert d.pony_exact and d.pony_cut_count == 52 and d.pony_exact_team is None  # bonus 0 in the preset
        assert [s["pony_dealer_exact"] for s in d.scores] == [0, 0]


def test_exact_cut_to_dealer_team_and_pony_dealer_bonus() -> None:
    rules = pt_rules(cut_sigma=0, max_hands=2, exact_cut_beneficiary="DEALER_TEAM", exact_cut_bonus=150,
                     pony_dealer_exact_bonus=50)
    for d in play_game(rules, ["greedy"] * 4, 5, 0).deals:
        pony_dealer = (d.dealer + 1) % 4  # the player to the dealer's left deals the ponies
        assert d.exact_cut_team == d.dealer % 2 and d.pony_exact_team == pony_dealer % 2
        assert [s["exact_cut"] for s in d.scores] == [150 if t == d.dealer % 2 else 0 for t in range(2)]
        assert [s["pony_dealer_exact"] for s in d.scores] == [50 if t == pony_dealer % 2 else 0 for t in range(2)]


def test_exact_cut_bonus_zero_pays_nothing() -> None:
    for d in play_game(pt_rules(cut_sigma=0, max_hands=1, exact_cut_bonus=0), ["greedy"] * 4, 5, 0).deals:
        assert d.exact_cut and d.exact_cut_team is None and all(s["exact_cut"] == 0 for s in d.scores)


def test_default_cut_sigma_is_exact_about_one_deal_in_ten() -> None:
    """sigma = 4: P(round(61 + e) == 61) = 2 Phi(0.5 / 4) - 1 = 0.0995 (RULES.md §1.14)."""
    rules = pt_rules()
    pack = deck_cards(6, 2)
    n = 400
    exact = sum(prepare_deal(rules, pack, deal_rng(99, g), 0, 0, [0, 0]).exact_cut for g in range(n))
    assert 15 <= exact <= 70  # mean 39.8, sd 6.0
    six = pt_rules(num_players=6)
    st = prepare_deal(six, deck_cards(8, 2), deal_rng(99, 0), 0, 0, [0, 0, 0])
    assert st.cut_target == 91 and len(st.stock) + len(st.pile) == 8 * 54 - 6 * 15 - 6 * 13


# ============================================================================ seven_freezes_pile
def _seven_on_top(mode: str, how: Any) -> tuple[Any, Any]:
    """Turn 1: seat 0 opens A A A + K K K and discards a 9. Turn 2: seat 1 discards a 7. Turn 3: seat 2 (team 0,
    opened) takes the 7 with ``how``."""
    st = pony_deal_state(pt_rules(seven_freezes_pile=mode),
                         {0: "A A A K K K 9 4 5 6 8 10 J Q Q", 1: "7", 2: "7 7 2 4 5 6 8 9 10 J Q K A A 4"},
                         upcards="6", stock="4 5  6 8  9 10")
    strategies = players({0: Scripted(melds=[[meld("A", 3), meld("K", 3)]], discards=["9"]),
                          1: Scripted(discards=["7"]), 2: Scripted(draws=[how], discards=["4"])})
    return st, strategies


@pytest.mark.parametrize(("mode", "frozen"), [("UPCARD_ONLY", False), ("UPCARD_AND_DISCARD", True), ("NONE", False)])
def test_seven_freezes_pile(mode: str, frozen: bool) -> None:
    st, strategies = _seven_on_top(mode, take("7", 1, twos=1))
    table = play_until(st, strategies, 2)
    assert st.pile[-1] == SEVEN and st.opened == [True, False]
    assert st.pile_frozen is frozen and st.frozen_for(0) is frozen
    if frozen:
        with pytest.raises(IllegalDecision, match="frozen for this team: a natural pair of 7 is needed"):
            table.step(1)
        return
    table.step(1)
    assert meld_of(st, 0, "7") == [2, 1, 0] and not st.pile_frozen


def test_discarded_seven_freezes_but_a_pair_still_takes() -> None:
    st, strategies = _seven_on_top("UPCARD_AND_DISCARD", take("7", 2))
    play_until(st, strategies, 3)
    assert meld_of(st, 0, "7") == [3, 0, 0] and not st.pile_frozen


def test_seven_upcard_freezes_in_every_seven_mode() -> None:
    for mode in ("UPCARD_ONLY", "UPCARD_AND_DISCARD"):
        assert pony_deal_state(pt_rules(seven_freezes_pile=mode), upcards="7 9").pile_frozen


def test_seven_freezes_pile_none_unfreezes_a_seven_upcard() -> None:
    assert not pony_deal_state(pt_rules(seven_freezes_pile="NONE"), upcards="7 9").pile_frozen


# ============================================================================ max_hands, game_target
def test_max_hands_ends_the_game() -> None:
    full = play_game(pt_rules(), ["greedy"] * 4, 3, 0)
    assert len(full.deals) == 4 and max(full.totals) < 50_000  # greedy scores ~7,500 a deal
    two = play_game(pt_rules(max_hands=2), ["greedy"] * 4, 3, 0)
    assert len(two.deals) == 2
    assert [d.scores for d in two.deals] == [d.scores for d in full.deals[:2]]  # same seed, same deals
    assert two.totals == [sum(d.scores[t]["total"] for d in full.deals[:2]) for t in range(2)]


def test_low_game_target_ends_earlier() -> None:
    full = play_game(pt_rules(), ["greedy"] * 4, 3, 0)
    first = [full.deals[0].scores[t]["total"] for t in range(2)]
    target = max(first)  # reached exactly after deal 1 (GE)
    short = play_game(pt_rules(game_target=target), ["greedy"] * 4, 3, 0)
    assert len(short.deals) == 1 and short.totals == first
    assert first[0] != first[1] and short.winner_team == first.index(target)
    gt = play_game(pt_rules(game_target=target, target_comparison="GT", max_hands=2), ["greedy"] * 4, 3, 0)
    assert len(gt.deals) == 2  # GT needs more than the target


# ============================================================================ wild rule, wild melds, sevens
@pytest.mark.parametrize(("melds", "rule", "error"), [
    ([meld("6", 2, twos=2)], "STRICT_MAJORITY", "2 naturals with 2 wild cards break wild_rule=STRICT_MAJORITY"),
    ([meld("6", 3, twos=2)], "STRICT_MAJORITY", None),  # 15 + 40 = 55 >= 50
    ([meld("6", 3, twos=3)], "STRICT_MAJORITY", "3 naturals with 3 wild cards break wild_rule=STRICT_MAJORITY"),
    ([meld("6", 4, twos=2, jokers=1)], "STRICT_MAJORITY", None),
    ([meld("6", 2, twos=2)], "PAGAT", None),  # 10 + 40 = 50
])
def test_strict_majority(melds: list[Meld], rule: str, error: str | None) -> None:
    st = pony_deal_state(pt_rules(wild_rule=rule), {0: "6 6 6 6 2 2 2 JK 4 5 8 9 10 J Q"}, upcards="K",
                         stock="A 4")
    strategies = players({0: Scripted(melds=[melds])})
    if error:
        with pytest.raises(IllegalDecision, match=error):
            play_until(st, strategies, 1)
        return
    play_until(st, strategies, 1)
    m = melds[0]
    assert meld_of(st, 0, "6") == [m.naturals, m.twos, m.jokers]


@pytest.mark.parametrize(("turn5", "error"), [
    ([meld("6", 0, twos=1)], "3 naturals with 3 wild cards break wild_rule=STRICT_MAJORITY"),
    ([meld("6", 0, jokers=1)], "3 naturals with 3 wild cards break wild_rule=STRICT_MAJORITY"),
    ([meld("6", 1), meld("6", 0, jokers=1)], None),  # 4 naturals, 3 wilds
    ([meld("6", 0, twos=1, jokers=1)], "3 naturals with 4 wild cards break wild_rule=STRICT_MAJORITY"),
])
def test_strict_majority_when_adding_to_a_meld(turn5: list[Meld], error: str | None) -> None:
    """6 6 6 2 2 laid on turn 1; on turn 5 seat 0 (holding 2 JK and a drawn 6) adds to it."""
    st = pony_deal_state(None, {0: "6 6 6 2 2 2 JK 4 5 8 9 10 J Q K"}, upcards="K",
                         stock="A 4  5 5  8 8  9 9  6 10")
    strategies = players({0: Scripted(melds=[[meld("6", 3, twos=2)], turn5])})
    table = play_until(st, strategies, 4)
    assert meld_of(st, 0, "6") == [3, 2, 0]
    if error:
        with pytest.raises(IllegalDecision, match=error):
            table.step(1)
        return
    table.step(1)
    assert meld_of(st, 0, "6") == [4, 2, 1]


@pytest.mark.parametrize(("wilds", "error"), [
    (wild(twos=2), "a wild meld needs at least 3 wild cards to start"),
    (wild(twos=1, jokers=1), "a wild meld needs at least 3 wild cards to start"),
    (wild(twos=2, jokers=1), None),  # 40 + 50 = 90 >= 50
    (wild(jokers=3), None),
])
def test_wild_meld_start_needs_three(wilds: Meld, error: str | None) -> None:
    st = pony_deal_state(None, {0: "2 2 2 2 JK JK JK 4 5 6 8 9 10 J Q"}, upcards="K", stock="A 4")
    strategies = players({0: Scripted(melds=[[wilds]])})
    if error:
        with pytest.raises(IllegalDecision, match=error):
            play_until(st, strategies, 1)
        return
    play_until(st, strategies, 1)
    assert meld_of(st, 0, "WILD") == [0, wilds.twos, wilds.jokers]


def test_wild_canasta_in_play_scores_1000() -> None:
    """Seat 0 lays 2 2 2 + JK (a wild meld), then 2 + JK JK on turn 5: seven wilds, a wild canasta."""
    st = pony_deal_state(None, {0: "2 2 2 2 JK JK JK 4 5 6 8 9 10 J Q"}, {0: "5 " * 13}, upcards="K",
                         stock="A 4  5 5  8 8  9 9  6 10", fill_stock=False)
    s0 = Scripted(melds=[[wild(twos=3, jokers=1)], [wild(twos=1, jokers=2)], []])
    res = Table(st, players({0: s0})).finish()
    assert meld_of(st, 0, "WILD") == [0, 4, 3] and st.canastas[0]["WILD"] == 1
    assert res.pony_pickup_turns[0] == 5  # the wild canasta was the team's first canasta
    assert res.end_reason == "stock_out"
    a = res.scores[0]
    assert (a["canasta_wild"], a["canasta_natural"], a["melded"]) == (1000, 0, 4 * 20 + 3 * 50)


@pytest.mark.parametrize(("sevens", "bonus_knob", "kind", "part", "bonus"), [
    (meld("7", 7), None, "SEVENS", "canasta_sevens", 1500),
    (meld("7", 5, twos=1, jokers=1), None, "SEVENS", "canasta_sevens", 1500),  # mixed sevens: still SEVENS
    (meld("7", 6, twos=1), None, "SEVENS", "canasta_sevens", 1500),
    (meld("7", 7), 2500, "SEVENS", "canasta_sevens", 2500),
])
def test_sevens_canasta_natural_or_mixed(sevens: Meld, bonus_knob: int | None, kind: str, part: str,
                                        bonus: int) -> None:
    knobs = {} if bonus_knob is None else {"canasta_bonus__sevens": bonus_knob}
    st = pony_deal_state(pt_rules(**knobs), {0: "7 7 7 7 7 7 7 2 JK A A A 4 5 6"}, {0: "5 " * 13},
                         upcards="K", stock="A 4", fill_stock=False)
    res = Table(st, players({0: Scripted(melds=[[sevens, meld("A", 3)], []])})).finish()
    assert kinds(st.canastas[0]) == {kind: 1}
    a = res.scores[0]
    assert a[part] == bonus and a["canasta_natural"] == a["canasta_mixed"] == 0
    assert a["melded"] == sevens.naturals * 5 + sevens.twos * 20 + sevens.jokers * 50 + 60  # + A A A


def test_sevens_without_a_sevens_bonus_are_ordinary_canastas() -> None:
    """canasta_bonus.sevens = null (and no SEVENS in go_out_requirement): seven 7s are a natural canasta."""
    rules = pt_rules(canasta_bonus__sevens=None, go_out_requirement="NATURAL:1,MIXED:1,WILD:1")
    st = pony_deal_state(rules, {0: "7 7 7 7 7 7 7 2 JK A A A 4 5 6"}, {0: "5 " * 13},
                         upcards="K", stock="A 4", fill_stock=False)
    res = Table(st, players({0: Scripted(melds=[[meld("7", 7), meld("A", 3)], []])})).finish()
    assert kinds(st.canastas[0]) == {"NATURAL": 1}
    assert res.scores[0]["canasta_natural"] == 500 and res.scores[0]["canasta_sevens"] == 0


def test_sevens_wilds_not_allowed() -> None:
    st = pony_deal_state(pt_rules(sevens_wilds_allowed=False), {0: "7 7 7 7 7 7 7 2 JK 4 5 6 8 9 10"},
                         upcards="K", stock="A 4")
    with pytest.raises(IllegalDecision, match="wild cards may not join a meld of sevens"):
        play_until(st, players({0: Scripted(melds=[[meld("7", 5, twos=1, jokers=1)]])}), 1)


# ============================================================================ black threes
def test_black_threes_melded_when_going_out() -> None:
    """The four-canasta deal with a B3 in seat 0's pony instead of the 9: seat 0 keeps the B3, draws B3 B3 on
    turn 5 and goes out melding B3 x3 (5 points each)."""
    st = four_deal(ponies={0: "7 7 7 7 7 7 2 2 2 2 JK JK B3"}, stock="7 9  8 8  4 4  J J  B3 B3")
    strategies, _ = four_players(melds=[OPEN, FROM_PONY, [meld("B3", 3)]], discards=["9"])
    res = Table(st, strategies).finish()
    assert res.went_out_seat == 0 and res.turns == 5 and meld_of(st, 0, "B3") == [3, 0, 0]
    assert res.scores[0]["melded"] == 445 - 30 + 15 and res.scores[0]["total"] == 3800 - 30 + 15


B3_PONY = {0: "7 7 7 7 7 7 2 2 2 2 JK JK B3"}
B3_STOCK = "7 9  8 8  4 4  J J  B3 B3"


def test_two_black_threes_cannot_go_out() -> None:
    st = four_deal(ponies=B3_PONY, stock=B3_STOCK)
    strategies, _ = four_players(melds=[OPEN, FROM_PONY, [meld("B3", 2)]], discards=["9", "B3"])
    with pytest.raises(IllegalDecision, match="a black-three meld must have 3 to 7 cards"):
        play_until(st, strategies, 5)


def test_black_threes_not_melded_unless_going_out() -> None:
    """Seat 0 kept its seven wild cards: melding B3 x3 on turn 5 leaves 7 cards, so it is not a going out."""
    st = four_deal(ponies=B3_PONY, stock=B3_STOCK)
    strategies, _ = four_players(melds=[OPEN, [meld("7", 7)], [meld("B3", 3)]], discards=["9"])
    with pytest.raises(IllegalDecision, match="black threes may be melded only by a player going out"):
        play_until(st, strategies, 5)
    st = four_deal(ponies=B3_PONY, stock=B3_STOCK)
    strategies, _ = four_players(melds=[OPEN, [meld("7", 7)], [meld("B3", 3), wild(twos=4, jokers=3)]],
                                 discards=["9"])
    res = Table(st, strategies).finish()
    assert res.went_out_seat == 0 and meld_of(st, 0, "B3") == [3, 0, 0] and st.canastas[0]["WILD"] == 1


@pytest.mark.parametrize(("n", "legal"), [(2, False), (3, True), (5, True), (7, True), (8, False)])
def test_black_three_meld_sizes(n: int, legal: bool) -> None:
    assert (meld_error(pt_rules(), BLACK_THREE, n, 0, 0, new=True) is None) is legal
    assert meld_error(pt_rules(), BLACK_THREE, 3, 1, 0, new=True) is not None  # never with a wild card


def test_black_three_in_hand_minus_100() -> None:
    st = pony_deal_state(None, STOCK_OUT_HANDS, PONIES_13, upcards="9", stock="6 6", fill_stock=False)
    res = Table(st, players()).finish()
    assert res.scores[1]["hand"] == -(2 * 100 + 13 * 10 + 15 * 10)
    st = pony_deal_state(pt_rules(black_three_in_hand_value=-5), STOCK_OUT_HANDS, PONIES_13, upcards="9",
                         stock="6 6", fill_stock=False)
    assert Table(st, players()).finish().scores[1]["hand"] == -(2 * 5 + 13 * 10 + 15 * 10)


# ============================================================================ the helper itself
def test_stack_pony_deck_deals_requested_hands_and_ponies() -> None:
    rules = pt_rules()
    deck = stack_pony_deck(rules, {0: "K K R3", 2: "JK JK"}, {1: "A A A", 3: "R3 B3"}, upcards="2 7 9", stock="Q J")
    assert sorted(deck) == sorted(r for r in range(NUM_RANKS) for _ in range(deck_counts(6, 2)[r]))
    st = new_deal(rules, deck, DEALER, 0, [0, 0], cut_count=0)
    assert st.hands[0][parse_rank("K")] >= 2 and st.hands[0][RED_THREE] == 1
    assert st.hands[2][JOKER] == 2 and st.ponies[1][parse_rank("A")] >= 3
    assert st.ponies[3][RED_THREE] == 1 and st.ponies[3][BLACK_THREE] == 1
    assert st.pile == cards("2 7 9") and st.pile_frozen
    assert st.stock[-2:] == cards("J Q") and all_cards(st) == deck_counts(6, 2)
    assert st.hands[0][TWO] == 0
