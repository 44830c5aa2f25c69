"""``net``: a player learnt from the search. It weighs the same candidates as ``mc`` and picks the one its model rates
best, with one forward pass of a small network over all of a decision's candidates (numpy only: no scikit-learn or
torch at play time).

The candidates are ``mc``'s own (the heuristic's choice first, then the stock and the legal pile takes, a few meld
plans, each distinct legal discard; strategies/mc.py), each described by :mod:`strategies.net_features` from the
``PlayerView`` alone. The model was fitted (``simcli train fit``) to the search's value of each candidate relative to
the mean of its decision's candidates, over decisions of ``mc`` self-play (``simcli train data``); it keeps the
heuristic's choice unless another candidate is rated at least ``margin`` points better.

A model file is an ``.npz``: the layers' weights (``W0``, ``b0``, ``W1``, ...: ReLU between them, one output), the
input scaling (``x_mean``, ``x_scale``), the output scale (``y_scale``, points) and ``meta``, a JSON text (variant,
rule-set digest and knobs, feature version, the data command, seed, games, held-out figures, simcli version). The
models of the four presets ship in ``strategies/models/`` (installed as ``simcli/strategies/models/``; the README
there has the commands that made them).

Options (``net:model=PATH,margin=20,any_rules=true``):

* ``model`` — a model file, or ``auto`` (the default): the shipped model of the game's variant.
* ``margin`` — points by which a candidate must be rated above the heuristic's choice to be played instead;
  negative (the default): the model's own, chosen by ``simcli train fit`` on its validation games.
* ``any_rules`` — play under rules other than the model's (refused otherwise, in one line naming the knobs that
  differ and the command that trains a model for them).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simcli.engine.view import PlayerView
from simcli.players.loading import Strategy
from simcli.primitives.actions import Meld
from simcli.rules.ruleset import RuleSet

from .mc import MonteCarlo
from .net_features import CANDIDATE_COLUMNS, FEATURE_VERSION, STATE_COLUMNS, decision_features, decision_parts

__all__ = ["FEATURE_VERSION", "MODELS", "Model", "ModelError", "Net", "decision_features", "load_model", "rules_digest"]

#: Where the shipped models are: ``<variant>.npz``.
MODELS = Path(__file__).resolve().parent / "models"

#: Models already read in this process, by resolved path (a match builds a strategy for every game).
_LOADED: dict[str, Model] = {}


class ModelError(ValueError):
    """A model file that cannot be used: missing, damaged, of another feature version, or of other rules."""


def rules_digest(rules: RuleSet) -> str:
    """A short SHA-256 digest of a rule set's every knob (as written on the command line) and its variant."""
    text = json.dumps({"variant": rules.variant, **rules.formatted()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def train_command(rules: RuleSet, path: str = "MODEL.npz") -> str:
    """The commands that make a model for ``rules`` (data, then fit), as one line."""
    knobs = "".join(f" --rule {k}={v}" for k, (_, v) in sorted(_preset_diff(rules).items()))
    return (f"simcli train data DATA --variant {rules.variant}{knobs} && simcli train fit DATA {path}")


def _preset_diff(rules: RuleSet) -> dict[str, tuple[str, str]]:
    from simcli.rules.presets import diff

    return diff(rules)


class Model:
    """A loaded model: the layers and scaling of an ``.npz`` file and its metadata."""

    def __init__(self, path: Path) -> None:
        try:
            with np.load(path, allow_pickle=False) as npz:
                arrays = {k: np.asarray(npz[k]) for k in npz.files}
            meta = json.loads(str(arrays.pop("meta")))
            n = sum(1 for k in arrays if k.startswith("W"))
            self.layers = [(arrays[f"W{i}"].astype(np.float64), arrays[f"b{i}"].astype(np.float64)) for i in range(n)]
            self.x_mean = arrays["x_mean"].astype(np.float64)
            self.x_scale = arrays["x_scale"].astype(np.float64)
            self.y_scale = float(arrays["y_scale"])
        except FileNotFoundError:
            raise ModelError(f"model file {path} not found") from None
        except (OSError, KeyError, ValueError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
            raise ModelError(f"model file {path} is damaged or not a net model ({type(exc).__name__})") from None
        if not n or not isinstance(meta, dict):
            raise ModelError(f"model file {path} is damaged or not a net model (no layers)")
        self.meta: dict[str, Any] = meta
        self.path = path
        #: The margin the fit chose on its validation games (points).
        self.margin = float(meta.get("margin", 0.0))
        self._refusals: dict[int, tuple[RuleSet, str | None]] = {}
        if meta.get("feature_version") != FEATURE_VERSION:
            raise ModelError(f"model file {path} has feature version {meta.get('feature_version')}, this simcli "
                             f"{FEATURE_VERSION}: train it again (simcli train data, simcli train fit)")
        if self.layers[0][0].shape[0] != self.x_mean.size or self.x_mean.size != STATE_COLUMNS + CANDIDATE_COLUMNS:
            raise ModelError(f"model file {path} is damaged or not a net model (its shapes disagree)")
        # The scaling folded into the first layer, split into its state rows and its candidate rows: at play time
        # the state part goes through the first layer once a decision, each candidate's part once.
        w0, b0 = self.layers[0]
        folded = w0 / self.x_scale[:, None]
        self._w_state = np.ascontiguousarray(folded[:STATE_COLUMNS])
        self._w_candidate = np.ascontiguousarray(folded[STATE_COLUMNS:])
        self._b0 = b0 - (self.x_mean / self.x_scale) @ w0
        self._rest = self.layers[1:]

    def values(self, x: np.ndarray) -> np.ndarray:
        """The model's value (points, relative to the decision's mean) of each row of ``x``, in one batch."""
        h = (x - self.x_mean) / self.x_scale
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h[:, 0] * self.y_scale

    def values_of_parts(self, state: list[float], parts: list[list[float]]) -> np.ndarray:
        """:meth:`values` of the rows ``state + part`` for each candidate's ``part`` (the same up to rounding), with the
        state through the first layer once."""
        h = np.array(parts) @ self._w_candidate
        h += np.array(state) @ self._w_state + self._b0
        for w, b in self._rest:
            np.maximum(h, 0.0, out=h)
            h = h @ w + b
        return h[:, 0] * self.y_scale

    def refusal(self, rules: RuleSet) -> str | None:
        """Why this model should not play under ``rules`` (its knobs differ), or ``None`` (kept per rule set: a
        match builds a player for every game)."""
        kept = self._refusals.get(id(rules))
        if kept is None or kept[0] is not rules:
            kept = self._refusals[id(rules)] = (rules, self._refusal(rules))  # the rule set kept: its id stays its
        return kept[1]

    def _refusal(self, rules: RuleSet) -> str | None:
        if self.meta.get("rules_digest") == rules_digest(rules):
            return None
        theirs: dict[str, str] = self.meta.get("rules", {})
        ours = rules.formatted()
        knobs = [f"{k} {theirs.get(k, '?')} -> {v}" for k, v in ours.items() if theirs.get(k) != v]
        if self.meta.get("variant") != rules.variant:
            knobs.insert(0, f"variant {self.meta.get('variant')} -> {rules.variant}")
        return (f"net's model {self.path.name} was trained under other rules ({'; '.join(knobs) or 'digest differs'})"
                f": train one with `{train_command(rules)}`, or play it anyway with net:any_rules=true")


def load_model(path: str | Path) -> Model:
    """The model in ``path`` (read once per process), or a one-line :class:`ModelError`."""
    resolved = Path(path).expanduser().resolve()
    key = str(resolved)
    if key not in _LOADED:
        _LOADED[key] = Model(resolved)
    return _LOADED[key]


class Net(Strategy):
    """The learnt player: ``mc``'s candidates, rated by a model in one batch per decision. See the module."""

    name = "net"

    def __init__(self, rng: np.random.Generator, *, model: str = "auto", margin: float = -1.0,
                 any_rules: bool = False) -> None:
        super().__init__(rng)
        if not isinstance(any_rules, (bool, int)):
            raise ValueError(f"any_rules must be true or false, got {any_rules!r}")
        if not np.isfinite(margin):
            raise ValueError(f"margin must be a finite number of points, got {margin}")
        self.model_name = str(model)
        self.margin = float(margin)
        self.any_rules = bool(any_rules)
        if self.model_name != "auto":
            load_model(self.model_name)  # a missing or damaged file fails when the player is built
        # mc's candidate lists and heuristic, never its search: its own stream, so this seat's draws are untouched.
        self._candidates = MonteCarlo(np.random.default_rng(0))
        self._model: Model | None = None
        self._rules: RuleSet | None = None

    def _model_for(self, view: PlayerView) -> Model:
        rules = view.rules
        if rules is not self._rules:
            name = self.model_name
            model = load_model(MODELS / f"{rules.variant}.npz" if name == "auto" else name)
            refusal = model.refusal(rules)
            if refusal is not None and not self.any_rules:
                raise ModelError(refusal)
            self._model, self._rules = model, rules
        assert self._model is not None
        return self._model

    def _pick(self, view: PlayerView, kind: str, candidates: list[Any]) -> Any:
        model = self._model_for(view)
        if len(candidates) == 1 or view.special_hand_laid:
            return candidates[0]
        values: list[float] = model.values_of_parts(*decision_parts(view, kind, candidates)).tolist()
        best = 0  # the first best, as numpy's argmax (a list is quicker than numpy for a handful)
        for i in range(1, len(values)):
            if values[i] > values[best]:
                best = i
        margin = self.margin if self.margin >= 0 else model.margin
        if best and values[best] - values[0] > margin:
            return candidates[best]
        return candidates[0]

    def _heuristic(self, view: PlayerView) -> Strategy:
        return self._candidates._policy(view)[view.seat]

    def choose_draw(self, view: PlayerView) -> Any:
        """The best-rated of the stock and the legal pile takes."""
        own = self._heuristic(view).choose_draw(view)
        return self._pick(view, "draw", self._candidates._draw_candidates(view, own))

    def choose_melds(self, view: PlayerView) -> Sequence[Meld]:
        """The best-rated of a few meld plans."""
        own = self._heuristic(view).choose_melds(view)
        return self._pick(view, "melds", self._candidates._meld_candidates(view, own))

    def choose_discard(self, view: PlayerView) -> int | None:
        """The best-rated distinct legal discard."""
        own = self._heuristic(view).choose_discard(view)
        return self._pick(view, "discard", self._candidates._discard_candidates(view, own))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """As the heuristic."""
        return self._heuristic(view).hold_three(view, rank)

    def answer_go_out(self, view: PlayerView) -> bool:
        """As the heuristic."""
        return self._heuristic(view).answer_go_out(view)


STRATEGY = Net
