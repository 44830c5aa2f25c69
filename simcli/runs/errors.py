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


class BackendError(RuntimeError):
    """A backend that cannot play: the dask extra missing, a scheduler that does not answer, a worker that died."""


class ClusterLost(BackendError):
    """The connection to the Dask scheduler was lost mid-work (the scheduler died, the network or the client's
    connection went): the work finished and stored so far is kept. What is kept and the command that finishes the
    work are added by whoever knows them (:meth:`keep`; the run, the study, the match store), and the command line
    says it all in one line (:func:`simcli.runs.lost.lost_line`)."""

    def __init__(self, lost: str, scheduler: str | None, reason: str = "") -> None:
        super().__init__(f"{lost}{f' ({reason})' if reason else ''}")
        #: What was lost: ``the Dask scheduler tcp://...`` or ``the local Dask cluster``.
        self.lost = lost
        #: The scheduler's address (None: the local cluster ``--backend dask`` started).
        self.scheduler = scheduler
        self.reason = reason
        #: What is kept (``the finished chunks are kept in DIR``), and the simcli words that finish the work.
        self.kept = ""
        self.finish: list[str] = []

    def keep(self, kept: str, finish: list[str], *, override: bool = False) -> ClusterLost:
        """Say what is kept and which command finishes the work (the first to know wins, unless ``override``:
        a study knows better than its run)."""
        if override or not self.finish:
            self.kept, self.finish = kept, [str(w) for w in finish]
        return self
