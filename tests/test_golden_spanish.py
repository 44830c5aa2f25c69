"""Golden tests for Spanish Canasta (juego): RULES.md §5.4 (E1-E3) and §5.0 R9, plus the Spanish position keys.

Every expected number was worked out by hand from RULES.md §1.3 (card values: JK 50, A and 2 20, K..8 10, 7..4 5,
a black three in hand -100 in Spanish), §1.12 (the scoring algorithm: B +- M - H) and the §2.4 table (closing 200;
*limpia* 500, *sucia* 300, hidden 1000 replacing 500/300, wild *sucia* 2000, wild *limpia* 3000; 5 canastas +500,
7 canastas +2000, cumulative; red threes 100 each, all four 800, all eight 1000 with 4 decks; exact cut 100 and
exact pick 700; red threes, exact cut and exact pick negated without a canasta; melded points negative without a
canasta; corte rapido 300; terremoto 0). Nothing is computed by the code under test. Scored positions go through the
Python API (``parse_position`` + ``score_deal``) and through ``simcli score --json`` (the ``scorer`` fixture); R9
goes through a stacked deal (``new_deal``), ``PlayerView.check_take`` and a played turn.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import Scripted, meld, take
from helpers_spanish import es_deal_state, es_rules, es_table
from scoring_paths import breakdown, with_rules

from simcli.engine.game import game_outcome
from simcli.engine.judge import take_error
from simcli.engine.view import PlayerView
from simcli.positions.reader import PositionError, parse_position
from simcli.positions.writer import position_to_json
from simcli.primitives.cards import ACE, EIGHT, KING, SIX


# --------------------------------------------------------------------------- §5.4 positions
def e1() -> dict[str, Any]:
    """E1 — pairs: N (team A) closes; A's dealer cut exactly; team B has no canasta."""
    return {
        "variant": "spanish",
        "teams": [
            {"melds": ["10 10 10 10 10 10 10", "K K K K K 2 JK", "A A A"], "threes": ["R3", "R3"],
             "hands": [[], ["5", "8"]], "went_out": True, "exact_cut": True},
            {"melds": ["Q Q Q 2"], "threes": ["R3"], "hands": [["JK", "9"], ["B3"]]},
        ],
    }


E1_A = breakdown(
    going_out=200,
    canasta_natural=500, canasta_mixed=300,  # limpia 10 x7; sucia K x5 + 2 + JK
    red_threes=200, exact_cut=100,
    melded=70 + (50 + 20 + 50) + 60,  # 10 x7; K x5 + 2 + JK; A A A
    hand=-(5 + 10),  # S: 5 8
)
E1_B = breakdown(
    red_threes=-100,  # no canasta: negative
    melded=-(30 + 20),  # Q Q Q 2, negative with no canasta
    hand=-(50 + 10) - 100,  # E: JK 9; W: B3 (-100 in Spanish)
)


def e2() -> dict[str, Any]:
    """E2 — team A (the other side closed): five canastas, one hidden and one wild.

    Team B's side is ours (RULES.md gives only A): E closed with *limpia* A x7 and *sucia* K x6 + 2, one red three;
    W holds a 5. By hand: closing 200 + 500 + 300 + 100 (R3) + melded (140 + 60 + 20) - 5 = 1315.
    Cards: A uses 6x7, J x7, 9 x7, 4 x5, five 2s and all four jokers; B uses 8 aces, 6 kings and one 2 of 8.
    """
    return {
        "variant": "spanish",
        "teams": [
            {"hidden_canastas": ["6 6 6 6 6 6 6"],
             "melds": ["J J J J J J J", "9 9 9 9 9 9 9", "4 4 4 4 4 2 JK", "2 2 2 2 JK JK JK"],
             "hands": [["7"], ["Q"]]},
            {"melds": ["A A A A A A A", "K K K K K K 2"], "threes": ["R3"], "hands": [[], ["5"]], "went_out": True},
        ],
    }


