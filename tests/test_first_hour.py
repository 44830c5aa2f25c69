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

from simcli import runner
from simcli.rules import load_rules
from simcli.runner import RunSpec

SHORT = ("--rule", "max_hands=1")


def test_a_nested_strategy_name_fails_before_any_game(tmp_path: Path) -> None:
    out = tmp_path / "r"
    line = error_line("run", "--games", 2, "--strategies", "mc:rollout=gredy", "--out", out, *SHORT)
    assert line.startswith("Error: strategy 'mc:rollout=gredy': unknown strategy 'gredy'; allowed: americana, ")
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
        seen.append(n)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.execute_run(spec, out, jobs=1, progress=stop)
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
