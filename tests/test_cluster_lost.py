"""A lost Dask scheduler or client connection (issue 49, item 1): one line saying what was lost, what is kept and
the command that finishes the work, from every command that plays; on a real cluster (a scheduler and two worker
processes started here as ``dask scheduler`` / ``dask worker`` processes) a worker killed mid-run changes nothing,
and a scheduler killed mid-run is that one line, after which ``--resume`` finishes the run as a local run plays it.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import error_line

import simcli.commands.common as common
from simcli.runs.backends import ClusterLost, LocalBackend, StopFlag
from simcli.runs.lost import lost_line, without_backend

pytest.importorskip("distributed")

ADDRESS = "tcp://10.9.8.7:8786"


class LostAfter(LocalBackend):
    """Local play in this process that loses its "scheduler" after ``keep`` results, as the Dask backend does."""

    name = "dask"

    def __init__(self, keep: int) -> None:
        super().__init__(1)
        self.keep = keep

    def results(self, play: Callable[[Any, Any], Any], spec: Any, todo: Iterable[Any], *,
                stop: StopFlag | None = None, ordered: bool = False) -> Iterator[Any]:
        for n, result in enumerate(super().results(play, spec, todo, stop=stop, ordered=ordered)):
            if n == self.keep:
                raise ClusterLost(f"the Dask scheduler {ADDRESS}", ADDRESS, "scheduler-connection-lost")
            yield result


COMMANDS: dict[str, tuple[str, ...]] = {
    "run": ("run", "--games", "40", "--chunk-size", "5", "--rule", "max_hands=1", "--out", "{out}"),
    "sweep": ("sweep", "--rule", "max_hands=1,2", "--games", "20", "--out", "{out}"),
    "balance": ("balance", "--variants", "classic,ponytail", "--games", "20", "--rule", "max_hands=1",
                "--out", "{out}"),
    "match": ("match", "greedy", "random", "--games", "40", "--batch", "5", "--rule", "max_hands=1", "--out", "{out}"),
    "tournament": ("tournament", "greedy,random", "--games", "20", "--rule", "max_hands=1", "--out", "{out}"),
    "ladder": ("ladder", "--rungs", "random,greedy", "--pairs", "10", "--rule", "max_hands=1", "--out", "{out}"),
    "train data": ("train", "data", "{out}", "--search", "mc:samples=2", "--strategies",
                   "mc:samples=2,random,mc:samples=2,random", "--games", "3", "--chunk", "1", "--rule", "max_hands=1",
                   "--quiet"),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_playing_command_says_a_lost_scheduler_in_one_line(name: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common.BackendChoice, "open", lambda self, jobs: LostAfter(1))
    out = tmp_path / "out"
    line = error_line(*(a.replace("{out}", str(out)) for a in COMMANDS[name]))
    assert line.startswith(f"Error: lost the connection to the Dask scheduler {ADDRESS} (scheduler-connection-lost)")
    assert f"kept in {out}" in line, line
    assert "; finish here with `" in line and f"--backend dask --scheduler {ADDRESS}`" in line, line
    here = line.split("finish here with `")[1].split("`")[0]
    assert "--backend" not in here
    if name in ("run", "match", "tournament", "ladder"):
        assert f"{name} --resume --out {out}" in here


def test_the_line_names_local_and_cluster_commands() -> None:
    exc = ClusterLost("the Dask scheduler tcp://h:1", "tcp://h:1", "scheduler-connection-lost")
    exc.keep("3 finished chunk(s) are kept in D", ["run", "--resume", "--out", "D", "--backend", "dask"])
    exc.keep("ignored: the first to know wins", ["x"])
    assert lost_line(exc) == (
        "lost the connection to the Dask scheduler tcp://h:1 (scheduler-connection-lost): 3 finished chunk(s) are "
        "kept in D; finish here with `run --resume --out D`, or on a cluster with `run --resume --out D --backend "
        "dask --scheduler tcp://h:1`")
    assert without_backend(["sweep", "--scheduler=x", "--backend", "dask", "--scheduler-timeout", "5", "-n", "3"]) \
        == ["sweep", "-n", "3"]


# ---------------------------------------------------------------------------------------------- a real cluster
def _python_module(module: str, *args: str, log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("wb")
    return subprocess.Popen([sys.executable, "-m", module, *args], stdout=handle, stderr=subprocess.STDOUT,
                            start_new_session=True)


class Cluster:
    """A ``dask scheduler`` and two ``dask worker`` processes (one thread each, no nanny) on this machine."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        file = folder / "scheduler.json"
        self.scheduler = _python_module("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                        "--dashboard-address", ":0", "--scheduler-file", str(file),
                                        log=folder / "scheduler.log")
        deadline = time.monotonic() + 60
        while not file.exists() or not file.read_text().strip().endswith("}"):
            assert time.monotonic() < deadline, (folder / "scheduler.log").read_text()
            time.sleep(0.1)
        import json

        self.address = json.loads(file.read_text())["address"]
        self.workers = [_python_module("distributed.cli.dask_worker", "--scheduler-file", str(file), "--nthreads",
                                       "1", "--no-nanny", "--no-dashboard", log=folder / f"worker{i}.log")
                        for i in range(2)]
        from distributed import Client

        with Client(self.address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)

    def close(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    found = Cluster(tmp_path)
    try:
        yield found
    finally:
        found.close()


RUN = ("run", "--games", "240", "--seed", "49", "--chunk-size", "10", "--rule", "max_hands=2", "--quiet")


def simcli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "simcli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "simcli", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for_chunks(run_dir: Path, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while len(list((run_dir / "chunks").glob("done-*.json"))) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def tables(run_dir: Path) -> dict[str, bytes]:
    return {name: (run_dir / name).read_bytes() for name in ("games.parquet", "deals.parquet")}


@pytest.mark.slow  # about 15 s: the scheduler's test below stays in the default run
def test_a_worker_killed_mid_run_changes_nothing(cluster: Cluster, tmp_path: Path) -> None:
    local = simcli(*RUN, "--jobs", "1", "--out", str(tmp_path / "local"), cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    proc = start(*RUN, "--out", str(tmp_path / "dask"), "--backend", "dask", "--scheduler", cluster.address,
                 cwd=tmp_path)
    wait_for_chunks(tmp_path / "dask", 2, proc)
    os.kill(cluster.workers[0].pid, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    print(stdout.splitlines()[0])
    assert tables(tmp_path / "dask") == tables(tmp_path / "local")


def test_a_scheduler_killed_mid_run_is_one_line_and_resume_finishes_it(cluster: Cluster, tmp_path: Path) -> None:
    run_dir = tmp_path / "dask"
    proc = start(*RUN, "--out", str(run_dir), "--backend", "dask", "--scheduler", cluster.address, cwd=tmp_path)
    wait_for_chunks(run_dir, 2, proc)
    os.kill(cluster.scheduler.pid, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    print(stderr)
    assert proc.returncode == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    # The client hears of the dead scheduler as a cancelled future or a closed comm, whichever comes first (a
    # matter of timing on a loaded machine): both are the lost connection's one line.
    assert any(lines[0].startswith(f"Error: lost the connection to the Dask scheduler {cluster.address} ({why}): ")
               for why in ("scheduler-connection-lost", "CommClosedError")), lines[0]
    assert f"are kept in {run_dir}; finish here with `" in lines[0]
    here = lines[0].split("finish here with `")[1].split("`")[0]
    assert here.endswith(f"run --resume --out {run_dir}")
    words = shlex.split(here)  # the command as printed (its program: python -m simcli), on local processes
    resumed = simcli(*words[words.index("run"):], "--quiet", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "an earlier run had finished" in resumed.stdout
    local = simcli(*RUN, "--jobs", "1", "--out", str(tmp_path / "local"), cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert tables(run_dir) == tables(tmp_path / "local")
