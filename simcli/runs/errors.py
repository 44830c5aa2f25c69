"""The errors of a batch run that commands report as one line (a stop by signal is :mod:`simcli.runs.stopping`'s)."""

from __future__ import annotations


class RunError(RuntimeError):
    """A run that cannot start or go on: bad output folder, refused resume, a failed game."""


class GameFailed(RunError):
    """A game failed with ``--on-error stop``: the run is marked failed and its finished chunks are kept."""

    def __init__(self, message: str, traceback: str = "") -> None:
        super().__init__(message)
        #: The failing strategy's traceback (shown with --debug).
        self.traceback = traceback


class RunInUse(RunError):
    """Another live process holds the run's lock."""
