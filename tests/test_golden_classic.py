"""Golden tests for Classic Canasta: RULES.md §5.0 (R1–R4) and §5.1 (C1–C3), knob effects and bad input.

Every expected number below was worked out by hand from RULES.md §1.3 (card values), §1.9 (threes) and
§1.12 (the scoring algorithm); none is computed by the code under test. Each golden deal is scored twice:
through the Python API (``parse_position`` + ``score_deal``) and through ``simcli score --json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from scoring_paths import api_scores, breakdown, cli_scores, with_rules

from simcli.cli import main
from simcli.engine.melds import initial_meld_minimum, meld_error, meld_value, wild_ratio_ok
from simcli.engine.scoring import SCORE_PARTS
from simcli.positions.reader import PositionError, parse_position
from simcli.positions.writer import position_to_json
from simcli.primitives.cards import ACE, FIVE, FOUR, JOKER, KING, SIX, TWO
from simcli.rules.knobs import RuleError
from simcli.rules.presets import load_rules

PARTS = (
    "going_out", "canasta_natural", "canasta_mixed", "canasta_wild", "canasta_sevens", "canasta_aces",
    "canasta_hidden", "canasta_count", "red_threes", "black_threes", "exact_cut", "exact_pick",
    "pony_dealer_exact", "quick_finish", "terremoto", "incomplete_melds", "hand_rank_penalty",
    "melded", "hand", "pony", "special_hand",
)



# --------------------------------------------------------------------------- golden positions (§5.1)
def c1() -> dict[str, Any]:
    """C1 — normal going out (N of team A went out by discarding)."""
    return {
        "variant": "classic",
        "teams": [
            {"melds": ["K K K K K K K", "8 8 8 8 8 2 JK", "5 5 5"], "threes": ["R3"],
             "hands": [[], ["9", "4"]], "went_out": True, "concealed": False},
            {"melds": ["Q Q Q 2", "6 6 6"], "threes": ["R3"],
             "hands": [["A", "JK", "7"], ["B3", "10"]], "went_out": False},
        ],
    }


def c2() -> dict[str, Any]:
    """C2 — concealed going out; team B laid all four red threes and never melded."""
    return {
        "teams": [
            {"melds": ["7 7 7 7 7 7 7", "J J J 2"], "threes": [],
             "hands": [[], ["K", "K", "4"]], "went_out": True, "concealed": True},
            {"melds": [], "threes": ["R3", "R3", "R3", "R3"],
             "hands": [["JK", "JK", "2"], ["A", "A", "9", "9", "5"]]},
        ],
    }


def c3() -> dict[str, Any]:
    """C3 — stock exhausted, nobody went out."""
    return {
        "variant": "classic",
        "teams": [
            {"melds": ["9 9 9 9 9 9 9 9", "4 4 2"], "threes": ["R3", "R3"],
             "hands": [["B3", "B3"], ["6"]]},
            {"melds": ["K K K K 2 2 JK"], "threes": ["R3", "R3"],
             "hands": [["8"], ["Q", "Q"]]},
        ],
    }


#: (position, expected (total, breakdown) per team), all from RULES.md §5.1.
GOLDEN = {
    "C1": (c1, [
        # 100 + 500 + 300 + 100 + (70 + 120 + 15) - (10 + 5)
        (1190, breakdown(going_out=100, canasta_natural=500, canasta_mixed=300, red_threes=100,
                         melded=205, hand=-15)),
        # 100 + (50 + 15) - (75 + 15)
        (75, breakdown(red_threes=100, melded=65, hand=-90)),
    ]),
    "C2": (c2, [
        # 200 (concealed) + 500 + (35 + 50) - 25
        (760, breakdown(going_out=200, canasta_natural=500, melded=85, hand=-25)),
        # -800 (all four R3, no meld) - (120 + 65)
        (-985, breakdown(red_threes=-800, hand=-185)),
    ]),
    "C3": (c3, [
        # 500 + 200 + (80 + 30) - (10 + 5)
        (795, breakdown(canasta_natural=500, red_threes=200, melded=110, hand=-15)),
        # 300 + 200 + 130 - (10 + 20)
        (600, breakdown(canasta_mixed=300, red_threes=200, melded=130, hand=-30)),
    ]),
}



def run_cli(tmp_path: Path, args: list[str], position: Any = None, text: str | None = None) -> Any:
    """Write ``position`` (or raw ``text``) to a file and run ``simcli`` with ``args`` (+ that file)."""
    path = tmp_path / "position.json"
    path.write_text(text if text is not None else json.dumps(position), encoding="utf-8")
    return CliRunner().invoke(main, [*args, str(path)])


def totals(scores: list[tuple[int, dict[str, int]]]) -> list[int]:
    return [t for t, _ in scores]


def test_score_parts_are_the_documented_ones() -> None:
    assert tuple(SCORE_PARTS) == PARTS


# --------------------------------------------------------------------------- §5.0 R1, R2: wild ratio
R_CASES = {
    # meld: (naturals, twos, jokers, {rule: legal})
    "R1 6-6-2-2": (SIX, 2, 2, 0, {"PAGAT": True, "WIKI": True, "STRICT_MAJORITY": False, "AMERICAN": True}),
    "R2 5-5-2-2-Jk": (FIVE, 2, 2, 1, {"PAGAT": True, "WIKI": False, "STRICT_MAJORITY": False,
                                      "AMERICAN": False}),
}
R_PARAMS = [
    pytest.param(rank, n, t, j, rule, legal, id=f"{name}-{rule}")
    for name, (rank, n, t, j, table) in R_CASES.items()
    for rule, legal in table.items()
]


@pytest.mark.parametrize(("rank", "naturals", "twos", "jokers", "rule", "legal"), R_PARAMS)
def test_wild_ratio_ok_r1_r2(
    rank: int, naturals: int, twos: int, jokers: int, rule: str, legal: bool
) -> None:
    assert wild_ratio_ok(rule, naturals, twos + jokers) is legal


@pytest.mark.parametrize(("rank", "naturals", "twos", "jokers", "rule", "legal"), R_PARAMS)
def test_meld_error_r1_r2(rank: int, naturals: int, twos: int, jokers: int, rule: str, legal: bool) -> None:
    rules = load_rules("classic", {"wild_rule": rule})
    error = meld_error(rules, rank, naturals, twos, jokers, new=True)
    assert (error is None) is legal, error
    if not legal:
        assert rule in error


@pytest.mark.parametrize(("rank", "naturals", "twos", "jokers", "rule", "legal"), R_PARAMS)
def test_meld_legality_through_position_r1_r2(
    rank: int, naturals: int, twos: int, jokers: int, rule: str, legal: bool
) -> None:
    names = {SIX: "6", FIVE: "5"}
    text = " ".join([names[rank]] * naturals + ["2"] * twos + ["JK"] * jokers)
    pos = with_rules(c1(), wild_rule=rule)
    pos["teams"][1]["melds"] = ["Q Q Q 2", text]
    if legal:
        rules, teams = parse_position(pos)
        assert teams[1].melds[-1] == (rank, naturals, twos, jokers)
    else:
        with pytest.raises(PositionError, match="illegal"):
            parse_position(pos)


# --------------------------------------------------------------------------- §5.0 R3, R4: opening count
def test_r3_opening_at_1600_needs_90() -> None:
    rules = load_rules("classic")
    minimum = initial_meld_minimum(rules, 1600)
    assert minimum == 90
    six_six_six = meld_value(3, 0, 0, SIX)
    kings = meld_value(3, 1, 0, KING)
    aces = meld_value(3, 1, 0, ACE)
    assert (six_six_six, kings, aces) == (15, 50, 80)
    for rank, n, t in ((SIX, 3, 0), (KING, 3, 1), (ACE, 3, 1)):
        assert meld_error(rules, rank, n, t, 0, new=True) is None
    assert six_six_six + kings == 65
    assert six_six_six + kings < minimum  # illegal opening
    assert six_six_six + aces == 95
    assert six_six_six + aces >= minimum  # legal opening


def test_r4_opening_at_minus_200_needs_15() -> None:
    rules = load_rules("classic")
    minimum = initial_meld_minimum(rules, -200)
    assert minimum == 15
    fours = meld_value(3, 0, 0, FOUR)
    assert fours == 15
    assert fours >= minimum
    # the same meld would not open at score 0
    assert fours < initial_meld_minimum(rules, 0)


@pytest.mark.parametrize(
    ("score", "minimum"),
    [(-1, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (4995, 120), (5000, 120),
     (-5000, 15)],
)
def test_classic_opening_table_bands(score: int, minimum: int) -> None:
    assert initial_meld_minimum(load_rules("classic"), score) == minimum


def test_meld_value_card_points() -> None:
    # §1.3: joker 50, 2 and A 20, K..8 10, 7..4 5
    assert meld_value(0, 0, 1, JOKER) == 50
    assert meld_value(0, 1, 0, TWO) == 20
    assert meld_value(5, 1, 1, 8) == 5 * 10 + 20 + 50


# --------------------------------------------------------------------------- §5.1 C1–C3
@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_golden_api(case: str) -> None:
    make, expected = GOLDEN[case]
    assert api_scores(make()) == expected


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_golden_cli(case: str, tmp_path: Path) -> None:
    make, expected = GOLDEN[case]
    assert cli_scores(tmp_path, make()) == expected


def test_c2_concealed_after_stock_draw_waives_minimum() -> None:
    # N's 85 points would not meet the 90 minimum at 1500, but the concealed going out waives it.
    rules = load_rules("classic")
    assert meld_value(7, 0, 0, 7) + meld_value(3, 1, 0, 11) == 85
    assert initial_meld_minimum(rules, 1500) == 90
    assert rules.concealed_out_waives_minimum is True


def test_c1_from_stdin() -> None:
    result = CliRunner().invoke(main, ["score", "--json", "-"], input=json.dumps(c1()))
    assert result.exit_code == 0, result.output
    assert [t["total"] for t in json.loads(result.stdout)["teams"]] == [1190, 75]


def test_c1_table_output(tmp_path: Path) -> None:
    result = run_cli(tmp_path, ["score"], c1())
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Team A" in lines[0] and "Team B" in lines[0]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if line.split() and line[0] != "-"}
    assert rows["total"] == ["1190", "75"]
    assert rows["going_out"] == ["100", "0"]
    assert rows["melded"] == ["205", "65"]
    assert rows["hand"] == ["-15", "-90"]
    # Parts that are 0 for both teams are left out of the text table, except the ones every deal has.
    assert set(rows) == {"going_out", "canasta_natural", "canasta_mixed", "red_threes", "melded", "hand", "total"}


def test_b3_meld_when_going_out_scores_5_each() -> None:
    pos = c1()
    pos["teams"][0]["melds"].append("B3 B3 B3")  # 3 B3 melded + 1 in W's hand = 4, the whole pack
    (total_a, parts_a), (total_b, _) = api_scores(pos)
    assert parts_a["melded"] == 205 + 15
    assert total_a == 1190 + 15
    assert total_b == 75


def test_round_trip_position_to_json() -> None:
    pos = with_rules(c2(), **{"going_out_bonus": 150, "canasta_bonus.natural": 600})
    pos["teams"][1]["exact_cut"] = True
    rules, teams = parse_position(pos)
    doc = position_to_json(rules, teams)
    json.dumps(doc)  # JSON-ready
    rules2, teams2 = parse_position(doc)
    assert rules2 == rules
    assert teams2 == teams


# --------------------------------------------------------------------------- knobs change the score
def test_knob_going_out_bonus(scorer: Any) -> None:
    scores = scorer(with_rules(c1(), going_out_bonus=300))
    assert scores[0][1]["going_out"] == 300
    assert totals(scores) == [1190 + 200, 75]


def test_knob_canasta_bonuses(scorer: Any) -> None:
    scores = scorer(with_rules(c1(), **{"canasta_bonus.natural": 700, "canasta_bonus.mixed": 450}))
    assert scores[0][1]["canasta_natural"] == 700
    assert scores[0][1]["canasta_mixed"] == 450
    assert totals(scores) == [100 + 700 + 450 + 100 + 205 - 15, 75]  # 1540
    scores = scorer(with_rules(c3(), **{"canasta_bonus.natural": 700, "canasta_bonus.mixed": 450}))
    assert totals(scores) == [795 + 200, 600 + 150]


def test_knob_red_three_value(scorer: Any) -> None:
    scores = scorer(with_rules(c1(), red_three_value=150))
    assert [p["red_threes"] for _, p in scores] == [150, 150]
    assert totals(scores) == [1240, 125]
    scores = scorer(with_rules(c3(), red_three_value=150))
    assert totals(scores) == [795 + 100, 600 + 100]


def test_knob_all_red_threes_total(scorer: Any) -> None:
    scores = scorer(with_rules(c2(), all_red_threes_total=1000))
    assert scores[1][1]["red_threes"] == -1000
    assert totals(scores) == [760, -1000 - 185]
    scores = scorer(with_rules(c2(), all_red_threes_total=None))  # no special value: 4 x 100
    assert scores[1][1]["red_threes"] == -400
    assert totals(scores) == [760, -400 - 185]


def test_three_red_threes_are_not_all_of_them(scorer: Any) -> None:
    pos = c2()
    pos["teams"][1]["threes"] = ["R3", "R3", "R3"]
    scores = scorer(pos)
    assert scores[1][1]["red_threes"] == -300
    assert totals(scores) == [760, -300 - 185]


@pytest.mark.parametrize(
    ("mode", "c2_b", "c1_b"),
    [
        # C2 team B: no meld, 4 R3 = 800.  C1 team B: melded, no canasta, 1 R3 = 100.
        ("NO_MELD", (-800, -985), (100, 75)),
        ("NEVER", (800, 800 - 185), (100, 75)),
        ("NO_CANASTA", (-800, -985), (-100, -100 + 65 - 90)),
    ],
)
def test_knob_red_three_negative_if(
    scorer: Any, mode: str, c2_b: tuple[int, int], c1_b: tuple[int, int]
) -> None:
    scores = scorer(with_rules(c2(), red_three_negative_if=mode))
    assert (scores[1][1]["red_threes"], scores[1][0]) == c2_b
    assert scores[0][0] == 760
    scores = scorer(with_rules(c1(), red_three_negative_if=mode))
    assert (scores[1][1]["red_threes"], scores[1][0]) == c1_b
    assert scores[0][0] == 1190  # team A has canastas: never negative


def test_knob_black_three_in_hand_value(scorer: Any) -> None:
    scores = scorer(with_rules(c1(), black_three_in_hand_value=-100))
    # W holds B3 (now -100) and 10; E holds A, JK, 7 = 75
    assert scores[1][1]["hand"] == -(75 + 100 + 10)
    assert totals(scores) == [1190, 100 + 65 - 185]
    scores = scorer(with_rules(c3(), black_three_in_hand_value=-100))
    assert scores[0][1]["hand"] == -(200 + 5)
    assert totals(scores) == [500 + 200 + 110 - 205, 600]
    scores = scorer(with_rules(c3(), black_three_in_hand_value=0))
    assert totals(scores) == [795 + 10, 600]


def test_knob_concealed_out_total_bonus(scorer: Any) -> None:
    scores = scorer(with_rules(c2(), concealed_out_total_bonus=300))
    assert scores[0][1]["going_out"] == 300
    assert totals(scores) == [860, -985]
    scores = scorer(with_rules(c2(), concealed_out_total_bonus=None))  # plain going_out_bonus
    assert scores[0][1]["going_out"] == 100
    assert totals(scores) == [660, -985]
    pos = c2()
    pos["teams"][0]["concealed"] = False
    assert totals(scorer(pos)) == [660, -985]


def test_knob_meld_points_sign(scorer: Any) -> None:
    scores = scorer(with_rules(c1(), meld_points_sign="PLUS_IF_CANASTA_ELSE_MINUS"))
    assert [p["melded"] for _, p in scores] == [205, -65]
    assert totals(scores) == [1190, 100 - 65 - 90]
    scores = scorer(with_rules(c3(), meld_points_sign="PLUS_IF_CANASTA_ELSE_MINUS"))
    assert totals(scores) == [795, 600]  # both teams have a canasta


def test_knob_exact_cut_bonus(scorer: Any) -> None:
    pos = c1()
    pos["teams"][0]["exact_cut"] = True
    assert totals(scorer(pos)) == [1190, 75]  # Classic preset: exact_cut_bonus = 0
    scores = scorer(with_rules(pos, exact_cut_bonus=100))
    assert scores[0][1]["exact_cut"] == 100
    assert totals(scores) == [1290, 75]
    assert totals(scorer(with_rules(c1(), exact_cut_bonus=100))) == [1190, 75]  # nobody cut exactly


@pytest.mark.parametrize(("mode", "bonus"), [("NO", 100), ("VOID", 0), ("NEGATE", -100)])
def test_knob_exact_cut_requires_canasta(scorer: Any, mode: str, bonus: int) -> None:
    pos = with_rules(c1(), exact_cut_bonus=100, exact_cut_requires_canasta=mode)
    pos["teams"][1]["exact_cut"] = True  # team B has no canasta
    scores = scorer(pos)
    assert scores[1][1]["exact_cut"] == bonus
    assert totals(scores) == [1190, 75 + bonus]


def test_wild_meld_only_where_allowed(scorer: Any) -> None:
    pos = c1()
    pos["teams"][1]["melds"].append("2 2 JK")
    with pytest.raises(PositionError, match="wild"):
        parse_position(pos)
    scores = scorer(with_rules(pos, wild_melds_allowed=True))
    assert scores[1][1]["melded"] == 65 + 90
    assert scores[1][0] == 75 + 90


# --------------------------------------------------------------------------- bad input through the CLI
def assert_cli_error(result: Any, *needles: str) -> str:
    assert result.exit_code == 1, result.output
    message = result.stderr.strip()
    assert message.startswith("Error: ")
    assert "\n" not in message
    assert "Traceback" not in result.output
    assert result.stdout == ""
    for needle in needles:
        assert needle in message, message
    return message


def test_cli_unknown_card(tmp_path: Path) -> None:
    pos = c1()
    pos["teams"][0]["hands"][1] = ["9", "Z"]
    assert_cli_error(run_cli(tmp_path, ["score", "--json"], pos), "'Z'", "JK")


def test_cli_illegal_meld_under_wiki(tmp_path: Path) -> None:
    pos = c1()
    pos["teams"][1]["melds"].append("5 5 2 2 JK")
    assert run_cli(tmp_path, ["score", "--json"], pos).exit_code == 0  # legal under PAGAT
    result = run_cli(tmp_path, ["score", "--json"], with_rules(pos, wild_rule="WIKI"))
    assert_cli_error(result, "5 5 2 2 JK", "WIKI")


def test_cli_too_many_kings(tmp_path: Path) -> None:
    pos = c1()
    pos["teams"][1]["hands"][0] = ["A", "JK", "7", "K", "K"]  # 7 kings melded + 2 = 9 > 8
    assert_cli_error(run_cli(tmp_path, ["score"], pos), "9", "K", "8")


def test_cli_unknown_rule_knob(tmp_path: Path) -> None:
    assert_cli_error(run_cli(tmp_path, ["score"], with_rules(c1(), going_out_bonsu=100)), "going_out_bonsu")


def test_cli_bad_knob_value(tmp_path: Path) -> None:
    result = run_cli(tmp_path, ["score"], with_rules(c1(), going_out_bonus="lots"))
    assert_cli_error(result, "going_out_bonus", "lots")


def test_cli_unknown_variant(tmp_path: Path) -> None:
    pos = c1()
    pos["variant"] = "klondike"
    assert_cli_error(run_cli(tmp_path, ["score"], pos), "klondike")


def test_cli_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["score", str(tmp_path / "nope.json")])
    assert_cli_error(result, "nope.json")


def test_cli_invalid_json(tmp_path: Path) -> None:
    assert_cli_error(run_cli(tmp_path, ["score"], text='{"teams": [}'), "JSON")


# --------------------------------------------------------------------------- other validations
def _mutate(path: list[Any], value: Any, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    pos = c1()
    target: Any = pos
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    if rules:
        pos["rules"] = rules
    return pos


def _append_meld(team: int, meld: str) -> dict[str, Any]:
    pos = c1()
    pos["teams"][team]["melds"].append(meld)
    return pos


BAD_POSITIONS = {
    "unknown top key": (_mutate(["variantt"], "classic"), "variantt"),
    "unknown team key": (_mutate(["teams", 0, "meld"], []), "'meld'"),
    "mixed ranks": (_append_meld(1, "J J Q"), "mixes ranks"),
    "meld too short": (_append_meld(1, "J J"), "at least 3"),
    "second meld of a rank": (_append_meld(0, "5 5 5 2"), "second meld of 5"),
    "red three in a meld": (_append_meld(1, "R3 R3 R3"), "red three"),
    "red three in a hand": (_mutate(["teams", 1, "hands", 1], ["R3", "10"]), "red three"),
    "black three laid as a bonus": (_mutate(["teams", 1, "threes"], ["B3"]), "allowed: R3"),
    "black-three meld without going out": (_append_meld(1, "B3 B3 B3"), "went_out"),
    "black-three meld with a wild": (_append_meld(0, "B3 B3 B3 2"), "wild"),
    "too many red threes": (_mutate(["teams", 1, "threes"], ["R3"] * 4), "R3"),
    "too many jokers": (_mutate(["teams", 1, "hands", 1], ["JK", "JK", "JK", "JK"]), "JK"),
    "two teams went out": (
        _mutate(["teams", 1], {"melds": ["Q Q Q Q Q Q 2"], "threes": ["R3"],
                               "hands": [[], ["B3", "10"]], "went_out": True}),
        "at most one team",
    ),
    "two teams paid the exact cut": (
        _mutate(["teams"], [{**t, "exact_cut": True} for t in c1()["teams"]]), "exact_cut is true for Team A and"),
    "went out without a canasta": (_mutate(["teams", 0, "melds"], ["5 5 5", "K K K"]), "go_out_requirement"),
    "went out short of ANY:3": (_mutate(["rules"], {"go_out_requirement": "ANY:3"}), "go_out_requirement"),
    "went out holding cards": (_mutate(["teams", 0, "hands", 0], ["A"]), "empty"),
    "concealed without going out": (_mutate(["teams", 1, "concealed"], True), "concealed"),
    "went_out not a bool": (_mutate(["teams", 1, "went_out"], "no"), "true or false"),
    "one team": (_mutate(["teams"], c1()["teams"][:1]), "exactly 2"),
    "three members": (_mutate(["teams", 1, "hands"], [["A"], ["4"], []]), "team_size=2"),
    "melds not a list": (_mutate(["teams", 1, "melds"], "Q Q Q"), "melds"),
    "not an object": ([1, 2], "JSON object"),
}


@pytest.mark.parametrize("case", sorted(BAD_POSITIONS))
def test_position_errors(case: str) -> None:
    pos, needle = BAD_POSITIONS[case]
    with pytest.raises(PositionError) as info:
        parse_position(pos)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("case", ["mixed ranks", "two teams went out", "one team"])
def test_position_errors_through_cli(case: str, tmp_path: Path) -> None:
    pos, needle = BAD_POSITIONS[case]
    assert_cli_error(run_cli(tmp_path, ["score", "--json"], pos), needle)


def test_rule_errors_are_rule_errors() -> None:
    with pytest.raises(RuleError, match="going_out_bonsu"):
        parse_position(with_rules(c1(), going_out_bonsu=1))


def test_two_canastas_meet_any_2() -> None:
    # team A has two canastas, so a 2-canasta requirement still lets it go out
    assert totals(api_scores(with_rules(c1(), go_out_requirement="ANY:2"))) == [1190, 75]