E2_A = breakdown(
    canasta_hidden=1000,  # 6 x7 laid from the hand at once: 1000 replaces the 500 (A-ES-12)
    canasta_natural=500 + 500,  # J x7, 9 x7
    canasta_mixed=300,  # 4 x5 + 2 + JK
    canasta_wild=2000,  # 2 x4 + JK x3: wild sucia
    canasta_count=500,  # five canastas
    melded=35 + 70 + 70 + (25 + 20 + 50) + (80 + 150),
    hand=-(5 + 10),  # N: 7; S: Q
)
E2_B = breakdown(going_out=200, canasta_natural=500, canasta_mixed=300, red_threes=100,
                 melded=140 + (60 + 20), hand=-5)


def e3() -> dict[str, Any]:
    """E3 — team B's dealer cut exactly but B made no canasta; team A closes."""
    return {
        "variant": "spanish",
        "teams": [
            {"melds": ["A A A A A A A", "5 5 5 5 2 2 JK"], "hands": [[], ["10"]], "went_out": True},
            {"melds": ["8 8 8"], "hands": [["4"], ["6"]], "exact_cut": True},
        ],
    }


E3_A = breakdown(going_out=200, canasta_natural=500, canasta_mixed=300,
                 melded=140 + (20 + 40 + 50), hand=-10)
E3_B = breakdown(exact_cut=-100, melded=-30, hand=-(5 + 5))

#: name -> (position, expected (total, breakdown) per team)
GOLDEN: dict[str, tuple[Any, list[tuple[int, dict[str, int]]]]] = {
    "E1": (e1, [(1535, E1_A), (-310, E1_B)]),
    "E2": (e2, [(5285, E2_A), (1315, E2_B)]),
    "E3": (e3, [(1240, E3_A), (-140, E3_B)]),
}


def test_expected_breakdowns_add_up_to_the_rules_md_totals() -> None:
    """The hand-written breakdowns match the totals printed in RULES.md §5.4."""
    assert sum(E1_A.values()) == 1535 and sum(E1_B.values()) == -310
    assert sum(E2_A.values()) == 5285 and sum(E2_B.values()) == 1315
    assert sum(E3_A.values()) == 1240 and sum(E3_B.values()) == -140
    for _, expected in GOLDEN.values():
        for total, parts in expected:
            assert sum(parts.values()) == total


@pytest.mark.parametrize("case", list(GOLDEN))
def test_golden(case: str, scorer: Any) -> None:
    """RULES.md §5.4 E1, E2, E3: every score part and the totals, through the API and the CLI."""
    make, expected = GOLDEN[case]
    assert scorer(make()) == expected


# --------------------------------------------------------------------------- E1-E3 variations (knobs)
def test_e1_with_a_canasta_team_b_threes_and_melds_turn_positive(scorer: Any) -> None:
    """§1.12 steps 5-6: B's Q meld completed to a sucia makes its red three and melded points positive."""
    pos = e1()
    pos["teams"][1]["melds"] = ["Q Q Q Q Q Q 2"]
    # +300 sucia, +100 R3, melded 60 + 20, hands as before -160
    assert scorer(pos)[1] == (300 + 100 + 80 - 160,
                              breakdown(canasta_mixed=300, red_threes=100, melded=80, hand=-160))


def test_e1_black_three_in_hand_value_knob(scorer: Any) -> None:
    """A-ES-17: the -100 for W's black three is the black_three_in_hand_value knob (Classic value -5)."""
    assert scorer(with_rules(e1(), black_three_in_hand_value=-5))[1] == (-310 + 95, {**E1_B, "hand": -65})


@pytest.mark.parametrize(("requires", "exact_cut"), [("NEGATE", -100), ("VOID", 0), ("NO", 100)])
def test_e3_exact_cut_without_a_canasta(scorer: Any, requires: str, exact_cut: int) -> None:
    """E3 under exact_cut_requires_canasta: NEGATE (preset, S2 'solo serán positivos si hace una canasta'),
    VOID, NO. bonuses_require_canasta is set to NO so only the cut knob speaks."""
    scores = scorer(with_rules(e3(), exact_cut_requires_canasta=requires, bonuses_require_canasta="NO"))
    assert scores[1] == (-40 + exact_cut, {**E3_B, "exact_cut": exact_cut})


