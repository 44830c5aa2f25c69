"""``spanish``: greedy play tuned for the Spanish "Canasta (juego)" (RULES.md §2.4).

Over :class:`~simcli.strategies.heuristics.greedy.Greedy` it:

1. lays hidden canastas (*ocultas*): seven cards of a rank the team has not melded, or four to six
   naturals completed with wild cards, all at once from the hand, for 1,000 instead of 500 or 300;
   a hidden canasta also opens the team whatever its minimum;
2. keeps four or more naturals of an unmelded rank in the hand, while the stock is long, to grow
   them into a hidden canasta rather than laying them three by three;
3. uses the black three as a stopper at once: discarded, it stops the next player from taking the pile
   (keeping it for a bigger pile was measured to lose against greedy in pairs: a win rate of about 0.47
   over 800 games when held until the pile had 6 cards, 0.59 over 2,000 when discarded at once);
4. respects closed ranks (*tapa*): cards of a rank with a canasta on the table cannot be used to
   take the pile by anyone, so they are the safest discards, and the team's own full canastas
   cannot grow (melds are capped at 7), so such cards are never kept.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from simcli.engine.view import PlayerView
from simcli.players.planning import meld_of, take_wilds
from simcli.primitives.actions import Meld
from simcli.primitives.cards import BLACK_THREE, JOKER, NATURAL_RANKS, TWO

from .greedy import Greedy, cheapest

#: Naturals of one unmelded rank worth keeping in the hand for a hidden canasta ...
HOLD_AT: Final = 4
#: ... while the stock still has this many cards.
HOLD_STOCK: Final = 20
#: Switches for ablation studies of the priorities above (all on in play).
USE_HIDDEN = True
USE_HOLD = True
USE_CLOSED = True
#: No ranks held (one shared empty set).
_NO_RANKS: Final[frozenset[int]] = frozenset()


# User strategies subclass the built-ins (README): compiled by mypyc, the class must allow interpreted
# subclasses (their overrides are then found by attribute lookup, at a small cost per call).
@mypyc_attr(allow_interpreted_subclasses=True)
class Spanish(Greedy):
    """Hidden canastas, the black three as a stopper, closed ranks as safe discards."""

    name = "spanish"

    # ---------------------------------------------------------------- melds
    def _hidden_melds(self, view: PlayerView) -> list[Meld]:
        """Complete canastas the hand can lay at once as new melds (hidden canastas), best first."""
        rules = view.rules
        if rules.hidden_canasta_bonus is None or not USE_HIDDEN:
            return []
        size = rules.canasta_size
        hand = view.hand
        table = view.meld_table()
        out: list[Meld] = []
        # sorted(NATURAL_RANKS, key=lambda x: -hand[x]) and the ranks that could make one (unmelded, and more
        # naturals than the wild cards they need: 2n > size): those first filtered, then sorted by their counts,
        # largest first, ties in rank order (stable). A rank of fewer naturals is never laid below, and leaving it
        # out keeps the others' order, so most hands are done here, with no copy of the hand.
        order: list[int] = []
        for r in NATURAL_RANKS:
            n = hand[r]
            if 2 * n <= size or table[r] is not None:
                continue
            i = len(order)
            while i > 0 and hand[order[i - 1]] < n:
                i -= 1
            order.insert(i, r)
        if not order:
            return out
        left = list(hand)
        for r in order:
            n = left[r]
            if n >= size:
                out.append(meld_of(r, size))
                left[r] -= size
                continue
            need = size - n
            if need < n and need <= rules.max_wilds_per_meld and left[TWO] + left[JOKER] >= need:
                tw, jk = take_wilds(left, need)
                out.append(meld_of(r, n, tw, jk))
                left[r] = 0
        return out

    def _held_ranks(self, view: PlayerView) -> frozenset[int]:
        """Unmelded ranks kept in the hand to grow into a hidden canasta."""
        rules = view.rules
        if rules.hidden_canasta_bonus is None or view.stock_size < HOLD_STOCK or not USE_HOLD:
            return _NO_RANKS
        hand = view.hand
        table = view.meld_table()
        size = rules.canasta_size
        # A loop, not a generator: called at every meld and discard decision, and most hands hold no rank.
        held: list[int] = []
        for r in NATURAL_RANKS:
            if HOLD_AT <= hand[r] < size and table[r] is None:
                held.append(r)
        return frozenset(held) if held else _NO_RANKS

    def choose_melds(self, view: PlayerView) -> list[Meld]:
        """Hidden canastas first; then greedy's plan without the ranks held for a hidden canasta."""
        hidden = self._hidden_melds(view)
        if hidden:
            hidden = self._fit(view, hidden)
            if hidden:
                return hidden
        plan = super().choose_melds(view)
        held = self._held_ranks(view)
        if held and view.has_opened:
            table = view.meld_table()
            kept = [m for m in plan if not (m.rank in held and table[m.rank] is None)]
            if len(kept) != len(plan):
                return self._fit(view, kept)
        return plan

    # --------------------------------------------------------------- discard
    def choose_discard(self, view: PlayerView) -> int | None:
        """The black three (the stopper), then closed-rank cards, then greedy's choice sparing held ranks."""
        hand = view.hand
        if view.hand_size == 1:
            return super().choose_discard(view)
        # Under discard restrictions (not Spanish ones: a house rule) only a legal card is a candidate (issue 53).
        restricted = bool(view.rules.discard_restrictions or view.rules.empty_pile_no_dead_card)
        if hand[BLACK_THREE] and (not restricted or view.discard_error(BLACK_THREE) is None):
            return BLACK_THREE
        if USE_CLOSED:
            closed = self._closed_in_hand(view, hand)
            if restricted:
                closed = [r for r in closed if view.discard_error(r) is None]
            if closed:
                return cheapest(closed)
        return super().choose_discard(view)

    @staticmethod
    def _closed_in_hand(view: PlayerView, hand: tuple[int, ...]) -> list[int]:
        """The ranks in ``hand``, in rank order, that are closed (a canasta of either team) and useless to this
        team's melds (it has none of the rank, or its own is at the cap); every team's meld table read once."""
        rules = view.rules
        size = rules.canasta_size
        cap = rules.meld_max_size
        own_team = view.team
        tables = [view.meld_table(t) for t in range(view.n_teams)]
        own = tables[own_team]
        closed: list[int] = []
        for r in NATURAL_RANKS:
            if not hand[r]:
                continue
            shut = False
            for table in tables:
                m = table[r]
                if m is not None and m[0] + m[1] + m[2] >= size:
                    shut = True
                    break
            if not shut:
                continue
            mine = own[r]
            if mine is None or (cap is not None and mine[0] + mine[1] + mine[2] >= cap):
                closed.append(r)
        return closed

    def _keep(self, view: PlayerView) -> frozenset[int]:
        """Greedy's discard spares the ranks held for a hidden canasta."""
        return self._held_ranks(view)


STRATEGY = Spanish
