"""The decisions a strategy returns: ``DRAW_STOCK``, ``TakePile``, ``Meld``, ``SpecialHand``, ...

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.primitives.actions import *  # noqa: F403
