"""The engine's shared core: what the turn (:mod:`simcli.engine.deal`) and the feature modules' transitions work on.

An :class:`Engine` holds one deal's state, the seats' strategies and views, the event listener and the game
context, and turns a strategy's mistake into a :class:`~simcli.primitives.errors.StrategyError` that names the
seat, game, seed, deal and turn. :class:`simcli.engine.deal.Deal` is an Engine with the turn's phases; the feature
modules (:mod:`simcli.engine.features.threes`, :mod:`simcli.engine.features.ponies`,
:mod:`simcli.engine.features.wings`, ...) take one in their transitions.

This module sits below :mod:`simcli.engine.judge` (which imports the feature modules' predicates), so it imports neither
the judge nor the view nor the strategy loader: strategies and views are typed ``Any`` here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from simcli.engine.state import DealState
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand, TakePile
from simcli.primitives.errors import GameContext, IllegalDecision, StrategyError

Emit = Callable[[str, dict[str, Any]], None]

# The decision types as Final names of a compiled module, for the engine's checks of every decision: compiled code
# reads a Final name as a C static, an imported one through its module's dictionary at every use.
STOCK_DRAW: Final = DRAW_STOCK
MELD_TYPE: Final = Meld
TAKE_TYPE: Final = TakePile
SPECIAL_HAND: Final = SpecialHand


def flag_error(method: str, value: Any) -> str | None:
    """Why a yes/no hook's return (``ask_to_go_out``, ``answer_go_out``, ``hold_three``) is not a bool."""
    if isinstance(value, (bool, np.bool_)):  # numpy's bool too (a strategy may compute it with numpy)
        return None
    return f"{method} returned {value!r}; expected True or False"


class Engine:
    """One deal in play: state, strategies (a :class:`~simcli.engine.strategy_base.Strategy` per seat), their
    :class:`~simcli.engine.view.PlayerView`, the ``emit(kind, data)`` listener (``None``: no event data is built)."""

    def __init__(self, st: DealState, strategies: Sequence[Any], views: Sequence[Any], emit: Emit | None,
                 ctx: GameContext | None):
        self.st = st
        # Lists (not any Sequence): the compiled build indexes them natively at every decision.
        self.strategies: list[Any] = list(strategies)
        self.views: list[Any] = list(views)
        self.emit = emit
        self.ctx = ctx or GameContext()
        self.decisions = 0
        if st.history is None:
            for x in self.strategies:  # a loop, not any() over a generator: a Deal is built at every rollout
                if getattr(x, "reads_history", False):
                    st.history = []  # a seated strategy reads the table's history (PlayerView.history): record it
                    break
        # Rule-derived "is this feature on" flags the feature modules test, computed once per rule set
        # (simcli.engine.table_layout: hidden canastas; the Spanish finishing bonuses' flags).
        self.hidden_canastas = st.layout.hidden_canastas
        self.finish_bonuses = st.layout.finish_bonuses

    def error(self, cls: type[StrategyError], seat: int, template: str, detail: str) -> StrategyError:
        """An error of ``cls`` whose message (``template`` with ``{name}``, ``{seat}``, ``{ctx}`` and
        ``{detail}``) and fields name the strategy, seat, game, seed, deal and turn."""
        ctx = self.ctx
        name = self.strategies[seat].name
        return cls(template.format(name=name, seat=seat, ctx=ctx.describe(), detail=detail), seat=seat,
                   strategy=name, game_index=ctx.game_index, seed=ctx.seed, deal_index=ctx.deal_index,
                   turn=ctx.turn)

    def fail(self, seat: int, reason: str) -> StrategyError:
        """An :class:`~simcli.primitives.errors.IllegalDecision` of ``seat`` for ``reason`` (the caller raises it)."""
        return self.error(IllegalDecision, seat, "illegal move by strategy '{name}' at seat {seat} in {ctx}: {detail}",
                          reason)

    def wrap(self, seat: int, exc: Exception) -> StrategyError:
        """Turn an exception raised inside a strategy into a StrategyError naming seat, game, seed and turn."""
        if isinstance(exc, StrategyError):
            return exc
        return self.error(StrategyError, seat, "strategy '{name}' at seat {seat} raised {detail} in {ctx}",
                          f"{type(exc).__name__}: {exc}")

    def call(self, seat: int, method: Callable[..., Any], view: Any) -> Any:
        """Ask a strategy hook (``method(view)``), counting the decision; its exception becomes a StrategyError."""
        self.decisions += 1
        try:
            return method(view)
        except Exception as exc:
            raise self.wrap(seat, exc) from exc

    def flag(self, seat: int, method: str, value: Any) -> bool:
        """A yes/no hook's answer as a bool; anything but True or False is an illegal decision."""
        err = flag_error(method, value)
        if err:
            raise self.fail(seat, err)
        return bool(value)
