"""``net``: a player learnt from the search. It weighs the same candidates as ``mc`` and picks the one its model rates
best, with one forward pass of a small network over all of a decision's candidates (numpy only: no scikit-learn or
torch at play time).

The candidates are ``mc``'s own (the heuristic's choice first, then the stock and the legal pile takes, a few meld
plans, each distinct legal discard; strategies/search/mc.py), each described by
:mod:`simcli.strategies.learnt.net_features` from the ``PlayerView`` alone. The model was fitted (``simcli train fit``)
to the search's value of each candidate relative to the mean of its decision's candidates, over decisions of ``mc``
self-play (``simcli train data``); it keeps the heuristic's choice unless another candidate is rated at least ``margin``
points better.

The model and its file format are :mod:`.model`; the models of the four presets ship in
``strategies/learnt/models/`` (the README there has the commands that made them).

Options (``net:model=PATH,margin=20,any_rules=true``):

* ``model`` — a model file (or a shipped model's name: ``model=ponytail``); a folder of models: the one trained
  under the game's exact rules (the same rule-set digest), else the folder's ``<variant>.npz`` (``model=retired``:
  the retired shipped models, as ``auto`` chose among them when they were shipped); or ``auto`` (the
  default): that choice among the shipped models (the presets' and those trained under the house rules of the
  published by-level studies).
* ``margin`` — points by which a candidate must be rated above the heuristic's choice to be played instead;
  negative (the default): the model's own, chosen by ``simcli train fit`` on its validation games.
* ``any_rules`` — play under rules the model does not know (refused otherwise, in one line naming the knob, what the
  model knows and the command that trains a model for them). A general model (issue 47: trained over a catalogue of
  house rules, strategies/learnt/catalogue.py) knows every rule set inside its catalogue and reads the rules as
  input, their share of its first layer folded in once a seat and rule set; a specialist knows its one rule set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from simcli.engine.strategy_base import Strategy
from simcli.engine.view import PlayerView
from simcli.players.asking import HeuristicHooks
from simcli.players.best_heuristic import best_heuristic
from simcli.players.loading import load_strategy
from simcli.primitives.actions import Meld
from simcli.rules.ruleset import RuleSet

from .model import Model, ModelError, load_model, model_folder, model_for_rules
from .net_play import Seat

__all__ = ["Net"]

#: The entropy of the seeds ``mc`` gives its rollout policies, by how many rule sets it has met (a fresh ``mc``'s
#: stream, ``default_rng(0)``, draws one number a rule set): net's heuristic is the one ``mc`` would build for its seat.
_POLICY_ENTROPY: list[int] = []


def _policy_entropy(nth: int) -> int:
    """The ``nth`` (from 0) number a fresh ``mc`` draws to seed its rollout policies."""
    if len(_POLICY_ENTROPY) <= nth:
        rng = np.random.default_rng(0)
        _POLICY_ENTROPY[:] = [int(rng.integers(1 << 32)) for _ in range(nth + 1)]
    return _POLICY_ENTROPY[nth]


class Net(HeuristicHooks, Strategy):
    """The learnt player: ``mc``'s candidates, rated by a model in one batch per decision. See the module."""

    name = "net"

    def __init__(self, rng: np.random.Generator, *, model: str = "auto", margin: float = -1.0,
                 any_rules: bool = False) -> None:
        super().__init__(rng)
        if not isinstance(any_rules, (bool, int)):
            raise ValueError(f"any_rules must be true or false, got {any_rules!r}")
        if not math.isfinite(margin):
            raise ValueError(f"margin must be a finite number of points, got {margin}")
        self.model_name = str(model)
        self.margin = float(margin)
        self.any_rules = bool(any_rules)
        if self.model_name != "auto" and model_folder(self.model_name) is None:
            load_model(self.model_name)  # a missing or damaged file fails when the player is built
        self._model: Model | None = None
        self._model_rules: RuleSet | None = None
        self._rules: RuleSet | None = None
        self._rule_sets = 0
        #: Each seat's compiled play, for the current model and rule set.
        self._seats: dict[int, Seat] = {}
        #: The heuristic of each seat, built when the seat first decides (as ``mc``'s rollout policy for it).
        self._heuristics: list[Strategy | None] = []
        self._heuristic_class: type[Strategy] = Strategy
        self._seeds: list[np.random.SeedSequence] = []

    def check_rules(self, rules: RuleSet) -> str | None:
        """Why this player cannot play under ``rules`` (no model, or one trained under other rules), or None: asked
        before the first game (:mod:`simcli.runs.preflight`), so a run that would fail at once fails before it."""
        try:
            self._model_under(rules)
        except ModelError as exc:
            return str(exc)
        return None

    def _model_for(self, view: PlayerView) -> Model:
        """The model of the game's rule set (refused under other rules unless ``any_rules``)."""
        return self._model_under(view.rules)

    def _model_under(self, rules: RuleSet) -> Model:
        """The model of ``rules`` (refused under other rules unless ``any_rules``)."""
        if rules is not self._model_rules:
            name = self.model_name
            if name == "auto":
                model = model_for_rules(rules)
            elif (folder := model_folder(name)) is not None:
                model = model_for_rules(rules, folder)
            else:
                model = load_model(name)
            refusal = model.refusal(rules)
            if refusal is not None and not self.any_rules:
                raise ModelError(refusal)
            self._model, self._model_rules = model, rules
            self._seats = {}
        assert self._model is not None
        return self._model

    def _heuristic(self, view: PlayerView) -> Strategy:
        """The seat's heuristic: the rollout policy ``mc`` would build for it (one per rule set, as ``mc``)."""
        rules = view.rules
        if rules is not self._rules:
            # mc's candidate lists and heuristic, never its search, whose seeds come from a stream of their own (a
            # fresh mc's), so this seat's draws are untouched: net plays the heuristic mc's search starts from.
            self._seeds = np.random.SeedSequence(_policy_entropy(self._rule_sets)).spawn(rules.num_players)
            self._rule_sets += 1
            self._heuristics = [None] * rules.num_players
            self._heuristic_class = load_strategy(best_heuristic(rules.variant))
            self._rules = rules
        seat = view.seat
        heuristic = self._heuristics[seat]
        if heuristic is None:
            heuristic = self._heuristics[seat] = self._heuristic_class(np.random.default_rng(self._seeds[seat]))
        return heuristic

    def _seat(self, view: PlayerView) -> Seat:
        """The seat's compiled play (strategies/learnt/net_play.py): its heuristic, the model's arrays and the
        margin."""
        if view.rules is self._model_rules and view.rules is self._rules:
            seat = self._seats.get(view.seat)
            if seat is not None:
                return seat
        model = self._model_for(view)
        heuristic = self._heuristic(view)
        margin = self.margin if self.margin >= 0 else model.margin
        seat = self._seats[view.seat] = Seat(heuristic, model._w_state, model.play_buffer(view.rules), model._hidden,
                                             model._w_out, margin)
        return seat

    def choose_draw(self, view: PlayerView) -> Any:
        """The best-rated of the stock and the legal pile takes."""
        return self._seat(view).draw(view)

    def choose_melds(self, view: PlayerView) -> Sequence[Meld]:
        """The best-rated of a few meld plans."""
        return self._seat(view).melds(view)

    def choose_discard(self, view: PlayerView) -> int | None:
        """The best-rated distinct legal discard."""
        return self._seat(view).discard(view)

    def heuristic_of(self, view: PlayerView) -> Strategy:
        """The seat's heuristic, whose yes/no hooks this player's are (:class:`HeuristicHooks`)."""
        return self._heuristic(view)


STRATEGY = Net
