"""Interval estimators over plain values: rates (Wilson, Clopper-Pearson, cluster-robust), means with t-intervals,
quantiles and Holm's adjustment; and the cut model's exact-cut probability.

Nothing here knows the run tables: values and cluster ids come in as sequences. The confidence level defaults to
:data:`simcli.stats.confidence.CONFIDENCE`, the one level every statistic of simcli uses.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

from simcli.stats.confidence import CONFIDENCE, two_sided_z

__all__ = [
    "QUANTILES", "StatsError", "wilson_interval", "clopper_pearson", "Rate", "rate", "rate_of", "cluster_rate",
    "cluster_share", "Mean",
    "mean_interval", "quantiles", "describe", "holm", "cut_exact_probability"
]


QUANTILES = {"q05": 0.05, "q25": 0.25, "median": 0.5, "q75": 0.75, "q95": 0.95}


class StatsError(ValueError):
    """Bad input to a statistic: unknown metric, runs that cannot be paired, missing columns."""


def _floats(values: Iterable[Any]) -> pd.Series:
    """Values as a float Series with a fresh 0..n-1 index (positions, not labels, align with clusters)."""
    arr = values.to_numpy() if isinstance(values, pd.Series) else values
    return pd.Series(np.asarray(arr if isinstance(arr, np.ndarray) else list(arr), dtype=float))


def wilson_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``k/n`` (``(nan, nan)`` when ``n == 0``)."""
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 <= k <= n:
        raise StatsError(f"k={k} is not between 0 and n={n}")
    z = two_sided_z(confidence)
    p = k / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, center - half)
    high = 1.0 if k == n else min(1.0, center + half)
    return (low, high)


def clopper_pearson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for ``k/n`` via ``scipy.stats.binomtest`` (``(nan, nan)`` if ``n == 0``)."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = st.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="exact")
    return (float(ci.low), float(ci.high))


