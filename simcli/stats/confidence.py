"""The confidence level of every interval simcli reports, and the normal quantiles built on it.

A module of its own, importing nothing heavy, so that the duplicate statistics (:mod:`simcli.duplicate.pairs`,
:mod:`simcli.duplicate.ratings`, :mod:`simcli.duplicate.power`, which every command loads through the CLI) share the
level and the quantile function with the analysis modules without importing pandas or scipy before a statistic is
computed.
"""

from __future__ import annotations

__all__ = ["CONFIDENCE", "normal_quantile", "two_sided_z"]

#: The confidence level of every interval (reports, comparisons, duplicate matches, tournaments) unless a caller
#: passes another.
CONFIDENCE = 0.95


def normal_quantile(p: float) -> float:
    """The standard normal quantile ``Phi^-1(p)`` (``scipy.stats.norm.ppf``)."""
    from scipy import stats  # here, not at the top: scipy.stats costs most of a second to import

    return float(stats.norm.ppf(p))


def two_sided_z(confidence: float = CONFIDENCE) -> float:
    """The critical value of a two-sided normal interval at ``confidence``: ``Phi^-1(1/2 + confidence/2)``."""
    return normal_quantile(0.5 + confidence / 2)
