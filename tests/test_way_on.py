"""A run that fails at once has a way on (issue 49, item 2), and a failed ``play --trace`` leaves no partial trace
(item 3).

What can be checked before the first game is (every strategy under every arm's, level's or variant's rules:
``net`` with no model for them fails at once, and nothing is written); a run that failed before finishing any game
is replaced by a new run in the same folder; ``--on-error skip`` is suggested only where some games succeeded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli, error_line

NET300 = ("--strategies", "net", "--rule", "wild_rule=WIKI")


def test_a_strategy_that_cannot_play_the_rules_fails_before_the_first_game(tmp_path: Path) -> None:
    out = tmp_path / "net300"
    line = error_line("run", "--games", 10, *NET300, "--out", out)
    assert "strategy 'net' cannot play classic with wild_rule=WIKI" in line
    assert "nothing was played or written" in line and "net:any_rules=true" in line
    assert "--on-error skip" not in line
    assert not out.exists()


@pytest.mark.parametrize("command", [
    ("sweep", "--rule", "wild_rule=PAGAT,WIKI", "--strategies", "net", "--games", 2),
    ("match", "net", "greedy", "--rule", "wild_rule=WIKI", "--games", 2),
    ("tournament", "greedy,net", "--rule", "wild_rule=WIKI", "--games", 2),
    ("ladder", "--rungs", "greedy,net", "--rule", "wild_rule=WIKI", "--pairs", 2),
])
def test_every_arm_and_level_is_checked_before_anything_plays(command: tuple[object, ...], tmp_path: Path) -> None:
    out = tmp_path / "out"
    line = error_line(*command, "--out", out)
    assert "strategy 'net' cannot play classic with wild_rule=WIKI" in line, line
    assert not out.exists() or not any(out.iterdir())
    if command[0] == "sweep":
        assert line.startswith("Error: wild_rule=WIKI: ")  # the level is named


def test_balance_checks_every_variant(tmp_path: Path) -> None:
    line = error_line("balance", "--variants", "classic,ponytail", "--strategy", "net", "--rule",
                      "wild_rule=WIKI", "--games", 2, "--out", tmp_path / "b")
    assert "Error: classic: strategy 'net' cannot play classic with wild_rule=WIKI" in line, line


def test_a_run_that_finished_no_game_gives_way_to_a_new_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)  # failing_strategy.py is a module here
    out = tmp_path / "r"
    line = error_line("run", "-n", 6, "-q", "-j", 1, "--strategies", "failing_strategy:AlwaysFail", "--out", out)
    assert "--on-error skip" not in line
    assert f"No game finished, so nothing is kept: fix the strategy or rules and run again with the same --out {out}" \
        in line
    assert json.loads((out / "run.json").read_text())["status"] == "failed"
    res = cli("run", "-n", 6, "-q", "-j", 1, "--strategies", "greedy", "--out", out)
    assert "held a run that failed before finishing any game: it is replaced by this one" in res.stderr
    assert "Played 6 games" in res.stdout
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "complete" and manifest["strategies"] == ["greedy"] * 4


def test_skip_is_suggested_where_games_succeeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)
    out = tmp_path / "r"
    line = error_line("run", "-n", 40, "--seed", 0, "-q", "-j", 1, "--chunk-size", 40, "--strategies",
                      "failing_strategy:FailOnTurnFive", "--out", out)
    assert "rerun with --on-error skip" in line


def test_a_run_with_finished_chunks_is_not_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)
    out = tmp_path / "r"
    cli("run", "-n", 4, "-q", "-j", 1, "--out", out)
    line = error_line("run", "-n", 4, "-q", "-j", 1, "--strategies", "random", "--out", out)
    assert "already holds a run" in line


def test_a_sweep_level_that_failed_before_any_game_is_played_anew(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)
    out = tmp_path / "s"
    sweep = ("sweep", "--rule", "max_hands=1,2", "--games", 4, "--quiet", "--out", out)
    error_line(*sweep, "--strategies", "failing_strategy:AlwaysFail")
    res = cli(*sweep, "--strategies", "greedy")
    assert "max_hands=1" in res.output


def test_a_failed_play_leaves_no_trace_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)
    trace = tmp_path / "game.jsonl"
    trace.write_text("an earlier trace\n")
    error_line("play", "--strategies", "failing_strategy:AlwaysFail,greedy", "--trace", trace, "--html",
               tmp_path / "game.html")
    assert trace.read_text() == "an earlier trace\n"  # untouched, not cut short
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl"]  # no temporary file, no page
    cli("play", "--trace", trace, "--html", tmp_path / "game.html")
    assert trace.read_text().count("\n") > 100 and (tmp_path / "game.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "game.jsonl"]


def test_a_resume_with_new_settings_of_a_run_that_finished_no_game_says_the_way_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)
    out = tmp_path / "r"
    error_line("run", "-n", 6, "-q", "-j", 1, "--strategies", "failing_strategy:AlwaysFail", "--out", out)
    line = error_line("run", "--resume", "-n", 6, "-q", "-j", 1, "--strategies", "greedy", "--out", out)
    assert "cannot resume with different settings" in line and "run the new settings without --resume" in line
