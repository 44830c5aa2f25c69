"""The decisions a strategy returns: ``DRAW_STOCK``, ``TakePile``, ``Meld``, ``SpecialHand``.

A documented import path of the public API (listed whole in :mod:`simcli`); the code lives in
:mod:`simcli.primitives.actions`."""

from simcli.primitives.actions import DRAW_STOCK, WILD_MELD, Meld, SpecialHand, TakePile

__all__ = ["DRAW_STOCK", "WILD_MELD", "Meld", "SpecialHand", "TakePile"]