def test_e2_hidden_canasta_mode_add(scorer: Any) -> None:
    """A-ES-12 knob: hidden_canasta_mode=ADD pays the 1000 on top of the natural 500."""
    scores = scorer(with_rules(e2(), hidden_canasta_mode="ADD"))
    assert scores[0] == (5285 + 500, {**E2_A, "canasta_natural": 1500})


def test_e2_hidden_canasta_bonus_knob(scorer: Any) -> None:
    """M4S values the oculta at 500: hidden_canasta_bonus=500 (REPLACE) gives 500 instead of 1000."""
    scores = scorer(with_rules(e2(), hidden_canasta_bonus=500))
    assert scores[0] == (5285 - 500, {**E2_A, "canasta_hidden": 500})


def test_e2_five_canasta_bonus_knob(scorer: Any) -> None:
    assert scorer(with_rules(e2(), canasta_count_bonus="none"))[0] == (5285 - 500, {**E2_A, "canasta_count": 0})


def test_e2_game_ends_when_a_reaches_5000() -> None:
    """E2 note: A starting the deal on >= 0 reaches 5000 (GE) and the game ends, A winning."""
    rules = es_rules()
    assert (rules.game_target, rules.target_comparison) == (5000, "GE")
    assert game_outcome(rules, [0 + 5285, 0 + 1315], 1) == (True, 0)
    assert game_outcome(rules, [-300 + 5285, 1315], 1) == (False, -1)  # 4985 < 5000


# --------------------------------------------------------------------------- more Spanish scoring parts
def closing_team(**extra: Any) -> dict[str, Any]:
    """Team A closed with a limpia 10 x7 and a sucia K x5 + 2 + JK (no other cards): 200 + 800 + 190 = 1190."""
    return {"melds": ["10 10 10 10 10 10 10", "K K K K K 2 JK"], "hands": [[], []], "went_out": True, **extra}


def no_canasta_team(**extra: Any) -> dict[str, Any]:
    """Team B with only Q Q Q (melded -30) and nothing in hand."""
    return {"melds": ["Q Q Q"], "hands": [[], []], **extra}


BASE_A = breakdown(going_out=200, canasta_natural=500, canasta_mixed=300, melded=70 + 120)


@pytest.mark.parametrize(("flags", "parts"), [
    ({"exact_pick": True}, {"exact_pick": 700}),  # picar exacto (A-ES-1)
    ({"quick_finish": True}, {"quick_finish": 300}),  # corte rapido (A-ES-8)
    ({"terremoto": True}, {"terremoto": 0}),  # no value in S2 (A-ES-9)
    ({"exact_cut": True, "exact_pick": True, "quick_finish": True}, {"exact_cut": 100, "exact_pick": 700,
                                                                     "quick_finish": 300}),
])
def test_spanish_bonus_flags(scorer: Any, flags: dict[str, bool], parts: dict[str, int]) -> None:
    pos = {"variant": "spanish", "teams": [closing_team(**flags), no_canasta_team()]}
    expected = {**BASE_A, **parts}
    assert scorer(pos)[0] == (sum(expected.values()), expected)


def test_terremoto_bonus_knob(scorer: Any) -> None:
    pos = {"variant": "spanish", "rules": {"terremoto_bonus": 150},
           "teams": [closing_team(terremoto=True), no_canasta_team()]}
    assert scorer(pos)[0] == (1190 + 150, {**BASE_A, "terremoto": 150})


def test_exact_pick_negated_without_a_canasta(scorer: Any) -> None:
    """A-ES-10 / §1.12 step 6: the exact-pick bonus counts negative for a side with no canasta."""
    pos = {"variant": "spanish", "teams": [closing_team(), no_canasta_team(exact_pick=True)]}
    assert scorer(pos)[1] == (-700 - 30, breakdown(exact_pick=-700, melded=-30))
    pos = with_rules(pos, exact_pile_pick_bonus=0)
    assert scorer(pos)[1] == (-30, breakdown(melded=-30))


