"""``americana``: greedy play tuned for Canasta Americana (RULES.md §2.3).

Over :class:`~strategies.greedy.Greedy` (which already avoids melds that cost a penalty
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
from simcli.primitives.cards import ACE, BLACK_THREE, CARD_VALUES, FOUR, JOKER, NATURAL_RANKS, RED_THREE, TWO

from .greedy import Greedy

#: Aim for a special hand only while at most this many cards are missing ...
MAX_MISSING: Final = 1
#: ... and the stock still has this many cards to draw from.
MIN_STOCK: Final = 20


def special_fit(kind: str, hand: Sequence[int]) -> int:
    """How many of the 14 cards of special hand ``kind`` the hand already holds."""
    if kind == "STRAIGHT":
        slots = [hand[r] for r in NATURAL_RANKS] + [hand[TWO], hand[JOKER], hand[RED_THREE] + hand[BLACK_THREE]]
        return sum(1 for n in slots if n)
    if kind == "PAIRS_NATURAL":
        return sum(sorted((min(2, hand[r]) for r in NATURAL_RANKS), reverse=True)[:7])
    if kind == "PAIRS_WITH_2_7_A":
        fixed = min(2, hand[TWO]) + min(2, hand[7]) + min(2, hand[ACE])
        rest = sorted((min(2, hand[r]) for r in NATURAL_RANKS if r not in (7, ACE)), reverse=True)[:4]
        return fixed + sum(rest)
    counts = sorted((hand[r] for r in NATURAL_RANKS), reverse=True)
    return min(4, counts[0]) + min(4, counts[1]) + min(3, counts[2]) + min(3, counts[3])


# User strategies subclass the built-ins (README): compiled by mypyc, the class must allow interpreted
# subclasses (their overrides are then found by attribute lookup, at a small cost per call).
@mypyc_attr(allow_interpreted_subclasses=True)
class Americana(Greedy):
    """Special hands when close, an early opening for the wing, dead cards discarded first."""

    name = "americana"

    def _target(self, view: PlayerView, hand: Sequence[int]) -> str | None:
        """The special hand worth aiming for now, if any."""
        rules = view.rules
        if not rules.special_hands or view.has_opened or view.stock_size < MIN_STOCK:
            return None
        best = max(rules.special_hands, key=lambda k: (special_fit(k, hand), rules.special_hands.index(k)))
        return best if 14 - special_fit(best, hand) <= MAX_MISSING else None

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
                return min(spare, key=lambda r: (CARD_VALUES[r], r))
        dead = [r for r in legal if r >= FOUR and self._dead(view, r)]
        if dead:
            return min(dead, key=lambda r: (CARD_VALUES[r], r))
        # The pile is always frozen: an opponent needs a natural pair of the top card. A loose card of a
        # rank whose copies are mostly in sight (on the table or in this hand) is the safest discard.
        loose = [r for r in legal if r >= FOUR and hand[r] == 1 and view.meld(r) is None]
        if loose and view.rules.pile_always_frozen:
            return max(loose, key=lambda r: (self._seen(view, r), -CARD_VALUES[r], -r))
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
        return any((m := view.meld(rank, t)) is not None and sum(m) >= size for t in range(view.n_teams))


STRATEGY = Americana
