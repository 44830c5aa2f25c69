"""The sequential probability ratio test of duplicate matches, on the pentanomial counts of their pairs.

:func:`sprt_llr` / :func:`sprt_bounds` / :func:`sprt_decision` -- the generalized sequential probability ratio
test on the pentanomial counts of :func:`simcli.duplicate.pairs.pentanomial` (Fishtest's GSPRT: the multinomial
MLE under the constraint ``score = L(elo)`` for the logistic model, or
``t = (mu - 1/2) / sigma = nelo / (800 / ln 10) * sqrt(2)`` for normalized Elo); :func:`parse_sprt` reads the
``--sprt`` option. The method is documented in ``docs/analysis.md`` ("Duplicate matches").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from simcli.duplicate.pairs import DuplicateError, score_from_elo


def _optimize() -> Any:
    """scipy.optimize, imported when first needed: it costs most of a second, and every simcli command (play, run,
    bench, ...) imports this module through the CLI."""
    from scipy import optimize

    return optimize


#: Normalized Elo per unit of normalized t-value (Fishtest): 800 / ln 10.
NELO_PER_T = 800 / math.log(10)
#: The weight given to a pentanomial cell that has no observations, so that the constrained MLE exists
#: (Fishtest mixes in the same small prior).
EMPTY_CELL = 1e-3


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's SPRT bounds on the log-likelihood ratio: ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise DuplicateError(f"alpha={alpha} and beta={beta} must be in (0, 1) with alpha + beta < 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _root(values: np.ndarray, probs: np.ndarray) -> float:
    """The x in (-1/max(values), -1/min(values)) with sum(probs * values / (1 + x * values)) = 0.

    The constrained multinomial MLEs below reweight the empirical distribution by ``1 / (1 + x * a_i)``; x is
    the Lagrange multiplier of the constraint. The function is decreasing on that interval, so brentq finds
    the single root.
    """
    lo, hi = -1.0 / values.max(), -1.0 / values.min()
    if not values.min() < 0 < values.max():
        raise DuplicateError("the constraint lies outside the range of the observed pair scores")
    eps = 1e-9

    def f(x: float) -> float:
        return float(np.sum(probs * values / (1.0 + x * values)))

    return float(_optimize().brentq(f, lo + eps, hi - eps))


def mle_with_mean(values: np.ndarray, probs: np.ndarray, s: float) -> np.ndarray:
    """The multinomial on ``values`` closest in likelihood to ``probs`` whose expectation is ``s``.

    Maximises sum p_i log q_i subject to sum q_i = 1 and sum q_i v_i = s: q_i = p_i / (1 + x (v_i - s)).
    """
    a = values - s
    x = _root(a, probs)
    return probs / (1.0 + x * a)


def mle_with_t(values: np.ndarray, probs: np.ndarray, ref: float, t: float) -> np.ndarray:
    """The multinomial closest in likelihood to ``probs`` whose t-value ``(mu - ref) / sigma`` is ``t``.

    A fixed-point iteration (van den Bergh, "Normalized Elo", section 4.1): linearising the constraint at the
    current estimate turns it into an expectation constraint on shifted values, solved as in
    :func:`mle_with_mean`.
    """
    q = np.full_like(probs, 1.0 / probs.size)
    for _ in range(100):
        mu = float(np.sum(q * values))
        sigma = math.sqrt(float(np.sum(q * (values - mu) ** 2)))
        a = values - ref - t * sigma * (1.0 + ((mu - values) / sigma) ** 2) / 2.0
        new = probs / (1.0 + _root(a, probs) * a)
        if np.max(np.abs(new - q)) < 1e-12:
            q = new
            break
        q = new
    return q


def _regularized(counts: Sequence[float]) -> tuple[float, np.ndarray, np.ndarray]:
    c = np.asarray(counts, dtype=float)
    if c.size not in (3, 5):
        raise DuplicateError(f"{c.size} counts: give 5 (pentanomial) or 3 (trinomial)")
    c = np.where(c == 0, EMPTY_CELL, c)
    n = float(c.sum())
    return n, np.linspace(0.0, 1.0, c.size), c / n


def sprt_llr(counts: Sequence[float], elo0: float, elo1: float, model: str = "logistic") -> float:
    """The generalized log-likelihood ratio of H1 (elo1) against H0 (elo0) for pentanomial pair counts.

    ``counts`` are the pairs with A's points 0, 0.5, 1, 1.5, 2 (or, given 3 counts, games lost, tied, won).
    Each hypothesis is the multinomial on the per-game pair scores 0, 1/4, 1/2, 3/4, 1 that maximises the
    likelihood under its constraint: the expected score is ``L(elo)`` (``model="logistic"``), or the t-value
    ``(mu - 1/2) / sigma`` is ``nelo / (800 / ln 10)`` times sqrt(2) for pairs (``model="normalized"``, sigma
    being the standard deviation of a pair's per-game score). The LLR is N times the mean log ratio of the two
    constrained MLEs under the empirical distribution. Empty cells get a weight of 1e-3 so the MLEs exist.
    """
    n, values, probs = _regularized(counts)
    if model == "logistic":
        q0 = mle_with_mean(values, probs, score_from_elo(elo0))
        q1 = mle_with_mean(values, probs, score_from_elo(elo1))
    elif model == "normalized":
        scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
        q0 = mle_with_t(values, probs, 0.5, elo0 / NELO_PER_T * scale)
        q1 = mle_with_t(values, probs, 0.5, elo1 / NELO_PER_T * scale)
    else:
        raise DuplicateError(f"unknown Elo model '{model}': allowed are logistic, normalized")
    return n * float(np.sum(probs * (np.log(q1) - np.log(q0))))


def sprt_decision(llr: float, lower: float, upper: float) -> str:
    """``"H1"`` when the LLR reached the upper bound, ``"H0"`` at the lower bound, else ``"inconclusive"``."""
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return "inconclusive"


def parse_sprt(text: str) -> tuple[float, float]:
    """``elo0=E0,elo1=E1`` to ``(E0, E1)``; a one-line :class:`DuplicateError` for anything else."""
    values: dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in ("elo0", "elo1"):
            raise DuplicateError(f"bad --sprt '{text}': expected elo0=E0,elo1=E1 (e.g. elo0=0,elo1=10)")
        try:
            values[key] = float(value)
        except ValueError:
            raise DuplicateError(f"bad --sprt value '{value.strip()}' for {key}: expected a number") from None
    if set(values) != {"elo0", "elo1"}:
        raise DuplicateError(f"bad --sprt '{text}': expected elo0=E0,elo1=E1 (e.g. elo0=0,elo1=10)")
    if not values["elo0"] < values["elo1"]:
        raise DuplicateError(f"bad --sprt '{text}': elo0 must be smaller than elo1")
    return values["elo0"], values["elo1"]
