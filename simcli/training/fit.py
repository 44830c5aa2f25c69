"""Fitting the learnt player's model (``simcli train fit``): scikit-learn at training time, numpy weights after.

The target of a row is its candidate's search value relative to its decision: the candidate's mean deal margin minus
the mean of its decision's candidates' means (all played in the same worlds, so the differences are the search's
own comparison), in points. A small multi-layer perceptron (scikit-learn's ``MLPRegressor``, ReLU, Adam; or
``hidden=0``: ridge regression, a linear baseline) learns it from the rows' features
(strategies/learnt/net_features.py), standardized by the training rows' means and deviations.

Several data folders can be fitted together (``simcli train fit FOLDER... MODEL``): for example a general
folder and one whose draws are built around a house rule the model plays badly (``simcli train data ... --catalogue
V --rule KNOB=VALUE``). They must be of one variant and feature version and, if drawn from catalogues, of catalogues
with the same rule features (the same knobs and values; the draw weights, base and shares may differ); each
folder's games keep their own split (the later folders' game numbers are shifted by a multiple of 10), each row's
rules are encoded by the first folder's catalogue (which the model records), and the model records every folder's
command and size.

Games are split by their index, never a decision across two sets: games ``i % 10 == 9`` are held out (the figures
reported), ``i % 10 == 8`` validate (the ``margin`` the player uses is chosen there), the rest train. Same data,
same seed: the same weights (``random_state`` is the seed; the epochs are run one by one with ``partial_fit`` so a
progress bar can follow them, which shuffles from the same seeded stream).

``--target absolute`` fits instead each candidate's own search value (its mean deal margin for the deciding seat's
team, in points), centred on the training rows' mean, which is added back into the output layer's bias: such a
model rates a position, not only the candidates of a decision against each other, and ``mc``'s ``leaf`` option
scores a rollout cut at its horizon with it. The model's metadata records the target (``"target"``; a model without
it is relative). The default stays relative: the shipped models' fit commands make the same models.

Held-out figures, per searched decision: how often the model's pick is the search's choice (and how often the
heuristic's choice, the first candidate, is: the baseline), the root mean square error of its relative values
against the search's (and of predicting 0), and the search's value of the model's pick over the heuristic's choice
(points a decision, by the held-out search values), beside the search's own pick's (which is biased upward: it was
chosen on those same values).
"""

from __future__ import annotations

import io
import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from simcli import __version__
from simcli.runs.storage import atomic_write_bytes
from simcli.training.data import DataError, read_data, summary

#: The one-line hint for ``simcli train fit`` without scikit-learn.
TRAIN_HINT = "simcli train fit needs the train extra: pip install -e '.[train]'"

#: The margins (points) tried on the validation games; the best is written into the model.
MARGINS = (0.0, 5.0, 10.0, 20.0, 40.0, 80.0)


class FitError(RuntimeError):
    """Training that cannot run: scikit-learn missing, too few games to hold any out."""


@dataclass(frozen=True)
class FitSettings:
    """The model's size and the optimizer's settings."""

    hidden: int = 64
    epochs: int = 20
    seed: int = 1
    alpha: float = 1e-4
    batch: int = 256
    #: A feature whose standard deviation over the training rows is below this is left unscaled (divided by 1): a
    #: feature that is almost constant there (a house rule met in a handful of rows) would otherwise be blown up
    #: thousands of times where it does vary, and the model's values with it (issue 48's first Hand and Foot model).
    min_scale: float = 1e-6
    #: The margin ``net`` plays the model with (points a candidate must be rated above the heuristic's choice);
    #: negative: the one of :data:`MARGINS` with the best gain on the validation games.
    margin: float = -1.0
    #: What the model learns: ``"relative"`` (a candidate's value over its decision's mean, the default) or
    #: ``"absolute"`` (its own value, the expected deal margin).
    target: str = "relative"
    #: Fits of the same rows to average (seeds ``seed``, ``seed + 1``, ...), folded into one network whose hidden
    #: layer is theirs side by side and whose output is their mean: the single fits' errors under a rare house
    #: rule are their own, and average out (issue 47: Ponytail's P2 combination).
    ensemble: int = 1
    #: With ``ensemble`` > 1: fit one network of ``hidden`` units to the ensemble's values on the training rows
    #: (distillation: the ensemble's steadier values, at one fit's play cost) and write it instead.
    distill: bool = False


