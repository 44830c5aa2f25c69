"""Batch runs: chunks of seeded games on local processes or Dask, written atomically, resumable.

Data flows one way: (master seed, game index) -> :func:`play_chunk` in a worker -> rows -> the
parent writes each finished chunk atomically under ``RUN_DIR/chunks/`` -> at the end the chunks
are streamed into ``games.parquet`` / ``deals.parquet`` (or CSV). Game ``i`` depends only on the
run's settings and ``i``, so results are identical for any number of jobs, chunk order or backend.
"""

from __future__ import annotations

import functools
import gc
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simcli import __version__
from simcli.errors import EngineError, StrategyError
from simcli.game import play_game
from simcli.records import deal_rows, game_row
from simcli.rules import diff, load_rules
from simcli.trace import TraceWriter

MANIFEST = "run.json"
CHUNK_DIR = "chunks"
TABLES = ("games", "deals", "errors")


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
def _chunk_rules(variant: str, knobs: tuple[tuple[str, str], ...]) -> Any:
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
                    "error": type(exc).__name__, "message": str(exc),
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


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops cleanly and keeps finished chunks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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
    folder = run_dir / CHUNK_DIR
    for name in TABLES:
        rows = getattr(chunk, name)
        if rows:
            atomic_write_bytes(folder / f"{name}-{chunk.index:05d}.parquet", _table_bytes(rows))
    if chunk.traces:
        traces = run_dir / "traces"
        traces.mkdir(exist_ok=True)
        for fname, text in chunk.traces.items():
            atomic_write_bytes(traces / fname, text.encode("utf-8"))
    marker = {"chunk": chunk.index, "games": len(chunk.games), "hands": chunk.hands,
              "errors": len(chunk.errors), "seconds": chunk.seconds}
    atomic_write_bytes(folder / f"done-{chunk.index:05d}.json", json.dumps(marker).encode())


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Hold Ctrl-C until the chunk being written is complete (tables and done-marker), then deliver it.

    Raised mid-write, the KeyboardInterrupt would leave a chunk without its marker, or be lost altogether
    when it lands in a finalizer (pyarrow's ``ParquetWriter.__del__``), where Python ignores exceptions.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        signal.raise_signal(signal.SIGINT)


def done_chunks(run_dir: Path) -> dict[int, dict[str, Any]]:
    """Chunks already written completely (by their done-markers)."""
    out = {}
    for p in sorted((run_dir / CHUNK_DIR).glob("done-*.json")):
        info = json.loads(p.read_text())
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


# --------------------------------------------------------------------------- backends
def _local_results(spec: RunSpec, todo: list[int], jobs: int) -> Iterator[ChunkResult]:
    if jobs <= 1:
        for k in todo:
            yield play_chunk(spec, k)
        return
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_ignore_sigint)
    try:
        pending = set()
        queue = iter(todo)
        # Keep a bounded number of chunks in flight so memory stays flat for huge runs.
        for k in queue:
            pending.add(pool.submit(play_chunk, spec, k))
            if len(pending) >= jobs * 3:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(play_chunk, spec, nxt))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _dask_results(spec: RunSpec, todo: list[int], jobs: int, scheduler: str | None) -> Iterator[ChunkResult]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise RunError("--backend dask needs the dask extra: pip install -e '.[dask]'") from None
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=max(jobs, 1), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        window = max(jobs, 1) * 4
        queue = iter(todo)
        futures = [client.submit(play_chunk, spec, k, pure=False) for k in itertools.islice(queue, window)]
        ac = as_completed(futures)
        for fut in ac:
            yield fut.result()
            nxt = next(queue, None)
            if nxt is not None:
                ac.add(client.submit(play_chunk, spec, nxt, pure=False))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ------------------------------------------------------------------------------- run
@dataclass
class RunOutcome:
    """What :func:`execute_run` did: where, how many games, how fast."""

    run_dir: Path
    games: int
    hands: int
    errors: int
    wall_seconds: float
    hands_per_s: float
    status: str
    counts: dict[str, int] = field(default_factory=dict)


