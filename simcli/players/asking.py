"""Asking "partner, may I go out?" and answering it, as the built-in players do (RULES.md §1.10; issue 51).

* :func:`asks_to_go_out`: a player asks when the rules require asking (``ask_partner_permission=REQUIRED``) and
  the melds it would lay after a "yes" go out. It works out that plan with its own ``choose_melds`` under
  :meth:`~simcli.engine.view.PlayerView.melds_if_yes`, so after the yes the same view gives the same plan, and
  the player goes out as it asked to. Under ``OPTIONAL`` the built-ins do not ask: they go out where the rules
  allow, as without asking, so that their games (the Classic preset's among them) stay as they were.
* :func:`good_partner_answer`: the answer of a partner who weighs the team's position: yes when ending the deal
  now favours the team, no when the team trails on the table, the answerer holds more points than going out
  brings, the stock is not running low and no opponent could go out first.

Both read only the view; neither draws a random number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from simcli.engine.melds import canasta_bonus, canasta_kind, meld_value, requirement_met
from simcli.engine.strategy_base import asks_only_when_required
from simcli.engine.view import PlayerView
from simcli.primitives.actions import Meld
from simcli.primitives.cards import CARD_VALUES

#: With this many stock cards or fewer the deal may end any moment: a good partner lets the asker go out.
LOW_STOCK: Final = 16


def plan_goes_out(view: PlayerView, plan: Sequence[Any]) -> bool:
    """Whether laying ``plan`` (melds, after the draw) goes out: it leaves no card, or one to discard, and
    brings no pony (the player has picked its up, or has none; an emptied hand that picks up the pony is no going
    out). A special hand is judged by the engine when laid and is not counted here."""
    if plan and not isinstance(plan[0], Meld):
        return False
    left = view.hand_size
    for m in plan:
        left -= m.naturals + m.twos + m.jokers
    if left > 1 or left < 0 or not view.pony_picked[view.seat]:
        return False
    return left == 0 or not view.no_discard_this_turn


def asks_to_go_out(view: PlayerView, choose_melds: Callable[[PlayerView], Any]) -> bool:
    """Whether a player whose meld decision is ``choose_melds`` asks "may I go out?" now: only where the rules
    require asking, the player may ask, and the plan it would lay after a "yes" is legal then and goes out."""
    if view.rules.ask_partner_permission != "REQUIRED" or not view.may_ask:
        return False

    def judged(v: PlayerView) -> bool:
        plan = list(choose_melds(v))
        return plan_goes_out(v, plan) and (not plan or v.check_melds(plan) is None)

    return bool(view.melds_if_yes(judged))


def table_value(view: PlayerView, team: int) -> int:
    """The points a team has on the table: its melds' card values and canasta bonuses (closed ones included)."""
    rules = view.rules
    total = 0
    for rank, m in enumerate(view.meld_table(team)):
        if m is not None:
            total += _worth(rules, rank, m[0], m[1], m[2])
    for c in view.closed_canastas(team):
        total += _worth(rules, c[0], c[1], c[2], c[3])
    return total


def _worth(rules: Any, rank: int, naturals: int, twos: int, jokers: int) -> int:
    total = meld_value(naturals, twos, jokers, rank)
    kind = canasta_kind(rules, rank, naturals, twos, jokers)
    if kind is not None:
        total += canasta_bonus(rules, kind, (naturals, twos, jokers))
    return total


def good_partner_answer(view: PlayerView) -> bool:
    """The answer of a good partner to "may I go out?" (``view`` is the answering player's): yes when the team's
    position favours ending the deal now.

    Yes when the stock is running low (:data:`LOW_STOCK`), when an opponent team meets its going-out requirement
    (it could go out first), when the answerer's hand is worth no more than the going-out bonus, or when the team
    is ahead on the table once the deal ends (its table, the bonus, less the answerer's hand, against the best
    opponent's table). No only when the team trails and the answerer holds points it may still meld."""
    rules = view.rules
    if view.stock_size <= LOW_STOCK:
        return True
    team = view.team
    others = [t for t in range(view.n_teams) if t != team]
    for t in others:
        if requirement_met(rules.go_out_requirement, view.canastas(t), view.clean_canastas(t)):
            return True
    held = 0
    for rank, n in enumerate(view.hand):
        if n:
            held += n * CARD_VALUES[rank]
    if held <= rules.going_out_bonus:
        return True
    ours = table_value(view, team) + rules.going_out_bonus - held
    return ours >= max(table_value(view, t) for t in others)


class HeuristicHooks:
    """The yes/no hooks of a player whose decisions start from a heuristic's (``mc``, ``oracle``, ``ismcts``,
    ``net``): keeping a three, asking "may I go out?" and answering it, each as that heuristic (:meth:`heuristic_of`,
    the seat's own) does. The heuristics ask only where asking is required, and so do these players: their ask hook
    is registered with :func:`simcli.engine.strategy_base.asks_only_when_required`. After a yes, their search or
    model weighs only the plans that go out (the others are refused)."""

    def heuristic_of(self, view: PlayerView) -> Any:
        """The heuristic of ``view``'s seat."""
        raise NotImplementedError

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """As the heuristic."""
        return bool(self.heuristic_of(view).hold_three(view, rank))

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """As the heuristic: only where asking is required, when its plan after a "yes" goes out."""
        return bool(self.heuristic_of(view).ask_to_go_out(view))

    def answer_go_out(self, view: PlayerView) -> bool:
        """As the heuristic (a good partner's answer)."""
        return bool(self.heuristic_of(view).answer_go_out(view))


asks_only_when_required(HeuristicHooks.ask_to_go_out)
