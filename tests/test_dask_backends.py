"""Every command that plays games runs on Dask (``--backend dask [--scheduler ADDRESS]``) with the results of local
processes bit for bit, and resumes there: ``match`` (fixed N and SPRT), ``tournament``, ``sweep`` and ``balance``.

One LocalCluster (2 worker processes, no dashboard) serves the module through ``--scheduler``; games are tiny (one
deal, greedy against random) so that the file stays within a minute of CPU. Interruptions are a Ctrl-C
(KeyboardInterrupt) raised after some work is stored, through the commands' own resume mechanisms.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli, error_line

import simcli.commands.match as match_cmd
import simcli.duplicate.tournament as series
import simcli.runs.backends as backends
from simcli.reporting import studies
from simcli.rules.presets import load_rules
from simcli.runs.chunks import play_chunk
from simcli.runs.spec import RunSpec

SHORT = ("--rule", "max_hands=1")  # one deal a game: the tests need games, not long ones
COMMANDS = {"match": ("match", "greedy", "random"), "tournament": ("tournament", "greedy,random"),
            "sweep": ("sweep", "--rule", "max_hands=1,2"), "balance": ("balance",),
            "ladder": ("ladder", "--rungs", "random,greedy")}


@pytest.fixture(scope="module")
def dask() -> Iterator[tuple[str, ...]]:
    """``--backend dask --scheduler ADDRESS`` of a LocalCluster shared by the module (2 worker processes)."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield "--backend", "dask", "--scheduler", cluster.scheduler_address, "--scheduler-timeout", "20"


