"""User errors are one line on stderr and a non-zero exit, never a traceback (issue 12, item 3)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simcli.cli import main

BOOM = textwrap.dedent('''
    from simcli.strategy import Strategy

    class Boom(Strategy):
        def __init__(self, rng):
            raise ValueError("no table for me")
''')


def invoke(args: list[str]) -> Result:
    """Run the CLI in process (as the `simcli` script would)."""
    return CliRunner().invoke(main, args)


def setup_files(d: Path) -> None:
    """The files the cases refer to, in the working directory ``d``."""
    (d / "boom_init_bot.py").write_text(BOOM, encoding="utf-8")
    (d / "empty_bot.py").write_text("X = 1\n", encoding="utf-8")
    (d / "latin1.toml").write_bytes("# reglas de la casa: baraja española\ngoing_out_bonus = 200\n".encode("latin-1"))
    (d / "latin1.json").write_bytes('{"variant": "classic", "note": "señor"}'.encode("latin-1"))


#: (command line, what the one error line must contain)
CASES: list[tuple[list[str], list[str]]] = [
    (["run", "--seed", "-1"], ["bad --seed -1", "from 0 to 2**63-1"]),
    (["run", "--seed", str(2**63)], [f"bad --seed {2**63}", "from 0 to 2**63-1"]),
    (["play", "--seed", "-3"], ["bad --seed -3"]),
    (["play", "--game-index", "-1"], ["bad --game-index -1"]),
    (["bench", "--seed", "-1"], ["bad --seed -1"]),
    (["sweep", "--rule", "going_out_bonus=100,200", "--seed", "-1"], ["bad --seed -1"]),
    (["balance", "--seed", str(2**64)], [f"bad --seed {2**64}"]),
    (["run", "--strategies", "missing_bot.py"], ["strategy file 'missing_bot.py' not found"]),
    (["run", "--strategies", "empty_bot.py"], ["empty_bot.py defines no strategy"]),
    (["run", "--strategies", "empty_bot:Bot"], ["empty_bot has no 'Bot'"]),
    (["run", "--strategies", "no_such_module_q:Bot"], ["no module named 'no_such_module_q'"]),
    (["run", "--strategies", "greedy:depth=2"], ["unknown option 'depth' for strategy 'greedy'"]),
    (["run", "--strategies", "boom_init_bot.py,greedy,greedy,greedy", "-j", "1", "--out", "r-boom"],
     ["strategy 'boom_init_bot.py' at seat 0 raised ValueError: no table for me", "game 0 (seed 5"]),
    (["play", "--strategies", "greedy,boom_init_bot.py,greedy,greedy"],
     ["strategy 'boom_init_bot.py' at seat 1 raised ValueError: no table for me when built for game 0 (seed 5)"]),
    (["run", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "0.5"],
     ["cannot reach the Dask scheduler 'tcp://127.0.0.1:9' within 0.5 s"]),
    (["run", "--rules", "latin1.toml"], ["cannot read rules file latin1.toml: not UTF-8 text (byte 0xf1"]),
    (["score", "latin1.json"], ["cannot read position file 'latin1.json': not UTF-8 text (byte 0xf1"]),
    (["run", "--strategies", "boom_init_bot.py", "--on-error", "skip", "-j", "1", "--out", "r-skip"],
     ["every game failed (4 of 4)", "raised ValueError: no table for me", "r-skip/errors.parquet"]),
    (["run", "--scheduler", "tcp://127.0.0.1:9"], ["--scheduler does nothing here", "add --backend dask"]),
    (["run", "--backend", "dask", "--scheduler-timeout", "3"], ["--scheduler-timeout does nothing here"]),
    (["run", "--name", "x", "--out", "r-named"], ["--name does nothing here"]),
    (["compare", "run-a", "run-b", "--bootstrap-seed", "3"], ["--bootstrap-seed does nothing here"]),
    (["run", "--rule", "going_out_bonus=200", "--rule", "going_out_bonus=300"],
     ["rule knob going_out_bonus given twice (200 and 300); give each knob once"]),
    (["rules", "show", "classic", "--rule", "max_hands=2", "--rule", "max_hands=3"],
     ["rule knob max_hands given twice"]),
]


@pytest.mark.parametrize(("args", "parts"), CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_user_errors_are_one_line_without_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     args: list[str], parts: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    setup_files(tmp_path)
    if args[0] in ("run", "play", "sweep", "balance") and "--seed" not in args:
        args = [*args, "--seed", "5"]
    if args[0] in ("run", "sweep", "balance"):
        args = [*args, "-n", "4", "-q"] if args[0] == "run" else [*args, "-n", "4"]
    res = invoke(args)
    assert res.exit_code != 0, res.output
    assert "Traceback" not in res.stderr and "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("Error: ")
    for part in parts:
        assert part in lines[0]
    # Nothing on stdout: in particular no result paths (for files that do not exist).
    assert "Results:" not in res.stdout and ".parquet" not in res.stdout


def test_partly_failed_runs_list_only_files_that_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)  # failing_strategy.py is a module here
    out = tmp_path / "r"
    res = invoke(["run", "-n", "6", "--seed", "0", "-q", "-j", "1", "--strategies", "failing_strategy:FailOnTurnFive",
                  "--on-error", "skip", "--out", str(out)])
    assert res.exit_code == 0, res.output
    listed = res.stdout.split("Results: ")[1].split(" (schemas")[0].split(", ")
    assert sorted(Path(p).name for p in listed) == ["deals.parquet", "errors.parquet", "games.parquet", "run.json"]
    assert all(Path(p).exists() for p in listed)

