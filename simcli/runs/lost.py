"""A lost Dask scheduler (or client connection) said in one line: what was lost, what is kept, and the command
that finishes the work, here on local processes or on a cluster.

:class:`~simcli.runs.backends.ClusterLost` is raised by the Dask backend when its futures are cancelled for a lost
connection; whoever knows what was stored adds it on the way up (:meth:`ClusterLost.keep`: a run its chunks, a
study its runs, a match store its batches, a data folder its chunks), and the command line prints
:func:`lost_line`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from typing import Any

from simcli.runs.errors import ClusterLost

#: The options that choose where games are played (each takes a value but ``--backend``'s value is given too).
_BACKEND_OPTIONS = ("--backend", "--scheduler", "--scheduler-timeout")


def without_backend(words: Sequence[str]) -> list[str]:
    """``words`` without ``--backend X``, ``--scheduler X`` and ``--scheduler-timeout X`` (also ``--opt=X``)."""
    out: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        if w in _BACKEND_OPTIONS:
            skip = True
            continue
        if any(w.startswith(f"{o}=") for o in _BACKEND_OPTIONS):
            continue
        out.append(w)
    return out


def lost_line(exc: ClusterLost, command: Callable[[list[str]], str] = shlex.join,
              argv: Sequence[str] = ()) -> str:
    """The one line for a lost cluster: ``lost the connection to ...: KEPT; finish here with `...`, or on a
    cluster with `... --backend dask --scheduler ...```. ``command(words)`` writes a simcli command (the program
    as started); without a finishing command from :meth:`ClusterLost.keep`, ``argv`` (the command as given,
    without the program) is the one that starts again."""
    finish = without_backend(exc.finish or argv)
    kept = exc.kept or "nothing of the work in flight is kept"
    cluster = ["--backend", "dask", *(["--scheduler", exc.scheduler] if exc.scheduler else [])]
    why = f" ({exc.reason})" if exc.reason else ""
    if not finish:
        return f"lost the connection to {exc.lost}{why}: {kept}"
    return (f"lost the connection to {exc.lost}{why}: {kept}; finish here with `{command(finish)}`, or on a "
            f"cluster with `{command([*finish, *cluster])}`")


def kept_of_store(what: str, out: object | None, kind: str, argv: Sequence[str]) -> tuple[str, list[str]]:
    """What a resumable store keeps (``what``: "finished batches", "finished matches") and the command that
    finishes it: ``KIND --resume --out OUT``; without ``out`` nothing is kept and the command as given starts
    again."""
    if out is None:
        return "nothing is kept (no --out)", list(argv)
    return f"the {what} are kept in {out}", [kind, "--resume", "--out", str(out)]


def connection_lost(exc: BaseException, client: Any, scheduler: str | None) -> ClusterLost | None:
    """``exc``, raised while a Dask client waited for its results, as a lost scheduler connection (a future
    cancelled for it, a closed comm, a client no longer running), or None for any other error (the work's own)."""
    from distributed.comm.core import CommClosedError

    status = str(getattr(client, "status", "running"))
    if not isinstance(exc, (CancelledError, CommClosedError, OSError, TimeoutError)) and status == "running":
        return None
    if isinstance(exc, OSError) and not isinstance(exc, CommClosedError) and status == "running":
        return None  # an error of the work itself, not of the connection
    reason = ("scheduler-connection-lost" if "scheduler-connection-lost" in str(exc) or status != "running"
              else type(exc).__name__)
    lost = f"the Dask scheduler {scheduler}" if scheduler else "the local Dask cluster's scheduler"
    return ClusterLost(lost, scheduler, reason)


def quiet_dask_logs() -> None:
    """Leave distributed's own log lines out (a lost scheduler prints dozens, tracebacks included): what goes
    wrong is said in one line by :class:`ClusterLost` or a ``BackendError``."""
    import logging

    names = [n for n in logging.root.manager.loggerDict if n == "distributed" or n.startswith("distributed.")]
    for name in {"distributed", "distributed.client", *names}:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
