"""The ``Strategy`` interface and the strategy loader (``load_strategy``, options, strategy lists).

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.engine.strategy_base import *  # noqa: F403
from simcli.players.loading import *  # noqa: F403
from simcli.players.specs import *  # noqa: F403