@pytest.mark.parametrize(("red", "with_canasta", "value"), [
    (1, True, 100), (3, True, 300), (4, True, 800), (4, False, -800), (2, False, -200),
])
def test_red_threes_two_decks(scorer: Any, red: int, with_canasta: bool, value: int) -> None:
    """§2.4: 100 each, all four 800 (2 decks), negative if the side has no canasta."""
    team_b = {"melds": ["J J J J J J J"] if with_canasta else ["Q Q Q"], "hands": [[], []], "threes": ["R3"] * red}
    melded = 70 if with_canasta else -30
    scores = scorer({"variant": "spanish", "teams": [closing_team(), team_b]})
    expected = breakdown(canasta_natural=500 if with_canasta else 0, red_threes=value, melded=melded)
    assert scores[1] == (sum(expected.values()), expected)


@pytest.mark.parametrize(("red", "value"), [(8, 1000), (7, 700), (4, 400)])
def test_red_threes_four_decks(scorer: Any, red: int, value: int) -> None:
    """A-ES-13: with 6 players (4 decks) all eight red threes pay 1000; four are no longer 'all' (400)."""
    teams = [closing_team(hands=[[], [], []]), {"melds": ["J J J J J J J"], "hands": [[], [], []],
                                                "threes": ["R3"] * red}]
    scores = scorer({"variant": "spanish", "rules": {"num_players": 6}, "teams": teams})
    assert scores[1] == (500 + value + 70, breakdown(canasta_natural=500, red_threes=value, melded=70))


@pytest.mark.parametrize(("canastas", "cumulative", "bonus"), [
    (4, True, 0), (5, True, 500), (6, True, 500), (7, True, 2500), (7, False, 2000), (5, False, 500),
])
def test_canasta_count_bonus(scorer: Any, canastas: int, cumulative: bool, bonus: int) -> None:
    """§2.4 / A-ES-19: 5 canastas +500, 7 canastas +2000, cumulative (7 -> 2500); the highest only if not."""
    value = {"4": 5, "5": 5, "6": 5, "7": 5, "8": 10, "9": 10, "J": 10}  # team A holds the 10s and kings
    ranks = list(value)[:canastas]
    team_b = {"melds": [" ".join([r] * 7) for r in ranks], "hands": [[], []]}
    melded = sum(7 * value[r] for r in ranks)
    pos = {"variant": "spanish", "rules": {"canasta_count_bonus_cumulative": cumulative},
           "teams": [closing_team(), team_b]}
    expected = breakdown(canasta_natural=500 * canastas, canasta_count=bonus, melded=melded)
    assert scorer(pos)[1] == (sum(expected.values()), expected)


@pytest.mark.parametrize(("cards", "part", "bonus", "points"), [
    ("2 2 2 2 2 2 2", "canasta_wild", 3000, 140),  # wild limpia: seven twos
    ("2 2 2 2 2 JK JK", "canasta_wild", 2000, 200),  # wild sucia: twos and jokers
    ("Q Q Q Q 2 2 JK", "canasta_mixed", 300, 130),  # STRICT_MAJORITY: 4 naturals > 3 wilds
])
def test_canasta_kinds(scorer: Any, cards: str, part: str, bonus: int, points: int) -> None:
    pos = {"variant": "spanish", "teams": [closing_team(), {"melds": [cards], "hands": [[], []]}]}
    assert scorer(pos)[1] == (bonus + points, breakdown(**{part: bonus, "melded": points}))


def test_seven_jokers_wild_limpia_with_four_decks(scorer: Any) -> None:
    """S2: 'de comodines limpia: 7 dos o 7 jokers (los 7 jokers son 4 mazos)' -> 3000."""
    teams = [closing_team(hands=[[], [], []]),
             {"melds": ["JK JK JK JK JK JK JK"], "hands": [[], [], []]}]
    scores = scorer({"variant": "spanish", "rules": {"num_players": 6}, "teams": teams})
    assert scores[1] == (3000 + 350, breakdown(canasta_wild=3000, melded=350))


