"""The errors of the reporting package: each a one-line message that a command prints as its error."""

from __future__ import annotations

import signal
from pathlib import Path


class ReportError(Exception):
    """A run, a sweep or a file that a report cannot read or write (the message is the command's error line)."""

    def __init__(self, message: str, traceback: str = "") -> None:
        super().__init__(message)
        #: A failing strategy's traceback, printed before the message with ``--debug`` (empty for other errors).
        self.traceback = traceback


class StudyInterrupted(Exception):
    """Ctrl-C (or SIGTERM) while a study (``sweep``, ``balance``) played its runs: the finished runs and chunks
    are kept in ``out``, and the same command continues."""

    def __init__(self, finished: int, out: Path, signum: int = signal.SIGINT) -> None:
        super().__init__(f"{finished} finished run(s) kept in {out}")
        self.finished, self.out, self.signum = finished, out, signum
