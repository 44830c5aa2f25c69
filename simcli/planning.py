"""Planning helpers for strategies (openings, taking the pile, wild cards).

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.players.planning import *  # noqa: F403
