"""The forward model for search players: clones, sampled worlds, ``Forced``, rollouts and ``margin``.

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.players.forward import *  # noqa: F403
