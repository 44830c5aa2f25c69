"""CPU of ``mc`` with and without inference, the sampler before and after the cheap pool, interleaved game by game.

usage: PYTHONPATH=BUILD python results/studies/mc-inference/pool_cost.py VARIANT GAMES SEED BEFORE ARM [ARM ...]

Each ARM is ``mc`` options (``race=0``, ``infer=20,noise=0.3``), with ``@before`` for the inference module at the
path BEFORE (the sampler of an older commit: ``git show COMMIT:strategies/inference.py > FILE``) instead of the
build's. ``mc`` sits in seats 0 and 2, the variant's heuristic in 1 and 3; games 0..GAMES-1 of SEED, every arm in
turn game by game in one process, so that a busy machine's load falls on each alike. Printed: CPU s a game
(``time.process_time``), s a searched decision, and the CPU of the sampler (``inferred_worlds``) a call.
"""
import importlib.util
import sys
import time
from typing import Any

import simcli.strategies.search.inference as after
import simcli.strategies.search.mc as mc
from simcli.players.loading import load_strategy, strategy_options
from simcli.players.seating import play_game
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules

variant, games, seed, before_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
arms = sys.argv[5:]
spec = importlib.util.spec_from_file_location("inference_before", before_path)
assert spec is not None and spec.loader is not None
before = importlib.util.module_from_spec(spec)
sys.modules["inference_before"] = before
spec.loader.exec_module(before)
rules = load_rules(variant)
heuristic = load_strategy(mc.BEST_HEURISTIC[variant])
cpu = dict.fromkeys(arms, 0.0)
sampler = dict.fromkeys(arms, 0.0)
calls = dict.fromkeys(arms, 0)
searches = dict.fromkeys(arms, 0)
arm = arms[0]


def timed(module: Any) -> Any:
    """``module.inferred_worlds``, its CPU added to the arm's."""
    def call(*args: Any) -> Any:
        start = time.process_time()
        try:
            return module.inferred_worlds(*args)
        finally:
            sampler[arm] += time.process_time() - start
            calls[arm] += 1
    return call


for game in range(games):
    for arm in arms:
        options = arm.removesuffix("@before")
        mc.inferred_worlds = timed(before if arm.endswith("@before") else after)  # type: ignore[attr-defined]
        table = [mc.MonteCarlo(seat_rng(seed, game, s), **strategy_options("mc:" + options)) if s % 2 == 0
                 else heuristic(seat_rng(seed, game, s)) for s in range(rules.num_players)]
        start = time.process_time()
        play_game(rules, ["x"] * rules.num_players, seed, game, strategies=table)
        cpu[arm] += time.process_time() - start
        searches[arm] += sum(p.searches for p in table if isinstance(p, mc.MonteCarlo))
for arm in arms:
    per_call = f", sampler {1000 * sampler[arm] / calls[arm]:.2f} ms a call" if calls[arm] else ""
    print(f"{variant} mc:{arm}: {cpu[arm] / games:.3f} CPU s/game, {cpu[arm] / max(searches[arm], 1) * 1000:.2f} ms "
          f"a searched decision over {games} games (seed {seed}){per_call}", flush=True)
