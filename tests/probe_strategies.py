"""Probe strategies that return malformed or out-of-range decisions on purpose (load as ``probe_strategies:Class``).

Each probe plays like greedy until its trigger, then returns one bad value from one method: :data:`PROBES` maps
each class name to ``(method, bad value)``. The trigger is the probe's first call of that method from turn 3
on (``hold_three`` and ``answer_go_out`` fire at their first call, whenever it comes), so the failing seat and
turn depend only on the game. The tests (``tests/test_probes.py``) check that every such return is refused
with one line naming seat, game, seed and turn, in ``run``, ``play`` and ``match``, with and without traces, and
that a refused decision never reaches a trace.
"""

from __future__ import annotations

from typing import Any

from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand, TakePile
from simcli.primitives.cards import ACE, FOUR, KING
from simcli.strategies.heuristics.greedy import Greedy

#: class name -> (method, the bad value it returns). ``Meld``/``TakePile`` values are built unchecked, as a
#: buggy strategy would build them.
PROBES: dict[str, tuple[str, Any]] = {
    "DiscardNinetyNine": ("choose_discard", 99),
    "DiscardMinusOne": ("choose_discard", -1),
    "DiscardString": ("choose_discard", "K"),
    "DiscardBool": ("choose_discard", True),
    "DiscardFloat": ("choose_discard", 13.0),
    "DiscardNone": ("choose_discard", None),
    "DrawString": ("choose_draw", "stock"),
    "DrawBadRank": ("choose_draw", TakePile(Meld(99, 2))),
    "DrawStringRank": ("choose_draw", TakePile(Meld("K", 2))),  # type: ignore[arg-type]
    "DrawNegative": ("choose_draw", TakePile(Meld(KING, -2))),
    "DrawExtraNotTuple": ("choose_draw", TakePile(Meld(KING, 2), extra=Meld(KING, 3))),  # type: ignore[arg-type]
    "DrawMeldNotMeld": ("choose_draw", TakePile((KING, 2, 0, 0))),  # type: ignore[arg-type]
    "DrawIllegalTake": ("choose_draw", TakePile(Meld(KING, 2))),  # well formed, but not a legal take here
    "MeldsInt": ("choose_melds", 5),
    "MeldsString": ("choose_melds", "KKK"),
    "MeldsBadRank": ("choose_melds", [Meld(-1, 3)]),
    "MeldsFloatCount": ("choose_melds", [Meld(KING, 3.0)]),  # type: ignore[arg-type]
    "MeldsTuple": ("choose_melds", [(KING, 3, 0, 0)]),
    "MeldsSpecialKind": ("choose_melds", [SpecialHand(7)]),  # type: ignore[arg-type]
    "MeldsIllegal": ("choose_melds", [Meld(KING, 30)]),  # well formed, more kings than the hand holds
    "AskString": ("ask_to_go_out", "yes"),
    "AnswerString": ("answer_go_out", "maybe"),
    "HoldString": ("hold_three", "yes"),
}

#: From which turn of a deal the probes fire (the methods called at every turn).
FIRE_FROM_TURN = 3


class Probe(Greedy):
    """Greedy, except that :attr:`method` returns :attr:`bad` once the trigger comes (see the module)."""

    name = "probe"
    method = ""
    bad: Any = None

    def _fires(self, view: PlayerView, method: str) -> bool:
        return method == self.method and (
            method in ("hold_three", "answer_go_out") or view.turn >= FIRE_FROM_TURN)

    def choose_draw(self, view: PlayerView) -> Any:
        """The bad value once triggered, else greedy's draw."""
        return self.bad if self._fires(view, "choose_draw") else super().choose_draw(view)

    def choose_melds(self, view: PlayerView) -> Any:
        """The bad value once triggered, else greedy's melds."""
        return self.bad if self._fires(view, "choose_melds") else super().choose_melds(view)

    def choose_discard(self, view: PlayerView) -> Any:
        """The bad value once triggered, else greedy's discard."""
        return self.bad if self._fires(view, "choose_discard") else super().choose_discard(view)

    def ask_to_go_out(self, view: PlayerView) -> Any:
        """``AskString``: the bad value at its trigger; the others (and ``AnswerString``) ask whenever allowed, so
        that partners are asked."""
        if self._fires(view, "ask_to_go_out"):
            return self.bad
        return self.method == "answer_go_out" and view.may_ask and view.turn >= FIRE_FROM_TURN

    def answer_go_out(self, view: PlayerView) -> Any:
        """The bad value for ``AnswerString``; the others say no (so nobody is forced to go out)."""
        return self.bad if self._fires(view, "answer_go_out") else False

    def hold_three(self, view: PlayerView, rank: int) -> Any:
        """The bad value for ``HoldString``, else greedy's choice."""
        return self.bad if self._fires(view, "hold_three") else super().hold_three(view, rank)


class AskWhenOut(Greedy):
    """Under ``ask_partner_permission=REQUIRED``: asks exactly when its simple going-out plan (every natural rank
    it holds three of, or that its team has melded) is legal once asked (``view.check_melds(plan) ==
    view.ASK_FIRST``), goes out with that plan after a "yes", always answers "yes", else plays like greedy."""

    name = "ask_when_out"

    @staticmethod
    def out_plan(view: PlayerView) -> list[Meld]:
        """The naturals this player could lay now: whole ranks of three or more, or onto a team meld."""
        hand = view.hand
        return [Meld(r, hand[r]) for r in range(FOUR, ACE + 1)
                if hand[r] and (hand[r] >= 3 or view.meld(r) is not None)]

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """Ask only when a "yes" would let the plan go out."""
        plan = self.out_plan(view)
        return bool(plan) and view.may_ask and view.check_melds(plan) == view.ASK_FIRST

    def answer_go_out(self, view: PlayerView) -> bool:
        """Always yes."""
        return True

    def choose_melds(self, view: PlayerView) -> Any:
        """After a "yes", the going-out plan; else greedy's melds."""
        if view.partner_permission:
            plan = self.out_plan(view)
            assert view.check_melds(plan) is None, view.check_melds(plan)
            return plan
        return super().choose_melds(view)


def _probe_class(class_name: str, method: str, bad: Any) -> type[Probe]:
    return type(class_name, (Probe,), {"name": class_name, "method": method, "bad": bad,
                                       "__doc__": f"Probe: {method} returns {bad!r}."})


for _name, (_method, _bad) in PROBES.items():
    globals()[_name] = _probe_class(_name, _method, _bad)

__all__ = ["DRAW_STOCK", "PROBES", "AskWhenOut", "Probe", *PROBES]
