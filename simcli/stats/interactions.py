"""Effects of a rule by skill level: a sweep played at several levels (strategy settings), each value's paired
effect against the baseline value at every level, and the **interaction**, how much a value's effect at a level
differs from its effect at the first (reference) level.

The unit of randomisation is the game index: game ``i`` is dealt from the same streams at every level and value,
so for a value ``v`` the per-unit effect ``d_i(L) = metric(v, L, i) - metric(base, L, i)`` and the interaction
``d_i(Lk) - d_i(L1)`` are both differences of outcomes on the same deals. The interaction's mean over the units
is therefore a paired (one-sample) t statistic over independent units, whatever the correlation between levels;
this holds for 0/1 metrics too (``d_i`` is -1, 0 or 1, the interaction -2 ... 2; the t-interval of its mean is
the normal approximation, fine from a few dozen units). Runs that are not paired across levels (another master
seed, N or rotation structure) fall back to Welch's test on the two levels' per-unit effects.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.comparisons import baseline_differences, pairing_differences
from simcli.stats.confidence import CONFIDENCE, normal_quantile
from simcli.stats.differences import paired_mean_diff, welch_mean_diff
from simcli.stats.estimators import StatsError, holm
from simcli.stats.metrics import Metric
from simcli.stats.summaries import per_unit
from simcli.stats.tables import RunLike, integer_counts

__all__ = ["INTERACTION_COLUMNS", "unit_effects", "interaction_test", "level_effects",
           "effect_interactions", "effect_spreads", "units_needed"]

#: A level of a levels sweep: its label and its runs ``(value, run)``, the baseline value first.
Level = tuple[str, Sequence[tuple[str, RunLike]]]

INTERACTION_COLUMNS = ["level", "base_level", "baseline", "metric", "test", "n", "effect", "base_effect",
                       "interaction", "ci_low", "ci_high", "p", "p_holm"]


def unit_effects(run: RunLike, base: RunLike, m: Metric) -> pd.Series:
    """The per-unit effect ``metric(run, i) - metric(base, i)`` on the units both runs have (a game, or a game
    and its twin in a rotated run), indexed as :func:`per_unit`; units missing in either run drop out."""
    joined = pd.concat([per_unit(run, m).rename("a"), per_unit(base, m).rename("b")], axis=1, join="inner").dropna()
    return (joined["a"] - joined["b"]).rename("effect")


def interaction_test(d_level: pd.Series, d_ref: pd.Series, paired: bool = True,
                     confidence: float = CONFIDENCE) -> dict[str, Any]:
    """The difference of two levels' mean effects, ``mean(d_level) - mean(d_ref)``, with interval and p.

    Paired (the same game indices at both levels): a paired t on the units both levels have, i.e. the one-sample
    t of ``d_i(level) - d_i(ref)``. Unpaired: Welch's t on the two samples of per-unit effects. ``n`` is the
    units (paired) or the two counts added (unpaired, with ``n_a``, ``n_b``).
    """
    if paired:
        joined = pd.concat([d_level.rename("a"), d_ref.rename("b")], axis=1, join="inner").dropna()
        res = paired_mean_diff(joined["a"], joined["b"], confidence)
    else:
        res = welch_mean_diff(d_level.dropna(), d_ref.dropna(), confidence)
    return {**res, "effect": res.pop("a"), "base_effect": res.pop("b"), "interaction": res.pop("diff")}


def _check_levels(levels: Sequence[Level]) -> list[str]:
    """The value labels every level shares (in order); raises when the levels' values differ or are too few."""
    if len(levels) < 2:
        raise StatsError(f"an interaction needs at least two levels, got {len(levels)}")
    values = [v for v, _ in levels[0][1]]
    if len(values) < 2:
        raise StatsError(f"level {levels[0][0]}: an effect needs at least two values, got {len(values)}")
    for label, runs in levels[1:]:
        if [v for v, _ in runs] != values:
            raise StatsError(f"level {label} has values {', '.join(v for v, _ in runs)} but level {levels[0][0]} "
                             f"has {', '.join(values)}: the levels must sweep the same values in the same order")
    return values


