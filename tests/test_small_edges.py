"""Small things of a first hour (issue 34, item 7): plot's help without reST markup, a plot of several runs titled
by what differs between them, ``sweep --quiet``, "did you mean" for a misspelled strategy, the build hint on a
line of its own on a terminal, a finished run that lost its run.json rebuilt from its done-markers and tables
(and ``verify`` saying how), and a finished run's missing done-marker named by ``verify``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from cli_helpers import FakeTty, cli, error_line

import simcli.commands.run as run_cmd
from simcli.commands import hints
from simcli.reporting.figures import metric_figure
from simcli.runs import execute
from simcli.runs.results import load
from simcli.runs.spec import RunSpec
from simcli.stats import metric

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SHORT = ("--rule", "max_hands=2")


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of 30 games in 3 chunks (a house rule, so that the rules matter to a rebuild)."""
    out = tmp_path_factory.mktemp("edges") / "run"
    cli("run", "--games", 30, "--chunk-size", 10, "--seed", 3, "--jobs", 1, "-q", "--out", out,
        "--rule", "max_hands=2", "--rule", "going_out_bonus=300")
    return out


def title_of(fig: Figure) -> str:
    """A figure's title: its suptitle (the ci panels) or its one axes' title (the distributions)."""
    return fig._suptitle.get_text() if fig._suptitle is not None else fig.axes[0].get_title()  # noqa: SLF001


def copy_of(run: Path, tmp_path: Path) -> Path:
    """A copy of a run to damage."""
    return Path(shutil.copytree(run, tmp_path / run.name))


# ------------------------------------------------------------------------------------------------ plot
def test_plot_help_has_no_markup() -> None:
    text = cli("plot", "--help").stdout
    assert "``" not in text and "or with --kind ci each run's estimate" in " ".join(text.split())


def test_a_plot_of_several_runs_is_titled_by_what_differs(finished: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    cli("run", "--games", 30, "--chunk-size", 10, "--seed", 3, "--jobs", 1, "-q", "--out", other,
        "--rule", "max_hands=2")
    runs = [load(other), load(finished)]
    fig, _ = metric_figure(runs, metric("deals"), "hist")
    assert title_of(fig).splitlines() == ["deals per game: going_out_bonus 100 vs 300",
                                  "variant classic; strategies greedy x4; 30 games; seed 3"]
    twin = load(copy_of(finished, tmp_path))  # the same settings in another folder
    fig, _ = metric_figure([runs[1], twin], metric("win_team_0"), "ci")
    assert title_of(fig).startswith("team 0 win rate: 2 runs of the same settings\n")


# --------------------------------------------------------------------------------------- sweep --quiet
@pytest.mark.parametrize("quiet", [False, True])
def test_sweep_and_balance_take_quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quiet: bool) -> None:
    monkeypatch.setattr(hints, "sys", FakeTty())
    flag = ["--quiet"] if quiet else []
    res = cli("sweep", "--rule", "going_out_bonus=100,300", "--games", 4, "--jobs", 1, "--metric", "deals",
              "--set", "max_hands=1", "--out", tmp_path / "s", *flag)
    assert "going_out_bonus" in res.stdout  # the table is printed either way
    bal = cli("balance", "--games", 4, "--jobs", 1, "--rule", "max_hands=1", "--out", tmp_path / "b", *flag)
    assert "classic" in bal.stdout
    for stderr in (res.stderr, bal.stderr):
        if quiet:  # only the files saved, as run --quiet still names its results
            assert [line.split(" ")[0] for line in stderr.splitlines()] == ["saved"], stderr
        else:
            assert "4/4" in stderr and "played 4 games" in stderr


# ------------------------------------------------------------------------------------- did you mean
def test_a_misspelled_strategy_gets_did_you_mean() -> None:
    line = error_line("run", "--strategies", "gredy", "--games", 1)
    assert line.startswith("Error: unknown strategy 'gredy' (did you mean greedy?); allowed: americana, ")
    assert "did you mean ponytail?" in error_line("match", "ponytial", "greedy")
    assert "did you mean" not in error_line("run", "--strategies", "zzzz", "--games", 1)


