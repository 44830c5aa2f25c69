"""``ponytail``: greedy play tuned for Ponytail Canasta's four required canastas.

Over :class:`~simcli.strategies.heuristics.greedy.Greedy` it:

1. keeps every wild card for the wild canasta until it is complete, then uses one to
   turn a six-card natural meld into the mixed canasta the set needs; under
   ``new_meld_after_closed_canasta`` it then builds further wild canastas;
2. discards dead cards first: naturals of a rank whose canasta the team has closed
   (they can never be melded again), unless an opponent has an open meld of that rank.
   Under ``new_meld_after_closed_canasta`` (the preset, RULES.md A-PT-18) a closed canasta
   frees its rank, so no card is dead: greedy's melding starts the next meld of the rank;
3. keeps sevens (discarded only when nothing else is loose): a sevens canasta pays 1500;
4. times going out: with the required set made it goes out only when the team is ahead
   on the deal, the stock is running low, or the opponents could go out first;
   otherwise it keeps two cards back and goes on building canastas.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from simcli.engine.melds import meld_value, requirement_met
from simcli.engine.view import PlayerView
from simcli.players.asking import table_value
from simcli.players.planning import closes_melds, meld_of, take_wilds
from simcli.primitives.actions import Meld
from simcli.primitives.cards import BLACK_THREE, FOUR, JOKER, NUM_RANKS, SEVEN, TWO, WILD_MELD
from simcli.rules.ruleset import RuleSet

from .greedy import Greedy, by_size, cheapest

#: Below this many stock cards the deal may end any moment: go out when allowed.
LOW_STOCK: Final = 16
SEVENS_KEPT: Final = frozenset({SEVEN})


def cards_in(plan: list[Meld]) -> int:
    """The cards a plan takes from the hand (the sum of Meld.size, an interpreted property, summed here)."""
    total = 0
    for m in plan:
        total += m.naturals + m.twos + m.jokers
    return total


def no_open_meld(tables: list[tuple[tuple[int, int, int] | None, ...]], rank: int, size: int) -> bool:
    """Whether no team of ``tables`` (meld tables) has an open meld of ``rank`` (one short of ``size`` cards)."""
    for table in tables:
        m = table[rank]
        if m is not None and m[0] + m[1] + m[2] < size:
            return False
    return True


def hold_back(view: PlayerView, plan: list[Meld]) -> list[Meld]:
    """``plan`` cut so that the hand keeps two cards (no going out): melds dropped from the end, or the last
    natural meld trimmed, then fitted to what the engine accepts (:meth:`Greedy._fit`)."""
    while plan and view.hand_size - cards_in(plan) < 2:
        last = plan.pop()
        keep = 2 - (view.hand_size - cards_in(plan))
        if last.naturals > keep and last.twos == last.jokers == 0 and last.rank != BLACK_THREE:
            trimmed = meld_of(last.rank, last.naturals - keep)
            if view.check_melds(plan + [trimmed]) is None:
                plan.append(trimmed)
                break
    return Greedy._fit(view, plan)


# User strategies subclass the built-ins (README): compiled by mypyc, the class must allow interpreted
# subclasses (their overrides are then found by attribute lookup, at a small cost per call).
@mypyc_attr(allow_interpreted_subclasses=True)
class Ponytail(Greedy):
    """Builds the four required canastas, discards dead cards, and chooses when to go out."""

    name = "ponytail"

    #: Wild and mixed canastas of the team when choose_melds started (a closed one may have left its slot).
    _wild_canastas = 0
    _mixed_canastas = 0

    def _place_wilds(self, rules: RuleSet, table: tuple, sizes: dict[int, int], left: list[int],
                     plan: list[Meld], cap: int) -> None:
        wild = table[WILD_MELD]
        # Under new_meld_after_closed_canasta the finished wild canasta is set aside and the slot is empty:
        # count it from the team's canastas, or the wild cards would be hoarded for a second one.
        wild_done = self._wild_canastas > 0 or (
            wild is not None and wild[1] + wild[2] >= rules.canasta_size)
        if not wild_done or (self._mixed_canastas and closes_melds(rules) is not None):
            # Before the wild canasta: build it. Under new_meld_after_closed_canasta, once the set has its wild
            # and mixed canastas, the wild cards go to the next wild canasta (1000 each) as greedy's do.
            super()._place_wilds(rules, table, sizes, left, plan, cap)
            return
        # The wild canasta is made: a single wild completes a six-card meld, preferring the
        # mixed canasta the set still lacks; sevens first (1500).
        order = by_size(sizes)  # sevens first, then greedy's order (sorted(sizes, key=(r != SEVEN, -size)))
        if SEVEN in sizes:
            order = [SEVEN] + [r for r in order if r != SEVEN]
        for r in order:
            if left[TWO] + left[JOKER] == 0:
                break
            if sizes[r] == rules.canasta_size - 1:
                m = table[r]
                if m is not None and m[1] + m[2] >= rules.max_wilds_per_meld:
                    continue
                tw, jk = take_wilds(left, 1)
                plan.append(meld_of(r, 0, tw, jk))

    def choose_melds(self, view: PlayerView) -> list[Meld]:
        """Greedy melds, but hold back going out until it pays."""
        canastas = view.canastas()
        self._wild_canastas = canastas["WILD"]
        self._mixed_canastas = canastas["MIXED"]
        plan = super().choose_melds(view)
        if not plan:
            return plan
        used = cards_in(plan)
        if view.hand_size - used > 1 or self._wants_out(view, plan):
            return plan
        return hold_back(view, plan)

    def _wants_out(self, view: PlayerView, plan: list[Meld]) -> bool:
        """Whether going out now beats playing on."""
        if view.stock_size <= LOW_STOCK:
            return True
        rules = view.rules
        mine = table_value(view, view.team) + sum(
            meld_value(m.naturals, m.twos, m.jokers, m.rank) for m in plan)
        best_other = max(table_value(view, t) for t in range(view.n_teams) if t != view.team)
        for t in range(view.n_teams):
            if t != view.team and requirement_met(rules.go_out_requirement, view.canastas(t)):
                return True  # they could go out first
        return mine + rules.going_out_bonus > best_other + 500

    def _keep(self, view: PlayerView) -> frozenset[int]:
        """Sevens stay in the hand while anything else is loose: a sevens canasta pays the most (1500)."""
        return SEVENS_KEPT if view.rules.canasta_bonus_sevens else frozenset()

    def choose_discard(self, view: PlayerView) -> int | None:
        """Dead cards (ranks of our closed canastas) first, then greedy's choice."""
        hand = view.hand
        rules = view.rules
        if rules.discard_restrictions or rules.empty_pile_no_dead_card:  # house rules: legal cards only (issue 53)
            legal = view.legal_discards()
            hand = tuple(n if r in legal else 0 for r, n in enumerate(hand))
        if hand[BLACK_THREE] and view.hand_size > 1:
            return BLACK_THREE
        own = view.meld_table()
        opponents = [view.meld_table(t) for t in range(view.n_teams) if t != view.team]
        size = rules.canasta_size
        cap = rules.meld_max_size or 10**6
        dead = []
        for r in range(FOUR, NUM_RANKS):
            mine = own[r]
            if hand[r] and mine is not None and mine[0] + mine[1] + mine[2] >= cap and no_open_meld(opponents, r, size):
                dead.append(r)
        if dead:
            return cheapest(dead)
        return super().choose_discard(view)


STRATEGY = Ponytail
