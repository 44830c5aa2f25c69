"""What ``mc:infer`` knows: the weighted worlds against uniform ones, on the true hidden hands (issue 32, item 3).

Usage::

    PYTHONPATH=/tmp/c32 python scripts/inference_calibration.py [--variants classic,ponytail,americana,spanish]
        [--games 10] [--seed 1] [--pool 64] [--temperatures 10,20,40] [--noises 0,0.3]
        [--opponents model,slowplay,mc] [--fitted 1,2]

For each variant and kind of opponent, plays ``games`` games with the variant's heuristic in seat 0 (the observer)
and in the other seats the heuristic (``model``: the players the soft model describes), ``scripts/slowplay.py``'s
``SlowPlay`` (``slowplay``: the heuristic slow-playing its pairs, which the model mis-reads) or today's ``mc``
(``mc``: a search that leaves the heuristic's choice at about a third of its discards). At each of the observer's
discards where the history holds something to weigh (:func:`simcli.strategies.search.inference.observations`), it
samples ``pool`` worlds as ``mc`` does and weighs them at each temperature and noise, and scores, over every other
player and natural rank, the worlds' forecast of the true hand:

* ``loglik``: the mean log-likelihood (nats) of the true count of the rank in that hand (the worlds' share with that
  count, smoothed by 0.5 of a world);
* ``pairs``: the share of (player, rank) whose "holds two or more" the worlds guess right (forecast > 1/2), and
  ``brier`` the Brier score of that forecast;
* ``loglik seen`` and ``brier seen``: the same on the (player, rank) the observations are about (a player's last
  discard, a pile top it passed by), where the weights have something to say;
* ``ess``: the effective share of the pool the weights keep (Kish), the decisions scored and CPU seconds.

``--fitted`` adds the model fitted to today's ``mc`` (``mc:infer=SCALE,opponent=mc``, scripts/fit_opponent.py) at
each scale and noise, and with every older discard weighed too (``older``). Uniform worlds are the same pool
unweighted (``uniform``). The games depend on the seed alone; no search runs but the ``mc`` opponents'.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slowplay import SlowPlay  # noqa: E402

from simcli.engine.view import PlayerView  # noqa: E402
from simcli.players.best_heuristic import BEST_HEURISTIC  # noqa: E402
from simcli.players.seating import play_game  # noqa: E402
from simcli.primitives.cards import FOUR, NUM_RANKS  # noqa: E402
from simcli.primitives.seeding import seat_rng  # noqa: E402
from simcli.rules.presets import load_rules  # noqa: E402
from simcli.strategies.search.inference import fitted_model, log_likelihood, observations  # noqa: E402
from simcli.strategies.search.mc import MonteCarlo  # noqa: E402
from simcli.strategy import Strategy, load_strategy  # noqa: E402

#: The rows' statistics, summed per (variant, opponents, temperature).
FIELDS = ("n", "loglik", "hits", "brier", "ess", "decisions", "seen_n", "seen_loglik", "seen_brier")


class Observer(Strategy):
    """The variant's heuristic in seat 0, scoring uniform and weighted worlds at each of its discards."""

    name = "observer"
    reads_history = True

    def __init__(self, rng: np.random.Generator, heuristic: Strategy, pool: int, temperatures: list[float],
                 noises: list[float], sums: dict[str, dict[str, float]], fitted: list[float] | None = None):
        super().__init__(rng)
        self.fitted = fitted or []
        self.noises = noises
        self.heuristic = heuristic
        self.pool = pool
        self.temperatures = temperatures
        self.sums = sums

    def choose_draw(self, view: PlayerView) -> Any:
        return self.heuristic.choose_draw(view)

    def choose_melds(self, view: PlayerView) -> Any:
        return self.heuristic.choose_melds(view)

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        return self.heuristic.hold_three(view, rank)

    def ask_to_go_out(self, view: PlayerView) -> bool:
        return self.heuristic.ask_to_go_out(view)

    def answer_go_out(self, view: PlayerView) -> bool:
        return self.heuristic.answer_go_out(view)

    def choose_discard(self, view: PlayerView) -> int | None:
        seen = observations(view)
        if seen:
            self._score(view, seen)
        return self.heuristic.choose_discard(view)

    def _score(self, view: PlayerView, seen: list[Any]) -> None:
        """Add this decision's scores of the pool, uniform and weighted at each temperature."""
        truth = view._st  # the calibration reads the true hands it scores the forecasts against
        worlds = [view.sample_world(self.rng) for _ in range(self.pool)]
        others = [s for s in range(view.n_players) if s != view.seat]
        # The (player, rank) the observations are about: a player's last discard, a pile top it passed by.
        about = {(o.seat, getattr(o, "card", None) or getattr(o, "top", None)) for o in seen}
        weightings: dict[str, list[float]] = {"uniform": [1.0] * self.pool}
        for t in self.temperatures:
            for noise in self.noises:
                logs = [log_likelihood(w, seen, t, noise) for w in worlds]
                top = max(logs)
                weightings[f"T={t:g}" + (f",noise={noise:g}" if noise else "")] = [math.exp(x - top) for x in logs]
        older = observations(view, older=True)
        for scale in self.fitted:  # the model fitted to mc (mc:infer=SCALE,opponent=mc), also with older discards
            model = fitted_model(view.rules.variant).scaled(scale)
            for noise in self.noises:
                for label, weighed in (("", seen), (",older", older)):
                    logs = [log_likelihood(w, weighed, model, noise) for w in worlds]
                    top = max(logs)
                    weightings[f"fitted {scale:g}" + (f",noise={noise:g}" if noise else "") + label] = [
                        math.exp(x - top) for x in logs]
        for label, weights in weightings.items():
            total = sum(weights)
            row = self.sums.setdefault(label, dict.fromkeys(FIELDS, 0.0))
            row["decisions"] += 1
            row["ess"] += total * total / sum(w * w for w in weights) / self.pool
            for s in others:
                true_hand = truth.hands[s]
                for r in range(FOUR, NUM_RANKS):
                    same = sum(w for w, world in zip(weights, worlds, strict=True)
                               if world.hands[s][r] == true_hand[r])
                    pair = sum(w for w, world in zip(weights, worlds, strict=True) if world.hands[s][r] >= 2)
                    p_same = (same + 0.5 * total / self.pool) / (total * (1 + 0.5 / self.pool))
                    p_pair = pair / total
                    held = true_hand[r] >= 2
                    row["n"] += 1
                    row["loglik"] += math.log(p_same)
                    row["hits"] += (p_pair > 0.5) == held
                    row["brier"] += (p_pair - held) ** 2
                    if (s, r) in about:
                        row["seen_n"] += 1
                        row["seen_loglik"] += math.log(p_same)
                        row["seen_brier"] += (p_pair - held) ** 2


