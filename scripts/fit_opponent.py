"""Fit the opponent model of ``mc:infer=...,opponent=mc`` (issue 32): how today's ``mc`` discards and passes piles.

Usage::

    PYTHONPATH=BUILD python scripts/fit_opponent.py [--variants classic,ponytail,americana,spanish] [--games 40]
        [--seed 32500] [--player mc:race=0] [--out strategies/learnt/models/opponents.json]

Plays ``games`` games of ``player`` in every seat and records, at each of its decisions, what
``simcli.strategies.search.inference`` can weigh in a sampled world:

* every discard of a natural: the counts held before it, the ranks each team had melded (read from the history as
  the inference reads them) and the rank discarded; a conditional logit over the naturals held is fitted to them
  (``OpponentModel.discard``, the weights of ``DISCARD_FEATURES``, by maximum likelihood with scipy);
* every draw where the pile's top was a natural the player could have taken with a natural pair
  (``observations``' condition): whether it held the pair and whether it drew from the stock;
  ``OpponentModel.passing`` is the share of those with a pair where it passed.

The fit of each variant is written into ``--out`` (JSON, atomically: the other variants' entries are kept) with
its figures and this command; the games depend on the seed alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from simcli.engine.view import PlayerView
from simcli.players.planning import penalized_ranks
from simcli.players.seating import play_game
from simcli.primitives.actions import DRAW_STOCK
from simcli.primitives.cards import CARD_VALUES, FOUR, NUM_RANKS
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategies.search.inference import DISCARD_FEATURES, OpponentModel, meld_marks, melded_ranks
from simcli.strategy import Strategy, strategy_factory

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "strategies" / "learnt" / "models" / "opponents.json"


class Recorder(Strategy):
    """A seat that plays as ``inner`` and records its discards and its passes of takeable piles."""

    name = "recorder"
    reads_history = True  # the inference reads the melded ranks from the history; so does the record

    def __init__(self, rng: np.random.Generator, inner: Strategy, discards: list[Any], passes: list[Any]):
        super().__init__(rng)
        self.inner, self.discards, self.passes = inner, discards, passes

    def choose_draw(self, view: PlayerView) -> Any:
        decision = self.inner.choose_draw(view)
        top = view.pile_top
        if top is not None and top >= FOUR:
            melded = melded_ranks(view)
            team = view.team
            has = bool(melded[team] >> top & 1)
            frozen = view.pile_frozen or view.rules.pile_always_frozen
            if melded[team] and (frozen or not has) and (has or top not in penalized_ranks(view.rules)):
                self.passes.append((view.hand[top] >= 2, decision is DRAW_STOCK))
        return decision

    def choose_melds(self, view: PlayerView) -> Any:
        return self.inner.choose_melds(view)

    def choose_discard(self, view: PlayerView) -> int | None:
        decision = self.inner.choose_discard(view)
        if decision is not None and decision >= FOUR:
            own, opp = meld_marks(melded_ranks(view), view.team)
            self.discards.append((tuple(view.hand), own, opp, decision))
        return decision

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        return self.inner.hold_three(view, rank)

    def ask_to_go_out(self, view: PlayerView) -> bool:
        return self.inner.ask_to_go_out(view)

    def answer_go_out(self, view: PlayerView) -> bool:
        return self.inner.answer_go_out(view)


def fit_discards(discards: list[Any]) -> tuple[tuple[float, ...], float, float]:
    """The conditional logit's weights, its mean log-likelihood a discard and the soft greedy model's (T=20)."""
    model0 = OpponentModel.soft_greedy(20.0)
    rows = []
    for hand, own, opp, d in discards:
        held = [r for r in range(FOUR, NUM_RANKS) if hand[r]]
        c = np.array([hand[r] for r in held], dtype=np.float64)
        x = np.stack([np.array([CARD_VALUES[r] / 10.0 for r in held]), np.array([own[r] for r in held], dtype=float),
                      np.array([opp[r] for r in held], dtype=float), (c == 2).astype(float),
                      (c >= 3).astype(float)], axis=1)  # the columns of DISCARD_FEATURES
        rows.append((x, held.index(d)))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for x, k in rows:
            z = x @ w
            z -= z.max()
            p = np.exp(z)
            p /= p.sum()
            total -= np.log(p[k])
            grad -= x[k] - p @ x
        return total / len(rows), grad / len(rows)

    start = np.array(model0.discard)
    result = minimize(loss, start, jac=True, method="L-BFGS-B")
    return tuple(float(v) for v in result.x), -float(result.fun), -loss(start)[0]


def main(argv: list[str] | None = None) -> int:
    """Play, fit and write the models."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="classic,ponytail,americana,spanish")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=32500)
    parser.add_argument("--player", default="mc:race=0")
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args(argv)
    out = Path(args.out)
    models: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    for variant in args.variants.split(","):
        rules = load_rules(variant)
        discards: list[Any] = []
        passes: list[Any] = []
        start = time.process_time()
        build = strategy_factory(args.player)
        for game in range(args.games):
            table: list[Strategy] = [Recorder(seat_rng(args.seed, game, 100 + s),
                                              build(seat_rng(args.seed, game, s)),
                                              discards, passes) for s in range(rules.num_players)]
            play_game(rules, [args.player] * rules.num_players, args.seed, game_index=game, strategies=table)
        weights, fit_ll, greedy_ll = fit_discards(discards)
        with_pair = [passed for pair, passed in passes if pair]
        passing = (sum(with_pair) + 0.5) / (len(with_pair) + 1.0)  # smoothed: never 0 nor 1
        models[variant] = {
            "player": args.player, "games": args.games, "seed": args.seed,
            "discard": dict(zip(DISCARD_FEATURES, weights, strict=True)), "passing": passing,
            "discards": len(discards), "takeable_with_pair": len(with_pair), "passed_with_pair": sum(with_pair),
            "loglik_fit": fit_ll, "loglik_soft_greedy_T20": greedy_ll,
            "command": f"python scripts/fit_opponent.py --variants {variant} --games {args.games} "
                       f"--seed {args.seed} --player {args.player}",
        }
        print(f"{variant}: {len(discards)} discards, mean log-likelihood {fit_ll:.4f} (soft greedy T=20: "
              f"{greedy_ll:.4f}); passed {sum(with_pair)} of {len(with_pair)} takeable piles holding a pair; "
              f"{time.process_time() - start:.0f} CPU s", flush=True)
        fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(models, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
