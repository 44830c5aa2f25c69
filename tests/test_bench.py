"""``simcli bench``: plays whole seeded games (the games of ``simcli run --jobs 1``) and counts their deals.

No timing is asserted, only what was played and counted: the hands reported are the deals of games
0, 1, 2, ... of the seed, stopping at the first game that brings them to ``--hands``.
"""

from __future__ import annotations

import json
import re
import traceback
from typing import Any

import pytest
from click.testing import CliRunner, Result

from simcli.cli import main
from simcli.engine.game import MAX_DEALS_PER_GAME
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules, parse_overrides


def bench(*args: Any, code: int = 0) -> Result:
    """Invoke ``simcli bench ARGS``; fail with the output and traceback unless it exits with ``code``."""
    res = CliRunner().invoke(main, ["bench", *map(str, args)])
    if res.exit_code != code:
        tb = "".join(traceback.format_exception(*res.exc_info)) if res.exc_info else ""
        raise AssertionError(f"exit {res.exit_code}, wanted {code}\nstdout: {res.stdout}\nstderr: {res.stderr}\n{tb}")
    return res


def played(variant: str, names: list[str], seed: int, games: int, rules: tuple[str, ...] = ()) -> list[Any]:
    """Games 0..games-1 of ``seed``, played directly with :func:`play_game`."""
    rs = load_rules(variant, parse_overrides(rules))
    return [play_game(rs, names, seed, g) for g in range(games)]


def check_counts(out: dict[str, Any], games: list[Any], hands: int) -> None:
    """The reported numbers are those of exactly these whole games."""
    deals = [len(g.deals) for g in games]
    assert out["games"] == len(games) >= 1
    assert out["hands"] == sum(deals) >= hands
    assert sum(deals[:-1]) < hands  # stopped at the first game that reached --hands
    turns = sum(g.turns for g in games)
    assert out["turns_per_hand"] == pytest.approx(turns / out["hands"])
    decisions = sum(g.decisions for g in games)
    assert out["decisions_per_s"] * out["seconds"] == pytest.approx(decisions)
    assert out["hands_per_s"] * out["seconds"] == pytest.approx(out["hands"])


def test_bench_json_counts_the_deals_of_whole_games() -> None:
    out = json.loads(bench("--hands", 30, "--json").stdout)
    assert set(out) == {"hands", "games", "seconds", "hands_per_s", "decisions_per_s", "turns_per_hand", "build",
                        "strategies_build"}
    assert out["build"] == "pure"  # the test suite runs the .py sources (tests/test_compiled.py the other build)
    assert out["strategies_build"] == "pure"
    assert out["hands"] >= 30
    assert out["games"] >= 1
    assert out["hands_per_s"] > 0 and out["decisions_per_s"] > 0 and out["seconds"] > 0
    check_counts(out, played("classic", ["greedy"] * 4, 0, out["games"]), 30)


def test_bench_follows_seed_strategies_and_rules() -> None:
    names = ["greedy", "random", "greedy", "random"]
    rules = ("max_hands=2",)
    out = json.loads(bench("--seed", 5, "--strategy", ",".join(names), "--rule", rules[0], "--hands", 7,
                           "--json").stdout)
    games = played("classic", names, 5, out["games"], rules)
    assert all(len(g.deals) <= 2 for g in games)
    check_counts(out, games, 7)


def test_bench_stops_when_the_deals_reach_hands_exactly() -> None:
    first_two = played("classic", ["greedy"] * 4, 3, 2)
    hands = len(first_two[0].deals) + len(first_two[1].deals)
    out = json.loads(bench("--seed", 3, "--hands", hands, "--json").stdout)
    assert (out["games"], out["hands"]) == (2, hands)


def test_bench_line() -> None:
    line = bench("--hands", 12, "--seed", 2).stdout.strip()
    m = re.fullmatch(r"classic, greedy: ([\d,]+) hands \(([\d,]+) games\) in [\d.]+ s = [\d,]+ hands/s, "
                     r"[\d,]+ decisions/s \([\d.]+ turns/hand; pure build, pure strategies\)", line)
    assert m, line
    games = played("classic", ["greedy"] * 4, 2, int(m[2].replace(",", "")))
    assert int(m[1].replace(",", "")) == sum(len(g.deals) for g in games)


def one_error_line(res: Result) -> str:
    assert isinstance(res.exception, SystemExit), res.exc_info
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("Error: ")
    return lines[0]


def test_bench_game_that_never_ends_is_a_one_line_error() -> None:
    # No team reaches the target in MAX_DEALS_PER_GAME deals: play_game gives up with an EngineError.
    line = one_error_line(bench("--hands", 1, "--rule", "game_target=10000000", code=1))
    assert f"did not finish in {MAX_DEALS_PER_GAME} deals" in line
    assert "max_hands" in line


def test_bench_unknown_strategy_is_a_one_line_error() -> None:
    assert "unknown strategy 'nope'" in one_error_line(bench("--strategy", "nope", code=1))
