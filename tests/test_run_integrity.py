"""Runs that never lie: verified resume, ``simcli verify``, damaged runs refused, the run lock, safe --out,
clean shutdown on SIGINT / SIGTERM, and workers that die with their parent.

Runs are tiny (40 greedy games in chunks of 5); the subprocess tests stop a run as soon as a chunk is done.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import traceback
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import simcli.commands.run as run_cmd
import simcli.runs.backends as backends
import simcli.runs.execute as execute
import simcli.runs.pieces as pieces
from simcli.cli import main
from simcli.rules.presets import load_rules
from simcli.runs import results
from simcli.runs.chunks import ChunkResult
from simcli.runs.integrity import check_run
from simcli.runs.lock import run_lock
from simcli.runs.spec import RunSpec
from simcli.runs.storage import done_chunks, read_manifest

N, SEED, CHUNK = 40, 7, 5


def cli(*args: Any, code: int = 0) -> Result:
    """Invoke ``simcli ARGS``; fail with the output and traceback unless it exits with ``code``."""
    res = CliRunner().invoke(main, [str(a) for a in args])
    if res.exit_code != code:
        tb = "".join(traceback.format_exception(*res.exc_info)) if res.exc_info else ""
        raise AssertionError(f"exit {res.exit_code}, wanted {code}\nstdout: {res.stdout}\nstderr: {res.stderr}\n{tb}")
    assert "Traceback" not in res.output
    return res


def one_error_line(res: Result) -> str:
    """The command's single stderr line, which must be an ``Error: ...``."""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("Error: ")
    return lines[0]


def spec(**kw: Any) -> RunSpec:
    """The RunSpec of ``simcli run -n 40 --seed 7 --chunk-size 5``."""
    fields: dict[str, Any] = {"variant": "classic", "rules": load_rules("classic").formatted(),
                              "strategies": ("greedy",) * 4, "seed": SEED, "games": N, "chunk_size": CHUNK}
    fields.update(kw)
    return RunSpec(**fields)