def level_effects(levels: Sequence[Level], metrics: Sequence[Metric], key: str = "value", bootstrap: int = 0,
                  seed: int = 0, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Per level, every later value's paired effect against the baseline value (:func:`baseline_differences`),
    with a ``level`` column and ``p_holm`` adjusted over every level, value and metric of the table."""
    _check_levels(levels)
    parts = [baseline_differences(runs, metrics, key, bootstrap, seed, confidence).assign(level=label)
             for label, runs in levels]
    out = pd.concat(parts, ignore_index=True)
    out["p_holm"] = holm(out["p"].tolist())
    return integer_counts(out[["level", *[c for c in out.columns if c != "level"]]])


def _paired_levels(a: RunLike, b: RunLike) -> bool:
    return not pairing_differences(a.manifest, b.manifest)


def effect_interactions(levels: Sequence[Level], metrics: Sequence[Metric], key: str = "value",
                        paired: bool | None = None, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """For every later level, value and metric: the interaction ``effect(level) - effect(first level)``.

    A value's effect at a level is its paired difference from the level's baseline run; the interaction is
    :func:`interaction_test` of the per-unit effects, paired on the game index when the two levels' baseline runs
    share master seed, N and rotation (as a levels sweep's runs do), else Welch; ``paired`` True or False forces
    one (True on runs that cannot be paired raises :class:`StatsError`). ``p_holm``: Holm over the table.
    """
    values = _check_levels(levels)
    ref_label, ref_runs = levels[0]
    ref = dict(ref_runs)
    rows = []
    for label, runs in levels[1:]:
        here = dict(runs)
        why = pairing_differences(here[values[0]].manifest, ref[values[0]].manifest)
        if paired and why:
            raise StatsError(f"levels {label} and {ref_label} cannot be paired, their runs differ in "
                             f"{', '.join(why)}")
        pair = not why if paired is None else paired
        for v in values[1:]:
            for m in metrics:
                res = interaction_test(unit_effects(here[v], here[values[0]], m),
                                       unit_effects(ref[v], ref[values[0]], m), pair, confidence)
                if not pair:
                    res["test"] = "welch-t"
                rows.append({"level": label, "base_level": ref_label, key: v, "baseline": values[0],
                             "metric": m.name, **res})
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].tolist())
    cols = ["level", "base_level", key, *INTERACTION_COLUMNS[2:]]
    return integer_counts(out[cols + [c for c in out.columns if c not in cols]])


def effect_spreads(levels: Sequence[Level], metrics: Sequence[Metric], key: str = "value") -> pd.DataFrame:
    """The spread behind every effect and interaction, for planning: one row per (kind, level, value, metric)
    with ``n`` (units), ``mean`` and ``sd`` (n-1) of the per-unit effect (``kind`` = ``effect``) or of the
    per-unit interaction ``d_i(level) - d_i(first level)`` (``kind`` = ``interaction``, paired units only)."""
    values = _check_levels(levels)
    ref = dict(levels[0][1])
    rows: list[dict[str, Any]] = []
    for label, runs in levels:
        here = dict(runs)
        for v in values[1:]:
            for m in metrics:
                d = unit_effects(here[v], here[values[0]], m)
                rows.append({"kind": "effect", "level": label, key: v, "metric": m.name, "n": len(d),
                             "mean": float(d.mean()) if len(d) else math.nan,
                             "sd": float(d.std(ddof=1)) if len(d) > 1 else math.nan})
                if label == levels[0][0]:
                    continue
                if not _paired_levels(here[values[0]], ref[values[0]]):
                    raise StatsError(f"level {label} is not paired with level {levels[0][0]} (other seed, N or "
                                     f"rotation): plan the interaction from a levels sweep played on one seed")
                d1 = unit_effects(ref[v], ref[values[0]], m)
                j = pd.concat([d.rename("a"), d1.rename("b")], axis=1, join="inner").dropna()
                x = (j["a"] - j["b"]).to_numpy(float)
                rows.append({"kind": "interaction", "level": label, key: v, "metric": m.name, "n": len(x),
                             "mean": float(x.mean()) if len(x) else math.nan,
                             "sd": float(np.std(x, ddof=1)) if len(x) > 1 else math.nan})
    return integer_counts(pd.DataFrame(rows))


def units_needed(sd: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units (game indices) for a two-sided paired test at level ``alpha`` to detect a mean per-unit difference
    ``effect`` with ``power``, given the sd of the per-unit differences: ``((z_{1-alpha/2} + z_power) sd /
    effect)^2`` rounded up (normal approximation), at least 2."""
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise StatsError(f"alpha and power must lie strictly between 0 and 1, got alpha {alpha}, power {power}")
    if effect == 0 or not math.isfinite(effect):
        raise StatsError(f"the effect to detect must be a nonzero number, got {effect}")
    if not math.isfinite(sd):
        raise StatsError("the pilot has too few units to estimate the spread (need at least 2)")
    z = normal_quantile(1 - alpha / 2) + normal_quantile(power)
    return max(2, math.ceil((z * sd / abs(effect)) ** 2))
