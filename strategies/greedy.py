"""``greedy``: take the pile when possible, meld everything useful, discard the least useful card.

Priorities, in order:

1. Take the pile whenever a legal take exists (opening with it if needed).
2. Open as soon as the hand reaches the minimum; then lay every natural on a team
   meld, every natural triple, and wild cards on melds one or two short of a canasta.
3. Go out as soon as the team may.
4. Discard a black three if held, else the least valuable loose card that does not
   feed an opponent's meld; wild cards last.
"""

from __future__ import annotations

from simcli.actions import DRAW_STOCK, Meld, TakePile
from simcli.cards import BLACK_THREE, CARD_VALUES, IS_NATURAL, JOKER, NUM_RANKS, TWO, WILD_MELD
from simcli.planning import RANKS_BY_VALUE, opening_plan, take_wilds
from simcli.strategy import Draw, Strategy
from simcli.view import PlayerView


class Greedy(Strategy):
    """Always takes the pile, melds what it can, and works toward canastas."""

    name = "greedy"

    def choose_draw(self, view: PlayerView) -> Draw:
        """Take the pile if any of a few natural takes is legal, else draw."""
        top = view.pile_top
        if top is None or not IS_NATURAL[top]:
            return DRAW_STOCK
        hand = view.hand
        n = hand[top]
        has_meld = view.meld(top) is not None
        frozen = view.pile_frozen
        if n < 2 and (frozen or (not has_meld and (n == 0 or hand[TWO] + hand[JOKER] == 0))):
            return DRAW_STOCK
        candidates = []
        if n >= 2:
            candidates.append(Meld(top, n))
        if has_meld:
            candidates.append(Meld(top, n))
            candidates.append(Meld(top, 0))  # a bare lay-off (fits under a meld size cap; may be forced)
        elif n >= 1:
            left = list(hand)
            tw, jk = take_wilds(left, 1)
            candidates.append(Meld(top, n, tw, jk))
        opened = view.has_opened
        for meld in candidates:
            extra: tuple[Meld, ...] = ()
            if not opened:
                left = list(hand)
                left[top] -= meld.naturals
                left[TWO] -= meld.twos
                left[JOKER] -= meld.jokers
                already = (meld.naturals + 1) * CARD_VALUES[top] + 20 * meld.twos + 50 * meld.jokers
                plan = opening_plan(left, view.minimum, already, exclude=top)
                if plan is None:
                    continue
                extra = tuple(plan)
            take = TakePile(meld, extra)
            if view.check_take(take) is None:
                return take
        return DRAW_STOCK

    def choose_melds(self, view: PlayerView) -> list[Meld]:
        """Open if possible, then lay naturals and close canastas; go out when allowed."""
        hand = view.hand
        if not view.has_opened:
            plan = opening_plan(hand, view.minimum)
            return self._fit(view, plan) if plan else []
        rules = view.rules
        table = view.meld_table()
        cap = rules.meld_max_size or 10**6
        plan: list[Meld] = []
        left = list(hand)
        sizes: dict[int, int] = {}
        for r in RANKS_BY_VALUE:
            c = left[r]
            m = table[r]
            size = 0 if m is None else m[0] + m[1] + m[2]
            if c and (c >= rules.meld_min_size or m is not None):
                n = min(c, cap - size)
                if n > 0:
                    plan.append(Meld(r, n))
                    left[r] -= n
                    size += n
            if size:
                sizes[r] = size
        if left[TWO] + left[JOKER]:
            self._place_wilds(rules, table, sizes, left, plan, cap)
        # going out: black threes may be melded only by a player going out
        if left[BLACK_THREE] >= 3 and sum(left) - left[BLACK_THREE] <= 1:
            with_threes = plan + [Meld(BLACK_THREE, left[BLACK_THREE])]
            if view.check_melds(with_threes) is None:
                return with_threes
        if not plan:
            return plan
        if sum(left) >= 2 and not rules.closed_rank_dead_for_all and not any(m.twos or m.jokers for m in plan):
            return plan  # natural cards only within the caps, hand kept: legal by construction (still checked)
        return self._fit(view, plan)

    def _place_wilds(self, rules: object, table: tuple, sizes: dict[int, int], left: list[int],
                     plan: list[Meld], cap: int) -> None:
        """Wild cards go to a wild meld where the variant has them, else onto melds one or two short."""
        if rules.wild_melds_allowed and rules.canasta_bonus_wild:  # type: ignore[attr-defined]
            wild = table[WILD_MELD]
            size = 0 if wild is None else wild[1] + wild[2]
            if size < rules.canasta_size:  # type: ignore[attr-defined]
                count = left[TWO] + left[JOKER]
                if wild is not None or count >= rules.wild_meld_min_start:  # type: ignore[attr-defined]
                    tw, jk = take_wilds(left, min(count, cap - size))
                    if tw or jk:
                        plan.append(Meld(WILD_MELD, 0, tw, jk))
                return  # keep the wild cards for the wild canasta
        max_wilds = rules.max_wilds_per_meld  # type: ignore[attr-defined]
        for r in sorted(sizes, key=lambda x: -sizes[x]):
            short = rules.canasta_size - sizes[r]  # type: ignore[attr-defined]
            if short <= 0 or short > 2 or left[TWO] + left[JOKER] == 0:
                continue
            m = table[r]
            used = 0 if m is None else m[1] + m[2]
            tw, jk = take_wilds(left, min(short, max_wilds - used))
            if tw or jk:
                plan.append(Meld(r, 0, tw, jk))

    @staticmethod
    def _fit(view: PlayerView, plan: list[Meld]) -> list[Meld]:
        """Drop melds from the end of ``plan`` until the engine would accept it."""
        while plan:
            if view.check_melds(plan) is None:
                return plan
            plan = plan[:-1]
        return plan

    def choose_discard(self, view: PlayerView) -> int | None:
        """Black three first, then the least useful natural, wild cards last."""
        hand = view.hand
        if hand[BLACK_THREE] and view.hand_size > 1:
            return BLACK_THREE
        own = view.meld_table()
        others = [view.meld_table(t) for t in range(view.n_teams) if t != view.team]
        best = -1
        best_score = 1 << 30
        for r in range(NUM_RANKS):
            n = hand[r]
            if not n:
                continue
            score = CARD_VALUES[r] + 10 * n
            if own[r] is not None:
                score += 200
            for table in others:
                if table[r] is not None:
                    score += 100
            if r == TWO or r == JOKER:
                score += 1000
            if score < best_score:
                best, best_score = r, score
        return best
