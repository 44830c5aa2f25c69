"""Time the ``mc`` search player: CPU seconds per game and per searched decision, games per hour.

Usage: ``PYTHONPATH=. python scripts/mc_speed.py VARIANT [GAMES] [SEATS] [key=value ...]``: plays games 0.. of
seed 1 with ``mc`` (options as ``key=value``) in ``SEATS`` seats (2: seats 0 and 2, the variant's best heuristic
in the others; 4: every seat) and prints one line. CPU time (``time.process_time``) rather than wall time, so
that a busy machine does not inflate it.
"""

from __future__ import annotations

import sys
import time

from simcli.players.best_heuristic import BEST_HEURISTIC  # the build's own mc (each side of a comparison)
from simcli.players.seating import play_game
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategies.search.mc import MonteCarlo  # the build's own mc (each side of a comparison)
from simcli.strategy import Strategy, load_strategy, strategy_options


def main(argv: list[str]) -> None:
    """Play the games and print the timings."""
    variant = argv[0]
    games = int(argv[1]) if len(argv) > 1 else 1
    seats = int(argv[2]) if len(argv) > 2 else 2
    # Typed as --strategies types them (halve=false is False, not the true string "false").
    options = strategy_options("mc:" + ",".join(argv[3:])) if argv[3:] else {}
    rules = load_rules(variant)
    heuristic = load_strategy(BEST_HEURISTIC[variant])
    cpu = searches = rollouts = decisions = deals = 0.0
    for game in range(games):
        table: list[Strategy] = [
            MonteCarlo(seat_rng(1, game, s), **options) if seats == 4 or s % 2 == 0 else heuristic(seat_rng(1, game, s))
            for s in range(rules.num_players)]
        start = time.process_time()
        result = play_game(rules, ["x"] * rules.num_players, 1, game, strategies=table)
        cpu += time.process_time() - start
        mcs = [p for p in table if isinstance(p, MonteCarlo)]
        searches += sum(p.searches for p in mcs)
        rollouts += sum(p.rollouts for p in mcs)
        decisions += result.decisions * len(mcs) / rules.num_players
        deals += len(result.deals)
    print(f"{variant} mc {options or 'defaults'} in {seats} seats: {games} games, {deals / games:.1f} deals/game, "
          f"{cpu / games:.2f} CPU s/game, {3600 * games / cpu:.0f} games/h, "
          f"{cpu / max(searches, 1):.3f} s per searched decision ({searches / games:.0f} searched of "
          f"~{decisions / games:.0f} mc decisions/game), "
          f"{1000 * cpu / max(rollouts, 1):.2f} ms/rollout")


if __name__ == "__main__":
    main(sys.argv[1:])
