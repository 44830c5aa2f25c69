"""The strategy interface, and finding strategies by name, ``module:Class`` or entry point.

A strategy is a class built with its own seeded random stream. The engine calls
its ``choose_*`` methods with a :class:`~simcli.view.PlayerView` and validates
what they return. Subclass :class:`Strategy` and override only what you need.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TYPE_CHECKING

import numpy as np

from simcli.actions import DRAW_STOCK, Meld, TakePile, _DrawStock
from simcli.cards import BLACK_THREE, CARD_VALUES, JOKER, TWO

if TYPE_CHECKING:
    from simcli.view import PlayerView

Draw = _DrawStock | TakePile
BUILTIN_STRATEGIES = {
    "random": "strategies.random_play:RandomStrategy",
    "greedy": "strategies.greedy:Greedy",
    "ponytail": "strategies.ponytail:Ponytail",
    "americana": "strategies.americana:Americana",
    "spanish": "strategies.spanish:Spanish",
    "mc": "strategies.mc:MonteCarlo",
    "oracle": "strategies.mc:Oracle",
}
ENTRY_POINT_GROUP = "simcli.strategies"


class StrategyLookupError(ValueError):
    """A strategy name that is neither built in, importable, nor registered."""


class Strategy:
    """Base strategy: draws from the stock, never melds, discards its cheapest card. Override what you need."""

    #: Name used in results and error messages.
    name = "base"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose_draw(self, view: PlayerView) -> Draw:
        """Return :data:`~simcli.actions.DRAW_STOCK` or a :class:`~simcli.actions.TakePile`."""
        return DRAW_STOCK

    def choose_melds(self, view: PlayerView) -> Sequence[Meld]:
        """Return the melds to lay this turn (possibly none)."""
        return ()

    def choose_discard(self, view: PlayerView) -> int | None:
        """Return the rank to discard, or ``None`` to go out by melding every card.

        The default: a black three if held, else the cheapest legal natural, wild cards last.
        """
        legal = view.legal_discards()
        return min(legal, key=lambda r: (r != BLACK_THREE, r in (JOKER, TWO), CARD_VALUES[r], r))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """Americana: keep this three (``rank``) in hand until the team opens, e.g. for a straight."""
        return False

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """Whether to ask partner "may I go out?" after drawing (the answer binds)."""
        return False

    def answer_go_out(self, view: PlayerView) -> bool:
        """Partner's answer to "may I go out?" (``view`` is the answering player's)."""
        return True


StrategyFactory = Callable[[np.random.Generator], Strategy]


def _import_object(spec: str) -> object:
    module_name, _, attr = spec.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr)


def available_strategies() -> list[str]:
    """Names of the built-in strategies and of those registered under the entry point."""
    names = set(BUILTIN_STRATEGIES)
    names.update(ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP))
    return sorted(names)


@functools.lru_cache(maxsize=64)
def load_strategy(name: str) -> type[Strategy]:
    """Find a strategy class by built-in name, ``module:Class`` or ``simcli.strategies`` entry point."""
    spec = BUILTIN_STRATEGIES.get(name)
    if spec is None:
        eps = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
        if name in eps:
            obj = eps[name].load()
        elif ":" in name:
            spec = name
        elif importlib.util.find_spec(f"strategies.{name}") is not None:  # a module in strategies/
            module = importlib.import_module(f"strategies.{name}")
            obj = getattr(module, "STRATEGY", None)
            if obj is None:
                raise StrategyLookupError(
                    f"module strategies.{name} has no STRATEGY class; set STRATEGY = YourClass in it"
                )
        else:
            raise StrategyLookupError(
                f"unknown strategy '{name}'; allowed: {', '.join(available_strategies())}, "
                "a module in strategies/, or module:Class"
            )
    if spec is not None:
        try:
            obj = _import_object(spec)
        except (ImportError, AttributeError, ValueError) as exc:
            raise StrategyLookupError(f"cannot load strategy '{name}': {exc}") from None
    if not (isinstance(obj, type) and issubclass(obj, Strategy)):
        raise StrategyLookupError(f"strategy '{name}' is not a subclass of simcli.strategy.Strategy")
    if obj.name == "base":
        obj.name = name
    return obj


def parse_strategy_list(text: str, num_players: int) -> list[str]:
    """Split ``"greedy,random"``; one name fills every seat, otherwise one per seat."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) == 1:
        names = names * num_players
    if len(names) != num_players:
        raise StrategyLookupError(
            f"got {len(names)} strategies for {num_players} seats; give one name or one per seat"
        )
    for n in names:
        load_strategy(n)
    return names
