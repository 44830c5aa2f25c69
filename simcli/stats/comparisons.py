"""Comparisons of runs: two runs metric by metric (``compare``), a table of runs against the first
(``sweep``), and the seat-balance table (``balance``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from simcli.stats.confidence import CONFIDENCE
from simcli.stats.differences import (
    bootstrap_mean_diff,
    paired_binary,
    paired_mean_diff,
    unpaired_binary,
    welch_mean_diff,
)
from simcli.stats.estimators import StatsError, holm
from simcli.stats.metrics import Metric, metric
from simcli.stats.summaries import per_unit, summarize
from simcli.stats.tables import RunLike, integer_counts, is_rotated

__all__ = [
    "PAIRING_FIELDS", "pairing_differences", "DEFAULT_COMPARE", "COMPARE_COLUMNS", "compare_runs", "SUMMARY_COLUMNS",
    "summary_table", "DIFF_COLUMNS", "baseline_differences", "with_differences", "BALANCE_METRICS", "balance_table",
    "split_values"
]


PAIRING_FIELDS = ("seed", "games", "rotate_seats")


def pairing_differences(manifest_a: dict[str, Any], manifest_b: dict[str, Any]) -> list[str]:
    """What keeps two runs from being paired game by game: master seed, N or rotation structure."""
    names = {"seed": "master seed", "games": "N (games)", "rotate_seats": "rotate_seats"}
    return [f"{names[f]} ({manifest_a.get(f)!r} vs {manifest_b.get(f)!r})" for f in PAIRING_FIELDS
            if manifest_a.get(f) != manifest_b.get(f)]


DEFAULT_COMPARE = ("win_team_0", "margin", "deals", "deal_score")


COMPARE_COLUMNS = ["metric", "label", "unit", "test", "n", "a", "b", "diff", "ci_low", "ci_high", "p", "p_holm"]

#: Fields of an estimator's result that name its first or second sample: swapped back after the estimators are
#: called as (B, A), so that ``a`` stays run A's value, ``a_only`` A's discordant pairs and ``n_a`` A's count.
_SIDES = {"a": "b", "b": "a", "a_only": "b_only", "b_only": "a_only", "n_a": "n_b", "n_b": "n_a"}


def _b_minus_a(res: dict[str, Any]) -> dict[str, Any]:
    """An estimator's result for (B, A) (its ``diff`` is B - A) with the sample fields named after A and B."""
    return {k: res[_SIDES.get(k, k)] for k in res}


