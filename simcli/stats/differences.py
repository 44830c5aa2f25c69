"""Two-sample estimators: paired and independent differences of proportions and means, with their tests
(McNemar with its exact conditional interval, Newcombe, paired t, paired bootstrap, Fisher, Welch).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as st

from simcli.stats.confidence import CONFIDENCE
from simcli.stats.estimators import wilson_interval

__all__ = [
    "mcnemar_exact", "mcnemar_exact_interval", "paired_proportion_diff", "independent_proportion_diff",
    "paired_binary", "paired_mean_diff",
    "bootstrap_mean_diff", "unpaired_binary", "welch_mean_diff"
]


def mcnemar_exact(b: int, c: int) -> float:
    """Exact McNemar p-value: two-sided binomial test of ``b`` successes in ``b + c`` discordant pairs (p=1/2)."""
    if b + c == 0:
        return 1.0
    return float(st.binomtest(int(b), int(b + c), 0.5).pvalue)


def mcnemar_exact_interval(b: int, c: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The exact conditional interval of the paired difference ``(b - c) / n`` matched to :func:`mcnemar_exact`.

    ``b`` pairs are a success in A only, ``c`` in B only, of ``n`` pairs. Given the ``d = b + c`` discordant pairs,
    ``b`` is binomial with ``pi = P(A only | discordant)``; the Clopper-Pearson interval ``[pL, pU]`` of ``b / d``
    maps to the difference as ``[(2 pL - 1) d / n, (2 pU - 1) d / n]`` (the difference is ``(2 pi - 1) d / n``).
    It is the inversion of the same exact binomial test at ``pi = 1/2`` that gives McNemar's p (symmetric there,
    so the two-sided p is twice the smaller tail), hence it excludes 0 exactly when ``p < 1 - confidence``; a
    score interval such as Newcombe's can exclude 0 with p above alpha for rare discordances (5 - 0 discordant
    pairs: p = 0.0625). No discordant pair gives [0, 0]: conditional on ``d``, the difference is known.
    """
    d = int(b) + int(c)
    if d == 0 or n <= 0:
        return (0.0, 0.0) if n > 0 else (math.nan, math.nan)
    ci = st.binomtest(int(b), d).proportion_ci(method="exact", confidence_level=confidence)
    return ((2 * float(ci.low) - 1) * d / n, (2 * float(ci.high) - 1) * d / n)


def paired_proportion_diff(n11: int, n10: int, n01: int, n00: int,
                           confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Difference ``p_A - p_B`` of paired proportions with Newcombe's square-and-add interval (method 10).

    ``n10`` pairs are a success in A only, ``n01`` in B only. Returns ``(diff, low, high)``. Not what
    :func:`paired_binary` reports (it can disagree with McNemar's exact test for rare discordances: see
    :func:`mcnemar_exact_interval`); kept for the studies made with it (``scripts/recompute_paired_intervals.py``
    identifies their tables by it) and as a published estimator.
    """
    n = n11 + n10 + n01 + n00
    if n == 0:
        return (math.nan, math.nan, math.nan)
    a_succ, b_succ = n11 + n10, n11 + n01
    p1, p2 = a_succ / n, b_succ / n
    l1, u1 = wilson_interval(a_succ, n, confidence)
    l2, u2 = wilson_interval(b_succ, n, confidence)
    margins = [a_succ, n - a_succ, b_succ, n - b_succ]
    phi = 0.0
    if min(margins) > 0:
        prod = math.sqrt(float(np.prod(np.asarray(margins, dtype=float))))
        a = n11 * n00 - n10 * n01
        phi = (a - n / 2) / prod if a > n / 2 else (0.0 if a >= 0 else a / prod)
    diff = p1 - p2
    low = diff - math.sqrt(max(0.0, (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)))
    high = diff + math.sqrt(max(0.0, (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1)))
    return (diff, max(-1.0, low), min(1.0, high))


def independent_proportion_diff(k1: int, n1: int, k2: int, n2: int,
                                confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Difference ``k1/n1 - k2/n2`` of independent proportions with Newcombe's hybrid score interval."""
    if n1 == 0 or n2 == 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, confidence)
    l2, u2 = wilson_interval(k2, n2, confidence)
    diff = p1 - p2
    return (diff, max(-1.0, diff - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)),
            min(1.0, diff + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)))