# -------------------------------------------------------------------------------------------- build hint
def test_the_build_hint_has_a_line_of_its_own_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_cmd, "sys", FakeTty())
    monkeypatch.setattr(hints, "sys", FakeTty())
    monkeypatch.setattr(hints, "LONG_RUN_GAMES", 1)
    monkeypatch.setattr(hints, "pure_build", lambda: True)
    monkeypatch.delenv(hints.NO_HINT_ENV, raising=False)
    commands = [["run", "--games", 3, "--jobs", 1, "--out", tmp_path / "r", "--rule", "max_hands=1"],
                ["sweep", "--rule", "going_out_bonus=100,300", "--games", 3, "--jobs", 1, "--metric", "deals",
                 "--set", "max_hands=1", "--out", tmp_path / "s"],
                ["match", "greedy", "random", "--games", 4, "--jobs", 1, "--rule", "max_hands=1"]]
    for command in commands:
        monkeypatch.setattr(hints, "_hinted", False)
        stderr = cli(*command).stderr
        # A terminal's bar redraws its line after a carriage return and ends it with a newline when it closes:
        # the hint must start a line, not follow the bar on its line.
        lines = re.split(r"[\r\n]", stderr)
        hint = [line for line in lines if "compiled build plays the same games" in line]
        assert hint and all(line.startswith("note: ") for line in hint), (command[0], stderr)


# ------------------------------------------------------------------------------------ a lost run.json
def test_verify_says_how_to_rebuild_a_lost_manifest(finished: Path, tmp_path: Path) -> None:
    run = copy_of(finished, tmp_path)
    (run / "run.json").unlink()
    line = error_line("verify", run)
    assert line == (f"Error: {run} has lost its run.json, but its done-markers and tables are there (seed 3, 30 "
                    f"games, strategies greedy,greedy,greedy,greedy); rebuild run.json with: simcli run --resume "
                    f"--out {run} and the --variant and --rule options it was played with (no table stores them; "
                    f"a game played again checks them)")


def test_resume_rebuilds_a_finished_runs_lost_manifest(finished: Path, tmp_path: Path) -> None:
    run = copy_of(finished, tmp_path)
    (run / "run.json").unlink()
    # Without the house rule the first game comes out otherwise: refused, one line, nothing written.
    line = error_line("run", "--resume", "--out", run, "--rule", "max_hands=2")
    assert line.startswith(f"Error: cannot rebuild {run}/run.json: game 0 played again differs (")
    assert line.endswith("; give the settings the run was played with (its variant and --rule options)")
    assert not (run / "run.json").exists()
    res = cli("run", "--resume", "--out", run, "--rule", "max_hands=2", "--rule", "going_out_bonus=300")
    assert "nothing left to play, the finished run was reused" in res.stdout
    assert "rebuilt" in res.stderr
    assert cli("verify", run).stdout.startswith(f"ok: {run} is a complete run of 30 games")
    old, new = (json.loads((d / "run.json").read_text()) for d in (finished, run))
    assert new["spec"] == old["spec"] and new["tables"] == old["tables"] and new["status"] == "complete"
    assert (new["hands"], new["games_played"], new["errors"], new["chunks"]) == (
        old["hands"], old["games_played"], old["errors"], old["chunks"])
    assert new["rebuilt"]["from"].startswith("done-markers and tables")
    assert (run / "games.parquet").read_bytes() == (finished / "games.parquet").read_bytes()


def test_resume_rebuilds_an_unfinished_runs_lost_manifest(finished: Path, tmp_path: Path) -> None:
    rules = json.loads((finished / "run.json").read_text())["spec"]["rules"]
    spec = RunSpec(variant="classic", rules=rules, strategies=("greedy",) * 4, seed=3, games=30, chunk_size=10)
    out = tmp_path / "cut"

    def stop(n: int) -> None:
        if len(list((out / "chunks").glob("done-*.json"))) >= 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute.execute_run(spec, out, jobs=1, progress=stop)
    (out / "run.json").unlink()
    line = error_line("run", "--resume", "--out", out)
    assert "not every chunk finished, so its number of games is unknown: give --games N" in line
    cli("run", "--resume", "--out", out, "--games", 30, "--jobs", 1, "-q", "--rule", "max_hands=2",
        "--rule", "going_out_bonus=300")
    for name in ("games", "deals"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"),
                                      pd.read_parquet(finished / f"{name}.parquet"))


# ------------------------------------------------------------------------- a finished run's done-marker
def test_verify_names_a_finished_runs_missing_done_marker(finished: Path, tmp_path: Path) -> None:
    run = copy_of(finished, tmp_path)
    (run / "chunks" / "done-00001.json").unlink()
    res = cli("verify", run)
    assert res.stdout.strip().endswith("every file matches run.json; chunks/done-00001.json missing: not needed "
                                       "by a finished run, only to rebuild a lost run.json")
    assert cli("verify", finished).stdout.strip().endswith("every file matches run.json")
