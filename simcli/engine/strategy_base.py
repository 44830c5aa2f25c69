"""The strategy interface: the :class:`Strategy` base class every player subclasses, and the :data:`Draw` type.

A strategy is a class built with its own seeded random stream. The engine calls its ``choose_*`` methods with a
:class:`~simcli.engine.view.PlayerView` and validates what they return. Subclass :class:`Strategy` and override only
what you need.

This module is the interface alone, so that the engine (:mod:`simcli.engine.deal`) and the forward model can name it
without importing the loader of :mod:`simcli.players.loading` and the option parser of :mod:`simcli.players.specs`.
Code inside simcli imports it from here; users, documentation and error messages use its one public path,
``simcli.strategy.Strategy`` (:mod:`simcli.strategy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from simcli.primitives.actions import DRAW_STOCK, Meld, TakePile, _DrawStock
from simcli.primitives.cards import BLACK_THREE, CARD_VALUES, JOKER, TWO

if TYPE_CHECKING:
    from simcli.engine.view import PlayerView

#: What :meth:`Strategy.choose_draw` returns: :data:`~simcli.primitives.actions.DRAW_STOCK` or a pile take.
Draw = _DrawStock | TakePile


class Strategy:
    """Base strategy: draws from the stock, never melds, discards its cheapest card. Override what you need."""

    #: Name used in results and error messages.
    name = "base"
    #: Whether this strategy reads :attr:`PlayerView.history <simcli.engine.view.PlayerView.history>`: the engine
    #: records the table's history for a deal only when a seated strategy says so (class or instance attribute).
    reads_history = False

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose_draw(self, view: PlayerView) -> Draw:
        """Return :data:`~simcli.primitives.actions.DRAW_STOCK` or a :class:`~simcli.primitives.actions.TakePile`."""
        return DRAW_STOCK

    def choose_melds(self, view: PlayerView) -> Sequence[Meld]:
        """Return the melds to lay this turn (possibly none)."""
        return ()

    def choose_discard(self, view: PlayerView) -> int | None:
        """Return the rank to discard: a rank index (:mod:`simcli.primitives.cards`) the hand holds.

        The engine asks only when the hand still holds a card after the melds; going out by melding every card
        needs no discard, so the engine never asks then, and a ``None`` returned here is refused as a bad move.
        The default: a black three if held, else the cheapest legal natural, wild cards last.
        """
        legal = view.legal_discards()
        return min(legal, key=lambda r: (r != BLACK_THREE, r in (JOKER, TWO), CARD_VALUES[r], r))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """Americana: keep this three (``rank``) in hand until the team opens, e.g. for a straight."""
        return False

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """Whether to ask partner "may I go out?" after drawing (the answer binds)."""
        return False

    def answer_go_out(self, view: PlayerView) -> bool:
        """Partner's answer to "may I go out?" (``view`` is the answering player's)."""
        return True
