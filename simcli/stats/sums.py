"""Estimators from per-unit sums: the cluster-robust mean and share of :mod:`simcli.stats.estimators` computed from
what each unit adds up to, and the sd and quantiles computed from how often each value occurs.

A mean over deals with game-clustered errors needs, per game, the sum and the count of its observations, and the
spread of the values needs only their value counts (a few hundred distinct scores, turns or counts however many
deals a run has). So a run of millions of deals is summarised from a few numbers per game: :mod:`simcli.stats.streams`
reduces the deals table to these while reading it. The results equal :func:`~simcli.stats.estimators.describe`,
:func:`~simcli.stats.estimators.mean_interval` and :func:`~simcli.stats.estimators.cluster_rate` on the observations
themselves (to rounding: a sum of integers is exact, a sum of squares is added up in another order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

from simcli.stats.confidence import CONFIDENCE
from simcli.stats.estimators import QUANTILES, Mean, Rate, StatsError, cluster_share, rate

__all__ = ["ValueCounts", "ValueCounter", "value_counts", "cluster_sums", "mean_of_sums", "describe_sums",
           "rate_of_sums"]


@dataclass(frozen=True)
class ValueCounts:
    """A multiset of numbers: its distinct ``values`` (sorted) and how often each occurs (``counts``)."""

    values: np.ndarray
    counts: np.ndarray

    @property
    def n(self) -> int:
        """How many numbers."""
        return int(self.counts.sum())

    @property
    def binary(self) -> bool:
        """Whether every number is 0 or 1."""
        return bool(np.all((self.values == 0) | (self.values == 1)))

    def merge(self, *others: ValueCounts) -> ValueCounts:
        """This multiset and ``others`` together."""
        values = np.concatenate([self.values, *(o.values for o in others)])
        counts = np.concatenate([self.counts, *(o.counts for o in others)])
        uniq, where = np.unique(values, return_inverse=True)
        return ValueCounts(uniq, np.bincount(where, weights=counts, minlength=len(uniq)).astype(np.int64))

    def sd(self, mean: float) -> float:
        """The sample standard deviation (n - 1) around ``mean``; NaN for fewer than two numbers."""
        n = self.n
        if n < 2:
            return math.nan
        return math.sqrt(float(np.dot(self.counts, (self.values - mean) ** 2)) / (n - 1))

    def order_statistic(self, i: int) -> float:
        """The ``i``-th smallest number (from 0)."""
        return float(self.values[int(np.searchsorted(np.cumsum(self.counts), i, side="right"))])

    def quantile(self, q: float) -> float:
        """The ``q`` quantile with linear interpolation, computed as pandas' ``Series.quantile`` computes it (numpy's
        percentile at ``100 q``: the same virtual index, neighbours and interpolation)."""
        n = self.n
        fraction = np.true_divide(np.asarray(q * 100.0), 100)
        virtual = (n - 1) * fraction
        if virtual >= n - 1:
            return self.order_statistic(n - 1)
        if virtual < 0:
            return self.order_statistic(0)
        low = np.floor(virtual)
        a, b = np.float64(self.order_statistic(int(low))), np.float64(self.order_statistic(int(low) + 1))
        gamma = virtual - low
        diff = b - a
        return float(b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma)

    def quantiles(self, qs: dict[str, float] | None = None) -> dict[str, float]:
        """As :func:`~simcli.stats.estimators.quantiles`: named quantiles plus ``min`` and ``max``, NaN when empty."""
        qs = QUANTILES if qs is None else qs
        if self.n == 0:
            return {"min": math.nan, **{k: math.nan for k in qs}, "max": math.nan}
        return {"min": float(self.values[0]), **{k: self.quantile(q) for k, q in qs.items()},
                "max": float(self.values[-1])}


class ValueCounter:
    """Value counts of a quantity per group, gathered batch by batch (integers in a modest range by one bincount
    over group and value, anything else by np.unique)."""

    def __init__(self, groups: int) -> None:
        self.groups = groups
        self.parts: list[list[ValueCounts]] = [[] for _ in range(groups)]

    def add(self, y: np.ndarray, code: np.ndarray) -> None:
        """Count the values ``y``, each in its group ``code`` (0 to groups - 1)."""
        if not len(y):
            return
        low, high = float(y.min()), float(y.max())
        as_int = y.astype(np.int64)
        if high - low < 1 << 16 and np.array_equal(as_int, y):
            span = int(high - low) + 1
            counts = np.bincount(code * span + (as_int - int(low)), minlength=self.groups * span)
            for g, row in enumerate(counts.reshape(self.groups, span)):
                nz = np.flatnonzero(row)
                if len(nz):
                    self.parts[g].append(ValueCounts(nz.astype(float) + low, row[nz].astype(np.int64)))
        else:
            for g in range(self.groups):
                uniq, counts = np.unique(y[code == g], return_counts=True)
                if len(uniq):
                    self.parts[g].append(ValueCounts(uniq, counts.astype(np.int64)))
        for g, parts in enumerate(self.parts):
            if len(parts) > 64:
                self.parts[g] = [self.total(g)]

    def total(self, g: int) -> ValueCounts:
        """The value counts of group ``g`` so far."""
        parts = self.parts[g]
        if not parts:
            return ValueCounts(np.zeros(0), np.zeros(0, dtype=np.int64))
        return parts[0].merge(*parts[1:]) if len(parts) > 1 else parts[0]


def value_counts(values: Any) -> ValueCounts:
    """The value counts of ``values`` (missing values dropped)."""
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    uniq, counts = np.unique(arr, return_counts=True)
    return ValueCounts(uniq, counts.astype(np.int64))


def cluster_sums(sums: np.ndarray, counts: np.ndarray, clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit sums and counts added up per cluster (``clusters``: each unit's cluster id), over the units with an
    observation: the clusters' sums and counts, in the order of their ids."""
    seen = counts > 0
    ids = np.asarray(clusters)[seen]
    if len(ids) and bool(np.all(ids[1:] >= ids[:-1])):  # units in order (as every source gives them): no sort
        starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
        return (np.add.reduceat(np.asarray(sums, dtype=float)[seen], starts),
                np.add.reduceat(np.asarray(counts, dtype=float)[seen], starts))
    codes, uniques = pd.factorize(ids, sort=True)
    return (np.bincount(codes, weights=sums[seen], minlength=len(uniques)),
            np.bincount(codes, weights=counts[seen], minlength=len(uniques)))


