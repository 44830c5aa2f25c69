"""Which runs a command means: the runs that exist near a path (named when the one given is missing), and the run
``report`` reads when it is given none (the latest) or several (each)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from simcli.reporting.errors import ReportError

#: Where ``simcli run`` puts a run when it is given no ``--out``.
RUNS = Path("results") / "runs"


def runs_in(folder: Path) -> list[Path]:
    """The run directories (folders with a ``run.json``) directly in ``folder``, oldest first."""
    try:
        found = [p for p in folder.iterdir() if (p / "run.json").is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: ((p / "run.json").stat().st_mtime, p.name))


def missing_run(path: Path) -> str:
    """The error for a run directory that is not there, naming the runs beside it (or under results/runs)."""
    folder = path.parent if path.parent.is_dir() else RUNS
    found = runs_in(folder) or runs_in(RUNS)
    if not found:
        return f"no run directory at {path} (and no runs in {RUNS}: play one with `simcli run`)"
    names = [str(p) for p in found[-5:]]
    more = f"{len(found) - 5} more and " if len(found) > 5 else ""
    return f"no run directory at {path}; the runs there are {more}{', '.join(names)} (newest last)"


def report_targets(given: Sequence[Path]) -> list[Path]:
    """The runs ``report`` reads: those given, each once, in order; none given: the latest run in results/runs
    (a one-line error when there is none)."""
    if given:
        return list(dict.fromkeys(given))
    found = runs_in(RUNS)
    if not found:
        raise ReportError(f"no runs in {RUNS} to report on: give a run directory, or play one with `simcli run`")
    return [found[-1]]
