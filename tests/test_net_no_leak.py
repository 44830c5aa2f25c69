"""No-leak twins for the learnt player (issue 31): its features and its decisions see only the ``PlayerView``.

At every decision of two probed seats in one deal of each variant (the variant's heuristic in every seat), the
state's twins (tests/leak_twins.py: a hidden card swapped with another hidden place's, the stock reshuffled, every
hidden card dealt anew) must give the same feature rows for the same candidates, the same candidates, and the same
decision of ``net`` (with a model of random weights, which rates the candidates arbitrarily, so any leak into the
features moves some pick). A twin with a card of the player's own hand exchanged must change the features: the
check can fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from leak_twins import twins
from net_models import random_model

from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC as HEURISTIC
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules
from simcli.strategies.learnt.catalogue import load_catalogue
from simcli.strategies.learnt.model import load_model
from simcli.strategies.learnt.net import Net
from simcli.strategies.learnt.net_features import (
    decision_counts,
    decision_features,
)
from simcli.strategies.search.candidates import discard_candidates, draw_candidates, meld_candidates
from simcli.strategy import Strategy, load_strategy


def rows_and_pick(st: DealState, seat: int, phase: str, model: Path) -> tuple[list[Any], np.ndarray, Any]:
    """The candidates, their feature rows and net's decision at ``phase`` on a clone of ``st``."""
    net = Net(np.random.default_rng(0), model=str(model), any_rules=True)
    view = PlayerView(st.clone(), seat)
    heuristic = net._heuristic(view)
    own = getattr(heuristic, f"choose_{phase}")(view)
    candidates = {"draw": draw_candidates, "melds": meld_candidates, "discard": discard_candidates}[phase](view, own)
    # The rows of the training data and those net plays from (counts: the same numbers before their divisors).
    state, parts = decision_counts(view, phase, candidates)
    # and the rule features of a general model (issue 47), read from the view's rules
    rule_row = np.tile(load_model(model).rule_row(view.rules), (len(candidates), 1))
    rows = np.hstack([decision_features(view, phase, candidates), np.array([state + p for p in parts], dtype=float),
                      rule_row])
    decision = getattr(net, f"choose_{phase}")(PlayerView(st.clone(), seat))
    return candidates, rows, decision


class Probe(Strategy):
    """Plays like ``policy``; at each decision compares net's candidates, rows and pick on the state and its twins."""

    def __init__(self, policy: Strategy, model: Path, seed: int) -> None:
        super().__init__(policy.rng)
        self.policy, self.model, self.rng2 = policy, model, np.random.default_rng(seed)
        self.checked = self.twins = self.searched = self.visible = self.visible_apart = 0
        self.differ: list[str] = []

    def _check(self, view: PlayerView, phase: str, decision: Any) -> Any:
        st, seat = view._st, view.seat
        cands, rows, pick = rows_and_pick(st, seat, phase, self.model)
        self.searched += len(cands) > 1
        for name, twin in twins(st, seat, self.rng2):
            self.twins += 1
            c2, r2, p2 = rows_and_pick(twin, seat, phase, self.model)
            if c2 != cands or not np.array_equal(r2, rows) or p2 != pick:
                self.differ.append(f"{name} at turn {st.turn} ({phase})")
        hand = st.hands[seat]
        mine = next((r for r, n in enumerate(hand) if n and not st.is_bonus_three[r]), None)
        other = next((r for r in range(4, 15) if r != mine), None)
        if mine is not None and other is not None and len(cands) > 1:
            twin = st.clone()
            twin.hands[seat][mine] -= 1
            twin.hands[seat][other] += 1
            self.visible += 1
            view2 = PlayerView(twin.clone(), seat)
            self.visible_apart += not np.array_equal(decision_features(view2, phase, cands)[:, :15], rows[:, :15])
        self.checked += 1
        return decision

    def choose_draw(self, view: PlayerView) -> Any:
        """The policy's draw, checked."""
        return self._check(view, "draw", self.policy.choose_draw(view))

    def choose_melds(self, view: PlayerView) -> Any:
        """The policy's melds, checked."""
        return self._check(view, "melds", self.policy.choose_melds(view))

    def choose_discard(self, view: PlayerView) -> Any:
        """The policy's discard, checked."""
        return self._check(view, "discard", self.policy.choose_discard(view))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The policy's."""
        return self.policy.hold_three(view, rank)


@pytest.mark.parametrize("variant", list(HEURISTIC))
def test_net_twins_look_the_same(variant: str, tmp_path: Path) -> None:
    rules = load_rules(variant, {"max_hands": 1})
    # a general model (issue 47): its rows end with the rule features of the variant's catalogue
    model = random_model(tmp_path / "r.npz", variant, seed=5, catalogue=load_catalogue(variant).to_dict())
    cls = load_strategy(HEURISTIC[variant])
    players: list[Strategy] = [cls(np.random.default_rng(s)) for s in range(rules.num_players)]
    probes = [Probe(players[s], model, 100 + s) for s in (0, 1)]
    players[0], players[1] = probes
    play_game(rules, [HEURISTIC[variant]] * rules.num_players, 3, strategies=players)
    assert not [d for p in probes for d in p.differ], [d for p in probes for d in p.differ][:5]
    assert min(p.checked for p in probes) > 10 and sum(p.twins for p in probes) > 50
    assert sum(p.searched for p in probes) > 5
    # Power: a change the player can see moves its features.
    assert sum(p.visible for p in probes) > 3 and all(p.visible == p.visible_apart for p in probes)
    assert load_model(model).catalogue is not None