def calibrate(variant: str, opponents: str, games: int, seed: int, pool: int, temperatures: list[float],
              noises: list[float], fitted: list[float] | None = None) -> tuple[dict[str, dict[str, float]], float]:
    """The summed scores of ``games`` games of ``variant`` against ``opponents``, and the CPU seconds they took."""
    rules = load_rules(variant)
    heuristic = load_strategy(BEST_HEURISTIC[variant])
    sums: dict[str, dict[str, float]] = {}
    start = time.process_time()
    for game in range(games):
        table: list[Strategy] = []
        for s in range(rules.num_players):
            rng = seat_rng(seed, game, s)
            if s == 0:
                table.append(Observer(rng, heuristic(seat_rng(seed, game, 100)), pool, temperatures, noises, sums,
                                      fitted))
            elif opponents == "model":
                table.append(heuristic(rng))
            elif opponents == "mc":
                table.append(MonteCarlo(rng))
            else:
                table.append(SlowPlay(rng))
        play_game(rules, [t.name for t in table], seed, game_index=game, strategies=table)
    return sums, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    """Play the games and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="classic,ponytail,americana,spanish")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pool", type=int, default=64)
    parser.add_argument("--temperatures", default="10,20,40")
    parser.add_argument("--noises", default="0")
    parser.add_argument("--opponents", default="model,slowplay")
    parser.add_argument("--fitted", default="", help="scales of the model fitted to mc to weigh with (e.g. 1,2)")
    args = parser.parse_args(argv)
    fitted = [float(x) for x in args.fitted.split(",") if x]
    temperatures = [float(t) for t in args.temperatures.split(",")]
    noises = [float(t) for t in args.noises.split(",")]
    print("| variant | opponents | worlds | decisions | ess | loglik (nats) | pairs right | brier | loglik seen | "
          "brier seen | CPU s |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for variant in args.variants.split(","):
        for opponents in args.opponents.split(","):
            sums, cpu = calibrate(variant, opponents, args.games, args.seed, args.pool, temperatures, noises, fitted)
            for label, row in sums.items():
                n, d, k = row["n"], row["decisions"], max(row["seen_n"], 1)
                print(f"| {variant} | {opponents} | {label} | {d:.0f} | {row['ess'] / d:.2f} | "
                      f"{row['loglik'] / n:.4f} | {row['hits'] / n:.4f} | {row['brier'] / n:.4f} | "
                      f"{row['seen_loglik'] / k:.4f} | {row['seen_brier'] / k:.4f} | {cpu:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