#: The targets ``simcli train fit --target`` offers.
TARGETS = ("relative", "absolute")


def targets(frame: Any, target: str) -> np.ndarray:
    """The rows' targets (points): :func:`relative_targets`, or for ``"absolute"`` each row's own search value."""
    if target == "absolute":
        return np.asarray(frame["mean"], dtype=np.float64)
    if target != "relative":
        raise FitError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    return relative_targets(frame)


def relative_targets(frame: Any) -> np.ndarray:
    """Each row's mean minus the mean of its decision's means (points)."""
    means = frame.groupby("decision", sort=False)["mean"].transform("mean")
    return np.asarray(frame["mean"] - means, dtype=np.float64)


def _starts(decisions: np.ndarray) -> np.ndarray:
    """The first row of each decision (rows of a decision are consecutive)."""
    return np.flatnonzero(np.r_[True, decisions[1:] != decisions[:-1]])


def picks(values: np.ndarray, decisions: np.ndarray, margin: float) -> np.ndarray:
    """The row each decision picks: its best-valued row if it is more than ``margin`` above its first row's value,
    else its first row (the heuristic's choice)."""
    starts = _starts(decisions)
    out = starts.copy()
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(values)
        best = s + int(np.argmax(values[s:e]))
        if values[best] - values[s] > margin:
            out[k] = best
    return out


def figures(values: np.ndarray, target: np.ndarray, decisions: np.ndarray, chosen: np.ndarray,
            margin: float) -> dict[str, float]:
    """The held-out figures of values ``values`` against the search's relative values ``target`` (points)."""
    starts = _starts(decisions)
    pick = picks(values, decisions, margin)
    searched = np.flatnonzero(chosen)  # one chosen row per decision, in the decisions' order
    return {"decisions": int(len(starts)), "rows": int(len(values)),
            "top1_search": round(float(np.mean(pick == searched)), 4),
            "top1_heuristic_baseline": round(float(np.mean(starts == searched)), 4),
            "rmse": round(float(np.sqrt(np.mean((values - target) ** 2))), 2),
            "rmse_zero_baseline": round(float(np.sqrt(np.mean(target ** 2))), 2),
            "gain_over_heuristic": round(float(np.mean(target[pick] - target[starts])), 3),
            "search_gain_over_heuristic": round(float(np.mean(target[searched] - target[starts])), 3)}


def _regressor(settings: FitSettings) -> Any:
    try:
        from sklearn.linear_model import Ridge
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise FitError(TRAIN_HINT) from None
    if settings.hidden <= 0:
        return Ridge(alpha=1.0)
    return MLPRegressor(hidden_layer_sizes=(settings.hidden,), alpha=settings.alpha, batch_size=settings.batch,
                        learning_rate_init=1e-3, random_state=settings.seed, shuffle=True)


