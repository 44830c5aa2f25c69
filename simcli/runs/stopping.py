"""Stopping a run by signal: the first SIGINT, SIGTERM or SIGHUP stops it after the chunks in flight, a second at once.

Finished chunks are on disk whatever happens, so a stopped run is finished later with ``--resume``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal (SIGINT, SIGTERM or SIGHUP); finished chunks are kept."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


#: The signals that stop a run, those the platform has (Windows has no SIGHUP).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stopper:
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
