"""The learnt player's model (:mod:`.net` plays it; ``mc:leaf`` reads it too) and its file format.

A model file is an ``.npz``: the layers' weights (``W0``, ``b0``, ``W1``, ...: ReLU between them, one output), the
input scaling (``x_mean``, ``x_scale``), the output scale (``y_scale``, points) and ``meta``, a JSON text (variant,
rule-set digest and knobs, feature version, the data command, seed, games, held-out figures, simcli version). The
models of the four presets ship in ``strategies/learnt/models/`` (installed as ``simcli/strategies/learnt/models/``;
the README there has the commands that made them); ``simcli train fit`` writes one (:mod:`simcli.training.fit`).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from simcli.rules.knobs import LATER_KNOBS
from simcli.rules.ruleset import RuleSet

from .catalogue import Catalogue, CatalogueError
from .net_features import (
    CANDIDATE_COLUMNS,
    CANDIDATE_COUNTS,
    COUNT_LAYOUT,
    FEATURE_VERSION,
    KINDS,
    STATE_COLUMNS,
    STATE_COUNTS,
    widths,
)
from .net_play import forward

__all__ = ["MODELS", "RETIRED", "Model", "ModelError", "load_model", "model_for_rules", "models_by_rules",
           "model_folder", "rules_digest", "train_command"]

#: Where the shipped models are: ``<variant>.npz``.
MODELS = Path(__file__).resolve().parent / "models"

#: Shipped models that a stronger one replaced (issue 47: a general model level with or above them). ``net`` never
#: chooses them by itself (:func:`models_by_rules` reads only :data:`MODELS`), but a bare name still finds one
#: (``net:model=ponytail-preset,any_rules=true``), and ``net:model=retired`` chooses among them by digest as ``auto``
#: did when they were shipped, so that a page published with them can be played again.
RETIRED = MODELS / "retired"

#: Models already read in this process, by resolved path (a match builds a strategy for every game).
_LOADED: dict[str, Model] = {}


def upgrade_rows(rows: np.ndarray, version: int, fill: float) -> np.ndarray:
    """A model's rows over the float row of feature ``version`` (its first layer's weights, its scaling's means or
    deviations; any rule columns after them), widened to this version's: ``fill`` for every column added since, at
    its place. With zero weights there (and mean 0, deviation 1) the model gives the values it gave, to the bit (the
    columns each version added come after the ones before: the sums keep their order)."""
    state, candidate = widths(version)
    pad_state = np.full((STATE_COLUMNS - state, *rows.shape[1:]), fill, dtype=rows.dtype)
    pad_candidate = np.full((CANDIDATE_COLUMNS - candidate, *rows.shape[1:]), fill, dtype=rows.dtype)
    return np.concatenate([rows[:state], pad_state, rows[state:state + candidate], pad_candidate,
                           rows[state + candidate:]])


class ModelError(ValueError):
    """A model file that cannot be used: missing, damaged, of another feature version, or of other rules."""


def rules_digest(rules: RuleSet) -> str:
    """A short SHA-256 digest of a rule set's every knob (as written on the command line) and its variant; a knob
    added later (:data:`~simcli.rules.knobs.LATER_KNOBS`) counts only away from its value that plays as before."""
    text = json.dumps({"variant": rules.variant, **digested_knobs(rules)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def digested_knobs(rules: RuleSet) -> dict[str, str]:
    """The knobs :func:`rules_digest` covers: every knob, but those of LATER_KNOBS at their old-behaviour value."""
    return {k: v for k, v in rules.formatted().items() if LATER_KNOBS.get(k) != v}


def train_command(rules: RuleSet, path: str = "MODEL.npz") -> str:
    """The commands that make a model for ``rules`` (data, then fit), as one line."""
    from simcli.rules.presets import preset_values

    changed = {k: v for k, (_, v) in _preset_diff(rules).items()}
    if rules.num_players != preset_values(rules.variant)["num_players"]:  # diff() compares within a player count
        changed["num_players"] = str(rules.num_players)
    knobs = "".join(f" --rule {k}={v}" for k, v in sorted(changed.items()))
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
        version = meta.get("feature_version")
        if not isinstance(version, int) or not 1 <= version <= FEATURE_VERSION:
            raise ModelError(f"model file {path} has feature version {version}, this simcli {FEATURE_VERSION} (and "
                             f"the versions before it): train it again (simcli train data, simcli train fit)")
        #: The feature version the model was trained on: an older model reads this version's rows with zero
        #: weights for the columns added since (:func:`upgrade_rows`), and so plays as it did.
        self.feature_version = version
        if version < FEATURE_VERSION:
            w0, b0 = self.layers[0]
            self.layers[0] = (upgrade_rows(w0, version, 0.0), b0)
            self.x_mean = upgrade_rows(self.x_mean, version, 0.0)
            self.x_scale = upgrade_rows(self.x_scale, version, 1.0)
        #: The catalogue of house rules the model was trained over (its rule features), or ``None``: a model of one
        #: rule set (its ``rules_digest``).
        self.catalogue: Catalogue | None = None
        if isinstance(meta.get("catalogue"), dict):
            try:
                self.catalogue = Catalogue.from_dict(meta["catalogue"], f"model file {path}")
            except CatalogueError as exc:
                raise ModelError(str(exc)) from None
        base = STATE_COLUMNS + CANDIDATE_COLUMNS
        n_rules = len(self.catalogue.columns()) if self.catalogue is not None else 0
        if self.layers[0][0].shape[0] != self.x_mean.size or self.x_mean.size != base + n_rules:
            raise ModelError(f"model file {path} is damaged or not a net model (its shapes disagree)")
        # The play-time pass (:meth:`values_of_counts`) is over rows of counts (simcli.strategies.learnt.net_features:
        # COUNT_LAYOUT): the input scaling folded into the first layer, each float column's weights (over its
        # divisor) moved onto the counts it is made of, the first layer's bias onto the kind columns (one of them is
        # 1 in every row); the output layer a vector with the output scale folded in, and no output bias (the same
        # for every candidate: a decision compares them; a linear model's only layer is its output layer).
        w0, b0 = self.layers[0]
        folded = w0 / self.x_scale[:, None]
        w_count = np.zeros((STATE_COUNTS + CANDIDATE_COUNTS, w0.shape[1]))
        for j, (divisor, terms) in enumerate(COUNT_LAYOUT):
            for column, coefficient in terms:
                w_count[column] += folded[j] * coefficient / divisor
        w_count[STATE_COUNTS:STATE_COUNTS + len(KINDS)] += b0 - (self.x_mean / self.x_scale) @ w0
        if len(self.layers) == 1:  # a linear model: the first layer is the output, whose bias is left out
            w_count[STATE_COUNTS:STATE_COUNTS + len(KINDS)] -= b0
        rest = self.layers[1:]
        self._hidden = [(w.copy(), b.copy()) for w, b in rest[:-1]]
        self._w_out: np.ndarray | None = None
        if rest:
            self._w_out = np.ascontiguousarray(rest[-1][0][:, 0] * self.y_scale)
        else:  # a linear model (``--hidden 0``): the first layer is the output
            w_count = w_count * self.y_scale
        # The rule features (issue 47) are the same at every decision of a game: their share of the first layer is
        # worked out once a rule set (:meth:`rule_share`) and added where the bias went, onto the kind rows.
        self._w_rules = folded[base:] * (self.y_scale if not rest else 1.0)
        self._rule_shares: dict[int, tuple[RuleSet, np.ndarray]] = {}
        self._w_state = np.ascontiguousarray(w_count[:STATE_COUNTS])
        # the candidate part's rows, with a row of zeros for the state's share (net_features.SHARE_COUNT: the count
        # that is always 1) that each decision writes: see play_buffer
        self._w_candidate = np.ascontiguousarray(w_count[STATE_COUNTS:])

    def values(self, x: np.ndarray) -> np.ndarray:
        """The model's value (points, relative to the decision's mean) of each row of ``x``, in one batch."""
        h = (x - self.x_mean) / self.x_scale
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h[:, 0] * self.y_scale

    def rule_share(self, rules: RuleSet) -> np.ndarray:
        """The rule features' share of the first layer under ``rules`` (zeros for a model of one rule set): the
        catalogue's encoding of the rules times their weights, once a rule set."""
        kept = self._rule_shares.get(id(rules))
        if kept is None or kept[0] is not rules:
            share = (self.catalogue.encode(rules) @ self._w_rules if self.catalogue is not None
                     else np.zeros(self._w_candidate.shape[1]))
            kept = self._rule_shares[id(rules)] = (rules, share)
        return kept[1]

    def rule_row(self, rules: RuleSet) -> np.ndarray:
        """The rule features of ``rules`` as the float row's last columns (empty for a model of one rule set)."""
        return self.catalogue.encode(rules) if self.catalogue is not None else np.zeros(0)

    def play_buffer(self, rules: RuleSet | None = None) -> np.ndarray:
        """The candidate part's weights of the first layer, to hand to :meth:`values_of_counts` (one a player:
        its row ``SHARE_COUNT`` is written at each decision), with the share of ``rules``' features folded into the
        kind rows (one of them is 1 in every row): no cost a decision."""
        out = self._w_candidate.copy()
        if rules is not None and self.catalogue is not None:
            out[:len(KINDS)] += self.rule_share(rules)
        return out

    def values_of_counts(self, counts: bytes | list[int], k: int, buffer: np.ndarray | None = None,
                         rules: RuleSet | None = None) -> list[float]:
        """The values of a decision's ``k`` candidates from its rows as counts, the state part and then each
        candidate's part: bytes (:func:`~simcli.strategies.learnt.net_features.decision_bytes`), or a list where a count
        is over 255 (:func:`~simcli.strategies.learnt.net_features.decision_counts`). The same as :meth:`values` of the
        float rows less the output layer's bias (a constant of the model), up to rounding. The play-time pass: no float
        made in Python, the state through the first layer once (into ``buffer``'s row ``SHARE_COUNT``,
        :meth:`play_buffer`, which every candidate's count there, 1, adds), every candidate in one product, a few
        numpy calls a decision."""
        if buffer is None:
            buffer = self.play_buffer(rules)
        return forward(counts, k, self._w_state, buffer, self._hidden, self._w_out)

    def refusal(self, rules: RuleSet) -> str | None:
        """Why this model should not play under ``rules`` (its knobs differ), or ``None`` (kept per rule set: a
        match builds a player for every game)."""
        kept = self._refusals.get(id(rules))
        if kept is None or kept[0] is not rules:
            kept = self._refusals[id(rules)] = (rules, self._refusal(rules))  # the rule set kept: its id stays its
        return kept[1]

    def _refusal(self, rules: RuleSet) -> str | None:
        if self.catalogue is not None:  # a general model: every rule set inside its catalogue
            out = self.catalogue.outside(rules)
            if out is None:
                return None
            return (f"net's model {self.path.name} was not trained for {out}: train one with "
                    f"`{train_command(rules)}`, or play it anyway with net:any_rules=true")
        if self.meta.get("rules_digest") == rules_digest(rules):
            return None
        theirs: dict[str, str] = self.meta.get("rules", {})
        ours = digested_knobs(rules)
        knobs = [f"{k} {theirs.get(k, '?')} -> {v}" for k, v in ours.items() if theirs.get(k) != v]
        if self.meta.get("variant") != rules.variant:
            knobs.insert(0, f"variant {self.meta.get('variant')} -> {rules.variant}")
        return (f"net's model {self.path.name} was trained under other rules ({'; '.join(knobs) or 'digest differs'})"
                f": train one with `{train_command(rules)}`, or play it anyway with net:any_rules=true")