def snapshot(folder: Path) -> dict[Path, bytes]:
    """Every file under ``folder`` with its bytes."""
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def same_tables(a: Path, b: Path) -> None:
    """The consolidated tables of two complete runs are byte-identical."""
    for name in ("games.parquet", "deals.parquet"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert not (a / "errors.parquet").exists() and not (b / "errors.parquet").exists()


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The complete reference run."""
    out = tmp_path_factory.mktemp("clean") / "run"
    cli("run", "--games", N, "--seed", SEED, "--jobs", 1, "--chunk-size", CHUNK, "--out", out, "-q")
    return out


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run interrupted after five of its eight chunks."""
    out = tmp_path_factory.mktemp("partial") / "run"
    seen: list[int] = []

    def stop_after_five(n: int) -> None:
        seen.append(n)  # per piece; the piece that ends a chunk is counted once the chunk is written
        if sum(seen) == 5 * CHUNK:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute.execute_run(spec(), out, jobs=1, progress=stop_after_five)
    return out


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The chunks the (in-process) runner plays from now on (a chunk is played in pieces: counted at its first)."""
    chunks: list[int] = []
    real = pieces.play_piece

    def counting(s: RunSpec, piece: pieces.Piece) -> tuple[pieces.Piece, ChunkResult]:
        if piece.start == piece.chunk * s.chunk_size:
            chunks.append(piece.chunk)
        return real(s, piece)

    monkeypatch.setattr(pieces, "play_piece", counting)
    return chunks


# ------------------------------------------------------------------------------------------------ verify
def copy_without_checksums(partial: Path, run: Path) -> Path:
    """A copy of a run whose done-markers hold no file sizes and checksums: only rows and columns can tell damage."""
    shutil.copytree(partial, run)
    for marker in (run / "chunks").glob("done-*.json"):
        info = json.loads(marker.read_text())
        del info["files"]
        marker.write_text(json.dumps(info))
    return run


def test_verify_a_clean_run(clean: Path) -> None:
    res = cli("verify", clean)
    assert res.stdout.startswith(f"ok: {clean} is a complete run of {N} games")
    manifest = json.loads((clean / "run.json").read_text())
    assert set(manifest["tables"]) == {"games", "deals"}
    assert manifest["tables"]["games"]["rows"] == N
    assert len(manifest["tables"]["deals"]["sha256"]) == 64
    assert not (clean / "run.lock").exists()


def test_verify_an_interrupted_run(partial: Path) -> None:
    res = cli("verify", partial, code=3)
    # One line, on stdout like verify's "ok": the state of the run, and the command that finishes it.
    assert res.stderr == "" and len(res.stdout.strip().splitlines()) == 1
    assert "intact but not finished: status interrupted, 25 of 40 games in 5 finished chunk(s)" in res.stdout
    assert f"simcli run --resume --out {partial}" in res.stdout


def test_verify_needs_a_run(tmp_path: Path) -> None:
    assert "not a run directory" in one_error_line(cli("verify", tmp_path, code=1))
    assert "no run directory" in one_error_line(cli("verify", tmp_path / "nothing", code=1))


def flip_a_byte(path: Path) -> None:
    """Change one byte in the middle of a file, keeping its size (a readable Parquet file may still load)."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


# A complete run keeps only its consolidated tables: any damage to one means replaying every game.
COMPLETE_DAMAGE = {
    "games deleted": (lambda d: (d / "games.parquet").unlink(), "games.parquet: missing"),
    "games truncated": (lambda d: os.truncate(d / "games.parquet", 300), "games.parquet: truncated: 300 bytes"),
    "deals deleted": (lambda d: (d / "deals.parquet").unlink(), "deals.parquet: missing"),
    "deals byte flipped": (lambda d: flip_a_byte(d / "deals.parquet"), "deals.parquet: "),
    "stray errors table": (lambda d: shutil.copy(d / "games.parquet", d / "errors.parquet"),
                           "errors.parquet: should not exist"),
}


@pytest.mark.parametrize("damage", COMPLETE_DAMAGE)
def test_damaged_complete_run_is_refused_then_replayed(clean: Path, tmp_path: Path, played: list[int],
                                                      damage: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(clean, run)
    harm, says = COMPLETE_DAMAGE[damage]
    harm(run)
    res = cli("verify", run, code=1)
    assert says in res.stderr
    assert res.stderr.strip().splitlines()[-1] == (f"Error: run {run} is damaged (1 problem(s)); repair it with: "
                                                   f"simcli run --resume --out {run}")
    for command in (["report", run], ["compare", run, clean]):
        line = one_error_line(cli(*command, code=1))
        assert says in line and f"repair it with: simcli run --resume --out {run}" in line
    with pytest.raises(results.DamagedRunError, match="repair it with"):
        results.load(run)

    res = cli("run", "--resume", "--out", run, "--jobs", 1)
    assert f"replaying all {N} games: {says}" in res.stderr
    assert played == list(range(N // CHUNK))
    same_tables(run, clean)
    cli("verify", run)
    manifest = results.load(run).manifest
    assert manifest["status"] == "complete" and manifest["games_played"] == N
    assert says in manifest["repairs"][0]["what"]


def test_resuming_an_intact_complete_run_plays_nothing(clean: Path, tmp_path: Path, played: list[int]) -> None:
    run = tmp_path / "run"
    shutil.copytree(clean, run)
    (run / "chunks" / "done-00003.json").unlink()  # markers are not needed once the tables are consolidated
    res = cli("run", "--resume", "--out", run, "--jobs", 1)
    assert "nothing left to play" in res.stdout and played == []
    same_tables(run, clean)


def truncate_to(path: Path, size: int) -> None:
    os.truncate(path, size)


# An unfinished run: each damaged chunk, and only it, is played again.
CHUNK_DAMAGE = {
    "deals file deleted": (lambda d: (d / "deals-00003.parquet").unlink(), [3],
                           "chunks/deals-00003.parquet: missing"),
    "games file truncated": (lambda d: truncate_to(d / "games-00001.parquet", 100), [1],
                             "chunks/games-00001.parquet: truncated: 100 bytes"),
    "games file of another chunk": (lambda d: shutil.copy(d / "games-00002.parquet", d / "games-00004.parquet"),
                                    [4], "chunks/games-00004.parquet: "),
    "marker corrupt": (lambda d: (d / "done-00002.json").write_text('{"chunk": 2, "ga'), [2],
                       "chunks/done-00002.json: cannot be read"),
    "marker for another chunk": (lambda d: shutil.copy(d / "done-00000.json", d / "done-00001.json"), [1],
                                 "chunks/done-00001.json: names another chunk"),
    "two chunks": (lambda d: [(d / "games-00000.parquet").unlink(), (d / "done-00004.json").write_bytes(b"\xff")],
                   [0, 4], "chunks/games-00000.parquet: missing"),
}


@pytest.mark.parametrize("damage", CHUNK_DAMAGE)
def test_damaged_chunks_are_replayed_exactly(clean: Path, partial: Path, tmp_path: Path, played: list[int],
                                             damage: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(partial, run)
    harm, replay, says = CHUNK_DAMAGE[damage]
    harm(run / "chunks")
    check = check_run(run)
    assert sorted({p.chunk for p in check.problems}) == replay
    res = cli("verify", run, code=1)
    assert says in res.stderr
    line = one_error_line(cli("report", run, code=1))
    assert says in line and f"simcli run --resume --out {run}" in line

    res = cli("run", "--resume", "--out", run, "--jobs", 1)
    for k in replay:
        assert f"replaying {CHUNK} games of chunk {k}: chunks/" in res.stderr
    assert says in res.stderr
    assert played == sorted(replay + [5, 6, 7])  # the damaged chunks and the three never played, nothing else
    same_tables(run, clean)
    cli("verify", run)


def test_unreadable_manifest(partial: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(partial, run)
    (run / "run.json").write_text('{"spec": {"games": 4')
    res = cli("verify", run, code=1)
    assert "run.json: cannot be read" in res.stderr and "settings are lost" in res.stderr
    line = one_error_line(cli("run", "--resume", "--out", run, code=1))
    assert "run.json" in line
    assert "run.json: cannot be read" in one_error_line(cli("report", run, code=1))


def malformed(manifest: dict[str, Any], change: str) -> Any:
    """``manifest`` (a run's run.json) damaged as ``change`` says: still JSON, but not a run manifest."""
    spec = dict(manifest["spec"])
    if change == "a list":
        return []
    if change == "spec null":
        return {**manifest, "spec": None}
    if change == "spec without variant":
        del spec["variant"]
    elif change == "games not a number":
        spec["games"] = "forty"
    elif change == "strategies not a list":
        spec["strategies"] = 5
    elif change == "rules not a table":
        spec["rules"] = "classic"
    elif change == "rotate_seats not a flag":
        spec["rotate_seats"] = "yes"
    return {**manifest, "spec": spec}


@pytest.mark.parametrize("change", ["a list", "spec null", "spec without variant", "games not a number",
                                    "strategies not a list", "rules not a table", "rotate_seats not a flag"])
def test_resume_with_a_malformed_manifest_is_one_line(partial: Path, tmp_path: Path, change: str) -> None:
    """A run.json that is JSON but not a run manifest: ``--resume`` refuses it in one line (it raised a
    TypeError or KeyError with a traceback, or took ``rotate_seats: "yes"`` for true and doubled the run), naming
    the file and what to do, and changes nothing; ``verify`` and ``report`` say the same."""
    run = tmp_path / "run"
    shutil.copytree(partial, run)
    (run / "run.json").write_text(json.dumps(malformed(json.loads((run / "run.json").read_text()), change)))
    before = snapshot(run)
    line = one_error_line(cli("run", "--resume", "--out", run, "--jobs", 1, code=1))
    assert f"{run / 'run.json'} is not a run manifest" in line and "play it again into a new --out" in line
    assert snapshot(run) == before
    res = cli("verify", run, code=1)
    assert "run.json: is not a run manifest (" in res.stderr and "its settings are lost" in res.stderr
    assert "run.json: is not a run manifest (" in one_error_line(cli("report", run, code=1))
    assert snapshot(run) == before


def test_a_chunk_table_without_its_columns_is_replayed(partial: Path, clean: Path, tmp_path: Path,
                                                       played: list[int]) -> None:
    """The schema check: a chunk file that reads but lacks a column every games table has is damaged (markers
    without checksums, so only the columns can tell), and its chunk alone is played again."""
    import pyarrow.parquet as pq

    run = copy_without_checksums(partial, tmp_path / "run")
    games = run / "chunks" / "games-00003.parquet"
    pq.write_table(pq.read_table(games).drop(["winner_team"]), games)
    assert [str(p) for p in check_run(run).problems] == [
        "chunks/games-00003.parquet: lacks the column(s) winner_team of a games table (docs/results-format.md)"]
    assert "lacks the column(s) winner_team" in cli("verify", run, code=1).stderr
    cli("run", "--resume", "--out", run, "--jobs", 1, "-q")
    assert played == [3, 5, 6, 7]
    same_tables(run, clean)


def test_load_without_check_reads_a_damaged_run(partial: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(partial, run)
    (run / "chunks" / "deals-00001.parquet").unlink()
    with pytest.raises(results.DamagedRunError):
        results.load(run)
    assert len(results.load(run, check=False).games) == 25


# ------------------------------------------------------------------------------------------------- --out
def test_out_on_a_folder_of_other_files_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious\n")
    before = snapshot(out)
    line = one_error_line(cli("run", "--games", 5, "--jobs", 1, "--out", out, code=1))
    assert f"--out {out} is not empty and holds no simcli run" in line
    assert snapshot(out) == before and sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    cli("run", "--games", 5, "--jobs", 1, "--out", tmp_path / "empty", "-q")  # a new or empty folder is fine
    (tmp_path / "empty2").mkdir()
    cli("run", "--games", 5, "--jobs", 1, "--out", tmp_path / "empty2", "-q")


def test_default_names_are_unique_within_a_second(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Frozen:  # type: ignore[override]
            return cls(2026, 1, 2, 3, 4, 5)

    monkeypatch.setattr(run_cmd, "datetime", Frozen)
    monkeypatch.chdir(tmp_path)
    first = cli("run", "--games", 3, "--jobs", 1, "-q")
    second = cli("run", "--games", 3, "--jobs", 1, "--seed", 1, "-q")
    runs = tmp_path / "results" / "runs"
    assert sorted(p.name for p in runs.iterdir()) == ["classic-20260102-030405", "classic-20260102-030405-2"]
    assert "classic-20260102-030405/games.parquet" in first.stdout
    assert "classic-20260102-030405-2/games.parquet" in second.stdout
    assert results.load(runs / "classic-20260102-030405-2").manifest["seed"] == 1


def test_failed_set_up_leaves_no_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_workers(*args: Any, **kwargs: Any) -> Any:
        raise backends.BackendError("cannot start the workers")
        yield  # a generator, like the real backends

    monkeypatch.setattr(backends.LocalBackend, "results", no_workers)
    out = tmp_path / "new" / "run"
    assert "cannot start the workers" in one_error_line(cli("run", "--games", 5, "--out", out, code=1))
    assert not out.exists()
    monkeypatch.chdir(tmp_path)  # the same with a default name, made by `simcli run` itself
    one_error_line(cli("run", "--games", 5, code=1))
    assert list((tmp_path / "results" / "runs").iterdir()) == []


def test_a_crash_never_leaves_the_run_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = execute.write_chunk
    calls: list[int] = []

    def crash_on_second(run_dir: Path, chunk: ChunkResult) -> None:
        calls.append(chunk.index)
        if len(calls) == 2:
            raise MemoryError("no more memory")
        real(run_dir, chunk)

    monkeypatch.setattr(execute, "write_chunk", crash_on_second)
    out = tmp_path / "run"
    with pytest.raises(MemoryError):
        execute.execute_run(spec(), out, jobs=1)
    manifest = read_manifest(out)
    assert manifest["status"] == "failed" and manifest["error"]["error"] == "MemoryError"
    assert not (out / "run.lock").exists()
    monkeypatch.setattr(execute, "write_chunk", real)
    execute.execute_run(spec(), out, jobs=1, resume=True)
    assert read_manifest(out)["status"] == "complete"


# -------------------------------------------------------------------------------------------------- lock
def test_a_run_in_use_is_refused(partial: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(partial, run)
    with run_lock(run):
        assert (run / "run.lock").read_text().split()[0] == str(os.getpid())
        before = snapshot(run)
        line = one_error_line(cli("run", "--resume", "--out", run, "--jobs", 1, code=1))
        assert f"run is in use: process {os.getpid()}" in line and "run.lock" in line
        assert snapshot(run) == before
        res = CliRunner().invoke(main, ["verify", str(run)])
        assert res.exit_code == 4 and "run is in use" in res.stderr
    assert not (run / "run.lock").exists()
    # A lock file left by a process that died without releasing it (SIGKILL) holds no lock: taken over.
    (run / "run.lock").write_text("999999999 elsewhere\n")
    cli("run", "--resume", "--out", run, "--jobs", 1, "-q")
    assert results.load(run).complete and not (run / "run.lock").exists()


# --------------------------------------------------------------------------------------------- signals
def start_run(out: Path, n: int = 400, jobs: int = 2) -> subprocess.Popen[str]:
    """``simcli run`` in a subprocess (output in OUT.log), returned once its first chunk is done."""
    args = ["run", "--games", str(n), "--seed", "3", "--jobs", str(jobs), "--chunk-size", "5", "--out", str(out)]
    # Output goes to files, not pipes: an orphaned worker would hold a pipe open and hang the test.
    log = out.parent / f"{out.name}.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", "from simcli.cli import main; main()", *args],
                                stdout=fh, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while not list((out / "chunks").glob("done-*.json")):
        if proc.poll() is not None:
            raise AssertionError(log.read_text())
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("no chunk finished in 60 s")
        time.sleep(0.01)
    return proc


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize(("signals", "code"), [
    ([signal.SIGTERM], 143),
    # Ctrl-C is also in test_runner.py::test_ctrl_c_then_resume; a second signal stops at once.
    pytest.param([signal.SIGINT], 130, marks=pytest.mark.slow),
    pytest.param([signal.SIGTERM, signal.SIGTERM], 143, marks=pytest.mark.slow),
])
def test_signals_stop_the_run_cleanly(tmp_path: Path, signals: list[int], code: int) -> None:
    out = tmp_path / "run"
    proc = start_run(out)
    try:
        workers = children(proc.pid)
        assert len(workers) == 2
        for sig in signals:
            proc.send_signal(sig)
            time.sleep(0.05)
        proc.wait(timeout=60)
        err = (tmp_path / "run.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert "stopping after the chunks in flight..." in err
    assert f"simcli run --resume --out {out}" in err
    assert not any(alive(w) for w in workers)
    manifest = read_manifest(out)
    assert manifest["status"] == "interrupted"
    assert not (out / "run.lock").exists()
    kept = sorted(done_chunks(out))
    assert 0 < len(kept) < 80
    assert check_run(out).ok and len(results.load(out).games) == 5 * len(kept)


@pytest.mark.slow
def test_signal_then_resume_equals_a_whole_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = start_run(out, n=200)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode == 143
    cli("run", "--resume", "--out", out, "--jobs", 2, "-q")
    whole = tmp_path / "whole"
    cli("run", "--games", 200, "--seed", 3, "--jobs", 2, "--chunk-size", 5, "--out", whole, "-q")
    same_tables(out, whole)


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = start_run(out)
    workers = children(proc.pid)
    assert len(workers) == 2 and all(alive(w) for w in workers)
    proc.kill()  # SIGKILL: the parent cannot clean up, so the workers must notice on their own
    proc.wait()
    deadline = time.monotonic() + 5
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    orphans = [w for w in workers if alive(w)]
    for w in orphans:  # do not leave them running when the test fails
        os.kill(w, signal.SIGKILL)
    assert not orphans, "orphaned workers outlived their parent by 5 s"
    # Only SIGKILL leaves the run `running`: verify says so, and the stale lock does not stop a resume.
    assert read_manifest(out)["status"] == "running"
    assert (out / "run.lock").exists()
    with run_lock(out):  # the dead process's lock file is stale: taken over (a resume works)
        pass
    res = cli("verify", out, code=3)
    assert "status running (killed while running)" in res.stdout


def test_rows_are_checked_without_checksums(partial: Path, clean: Path, tmp_path: Path, played: list[int]) -> None:
    """Markers written before checksums existed: the rows themselves are checked against the chunk's games."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = copy_without_checksums(partial, tmp_path / "run")
    assert check_run(run).ok
    deals = run / "chunks" / "deals-00001.parquet"
    table = pq.read_table(deals)
    pq.write_table(table.filter(pa.compute.not_equal(table["game_index"], 7)), deals)  # game 7's deals gone
    doubled = run / "chunks" / "games-00002.parquet"
    table = pq.read_table(doubled)
    pq.write_table(pa.concat_tables([table.slice(0, 4), table.slice(0, 1)]), doubled)  # game 10 twice, 14 lost
    assert [str(p) for p in check_run(run).problems] == [
        "chunks/deals-00001.parquet: does not hold the deals of game 7 that the games table lists",
        "chunks/games-00002.parquet: holds game 10 more than once",
        "chunks/games-00002.parquet: lacks game 14 (in neither the games nor the errors table)",
        "chunks/games-00002.parquet: holds 24 deals in all, chunks/done-00002.json recorded 28",
        "chunks/deals-00002.parquet: does not hold the deals of game 14 that the games table lists",
    ]
    assert sorted({p.chunk for p in check_run(run).problems}) == [1, 2]
    cli("run", "--resume", "--out", run, "--jobs", 1, "-q")
    assert played == [1, 2, 5, 6, 7]
    same_tables(run, clean)
