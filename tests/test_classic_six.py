"""Classic Canasta with 6 players, RULES.md A-CL-4: three packs, 13 cards, two partnerships of three (or three of
two with ``team_size=2``), two canastas to go out, game 10,000 for two teams (opening 150 from 7,500) and 7,500 for
three, red threes 100 each up to four, five 1,000 and six 1,200. Every expected number below is worked out by hand
from RULES.md §1.3, §1.9, §1.12 and A-CL-4; each golden deal is scored through the API and ``simcli score``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from scoring_paths import api_scores, breakdown, cli_scores

from simcli.engine.game import game_outcome
from simcli.engine.melds import initial_meld_minimum
from simcli.rules.presets import diff, load_rules

SIX = {"num_players": 6}
THREE_PAIRS = {"num_players": 6, "team_size": 2}


def test_two_partnerships_of_three() -> None:
    rules = load_rules("classic", SIX)
    assert (rules.team_size, rules.n_teams, rules.decks, rules.hand_size) == (3, 2, 3, 13)
    assert rules.decks * (52 + rules.jokers_per_deck) == 162
    assert rules.go_out_requirement == (("ANY", 2),)
    assert rules.game_target == 10000
    assert [initial_meld_minimum(rules, s) for s in (-5, 0, 1500, 3000, 7499, 7500, 9000)] == [
        15, 50, 90, 120, 120, 150, 150]
    assert game_outcome(rules, [9995, 4000], 3) == (False, -1)
    assert game_outcome(rules, [4000, 10000], 3) == (True, 1)
    assert diff(rules) == {}  # all of it is the preset for six players


def test_three_partnerships_of_two() -> None:
    rules = load_rules("classic", THREE_PAIRS)
    assert (rules.team_size, rules.n_teams, rules.decks, rules.hand_size) == (2, 3, 3, 13)
    assert rules.game_target == 7500
    assert [initial_meld_minimum(rules, s) for s in (-5, 0, 1500, 3000, 7000)] == [15, 50, 90, 120, 120]
    assert game_outcome(rules, [7495, 7000, 100], 3) == (False, -1)
    assert game_outcome(rules, [7000, 7500, 100], 3) == (True, 1)
    assert set(diff(rules)) == {"team_size"}  # target and table follow from the team size


def test_a_knob_still_overrides_the_six_player_values() -> None:
    rules = load_rules("classic", {**SIX, "game_target": 8000, "initial_meld_table": "CLASSIC"})
    assert rules.game_target == 8000 and initial_meld_minimum(rules, 7500) == 120
    assert set(diff(rules)) == {"game_target", "initial_meld_table"}


def test_four_players_keep_the_two_pack_values() -> None:
    rules = load_rules("classic")
    assert (rules.decks, rules.game_target, rules.all_red_threes_total, rules.red_three_totals) == (2, 5000, 800, None)
    assert initial_meld_minimum(rules, 7500) == 120


def test_rules_show_shows_the_six_player_values() -> None:
    out = cli("rules", "show", "classic", "--rule", "num_players=6").stdout
    assert "# preset values for num_players=6 team_size=3: " in out
    for part in ("decks=3", "hand_size=13", "go_out_requirement=ANY:2", "game_target=10000",
                 "initial_meld_table=CLASSIC_6P", "red_three_totals=5:1000,6:1200"):
        assert part in out
    assert "knob(s) differ" not in out
    out = cli("rules", "show", "classic", "--rule", "num_players=6", "--rule", "team_size=2").stdout
    assert "game_target=7500" in out and "initial_meld_table=CLASSIC," in out
    assert "1 knob(s) differ" in out


def six(teams: list[dict[str, Any]], rules: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"variant": "classic", "rules": dict(rules or SIX), "teams": teams}


#: name -> (position, expected (total, breakdown) per team), by hand.
GOLDEN = {
    # Five red threes are 1,000. A: 100 out + 500 + 300 + 1000 + melded (K x7 = 70, Q x6 + 2 = 80) - hand (4, 9).
    "six_five_red_threes": (six([
        {"melds": ["K K K K K K K", "Q Q Q Q Q Q 2"], "threes": ["R3"] * 5, "hands": [[], ["4"], ["9"]],
         "went_out": True},
        {"melds": ["8 8 8"], "threes": ["R3"], "hands": [["A"], ["JK"], ["7", "6"]]},
    ]), [(2035, breakdown(going_out=100, canasta_natural=500, canasta_mixed=300, red_threes=1000, melded=150,
                          hand=-15)),
         (50, breakdown(red_threes=100, melded=30, hand=-80))]),
    # All six red threes are 1,200, negative for a team that melded nothing (NO_MELD).
    "six_all_red_threes_no_meld": (six([
        {"melds": [], "threes": ["R3"] * 6, "hands": [["5"], ["6"], ["4"]]},
        {"melds": ["J J J"], "threes": [], "hands": [["10"], [], []]},
    ]), [(-1215, breakdown(red_threes=-1200, hand=-15)), (20, breakdown(melded=30, hand=-10))]),
    "six_all_red_threes": (six([
        {"melds": ["5 5 5"], "threes": ["R3"] * 6, "hands": [[], [], []]},
        {"melds": ["J J J"], "threes": [], "hands": [[], [], []]},
    ]), [(1215, breakdown(red_threes=1200, melded=15)), (30, breakdown(melded=30))]),
    # Three teams of two: four red threes are 100 each; one without a meld counts -100.
    "three_pairs_four_red_threes": (six([
        {"melds": ["9 9 9"], "threes": ["R3"] * 4, "hands": [["4"], ["5"]]},
        {"melds": ["7 7 7"], "threes": ["R3"], "hands": [[], []]},
        {"melds": [], "threes": ["R3"], "hands": [["K"], ["2"]]},
    ], THREE_PAIRS), [(420, breakdown(red_threes=400, melded=30, hand=-10)),
                      (115, breakdown(red_threes=100, melded=15)),
                      (-130, breakdown(red_threes=-100, hand=-30))]),
}


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_golden_api(case: str) -> None:
    position, expected = GOLDEN[case]
    assert api_scores(position) == expected


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_golden_cli(case: str, tmp_path: Path) -> None:
    position, expected = GOLDEN[case]
    assert cli_scores(tmp_path, position) == expected
