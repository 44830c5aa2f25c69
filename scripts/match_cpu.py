"""CPU seconds per game of each side of a duplicate match, on the match's own games.

Usage: ``python scripts/match_cpu.py VARIANT A B SEED PAIRS [FIRST]``: plays game indices FIRST..FIRST+PAIRS-1 of
SEED in both seatings, as ``simcli match A B --variant VARIANT --seed SEED`` does (A in the seats of team 0, then
shifted one seat), and prints, for each side, the CPU seconds (``time.process_time``, so that a busy machine does
not inflate it) its decisions took per game and, for a search player, its rollouts per searched decision. A
search player's time is the time of its own decisions, rollouts included; the engine's bookkeeping between
decisions is counted to neither side. Used to give two search players the same CPU per decision
(docs/strategies.md, ``ismcts``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from simcli.duplicate.match import seat_strategies
from simcli.players.seating import play_game
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.runs.spec import rotated
from simcli.strategy import Strategy, strategy_factory


def _timed(method: str) -> Callable[..., Any]:
    """A method that calls the wrapped strategy's ``method`` and adds its CPU time to the side's total."""

    def call(self: Timed, *args: Any) -> Any:
        start = time.process_time()
        try:
            return getattr(self.inner, method)(*args)
        finally:
            self.totals[self.side] += time.process_time() - start

    call.__doc__ = f"The wrapped strategy's {method}, timed."
    return call


class Timed(Strategy):
    """A strategy that plays exactly as ``inner`` and adds the CPU time of each decision to ``totals[side]``."""

    def __init__(self, inner: Strategy, totals: dict[str, float], side: str) -> None:
        super().__init__(inner.rng)
        self.inner, self.totals, self.side = inner, totals, side
        self.reads_history = getattr(inner, "reads_history", False)  # the engine records the history for it

    choose_draw = _timed("choose_draw")
    choose_melds = _timed("choose_melds")
    choose_discard = _timed("choose_discard")
    hold_three = _timed("hold_three")
    ask_to_go_out = _timed("ask_to_go_out")
    answer_go_out = _timed("answer_go_out")


def main(argv: list[str]) -> None:
    """Play the games and print one line per side."""
    variant, a, b, seed, pairs = argv[0], argv[1], argv[2], int(argv[3]), int(argv[4])
    first = int(argv[5]) if len(argv) > 5 else 0
    rules = load_rules(variant)
    seats = seat_strategies(a, b, rules.num_players, rules.n_teams, variant)
    cpu = {"A": 0.0, "B": 0.0}
    searches = {"A": 0, "B": 0}
    rollouts = {"A": 0, "B": 0}
    for game in range(first, first + pairs):
        for rotation in (0, 1):
            names = rotated(seats, rotation)
            sides = ["A" if (s + rotation) % rules.n_teams == 0 else "B" for s in range(rules.num_players)]
            players = [strategy_factory(n)(seat_rng(seed, game, s)) for s, n in enumerate(names)]
            timed: list[Strategy] = [Timed(p, cpu, side) for p, side in zip(players, sides, strict=True)]
            play_game(rules, names, seed, game, strategies=timed)
            for p, side in zip(players, sides, strict=True):
                searches[side] += getattr(p, "searches", 0)
                rollouts[side] += getattr(p, "rollouts", 0)
    games = 2 * pairs
    for side, spec in (("A", a), ("B", b)):
        per = f", {rollouts[side] / searches[side]:.1f} rollouts per searched decision" if searches[side] else ""
        print(f"{variant} {spec}: {cpu[side] / games:.2f} CPU s/game over {games} games "
              f"(indices {first}-{first + pairs - 1} of seed {seed}, both seatings){per}")


if __name__ == "__main__":
    main(sys.argv[1:])