def train(x: np.ndarray, y: np.ndarray, settings: FitSettings,
          progress: Callable[[int], None] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Fit the model to standardized ``x`` and scaled ``y``; its layers as (weights, biases), float32. With
    ``settings.ensemble`` K > 1: K fits of seeds ``seed`` .. ``seed + K - 1`` folded by :func:`fold`."""
    if settings.ensemble > 1:
        return fold([train(x, y, replace(settings, seed=settings.seed + i, ensemble=1), progress)
                     for i in range(settings.ensemble)])
    model = _regressor(settings)
    if settings.hidden <= 0:
        model.fit(x, y)
        if progress is not None:
            progress(settings.epochs)
        return [(model.coef_.reshape(-1, 1).astype(np.float32), np.atleast_1d(model.intercept_).astype(np.float32))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # partial_fit's epochs never "converge": the count is the setting
        for _ in range(settings.epochs):
            model.partial_fit(x, y)
            if progress is not None:
                progress(1)
    return [(w.astype(np.float32), b.astype(np.float32)) for w, b in zip(model.coefs_, model.intercepts_, strict=True)]


def fold(fits: list[list[tuple[np.ndarray, np.ndarray]]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """One network whose output is the mean of ``fits``' outputs (each of one hidden layer, or linear): the hidden
    layers side by side, the output weights divided by their number, the output bias their mean. The player needs
    nothing new: it is a network of K times the hidden units."""
    k = len(fits)
    if k == 1:
        return fits[0]
    if any(len(layers) != len(fits[0]) or len(layers) > 2 for layers in fits):
        raise FitError("an ensemble folds fits of one hidden layer (or linear ones) only")
    if len(fits[0]) == 1:  # linear: the mean of the weights
        return [(np.mean([f[0][0] for f in fits], axis=0).astype(np.float32),
                 np.mean([f[0][1] for f in fits], axis=0).astype(np.float32))]
    hidden = (np.hstack([f[0][0] for f in fits]).astype(np.float32),
              np.concatenate([f[0][1] for f in fits]).astype(np.float32))
    out = ((np.vstack([f[1][0] for f in fits]) / k).astype(np.float32),
           np.mean([f[1][1] for f in fits], axis=0).astype(np.float32))
    return [hidden, out]


def forward(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The network's output for standardized rows ``x`` (ReLU between layers), as the player computes it."""
    h = x.astype(np.float64)
    for i, (w, b) in enumerate(layers):
        h = h @ w.astype(np.float64) + b.astype(np.float64)
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return h[:, 0]


def rule_features(meta: dict[str, Any], frame: Any, catalogue: Any = None) -> np.ndarray:
    """The rule features of every row (issue 47): each game's rule set (the folder's rules with the knobs its
    ``rules`` column names changed) encoded by ``catalogue`` (default: the folder's own;
    strategies/learnt/catalogue.py),
    one row a candidate; no columns for a folder without a catalogue."""
    from simcli.rules.presets import load_rules
    from simcli.strategies.learnt.catalogue import Catalogue

    if catalogue is None:
        if not isinstance(meta.get("catalogue"), dict):
            return np.zeros((len(frame), 0), dtype=np.float32)
        catalogue = Catalogue.from_dict(meta["catalogue"])
    base = dict(meta["spec"]["rules"])
    codes, uniques = pd_factorize(frame["rules"])
    encoded = np.array([catalogue.encode(load_rules(meta["variant"], {**base, **json.loads(u)})) for u in uniques],
                       dtype=np.float32).reshape(len(uniques), -1)
    out: np.ndarray = encoded[codes]
    return out


def pd_factorize(column: Any) -> tuple[np.ndarray, list[str]]:
    """A column's codes and distinct values (pandas' factorize)."""
    import pandas as pd

    codes, uniques = pd.factorize(column)
    return np.asarray(codes), [str(u) for u in uniques]


def read_folders(folders: Sequence[str | Path]) -> tuple[dict[str, Any], Any, np.ndarray, list[dict[str, Any]]]:
    """The rows of one or several data folders fitted together: the first folder's settings, the rows (a pandas
    frame with a ``rule_set`` column: each row's whole rule changes from the preset, as JSON), the feature matrix
    with the rule features appended (encoded by the first folder's catalogue), and each folder's part (its command,
    seed, ``--rule`` settings and size). A folder that cannot be fitted with the first is a one-line
    :class:`DataError` naming it and the difference."""
    import pandas as pd

    from simcli.strategies.learnt.catalogue import Catalogue

    if not folders:
        raise DataError("no data folder given")
    first: dict[str, Any] = {}
    catalogue: Any = None
    frames, xs, parts = [], [], []
    shift = width = 0
    for i, folder in enumerate(folders):
        meta, frame, x = read_data(folder)
        has_catalogue = isinstance(meta.get("catalogue"), dict)
        if i == 0:
            first, width = meta, x.shape[1]
            catalogue = Catalogue.from_dict(meta["catalogue"]) if has_catalogue else None
        else:
            differs = [f"{what} {meta[key]!r}, the first folder's {first[key]!r}"
                       for what, key in (("variant", "variant"), ("feature version", "feature_version"))
                       if meta[key] != first[key]]
            if x.shape[1] != width:
                differs.append(f"{x.shape[1]} feature columns, the first folder's {width}")
            if has_catalogue != (catalogue is not None):
                differs.append("drawn from a catalogue while the first folder is not" if has_catalogue
                               else "of one rule set while the first folder is drawn from a catalogue")
            elif catalogue is not None and not catalogue.same_features(Catalogue.from_dict(meta["catalogue"])):
                differs.append("its catalogue's knobs or values differ from the first folder's (other rule "
                               "features): draw it from the same catalogue")
            if differs:
                raise DataError(f"{folder}: cannot be fitted with {folders[0]}: " + "; ".join(differs))
        rules_x = rule_features(meta, frame, catalogue) if catalogue is not None else np.zeros((len(frame), 0))
        xs.append(np.hstack([x, rules_x.astype(np.float32)]) if rules_x.shape[1] else x)
        base = dict(meta["spec"]["rules"])
        whole = {u: json.dumps({**base, **json.loads(u)}, sort_keys=True) for u in frame["rules"].unique()}
        frame["rule_set"] = frame["rules"].map(whole)
        frame["game"] = np.asarray(frame["game"]) + shift  # a multiple of 10: each folder keeps its own split
        frame["decision"] = np.asarray(frame["decision"], dtype=np.int64) + np.int64(i) * 10**12
        shift += 10 * (-(-(int(frame["game"].max()) + 1 - shift) // 10))
        frames.append(frame)
        parts.append({"data_command": " ".join(meta["command"]), "data_seed": meta["spec"]["seed"],
                      "rules": meta["spec"]["rules"], "data": summary(folder)})
    return first, pd.concat(frames, ignore_index=True), np.concatenate(xs), parts


def fit(data: str | Path | Sequence[str | Path], out: str | Path, settings: FitSettings, *,
        command: list[str] | None = None, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Fit a model to the data folder ``data`` (or several, fitted together: :func:`read_folders`) and write it to
    ``out`` (``.npz``); return its metadata. A folder drawn from a catalogue gives a general model: the rule
    features are appended to the rows and the catalogue is recorded in the model's metadata."""
    folders = [data] if isinstance(data, (str, Path)) else list(data)
    meta, frame, x, parts = read_folders(folders)
    target = targets(frame, settings.target)
    games = np.asarray(frame["game"])
    held, valid = games % 10 == 9, games % 10 == 8
    fit_rows = ~(held | valid)
    if not held.any() or not valid.any() or not fit_rows.any():
        raise FitError(f"{', '.join(map(str, folders))}: too few games to hold any out (games i % 10 == 9 are held "
                       f"out, 8 validate): {len(np.unique(games))} games")
    x_mean = x[fit_rows].mean(axis=0)
    x_scale = x[fit_rows].std(axis=0)
    x_scale[x_scale < settings.min_scale] = 1.0
    y_scale = float(np.std(target[fit_rows])) or 1.0
    y_mean = float(np.mean(target[fit_rows])) if settings.target == "absolute" else 0.0
    xs = (x - x_mean) / x_scale
    layers = train(xs[fit_rows], (target[fit_rows] - y_mean) / y_scale, settings, progress)
    if settings.distill:  # one network taught by the ensemble's values instead of the search's
        if settings.ensemble < 2:
            raise FitError("distill fits one network to an ensemble's values: give --ensemble 2 or more")
        layers = train(xs[fit_rows], forward(layers, xs[fit_rows]), replace(settings, ensemble=1),
                       progress)
    if y_mean:  # the centring folded back into the output bias: the model's values are absolute
        w_out, b_out = layers[-1]
        layers[-1] = (w_out, (b_out.astype(np.float64) + y_mean / y_scale).astype(np.float32))
    values = forward(layers, xs) * y_scale
    decisions = np.asarray(frame["decision"])
    chosen = np.asarray(frame["chosen"], dtype=bool)

    def figures_of(rows: np.ndarray, margin: float) -> dict[str, float]:
        return figures(values[rows], target[rows], decisions[rows], chosen[rows], margin)

    margin = settings.margin if settings.margin >= 0 else max(
        MARGINS, key=lambda m: (figures_of(valid, m)["gain_over_heuristic"], -m))
    sizes = [part["data"] for part in parts]
    data_summary = sizes[0] if len(sizes) == 1 else {
        key: (round(sum(s[key] for s in sizes), 1) if key == "cpu_seconds" else sum(s[key] for s in sizes))
        for key in sizes[0]}
    model_meta = {
        "variant": meta["variant"], "rules": meta["rules"], "rules_digest": meta["rules_digest"],
        "feature_version": meta["feature_version"], "data_command": " ".join(meta["command"]),
        "fit_command": " ".join(command or []), "seed": settings.seed, "hidden": settings.hidden,
        "epochs": settings.epochs, "alpha": settings.alpha, "target": settings.target, "data": data_summary,
        "data_seed": meta["spec"]["seed"],
        "games": int(len(np.unique(games))), "rule_sets": int(frame["rule_set"].nunique()), "margin": margin,
        "held_out": figures_of(held, margin),
        "held_out_margin_0": figures_of(held, 0.0), "validation": figures_of(valid, margin),
        "simcli_version": __version__,
    }
    if settings.min_scale != FitSettings.min_scale:
        model_meta["min_scale"] = settings.min_scale
    if settings.ensemble > 1:  # K fits of `hidden` units each, seeds seed .. seed + K - 1, folded into one network
        model_meta["ensemble"] = settings.ensemble
    if settings.distill:  # ... and one network of `hidden` units fitted to their values (seed `seed`)
        model_meta["distilled"] = True
    if isinstance(meta.get("catalogue"), dict):
        model_meta["catalogue"] = meta["catalogue"]
    if len(parts) > 1:  # every folder's command and size (the first's are also the top-level ones)
        model_meta["data_parts"] = parts
    if settings.target == "absolute":  # the value error beside predicting the training rows' mean
        model_meta["held_out"]["rmse_mean_baseline"] = round(float(np.sqrt(np.mean((target[held] - y_mean) ** 2))), 2)
    save_model(out, layers, x_mean, x_scale, y_scale, model_meta)
    return model_meta


def save_model(out: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], x_mean: np.ndarray,
               x_scale: np.ndarray, y_scale: float, meta: dict[str, Any]) -> None:
    """Write a model file (the format of strategies/learnt/model.py: ``W0``, ``b0``, ..., the scaling and ``meta``)."""
    arrays: dict[str, Any] = {"x_mean": x_mean.astype(np.float32), "x_scale": x_scale.astype(np.float32),
                              "y_scale": np.float64(y_scale), "meta": np.array(json.dumps(meta))}
    for i, (w, b) in enumerate(layers):
        arrays[f"W{i}"], arrays[f"b{i}"] = w.astype(np.float32), b.astype(np.float32)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buf.getvalue())


def evaluate(model: str | Path, data: str | Path, *, margin: float | None = None,
             games: str = "held") -> dict[str, float]:
    """The figures of a model file on a data folder's held-out games (``games="held"``: ``i % 10 == 9``; ``"all"``:
    every game), against that folder's search values: a model taught by one search measured on another's values.
    ``margin``: the model's own unless given."""
    from simcli.strategies.learnt.model import load_model

    loaded = load_model(model)
    meta, frame, x = read_data(data)
    if loaded.catalogue is not None:
        x = np.hstack([x, rule_features(meta, frame, loaded.catalogue)])
    target = targets(frame, str(loaded.meta.get("target", "relative")))
    rows = np.asarray(frame["game"]) % 10 == 9 if games == "held" else np.ones(len(frame), dtype=bool)
    values = loaded.values(x[rows].astype(np.float64))
    chosen = np.asarray(frame["chosen"], dtype=bool)[rows]
    return figures(values, target[rows], np.asarray(frame["decision"])[rows], chosen,
                   loaded.margin if margin is None else margin)

