"""What a seat sees: ``PlayerView``, its checks and its sampled worlds.

A documented import path of the public API (listed whole in :mod:`simcli`); the code lives in
:mod:`simcli.engine.view`, :mod:`simcli.engine.judge` (``ASK_FIRST``: the answer of a check when only asking
partner is missing), :mod:`simcli.engine.state` (``HISTORY_DRAW``, a history entry's kind) and
:mod:`simcli.engine.worlds`."""

from simcli.engine.judge import ASK_FIRST
from simcli.engine.state import HISTORY_DRAW
from simcli.engine.view import PlayerView, unpacked
from simcli.engine.worlds import sample_world

__all__ = ["ASK_FIRST", "HISTORY_DRAW", "PlayerView", "sample_world", "unpacked"]
