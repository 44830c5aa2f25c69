"""The run lock: one process at a time writes a run directory (a second one is refused: "run is in use")."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from simcli.runs.backends import HELD_LOCKS
from simcli.runs.errors import RunInUse
from simcli.runs.integrity import LOCK


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
