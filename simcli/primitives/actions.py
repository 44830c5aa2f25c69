"""The decisions a strategy returns to the engine.

A turn is three decisions: how to draw (:data:`DRAW_STOCK` or a :class:`TakePile`),
what to meld (a list of :class:`Meld`), and what to discard (a rank, or ``None``
to go out by melding every card). The engine validates each one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from simcli.primitives.cards import RANK_NAMES, WILD_MELD


class Meld(NamedTuple):
    """Put cards from the hand onto the team's meld of ``rank`` (started if the team has none).

    ``rank`` is a natural rank, :data:`~simcli.primitives.cards.WILD_MELD` for a meld of wild
    cards only, or :data:`~simcli.primitives.cards.BLACK_THREE` for the black threes of a
    player going out. ``twos`` and ``jokers`` are the wild cards added with it.
    """

    rank: int
    naturals: int = 0
    twos: int = 0
    jokers: int = 0

    @property
    def size(self) -> int:
        """Number of cards this action takes from the hand."""
        return self.naturals + self.twos + self.jokers

    def __str__(self) -> str:
        head = "wild" if self.rank == WILD_MELD and not self.naturals else RANK_NAMES[self.rank]
        parts = [f"{self.naturals}x{RANK_NAMES[self.rank]}"] if self.naturals else []
        if self.twos:
            parts.append(f"{self.twos}x2")
        if self.jokers:
            parts.append(f"{self.jokers}xJK")
        return f"{head}[{' '.join(parts)}]"


class TakePile(NamedTuple):
    """Take the discard pile: meld its top card with ``meld`` (cards from the hand) plus ``extra`` melds.

    ``meld.rank`` must be the top card's rank. ``extra`` are further melds from the
    hand laid in the same action, which a team that has not opened needs to reach
    its minimum (the top card counts toward it, the rest of the pile does not).
    """

    meld: Meld
    extra: tuple[Meld, ...] = ()


class _DrawStock:
    """Draw ``draw_count`` cards from the stock (or, with the stock empty, decline the pile)."""

    _instance: _DrawStock | None = None

    def __new__(cls) -> _DrawStock:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "DRAW_STOCK"


DRAW_STOCK = _DrawStock()


@dataclass(frozen=True, slots=True)
class SpecialHand:
    """Lay a special 14-card hand (Americana): ``STRAIGHT``, ``PAIRS_NATURAL``, ``PAIRS_WITH_2_7_A`` or ``GARBAGE``.

    Returned alone from ``choose_melds``. The engine picks the 14 cards from the hand; it
    ends the deal (after a discard if a card is left) and the team scores only the hand.
    """

    kind: str
