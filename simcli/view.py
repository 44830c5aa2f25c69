"""What a seat sees: ``PlayerView``, its checks and its sampled worlds.

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.engine.view import *  # noqa: F403
