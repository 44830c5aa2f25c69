"""Small frictions of a first hour (issue 21, items 12 and 13): nested strategy names checked before any game,
``play --trace`` into a new folder, ``verify`` in one line, a resumed run's summary separating kept from played
games, and shell completion of variants, knobs and strategies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import cli, error_line

from simcli.rules.presets import load_rules
from simcli.runs import execute
from simcli.runs.spec import RunSpec

SHORT = ("--rule", "max_hands=1")


def test_a_nested_strategy_name_fails_before_any_game(tmp_path: Path) -> None:
    out = tmp_path / "r"
    line = error_line("run", "--games", 2, "--strategies", "mc:rollout=gredy", "--out", out, *SHORT)
    assert line.startswith("Error: strategy 'mc:rollout=gredy': unknown strategy 'gredy' (did you mean greedy?); "
                           "allowed: americana, ")
    assert not out.exists()  # refused before the run folder is made
    for command in (["match", "mc:rollout=gredy", "greedy"], ["play", "--strategies", "mc:rollout=gredy"],
                    ["tournament", "greedy,mc:rollout=gredy", "--out", tmp_path / "t"]):
        assert error_line(*command).startswith("Error: strategy 'mc:rollout=gredy': unknown strategy 'gredy'")
    assert not (tmp_path / "t").exists()


def test_play_trace_makes_its_folder_as_plot_out_does(tmp_path: Path) -> None:
    trace = tmp_path / "new" / "deeper" / "game.jsonl"
    cli("play", "--seed", 2, "--trace", trace, *SHORT)
    assert json.loads(trace.read_text().splitlines()[0])


def test_a_resumed_run_says_what_it_kept_and_what_it_played(tmp_path: Path) -> None:
    out = tmp_path / "r"
    rules = load_rules("classic", {"max_hands": 1}).formatted()
    spec = RunSpec(variant="classic", rules=rules, strategies=("greedy",) * 4, seed=3, games=20, chunk_size=5)
    seen: list[int] = []

    def stop(n: int) -> None:
        seen.append(n)  # per piece; the piece that ends a chunk is counted once the chunk is written
        if sum(seen) == 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute.execute_run(spec, out, jobs=1, progress=stop)
    res = cli("run", "--resume", "--out", out, "--jobs", 1, "-q")
    assert res.stdout.startswith("Kept 10 games an earlier run had finished and played 10 more, 20 games in all")


def complete(words: str, tmp_path: Path) -> list[str]:
    """What bash completion offers for the last word of ``simcli WORDS``."""
    env = {**os.environ, "COMP_WORDS": f"simcli {words}", "COMP_CWORD": str(len(words.split())),
           "_SIMCLI_COMPLETE": "bash_complete"}
    done = subprocess.run([sys.executable, "-m", "simcli"], env=env, cwd=tmp_path, capture_output=True, text=True,
                          check=True)
    return [line.split(",", 1)[1] for line in done.stdout.splitlines()]


def test_shell_completion_of_variants_knobs_and_strategies(tmp_path: Path) -> None:
    assert complete("run --variant po", tmp_path) == ["ponytail"]
    assert "pony_size=" in complete("run --rule pony", tmp_path)
    assert complete("sweep --rule pony_unlock=TE", tmp_path) == ["pony_unlock=TEAM_FIRST_CANASTA"]
    assert complete("run --strategies greedy,ra", tmp_path) == ["greedy,random"]
    assert complete("match po", tmp_path) == ["ponytail"]
    assert complete("rules show sp", tmp_path) == ["spanish"]
    assert complete("balance --variants classic,am", tmp_path) == ["classic,americana"]


# ------------------------------------------------------------------------------------------- --debug
TESTS_DIR = Path(__file__).resolve().parent
FAILING = "failing_strategy:FailOnTurnFive"  # raises in choose_discard on turn 5 when seat 0 deals first


def first_failing_game(seed: int) -> int:
    from simcli.primitives.seeding import first_dealer

    return next(g for g in range(100) if first_dealer(seed, g, 4) == 0)


def test_errors_table_keeps_the_strategy_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TESTS_DIR))
    out = tmp_path / "r"
    games = first_failing_game(1) + 1
    cli("run", "--games", games, "--seed", 1, "--jobs", 1, "--strategies", FAILING, "--on-error", "skip",
        "--out", out, "-q")
    from simcli.runs import results

    errors = results.load(out).errors
    tb = errors["traceback"].iloc[0]
    assert "failing_strategy.py" in tb and "in choose_discard" in tb
    assert tb.rstrip().endswith("RuntimeError: boom on turn 5")
    assert "\n" not in errors["message"].iloc[0]  # the message stays one line


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_prints_the_strategy_traceback_before_the_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             how: str) -> None:
    monkeypatch.syspath_prepend(str(TESTS_DIR))
    monkeypatch.setenv("SIMCLI_DEBUG", "1" if how == "env" else "0")  # restored after the test
    games = first_failing_game(1) + 1
    args = ["run", "--games", games, "--seed", 1, "--jobs", 1, "--strategies", FAILING, "--out", tmp_path / "r"]
    res = cli(*(["--debug"] if how == "flag" else []), *args, code=1)
    lines = res.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert any("failing_strategy.py" in line and "line" in line for line in lines)
    assert lines[-2] == "RuntimeError: boom on turn 5" and lines[-1].startswith("Error: game ")
    play = cli(*(["--debug"] if how == "flag" else []), "play", "--seed", 1, "--game-index", games - 1,
               "--strategies", FAILING, code=1)
    assert "in choose_discard" in play.stderr and play.stderr.strip().splitlines()[-1].startswith("Error: ")


def test_without_debug_a_failing_strategy_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TESTS_DIR))
    monkeypatch.delenv("SIMCLI_DEBUG", raising=False)
    games = first_failing_game(1) + 1
    line = error_line("run", "--games", games, "--seed", 1, "--jobs", 1, "--strategies", FAILING, "--out",
                      tmp_path / "r")
    assert "boom on turn 5" in line
