"""Special hands of Canasta Americana (RULES.md §2.3): which 14 cards of a hand make one.

Each finder takes a rank-count vector and returns the rank-count vector of the 14 cards
that form the special hand, or ``None``. The engine and strategies share them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from simcli.cards import ACE, BLACK_THREE, FOUR, JOKER, NUM_RANKS, RED_THREE, SEVEN, TWO

NATURALS_HIGH_FIRST = tuple(range(ACE, FOUR - 1, -1))


def straight(hand: Sequence[int]) -> list[int] | None:
    """One each of A, 2, 3 (either colour), 4 ... K, plus one joker."""
    if hand[JOKER] < 1 or hand[TWO] < 1 or hand[RED_THREE] + hand[BLACK_THREE] < 1:
        return None
    if any(hand[r] < 1 for r in range(FOUR, ACE + 1)):
        return None
    out = [0] * NUM_RANKS
    out[JOKER] = out[TWO] = 1
    out[BLACK_THREE if hand[BLACK_THREE] else RED_THREE] = 1
    for r in range(FOUR, ACE + 1):
        out[r] = 1
    return out


def _pairs(hand: Sequence[int], required: tuple[int, ...]) -> list[int] | None:
    out = [0] * NUM_RANKS
    for r in required:
        if hand[r] < 2:
            return None
        out[r] = 2
    for r in NATURALS_HIGH_FIRST:
        if sum(out) == 14:
            break
        if out[r] == 0 and hand[r] >= 2:
            out[r] = 2
    return out if sum(out) == 14 else None


def pairs_natural(hand: Sequence[int]) -> list[int] | None:
    """Seven pairs of different natural ranks (no threes, no wild cards)."""
    return _pairs(hand, ())


def pairs_with_2_7_a(hand: Sequence[int], wild_ranks: Sequence[int] = (TWO,)) -> list[int] | None:
    """Seven pairs including a pair of wild cards (2s; jokers too where allowed) plus pairs of 7s and aces."""
    for wild in wild_ranks:
        found = _pairs(hand, (wild, SEVEN, ACE))
        if found is not None:
            return found
    return None


def garbage(hand: Sequence[int]) -> list[int] | None:
    """Two four-of-a-kinds and two three-of-a-kinds of four different natural ranks."""
    out = [0] * NUM_RANKS
    fours = [r for r in NATURALS_HIGH_FIRST if hand[r] >= 4][:2]
    if len(fours) < 2:
        return None
    for r in fours:
        out[r] = 4
    threes = [r for r in NATURALS_HIGH_FIRST if r not in fours and hand[r] >= 3][:2]
    if len(threes) < 2:
        return None
    for r in threes:
        out[r] = 3
    return out


FINDERS: dict[str, Callable[[Sequence[int]], list[int] | None]] = {
    "STRAIGHT": straight,
    "PAIRS_NATURAL": pairs_natural,
    "PAIRS_WITH_2_7_A": pairs_with_2_7_a,
    "GARBAGE": garbage,
}


def find_special(kind: str, hand: Sequence[int], wild_pair_ranks: Sequence[int] = (TWO,)) -> list[int] | None:
    """The 14 cards of ``hand`` that make special hand ``kind``, or ``None``."""
    if kind == "PAIRS_WITH_2_7_A":
        return pairs_with_2_7_a(hand, wild_pair_ranks)
    return FINDERS[kind](hand)
