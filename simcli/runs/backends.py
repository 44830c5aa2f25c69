"""Where chunks of games are played: on local worker processes or on a Dask cluster, for every command that plays.

A backend plays the work items of one spec with a picklable ``play(spec, item)`` and yields the results, either as
they finish (a run writes each chunk as it comes) or in the order of the items (a match checks its sequential test
after each batch in order, so where it stops depends on the seed and the batch size alone, never on the jobs or
the backend). The items are chunk indices (``simcli.runs.chunks.play_chunk``) or pieces of chunks
(:mod:`simcli.runs.pieces`, which runs and matches use: pieces sized by what a game costs), taken from ``todo``
lazily, one more each time one has finished. Chunk ``k`` is the same whoever plays it, so results are identical
for any backend.

A command opens one backend (:func:`open_backend`) and hands it to every run or match it plays: a tournament or a
sweep starts one Dask cluster (or connects to the scheduler once), not one per match or run. Local processes are
started for each :meth:`Backend.results` call, so that a failure or a second Ctrl-C can kill the chunks in flight
without leaving a broken pool for the next run.

Stopping: with a ``stop`` flag (a run's signal handler, ``simcli.runs.stopping.Stopper``), once ``stop.requested``
is set nothing more is handed out and the chunks in flight are finished and yielded; closing the generator early (a
failed game, a second signal, a match whose test has decided) kills the local chunks in flight and cancels the Dask
ones.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from simcli.runs.errors import BackendError, ClusterLost
from simcli.runs.lost import connection_lost, quiet_dask_logs
from simcli.runs.scheduler import DASK_HINT

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

#: The backends ``--backend`` takes.
BACKENDS = ("local", "dask")


S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")


class StopFlag(Protocol):
    """What a backend reads of a stop request: the first stop signal received, or None (``stopping.Stopper``)."""

    requested: int | None


#: File descriptors the parent holds that a forked worker must close (the run lock: a worker keeping its copy of
#: the descriptor would keep the lock after the parent is gone). ``simcli.runs.lock.run_lock`` adds and removes them.
HELD_LOCKS: set[int] = set()


def worker_init(parent: int, pdeathsig: bool) -> None:
    """Set up a local worker process: leave signals to the parent, and die with it.

    Ctrl-C and SIGTERM are the parent's to handle (it finishes the chunks in flight, writes them and marks
    the run interrupted), so workers ignore them. A parent killed outright (SIGKILL) cannot stop its
    workers, so each worker watches for that itself: on Linux the kernel sends it SIGKILL when the parent
    dies (``prctl(PR_SET_PDEATHSIG)``), and everywhere a daemon thread checks the parent every half second.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for fd in list(HELD_LOCKS):
        try:
            os.close(fd)
        except OSError:
            pass
    HELD_LOCKS.clear()
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the watch was set up
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="simcli-parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


class Backend(ABC):
    """Plays chunks of a spec with ``jobs`` workers; ``name`` is what ``--backend`` calls it (and run.json records)."""

    name = ""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(jobs, 1)

    @abstractmethod
    def results(self, play: Callable[[S, T], R], spec: S, todo: Iterable[T], *, stop: StopFlag | None = None,
                ordered: bool = False) -> Iterator[R]:
        """``play(spec, k)`` for every ``k`` of ``todo``, as they finish (``ordered``: in the order of ``todo``).

        A generator: nothing is played before the first result is asked for, and closing it early stops the work
        in flight. ``todo`` is read lazily, the next item when a result has been taken (so it may size its items
        from the results so far: :class:`simcli.runs.pieces.Pieces`). Raises :class:`BackendError` when the
        workers cannot play (one died, the cluster is gone).
        """

    def close(self) -> None:  # noqa: B027  # a no-op for backends that hold nothing between calls
        """Release what the backend holds (a Dask client and its local cluster)."""