def test_black_three_canasta_melded_when_going_out(scorer: Any) -> None:
    """'Canasta a lo gusto' (4 decks): the black threes count 5 each as melded cards (§1.12 step 3), no bonus."""
    team_a = closing_team(hands=[[], [], []])
    team_a["melds"].append("B3 B3 B3 B3 B3 B3 B3")
    scores = scorer({"variant": "spanish", "rules": {"num_players": 6},
                     "teams": [team_a, no_canasta_team(hands=[[], [], []])]})
    assert scores[0] == (1190 + 35, {**BASE_A, "melded": 190 + 35})


# --------------------------------------------------------------------------- position format: Spanish keys
def error_of(pos: dict[str, Any]) -> str:
    with pytest.raises(PositionError) as exc:
        parse_position(pos)
    msg = str(exc.value)
    assert "\n" not in msg, msg  # one-line messages
    return msg


@pytest.mark.parametrize(("hidden", "needle"), [
    (["6 6 6"], "Team A hidden canasta 1 '6 6 6': a hidden canasta is a complete canasta"),
    (["6 6 6 6 6 6"], "hidden canasta 1 '6 6 6 6 6 6': a hidden canasta is a complete canasta"),
    (["2 2 2 2 2 2 2"], "a hidden canasta is a complete canasta of one natural rank"),
    (["6 6 6 6 2 2 2 JK"], "is illegal"),  # 8 cards, 4 wilds: not even a legal meld
    (["6 6 6 2 2 2 JK"], "is illegal"),  # 3 naturals, 4 wilds: STRICT_MAJORITY
])
def test_hidden_canasta_must_be_a_complete_canasta(hidden: list[str], needle: str) -> None:
    pos = e1()
    pos["teams"][0]["hidden_canastas"] = hidden
    assert needle in error_of(pos)


def test_hidden_canasta_and_meld_of_the_same_rank() -> None:
    """One meld per rank per team (§1.4.3) holds across melds and hidden_canastas."""
    pos = e1()
    pos["teams"][0]["hidden_canastas"] = ["A A A A 2 2 JK"]  # team A also has A A A under melds (7 aces in all)
    assert "second meld of A in one team (first: 'A A A')" in error_of(pos)


def test_hidden_canastas_need_the_knob() -> None:
    pos = with_rules(e2(), hidden_canasta_bonus=None)
    msg = error_of(pos)
    assert "'hidden_canastas' given but variant 'spanish' has no hidden canastas (hidden_canasta_bonus=null)" in msg
    classic = e1()
    classic["variant"] = "classic"
    classic["teams"][0]["hidden_canastas"] = ["6 6 6 6 6 6 6"]
    assert "hidden_canasta_bonus=null" in error_of(classic)


@pytest.mark.parametrize("flag", ["quick_finish", "terremoto"])
def test_going_out_flags_need_went_out(flag: str) -> None:
    pos = e2()
    pos["teams"][0][flag] = True  # team A did not go out in E2
    assert error_of(pos) == f"Team A: '{flag}' is true but 'went_out' is false; {flag} needs went_out"


@pytest.mark.parametrize("flag", ["exact_pick", "exact_cut"])
def test_one_cut_and_one_pick_per_deal(flag: str) -> None:
    """The dealer cuts once and picks the montón once: at most one team is paid each bonus."""
    pos = e1()
    for team in pos["teams"]:
        team[flag] = True
    assert error_of(pos) == f"{flag} is true for Team A and Team B; allowed: at most one team"


@pytest.mark.parametrize("flag", ["exact_pick", "quick_finish", "terremoto", "exact_cut"])
def test_spanish_flags_must_be_booleans(flag: str) -> None:
    pos = e1()
    pos["teams"][0][flag] = "yes"
    assert f"'{flag}' must be true or false" in error_of(pos)


