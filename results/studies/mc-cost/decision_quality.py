"""Decision quality of ``mc`` search settings: the true gain of each setting's pick over the heuristic's choice.

Usage: ``PYTHONPATH=BUILD python decision_quality.py VARIANT GAMES TRUTH REPEATS SPEC [SPEC ...]`` (a SPEC is
``key=value,key=value`` of ``MonteCarlo`` options, or ``default``). Plays games 0.. of seed 1 with the old default
``mc`` (``race=0``) in seats 0 and 2 (the variant's best heuristic in 1 and 3). At every searched decision it
estimates each candidate's value with TRUTH fresh worlds (its own stream, common to the candidates), then runs each
SPEC's search REPEATS times on the same view (each run on its own stream) and scores its pick by the estimated value
over the heuristic's choice. It prints, per SPEC, the mean gain per decision (points, with its standard error over
decisions), the rollouts per decision and the CPU milliseconds per decision of its search (``time.process_time``:
with ``horizon`` a rollout costs less, so rollouts alone do not tell the cost). The truth's own noise is
independent of the picks, so the mean gains are unbiased (a pick of the heuristic's choice gains exactly 0).
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

import numpy as np

from simcli.engine.game import play_game
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategy import Strategy, load_strategy

MonteCarlo: Any = load_strategy("mc")  # as the CLI resolves it
mcmod = sys.modules[MonteCarlo.__module__]


def parse(spec: str) -> dict[str, Any]:
    """``key=value,...`` as options (numbers and true/false typed), ``default`` as none."""
    if spec == "default":
        return {}
    out: dict[str, Any] = {}
    for token in spec.split(","):
        k, v = token.split("=", 1)
        out[k] = v == "true" if v in ("true", "false") else float(v) if "." in v else int(v)
    return out


def searcher_candidates(searcher: Any, view: Any, phase: str, candidates: list[Any]) -> list[Any]:
    """The candidates ``searcher``'s own options give at this decision (a subset of the judge's, which are the
    defaults'): the heuristic's choice, ``candidates[0]``, first."""
    own = candidates[0]
    if phase == "draw":
        return list(searcher._draw_candidates(view, own))
    if phase == "melds":
        return list(searcher._meld_candidates(view, own))
    return list(searcher._discard_candidates(view, own))


class Judge(MonteCarlo):
    """The old default ``mc`` (``race=0``) that judges the search settings at each of its searched decisions."""

    def __init__(self, rng: np.random.Generator, specs: list[dict[str, Any]], truth: int, repeats: int,
                 log: list[tuple[int, list[float], list[int], list[float]]]):
        super().__init__(rng, race=0)  # the games are the old default's, whatever the default is now
        self.specs, self.truth, self.repeats, self.log = specs, truth, repeats, log
        self.judge_rng = np.random.default_rng(int(rng.integers(1 << 32)))

    def _search(self, view: Any, phase: str, candidates: list[Any]) -> Any:
        if len(candidates) > 1 and not view.special_hand_laid:
            policies = self._policy(view)
            value = [0.0] * len(candidates)
            for _ in range(self.truth):
                world = view.sample_world(self.judge_rng)
                for i, c in enumerate(candidates):
                    value[i] += mcmod.margin(mcmod.rollout(mcmod.clone(world), phase, c, policies), view.team)
            value = [v / self.truth for v in value]
            gains: list[float] = []
            costs: list[int] = []
            cpus: list[float] = []
            for options in self.specs:
                g = cost = cpu = 0.0
                for _ in range(self.repeats):
                    searcher = MonteCarlo(np.random.default_rng(int(self.judge_rng.integers(1 << 32))), **options)
                    start = time.process_time()
                    pick = searcher._search(view, phase, searcher_candidates(searcher, view, phase, candidates))
                    cpu += time.process_time() - start
                    g += value[candidates.index(pick)] - value[0]
                    cost += searcher.rollouts
                gains.append(g / self.repeats)
                costs.append(int(cost / self.repeats))
                cpus.append(cpu / self.repeats)
            self.log.append((["draw", "melds", "discard"].index(phase), gains, costs, cpus))
        return super()._search(view, phase, candidates)


def main(argv: list[str]) -> None:
    """Play the games, judge the settings and print one line per setting."""
    variant, games, truth, repeats = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    specs = argv[4:]
    options = [parse(s) for s in specs]
    rules = load_rules(variant)
    heuristic = load_strategy(mcmod.BEST_HEURISTIC[variant])
    log: list[tuple[int, list[float], list[int], list[float]]] = []
    for game in range(games):
        table: list[Strategy] = [Judge(seat_rng(1, game, s), options, truth, repeats, log) if s % 2 == 0
                                 else heuristic(seat_rng(1, game, s)) for s in range(rules.num_players)]
        play_game(rules, ["x"] * rules.num_players, 1, game, strategies=table)
    n = len(log)
    print(f"{variant}: {games} games of seed 1, {n} searched decisions, truth {truth} worlds, {repeats} runs each")
    print(f"| setting | gain/decision [pts] | +- s.e. | minus {specs[0]}'s, +- s.e. | draw | melds | discard | "
          "rollouts/decision | CPU ms/decision |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for j, spec in enumerate(specs):
        g = [e[1][j] for e in log]
        mean = sum(g) / n
        se = math.sqrt(sum((x - mean) ** 2 for x in g) / (n - 1) / n)
        by = []
        for ph in range(3):
            gp = [e[1][j] for e in log if e[0] == ph]
            by.append(f"{sum(gp) / max(len(gp), 1):+.1f}")
        cost = sum(e[2][j] for e in log) / n
        cpu = 1000 * sum(e[3][j] for e in log) / n
        d = [e[1][j] - e[1][0] for e in log]
        dm = sum(d) / n
        dse = math.sqrt(sum((x - dm) ** 2 for x in d) / (n - 1) / n)
        print(f"| {spec} | {mean:+.1f} | {se:.1f} | {dm:+.1f} +- {dse:.1f} | {' | '.join(by)} | {cost:.1f} "
              f"| {cpu:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
