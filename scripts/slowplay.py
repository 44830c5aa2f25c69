"""``slowplay``: the variant's heuristic, but it slow-plays its pairs: a player the inference's model mis-reads.

Load it as ``scripts/slowplay.py:SlowPlay`` (``simcli match``, ``--strategies``). It plays the variant's best
heuristic (:data:`simcli.strategies.search.mc.BEST_HEURISTIC`) except that it passes a pile the heuristic would take
with probability ``passes`` (it draws from the stock instead), and, with probability ``split``, discards the
cheapest natural it holds exactly twice of and has no team meld of (the heuristic keeps pairs). So a pile it
passed by says little about its pairs, and its discards are often from a pair: the opposite of what
``mc:infer`` assumes (strategies/search/inference.py). Its random draws come from its own stream, so games are seeded.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC
from simcli.primitives.actions import DRAW_STOCK
from simcli.primitives.cards import CARD_VALUES, FOUR
from simcli.strategy import Strategy, load_strategy


class SlowPlay(Strategy):
    """The variant's heuristic that passes piles and splits pairs (see the module docstring)."""

    name = "slowplay"

    def __init__(self, rng: np.random.Generator, passes: float = 0.5, split: float = 0.5):
        super().__init__(rng)
        self.passes = float(passes)
        self.split = float(split)
        self._inner: Strategy | None = None

    def _heuristic(self, view: PlayerView) -> Strategy:
        """The variant's heuristic, built at the first decision (on this player's stream)."""
        if self._inner is None:
            self._inner = load_strategy(BEST_HEURISTIC.get(view.rules.variant, "greedy"))(self.rng)
        return self._inner

    def choose_draw(self, view: PlayerView) -> Any:
        """The heuristic's draw, but a take is passed by with probability ``passes`` (unless forced)."""
        draw = self._heuristic(view).choose_draw(view)
        if draw is not DRAW_STOCK and not view.must_take_pile and view.stock_size and self.rng.random() < self.passes:
            return DRAW_STOCK
        return draw

    def choose_melds(self, view: PlayerView) -> Any:
        """The heuristic's."""
        return self._heuristic(view).choose_melds(view)

    def choose_discard(self, view: PlayerView) -> int | None:
        """With probability ``split``, the cheapest legal natural held exactly twice and not on the team's table;
        else the heuristic's discard."""
        hand = view.hand
        pairs = [r for r in view.legal_discards() if r >= FOUR and hand[r] == 2 and view.meld(r) is None]
        if pairs and view.hand_size > 2 and self.rng.random() < self.split:
            return min(pairs, key=lambda r: (CARD_VALUES[r], r))
        return self._heuristic(view).choose_discard(view)

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The heuristic's."""
        return self._heuristic(view).hold_three(view, rank)

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """The heuristic's."""
        return self._heuristic(view).ask_to_go_out(view)

    def answer_go_out(self, view: PlayerView) -> bool:
        """The heuristic's."""
        return self._heuristic(view).answer_go_out(view)