@pytest.mark.parametrize(("melds", "have"), [
    (["10 10 10 10 10 10 10", "A A A A A A A"], "NATURAL:2"),  # two limpias, no sucia
    (["K K K K K 2 JK", "Q Q Q Q Q Q 2"], "MIXED:2"),  # two sucias, no limpia
])
def test_going_out_needs_a_limpia_and_a_sucia(melds: list[str], have: str) -> None:
    pos = e1()
    pos["teams"][0]["melds"] = melds
    pos["teams"][1]["melds"] = []
    msg = error_of(pos)
    assert "went out without meeting go_out_requirement=CLEAN:1,DIRTY:1" in msg and have in msg


@pytest.mark.parametrize("melds", [
    ["2 2 2 2 2 2 2", "K K K K K 2 JK"],  # wild limpia counts as limpia (A-ES-11)
    ["10 10 10 10 10 10 10", "2 2 2 2 2 JK JK"],  # wild sucia counts as sucia
])
def test_wild_canastas_count_toward_going_out(melds: list[str]) -> None:
    pos = e1()
    pos["teams"][0]["melds"] = melds
    pos["teams"][1]["melds"] = []
    rules, teams = parse_position(pos)
    assert teams[0].went_out and rules.go_out_requirement == (("CLEAN", 1), ("DIRTY", 1))


def test_hidden_canasta_counts_toward_going_out_by_content() -> None:
    """A-ES-11: a hidden canasta counts by its content; hidden K x5 + 2 + JK is the sucia, 10 x7 the limpia."""
    pos = e1()
    pos["teams"][0]["melds"] = ["10 10 10 10 10 10 10", "A A A"]
    pos["teams"][0]["hidden_canastas"] = ["K K K K K 2 JK"]
    rules, teams = parse_position(pos)
    assert teams[0].hidden == (KING,)
    pos["teams"][0]["melds"] = ["K K K K K 2 JK", "A A A"]
    pos["teams"][0]["hidden_canastas"] = ["10 10 10 10 10 10 10"]
    parse_position(pos)
    pos["teams"][0]["melds"] = ["A A A"]  # only the hidden limpia: no sucia
    assert "go_out_requirement=CLEAN:1,DIRTY:1" in error_of(pos)


def test_hidden_canasta_scores_1000_mixed(scorer: Any) -> None:
    """A hidden sucia also scores 1000 (instead of 300) under REPLACE; 1000 + 300 under ADD."""
    pos = e1()
    pos["teams"][0]["melds"] = ["10 10 10 10 10 10 10", "A A A"]
    pos["teams"][0]["hidden_canastas"] = ["K K K K K 2 JK"]
    assert scorer(pos)[0] == (1535 + 700, {**E1_A, "canasta_mixed": 0, "canasta_hidden": 1000})
    assert scorer(with_rules(pos, hidden_canasta_mode="ADD"))[0] == (1535 + 1000, {**E1_A, "canasta_hidden": 1000})


def test_e2_round_trips() -> None:
    """position_to_json lists the hidden canasta under hidden_canastas only, and parse_position reads it back."""
    rules, teams = parse_position(e2())
    assert teams[0].hidden == (SIX,)
    assert (SIX, 7, 0, 0) in teams[0].melds  # a hidden canasta is a meld on the table too
    doc = position_to_json(rules, teams)
    a = doc["teams"][0]
    assert a["hidden_canastas"] == ["6 6 6 6 6 6 6"]
    assert "6 6 6 6 6 6 6" not in a["melds"] and len(a["melds"]) == 4
    assert doc["variant"] == "spanish" and "rules" not in doc
    assert parse_position(json.loads(json.dumps(doc))) == (rules, teams)


def test_spanish_flags_round_trip() -> None:
    pos = {"variant": "spanish", "rules": {"terremoto_bonus": 150, "num_players": 6},
           "teams": [closing_team(hands=[[], [], []], exact_pick=True, quick_finish=True, terremoto=True,
                                  exact_cut=True, threes=["R3"] * 8),
                     no_canasta_team(hands=[["B3"], [], ["4"]])]}
    rules, teams = parse_position(pos)
    assert (teams[0].exact_pick, teams[0].quick_finish, teams[0].terremoto, teams[0].exact_cut) == (True,) * 4
    doc = position_to_json(rules, teams)
    assert doc["rules"]["terremoto_bonus"] in (150, "150") and doc["rules"]["num_players"] in (6, "6")
    for flag in ("exact_pick", "quick_finish", "terremoto", "exact_cut"):
        assert doc["teams"][0][flag] is True and flag not in doc["teams"][1]
    assert parse_position(json.loads(json.dumps(doc))) == (rules, teams)


