"""Batch runs: chunks of seeded games on local processes or Dask, written atomically, resumable.

Data flows one way: (master seed, game index) -> :func:`~simcli.runs.pieces.play_piece` in a worker (a few games
of a chunk, as many as take about half a second: :mod:`simcli.runs.pieces`) -> rows -> the parent puts each chunk
together and writes it atomically under ``RUN_DIR/chunks/`` (:mod:`simcli.runs.storage`) -> at the end the chunks
are streamed into ``games.parquet`` / ``deals.parquet`` (or CSV). Game ``i`` depends only on the run's settings
and ``i``, so results are identical for any number of jobs, chunk order, piece size or backend.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simcli import __version__
from simcli.runs.backends import Backend, BackendError, ClusterLost, use_backend
from simcli.runs.chunks import ChunkResult
from simcli.runs.errors import GameFailed, RunError
from simcli.runs.integrity import CHUNK_DIR, MANIFEST, TABLES, file_digest
from simcli.runs.lock import run_lock
from simcli.runs.pieces import chunk_results
from simcli.runs.provenance import builds
from simcli.runs.rebuild import is_lost_manifest, rebuild_manifest
from simcli.runs.resume import check_new_out, check_resume, repair_damaged
from simcli.runs.spec import RunSpec
from simcli.runs.stopping import Interrupted, Stopper
from simcli.runs.storage import consolidate, done_chunks, git_commit, warm_up_tables, write_chunk, write_manifest
from simcli.runs.unplayed import clear_unplayed, failed_way_on


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


def _run_errors(source: Iterator[tuple[int, ChunkResult | None]]) -> Iterator[tuple[int, ChunkResult | None]]:
    """The pieces and chunks of :func:`~simcli.runs.pieces.chunk_results`, a backend failure (a worker that died)
    as a :class:`RunError`."""
    try:
        yield from source
    except ClusterLost:
        raise  # said with what is kept and how to finish (execute_run)
    except BackendError as exc:
        raise RunError(str(exc)) from None


def execute_run(spec: RunSpec, run_dir: Path, *, jobs: int = 1, backend: str | Backend = "local",
                scheduler: str | None = None, fmt: str = "parquet", resume: bool = False,
                command: list[str] | None = None, progress: Callable[[int], None] | None = None,
                rules_diff: dict[str, Any] | None = None, notify: Callable[[str], None] | None = None,
                made_dir: bool = False) -> RunOutcome:
    """Play (or finish) the run described by ``spec`` into ``run_dir``.

    ``progress(n)`` is called with the number of games each time a piece of a chunk finishes (every game for a
    search player; about every half second otherwise: :mod:`simcli.runs.pieces`); ``notify(message)``
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
        if not (run_dir / MANIFEST).exists() and not is_lost_manifest(run_dir):
            raise RunError(f"nothing to resume: {run_dir} has no {MANIFEST}")
    else:
        cleared = clear_unplayed(run_dir)  # a run that failed before finishing any game: its folder is reused
        if cleared:
            say(cleared)
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
    except ClusterLost as exc:  # the run is kept as it is (run.json says failed): --resume finishes it
        done = done_chunks(run_dir)
        games = sum(int(m.get("games", 0)) for m in done.values())
        kept = (f"{len(done)} finished chunk(s), {games:,} games, are kept in {run_dir}" if done else
                f"no chunk had finished; the run's settings are kept in {run_dir}")
        raise exc.keep(kept, ["run", "--resume", "--out", str(run_dir)]) from None
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
    """The run under its lock: check or set up the manifest (a resume repairs what is damaged), then play."""
    n_chunks = -(-spec.games // spec.chunk_size)
    replayed: list[str] = []
    if resume:
        if not (run_dir / MANIFEST).exists():  # lost, but its chunks finished: rebuilt from them and the spec
            rebuild_manifest(run_dir, spec, fmt, command=command or sys.argv, rules_diff=rules_diff)
            say(f"rebuilt {run_dir / MANIFEST} from the done-markers and tables (the first game played again "
                "with the given settings came out as stored)")
        manifest = check_resume(run_dir, spec, fmt)
        replayed = repair_damaged(run_dir, spec, manifest, say)
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
    # What plays this session (as its jobs and backend): the engine's and each strategy's build.
    manifest.update({"status": "running", "jobs": pool.jobs, "backend": pool.name, "build": builds(spec.strategies)})
    write_manifest(run_dir, manifest)
    if not resume:
        wrote.append(True)

    stop = Stopper(say)
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
          progress: Callable[[int], None] | None, stop: Stopper, replayed: list[str]) -> RunOutcome:
    """Play the chunks not yet done, writing each as it comes, then consolidate them and mark the run complete."""
    warm_up_tables()
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
        # pieces in flight. The bar moves with every piece; a chunk is written whole, when its last piece is in,
        # before that piece is counted (so the games counted at the end of a chunk are on disk).
        source = _run_errors(chunk_results(pool, spec, todo, stop=stop))
        with closing(source):  # type: ignore[type-var]  # a generator has close()
            for played, chunk in source:
                if chunk is None:
                    if progress is not None:
                        progress(played)
                    continue
                if chunk.fatal is not None:
                    err = chunk.errors[-1]
                    manifest.update({"status": "failed", "error": err})
                    with stop.held():
                        write_manifest(run_dir, manifest)
                    raise GameFailed(
                        f"game {err['game_index']} (seed {spec.seed}, rotation {err['rotation']}) failed at seat "
                        f"{err['seat']}, deal {err['deal_index']}, turn {err['turn']}: {chunk.fatal}. "
                        + failed_way_on(run_dir, some_played=bool(done_chunks(run_dir)) or bool(chunk.games)),
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
                    progress(played)
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