#: Each folder's models by the digest of the rule set each was trained under, read once per folder.
_BY_DIGEST: dict[str, dict[str, Path]] = {}

#: The model :func:`model_for_rules` chose, by folder and rule set (kept with the rule set, so its id stays its own;
#: a match builds a player a game).
_CHOSEN: dict[tuple[str, int], tuple[RuleSet, Model]] = {}


def models_by_rules(folder: Path) -> dict[str, Path]:
    """The ``.npz`` models in ``folder`` by the digest of the rule set each was trained under (its metadata's
    ``rules_digest``; a file whose metadata does not read is left out here and fails where it is named). A general
    model (trained over a catalogue: its digest is only its data's base) is no rule set's own model and is left
    out: the folder's ``<variant>.npz`` is chosen for a rule set without one (a retired general model beside a
    retired specialist of the preset does not take the preset from it)."""
    key = str(folder.resolve())
    found = _BY_DIGEST.get(key)
    if found is None:
        found = {}
        for path in sorted(folder.glob("*.npz")):
            try:
                with np.load(path, allow_pickle=False) as npz:
                    meta = json.loads(str(npz["meta"]))
                    digest = None if isinstance(meta.get("catalogue"), dict) else meta.get("rules_digest")
            except (OSError, KeyError, ValueError, zipfile.BadZipFile, json.JSONDecodeError, AttributeError):
                continue
            if isinstance(digest, str):
                found.setdefault(digest, path)
        _BY_DIGEST[key] = found
    return found


