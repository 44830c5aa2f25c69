"""Two names for four seats (issue 34, item 2): in a partnership game ``--strategies A,B`` means one strategy per
team, seated alternately as ``match`` seats A and B; where every player is a team of its own, or the teams are
three, two names are refused with the rule, in one line. Every playing command that takes ``--strategies``
reads the list the same way (run, play, sweep, bench); balance takes one strategy per variant, not per seat.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import cli, error_line

from simcli.duplicate.match import seat_strategies
from simcli.players.loading import parse_strategy_list
from simcli.players.specs import StrategyLookupError, seat_specs
from simcli.rules.presets import load_rules

SHORT = ("--rule", "max_hands=1")


@pytest.mark.parametrize(("variant", "overrides"), [
    ("classic", {}),                                            # two partnerships of two
    ("classic", {"num_players": 6}),                            # two partnerships of three
    ("spanish", {}),                                            # pairs
    ("spanish", {"num_players": 6, "team_size": 3}),            # trios
    ("classic", {"num_players": 2}),                            # heads-up: one per team is one per seat
])
def test_two_names_are_one_per_team_seated_as_match_seats_them(variant: str, overrides: dict[str, int]) -> None:
    rs = load_rules(variant, overrides)
    names = parse_strategy_list("greedy,random", rs.num_players, rs.n_teams)
    assert names == list(seat_strategies("greedy", "random", rs.num_players, rs.n_teams, variant))
    assert names[:2] == ["greedy", "random"] and len(names) == rs.num_players


def test_one_per_team_with_three_teams_and_the_other_counts_unchanged() -> None:
    assert seat_specs(["a", "b", "c"], 6, 3) == ["a", "b", "c", "a", "b", "c"]
    assert seat_specs(["a"], 4, 2) == ["a"] * 4
    assert seat_specs(["a", "b", "c", "d"], 4, 2) == ["a", "b", "c", "d"]
    # Without the teams (n_teams omitted) every player is its own team: one name or one per seat, as before.
    with pytest.raises(StrategyLookupError, match="got 2 strategies for 4 seats"):
        seat_specs(["a", "b"], 4)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"num_players": 3}, "Error: got 2 strategies for 3 seats (each player is a team of its own); give one name "
                         "for every seat or one per seat (3)"),
    ({"num_players": 6, "team_size": 2}, "Error: got 2 strategies for 6 seats in 3 teams of 2; give one name for "
                                         "every seat, one per team (3, seated alternately: seat s plays for team "
                                         "s % 3) or one per seat (6)"),
    ({}, "Error: got 3 strategies for 4 seats in 2 teams of 2; give one name for every seat, one per team (2, "
         "seated alternately: seat s plays for team s % 2) or one per seat (4)"),
])
def test_other_counts_are_refused_with_the_rule(tmp_path: Path, overrides: dict[str, int], message: str) -> None:
    rules = [w for k, v in overrides.items() for w in ("--rule", f"{k}={v}")]
    names = "greedy,random" if overrides else "greedy,random,greedy"
    out = tmp_path / "r"
    assert error_line("run", "--strategies", names, "--games", 2, "--out", out, *rules) == message
    assert not out.exists()
    assert error_line("play", "--strategies", names, *rules) == message


def test_run_seats_a_file_and_a_builtin_one_per_team(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "nopile.py"
    bot.parent.mkdir()
    bot.write_text("from simcli.strategy import Strategy\n\n\nclass NoPile(Strategy):\n    pass\n")
    out = tmp_path / "r"
    cli("run", "--strategies", f"{bot},greedy", "--games", 2, "--jobs", 1, "-q", "--out", out, *SHORT)
    games = pd.read_parquet(out / "games.parquet")
    seats = [games[f"strategy_seat_{s}"].unique().tolist() for s in range(4)]
    assert seats == [[str(bot)], ["greedy"], [str(bot)], ["greedy"]]
    stored = json.loads((out / "run.json").read_text())
    assert stored["strategies"] == [str(bot), "greedy", str(bot), "greedy"]


def test_play_sweep_and_bench_read_two_names_the_same_way(tmp_path: Path) -> None:
    header = cli("play", "--strategies", "greedy,random", "--seed", 1, *SHORT).stdout.splitlines()[0]
    assert "0:greedy(team 0), 1:random(team 1), 2:greedy(team 0), 3:random(team 1)" in header
    cli("sweep", "--rule", "going_out_bonus=100,300", "--strategies", "greedy,random", "--games", 2, "--jobs", 1,
        "--out", tmp_path / "s", "--set", "max_hands=1", "--metric", "deals")
    played = pd.read_parquet(tmp_path / "s" / "going_out_bonus=100" / "games.parquet")
    assert played["strategy_seat_2"].unique().tolist() == ["greedy"]
    assert played["strategy_seat_3"].unique().tolist() == ["random"]
    res = cli("bench", "--strategies", "greedy,random", "--hands", 1, "--json", *SHORT)
    assert json.loads(res.stdout)["hands"] >= 1


def test_help_says_what_two_names_mean() -> None:
    for command in ("run", "play", "sweep", "bench"):
        text = " ".join(cli(command, "--help").stdout.split())
        assert "one per team" in text and "seated alternately" in text, command
