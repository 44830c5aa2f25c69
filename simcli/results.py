"""Reading a run directory back: ``load(run_dir)`` returns its games and deals tables; ``scan(run_dir)`` opens it
for an analysis that reads the tables as it needs them (the deals a few columns at a time).

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.runs.results import *  # noqa: F403
