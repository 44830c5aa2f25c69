"""``ObservedOracle``: ``mc`` whose worlds know the truth of everything the other players' discards and passes are
about, a ceiling for inference from them (issue 32). It cheats by design: load it only to measure.

Load it as ``scripts/observed_oracle.py:ObservedOracle`` (``simcli match``). Before each searched decision it reads
from the history every (player, natural rank) the inference could learn something about: each rank another player
discarded this deal and each natural top it drew past. It then deals ``pool x samples`` worlds as ``mc:infer`` does
(:class:`simcli.strategies.search.inference.HandPool`, uniform over the information set) and searches the ``samples``
whose hands are closest to the true hands on those (player, rank) counts (the sum of the count differences; ties at
random): with the default ``pool=16`` most searched worlds hold the true count of every such rank. So it plays as
an ``mc`` with a perfect model of what those decisions say, whatever the other players' policy; a sampler that
reads the same decisions through any opponent model knows no more. Everything else is ``mc``'s (16 worlds, the
flat search); its CPU a decision is not held to ``mc``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simcli.engine.view import PlayerView
from simcli.primitives.cards import FOUR
from simcli.strategies.search.inference import HandPool
from simcli.strategies.search.mc import MonteCarlo


def observed_pairs(view: PlayerView) -> list[tuple[int, int]]:
    """Every (other seat, natural rank) it discarded this deal or drew past as the pile's top, in order."""
    pairs: list[tuple[int, int]] = []
    for entry in view.history:
        kind, seat = entry[0], entry[1]
        if seat == view.seat:
            continue
        rank = entry[3] if kind == "discard" else entry[4] if kind == "draw" else -1
        if rank >= FOUR and (seat, rank) not in pairs:
            pairs.append((seat, rank))
    return pairs


class ObservedOracle(MonteCarlo):
    """``mc`` searching the worlds closest to the truth on the observed (player, rank) counts (see the module)."""

    name = "observed-oracle"

    def __init__(self, rng: np.random.Generator, *, pool: int = 4, **options: Any):
        super().__init__(rng, pool=pool, **options)
        self.reads_history = True  # the engine records the table's history for this seat

    def _worlds(self, view: PlayerView) -> Any:
        pairs = observed_pairs(view)
        if not pairs:
            yield from super()._worlds(view)
            return
        truth = view._st  # cheating by design: the true counts of the observed ranks
        template = view.sample_world(self.rng)
        template.history = None
        pool = HandPool(template, view.seat, self.pool * self.samples, self.rng)
        where = {s: i for i, s in enumerate(pool.seats)}
        miss = np.zeros(pool.size, dtype=np.int64)
        for seat, rank in pairs:
            miss += np.abs(pool.hands[:, where[seat], rank] - truth.hands[seat][rank])
        order = np.lexsort((self.rng.random(pool.size), miss))[:self.samples]
        for w in sorted(order.tolist()):
            world = pool.world(int(w))
            world.history = None
            repair(world, truth, pairs, pool.seats, self.rng)
            yield world


def repair(world: Any, truth: Any, pairs: list[tuple[int, int]], others: list[int], rng: np.random.Generator) -> int:
    """Swap cards between the hands of ``others`` (the other seats) and the stock until each observed (seat, rank)
    count is the truth's; the counts left wrong (no card to swap with). Cards moved into a hand are never bonus
    threes, a hand's cards known to the table stay, and a swap never breaks a count already right."""
    pinned: dict[int, set[int]] = {}
    for seat, rank in pairs:
        pinned.setdefault(seat, set()).add(rank)
    wrong = 0
    for seat, rank in pairs:
        hand, known = world.hands[seat], world.known[seat]
        while hand[rank] != truth.hands[seat][rank]:
            if hand[rank] > truth.hands[seat][rank]:  # a copy too many: give it to the stock for another card
                spots = [j for j, x in enumerate(world.stock)
                         if x != rank and x not in pinned[seat] and not world.is_bonus_three[x]]
                if not spots or hand[rank] <= known[rank]:
                    break
                j = spots[int(rng.integers(len(spots)))]
                hand[rank] -= 1
                hand[world.stock[j]] += 1
                world.stock[j] = rank
            else:  # a copy too few: take one from the stock, or from a hand not pinned on it, for a free card
                give = [y for y in range(len(hand)) if hand[y] > known[y] and y not in pinned[seat]]
                spots = [j for j, x in enumerate(world.stock) if x == rank]
                donors = [t for t in others if t != seat and rank not in pinned.get(t, set())
                          and world.hands[t][rank] > world.known[t][rank]] if not spots else []
                if not give or not (spots or donors):
                    break
                y = give[int(rng.integers(len(give)))]
                if spots:
                    j = spots[int(rng.integers(len(spots)))]
                    world.stock[j] = y
                else:
                    t = donors[int(rng.integers(len(donors)))]
                    if y in pinned.get(t, set()):
                        break
                    world.hands[t][rank] -= 1
                    world.hands[t][y] += 1
                hand[y] -= 1
                hand[rank] += 1
        wrong += hand[rank] != truth.hands[seat][rank]
    return wrong


STRATEGY = ObservedOracle
