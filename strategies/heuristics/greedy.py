"""``greedy``: take the pile when possible, meld everything useful, discard the least useful card.

Priorities, in order:

1. Take the pile whenever a legal take exists (opening with it if needed).
2. Open as soon as the hand reaches the minimum; then lay every natural on a team
   meld, every natural triple, and wild cards on melds one or two short of a canasta.
   Under ``new_meld_after_closed_canasta`` the naturals left over once a meld is a closed
   canasta start the next meld of the rank (``simcli.players.planning.naturals_plan``).
3. Go out as soon as the team may.
4. Discard a black three if held, else the least valuable loose card that does not
   feed an opponent's meld; wild cards last.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from simcli.engine.strategy_base import Draw, Strategy
from simcli.engine.view import PlayerView
from simcli.players.planning import (
    RANKS_BY_VALUE,
    add_naturals,
    closes_melds,
    meld_of,
    opening_plan,
    opening_take,
    penalized_ranks,
    take_wilds,
)
from simcli.primitives.actions import DRAW_STOCK, Meld
from simcli.primitives.cards import (
    BLACK_THREE,
    CARD_VALUES,
    FOUR,
    JOKER,
    NATURAL_RANKS,
    RED_THREE,
    SEVEN,
    TWO,
    WILD_MELD,
)
from simcli.rules.ruleset import RuleSet

NATURALS: Final = NATURAL_RANKS
SEVENS: Final = frozenset({SEVEN})
#: DRAW_STOCK as a constant of this module (the compiled build reads it without a dictionary lookup).
_STOCK: Final = DRAW_STOCK


#: A team's melds by rank, as :meth:`simcli.engine.view.PlayerView.meld_table` gives them.
MeldTable = tuple[tuple[int, int, int] | None, ...]


def keep_score(rank: int, n: int, own: MeldTable, others: list[MeldTable]) -> int:
    """How much a natural ``rank`` held ``n`` times is worth keeping (greedy discards the lowest): its point value,
    10 a copy, 200 if the own team has melded it (``own``: the team's meld table), 100 for each other team's meld
    of it (``others``: their meld tables)."""
    score = CARD_VALUES[rank] + 10 * n
    if own[rank] is not None:
        score += 200
    for table in others:
        if table[rank] is not None:
            score += 100
    return score


def cheapest(ranks: list[int]) -> int:
    """``min(ranks, key=(card value, rank))``, without a key function (the compiled build then
    calls none per rank)."""
    best = ranks[0]
    for r in ranks[1:]:
        if (CARD_VALUES[r], r) < (CARD_VALUES[best], best):
            best = r
    return best


def by_size(sizes: dict[int, int]) -> list[int]:
    """The ranks of ``sizes`` from the largest meld down, ties in the dict's order: ``sorted(sizes, key=lambda r:
    -sizes[r])``, written as an insertion sort (a handful of ranks), which the compiled build runs without calling
    a key function per rank."""
    order: list[int] = []
    kept: list[int] = []  # the sizes of ``order``'s ranks: compared natively, no dictionary lookup per step
    for r, size in sizes.items():
        i = len(order)
        while i > 0 and kept[i - 1] < size:
            i -= 1
        order.insert(i, r)
        kept.insert(i, size)
    return order


# User strategies subclass the built-ins (README): compiled by mypyc, the class must allow interpreted
# subclasses (their overrides are then found by attribute lookup, at a small cost per call).
@mypyc_attr(allow_interpreted_subclasses=True)
class Greedy(Strategy):
    """Always takes the pile, melds what it can, and works toward canastas."""

    name = "greedy"

    def choose_draw(self, view: PlayerView) -> Draw:
        """Take the pile if any of a few natural takes is legal, else draw."""
        top = view.pile_top
        if top is None or top < FOUR:  # empty pile, or a wild card or three on top
            return _STOCK
        hand = view.hand
        n = hand[top]
        has_meld = view.meld(top) is not None
        if not has_meld and top in self._avoid(view.rules):
            return _STOCK  # a new aces/sevens meld would cost a penalty unless completed
        if n < 2 and not has_meld and (n == 0 or hand[TWO] + hand[JOKER] == 0):
            return _STOCK
        frozen = view.pile_frozen
        if n < 2 and frozen:
            return _STOCK
        candidates = []
        if n >= 2:
            candidates.append(meld_of(top, n))
        if has_meld:
            candidates.append(meld_of(top, n))
            candidates.append(meld_of(top, 0))  # a bare lay-off (fits under a meld size cap; may be forced)
        elif n >= 1:
            left = list(hand)
            tw, jk = take_wilds(left, 1)
            candidates.append(meld_of(top, n, tw, jk))
        opened = view.has_opened
        for meld in candidates:
            take = opening_take(hand, meld, view.minimum, opened)
            if take is not None and view.check_take(take) is None:
                return take
        return _STOCK

    def choose_melds(self, view: PlayerView) -> list[Meld]:
        """Open if possible, then lay naturals and close canastas; go out when allowed."""
        hand = view.hand
        rules = view.rules
        avoid = self._avoid(rules)
        if not view.has_opened:
            opening = opening_plan(hand, view.minimum, avoid=avoid,
                                   no_wild_ranks=frozenset() if rules.sevens_wilds_allowed else SEVENS)
            return self._fit(view, opening) if opening else []
        table = view.meld_table()
        cap = rules.meld_max_size or 10**6
        min_size = rules.meld_min_size
        size = rules.canasta_size
        plan: list[Meld] = []
        used = 0
        if self._several_melds:  # set by self._avoid(rules) above
            # Fill the meld of each rank up to the cap; under new_meld_after_closed_canasta the rest starts a new
            # meld once it is closed. A meld that costs a penalty unless completed is started only complete.
            close_at = closes_melds(rules)  # naturals_plan's knobs, read once for every rank
            most = rules.meld_max_size or 1 << 20
            for r in RANKS_BY_VALUE:
                c = hand[r]
                if c:
                    m = table[r]
                    used += add_naturals(plan, r, c, 0 if m is None else m[0] + m[1] + m[2], most, close_at,
                                         size if avoid and r in avoid else min_size)  # = naturals_plan(...)
        else:
            # One meld per rank (the common case, inlined: this loop runs for every rank in every hand).
            for r in RANKS_BY_VALUE:
                c = hand[r]
                if not c:
                    continue
                m = table[r]
                if m is None:
                    if c < min_size or (avoid and r in avoid and c < size):  # avoid is mostly empty
                        continue
                    n = c if c <= cap else cap
                else:
                    n = cap - m[0] - m[1] - m[2]
                    if n > c:
                        n = c
                    if n <= 0:
                        continue
                plan.append(meld_of(r, n))
                used += n
        if not (hand[TWO] or hand[JOKER] or hand[BLACK_THREE] >= 3):
            # The common case: natural cards only, within the caps. With two cards kept it is legal by
            # construction (the engine still checks); otherwise the plan is fitted.
            if not plan or (view.hand_size - used >= 2 and not rules.closed_rank_dead_for_all):
                return plan
            return self._fit(view, plan)
        left = list(hand)
        for action in plan:
            left[action.rank] -= action.naturals
        naturals_only = len(plan)
        if left[TWO] + left[JOKER]:
            sizes: dict[int, int] = {}
            for r in RANKS_BY_VALUE:
                on_table = table[r]
                size = (0 if on_table is None else on_table[0] + on_table[1] + on_table[2]) + (hand[r] - left[r])
                if size:
                    sizes[r] = size
            self._place_wilds(rules, table, sizes, left, plan, cap)
        # going out: black threes may be melded only by a player going out
        if left[BLACK_THREE] >= 3 and sum(left) - left[BLACK_THREE] <= 1:
            with_threes = plan + [meld_of(BLACK_THREE, left[BLACK_THREE])]
            if view.check_melds(with_threes) is None:
                return with_threes
        if not plan:
            return plan
        if len(plan) == naturals_only and view.hand_size - used >= 2 and not rules.closed_rank_dead_for_all:
            return plan  # no wild card was placed: legal by construction, as above
        return self._fit(view, plan)

    def _place_wilds(self, rules: RuleSet, table: tuple, sizes: dict[int, int], left: list[int],
                     plan: list[Meld], cap: int) -> None:
        """Wild cards go to a wild meld where the variant has them, else onto melds one or two short."""
        wild = table[WILD_MELD]
        risky = rules.incomplete_penalty_wild < 0 and wild is None and (
            left[TWO] + left[JOKER] < rules.canasta_size)
        if rules.wild_melds_allowed and rules.canasta_bonus_wild and not risky:
            size = 0 if wild is None else wild[1] + wild[2]
            if size < rules.canasta_size:
                count = left[TWO] + left[JOKER]
                if wild is not None or count >= rules.wild_meld_min_start:
                    tw, jk = take_wilds(left, min(count, cap - size))
                    if tw or jk:
                        plan.append(meld_of(WILD_MELD, 0, tw, jk))
                return  # keep the wild cards for the wild canasta
        max_wilds = rules.max_wilds_per_meld
        for r in by_size(sizes):
            short = rules.canasta_size - sizes[r]
            if short <= 0 or short > 2 or left[TWO] + left[JOKER] == 0:
                continue
            m = table[r]
            used = 0 if m is None else m[1] + m[2]
            tw, jk = take_wilds(left, min(short, max_wilds - used))
            if tw or jk:
                plan.append(meld_of(r, 0, tw, jk))

    _avoid_rules: RuleSet | None = None
    _avoid_set: frozenset[int] = frozenset()
    #: Whether the rules allow several melds of a rank (new_meld_after_closed_canasta), cached with _avoid_set.
    _several_melds = False
    _discard_rules: RuleSet | None = None
    _restricted = False
    _penalized: frozenset[int] = frozenset()

    def _avoid(self, rules: RuleSet) -> frozenset[int]:
        """Penalized ranks for these rules (cached: the rules are the same all game)."""
        if self._avoid_rules is not rules:
            self._avoid_rules = rules
            self._avoid_set = penalized_ranks(rules)
            self._several_melds = closes_melds(rules) is not None
        return self._avoid_set

    @staticmethod
    def _fit(view: PlayerView, plan: list[Meld]) -> list[Meld]:
        """Drop melds from the end of ``plan`` until the engine would accept it."""
        while plan:
            if view.check_melds(plan) is None:
                return plan
            plan = plan[:-1]
        return plan

    def _keep(self, view: PlayerView) -> frozenset[int]:
        """Ranks a subclass wants to keep in the hand (discarded only when nothing else is loose)."""
        return frozenset()

    def choose_discard(self, view: PlayerView) -> int | None:
        """Black three first, then the least useful natural (loose, cheap, useless to opponents), wilds last."""
        hand = view.hand
        rules = view.rules
        if rules is not self._discard_rules:
            self._discard_rules = rules
            self._restricted = bool(rules.discard_restrictions or rules.empty_pile_no_dead_card)
            self._penalized = self._avoid(rules) if (
                rules.hand_rank_penalty_aces or rules.hand_rank_penalty_sevens) else frozenset()
        if self._restricted:
            legal = view.legal_discards()
            hand = tuple(n if r in legal else 0 for r, n in enumerate(hand))
        if hand[BLACK_THREE] and view.hand_size > 1:
            return BLACK_THREE
        team = view.team
        own = view.meld_table()
        avoid = self._penalized
        keep = self._keep(view)
        n_teams = view.n_teams
        others = [view.meld_table(1 - team)] if n_teams == 2 else [
            view.meld_table(t) for t in range(n_teams) if t != team]
        best = -1
        best_score = 1 << 30
        for r in NATURALS:
            n = hand[r]
            if n:
                score = keep_score(r, n, own, others)
                if own[r] is None and n >= 3 and avoid and r in avoid:
                    score -= 400  # three or more aces/sevens in hand cost a penalty (Americana)
                if keep and r in keep:  # keep is mostly empty: no set lookup then
                    score += 400
                if score < best_score:
                    best, best_score = r, score
        if best >= 0:
            return best
        # Nothing natural left. A red three only where it is the last card and the stock is out (Americana lays
        # threes and replaces them from the stock: with none left, it stays in hand and goes out as the discard).
        for r in (TWO, JOKER, BLACK_THREE, RED_THREE):
            if hand[r]:
                return r
        return best
