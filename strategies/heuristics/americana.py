"""``americana``: greedy play tuned for Canasta Americana (RULES.md §2.3).

Over :class:`~simcli.strategies.heuristics.greedy.Greedy` (which already avoids melds that cost a penalty
unless completed, and discards a third ace or seven) it:

1. goes for a special hand when the deal starts close to one: it keeps a three for the
   straight, stays unopened while two cards or fewer are missing and the stock is long,
   discards the cards the hand does not need, and lays the hand as soon as it is complete;
2. otherwise opens as early as it can, which brings the four-card wing;
3. discards dead cards first: naturals of a rank that has a canasta on the table, which
   nobody can meld or take the pile with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mypy_extensions import mypyc_attr

from simcli.engine.features.special import find_special
from simcli.engine.view import PlayerView
from simcli.primitives.actions import Meld, SpecialHand
from simcli.primitives.cards import ACE, BLACK_THREE, CARD_VALUES, FOUR, JOKER, NATURAL_RANKS, RED_THREE, SEVEN, TWO

from .greedy import Greedy, cheapest

#: Aim for a special hand only while at most this many cards are missing ...
MAX_MISSING: Final = 1
#: ... and the stock still has this many cards to draw from.
MIN_STOCK: Final = 20


def special_fit(kind: str, hand: Sequence[int]) -> int:
    """How many of the 14 cards of special hand ``kind`` the hand already holds.

    Counted without sorting (this runs for every kind at most decisions): the best pairs are the ranks holding
    two or more, then those holding one; garbage takes the four largest counts."""
    h = list(hand)  # a list of ints, read natively by the compiled build
    if kind == "STRAIGHT":
        held = 1 if h[TWO] else 0
        held += 1 if h[JOKER] else 0
        held += 1 if h[RED_THREE] + h[BLACK_THREE] else 0
        for r in NATURAL_RANKS:
            if h[r]:
                held += 1
        return held
    if kind == "PAIRS_NATURAL":
        return _best_pairs(h, 7, -1, -1)
    if kind == "PAIRS_WITH_2_7_A":
        fixed = min(2, h[TWO]) + min(2, h[SEVEN]) + min(2, h[ACE])
        return fixed + _best_pairs(h, 4, SEVEN, ACE)
    top = [0, 0, 0, 0]  # the four largest natural counts, largest first
    for r in NATURAL_RANKS:
        n = h[r]
        i = 4
        while i > 0 and top[i - 1] < n:
            i -= 1
        if i < 4:
            top.insert(i, n)
            top.pop()
    return min(4, top[0]) + min(4, top[1]) + min(3, top[2]) + min(3, top[3])


def _best_pairs(h: list[int], pairs: int, skip: int, skip_too: int) -> int:
    """The cards of the best ``pairs`` natural ranks (but ``skip`` and ``skip_too``) towards pairs, each rank
    giving min(2, count): as many twos as there are, then ones (the sum of the largest, sorted)."""
    twos = ones = 0
    for r in NATURAL_RANKS:
        if r == skip or r == skip_too:
            continue
        n = h[r]
        if n >= 2:
            twos += 1
        elif n == 1:
            ones += 1
    full = min(pairs, twos)
    return 2 * full + min(pairs - full, ones)


# User strategies subclass the built-ins (README): compiled by mypyc, the class must allow interpreted
# subclasses (their overrides are then found by attribute lookup, at a small cost per call).
@mypyc_attr(allow_interpreted_subclasses=True)
class Americana(Greedy):
    """Special hands when close, an early opening for the wing, dead cards discarded first."""

    name = "americana"

    def _target(self, view: PlayerView, hand: Sequence[int]) -> str | None:
        """The special hand worth aiming for now, if any."""
        rules = view.rules
        kinds = rules.special_hands
        if not kinds or view.has_opened or view.stock_size < MIN_STOCK:
            return None
        # max(kinds, key=(fit, index)), each fit computed once: the first kind of the highest key wins
        best: str | None = None
        best_fit = best_index = -1
        for kind in kinds:
            fit = special_fit(kind, hand)
            index = kinds.index(kind)
            if best is None or (fit, index) > (best_fit, best_index):
                best, best_fit, best_index = kind, fit, index
        return best if 14 - best_fit <= MAX_MISSING else None

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """Keep one three when the straight is within reach."""
        hand = list(view.hand)
        hand[rank] += 1
        return "STRAIGHT" in view.rules.special_hands and 14 - special_fit("STRAIGHT", hand) <= MAX_MISSING + 1

    def choose_melds(self, view: PlayerView) -> list[Meld] | list[SpecialHand]:  # type: ignore[override]
        """Lay a complete special hand; stay unopened while aiming for one; else greedy."""
        hand = view.hand
        rules = view.rules
        if rules.special_hands and not view.has_opened and view.hand_size - 14 <= 1:
            for kind in rules.special_hands:
                if find_special(kind, hand, rules.pairs_wild_pair_ranks) is not None and \
                        view.check_special(kind) is None:
                    return [SpecialHand(kind)]
        if self._target(view, hand) is not None:
            return []
        return super().choose_melds(view)

    def choose_discard(self, view: PlayerView) -> int | None:
        """A card the targeted special hand does not need, else a dead card, else greedy's choice."""
        hand = view.hand
        legal = view.legal_discards()
        target = self._target(view, hand)
        if view.rules.hand_rank_penalty_aces or view.rules.hand_rank_penalty_sevens:
            # Three or more aces or sevens in one hand cost 1,500 at the end: keep two at most.
            for r in self._avoid(view.rules):
                if hand[r] >= 3 and r in legal and view.meld(r) is None and target != "GARBAGE":
                    return r
        if target is not None:
            fit = special_fit(target, hand)
            spare = []
            for r in legal:
                left = list(hand)
                left[r] -= 1
                if special_fit(target, left) == fit:
                    spare.append(r)
            if spare:
                return cheapest(spare)
        dead = [r for r in legal if r >= FOUR and self._dead(view, r)]
        if dead:
            return cheapest(dead)
        # The pile is always frozen: an opponent needs a natural pair of the top card. A loose card of a
        # rank whose copies are mostly in sight (on the table or in this hand) is the safest discard.
        loose = [r for r in legal if r >= FOUR and hand[r] == 1 and view.meld(r) is None]
        if loose and view.rules.pile_always_frozen:
            # max(loose, key=(seen, -value, -rank)): the first of the highest key
            best = loose[0]
            best_key = (self._seen(view, best), -CARD_VALUES[best], -best)
            for r in loose[1:]:
                key = (self._seen(view, r), -CARD_VALUES[r], -r)
                if key > best_key:
                    best, best_key = r, key
            return best
        return super().choose_discard(view)

    @staticmethod
    def _seen(view: PlayerView, rank: int) -> int:
        """Copies of ``rank`` this player can see: own hand plus every meld on the table."""
        seen = view.hand[rank]
        for t in range(view.n_teams):
            m = view.meld(rank, t)
            if m is not None:
                seen += m[0]
        return seen

    @staticmethod
    def _dead(view: PlayerView, rank: int) -> bool:
        if not view.rules.closed_rank_dead_for_all:
            return False
        size = view.rules.canasta_size
        for t in range(view.n_teams):
            m = view.meld(rank, t)
            if m is not None and m[0] + m[1] + m[2] >= size:
                return True
        return False


STRATEGY = Americana
