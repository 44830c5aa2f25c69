"""Reading a run directory back: ``load(run_dir)`` returns its games and deals tables; ``scan(run_dir)`` opens it
for an analysis that reads the tables as it needs them (the deals a few columns at a time).

A documented import path of the public API (listed whole in :mod:`simcli`); the code lives in
:mod:`simcli.runs.results`."""

from simcli.runs.results import DamagedRunError, Run, StoredRun, load, scan

__all__ = ["DamagedRunError", "Run", "StoredRun", "load", "scan"]