def paired_binary(a: Sequence[Any], b: Sequence[Any], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Paired 0/1 outcomes: McNemar's exact test and its exact conditional interval for the difference in rates
    (:func:`mcnemar_exact_interval`: the interval excludes 0 exactly when p < 1 - ``confidence``)."""
    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    n11, n10, n01 = int((x & y).sum()), int((x & ~y).sum()), int((~x & y).sum())
    n = len(x)
    # The difference of the two rates, computed as it always was (the same float in every stored table).
    diff = (n11 + n10) / n - (n11 + n01) / n if n else math.nan
    low, high = mcnemar_exact_interval(n10, n01, n, confidence)
    return {"test": "mcnemar-exact", "n": len(x), "a": x.mean() if len(x) else math.nan,
            "b": y.mean() if len(y) else math.nan, "diff": diff, "ci_low": low, "ci_high": high,
            "p": mcnemar_exact(n10, n01), "a_only": n10, "b_only": n01}


def _paired_differences(test: str, a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, dict[str, Any]]:
    """The differences ``a - b`` and the fields every paired mean test reports (test, n, means, mean difference)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = x - y
    n = len(d)
    return d, {"test": test, "n": n, "a": float(x.mean()) if n else math.nan,
               "b": float(y.mean()) if n else math.nan, "diff": float(d.mean()) if n else math.nan}


def paired_mean_diff(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Paired t-interval and t-test for the mean of ``a - b`` (``scipy.stats.ttest_rel``; identical pairs give
    0, [0, 0], p = 1)."""
    d, out = _paired_differences("paired-t", a, b)
    if len(d) < 2:
        return {**out, "ci_low": math.nan, "ci_high": math.nan, "p": math.nan}
    sd = float(d.std(ddof=1))
    if sd == 0:
        m = float(d.mean())
        return {**out, "ci_low": m, "ci_high": m, "p": 1.0 if m == 0 else 0.0}
    res = st.ttest_rel(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    ci = res.confidence_interval(confidence_level=confidence)
    return {**out, "ci_low": float(ci.low), "ci_high": float(ci.high), "p": float(res.pvalue)}


def bootstrap_mean_diff(a: Sequence[float], b: Sequence[float], n_boot: int = 2000, seed: int = 0,
                        confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Paired bootstrap (resampling pairs with ``numpy.random.default_rng(seed)``) for the mean of ``a - b``.

    Percentile interval; two-sided p-value from the null-shifted bootstrap distribution,
    ``(1 + #{|mean* - mean| >= |mean|}) / (1 + n_boot)``.
    """
    d, out = _paired_differences("paired-bootstrap", a, b)
    n = len(d)
    if n < 2:
        return {**out, "ci_low": math.nan, "ci_high": math.nan, "p": math.nan}
    m = float(d.mean())
    if np.all(d == d[0]):
        return {**out, "ci_low": m, "ci_high": m, "p": 1.0 if m == 0 else 0.0}
    res = st.bootstrap((d,), np.mean, n_resamples=n_boot, confidence_level=confidence, method="percentile",
                       rng=np.random.default_rng(seed))
    means = res.bootstrap_distribution
    p = float((1 + np.sum(np.abs(means - m) >= abs(m))) / (1 + n_boot))
    return {**out, "ci_low": float(res.confidence_interval.low), "ci_high": float(res.confidence_interval.high),
            "p": p}


def unpaired_binary(a: Sequence[Any], b: Sequence[Any], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Two independent samples of 0/1 outcomes: Fisher's exact test and Newcombe's hybrid score interval."""
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    k1, n1, k2, n2 = int(x.sum()), len(x), int(y.sum()), len(y)
    diff, low, high = independent_proportion_diff(k1, n1, k2, n2, confidence)
    p = float(st.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue) if n1 and n2 else math.nan
    return {"test": "fisher-exact", "n": n1 + n2, "n_a": n1, "n_b": n2, "a": k1 / n1 if n1 else math.nan,
            "b": k2 / n2 if n2 else math.nan, "diff": diff, "ci_low": low, "ci_high": high, "p": p}


def welch_mean_diff(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Two independent samples: Welch's t-test and interval for ``mean(a) - mean(b)``."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    out: dict[str, Any] = {"test": "welch-t", "n": len(x) + len(y), "n_a": len(x), "n_b": len(y),
           "a": float(x.mean()) if len(x) else math.nan, "b": float(y.mean()) if len(y) else math.nan}
    out["diff"] = out["a"] - out["b"]
    if len(x) < 2 or len(y) < 2:
        return {**out, "ci_low": math.nan, "ci_high": math.nan, "p": math.nan}
    if x.std() == 0 and y.std() == 0:
        return {**out, "ci_low": out["diff"], "ci_high": out["diff"], "p": 1.0 if out["diff"] == 0 else 0.0}
    res = st.ttest_ind(x, y, equal_var=False)
    ci = res.confidence_interval(confidence_level=confidence)
    return {**out, "ci_low": float(ci.low), "ci_high": float(ci.high), "p": float(res.pvalue)}
