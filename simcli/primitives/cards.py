"""Card ranks, their names and point values.

The engine never builds one object per card. A card is a *rank index* (an int in
``range(NUM_RANKS)``) and a hand is a rank-count vector: a plain ``list[int]`` of
length 15 where ``hand[r]`` is how many cards of rank ``r`` the player holds.
Suits matter only for threes, so red and black threes are separate ranks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

# Final throughout: the compiled build (mypyc) then reads these as C constants, not module-dictionary lookups.
JOKER: Final = 0
TWO: Final = 1
RED_THREE: Final = 2
BLACK_THREE: Final = 3
FOUR: Final = 4
FIVE: Final = 5
SIX: Final = 6
SEVEN: Final = 7
EIGHT: Final = 8
NINE: Final = 9
TEN: Final = 10
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
ACE: Final = 14
NUM_RANKS: Final = 15

#: Slot used for a team's meld of wild cards only (where wild melds are allowed).
#: It shares index 0 with the joker because a joker can never head a natural meld.
WILD_MELD: Final = 0  # JOKER

RANK_NAMES: Final[tuple[str, ...]] = (
    "JK", "2", "R3", "B3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
)
_NAME_TO_RANK: dict[str, int] = {name: r for r, name in enumerate(RANK_NAMES)}
_NAME_TO_RANK.update({"T": TEN, "JOKER": JOKER, "Jk": JOKER})

NATURAL_RANKS: Final[tuple[int, ...]] = tuple(range(FOUR, ACE + 1))
WILD_RANKS: Final[tuple[int, ...]] = (JOKER, TWO)
IS_WILD: Final[tuple[bool, ...]] = tuple(r in WILD_RANKS for r in range(NUM_RANKS))
IS_NATURAL: Final[tuple[bool, ...]] = tuple(r >= FOUR for r in range(NUM_RANKS))

#: Point values of §1.3. A red three has no card value (it is scored as a bonus);
#: the black three's value in hand is a knob (``black_three_in_hand_value``).
CARD_VALUES: Final[tuple[int, ...]] = (50, 20, 0, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20)

#: How many cards of each rank one 54-card deck holds (with 2 jokers).
PER_DECK: Final[tuple[int, ...]] = (2, 4, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4)


class CardError(ValueError):
    """A card name that is not one of ``A K Q J 10 9 8 7 6 5 4 2 JK R3 B3``."""


def parse_rank(name: str) -> int:
    """Return the rank index of a card name such as ``"K"``, ``"10"``, ``"JK"`` or ``"R3"``."""
    key = name.strip()
    rank = _NAME_TO_RANK.get(key, _NAME_TO_RANK.get(key.upper()))
    if rank is None:
        raise CardError(
            f"unknown card {name!r}; allowed: A K Q J 10 9 8 7 6 5 4 2 JK R3 B3"
        )
    return rank


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse ``"K K 2 JK"`` (or a list of names) into a list of rank indices."""
    names = text.split() if isinstance(text, str) else list(text)
    return [parse_rank(n) for n in names]


def counts_of(ranks: Iterable[int]) -> list[int]:
    """Return the rank-count vector of a sequence of rank indices."""
    counts = [0] * NUM_RANKS
    for r in ranks:
        counts[r] += 1
    return counts


def cards_of(counts: Sequence[int]) -> list[int]:
    """Expand a rank-count vector into a sorted list of rank indices (for display and traces)."""
    out: list[int] = []
    for r, n in enumerate(counts):
        out.extend([r] * n)
    return out


def format_cards(ranks: Iterable[int]) -> str:
    """Format rank indices as space-separated card names, highest rank first."""
    return " ".join(RANK_NAMES[r] for r in sorted(ranks, reverse=True))


def format_counts(counts: Sequence[int]) -> str:
    """Format a rank-count vector as space-separated card names, highest rank first."""
    return format_cards(cards_of(counts))


def deck_counts(decks: int, jokers_per_deck: int) -> list[int]:
    """Return the rank-count vector of ``decks`` shuffled-together decks."""
    counts = [n * decks for n in PER_DECK]
    counts[JOKER] = jokers_per_deck * decks
    return counts


def deck_cards(decks: int, jokers_per_deck: int) -> list[int]:
    """Return the unshuffled pack as rank indices, in rank order."""
    return cards_of(deck_counts(decks, jokers_per_deck))