def test_black_threes_for_a_canasta_need_four_decks() -> None:
    """A-ES-14: seven black threes cannot exist with 2 decks (4 black threes in the pack)."""
    team_a = closing_team()
    team_a["melds"].append("B3 B3 B3 B3 B3 B3 B3")
    assert "7 cards of rank B3" in error_of({"variant": "spanish", "teams": [team_a, no_canasta_team()]})


def test_black_three_meld_must_be_a_canasta() -> None:
    """black_three_meld_when_going_out = 7-7: only a 7-card canasta of black threes ('canasta a lo gusto')."""
    team_a = closing_team()
    team_a["melds"].append("B3 B3 B3")
    assert "a black-three meld must have 7 to 7 cards" in error_of({"variant": "spanish",
                                                                     "teams": [team_a, no_canasta_team()]})


# --------------------------------------------------------------------------- §5.0 R9: the premiado opening pile
def r9_state(**knobs: Any) -> Any:
    """First upcard an A (a premio): 1 more face-down card and a new upcard, an 8. Seat 0 (first player) holds
    8 8 2 and K K K (to open: 8 x3 + K x3 = 60 >= 50)."""
    hand = "8 8 2 K K K 4 4 5 5 6 6 9 9 10"
    return es_deal_state(es_rules(**knobs), hands={0: hand}, upcards="A 8")


def test_r9_opening_pile_grows_and_is_premiado() -> None:
    st = r9_state()
    assert len(st.pile) == 9  # 6 face down + A + 1 face down + 8
    assert st.pile[-1] == EIGHT and st.pile[6] == ACE
    assert st.pile_premiado and st.pile_frozen
    assert PlayerView(st, 0).pile_premiado and PlayerView(st, 0).pile_frozen


@pytest.mark.parametrize("first_take", ["PER_DEAL", "NONE"])
def test_r9_premiado_pile_needs_a_natural_pair(first_take: str) -> None:
    """A-ES-6: a premiado pile needs a natural pair until taken, whatever first_take_pair_only says."""
    st = r9_state(first_take_pair_only=first_take)
    view = PlayerView(st, 0)
    err = view.check_take(take("8", 1, twos=1, extra=[meld("K", 3)]))
    assert err == "the pile is frozen for this team: a natural pair of 8 is needed"
    assert view.check_take(take("8", 2, extra=[meld("K", 3)])) is None


def test_r9_natural_pair_takes_the_premiado_pile() -> None:
    st = r9_state()
    es_table(st, {0: Scripted(draws={1: take("8", 2, extra=[meld("K", 3)])}, discards={1: "4"})}, 1)
    assert st.melds[0][EIGHT] == [3, 0, 0] and st.melds[0][KING] == [3, 0, 0] and st.opened[0]
    assert st.premiado_end_turn == 1 and not st.pile_frozen
    # seat 0: 15 - 5 melded + 8 pile cards below the top (no red three among them) - 1 discard
    assert st.hand_sizes[0] == 15 - 5 + 8 - 1 and st.pile == [4]


def test_r9_without_the_premio_the_pile_is_seven_cards() -> None:
    """Control: an 8 turned at once gives the plain 7-card pile, not premiado (the natural pair is still needed
    for the first take of the deal, A-ES-7, but with first_take_pair_only=NONE a natural + wild takes it)."""
    st = es_deal_state(es_rules(first_take_pair_only="NONE"), hands={0: "8 8 2 K K K 4 4 5 5 6 6 9 9 10"},
                       upcards="8")
    assert len(st.pile) == 7 and not st.pile_premiado and not st.pile_frozen
    assert take_error(st, 0, take("8", 1, twos=1, extra=[meld("K", 3)])) is None

