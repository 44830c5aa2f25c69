"""Reading a run directory back: ``load(run_dir)`` returns its games and deals tables.

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.runs.results import *  # noqa: F403