def mean_of_sums(sums: np.ndarray, counts: np.ndarray, clusters: np.ndarray | None, values: ValueCounts,
                 confidence: float = CONFIDENCE) -> Mean:
    """:func:`~simcli.stats.estimators.mean_interval` of the observations behind per-unit ``sums`` and ``counts``
    whose values are ``values``: cluster-robust (G - 1 df) with ``clusters`` (each unit's cluster), else the
    t-interval with one observation a unit."""
    n = int(counts.sum())
    if n == 0:
        return Mean(0, math.nan, math.nan, math.nan, math.nan)
    m = float(np.sum(sums)) / n
    sd = values.sd(m)
    if clusters is None:
        if n < 2:
            return Mean(n, m, sd, math.nan, math.nan)
        se, df, method, n_clusters = sd / math.sqrt(n), n - 1, "t", None
    else:
        s, c = cluster_sums(sums, counts, clusters)
        n_clusters = len(s)
        if n_clusters < 2:
            return Mean(n, m, sd, math.nan, math.nan, "t-cluster", n_clusters)
        resid = s - c * m
        var = n_clusters / (n_clusters - 1) * float((resid ** 2).sum()) / n ** 2
        se, df, method = math.sqrt(var), n_clusters - 1, "t-cluster"
    half = float(st.t.ppf(0.5 + confidence / 2, df)) * se
    return Mean(n, m, sd, m - half, m + half, method, n_clusters)


def describe_sums(sums: np.ndarray, counts: np.ndarray, clusters: np.ndarray | None, values: ValueCounts,
                  confidence: float = CONFIDENCE) -> dict[str, Any]:
    """:func:`~simcli.stats.estimators.describe` from per-unit sums: the mean with its interval, sd and quantiles."""
    return {**mean_of_sums(sums, counts, clusters, values, confidence).as_dict(), **values.quantiles()}


def rate_of_sums(sums: np.ndarray, counts: np.ndarray, clusters: np.ndarray | None, values: ValueCounts,
                 method: str = "wilson", confidence: float = CONFIDENCE) -> Rate:
    """The share behind per-unit ``sums`` of 0/1 outcomes (or scores in [0, 1]) and ``counts``: as
    :func:`~simcli.stats.estimators.rate` of the count without ``clusters`` (0/1 outcomes), else as
    :func:`~simcli.stats.estimators.cluster_rate` with each unit's cluster."""
    if method not in ("wilson", "exact"):
        raise StatsError(f"unknown interval method '{method}'; allowed: wilson, exact")
    if values.n and (values.values[0] < 0 or values.values[-1] > 1):
        raise StatsError("a share needs values between 0 and 1")
    n = int(counts.sum())
    binary = values.binary
    total = float(np.sum(sums))
    k = int(total) if binary else None
    if clusters is None and binary:
        return rate(int(total), n, method, confidence)
    name = "wilson-cluster" if method == "wilson" else "clopper-pearson-cluster"
    if clusters is None:  # every observation its own unit
        if n < 2:
            return Rate(n, k, total / n if n else math.nan, math.nan, math.nan, name, n)
        p = total / n
        var = n / (n - 1) * float(np.dot(values.counts, (values.values - p) ** 2)) / n ** 2
        return cluster_share(p, n, k, n, var, method, confidence)
    s, c = cluster_sums(sums, counts, clusters)
    units = len(s)
    if n == 0 or units < 2:
        return Rate(n, k, total / n if n else math.nan, math.nan, math.nan, name, units)
    p = total / n
    resid = s - c * p
    var = units / (units - 1) * float((resid ** 2).sum()) / n ** 2
    return cluster_share(p, n, k, units, var, method, confidence)