@dataclass(frozen=True)
class Rate:
    """A proportion ``k/n`` with its interval."""

    n: int
    k: int | None
    rate: float
    ci_low: float
    ci_high: float
    method: str = "wilson"
    n_units: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (``rate`` also as ``value``; ``n_units`` defaults to ``n``)."""
        d = asdict(self)
        d["value"] = self.rate
        if d["n_units"] is None:
            d["n_units"] = self.n
        return d


def rate(k: int, n: int, method: str = "wilson", confidence: float = CONFIDENCE) -> Rate:
    """``k/n`` with a Wilson (``method='wilson'``) or Clopper-Pearson (``'exact'``) interval."""
    k, n = int(k), int(n)
    if method == "wilson":
        low, high = wilson_interval(k, n, confidence)
    elif method == "exact":
        low, high = clopper_pearson(k, n, confidence)
    else:
        raise StatsError(f"unknown interval method '{method}'; allowed: wilson, exact")
    return Rate(n=n, k=k, rate=k / n if n else math.nan, ci_low=low, ci_high=high,
                method="wilson" if method == "wilson" else "clopper-pearson")


def rate_of(flags: Iterable[Any], method: str = "wilson", confidence: float = CONFIDENCE,
            clusters: Iterable[Any] | None = None) -> Rate:
    """The share of true values among ``flags`` (missing values dropped) with its interval.

    With ``clusters`` (one unit id per flag, e.g. the ``game_index`` of a rotated run) the interval is
    :func:`cluster_rate`'s: correlated observations of one unit count as less than independent trials.
    """
    if clusters is not None:
        s = pd.Series(list(flags) if not isinstance(flags, pd.Series) else flags.to_numpy())
        keep = s.notna().to_numpy()
        return cluster_rate(s[keep].astype(bool).astype(float), np.asarray(_ids(clusters))[keep], method,
                            confidence)
    s = pd.Series(list(flags) if not isinstance(flags, pd.Series) else flags).dropna()
    return rate(int(s.astype(bool).sum()), len(s), method, confidence)


def _ids(clusters: Iterable[Any]) -> np.ndarray:
    """Cluster ids as a numpy array (positions, not index labels)."""
    if isinstance(clusters, np.ndarray):
        return clusters
    return np.asarray(clusters.to_numpy() if isinstance(clusters, pd.Series | pd.Index) else list(clusters))


def _wilson(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p`` observed on a (possibly fractional, effective) ``n``."""
    z = two_sided_z(confidence)
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def _clopper_pearson_float(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Clopper-Pearson bounds (beta quantiles) for ``k = p n`` successes in an effective ``n`` trials."""
    alpha, k = 1 - confidence, p * n
    low = 0.0 if k <= 0 else float(st.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k >= n else float(st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return (low, high)


def cluster_rate(values: Iterable[float], clusters: Iterable[Any] | None = None, method: str = "wilson",
                 confidence: float = CONFIDENCE) -> Rate:
    """A share with an interval that respects units: clustered 0/1 outcomes, or scores in [0, 1] (half points).

    ``values`` are 0/1 outcomes or scores between 0 and 1 (a tie as 0.5; a pair of twins as their mean);
    ``clusters`` gives each value's unit (``None``: every value is its own unit). The variance of the share
    is the cluster-robust one of :func:`mean_interval`, ``G/(G-1) * sum_g(sum_{i in g}(y_i - p))^2 / n^2``
    over the ``G`` units, and the interval is Wilson's (``method='exact'``: Clopper-Pearson's) on the
    design-effect sample size ``n_eff = p (1 - p) / var``, the number of independent trials that would give
    that variance (Kish). A share of 0 or 1 uses ``n_eff = G``; a share that is the same in every unit (zero
    variance, 0 < p < 1) gives the interval ``[p, p]``. ``k`` is the count for 0/1 outcomes, else ``None``;
    ``n_units`` is ``G``. 0/1 outcomes without clusters give exactly :func:`rate`.
    """
    if method not in ("wilson", "exact"):
        raise StatsError(f"unknown interval method '{method}'; allowed: wilson, exact")
    y = _floats(values).to_numpy()
    g = None if clusters is None else _ids(clusters)
    if g is not None and len(g) != len(y):
        raise StatsError(f"{len(y)} values but {len(g)} cluster ids")
    keep = ~np.isnan(y)
    y = y[keep]
    if ((y < 0) | (y > 1)).any():
        raise StatsError("a share needs values between 0 and 1")
    n = len(y)
    binary = bool(np.all((y == 0) | (y == 1)))
    k = int(y.sum()) if binary else None
    if g is None and binary:
        return rate(int(y.sum()), n, method, confidence)
    codes, uniques = pd.factorize(g[keep]) if g is not None else (np.arange(n), np.arange(n))
    units = len(uniques)
    name = "wilson-cluster" if method == "wilson" else "clopper-pearson-cluster"
    if n == 0 or units < 2:
        return Rate(n, k, float(y.mean()) if n else math.nan, math.nan, math.nan, name, units)
    p = float(y.mean())
    resid = np.bincount(codes, weights=y - p, minlength=units)
    var = units / (units - 1) * float((resid ** 2).sum()) / n ** 2
    return cluster_share(p, n, k, units, var, method, confidence)


def cluster_share(p: float, n: int, k: int | None, units: int, var: float, method: str = "wilson",
                  confidence: float = CONFIDENCE) -> Rate:
    """The :func:`cluster_rate` of a share ``p`` of ``n`` observations in ``units`` units whose cluster-robust
    variance is ``var``: Wilson's (or Clopper-Pearson's) interval on the design-effect sample size."""
    name = "wilson-cluster" if method == "wilson" else "clopper-pearson-cluster"
    if p in (0.0, 1.0):
        n_eff: float = units
    elif var <= 1e-15:  # every unit scores the same
        return Rate(n, k, p, p, p, name, units)
    else:
        n_eff = p * (1 - p) / var
    low, high = _wilson(p, n_eff, confidence) if method == "wilson" else _clopper_pearson_float(p, n_eff, confidence)
    return Rate(n, k, p, low, high, name, units)


@dataclass(frozen=True)
class Mean:
    """A mean with its t-interval (cluster-robust when ``clusters`` is set)."""

    n: int
    mean: float
    sd: float
    ci_low: float
    ci_high: float
    method: str = "t"
    clusters: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (``mean`` also as ``value``; ``n_units``: the clusters, else ``n``)."""
        d = asdict(self)
        d["value"] = self.mean
        d["n_units"] = self.n if self.clusters is None else self.clusters
        return d


