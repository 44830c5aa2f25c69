"""How well the learnt player's model reads ``mc``'s discards, against the fitted opponent model (issue 32).

Usage::

    PYTHONPATH=BUILD python scripts/net_reads_mc.py [--variants classic,ponytail,americana,spanish]
        [--games 30] [--fit-seed 32500] [--test-seed 32520] [--player mc:race=0]

The issue asks for the learnt player (``net``, issue 31) as a second opponent model of the inference: its model
rates each candidate of a decision by the value the search would give it, so ``mc``'s discard is, to a first
approximation, a soft maximum of those values. Before such a model is wired into the sampler (a net pass for each
candidate of each observed discard in each world), this measures what it could bring at best: at every discard of a
natural by ``player`` (in every seat), with the *true* view of the discarding player (what a world that is right
gives), the probability each model gives the rank discarded, over the naturals held that are legal discards:

* ``uniform``: every such rank alike;
* ``fitted``: the conditional logit of ``strategies/learnt/models/opponents.json`` (``mc:opponent=mc``);
* ``net``: a softmax over the net's values of the candidates at a temperature fitted on the ``--fit-seed`` games;
* ``both``: the fitted logit's features and the net's value in one conditional logit, fitted on those games.

The figures are the mean log-likelihood a discard on the ``--test-seed`` games (seeds used for nothing else), and
the share of discards each model ranks first. Prints one Markdown table; the games depend on the seeds alone.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

sys.path.append(str(Path(__file__).resolve().parent))  # run as a script, scripts/ is first already
from fit_opponent import Recorder  # noqa: E402

from simcli.engine.view import PlayerView  # noqa: E402
from simcli.players.seating import play_game  # noqa: E402
from simcli.primitives.cards import CARD_VALUES, FOUR  # noqa: E402
from simcli.primitives.seeding import seat_rng  # noqa: E402
from simcli.rules.presets import load_rules  # noqa: E402
from simcli.strategies.learnt.net import Net  # noqa: E402
from simcli.strategies.learnt.net_features import decision_features  # noqa: E402
from simcli.strategies.search.candidates import discard_candidates  # noqa: E402
from simcli.strategies.search.inference import meld_marks, melded_ranks  # noqa: E402
from simcli.strategies.search.opponent_model import fitted_model  # noqa: E402
from simcli.strategy import Strategy, strategy_factory  # noqa: E402


class Reader(Recorder):
    """A seat that plays as ``inner`` (scripts/fit_opponent.py's recorder, whose other records are dropped) and,
    at each of its discards of a natural, records the fitted logit's features and the net's value of every natural
    it could discard, and which one it discarded."""

    name = "reader"

    def __init__(self, rng: np.random.Generator, inner: Strategy, net: Net, rows: list[Any]):
        super().__init__(rng, inner, [], [])
        self.net, self.rows = net, rows

    def choose_discard(self, view: PlayerView) -> int | None:
        decision = self.inner.choose_discard(view)
        if decision is None or decision < FOUR:
            return decision
        heuristic = self.net._heuristic(view)
        candidates = discard_candidates(view, heuristic.choose_discard(view))
        model = self.net._model_for(view)
        x = decision_features(view, "discard", candidates)
        # a general model (issue 47) reads the rules too: its rows end with the rule set's features
        values = model.values(np.hstack([x, np.tile(model.rule_row(view.rules), (len(x), 1))]))
        own, opp = meld_marks(melded_ranks(view), view.team)
        hand = view.hand
        keep = [i for i, c in enumerate(candidates) if c is not None and c >= FOUR and hand[c]]
        ranks = [candidates[i] for i in keep]
        if len(ranks) > 1 and decision in ranks:
            counts = np.array([hand[r] for r in ranks], dtype=np.float64)
            x = np.stack([np.array([CARD_VALUES[r] / 10.0 for r in ranks]), np.array([own[r] for r in ranks], float),
                          np.array([opp[r] for r in ranks], float), (counts == 2).astype(float),
                          (counts >= 3).astype(float)], axis=1)
            self.rows.append((x, values[keep] / 100.0, ranks.index(decision)))
        return decision


def record(variant: str, player: str, seed: int, games: int) -> list[Any]:
    """Play ``games`` games of ``player`` in every seat and return the rows of its natural discards."""
    rules = load_rules(variant)
    rows: list[Any] = []
    build = strategy_factory(player)
    for game in range(games):
        net = Net(seat_rng(seed, game, 200))
        table: list[Strategy] = [Reader(seat_rng(seed, game, 100 + s), build(seat_rng(seed, game, s)), net, rows)
                                 for s in range(rules.num_players)]
        play_game(rules, [player] * rules.num_players, seed, game_index=game, strategies=table)
    return rows


def design(rows: list[Any], kind: str) -> list[tuple[np.ndarray, int]]:
    """Each discard's candidate columns under a model: ``fitted`` (the logit's features), ``net`` (the value in
    hundreds of points) or ``both``."""
    if kind == "fitted":
        return [(x, k) for x, _, k in rows]
    if kind == "net":
        return [(v[:, None], k) for _, v, k in rows]
    return [(np.hstack([x, v[:, None]]), k) for x, v, k in rows]


def mean_loglik(w: np.ndarray, data: list[tuple[np.ndarray, int]]) -> tuple[float, np.ndarray, float]:
    """The mean log-likelihood of a conditional logit with weights ``w``, its gradient, and its top-1 share."""
    total, grad, top = 0.0, np.zeros_like(w), 0
    for x, k in data:
        z = x @ w
        top += int(np.argmax(z) == k)
        z = z - z.max()
        p = np.exp(z)
        p /= p.sum()
        total += float(np.log(p[k]))
        grad += x[k] - p @ x
    n = len(data)
    return total / n, grad / n, top / n


def fit(data: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """The maximum-likelihood weights (scipy's L-BFGS)."""
    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        ll, g, _ = mean_loglik(w, data)
        return -ll, -g
    result = minimize(loss, np.zeros(data[0][0].shape[1]), jac=True, method="L-BFGS-B")
    return np.asarray(result.x)


def main(argv: list[str] | None = None) -> int:
    """Record, fit and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="classic,ponytail,americana,spanish")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--fit-seed", type=int, default=32500)
    parser.add_argument("--test-seed", type=int, default=32520)
    parser.add_argument("--player", default="mc:race=0")
    args = parser.parse_args(argv)
    print("| variant | discards fit / test | uniform | fitted (opponents.json) | net | fitted + net | "
          "top-1 fitted / net / both | net weight (1/T) | CPU s |")
    print("|---|---|---|---|---|---|---|---|---:|")
    for variant in args.variants.split(","):
        start = time.process_time()
        train = record(variant, args.player, args.fit_seed, args.games)
        test = record(variant, args.player, args.test_seed, args.games)
        model = fitted_model(variant)
        uniform = float(np.mean([-np.log(len(x)) for x, _, _ in test]))
        ll_fit, _, top_fit = mean_loglik(np.array(model.discard), design(test, "fitted"))
        w_net = fit(design(train, "net"))
        ll_net, _, top_net = mean_loglik(w_net, design(test, "net"))
        w_both = fit(design(train, "both"))
        ll_both, _, top_both = mean_loglik(w_both, design(test, "both"))
        print(f"| {variant} | {len(train)} / {len(test)} | {uniform:.3f} | {ll_fit:.3f} | {ll_net:.3f} | "
              f"{ll_both:.3f} | {top_fit:.2f} / {top_net:.2f} / {top_both:.2f} | {w_net[0]:.2f} | "
              f"{time.process_time() - start:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
