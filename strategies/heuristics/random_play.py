"""``random``: uniform over the legal decisions at each step.

Draw: the stock or any legal take of the pile (natural pair, natural + wild, lay-off,
with an opening plan when the team has not opened). Melds: built one action at a
time, each step choosing uniformly among the legal next actions and "stop".
Discard: any rank in hand. Over many deals it reaches every kind of move,
including going out and concealed going out.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from simcli.engine.strategy_base import Draw, Strategy
from simcli.engine.view import PlayerView
from simcli.players.planning import meld_of, opening_take
from simcli.primitives.actions import DRAW_STOCK, Meld
from simcli.primitives.cards import ACE, BLACK_THREE, FOUR, IS_NATURAL, JOKER, TWO, WILD_MELD

#: Meld steps per turn; a plan is almost always finished long before this.
MAX_STEPS: Final = 40


# User strategies subclass the built-ins (README): compiled by mypyc, the class must allow interpreted
# subclasses (their overrides are then found by attribute lookup, at a small cost per call).
@mypyc_attr(allow_interpreted_subclasses=True)
class RandomStrategy(Strategy):
    """Chooses uniformly among the legal options at every step."""

    name = "random"

    def choose_draw(self, view: PlayerView) -> Draw:
        """The stock or a random legal take."""
        options: list[Draw] = [] if view.must_take_pile else [DRAW_STOCK]
        top = view.pile_top
        if top is not None and IS_NATURAL[top]:
            hand = view.hand
            opened = view.opened[view.team]
            for n in range(min(hand[top], 3) + 1):
                for tw in range(min(hand[TWO], 1) + 1):
                    for jk in range(min(hand[JOKER], 1) + 1):
                        take = opening_take(hand, meld_of(top, n, tw, jk), view.minimum, opened,
                                            only_if_needed=True)
                        if take is None:
                            continue
                        if view.check_take(take) is None:
                            options.append(take)
        if not options:
            return DRAW_STOCK
        return options[int(self.rng.integers(len(options)))]

    def choose_melds(self, view: PlayerView) -> list[Meld]:
        """Build a plan step by step, uniformly among legal next actions and stopping."""
        plan: list[Meld] = []
        left = list(view.hand)
        team_melds = set(view.melds())
        for _ in range(MAX_STEPS):
            options: list[Meld | None] = []
            if not plan or view.check_melds(plan) is None:
                options.append(None)
            planned = team_melds | {m.rank for m in plan}
            for r in range(FOUR, ACE + 1):
                if not left[r]:
                    continue
                if r in planned:
                    options.extend(meld_of(r, k) for k in range(1, left[r] + 1))
                else:
                    options.extend(meld_of(r, k) for k in range(3, left[r] + 1))
                    if left[r] >= 2 and left[TWO]:
                        options.append(meld_of(r, 2, 1, 0))
                    if left[r] >= 2 and left[JOKER]:
                        options.append(meld_of(r, 2, 0, 1))
            for r in planned:
                if r >= FOUR:
                    if left[TWO]:
                        options.append(meld_of(r, 0, 1, 0))
                    if left[JOKER]:
                        options.append(meld_of(r, 0, 0, 1))
            if view.rules.wild_melds_allowed:
                if WILD_MELD in planned:
                    if left[TWO]:
                        options.append(meld_of(WILD_MELD, 0, 1, 0))
                    if left[JOKER]:
                        options.append(meld_of(WILD_MELD, 0, 0, 1))
                elif left[TWO] + left[JOKER] >= view.rules.wild_meld_min_start:
                    k = view.rules.wild_meld_min_start
                    tw = min(left[TWO], k)
                    options.append(meld_of(WILD_MELD, 0, tw, k - tw))
            if left[BLACK_THREE] >= 3:
                options.append(meld_of(BLACK_THREE, left[BLACK_THREE]))
            legal = [o for o in options if o is None or view.check_melds(plan + [o], partial=True) is None]
            if not legal:
                break
            choice = legal[int(self.rng.integers(len(legal)))]
            if choice is None:
                return plan
            plan.append(choice)
            if choice.rank != WILD_MELD:
                left[choice.rank] -= choice.naturals
            left[TWO] -= choice.twos
            left[JOKER] -= choice.jokers
        return plan if plan and view.check_melds(plan) is None else []

    def choose_discard(self, view: PlayerView) -> int | None:
        """Any rank in hand, uniformly."""
        ranks = view.legal_discards() if (view.rules.discard_restrictions or view.rules.empty_pile_no_dead_card) else [
            r for r, n in enumerate(view.hand) if n]
        return ranks[int(self.rng.integers(len(ranks)))]
