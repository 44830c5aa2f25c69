"""Batch runs: chunks of seeded games on local processes or Dask, written atomically, resumable.

Data flows one way: (master seed, game index) -> :func:`play_chunk` in a worker -> rows -> the
parent writes each finished chunk atomically under ``RUN_DIR/chunks/`` -> at the end the chunks
are streamed into ``games.parquet`` / ``deals.parquet`` (or CSV). Game ``i`` depends only on the
run's settings and ``i``, so results are identical for any number of jobs, chunk order or backend.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simcli import __version__
from simcli.engine.trace import TraceWriter
from simcli.players.seating import play_game
from simcli.primitives.errors import EngineError, StrategyError
from simcli.rules.presets import diff, load_rules
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import HELD_LOCKS, Backend, BackendError, use_backend
from simcli.runs.integrity import (
    CHUNK_DIR,
    LOCK,
    MANIFEST,
    TABLES,
    Problem,
    check_consolidated,
    check_run,
    chunk_games,
    file_digest,
    read_marker,
)
from simcli.runs.records import deal_rows, game_row


class RunError(RuntimeError):
    """A run that cannot start or go on: bad output folder, refused resume, a failed game."""


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (and must match to resume it)."""

    variant: str
    rules: dict[str, str]  # every knob, formatted as on the command line
    strategies: tuple[str, ...]
    seed: int
    games: int
    rotate_seats: bool = False
    chunk_size: int = 100
    on_error: str = "stop"
    trace_games: int = 0

    def comparable(self) -> dict[str, Any]:
        """The fields a resume must agree on."""
        d = asdict(self)
        d["strategies"] = list(self.strategies)
        return d


