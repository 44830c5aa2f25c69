"""Seating strategies at the table: one strategy per seat from its name, then a game between them.

The engine's game loop (:func:`simcli.engine.game.play_seated_game`) plays strategies it is given; building them
from names (``NAME:key=value`` specs, each seat with its own random stream) belongs to the players' side, which
knows how strategies are found and loaded.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcli.engine.deal import Emit
from simcli.engine.game import GameResult, play_seated_game
from simcli.engine.strategy_base import Strategy
from simcli.players.loading import strategy_factory
from simcli.primitives.errors import StrategyError
from simcli.primitives.seeding import seat_rng
from simcli.rules.ruleset import RuleSet

__all__ = ["make_strategies", "play_game"]


def make_strategies(names: Sequence[str], master_seed: int, game_index: int) -> list[Strategy]:
    """Build one strategy per seat, each with its own random stream (``NAME:key=value`` options applied).

    A strategy that cannot be found or whose ``__init__`` raises is a :class:`StrategyError` naming the strategy,
    seat, game and seed, like a strategy that fails during play.
    """
    players = []
    for seat, name in enumerate(names):
        try:
            players.append(strategy_factory(name)(seat_rng(master_seed, game_index, seat)))
        except Exception as exc:
            detail = str(exc).splitlines()[0] if str(exc) else ""
            raise StrategyError(
                f"strategy '{name}' at seat {seat} raised {type(exc).__name__}"
                + (f": {detail}" if detail else "") + f" when built for game {game_index} (seed {master_seed})",
                seat=seat, strategy=name, game_index=game_index, seed=master_seed, deal_index=0, turn=0,
            ) from exc
    return players


def play_game(rules: RuleSet, strategy_names: Sequence[str], master_seed: int, game_index: int = 0,
              emit: Emit | None = None, strategies: Sequence[Strategy] | None = None) -> GameResult:
    """Play one complete game and return its result.

    ``strategies`` may pass ready-made strategy objects (tests use scripted ones);
    otherwise they are built from ``strategy_names`` with per-seat streams.
    """
    p = rules.num_players
    if len(strategy_names) != p:
        raise ValueError(f"{len(strategy_names)} strategies for {p} seats")
    players = list(strategies) if strategies is not None else make_strategies(strategy_names, master_seed, game_index)
    return play_seated_game(rules, players, strategy_names, master_seed, game_index, emit)
