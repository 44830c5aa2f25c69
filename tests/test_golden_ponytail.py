"""Golden tests for Ponytail Canasta: RULES.md §5.2 (P1–P3), §5.0 R8 and the bonus table of §2.2.

Every expected number was worked out by hand from RULES.md §1.3 (card values), §1.12 (the scoring algorithm), the
§2.2 bonus table (going out 200; canastas natural 500, mixed 300, wild 1000, sevens 1500; red three 100; exact cut
100) and A-PT-15 (an unpicked pony counts against its owner's team at card value, R3 and B3 -100 each). Nothing is
computed by the code under test. P1 and P2 are scored through the Python API (``parse_position`` + ``score_deal``)
and through ``simcli score --json``; P3 goes through ``game_outcome``, ``play_game`` and ``simcli play``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from click.testing import CliRunner
from helpers_ponytail import DEALER, pony_deal_state, pt_rules
from scoring_paths import fake_deal, with_rules

import simcli.engine.game
from simcli.cli import main
from simcli.engine.game import game_outcome
from simcli.engine.scoring import SCORE_PARTS
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.positions.reader import PositionError, parse_position
from simcli.positions.writer import position_to_json
from simcli.primitives.cards import JOKER, NINE, RED_THREE, SEVEN, parse_cards
from simcli.rules.presets import load_rules

#: The score parts a Ponytail deal uses (RULES.md §1.12, §2.2). Other variants add parts of their own to
#: SCORE_PARTS; in a Ponytail deal those must all be 0.
PONYTAIL_PARTS = (
    "going_out", "canasta_natural", "canasta_mixed", "canasta_wild", "canasta_sevens",
    "red_threes", "exact_cut", "pony_dealer_exact", "melded", "hand", "pony",
)
PARTS = tuple(SCORE_PARTS)


def breakdown(**nonzero: int) -> dict[str, int]:
    """An expected full breakdown: every part of SCORE_PARTS 0 except the (Ponytail) ones given."""
    assert set(nonzero) <= set(PONYTAIL_PARTS)
    return {p: nonzero.get(p, 0) for p in PARTS}


# --------------------------------------------------------------------------- golden positions (§5.2)
def p1() -> dict[str, Any]:
    """P1 — N (team A) goes out by discarding with the four required canastas; team A won the exact cut."""
    return {
        "variant": "ponytail",
        "teams": [
            {"melds": ["Q Q Q Q Q Q Q", "9 9 9 9 9 2 JK", "2 2 2 2 JK JK JK", "7 7 7 7 7 7 7", "10 10 10"],
             "threes": ["R3", "R3", "R3"], "hands": [[], ["B3", "K"]], "went_out": True, "exact_cut": True},
            {"melds": ["J J J J J J J", "8 8 8 2"], "threes": ["R3"],
             "hands": [["JK", "A", "B3"], ["4", "4", "6"]]},
        ],
    }


#: E's and W's unpicked ponies in P2 (160 and 65 points).
E_PONY = "K K Q J 10 9 8 7 6 5 4 A JK"
W_PONY = "4 4 4 4 4 4 4 4 4 4 4 4 4"


def p2() -> dict[str, Any]:
    """P2 — the stock ran out; team B never made a canasta, so neither of its ponies was picked up."""
    return {
        "variant": "ponytail",
        "teams": [
            {"melds": ["A A A A A A A", "6 6 6 6 6 2 2", "5 5 5"], "threes": ["R3", "R3"],
             "hands": [["K", "9"], ["B3"]]},
            {"melds": [], "threes": ["R3"], "hands": [["8", "8", "2"], ["Q", "7"]],
             "ponies": [E_PONY, W_PONY]},
        ],
    }


P1_A = breakdown(
    going_out=200,
    canasta_natural=500, canasta_mixed=300, canasta_wild=1000, canasta_sevens=1500,
    red_threes=300, exact_cut=100,
    melded=70 + 120 + 230 + 35 + 30,  # Q x7; 9 x5 + 2 + JK; 2 x4 + JK x3; 7 x7; 10 x3 = 485
    hand=-(100 + 10),  # S: B3 (-100) and K
)
P1_B = breakdown(
    canasta_natural=500, red_threes=100,
    melded=70 + 50,  # J x7; 8 8 8 2
    hand=-(50 + 20 + 100) - (5 + 5 + 5),  # E: JK A B3; W: 4 4 6
)
P2_A = breakdown(canasta_natural=500, canasta_mixed=300, red_threes=200,
                 melded=140 + 65 + 15,  # A x7; 6 x5 + 2 + 2; 5 5 5
                 hand=-(10 + 10) - 100)  # N: K 9; S: B3
P2_B = breakdown(red_threes=100,  # never negative in Ponytail (A-PT-14)
                 hand=-(10 + 10 + 20) - (10 + 5),  # E: 8 8 2; W: Q 7
                 pony=-(10 + 10 + 10 + 10 + 10 + 10 + 10 + 5 + 5 + 5 + 5 + 20 + 50) - 13 * 5)  # 160 + 65

#: name -> (position, expected (total, breakdown) per team)
GOLDEN = {
    "P1": (p1, [(4275, P1_A), (535, P1_B)]),
    "P2": (p2, [(1100, P2_A), (-180, P2_B)]),
    "P2_pony_not_counted": (lambda: with_rules(p2(), unpicked_pony_counts_against=False),
                            [(1100, P2_A), (45, {**P2_B, "pony": 0})]),
}


def test_score_parts_include_the_ponytail_ones() -> None:
    assert set(PONYTAIL_PARTS) <= set(SCORE_PARTS)
    assert [p for p in SCORE_PARTS if p in PONYTAIL_PARTS] == list(PONYTAIL_PARTS)  # in the documented order


def test_expected_breakdowns_add_up_to_the_rules_md_totals() -> None:
    """The hand-written breakdowns above match the totals printed in RULES.md §5.2."""
    assert sum(P1_A.values()) == 4275 and sum(P1_B.values()) == 535
    assert sum(P2_A.values()) == 1100 and sum(P2_B.values()) == -180
    assert P2_B["pony"] == -225 and sum(P2_B.values()) - P2_B["pony"] == 45


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_golden(case: str, scorer: Any) -> None:
    make, expected = GOLDEN[case]
    assert scorer(make()) == expected


def test_p2_position_round_trips() -> None:
    rules, teams = parse_position(p2())
    doc = position_to_json(rules, teams)
    assert doc["teams"][1]["ponies"] == [["A", "K", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "JK"],
                                         ["4"] * 13]
    assert parse_position(json.loads(json.dumps(doc))) == (rules, teams)


# --------------------------------------------------------------------------- the §2.2 bonus table, part by part
@pytest.mark.parametrize(("knob", "part", "value"), [
    ("going_out_bonus", "going_out", 350),
    ("canasta_bonus.natural", "canasta_natural", 700),
    ("canasta_bonus.mixed", "canasta_mixed", 400),
    ("canasta_bonus.wild", "canasta_wild", 2500),  # PIERSON's value (A-PT-9)
    ("canasta_bonus.sevens", "canasta_sevens", 2000),
    ("exact_cut_bonus", "exact_cut", 50),
])
def test_p1_bonus_knobs(scorer: Any, knob: str, part: str, value: int) -> None:
    scores = scorer(with_rules(p1(), **{knob: value}))
    assert scores[0][1] == {**P1_A, part: value}
    assert scores[0][0] == 4275 - P1_A[part] + value
    # team B only has a natural canasta
    assert scores[1][0] == 535 + (value - 500 if knob == "canasta_bonus.natural" else 0)


def test_p1_red_three_value(scorer: Any) -> None:
    scores = scorer(with_rules(p1(), red_three_value=150))
    assert [p["red_threes"] for _, p in scores] == [450, 150]
    assert [t for t, _ in scores] == [4275 + 150, 535 + 50]


def test_p2_red_three_never_negative_unless_knob(scorer: Any) -> None:
    scores = scorer(with_rules(p2(), red_three_negative_if="NO_CANASTA"))
    assert scores[1][1]["red_threes"] == -100 and scores[1][0] == -180 - 200
    assert scores[0][0] == 1100


def test_p2_black_three_in_hand_value(scorer: Any) -> None:
    scores = scorer(with_rules(p2(), black_three_in_hand_value=-5))  # the Classic value
    assert scores[0][1]["hand"] == -(20 + 5) and scores[0][0] == 1100 + 95


def test_pony_dealer_exact_bonus(scorer: Any) -> None:
    pos = p2()
    pos["teams"][0]["pony_dealer_exact"] = True
    assert [t for t, _ in scorer(pos)] == [1100, -180]  # preset: 0
    scores = scorer(with_rules(pos, pony_dealer_exact_bonus=50))  # VAGTS house rule
    assert scores[0][1] == {**P2_A, "pony_dealer_exact": 50}
    assert [t for t, _ in scores] == [1150, -180]


def test_unpicked_pony_red_and_black_threes_count_100_each(scorer: Any) -> None:
    """A-PT-15: a R3 in an unpicked pony counts -100 (its bonus value), a B3 -100 (its hand value)."""
    pos = p2()
    pos["teams"][1]["ponies"][1] = "R3 B3 4 4 4 4 4 4 4 4 4 4 4"
    scores = scorer(pos)
    assert scores[1][1]["pony"] == -160 - (100 + 100 + 11 * 5)
    assert scores[1][0] == 100 - 55 - 160 - 255


def test_unpicked_pony_of_one_member_only(scorer: Any) -> None:
    pos = p2()
    pos["teams"][1]["ponies"] = [W_PONY]
    scores = scorer(pos)
    assert scores[1][1]["pony"] == -65 and scores[1][0] == 100 - 55 - 65


# --------------------------------------------------------------------------- position validation (Ponytail)
def _p1_without(meld: str) -> dict[str, Any]:
    pos = p1()
    pos["teams"][0]["melds"].remove(meld)
    return pos


@pytest.mark.parametrize("missing", ["Q Q Q Q Q Q Q", "9 9 9 9 9 2 JK", "2 2 2 2 JK JK JK", "7 7 7 7 7 7 7"])
def test_going_out_needs_all_four_canasta_types(missing: str) -> None:
    with pytest.raises(PositionError, match="go_out_requirement"):
        parse_position(_p1_without(missing))
    # with a knob value that does not ask for that type, the same position is fine
    kind = {"Q": "NATURAL", "9": "MIXED", "2": "WILD", "7": "SEVENS"}[missing[0]]
    rest = ",".join(f"{k}:1" for k in ("NATURAL", "MIXED", "WILD", "SEVENS") if k != kind)
    parse_position(with_rules(_p1_without(missing), go_out_requirement=rest))


@pytest.mark.parametrize(("meld", "needle"), [
    ("Q Q Q Q Q Q Q Q", "meld_max_size=7"),  # canastas are closed at 7
    ("6 6 2 2", "STRICT_MAJORITY"),  # R1: N > W
    ("6 6 6 2 2 2", "STRICT_MAJORITY"),
    ("2 2", "at least 3 wild cards"),
])
def test_illegal_ponytail_melds(meld: str, needle: str) -> None:
    pos = p2()
    pos["teams"][1]["melds"] = [meld]
    with pytest.raises(PositionError, match=needle):
        parse_position(pos)


def test_legal_ponytail_melds_score(scorer: Any) -> None:
    pos = p2()
    pos["teams"][1]["melds"] = ["6 6 6 2 2", "2 2 JK", "7 7 7 7 2 2 JK"]  # 5 + mixed sevens canasta
    scores = scorer(pos)
    assert scores[1][1]["canasta_sevens"] == 1500  # a mixed sevens canasta is still SEVENS (A-PT-16)
    assert scores[1][1]["melded"] == (15 + 40) + (40 + 50) + (20 + 40 + 50)
    assert scores[1][1]["canasta_mixed"] == 0


@pytest.mark.parametrize(("pony", "needle"), [
    ("4 4 4", "exactly pony_size=13"),
    (E_PONY + " 5", "exactly pony_size=13"),
])
def test_pony_must_be_whole(pony: str, needle: str) -> None:
    pos = p2()
    pos["teams"][1]["ponies"] = [pony]
    with pytest.raises(PositionError, match=needle):
        parse_position(pos)


def test_ponies_need_a_pony_variant() -> None:
    pos = p2()
    pos["variant"] = "classic"
    pos["teams"][0]["melds"] = ["A A A A A A A"]
    with pytest.raises(PositionError, match="pony_size=0"):
        parse_position(pos)


def test_three_ponies_for_a_team_of_two_rejected() -> None:
    pos = p2()
    pos["teams"][1]["ponies"] = [W_PONY, W_PONY, W_PONY]
    with pytest.raises(PositionError, match="ponies"):
        parse_position(pos)


def test_cli_rejects_p1_without_the_wild_canasta(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_p1_without("2 2 2 2 JK JK JK")), encoding="utf-8")
    result = CliRunner().invoke(main, ["score", "--json", str(path)])
    assert result.exit_code == 1 and "go_out_requirement" in result.stderr and result.stdout == ""


# --------------------------------------------------------------------------- P3: end of the game
RULES = load_rules("ponytail")


@pytest.mark.parametrize(("totals", "deals", "expected"), [
    ([23_450, 24_100], 4, (True, 1)),  # P3: max_hands = 4 -> over, B wins
    ([24_100, 23_450], 4, (True, 0)),
    ([23_450, 24_100], 3, (False, -1)),  # nobody at 50,000 and deals left
    ([50_120, 20_000], 2, (True, 0)),  # P3: A reaches 50,000 -> over at once
    ([20_000, 50_000], 1, (True, 1)),  # GE: exactly 50,000 is enough
    ([49_999, 49_990], 3, (False, -1)),
    ([24_000, 24_000], 4, (True, -1)),  # a tie after max_hands: shared win
    ([50_000, 50_000], 2, (False, -1)),  # a tie before max_hands: another deal
    ([50_500, 50_200], 2, (True, 0)),  # both above: the higher total wins
])
def test_p3_game_outcome(totals: list[int], deals: int, expected: tuple[bool, int]) -> None:
    assert game_outcome(RULES, totals, deals) == expected


def test_game_outcome_knobs() -> None:
    assert game_outcome(load_rules("ponytail", {"target_comparison": "GT"}), [50_000, 10], 2) == (False, -1)
    assert game_outcome(load_rules("ponytail", {"max_hands": None}), [23_450, 24_100], 4) == (False, -1)
    assert game_outcome(load_rules("ponytail", {"max_hands": 6}), [23_450, 24_100], 4) == (False, -1)
    tie_again = load_rules("ponytail", {"tie_policy": "PLAY_ANOTHER_DEAL"})
    assert game_outcome(tie_again, [24_000, 24_000], 4) == (False, -1)
    assert game_outcome(tie_again, [24_000, 24_100], 5) == (True, 1)
    three = load_rules("ponytail", {"num_players": 6})
    assert game_outcome(three, [30_000, 31_000, 29_000], 4) == (True, 1)
    assert game_outcome(three, [31_000, 31_000, 29_000], 4) == (True, -1)


P3_GAMES = {
    # deal scores per deal -> (deals played, final totals, winner, line printed by `simcli play`)
    "B by 650 after 4": ([[5000, 6000], [6000, 6000], [6200, 6000], [6250, 6100]],
                         (4, [23_450, 24_100], 1, "winner: team 1 by 650 after 4 deals")),
    "A at 50,120 after 2": ([[25_000, 1000], [25_120, 1000], [0, 0], [0, 0]],
                            (2, [50_120, 2000], 0, "winner: team 0 by 48120 after 2 deals")),
    "tie after 4": ([[6000, 5000], [6000, 7000], [6000, 6000], [6000, 6000]],
                    (4, [24_000, 24_000], -1, "shared win at [24000, 24000] after 4 deals")),
    "tie at 50,000 after 2": ([[25_000, 20_000], [25_000, 30_000], [100, 0], [0, 0]],
                              (3, [50_100, 50_000], 0, "winner: team 0 by 100 after 3 deals")),
}


@pytest.mark.parametrize("case", sorted(P3_GAMES))
def test_p3_play_game_stops_as_game_outcome_says(case: str) -> None:
    per_deal, (deals, totals, winner, _) = P3_GAMES[case]
    with mock.patch.object(simcli.engine.game, "Deal", fake_deal(per_deal)):
        result = play_game(RULES, ["greedy"] * 4, 7, 0)
    assert (len(result.deals), result.totals, result.winner_team) == (deals, totals, winner)


@pytest.mark.parametrize("case", sorted(P3_GAMES))
def test_p3_through_simcli_play(case: str) -> None:
    per_deal, (deals, _, _, line) = P3_GAMES[case]
    with mock.patch.object(simcli.engine.game, "Deal", fake_deal(per_deal)):
        result = CliRunner().invoke(main, ["play", "--variant", "ponytail", "--seed", "7"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert sum(1 for x in lines if x.startswith("deal ")) == deals
    assert lines[-1].startswith(line)


# --------------------------------------------------------------------------- §5.0 R8: the starting upcard
@pytest.mark.parametrize(("upcards", "frozen"), [
    ("JK 7 9", True),  # R8
    ("7 9", True),  # a 7 upcard freezes (S0)
    ("2 9", True),
    ("JK 2 7 7 K", True),
    ("R3 9", False),  # A-PT-17: a R3 or B3 upcard is covered but does not freeze
    ("B3 9", False),
    ("B3 R3 9", False),
    ("R3 7 9", True),
    ("9", False),
])
def test_r8_upcard_sequence(upcards: str, frozen: bool) -> None:
    st = pony_deal_state(upcards=upcards)
    turned = parse_cards(upcards)
    assert st.pile == turned and st.upcards == turned
    assert st.pile_frozen is frozen
    view = PlayerView(st, 0)
    assert view.pile_top == turned[-1] and view.pile_size == len(turned)
    # every team is frozen anyway before it opens (frozen_until_team_opens)
    assert st.frozen_for(0) and st.frozen_for(1)
    st.opened[0] = True
    assert st.frozen_for(0) is frozen


def test_r8_jk_7_9_in_detail() -> None:
    st = pony_deal_state(upcards="JK 7 9")
    assert st.pile == [JOKER, SEVEN, NINE]  # JK at the bottom, 7 on it, 9 on top
    assert st.pile[-1] == NINE and st.pile_frozen
    # the stock is the rest of the pack: 6 decks, 4 hands of 15, 4 ponies of 13, 3 upcards
    assert len(st.stock) == 6 * 54 - 4 * 15 - 4 * 13 - 3
    assert st.hand_sizes == [15] * 4 and [sum(p) for p in st.ponies] == [13] * 4


def test_a_covered_red_three_stays_in_the_pile() -> None:
    st = pony_deal_state(upcards="R3 9")
    assert st.red_threes == [0, 0] and st.pile[0] == RED_THREE


def test_exact_cut_target_is_15_p_plus_1() -> None:
    st = pony_deal_state(cut_count=61)
    assert (st.cut_target, st.exact_cut) == (61, True)
    assert st.cutter == (DEALER - 1) % 4  # the player to the dealer's right cuts
    assert st.exact_cut_team == st.team_of[st.cutter] == 0
    assert pony_deal_state(cut_count=60).exact_cut is False
    six = pt_rules(num_players=6)
    assert six.decks == 8
    st6 = pony_deal_state(six, cut_count=91)
    assert (st6.cut_target, st6.exact_cut) == (91, True)