def compare_runs(run_a: RunLike, run_b: RunLike, metrics: Sequence[Metric] | None = None, paired: bool = True,
                 bootstrap: int = 0, seed: int = 0, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Compare two runs metric by metric: the difference ``diff`` is B - A (the second run minus the first, as a
    sweep's value minus its baseline), with its interval and Holm-adjusted p-values over the metrics compared.

    Paired (default): the runs must share master seed, N and rotation structure; games are joined on
    (game_index, rotation), or in rotated runs on the unit ``game_index`` (the mean of a game and its twin,
    :func:`per_unit`). A game-level 0/1 rate of runs without rotation uses McNemar's exact test and its exact
    conditional interval (:func:`~simcli.stats.differences.mcnemar_exact_interval`); every other metric compares
    per-unit values (per-game means for deal metrics) with a paired t-interval, or a paired bootstrap with
    ``bootstrap`` resamples. Unpaired: Fisher's exact test for
    game-level 0/1 rates without rotation, else Welch's t-test on the per-unit values.
    """
    metrics = list(metrics) if metrics else [metric(m) for m in DEFAULT_COMPARE]
    if paired:
        diffs = pairing_differences(run_a.manifest, run_b.manifest)
        if diffs:
            raise StatsError("runs cannot be paired, they differ in " + ", ".join(diffs)
                             + "; use --unpaired for two-sample tests")
    twins = is_rotated(run_a.games) or is_rotated(run_b.games)
    rows = []
    for m in metrics:
        xa, xb = per_unit(run_a, m), per_unit(run_b, m)
        binary = m.kind == "rate" and m.level == "game" and m.binary and not twins
        # The estimators report their first sample minus their second: called as (B, A) for B - A.
        if paired:
            joined = pd.concat([xa.rename("a"), xb.rename("b")], axis=1, join="inner").dropna()
            if binary:
                res = paired_binary(joined["b"], joined["a"], confidence)
            elif bootstrap:
                res = bootstrap_mean_diff(joined["b"], joined["a"], bootstrap, seed, confidence)
            else:
                res = paired_mean_diff(joined["b"], joined["a"], confidence)
        else:
            xa, xb = xa.dropna(), xb.dropna()
            res = unpaired_binary(xb, xa, confidence) if binary else welch_mean_diff(xb, xa, confidence)
        rows.append({"metric": m.name, "label": m.label, "unit": m.unit, **_b_minus_a(res)})
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].tolist())
    cols = COMPARE_COLUMNS + [c for c in out.columns if c not in COMPARE_COLUMNS]
    return integer_counts(out[cols])


SUMMARY_COLUMNS = ["metric", "label", "unit", "n", "n_units", "k", "value", "ci_low", "ci_high", "method",
                   "expected"]


def summary_table(runs: Sequence[tuple[str, RunLike]], metrics: Sequence[Metric], key: str = "run",
                  confidence: float = CONFIDENCE) -> pd.DataFrame:
    """One row per (run, metric): the metric's value and interval in each labelled run."""
    rows = []
    for label, run in runs:
        for m in metrics:
            s = summarize(run, m, confidence)
            rows.append({key: label, **{c: s.get(c) for c in SUMMARY_COLUMNS}})
    return integer_counts(pd.DataFrame(rows, columns=[key, *SUMMARY_COLUMNS]))


DIFF_COLUMNS = ["baseline", "metric", "test", "n", "diff", "diff_ci_low", "diff_ci_high", "p", "p_holm"]


def baseline_differences(runs: Sequence[tuple[str, RunLike]], metrics: Sequence[Metric], key: str = "run",
                         bootstrap: int = 0, seed: int = 0, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Each run against the first (the baseline), paired game by game, for every metric.

    One row per (later run, metric) with the paired difference ``run - baseline`` and its interval and test as
    :func:`compare_runs` gives them (exact McNemar and its interval for 0/1 game rates without rotation, else a
    paired t on per-unit values), and ``p_holm``: Holm's adjustment over every value and metric of the table.
    """
    if len(runs) < 2:
        return pd.DataFrame(columns=[key, *DIFF_COLUMNS])
    base_label, base = runs[0]
    parts = []
    for label, run in runs[1:]:
        cmp = compare_runs(base, run, metrics, paired=True, bootstrap=bootstrap, seed=seed, confidence=confidence)
        parts.append(cmp.assign(**{key: label, "baseline": base_label}))
    out = pd.concat(parts, ignore_index=True).rename(columns={"ci_low": "diff_ci_low", "ci_high": "diff_ci_high"})
    out["p_holm"] = holm(out["p"].tolist())
    return integer_counts(out[[key, *DIFF_COLUMNS]])


def with_differences(table: pd.DataFrame, diffs: pd.DataFrame, key: str) -> pd.DataFrame:
    """A :func:`summary_table` with the baseline differences joined on (``key``, metric) (null on the baseline)."""
    extra = diffs.rename(columns={"test": "diff_test", "n": "n_pairs"})
    extra[key] = extra[key].astype(str)
    merged = table.assign(**{key: table[key].astype(str)}).merge(extra, on=[key, "metric"], how="left")
    return integer_counts(merged)


BALANCE_METRICS = ("first_player_win", "dealer_win", "win_team_0", "margin", "deals", "stock_out", "went_out")


def balance_table(runs: Sequence[tuple[str, RunLike]], confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Seat-balance figures per variant: first-player and dealer team win rates (deal 0), team 0 win rate,
    mean margin (always >= 0: winner minus runner-up), deals per game, stock-out and going-out shares of deals."""
    return summary_table(runs, [metric(m) for m in BALANCE_METRICS], key="variant", confidence=confidence)


def split_values(text: str) -> list[str]:
    """Sweep values from ``v1,v2,v3`` (or ``v1;v2`` when values themselves contain commas)."""
    sep = ";" if ";" in text else ","
    return [v.strip() for v in text.split(sep) if v.strip()]
