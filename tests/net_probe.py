"""Games of a variant's heuristic with a check at every decision the learnt player would weigh (the feature tests
of versions 4 and 5: tests/test_net_closed.py, tests/test_net_homes.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC as HEURISTIC
from simcli.players.seating import play_game
from simcli.rules.ruleset import RuleSet
from simcli.strategies.search.candidates import discard_candidates, draw_candidates, meld_candidates
from simcli.strategy import load_strategy

#: A check of one decision: the seat's view, its kind ("draw", "melds", "discard") and the search's candidates.
Check = Callable[[PlayerView, str, list[Any]], None]


def play_checked(rules: RuleSet, games: int, check: Check, seed: int = 7) -> None:
    """Play games 0 to ``games - 1`` of ``seed`` under ``rules`` with the variant's heuristic in every seat, calling
    ``check`` at each of its draws, meld plans and discards with the candidates the search would weigh."""
    base = load_strategy(HEURISTIC[rules.variant])

    class Probe(base):  # type: ignore[valid-type, misc]
        def choose_draw(self, view: PlayerView) -> Any:
            own = super().choose_draw(view)
            check(view, "draw", draw_candidates(view, own))
            return own

        def choose_melds(self, view: PlayerView) -> Any:
            own = super().choose_melds(view)
            check(view, "melds", meld_candidates(view, own))
            return own

        def choose_discard(self, view: PlayerView) -> Any:
            own = super().choose_discard(view)
            check(view, "discard", discard_candidates(view, own))
            return own

    for game in range(games):
        players = [Probe(np.random.default_rng(s)) for s in range(rules.num_players)]
        play_game(rules, [HEURISTIC[rules.variant]] * rules.num_players, seed, game, strategies=players)
