"""Where ``mc``'s rollouts go: per phase, searched decisions, candidates, rollouts, rollout CPU and length.

Usage: ``PYTHONPATH=BUILD python profile_mc.py VARIANT [GAMES] [key=value ...]``: plays games 0.. of seed 1 with
``mc`` (options as ``key=value``) in seats 0 and 2 and the variant's best heuristic in seats 1 and 3, and prints
one table. CPU time is ``time.process_time``.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from typing import Any

from simcli.engine.game import play_game
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategy import Strategy, load_strategy

# ``mc`` as the CLI resolves it: the installed build's copy (compiled build) or the checkout's.
MonteCarlo: Any = load_strategy("mc")
mcmod: Any = sys.modules[MonteCarlo.__module__]
BEST_HEURISTIC = mcmod.BEST_HEURISTIC

#: Per phase: decisions, single-candidate decisions, searches, candidates, rollouts, rollout CPU, turns, departures.
STATS: dict[str, Counter[str]] = defaultdict(Counter)
CANDS: dict[str, Counter[int]] = defaultdict(Counter)
PHASE = [""]


def timed_rollout(world: Any, phase: str, decision: Any, policies: Any) -> Any:
    """The forward model's rollout, timed and measured in turns."""
    start_turn = world.turn
    t = time.process_time()
    result = ROLLOUT(world, phase, decision, policies)
    s = STATS[PHASE[0]]
    s["rollout_cpu_us"] += int(1e6 * (time.process_time() - t))
    s["rollout_turns"] += result.turns - start_turn
    s["rollouts"] += 1
    return result


ROLLOUT = mcmod.rollout
mcmod.rollout = timed_rollout


class Profiled(MonteCarlo):
    """``mc`` recording each decision's phase, candidates and whether it left the heuristic's choice."""

    def _search(self, view: Any, phase: str, candidates: list[Any]) -> Any:
        PHASE[0] = phase
        s = STATS[phase]
        s["decisions"] += 1
        if len(candidates) == 1 or view.special_hand_laid:
            s["single"] += 1
            return super()._search(view, phase, candidates)
        s["searches"] += 1
        s["candidates"] += len(candidates)
        CANDS[phase][len(candidates)] += 1
        t = time.process_time()
        choice = super()._search(view, phase, candidates)
        s["search_cpu_us"] += int(1e6 * (time.process_time() - t))
        s["left"] += choice is not candidates[0] and choice != candidates[0]
        return choice


def main(argv: list[str]) -> None:
    """Play the games and print the table."""
    variant = argv[0]
    games = int(argv[1]) if len(argv) > 1 else 1
    options = {k: (float(v) if "." in v else int(v) if v.isdigit() else v)
               for k, v in (a.split("=", 1) for a in argv[2:])}
    rules = load_rules(variant)
    heuristic = load_strategy(BEST_HEURISTIC[variant])
    cpu = 0.0
    for game in range(games):
        table: list[Strategy] = [Profiled(seat_rng(1, game, s), **options) if s % 2 == 0
                                 else heuristic(seat_rng(1, game, s)) for s in range(rules.num_players)]
        start = time.process_time()
        play_game(rules, ["x"] * rules.num_players, 1, game, strategies=table)
        cpu += time.process_time() - start
    print(f"{variant}, mc {options or 'defaults'} in seats 0 and 2, {games} games of seed 1: "
          f"{cpu / games:.2f} CPU s/game")
    print("| phase | decisions | single candidate | searched | candidates/search | rollouts/game | "
          "rollout CPU share | ms/rollout | turns/rollout | left heuristic |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    total_cpu = sum(s["rollout_cpu_us"] for s in STATS.values())
    for phase in ("draw", "melds", "discard"):
        s = STATS[phase]
        n = max(s["searches"], 1)
        r = max(s["rollouts"], 1)
        print(f"| {phase} | {s['decisions'] / games:.0f} | {s['single'] / games:.0f} | {s['searches'] / games:.0f} | "
              f"{s['candidates'] / n:.1f} | {s['rollouts'] / games:.0f} | "
              f"{100 * s['rollout_cpu_us'] / max(total_cpu, 1):.0f}% | {s['rollout_cpu_us'] / r / 1000:.2f} | "
              f"{s['rollout_turns'] / r:.1f} | {100 * s['left'] / n:.1f}% |")
    print(f"rollouts: {100 * total_cpu / 1e6 / cpu:.0f}% of the game's CPU")
    for phase in ("draw", "melds", "discard"):
        print(f"{phase} candidates per search: {dict(sorted(CANDS[phase].items()))}")


if __name__ == "__main__":
    main(sys.argv[1:])
