"""Golden tests for Canasta Americana: RULES.md §5.3 (A1–A5) and §5.0 (R5–R7), plus Americana position input.

Every expected number was worked out by hand from RULES.md §1.3 (card values), §1.12 (the scoring algorithm) and
the §2.3 tables (going out 100; canastas natural 500, mixed 300, natural aces 2500, sevens 2500, wild 3000 / 2500 /
2000; incomplete pure aces -2500, sevens -2500, wild -2000; -1500 per player holding 3+ aces or 3+ sevens; threes
per colour 1 -> 100, 2 -> 300, 3 -> 500, 4 -> 1000, negative with no canasta, 0 with one; a three in hand -100;
special hands 3000 / 2500 / 2000 / 2000). Nothing is computed by the code under test. Scored positions go through
the Python API (``parse_position`` + ``score_deal``) and through ``simcli score --json``; R5 goes through
``judge.take_error`` on a stacked deal, A5 through ``game_outcome`` and ``play_game``.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from helpers import Scripted, meld, players, take
from helpers_americana import am_deal_state, am_play, am_rules
from scoring_paths import breakdown, fake_deal, with_rules

import simcli.engine.game
from simcli.engine.game import game_outcome
from simcli.engine.judge import take_error
from simcli.engine.melds import WILD, canasta_bonus
from simcli.engine.scoring import american_threes, score_deal
from simcli.players.seating import play_game
from simcli.positions.reader import PositionError, parse_position
from simcli.positions.writer import position_to_json
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import JACK
from simcli.primitives.errors import IllegalDecision


# --------------------------------------------------------------------------- §5.3 positions
def a1() -> dict[str, Any]:
    """A1 — N (team A) went out by discarding; special canastas on A's side, penalties on B's."""
    return {
        "variant": "americana",
        "teams": [
            {"melds": ["K K K K K K K", "A A A A A A A", "6 6 6 6 6 2 2"], "threes": ["R3", "R3", "B3"],
             "hands": [[], ["9", "9", "8"]], "went_out": True},
            {"melds": ["7 7 7 7 7", "2 2 JK", "Q Q Q Q Q Q Q"], "threes": ["R3"],
             "hands": [["7", "7", "7", "5"], ["4", "4"]]},
        ],
    }


A1_A = breakdown(
    going_out=100,
    canasta_natural=500, canasta_aces=2500, canasta_mixed=300,
    red_threes=300, black_threes=100,  # two canastas or more: 2 red -> 300, 1 black -> 100
    melded=70 + 140 + (25 + 40),  # K x7; A x7; 6 x5 + 2 + 2
    hand=-(10 + 10 + 10),  # S: 9 9 8
)
A1_B = breakdown(
    canasta_natural=500,
    red_threes=0,  # exactly one canasta: the threes are ignored
    incomplete_melds=-2500 - 2000,  # 7 x5 (sevens); 2 2 JK (wild)
    hand_rank_penalty=-1500,  # E holds three 7s
    melded=25 + 90 + 70,  # 7 x5; 2 2 JK; Q x7 (one canasta: plus)
    hand=-(5 + 5 + 5 + 5) - (5 + 5),  # E: 7 7 7 5; W: 4 4
)


def a2() -> dict[str, Any]:
    """A2 — team B has no canasta: its melds and threes count negative."""
    return {
        "variant": "americana",
        "teams": [
            {"melds": ["10 10 10 10 10 10 10", "8 8 8 8 8 2 2"], "hands": [[], ["6"]], "went_out": True},
            {"melds": ["K K K", "5 5 5 2"], "threes": ["B3"], "hands": [["J"], ["A", "A", "A", "4"]]},
        ],
    }


A2_A = breakdown(going_out=100, canasta_natural=500, canasta_mixed=300, melded=70 + (50 + 40), hand=-5)
A2_B = breakdown(
    black_threes=-100,  # no canasta: negative
    hand_rank_penalty=-1500,  # W holds three aces
    melded=-(30 + 35),  # K K K; 5 5 5 2 -- negative with no canasta
    hand=-10 - (60 + 5),  # E: J; W: A A A 4
)


def a3(kind: str = "STRAIGHT") -> dict[str, Any]:
    """A3 — N (team A, not opened) lays a special hand; S's cards and A's laid threes are ignored."""
    return {
        "variant": "americana",
        "teams": [
            {"special_hand": kind, "threes": ["R3", "B3"], "hands": [[], ["A", "A", "A", "7", "7", "7", "B3"]]},
            {"melds": ["J J J J J J J", "4 4 4"], "hands": [["K", "Q"], ["2"]]},
        ],
    }


A3_A = breakdown(special_hand=3000)
A3_B = breakdown(canasta_natural=500, melded=70 + 15, hand=-(10 + 10) - 20)


def a4() -> dict[str, Any]:
    """A4 — going out with the four-joker wild canasta."""
    return {
        "variant": "americana",
        "teams": [
            {"melds": ["JK JK JK JK 2 2 2", "10 10 10 10 10 10 10"], "hands": [[], ["5"]], "went_out": True},
            {"melds": [], "hands": [[], []]},
        ],
    }


A4_A = breakdown(going_out=100, canasta_wild=2500, canasta_natural=500, melded=(200 + 60) + 70, hand=-5)
ZERO = breakdown()


def wild_canasta(cards: str) -> dict[str, Any]:
    """R6 — one team holding only the wild canasta ``cards``."""
    return {"variant": "americana", "teams": [{"melds": [cards], "hands": [[], []]}, {"hands": [[], []]}]}


def threes(canastas: list[str]) -> dict[str, Any]:
    """R7 — team A laid 3 red and 4 black threes and holds ``canastas``."""
    return {
        "variant": "americana",
        "teams": [{"melds": canastas, "threes": ["R3"] * 3 + ["B3"] * 4, "hands": [[], []]}, {"hands": [[], []]}],
    }


#: name -> (position, expected (total, breakdown) per team)
GOLDEN: dict[str, tuple[Any, list[tuple[int, dict[str, int]]]]] = {
    "A1": (a1, [(4045, A1_A), (-5345, A1_B)]),
    "A2": (a2, [(1055, A2_A), (-1740, A2_B)]),
    "A3": (a3, [(3000, A3_A), (545, A3_B)]),
    "A4": (a4, [(3425, A4_A), (0, ZERO)]),
    # R6: 7 x2 -> 3000 (140 points); JK x4 + 2 x3 -> 2500 (260); JK x2 + 2 x5 -> 2000 (200); JK x3 + 2 x4 -> 2000 (230)
    "R6_seven_twos": (lambda: wild_canasta("2 2 2 2 2 2 2"),
                      [(3140, breakdown(canasta_wild=3000, melded=140)), (0, ZERO)]),
    "R6_four_jokers": (lambda: wild_canasta("JK JK JK JK 2 2 2"),
                       [(2760, breakdown(canasta_wild=2500, melded=260)), (0, ZERO)]),
    "R6_two_jokers": (lambda: wild_canasta("JK JK 2 2 2 2 2"),
                      [(2200, breakdown(canasta_wild=2000, melded=200)), (0, ZERO)]),
    "R6_three_jokers": (lambda: wild_canasta("JK JK JK 2 2 2 2"),
                        [(2230, breakdown(canasta_wild=2000, melded=230)), (0, ZERO)]),
    # R7: 3 red -> 500, 4 black -> 1000; signs by canasta count 2 -> +, 1 -> 0, 0 -> -
    "R7_two_canastas": (lambda: threes(["K K K K K K K", "Q Q Q Q Q Q Q"]),
                        [(500 + 1000 + 1000 + 140, breakdown(canasta_natural=1000, red_threes=500,
                                                             black_threes=1000, melded=140)), (0, ZERO)]),
    "R7_one_canasta": (lambda: threes(["K K K K K K K", "Q Q Q"]),
                       [(500 + 100, breakdown(canasta_natural=500, melded=100)), (0, ZERO)]),
    "R7_no_canasta": (lambda: threes([]),
                      [(-1500, breakdown(red_threes=-500, black_threes=-1000)), (0, ZERO)]),
}


def test_expected_breakdowns_add_up_to_the_rules_md_totals() -> None:
    """The hand-written breakdowns match the totals printed in RULES.md §5.3."""
    assert sum(A1_A.values()) == 4045 and sum(A1_B.values()) == -5345
    assert sum(A2_A.values()) == 1055 and sum(A2_B.values()) == -1740
    assert sum(A3_B.values()) == 545 and sum(A4_A.values()) == 3425
    for _, expected in GOLDEN.values():
        for total, parts in expected:
            assert sum(parts.values()) == total


@pytest.mark.parametrize("case", list(GOLDEN))
def test_golden(case: str, scorer: Any) -> None:
    make, expected = GOLDEN[case]
    assert scorer(make()) == expected


# --------------------------------------------------------------------------- A1-A4 details and knobs
@pytest.mark.parametrize(("kind", "value"), [
    ("STRAIGHT", 3000), ("PAIRS_NATURAL", 2500), ("PAIRS_WITH_2_7_A", 2000), ("GARBAGE", 2000),
])
def test_a3_every_special_hand_value(scorer: Any, kind: str, value: int) -> None:
    scores = scorer(a3(kind))
    assert scores == [(value, breakdown(special_hand=value)), (545, A3_B)]


def test_a3_special_hand_value_knob(scorer: Any) -> None:
    scores = scorer(with_rules(a3("GARBAGE"), **{"special_hand_value.garbage": 1234}))
    assert scores[0] == (1234, breakdown(special_hand=1234))


def test_a3_without_the_special_hand_team_a_scores_normally(scorer: Any) -> None:
    pos = a3()
    del pos["teams"][0]["special_hand"]
    # no canasta: threes 1 red -100, 1 black -100; S: three aces -1500, three sevens -1500; hand 60 + 15 + B3 100
    scores = scorer(pos)
    assert scores[0] == (-3375, breakdown(red_threes=-100, black_threes=-100, hand_rank_penalty=-3000,
                                          hand=-(60 + 15 + 100)))


def test_a1_natural_aces_bonus_knob(scorer: Any) -> None:
    scores = scorer(with_rules(a1(), **{"canasta_bonus.natural_aces": 1000}))
    assert scores[0] == (4045 - 1500, {**A1_A, "canasta_aces": 1000})


def test_a1_aces_not_special(scorer: Any) -> None:
    """With aces_special off, seven natural aces are an ordinary natural canasta (500)."""
    scores = scorer(with_rules(a1(), aces_special=False))
    assert scores[0] == (4045 - 2000, {**A1_A, "canasta_aces": 0, "canasta_natural": 1000})


@pytest.mark.parametrize(("knob", "value", "part", "team_b"), [
    ("incomplete_penalty.sevens", -1000, "incomplete_melds", -5345 + 1500),
    ("incomplete_penalty.wild", 0, "incomplete_melds", -5345 + 2000),
    ("hand_rank_penalty.sevens", -500, "hand_rank_penalty", -5345 + 1000),
])
def test_a1_penalty_knobs(scorer: Any, knob: str, value: int, part: str, team_b: int) -> None:
    scores = scorer(with_rules(a1(), **{knob: value}))
    assert scores[1][0] == team_b and scores[0] == (4045, A1_A)


def test_a1_sevens_with_one_more_canasta_make_threes_positive(scorer: Any) -> None:
    """Team B with the sevens completed (a second canasta): threes positive, sevens canasta 2500, no penalty."""
    pos = a1()
    pos["teams"][1]["melds"][0] = "7 7 7 7 7 7 7"
    pos["teams"][1]["hands"][0] = ["5"]
    scores = scorer(pos)
    assert scores[1] == (500 + 2500 + 100 - 2000 + (35 + 90 + 70) - 5 - 10,
                         breakdown(canasta_natural=500, canasta_sevens=2500, red_threes=100, incomplete_melds=-2000,
                                   melded=35 + 90 + 70, hand=-15))


def test_a2_pure_aces_penalty_but_not_for_mixed_aces(scorer: Any) -> None:
    pos = a2()
    pos["teams"][1]["melds"] = ["A A A"]
    pos["teams"][1]["hands"][1] = ["4"]
    assert scorer(pos)[1] == (-100 - 2500 - 60 - 10 - 5,
                              breakdown(black_threes=-100, incomplete_melds=-2500, melded=-60, hand=-15))
    pos["teams"][1]["melds"] = ["A A A 2"]  # wilds on aces (laid in the opening): an ordinary meld, no penalty
    assert scorer(pos)[1] == (-100 - 80 - 15, breakdown(black_threes=-100, melded=-80, hand=-15))
    pos["teams"][1]["melds"] = ["A A A A A 2 2"]  # a mixed aces canasta: 300, not 2500
    assert scorer(pos)[1] == (0 + 300 + 140 - 15, breakdown(canasta_mixed=300, melded=140, hand=-15))


def test_a4_four_jokers_need_every_joker_of_the_pack(scorer: Any) -> None:
    """With 3 decks (6 jokers) four jokers are not 'all the jokers': the wild canasta is 'other' (2000)."""
    scores = scorer(with_rules(a4(), decks=3))
    assert scores[0] == (3425 - 500, {**A4_A, "canasta_wild": 2000})


def test_three_left_in_hand_costs_100(scorer: Any) -> None:
    """A-AM-11: any three left in hand counts -100, red or black (a three kept before opening)."""
    pos = a2()
    pos["teams"][1]["hands"][0] = ["J", "R3"]
    pos["teams"][1]["hands"][1] = ["B3", "4"]
    assert scorer(pos)[1] == (-100 - 65 - (10 + 100) - (100 + 5),
                              breakdown(black_threes=-100, melded=-65, hand=-215))
    scores = scorer(with_rules(pos, black_three_in_hand_value=-5))
    assert scores[1][1]["hand"] == -(10 + 5 + 5 + 5)


# --------------------------------------------------------------------------- R6 / R7 through the functions
@pytest.mark.parametrize(("cards", "bonus"), [
    ((0, 7, 0), 3000), ((0, 3, 4), 2500), ((0, 5, 2), 2000), ((0, 4, 3), 2000),
])
def test_r6_canasta_bonus(cards: tuple[int, int, int], bonus: int) -> None:
    assert canasta_bonus(am_rules(), WILD, cards) == bonus


@pytest.mark.parametrize(("canastas", "red", "black"), [(2, 500, 1000), (3, 500, 1000), (1, 0, 0), (0, -500, -1000)])
def test_r7_american_threes(canastas: int, red: int, black: int) -> None:
    rules = am_rules()
    assert american_threes(rules, 3, canastas) == red
    assert american_threes(rules, 4, canastas) == black
    assert red + black == {2: 1500, 3: 1500, 1: 0, 0: -1500}[canastas]


@pytest.mark.parametrize(("count", "value"), [(0, 0), (1, 100), (2, 300), (3, 500), (4, 1000)])
def test_threes_table(count: int, value: int) -> None:
    assert american_threes(am_rules(), count, 2) == value
    assert american_threes(am_rules(), count, 0) == -value


# --------------------------------------------------------------------------- Americana position input
def test_a3_round_trips() -> None:
    rules, teams = parse_position(a3())
    assert teams[0].special_hand == "STRAIGHT" and teams[0].went_out
    assert (teams[0].red_threes, teams[0].black_threes) == (1, 1)
    doc = position_to_json(rules, teams)
    assert doc["teams"][0]["special_hand"] == "STRAIGHT" and doc["teams"][0]["threes"] == ["R3", "B3"]
    assert parse_position(json.loads(json.dumps(doc))) == (rules, teams)


def test_a1_round_trips() -> None:
    rules, teams = parse_position(a1())
    assert (teams[0].red_threes, teams[0].black_threes) == (2, 1)
    assert parse_position(json.loads(json.dumps(position_to_json(rules, teams)))) == (rules, teams)


def test_special_hand_team_may_omit_melds_and_hands() -> None:
    pos = a3()
    pos["teams"][0] = {"special_hand": "pairs_natural"}
    rules, teams = parse_position(pos)
    assert teams[0].special_hand == "PAIRS_NATURAL" and teams[0].melds == ()
    assert len(teams[0].hands) == 2 and all(sum(h) == 0 for h in teams[0].hands)
    assert score_deal(rules, teams)[0]["total"] == 2500


@pytest.mark.parametrize(("team_a", "needle"), [
    ({"special_hand": "FLUSH"}, "bad special_hand 'FLUSH'; allowed: STRAIGHT, PAIRS_NATURAL"),
    ({"special_hand": 3}, "bad special_hand"),
    ({"special_hand": "STRAIGHT", "went_out": False}, "'went_out' must be true"),
    ({"special_hand": "STRAIGHT", "melds": ["K K K"], "hands": [[], []]}, "special_hand_requires_team_unopened"),
])
def test_bad_special_hands(team_a: dict[str, Any], needle: str) -> None:
    pos = a3()
    pos["teams"][0] = team_a
    with pytest.raises(PositionError, match=needle):
        parse_position(pos)


def test_special_hand_must_be_in_the_rules() -> None:
    pos = with_rules(a3("GARBAGE"), special_hands="STRAIGHT")
    with pytest.raises(PositionError, match="bad special_hand 'GARBAGE'; allowed: STRAIGHT"):
        parse_position(pos)
    pos = a3()
    pos["variant"] = "classic"
    pos["teams"][1]["melds"] = ["J J J J J J J"]
    with pytest.raises(PositionError, match="special_hand"):
        parse_position(pos)


def test_special_hand_with_melds_when_the_knob_allows_it() -> None:
    pos = with_rules(a3(), special_hand_requires_team_unopened=False)
    pos["teams"][0]["melds"] = ["K K K"]
    rules, teams = parse_position(pos)
    assert score_deal(rules, teams)[0]["total"] == 3000


def test_black_threes_only_where_threes_are_scored_by_colour() -> None:
    pos = a1()
    pos["variant"] = "classic"
    pos["teams"][0]["melds"] = ["K K K K K K K"]
    pos["teams"][1]["melds"] = []
    pos["teams"][1]["hands"][0] = ["5"]
    with pytest.raises(PositionError, match="B3 cannot be laid as a bonus three .* allowed: R3"):
        parse_position(pos)
    pos["teams"][0]["threes"] = ["R3"]
    pos["teams"][1]["hands"][1] = ["R3"]
    with pytest.raises(PositionError, match="holds a red three"):
        parse_position(pos)


def test_black_threes_count_against_the_pack() -> None:
    pos = threes([])
    pos["teams"][1]["threes"] = ["B3"]
    with pytest.raises(PositionError, match="5 cards of rank B3"):
        parse_position(pos)


@pytest.mark.parametrize(("meld", "needle"), [
    ("5 5 2 2 JK", "wild_rule=AMERICAN"),  # R2: W = 3
    ("K K K K 2 2 2", "wild_rule=AMERICAN"),
    ("7 7 7 2", "sevens_wilds_allowed=false"),
    ("2 2", "at least 3 wild cards"),
    ("2 2 2 2 2 2 JK JK", "meld_max_size=7"),
    ("Q Q Q Q Q Q Q Q", "meld_max_size=7"),
])
def test_illegal_americana_melds(meld: str, needle: str) -> None:
    pos = a2()
    pos["teams"][1]["melds"] = [meld]
    with pytest.raises(PositionError, match=needle):
        parse_position(pos)


def test_going_out_needs_two_canastas() -> None:
    pos = a2()
    pos["teams"][0]["melds"] = ["10 10 10 10 10 10 10", "8 8 8 8 8 2"]
    with pytest.raises(PositionError, match="go_out_requirement=ANY:2"):
        parse_position(pos)


# --------------------------------------------------------------------------- R5: taking the pile onto a meld
def r5_table(meld_cards: int) -> Any:
    """Seat 0 (team 0) opens on turn 1 with a J meld of ``meld_cards`` cards; seat 1 discards a J on turn 2.

    Seat 2 (seat 0's partner) holds J J and is about to play turn 3. 8 jacks in the pack: 5 + 1 + 2 (or 4 + 1 + 2).
    """
    opening = [meld("J", meld_cards)] + ([meld("K", 3)] if meld_cards < 5 else [])  # J x4 = 40 < 50: add K K K
    hands = {0: "J " * meld_cards + "K K K 4", 1: "J 9", 2: "J J 5 6"}
    st = am_deal_state(hands=hands)
    s0 = Scripted(melds={1: opening}, discards={1: "4"})
    s1 = Scripted(discards={2: "J"})
    s2 = Scripted(draws={3: take("J", 2)})
    return am_play(st, players({0: s0, 1: s1, 2: s2}), 2)


def test_r5_five_card_meld_cannot_take_the_pile() -> None:
    table = r5_table(5)
    st = table.st
    assert st.melds[0][JACK] == [5, 0, 0] and st.pile[-1] == JACK and st.hands[2][JACK] == 2
    err = take_error(st, 2, TakePile(Meld(JACK, 2)))
    assert err == "meld of 8 cards exceeds meld_max_size=7"  # 5 + 2 + the top card = 8 > 7
    with pytest.raises(IllegalDecision, match="exceeds meld_max_size=7"):
        table.step(1)


def test_r5_four_card_meld_takes_the_pile() -> None:
    table = r5_table(4)
    st = table.st
    assert st.melds[0][JACK] == [4, 0, 0]
    assert take_error(st, 2, TakePile(Meld(JACK, 2))) is None
    pile_below = len(st.pile) - 1
    size_before = st.hand_sizes[2]
    table.step(1)
    assert st.melds[0][JACK] == [7, 0, 0] and st.canastas[0]["NATURAL"] == 1
    # seat 2 melds 2 jacks, gets the rest of the pile (4 from turn 1), then discards one card
    assert pile_below == 1 and st.hand_sizes[2] == size_before - 2 + 1 - 1


def test_r5_without_the_cap_the_pair_takes_onto_five() -> None:
    table = r5_table(5)
    st = table.st
    st.rules = am_rules(meld_max_size=None)  # the rest of the deal is not played
    assert take_error(st, 2, TakePile(Meld(JACK, 2))) is None


# --------------------------------------------------------------------------- A5: game target 8500
RULES = am_rules()


@pytest.mark.parametrize(("comparison", "totals", "expected"), [
    ("GT", [8500, 3000], (False, -1)),  # A5 default: exactly 8500 is not "más de 8500"
    ("GE", [8500, 3000], (True, 0)),  # A5 with target_comparison = GE
    ("GT", [3000, 8500], (False, -1)),
    ("GE", [3000, 8500], (True, 1)),
    ("GT", [8501, 3000], (True, 0)),
    ("GT", [8499, 8501], (True, 1)),
    ("GE", [8499, 2000], (False, -1)),
    ("GT", [9000, 9000], (False, -1)),  # a tie above the target: another deal (A-X-3)
])
def test_a5_game_outcome(comparison: str, totals: list[int], expected: tuple[bool, int]) -> None:
    rules = am_rules(target_comparison=comparison)
    assert (rules.game_target, rules.max_hands) == (8500, None)
    assert game_outcome(rules, totals, 3) == expected


def test_a5_default_is_gt() -> None:
    assert RULES.target_comparison == "GT"
    assert game_outcome(RULES, [8500, 0], 1) == (False, -1)


@pytest.mark.parametrize(("comparison", "deals", "totals"), [
    ("GT", 3, [8600, 200]),  # 8500 after two deals is not enough: a third deal is played
    ("GE", 2, [8500, 100]),
])
def test_a5_play_game_stops_at_the_target(comparison: str, deals: int, totals: list[int]) -> None:
    per_deal = [[4000, 0], [4500, 100], [100, 100], [0, 0]]
    with mock.patch.object(simcli.engine.game, "Deal", fake_deal(per_deal)):
        result = play_game(am_rules(target_comparison=comparison), ["x"] * 4, 7, 0,
                           strategies=players())
    assert (len(result.deals), result.totals, result.winner_team) == (deals, totals, 0)