class LocalBackend(Backend):
    """Worker processes on this machine (``jobs`` 1: in this process), started for each call of :meth:`results`."""

    name = "local"

    def results(self, play: Callable[[S, T], R], spec: S, todo: Iterable[T], *, stop: StopFlag | None = None,
                ordered: bool = False) -> Iterator[R]:
        """See :meth:`Backend.results`."""
        if self.jobs <= 1:
            for k in todo:
                if stop is not None and stop.requested is not None:
                    return
                yield play(spec, k)
            return
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        # PR_SET_PDEATHSIG fires when the *thread* that forked a worker ends; the pool forks from the thread
        # that submits, so it is only safe when that is the main thread, which lives as long as the process.
        pdeathsig = threading.current_thread() is threading.main_thread()
        pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx, initializer=worker_init,
                                   initargs=(os.getpid(), pdeathsig))
        finished = False
        try:
            source = _in_order if ordered else _as_finished
            finished = yield from source(pool, play, spec, todo, self.jobs * 3, stop)
        finally:
            if not finished:
                # Stopped at once (a second signal, a failed game, an error, a decided match): the chunks in
                # flight are of no use.
                _kill_workers(pool)
            pool.shutdown(wait=True, cancel_futures=True)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill a pool's worker processes, so that its shutdown does not wait for the chunks in flight.

    A worker killed while it writes a result leaves half a message in the result pipe, and the pool's manager
    thread then waits for the rest forever (so would ``shutdown(wait=True)`` and the interpreter's exit). The
    parent holds a copy of the pipe's write end: once the workers are dead, closing it makes that read end in
    EOF, which the manager thread takes for a broken pool, and it stops.
    """
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        proc.kill()
    for proc in procs:
        proc.join()
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()


def _stopping(stop: StopFlag | None) -> bool:
    return stop is not None and stop.requested is not None


def _broken() -> BackendError:
    return BackendError("a worker process died (killed, or out of memory?); the finished chunks are kept: finish "
                        "the run with --resume")


def _as_finished(pool: ProcessPoolExecutor, play: Callable[[S, T], R], spec: S, todo: Iterable[T], window: int,
                 stop: StopFlag | None) -> Generator[R, None, bool]:
    """The chunks as they finish; True at the end (nothing is left in flight)."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    pending = set()
    queue = iter(todo)
    # Keep a bounded number of chunks in flight so memory stays flat for huge runs.
    for k in queue:
        pending.add(pool.submit(play, spec, k))
        if len(pending) >= window:
            break
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        if _stopping(stop):
            # Stopping: chunks not started yet are dropped, the ones in flight are finished and kept.
            pending = {f for f in pending if not f.cancel()}
        for fut in done:
            if fut.cancelled():
                continue
            try:
                result = fut.result()
            except BrokenProcessPool:
                raise _broken() from None
            yield result
            nxt = next(queue, None) if not _stopping(stop) else None
            if nxt is not None:
                pending.add(pool.submit(play, spec, nxt))
    return True


def _in_order(pool: ProcessPoolExecutor, play: Callable[[S, T], R], spec: S, todo: Iterable[T], window: int,
              stop: StopFlag | None) -> Generator[R, None, bool]:
    """The chunks in the order of ``todo``; False when a stop left later chunks in flight (they are of no use)."""
    from concurrent.futures.process import BrokenProcessPool

    queue = iter(todo)
    ahead = deque(pool.submit(play, spec, k) for k in itertools.islice(queue, window))
    while ahead:
        if _stopping(stop):
            # Chunks not started are dropped; the ones in flight are kept up to the first dropped one (those
            # after it could not be consumed in order).
            for fut in ahead:
                fut.cancel()
        fut = ahead.popleft()
        if fut.cancelled():
            return False
        try:
            result = fut.result()
        except BrokenProcessPool:
            raise _broken() from None
        yield result
        nxt = next(queue, None) if not _stopping(stop) else None
        if nxt is not None:
            ahead.append(pool.submit(play, spec, nxt))
    return True


def _new_client(address: Any) -> Any:
    """A Dask client of ``address`` (a scheduler address or a LocalCluster); one per backend (tests count them)."""
    from distributed import Client

    return Client(address)


class DaskBackend(Backend):
    """A Dask cluster: the scheduler at ``scheduler``, or (without it) a local cluster of ``jobs`` worker processes.

    The client (and the local cluster) is started when the first chunks are asked for, so a command whose work is
    all finished already starts nothing, and kept until :meth:`close`.
    """

    name = "dask"

    def __init__(self, jobs: int, scheduler: str | None = None) -> None:
        super().__init__(jobs)
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise BackendError(DASK_HINT) from None
        self.scheduler = scheduler
        self._client: Any = None
        self._cluster: Any = None
        self._lost: ClusterLost | None = None

    def _cluster_lost(self, exc: BaseException) -> ClusterLost | None:
        """``exc`` as a lost scheduler connection (:func:`simcli.runs.lost.connection_lost`), or None."""
        self._lost = connection_lost(exc, self._client, self.scheduler)
        return self._lost

    def client(self) -> Any:
        """The backend's one client, started on first use."""
        if self._client is None:
            if self.scheduler:
                try:
                    self._client = _new_client(self.scheduler)
                except (OSError, TimeoutError, ValueError) as exc:
                    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise BackendError(f"cannot connect to the Dask scheduler '{self.scheduler}' ({detail})") from None
            else:
                from distributed import LocalCluster

                self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                             dashboard_address=None)
                self._client = _new_client(self._cluster)
            quiet_dask_logs()
        return self._client

    def results(self, play: Callable[[S, T], R], spec: S, todo: Iterable[T], *, stop: StopFlag | None = None,
                ordered: bool = False) -> Iterator[R]:
        """See :meth:`Backend.results`. Stopping, nothing more is submitted and the chunks already sent are
        finished and yielded."""
        queue = iter(todo)
        head = list(itertools.islice(queue, self.jobs * 4))
        if not head:  # nothing to play: no cluster is started
            return
        client = self.client()
        live: list[Any] = []  # submitted and not yet yielded: cancelled when the generator is closed early

        def submit(k: T) -> Any:
            fut = client.submit(play, spec, k, pure=False)
            live.append(fut)
            return fut

        try:
            yield from self._play(submit, queue, head, live, stop, ordered)
        except ClusterLost:
            raise
        except Exception as exc:
            lost = self._cluster_lost(exc)
            if lost is None:
                raise
            live.clear()  # nothing to cancel: the scheduler that held them is gone
            raise lost from None
        finally:
            if live:
                # The client outlives this call (the next run or match of the command uses it): the work of a
                # stopped or failed one must not go on occupying the workers.
                client.cancel(live)

    def _play(self, submit: Callable[[Any], Any], queue: Iterator[Any], head: list[Any], live: list[Any],
              stop: StopFlag | None, ordered: bool) -> Iterator[Any]:
        """The body of :meth:`results`: the results of the submitted items, submitting the next as each comes."""
        from distributed import as_completed

        first = [submit(k) for k in head]
        if ordered:
            ahead = deque(first)
            while ahead:
                fut = ahead.popleft()
                result = fut.result()
                live.remove(fut)
                yield result
                nxt = next(queue, None) if not _stopping(stop) else None
                if nxt is not None:
                    ahead.append(submit(nxt))
        else:
            ac = as_completed(first)
            for fut in ac:
                result = fut.result()
                live.remove(fut)
                yield result
                nxt = next(queue, None) if not _stopping(stop) else None
                if nxt is not None:
                    ac.add(submit(nxt))

    def close(self) -> None:
        """Close the client, then the local cluster if this backend started one (a client whose scheduler is gone
        is closed without waiting for it)."""
        if self._client is not None:
            try:
                self._client.close(timeout=2 if self._lost is not None else None)
            except Exception:  # noqa: BLE001 - closing a client whose scheduler is gone: nothing left to release
                if self._lost is None:
                    raise
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


@contextmanager
def open_backend(name: str, jobs: int, scheduler: str | None = None) -> Iterator[Backend]:
    """The backend ``name`` (``local`` or ``dask``) with ``jobs`` workers, closed when the block ends."""
    if name not in BACKENDS:
        raise BackendError(f"bad backend {name!r}: allowed is one of {', '.join(BACKENDS)}")
    backend: Backend = DaskBackend(jobs, scheduler) if name == "dask" else LocalBackend(jobs)
    try:
        yield backend
    finally:
        backend.close()


@contextmanager
def use_backend(backend: str | Backend, jobs: int, scheduler: str | None = None) -> Iterator[Backend]:
    """An open backend as it is (the caller's, shared by several runs or matches, closed by it), or the one a name
    gives, opened for the block (a single run or match)."""
    if isinstance(backend, Backend):
        yield backend
        return
    with open_backend(backend, jobs, scheduler) as opened:
        yield opened
