"""Strategies for the duplicate-match tests (load them as ``duplicate_strategies:Class``)."""

from __future__ import annotations

import numpy as np

from simcli.strategies.heuristics.random_play import RandomStrategy


class ShiftedRandom(RandomStrategy):
    """``random`` with its stream shifted by one draw: plays exactly as well, but not the same moves.

    A's twin game with B = ``random`` in the same seat would otherwise copy every move, so A against itself
    could never show a difference; this one gives a true null hypothesis with real noise.
    """

    name = "shifted_random"

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self.rng.random()
