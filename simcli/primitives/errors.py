"""Errors raised while playing: an illegal decision, a strategy that crashed, an engine bug."""

from __future__ import annotations


class GameContext:
    """Where something happened: game, seed, deal and turn (filled in by the game loop)."""

    __slots__ = ("game_index", "seed", "deal_index", "turn")

    def __init__(self, game_index: int = 0, seed: int | None = None, deal_index: int = 0, turn: int = 0):
        self.game_index = game_index
        self.seed = seed
        self.deal_index = deal_index
        self.turn = turn

    def describe(self) -> str:
        """``game 3 (seed 42), deal 2, turn 17``."""
        return f"game {self.game_index} (seed {self.seed}), deal {self.deal_index}, turn {self.turn}"


class StrategyError(RuntimeError):
    """A strategy returned an illegal decision or raised; the message names seat, game, seed and turn."""

    def __init__(self, message: str, *, seat: int, strategy: str, game_index: int, seed: int | None,
                 deal_index: int, turn: int):
        super().__init__(message)
        self.seat = seat
        self.strategy = strategy
        self.game_index = game_index
        self.seed = seed
        self.deal_index = deal_index
        self.turn = turn


class IllegalDecision(StrategyError):
    """A strategy's decision broke the rules."""


class EngineError(RuntimeError):
    """The engine reached a state that should be impossible (a bug), or a game that cannot end."""

    def __init__(self, message: str, ctx: GameContext | None = None):
        super().__init__(message)
        self.game_index = ctx.game_index if ctx is not None else -1
        self.seed = ctx.seed if ctx is not None else None
        self.deal_index = ctx.deal_index if ctx is not None else -1
        self.turn = ctx.turn if ctx is not None else -1
