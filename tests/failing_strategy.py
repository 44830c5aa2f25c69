"""Strategies that break on purpose, for the batch-runner tests (load them as ``failing_strategy:Class``).

Whether a game fails depends only on the game: :class:`FailOnTurnFive` and :class:`IllegalDiscard` break at
turn 5 of the first deal when seat 0 dealt it, so the failing games of a run are exactly those with
``simcli.primitives.seeding.first_dealer(seed, game_index, 4) == 0``.
"""

from __future__ import annotations

from simcli.engine.view import PlayerView
from simcli.players.loading import load_strategy

# The built-in as the CLI loads it: on the compiled build, the compiled class (tests/test_compiled.py).
Greedy = load_strategy("greedy")


def doomed(view: PlayerView) -> bool:
    """Turn 5 of the first deal of a game whose first dealer is seat 0."""
    return view.turn == 5 and view.deal_index == 0 and view.dealer == 0


class FailOnTurnFive(Greedy):
    """Greedy, except that it raises in ``choose_discard`` on turn 5 of some games."""

    name = "fail5"

    def choose_discard(self, view: PlayerView) -> int | None:
        """Raise on a doomed turn, else discard like greedy."""
        if doomed(view):
            raise RuntimeError("boom on turn 5")
        return super().choose_discard(view)


class AlwaysFail(Greedy):
    """Greedy, except that it raises in ``choose_discard`` on turn 5 of every deal."""

    name = "always_fail"

    def choose_discard(self, view: PlayerView) -> int | None:
        """Raise on turn 5, else discard like greedy."""
        if view.turn == 5:
            raise RuntimeError("boom on turn 5")
        return super().choose_discard(view)


class IllegalDiscard(Greedy):
    """Greedy, except that on turn 5 of some games it discards a card it does not hold."""

    name = "illegal"

    def choose_discard(self, view: PlayerView) -> int | None:
        """Return a rank absent from the hand on a doomed turn, else discard like greedy."""
        if doomed(view):
            return next(r for r, n in enumerate(view.hand) if n == 0)
        return super().choose_discard(view)