def mean_interval(values: Iterable[float], clusters: Iterable[Any] | None = None,
                  confidence: float = CONFIDENCE) -> Mean:
    """Mean of ``values`` with a t-interval (n-1 df); with ``clusters`` a cluster-robust interval (G-1 df).

    The cluster-robust variance of the mean is ``G/(G-1) * sum_g(sum_{i in g}(y_i - mean))^2 / n^2``; with
    one observation per cluster it equals the usual ``s^2/n``. Missing values are dropped.
    """
    y = _floats(values).to_numpy()
    g = None if clusters is None else _ids(clusters)
    if g is not None and len(g) != len(y):
        raise StatsError(f"{len(y)} values but {len(g)} cluster ids")
    keep = ~np.isnan(y)
    y = y[keep]
    n = len(y)
    if n == 0:
        return Mean(0, math.nan, math.nan, math.nan, math.nan)
    m = float(y.mean())
    sd = float(y.std(ddof=1)) if n > 1 else math.nan
    if g is None:
        if n < 2:
            return Mean(n, m, sd, math.nan, math.nan)
        se, df, method, n_clusters = sd / math.sqrt(n), n - 1, "t", None
    else:
        codes, uniques = pd.factorize(g[keep])
        n_clusters = len(uniques)
        if n_clusters < 2:
            return Mean(n, m, sd, math.nan, math.nan, "t-cluster", n_clusters)
        resid = np.bincount(codes, weights=y - m, minlength=n_clusters)
        var = n_clusters / (n_clusters - 1) * float((resid ** 2).sum()) / n ** 2
        se, df, method = math.sqrt(var), n_clusters - 1, "t-cluster"
    half = float(st.t.ppf(0.5 + confidence / 2, df)) * se
    return Mean(n, m, sd, m - half, m + half, method, n_clusters)


def quantiles(values: Iterable[float], qs: dict[str, float] | None = None) -> dict[str, float]:
    """Named quantiles (default q05, q25, median, q75, q95) plus ``min`` and ``max``; NaN for no data."""
    y = _floats(values).dropna()
    qs = QUANTILES if qs is None else qs
    if y.empty:
        return {"min": math.nan, **{k: math.nan for k in qs}, "max": math.nan}
    return {"min": float(y.min()), **{k: float(y.quantile(q)) for k, q in qs.items()}, "max": float(y.max())}


def describe(values: Iterable[float], clusters: Iterable[Any] | None = None,
             confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Mean with interval, sd and quantiles of ``values`` as one flat dict."""
    values = _floats(values)
    return {**mean_interval(values, clusters, confidence).as_dict(), **quantiles(values)}


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (same order as given; NaN stays NaN)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(len(p), math.nan)
    idx = [i for i in np.argsort(p, kind="stable") if not math.isnan(p[i])]
    m = len(idx)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out.tolist()


def cut_exact_probability(sigma: float) -> float:
    """P(exact cut) under the human cut model: ``2 Phi(0.5/sigma) - 1`` (1 for ``sigma == 0``)."""
    return 1.0 if sigma <= 0 else float(2 * st.norm.cdf(0.5 / sigma) - 1)