def default_chunk_size(games: int) -> int:
    """Chunk size from N alone (never from --jobs, so files are the same for any jobs).

    About 24 chunks per run, 20 to 500 games each: enough chunks to keep every worker busy and the
    progress bar moving, few enough that writing them costs little next to playing them.
    """
    return max(20, min(500, games // 24 or 1))


def rotated(strategies: tuple[str, ...], rotation: int) -> list[str]:
    """Seat assignment for a rotation: rotation 1 shifts every strategy one seat, swapping partnerships."""
    p = len(strategies)
    return [strategies[(s + rotation) % p] for s in range(p)]


@dataclass
class ChunkResult:
    """What a worker sends back for one chunk: rows, errors, traces and timing."""

    index: int
    games: list[dict[str, Any]] = field(default_factory=list)
    deals: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    traces: dict[str, str] = field(default_factory=dict)
    hands: int = 0
    seconds: float = 0.0
    fatal: str | None = None


@functools.lru_cache(maxsize=8)
def _chunk_rules(variant: str, knobs: tuple[tuple[str, str], ...]) -> RuleSet:
    # A worker plays many chunks of the same run: validate its (frozen) rules once, not once a chunk.
    return load_rules(variant, dict(knobs))


def play_chunk(spec: RunSpec, index: int) -> ChunkResult:
    """Play the games of chunk ``index`` and return their rows (runs in a worker process)."""
    import io

    rules = _chunk_rules(spec.variant, tuple(spec.rules.items()))
    n_teams = rules.n_teams
    team_of = [s % n_teams for s in range(rules.num_players)]
    out = ChunkResult(index=index)
    start = index * spec.chunk_size
    stop = min(spec.games, start + spec.chunk_size)
    t0 = time.perf_counter()
    rotations = (0, 1) if spec.rotate_seats else (0,)
    for game_index in range(start, stop):
        for rotation in rotations:
            names = rotated(spec.strategies, rotation)
            buffer = io.StringIO() if game_index < spec.trace_games else None
            writer = TraceWriter(buffer) if buffer is not None else None
            if writer is not None:
                writer.header(variant=spec.variant, seed=spec.seed, game_index=game_index, rotation=rotation,
                              strategies=names, rules=rules.formatted(),
                              rules_diff={k: v[1] for k, v in diff(rules).items()},
                              num_players=rules.num_players, n_teams=n_teams)
            try:
                result = play_game(rules, names, spec.seed, game_index, emit=writer)
            except (StrategyError, EngineError) as exc:
                err = {
                    "game_index": game_index, "rotation": rotation, "seed": spec.seed,
                    "deal_index": getattr(exc, "deal_index", -1), "seat": getattr(exc, "seat", -1),
                    "strategy": getattr(exc, "strategy", ""), "turn": getattr(exc, "turn", -1),
                    "error": type(exc).__name__, "message": str(exc), "traceback": cause_traceback(exc),
                }
                out.errors.append(err)
                if spec.on_error != "skip":
                    out.fatal = str(exc)
                    out.seconds = time.perf_counter() - t0
                    return out
                continue
            out.games.append(game_row(result, rotation, n_teams))
            out.deals.extend(deal_rows(result, rotation, n_teams, team_of))
            out.hands += len(result.deals)
            if buffer is not None:
                out.traces[f"game-{game_index:06d}-r{rotation}.jsonl"] = buffer.getvalue()
    out.seconds = time.perf_counter() - t0
    return out


def cause_traceback(exc: BaseException) -> str:
    """The traceback of what a strategy raised (the error's cause: the file and line in the strategy), or of the
    error itself for an illegal decision or an engine error; kept in the errors table and shown by --debug."""
    import traceback

    return "".join(traceback.format_exception(exc.__cause__ or exc)).rstrip("\n")


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal (SIGINT, SIGTERM or SIGHUP); finished chunks are kept."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class GameFailed(RunError):
    """A game failed with ``--on-error stop``: the run is marked failed and its finished chunks are kept."""

    def __init__(self, message: str, traceback: str = "") -> None:
        super().__init__(message)
        #: The failing strategy's traceback (shown with --debug).
        self.traceback = traceback


class RunInUse(RunError):
    """Another live process holds the run's lock."""


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Stopper:
    """Signal handling of a run: the first signal stops it after the chunks in flight, a second at once.

    ``requested`` is the first signal received; the backends stop handing out chunks when it is set. A second
    signal raises :class:`Interrupted` at once, except while a chunk or the manifest is being written
    (:meth:`held`), where it is delivered when the write is complete: raised mid-write it would leave a chunk
    without its marker, or be lost in a finalizer (pyarrow's ``ParquetWriter.__del__``).
    """

    def __init__(self, notify: Callable[[str], None]) -> None:
        self.notify = notify
        self.requested: int | None = None
        self._holding = 0
        self._deferred: int | None = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested is None:
            self.requested = signum
            what = "" if signum == signal.SIGINT else f"{signal.Signals(signum).name}: "
            try:
                self.notify(f"{what}stopping after the chunks in flight... (Ctrl-C again to stop at once)")
            except (OSError, ValueError):  # a closed terminal (SIGHUP) must not stop the clean shutdown
                pass
            return
        if self._holding:
            self._deferred = signum
            return
        raise Interrupted(signum)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Handle the stop signals while the block runs (main thread only; a signal ignored stays ignored)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {}
        for sig in STOP_SIGNALS:
            current = signal.getsignal(sig)
            if current == signal.SIG_IGN or (sig != signal.SIGINT and current != signal.SIG_DFL):
                continue  # nohup's ignored SIGHUP, a host program's own handler: theirs
            previous[sig] = signal.signal(sig, self._handle)
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold a second signal until the block (a chunk or manifest write) is complete, then deliver it."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
        if not self._holding and self._deferred is not None:
            signum, self._deferred = self._deferred, None
            raise Interrupted(signum)


# ----------------------------------------------------------------------------- lock
@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold ``RUN_DIR/run.lock`` while a process writes the run, so a second one is refused ("run is in use").

    The lock is an ``flock`` on the file, which the system releases when its process dies however it dies:
    a lock file left behind by a killed run is stale and taken over. The file names the holder's pid and host
    for the message. Without ``fcntl`` (Windows) the file is created exclusively and a dead holder's pid
    is taken over.
    """
    path = run_dir / LOCK
    me = f"{os.getpid()} {socket.gethostname()}\n".encode()
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        fcntl = None  # type: ignore[assignment]
    if fcntl is None:  # pragma: no cover - Windows
        yield from _pid_lock(path, me)
        return
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(path)
            os.close(fd)
            raise RunInUse(f"run is in use: {holder} is writing {run_dir} (it holds {path}); wait for it to "
                           f"finish or stop it, then run again") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed the file as we opened it: lock the new one
    HELD_LOCKS.add(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, me)
        yield
    finally:
        HELD_LOCKS.discard(fd)
        path.unlink(missing_ok=True)
        os.close(fd)


def _holder(path: Path) -> str:
    try:
        pid, _, host = path.read_text().strip().partition(" ")
        return f"process {int(pid)} on {host or 'this machine'}"
    except (OSError, ValueError):
        return "another process"


def _pid_lock(path: Path, me: bytes) -> Iterator[None]:  # pragma: no cover - Windows
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        try:
            pid = int(path.read_text().split()[0])
            os.kill(pid, 0)
            alive = pid != os.getpid()
        except (OSError, ValueError, IndexError):
            alive = False
        if alive:
            raise RunInUse(f"run is in use: {_holder(path)} is writing {path.parent} (it holds {path})") from None
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, me)
        os.close(fd)
        yield
    finally:
        path.unlink(missing_ok=True)


# ---------------------------------------------------------------------------- files
def atomic_write_bytes(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, so a reader never sees half a file.

    ``data`` is anything with the buffer protocol (bytes, or a pyarrow Buffer written without a copy).
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _warm_up_tables() -> None:
    """Pay the one-time costs of making tables before a run's clock starts (they are not throughput).

    Importing pyarrow.parquet takes a while, and pyarrow imports pandas (about 0.3 s) on its first
    conversion of Python rows; on a run of a few seconds that alone would be several percent of hands/s.
    """
    import pyarrow as pa
    import pyarrow.parquet  # noqa: F401

    pa.Table.from_pylist([{"warm_up": 0}])


def _table_bytes(rows: list[dict[str, Any]]) -> Any:
    """One chunk table as Parquet, in a pyarrow Buffer (written out as it is, without a copy to bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    # Chunk files are temporary (consolidation reads them back whole and rewrites them with zstd and
    # statistics): favour speed here. Most of the time goes into turning the row dicts into Arrow columns.
    pq.write_table(pa.Table.from_pylist(rows), sink, compression="snappy", write_statistics=False)
    return sink.getvalue()


def write_chunk(run_dir: Path, chunk: ChunkResult) -> None:
    """Write one finished chunk's tables, then its done-marker (the marker is what resume trusts)."""
    import hashlib

    folder = run_dir / CHUNK_DIR
    files = {}
    for name in TABLES:
        rows = getattr(chunk, name)
        path = folder / f"{name}-{chunk.index:05d}.parquet"
        if rows:
            data = _table_bytes(rows)
            atomic_write_bytes(path, data)
            view = memoryview(data)
            files[name] = {"rows": len(rows), "bytes": view.nbytes, "sha256": hashlib.sha256(view).hexdigest()}
        else:
            path.unlink(missing_ok=True)  # a stale file of an earlier, cut-off try would be consolidated
    if chunk.traces:
        traces = run_dir / "traces"
        traces.mkdir(exist_ok=True)
        for fname, text in chunk.traces.items():
            atomic_write_bytes(traces / fname, text.encode("utf-8"))
    marker = {"chunk": chunk.index, "games": len(chunk.games), "hands": chunk.hands,
              "errors": len(chunk.errors), "seconds": chunk.seconds, "files": files}
    atomic_write_bytes(folder / f"done-{chunk.index:05d}.json", json.dumps(marker).encode())


def done_chunks(run_dir: Path) -> dict[int, dict[str, Any]]:
    """Chunks with a readable done-marker (their files are checked by :mod:`simcli.runs.integrity`)."""
    out = {}
    for p in sorted((run_dir / CHUNK_DIR).glob("done-*.json")):
        info, _ = read_marker(p)
        if info is not None:
            out[int(info["chunk"])] = info
    return out


def consolidate(run_dir: Path, n_chunks: int, fmt: str) -> dict[str, int]:
    """Stream the chunk files, in chunk order, into one file per table; return row counts.

    Only one chunk is in memory at a time, so memory stays flat however many games the run has.
    """
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    counts = {}
    folder = run_dir / CHUNK_DIR
    for name in TABLES:
        parts = [folder / f"{name}-{k:05d}.parquet" for k in range(n_chunks)]
        parts = [p for p in parts if p.exists()]
        final = run_dir / f"{name}.{fmt}"
        if not parts:
            final.unlink(missing_ok=True)
            counts[name] = 0
            continue
        tmp = final.with_name(f".{final.name}.tmp-{os.getpid()}")
        schema = None
        writer: Any = None
        rows = 0
        try:
            for p in parts:
                table = pq.read_table(p)
                if schema is None:
                    schema = _promote_nulls(table.schema)
                    writer = (pq.ParquetWriter(tmp, schema, compression="zstd") if fmt == "parquet"
                              else pacsv.CSVWriter(tmp, schema))
                table = table.cast(schema) if table.schema != schema else table
                writer.write_table(table)
                rows += table.num_rows
            writer.close()
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        counts[name] = rows
    return counts


def _promote_nulls(schema: Any) -> Any:
    import pyarrow as pa

    return pa.schema([pa.field(f.name, pa.string() if f.type == pa.null() else f.type) for f in schema])


def git_commit() -> str | None:
    """The git commit of the simcli source tree, when it is a checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's ``run.json``."""
    return json.loads((run_dir / MANIFEST).read_text())


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write ``run.json`` atomically."""
    atomic_write_bytes(run_dir / MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())


def _difference(key: str, was: Any, now: Any) -> str:
    """One setting a resume disagrees on; for the rules, only the knobs that differ."""
    if isinstance(was, dict) and isinstance(now, dict):
        knobs = [f"{k} (run has {was.get(k)!r}, now {now.get(k)!r})" for k in sorted(set(was) | set(now))
                 if was.get(k) != now.get(k)]
        return f"{key}: " + ", ".join(knobs)
    return f"{key} (run has {was!r}, now {now!r})"


# ------------------------------------------------------------------------------- run
def _run_errors(source: Iterator[ChunkResult]) -> Iterator[ChunkResult]:
    """The backend's chunks, a backend failure (a worker that died) as a :class:`RunError`."""
    try:
        yield from source
    except BackendError as exc:
        raise RunError(str(exc)) from None


@dataclass
class RunOutcome:
    """What :func:`execute_run` did: where, how many games, how fast, and what it replayed."""

    run_dir: Path
    games: int
    hands: int
    errors: int
    wall_seconds: float
    hands_per_s: float
    status: str
    counts: dict[str, int] = field(default_factory=dict)
    replayed: list[str] = field(default_factory=list)
    #: Games (and failed games) of chunks that an earlier, interrupted run had finished: kept, not played now
    #: (``hands_per_s`` measures only what was played now).
    kept: int = 0


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def check_new_out(run_dir: Path, *, set_up: bool = False) -> None:
    """Refuse to start a new run in a folder that holds a run or anything else (a user's files are never touched).

    ``set_up``: the folder has this run's own empty ``chunks/`` and lock already.
    """
    if (run_dir / MANIFEST).exists():
        raise RunError(f"{run_dir} already holds a run; use --resume to finish it or choose another --out")
    ours = {LOCK, CHUNK_DIR} if set_up else set()
    if run_dir.is_dir() and any(p.name not in ours or (p.is_dir() and any(p.iterdir())) for p in run_dir.iterdir()):
        raise RunError(f"--out {run_dir} is not empty and holds no simcli run (no {MANIFEST}); choose a new or "
                       f"empty folder (nothing was written)")


def _drop_chunk(run_dir: Path, k: int) -> None:
    """Forget chunk ``k``: its done-marker first (so a crash in between leaves it unfinished), then its tables."""
    folder = run_dir / CHUNK_DIR
    (folder / f"done-{k:05d}.json").unlink(missing_ok=True)
    for name in TABLES:
        (folder / f"{name}-{k:05d}.parquet").unlink(missing_ok=True)


def _repairs(run_dir: Path, spec: RunSpec, manifest: dict[str, Any], say: Callable[[str], None]) -> list[str]:
    """Check a run being resumed and forget whatever is damaged, so that it is played again; say what.

    Complete runs have only the consolidated tables left, so one damaged table means replaying every game.
    """
    per_game = 2 if spec.rotate_seats else 1
    notes: list[str] = []
    if manifest.get("status") == "complete":
        problems, _ = check_consolidated(run_dir, manifest)
        if not problems:
            return notes
        notes.append(f"replayed all {spec.games * per_game} games: {problems[0]}")
        say(f"replaying all {spec.games * per_game} games: {problems[0]}")
        for name in TABLES:
            (run_dir / f"{name}.{manifest.get('format', 'parquet')}").unlink(missing_ok=True)
        for p in (run_dir / CHUNK_DIR).glob("done-*.json"):
            p.unlink()
        for name in TABLES:
            for p in (run_dir / CHUNK_DIR).glob(f"{name}-*.parquet"):
                p.unlink()
        for key in ("tables", "finished", "games_played", "hands", "errors", "chunks", "hands_per_s"):
            manifest.pop(key, None)
        return notes
    first: dict[int, Problem] = {}
    for problem in check_run(run_dir).problems:
        if problem.chunk is not None:
            first.setdefault(problem.chunk, problem)
    for k, problem in sorted(first.items()):
        _drop_chunk(run_dir, k)
        if not 0 <= k < -(-spec.games // spec.chunk_size):
            continue  # a stray marker: nothing to play
        n = len(chunk_games(spec.comparable(), k)) * per_game
        notes.append(f"replayed {n} games of chunk {k}: {problem}")
        say(f"replaying {n} games of chunk {k}: {problem}")
    return notes


def execute_run(spec: RunSpec, run_dir: Path, *, jobs: int = 1, backend: str | Backend = "local",
                scheduler: str | None = None, fmt: str = "parquet", resume: bool = False,
                command: list[str] | None = None, progress: Callable[[int], None] | None = None,
                rules_diff: dict[str, Any] | None = None, notify: Callable[[str], None] | None = None,
                made_dir: bool = False) -> RunOutcome:
    """Play (or finish) the run described by ``spec`` into ``run_dir``.

    ``progress(n)`` is called with the number of games each time a chunk finishes; ``notify(message)``
    (default: stderr) with what a resume replays and with the stop notice of a first Ctrl-C / SIGTERM.
    Raises :class:`RunError` for a failed game (with ``on_error='stop'``), a refused resume, a run in use
    or an unusable output folder, and :class:`Interrupted` (a KeyboardInterrupt) when a signal stopped it.
    Finished chunks are on disk whatever happens. A new run that fails before its first chunk (a failed
    set-up) leaves no run directory behind when it made the folder (``made_dir``: the caller made it).

    ``backend`` is an open :class:`~simcli.runs.backends.Backend` (a command's, shared by its runs: its ``jobs`` are
    the run's), or its name, ``local`` or ``dask`` (with ``scheduler``), opened for this run with ``jobs`` workers.
    """
    say = notify or _stderr
    if resume:
        if not (run_dir / MANIFEST).exists():
            raise RunError(f"nothing to resume: {run_dir} has no {MANIFEST}")
    else:
        check_new_out(run_dir)
    made_dir = made_dir or not run_dir.exists()
    try:
        (run_dir / CHUNK_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot create output folder {run_dir}: {exc.strerror}") from None
    if not os.access(run_dir, os.W_OK):
        raise RunError(f"output folder {run_dir} is not writable")
    wrote: list[bool] = []  # set once this process wrote a new run's manifest: only then is the folder its own
    try:
        with use_backend(backend, jobs, scheduler) as pool, run_lock(run_dir):
            return _execute_locked(spec, run_dir, pool=pool, fmt=fmt, resume=resume, command=command,
                                   progress=progress, rules_diff=rules_diff, say=say, wrote=wrote)
    except (GameFailed, KeyboardInterrupt):
        raise
    except BaseException as exc:
        if made_dir and (wrote or not resume and not (run_dir / MANIFEST).exists()) \
                and not list((run_dir / CHUNK_DIR).glob("done-*.json")):
            _remove_new_run(run_dir, manifest=bool(wrote))
        if isinstance(exc, BackendError):  # the backend could not be opened (no dask extra, no scheduler)
            raise RunError(str(exc)) from None
        raise


def _remove_new_run(run_dir: Path, *, manifest: bool) -> None:
    """Undo a new run's set-up: the manifest (when this process wrote it), then the folders if left empty."""
    if manifest:
        (run_dir / MANIFEST).unlink(missing_ok=True)
    for p in [run_dir / CHUNK_DIR, run_dir / "traces", run_dir]:
        try:
            p.rmdir()
        except OSError:
            pass


def _execute_locked(spec: RunSpec, run_dir: Path, *, pool: Backend, fmt: str, resume: bool,
                    command: list[str] | None, progress: Callable[[int], None] | None,
                    rules_diff: dict[str, Any] | None, say: Callable[[str], None], wrote: list[bool]) -> RunOutcome:
    n_chunks = -(-spec.games // spec.chunk_size)
    replayed: list[str] = []
    if resume:
        try:
            old = read_manifest(run_dir)
            old_spec = old["spec"]
        except (OSError, ValueError, KeyError, TypeError):
            raise RunError(f"cannot resume: {run_dir / MANIFEST} cannot be read (truncated or corrupt); the "
                           f"run's settings are lost: play it again into a new --out") from None
        mine = spec.comparable()
        differences = [_difference(k, old_spec.get(k), mine[k]) for k in mine if old_spec.get(k) != mine[k]]
        if differences:
            raise RunError("cannot resume with different settings: " + "; ".join(differences))
        if fmt != old.get("format", "parquet"):
            raise RunError(f"cannot resume with different settings: format (run has {old.get('format')!r}, "
                           f"now {fmt!r})")
        manifest = old
        replayed = _repairs(run_dir, spec, manifest, say)
        was_complete = manifest.get("status") == "complete" and not replayed
    else:
        was_complete = False
        check_new_out(run_dir, set_up=True)  # again, under the lock: another process may have started here meanwhile
        manifest = {
            "simcli_version": __version__, "git_commit": git_commit(), "command": command or sys.argv,
            "variant": spec.variant, "rules": spec.rules, "rules_diff": rules_diff or {},
            "strategies": list(spec.strategies), "seed": spec.seed, "games": spec.games,
            "rotate_seats": spec.rotate_seats, "format": fmt, "spec": spec.comparable(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    if replayed:
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        manifest.setdefault("repairs", []).extend({"at": stamp, "what": note} for note in replayed)
    if was_complete:
        # Verified: nothing left to play. Chunk copies left by a run killed while removing them go now.
        for name in TABLES:
            for part in (run_dir / CHUNK_DIR).glob(f"{name}-*.parquet"):
                part.unlink()
        return RunOutcome(run_dir=run_dir, games=int(manifest.get("games_played") or 0),
                          hands=int(manifest.get("hands") or 0), errors=int(manifest.get("errors") or 0),
                          wall_seconds=0.0, hands_per_s=0.0, status="complete")
    manifest.pop("error", None)
    manifest.update({"status": "running", "jobs": pool.jobs, "backend": pool.name})
    write_manifest(run_dir, manifest)
    if not resume:
        wrote.append(True)

    stop = _Stopper(say)
    try:
        with stop.installed():
            return _play(spec, run_dir, manifest, n_chunks=n_chunks, pool=pool, fmt=fmt, progress=progress,
                         stop=stop, replayed=replayed)
    except KeyboardInterrupt:
        manifest["status"] = "interrupted"
        write_manifest(run_dir, manifest)
        raise
    except BaseException as exc:
        # run.json must not say `running` once this process is gone (only SIGKILL leaves it so).
        if manifest.get("status") == "running":
            manifest.update({"status": "failed", "error": {"error": type(exc).__name__, "message": str(exc)}})
            write_manifest(run_dir, manifest)
        raise


def _play(spec: RunSpec, run_dir: Path, manifest: dict[str, Any], *, n_chunks: int, pool: Backend, fmt: str,
          progress: Callable[[int], None] | None, stop: _Stopper, replayed: list[str]) -> RunOutcome:
    _warm_up_tables()
    finished = done_chunks(run_dir)
    todo = [k for k in range(n_chunks) if k not in finished]
    per_game = 2 if spec.rotate_seats else 1
    kept = sum(min(spec.chunk_size, spec.games - k * spec.chunk_size) for k in finished) * per_game
    if progress is not None and finished:
        progress(kept)
    # The objects alive now (modules, click, pyarrow, pandas: some 60,000) outlive the run; frozen, they are
    # left out of the collector's full passes during it (and forked workers do not touch their pages).
    gc.freeze()
    t0 = time.perf_counter()
    hands = 0
    errors = 0
    try:
        # Closing the source (a failed game, a second signal) closes the backend's generator, which stops the
        # chunks in flight.
        source = _run_errors(pool.results(play_chunk, spec, todo, stop=stop))
        with closing(source):  # type: ignore[type-var]  # a generator has close()
            for chunk in source:
                if chunk.fatal is not None:
                    err = chunk.errors[-1]
                    manifest.update({"status": "failed", "error": err})
                    with stop.held():
                        write_manifest(run_dir, manifest)
                    raise GameFailed(
                        f"game {err['game_index']} (seed {spec.seed}, rotation {err['rotation']}) failed at seat "
                        f"{err['seat']}, deal {err['deal_index']}, turn {err['turn']}: {chunk.fatal}. "
                        f"Finished chunks are kept in {run_dir}; rerun with --on-error skip to record and go on",
                        traceback=str(err.get("traceback") or ""),
                    )
                try:
                    with stop.held():
                        write_chunk(run_dir, chunk)
                except OSError as exc:
                    raise RunError(f"cannot write results to {run_dir}: {exc.strerror or exc}") from None
                hands += chunk.hands
                errors += len(chunk.errors)
                if progress is not None:
                    progress(len(chunk.games) + len(chunk.errors))
        if stop.requested is not None:
            raise Interrupted(stop.requested)
    finally:
        gc.unfreeze()
    wall = time.perf_counter() - t0
    all_done = done_chunks(run_dir)
    missing = [k for k in range(n_chunks) if k not in all_done]
    if missing:
        manifest["status"] = "incomplete"
        write_manifest(run_dir, manifest)
        raise RunError(f"chunks {missing[:5]} did not finish; run again with --resume --out {run_dir}")
    total_hands = sum(int(v["hands"]) for v in all_done.values())
    total_errors = sum(int(v["errors"]) for v in all_done.values())
    try:
        counts = consolidate(run_dir, n_chunks, fmt)
        tables = {name: {"file": f"{name}.{fmt}", "rows": rows, "bytes": (run_dir / f"{name}.{fmt}").stat().st_size,
                         "sha256": file_digest(run_dir / f"{name}.{fmt}")} for name, rows in counts.items() if rows}
    except OSError as exc:
        raise RunError(f"cannot write results to {run_dir}: {exc.strerror or exc}") from None
    previous_wall = float(manifest.get("wall_seconds") or 0.0)
    manifest.update({
        "status": "complete", "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "wall_seconds": round(previous_wall + wall, 3), "hands": total_hands,
        "hands_per_s": round(hands / wall, 1) if wall > 0 and hands else None,
        "games_played": counts.get("games", 0), "errors": total_errors, "chunks": n_chunks, "tables": tables,
    })
    with stop.held():
        write_manifest(run_dir, manifest)
    # The consolidated tables hold every row and the run is marked complete (so a resume will not consolidate
    # again): drop the chunk copies, keep the done-markers.
    for name in TABLES:
        for part in (run_dir / CHUNK_DIR).glob(f"{name}-*.parquet"):
            part.unlink()
    return RunOutcome(run_dir=run_dir, games=counts.get("games", 0), hands=total_hands, errors=total_errors,
                      wall_seconds=wall, hands_per_s=hands / wall if wall > 0 else 0.0, status="complete",
                      counts=counts, replayed=replayed, kept=sum(int(finished[k].get("games", 0)) for k in finished))