def interrupt_after(module: Any, name: str, calls: int, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make ``module.name`` (a function that stores finished work) raise Ctrl-C after its ``calls``-th call, once
    the work is stored; returns the list that counts the calls."""
    real = getattr(module, name)
    seen: list[int] = []

    def stored_then_stop(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        seen.append(1)
        if len(seen) == calls:
            raise KeyboardInterrupt
        return out

    monkeypatch.setattr(module, name, stored_then_stop)
    return seen


def files(folder: Path, pattern: str) -> dict[str, bytes]:
    """The bytes of every file under ``folder`` matching ``pattern``, by relative path."""
    found = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.glob(pattern)) if p.is_file()}
    assert found, f"nothing matches {pattern} in {folder}"
    return found


def without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """A JSON object without the keys that name folders or command lines (which differ between two runs)."""
    return {k: v for k, v in data.items() if k not in keys}


# ---------------------------------------------------------------------------------------------- backends
class Flag:
    """A stop flag as the runner's signal handler sets it."""

    requested: int | None = None


@pytest.mark.parametrize("kind", ["local", "dask"])
def test_ordered_results_come_in_index_order_and_a_stop_ends_after_the_chunks_in_flight(
        kind: str, dask: tuple[str, ...]) -> None:
    spec = RunSpec(variant="classic", rules=load_rules("classic", {"max_hands": "1"}).formatted(),
                   strategies=("greedy", "random") * 2, seed=1, games=24, chunk_size=2)
    todo = list(range(12))
    with backends.open_backend(kind, 2, dask[3] if kind == "dask" else None) as backend:
        chunks = list(backend.results(play_chunk, spec, todo, ordered=True))
        assert [c.index for c in chunks] == todo
        assert [row["game_index"] for c in chunks for row in c.games] == list(range(24))
        flag = Flag()
        seen = []
        for chunk in backend.results(play_chunk, spec, todo, stop=flag, ordered=True):
            seen.append(chunk.index)
            flag.requested = 2  # Ctrl-C: nothing more is handed out
        assert seen == todo[:len(seen)] and len(seen) < len(todo)
        assert chunk.games == chunks[seen[-1]].games  # the same games whoever plays them


# ------------------------------------------------------------------------------------------------ match
MATCH = ("match", "greedy", "random", "--seed", 4, "--batch", 3, "--format", "json", *SHORT)


def test_match_of_fixed_n_on_dask_equals_local_processes(dask: tuple[str, ...], tmp_path: Path) -> None:
    local = cli(*MATCH, "--games", 24, "--jobs", 2, "--out", tmp_path / "local")
    on_dask = cli(*MATCH, "--games", 24, *dask, "--out", tmp_path / "dask")
    assert on_dask.stdout == local.stdout
    assert json.loads(local.stdout)["pairs"] == 12
    assert files(tmp_path / "dask", "batches/*") == files(tmp_path / "local", "batches/*")
    assert len(files(tmp_path / "dask", "batches/*")) == 4
    assert (tmp_path / "dask" / "result.json").read_bytes() == (tmp_path / "local" / "result.json").read_bytes()


def test_sprt_on_dask_stops_where_local_processes_stop(dask: tuple[str, ...], tmp_path: Path) -> None:
    sprt = ("--sprt", "elo0=0,elo1=50", "--max-games", 400, "--seed", 2, "--batch", 5)
    args = ("match", "greedy", "random", *sprt, "--format", "json", *SHORT)
    local = cli(*args, "--jobs", 2, "--out", tmp_path / "local")
    on_dask = cli(*args, *dask, "--out", tmp_path / "dask")
    data = json.loads(local.stdout)
    assert data["sprt"]["result"] == "H1" and data["pairs"] < 200  # the test stopped before --max-games
    assert on_dask.stdout == local.stdout
    llr = [line for line in local.stderr.splitlines() if "LLR" in line]
    assert len(llr) == data["pairs"] // 5
    assert [line for line in on_dask.stderr.splitlines() if "LLR" in line] == llr
    # No batch beyond the stopping point is stored, on either backend.
    assert files(tmp_path / "dask", "batches/*") == files(tmp_path / "local", "batches/*")


def test_interrupted_match_resumed_on_dask_equals_the_uninterrupted_local_one(
        dask: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = cli(*MATCH, "--games", 30, "--jobs", 2)
    out = tmp_path / "m"
    seen = interrupt_after(match_cmd, "write_batch", 2, monkeypatch)
    stopped = cli(*MATCH, "--games", 30, *dask, "--out", out, code=130)
    assert "match --resume --out" in stopped.stderr and len(seen) == 2
    assert f"--out {out} --backend dask --scheduler {dask[3]}" in stopped.stderr  # continues where it played
    assert len(files(out, "batches/*")) == 2
    monkeypatch.undo()
    resumed = cli("match", "--resume", "--out", out, "--format", "json", *dask)
    assert resumed.stdout == local.stdout
    assert "6 stored pairs reused, 9 played" in resumed.stderr


# ------------------------------------------------------------------------------------------- tournament
TOURNAMENT = ("tournament", "greedy,random,ponytail", "--games", 8, "--seed", 3, "--quiet", *SHORT)


def tournament_outputs(out: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """``ratings.json`` without its command line, and the bytes of the match files and tables."""
    data = json.loads((out / "ratings.json").read_text())
    return without(data, "command"), {**files(out, "matches/*"), **files(out, "*.csv")}


def test_tournament_interrupted_and_resumed_on_dask_equals_local_processes(
        dask: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli(*TOURNAMENT, "--jobs", 2, "--out", tmp_path / "local")
    out = tmp_path / "dask"
    interrupt_after(series, "write_match", 1, monkeypatch)
    stopped = cli(*TOURNAMENT, *dask, "--out", out, code=130)
    assert f"tournament --resume --out {out} --backend dask --scheduler {dask[3]}" in stopped.stderr
    assert len(files(out, "matches/*")) == 1
    monkeypatch.undo()
    resumed = cli("tournament", "--resume", "--out", out, *dask)
    assert "match 1/3: greedy vs random: stored, verified (reused)" in resumed.stdout
    assert tournament_outputs(out) == tournament_outputs(tmp_path / "local")
    assert len(files(out, "matches/*")) == 3


LADDER = ("ladder", "--rungs", "random,greedy,ponytail", "--pairs", 4, "--seed", 3, "--quiet", "--bootstrap", 50,
          *SHORT)


def ladder_outputs(out: Path) -> dict[str, bytes]:
    """The bytes of a ladder's match files and reports (none holds a time or a command line; ``ladder.json``, the
    settings written first, holds the command that started it)."""
    return {**files(out, "matches/*"), **files(out, "*.csv"), **files(out, "ratings.json"), **files(out, "*.md")}


def test_ladder_interrupted_and_resumed_on_dask_equals_local_processes(
        dask: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli(*LADDER, "--jobs", 2, "--out", tmp_path / "local")
    out = tmp_path / "dask"
    interrupt_after(series, "write_match", 1, monkeypatch)
    stopped = cli(*LADDER, *dask, "--out", out, code=130)
    assert f"ladder --resume --out {out} --backend dask --scheduler {dask[3]}" in stopped.stderr
    assert len(files(out, "matches/*")) == 1
    monkeypatch.undo()
    cli("ladder", "--resume", "--out", out, *dask)
    assert ladder_outputs(out) == ladder_outputs(tmp_path / "local")
    assert len(files(out, "matches/*")) == 3


def test_a_command_opens_one_dask_client_and_one_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without --scheduler, --backend dask starts a local cluster of --jobs workers: once for the three matches.
    from distributed import LocalCluster

    clients: list[Any] = []
    clusters: list[Any] = []
    real_client = backends._new_client

    def counted_client(address: Any) -> Any:
        clients.append(address)
        return real_client(address)

    class CountedCluster(LocalCluster):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            clusters.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(backends, "_new_client", counted_client)
    monkeypatch.setattr("distributed.LocalCluster", CountedCluster)
    cli(*TOURNAMENT, "--games", 4, "--backend", "dask", "--jobs", 2, "--out", tmp_path / "t")
    assert len(files(tmp_path / "t", "matches/*")) == 3
    assert len(clients) == 1
    assert [c["n_workers"] for c in clusters] == [2]


# ------------------------------------------------------------------------------------------ sweep, balance
def stop_in_second_run(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Ctrl-C after the first chunk of the second run of a sweep or balance (its first chunk stored)."""
    real = studies.execute_run
    runs: list[int] = []

    def execute(*args: Any, progress: Callable[[int], None] | None = None, **kwargs: Any) -> Any:
        runs.append(1)
        done = args[1] / "chunks"

        def stop_after_a_chunk(n: int) -> None:
            # Progress comes per piece; the piece that ends a chunk is counted once the chunk is written.
            if progress is not None:
                progress(n)
            if len(runs) == 2 and any(done.glob("done-*")):
                raise KeyboardInterrupt

        return real(*args, progress=stop_after_a_chunk, **kwargs)

    monkeypatch.setattr(studies, "execute_run", execute)
    return runs


def run_tables(out: Path) -> dict[str, bytes]:
    """The bytes of every run's consolidated tables under a sweep or balance folder."""
    return files(out, "*/*.parquet")


SWEEP = ("sweep", "--rule", "max_hands=1,2", "--games", 40, "--seed", 5, "--format", "json")


def test_sweep_interrupted_and_resumed_on_dask_equals_local_processes(
        dask: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = cli(*SWEEP, "--jobs", 2, "--out", tmp_path / "local")
    out = tmp_path / "dask"
    runs = stop_in_second_run(monkeypatch)
    stopped = cli(*SWEEP, *dask, "--out", out, code=130)
    assert len(runs) == 2 and "continue with the same command" in stopped.stderr
    assert len(list((out / "max_hands=2" / "chunks").glob("done-*"))) == 1  # one of its two chunks is kept
    monkeypatch.undo()
    resumed = cli(*SWEEP, *dask, "--out", out)
    assert "max_hands=1: reused the finished run (nothing played)" in resumed.stderr
    assert "kept 20 an earlier run had finished" in resumed.stderr
    assert run_tables(out) == run_tables(tmp_path / "local")
    assert (out / "sweep.csv").read_bytes() == (tmp_path / "local" / "sweep.csv").read_bytes()
    assert json.loads(resumed.stdout)["rows"] == json.loads(local.stdout)["rows"]


LEVELS = ("sweep", "--rule", "max_hands=1,2", "--levels", "greedy,random", "--games", 20, "--seed", 5)


def test_sweep_by_levels_on_dask_equals_local_processes(dask: tuple[str, ...], tmp_path: Path) -> None:
    local = cli(*LEVELS, "--jobs", 2, "--out", tmp_path / "local")
    on_dask = cli(*LEVELS, *dask, "--out", tmp_path / "dask")
    assert files(tmp_path / "dask", "*/*/*.parquet") == files(tmp_path / "local", "*/*/*.parquet")
    assert len(files(tmp_path / "local", "*/*/*.parquet")) >= 4  # two levels x two values, each its tables
    assert on_dask.stdout.replace("dask", "local") == local.stdout


BALANCE = ("balance", "--variants", "classic,ponytail", "--games", 40, "--seed", 6, "--format", "json", *SHORT)


def test_balance_interrupted_and_resumed_on_dask_equals_local_processes(
        dask: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = cli(*BALANCE, "--jobs", 2, "--out", tmp_path / "local")
    out = tmp_path / "dask"
    stop_in_second_run(monkeypatch)
    cli(*BALANCE, *dask, "--out", out, code=130)
    assert not (out / "ponytail" / "games.parquet").exists()
    monkeypatch.undo()
    resumed = cli(*BALANCE, *dask, "--out", out)
    assert run_tables(out) == run_tables(tmp_path / "local")
    assert (out / "balance.csv").read_bytes() == (tmp_path / "local" / "balance.csv").read_bytes()
    assert json.loads(resumed.stdout)["rows"] == json.loads(local.stdout)["rows"]
    for name in ("classic", "ponytail"):
        assert json.loads((out / name / "run.json").read_text())["backend"] == "dask"


# ----------------------------------------------------------------------------------------------- options
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_scheduler_without_dask_backend_is_refused_on_every_command(command: str) -> None:
    assert error_line(*COMMANDS[command], "--scheduler", "tcp://10.0.0.1:8786") == (
        "Error: --scheduler does nothing here: --scheduler is the address of a Dask cluster; add --backend dask")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_unreachable_scheduler_is_one_line_before_anything_is_written(command: str, tmp_path: Path) -> None:
    import dask

    key = "distributed.comm.timeouts.connect"
    with dask.config.set({key: dask.config.get(key)}):  # the probe sets the connect timeout: put it back after
        line = error_line(*COMMANDS[command], "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9",
                          "--scheduler-timeout", "0.5", "--out", tmp_path / "out")
    assert line.startswith("Error: cannot reach the Dask scheduler 'tcp://127.0.0.1:9' within 0.5 s")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["run", *sorted(COMMANDS)])
def test_a_missing_dask_extra_is_the_install_hint(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    args = COMMANDS.get(command, ("run", "-n", 2))
    assert error_line(*args, "--backend", "dask") == (
        "Error: --backend dask needs the dask extra: pip install -e '.[dask]'")


def test_the_backend_options_are_the_same_on_every_command() -> None:
    helps = {c: cli(c, "--help").stdout for c in ("run", *COMMANDS)}
    block = helps["run"][helps["run"].index("--backend"):helps["run"].index("--scheduler-timeout")]
    assert "Dask scheduler address" in block
    for command, text in helps.items():
        assert block in text, command