def execute_run(spec: RunSpec, run_dir: Path, *, jobs: int = 1, backend: str = "local",
                scheduler: str | None = None, fmt: str = "parquet", resume: bool = False,
                command: list[str] | None = None, progress: Callable[[int], None] | None = None,
                rules_diff: dict[str, Any] | None = None) -> RunOutcome:
    """Play (or finish) the run described by ``spec`` into ``run_dir``.

    ``progress(n)`` is called with the number of games each time a chunk finishes.
    Raises :class:`RunError` for a failed game (with ``on_error='stop'``), a refused resume or
    an unusable output folder. Finished chunks are on disk whatever happens.
    """
    n_chunks = -(-spec.games // spec.chunk_size)
    try:
        (run_dir / CHUNK_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot create output folder {run_dir}: {exc.strerror}") from None
    if not os.access(run_dir, os.W_OK):
        raise RunError(f"output folder {run_dir} is not writable")
    manifest_path = run_dir / MANIFEST
    if resume:
        if not manifest_path.exists():
            raise RunError(f"nothing to resume: {run_dir} has no {MANIFEST}")
        old = read_manifest(run_dir)
        mine = spec.comparable()
        differences = [_difference(k, old["spec"].get(k), mine[k]) for k in mine if old["spec"].get(k) != mine[k]]
        if differences:
            raise RunError("cannot resume with different settings: " + "; ".join(differences))
        if fmt != old.get("format", "parquet"):
            raise RunError(f"cannot resume with different settings: format (run has {old.get('format')!r}, "
                           f"now {fmt!r})")
        manifest = old
        was_complete = old.get("status") == "complete"
    else:
        was_complete = False
        if manifest_path.exists() or any((run_dir / CHUNK_DIR).iterdir()):
            raise RunError(f"{run_dir} already holds a run; use --resume to finish it or choose another --out")
        manifest = {
            "simcli_version": __version__, "git_commit": git_commit(), "command": command or sys.argv,
            "variant": spec.variant, "rules": spec.rules, "rules_diff": rules_diff or {},
            "strategies": list(spec.strategies), "seed": spec.seed, "games": spec.games,
            "rotate_seats": spec.rotate_seats, "format": fmt, "spec": spec.comparable(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    manifest.update({"status": "running", "jobs": jobs, "backend": backend})
    write_manifest(run_dir, manifest)

    _warm_up_tables()

    finished = done_chunks(run_dir)
    todo = [k for k in range(n_chunks) if k not in finished]
    per_game = 2 if spec.rotate_seats else 1
    if progress is not None and finished:
        progress(sum(min(spec.chunk_size, spec.games - k * spec.chunk_size) for k in finished) * per_game)
    if was_complete and not todo:
        # Nothing left to play; the chunk copies are gone, so consolidating again would empty the tables.
        manifest["status"] = "complete"
        write_manifest(run_dir, manifest)
        return RunOutcome(run_dir=run_dir, games=int(manifest.get("games_played") or 0),
                          hands=int(manifest.get("hands") or 0), errors=int(manifest.get("errors") or 0),
                          wall_seconds=0.0, hands_per_s=0.0, status="complete")
    # The objects alive now (modules, click, pyarrow, pandas: some 60,000) outlive the run; frozen, they are
    # left out of the collector's full passes during it (and forked workers do not touch their pages).
    gc.freeze()
    t0 = time.perf_counter()
    hands = 0
    errors = 0
    status = "complete"
    try:
        source = (_dask_results(spec, todo, jobs, scheduler) if backend == "dask"
                  else _local_results(spec, todo, jobs))
        for chunk in source:
            if chunk.fatal is not None:
                status = "failed"
                manifest.update({"status": status, "error": chunk.errors[-1]})
                write_manifest(run_dir, manifest)
                err = chunk.errors[-1]
                raise RunError(
                    f"game {err['game_index']} (seed {spec.seed}, rotation {err['rotation']}) failed at seat "
                    f"{err['seat']}, deal {err['deal_index']}, turn {err['turn']}: {chunk.fatal}. "
                    f"Finished chunks are kept in {run_dir}; rerun with --on-error skip to record and go on"
                )
            try:
                with _sigint_held():
                    write_chunk(run_dir, chunk)
            except OSError as exc:
                raise RunError(f"cannot write results to {run_dir}: {exc.strerror or exc}") from None
            hands += chunk.hands
            errors += len(chunk.errors)
            if progress is not None:
                progress(len(chunk.games) + len(chunk.errors))
    except KeyboardInterrupt:
        status = "interrupted"
        manifest["status"] = status
        write_manifest(run_dir, manifest)
        raise
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
    except OSError as exc:
        raise RunError(f"cannot write results to {run_dir}: {exc.strerror or exc}") from None
    previous_wall = float(manifest.get("wall_seconds") or 0.0)
    manifest.update({
        "status": status, "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "wall_seconds": round(previous_wall + wall, 3), "hands": total_hands,
        "hands_per_s": round(hands / wall, 1) if wall > 0 and hands else None,
        "games_played": counts.get("games", 0), "errors": total_errors, "chunks": n_chunks,
    })
    write_manifest(run_dir, manifest)
    # The consolidated tables hold every row and the run is marked complete (so a resume will not consolidate
    # again): drop the chunk copies, keep the done-markers.
    for name in TABLES:
        for part in (run_dir / CHUNK_DIR).glob(f"{name}-*.parquet"):
            part.unlink()
    return RunOutcome(run_dir=run_dir, games=counts.get("games", 0), hands=total_hands, errors=total_errors,
                      wall_seconds=wall, hands_per_s=hands / wall if wall > 0 else 0.0, status=status,
                      counts=counts)