def model_for_rules(rules: RuleSet, folder: Path = MODELS) -> Model:
    """The model in ``folder`` trained under exactly ``rules`` (the same digest: a study's house rule has its own
    model there), else the variant's, ``<variant>.npz`` (which refuses other rules when asked, :meth:`Model.refusal`).
    ``folder`` defaults to the shipped models (``net``'s ``model=auto``)."""
    key = (str(folder), id(rules))
    kept = _CHOSEN.get(key)
    if kept is not None and kept[0] is rules:
        return kept[1]
    path = models_by_rules(folder).get(rules_digest(rules), folder / f"{rules.variant}.npz")
    if not path.is_file():  # a variant without a model yet (handfoot): say how to make one
        others = sorted(p.stem for p in folder.glob(f"{rules.variant}-*.npz"))
        named = f"; its other {rules.variant} models: {', '.join(others)}, played by name (net:model={others[0]})" \
            if others else ""
        raise ModelError(f"no net model for {rules.variant} ({path.name} is not in {folder}{named}): train one with "
                         f"`{train_command(rules)}`, then play net:model=MODEL.npz")
    model = load_model(path)
    _CHOSEN[key] = (rules, model)
    return model


def model_folder(name: str) -> Path | None:
    """The folder of models that ``net:model=NAME`` names: an existing folder, or ``retired`` (the retired shipped
    models, :data:`RETIRED`, when no folder of that name is here); else ``None`` (a model file or name)."""
    given = Path(name).expanduser()
    if given.is_dir():
        return given
    if name == "retired" and RETIRED.is_dir():
        return RETIRED
    return None


def load_model(path: str | Path) -> Model:
    """The model in ``path`` (read once per process), or a one-line :class:`ModelError`. A bare name that is no file
    here but a shipped model's (``ponytail``, ``classic-going_out_bonus-500``) is that shipped model, or a retired one's
    (``ponytail-preset``, :data:`RETIRED`), so that a spec such as ``net:model=ponytail,any_rules=true`` means the same
    on every machine."""
    given = Path(path).expanduser()
    if not given.exists() and given.name == str(path) and given.suffix != ".npz":
        for shipped in (MODELS / f"{given.name}.npz", RETIRED / f"{given.name}.npz"):
            if shipped.is_file():
                given = shipped
                break
    resolved = given.resolve()
    key = str(resolved)
    if key not in _LOADED:
        _LOADED[key] = Model(resolved)
    return _LOADED[key]
