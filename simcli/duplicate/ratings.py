"""Elo ratings of several strategies fitted from their duplicate matches.

:func:`fit_ratings` -- Elo ratings fitted by maximum likelihood from the matches (Bradley-Terry with the logistic
Elo curve, ``scipy.optimize.minimize``), intervals from the Fisher information; :func:`bootstrap_ratings` -- the
same fit with intervals from a bootstrap over pairs. The method is documented in ``docs/analysis.md`` ("Duplicate
matches").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcli.duplicate.pairs import DuplicateError
from simcli.stats.confidence import CONFIDENCE, two_sided_z


def _stats() -> Any:
    """scipy.stats, imported when first needed: it costs most of a second, and every simcli command (play, run,
    bench, ...) imports this module through the CLI."""
    from scipy import stats

    return stats


def _optimize() -> Any:
    """scipy.optimize, imported when first needed (see :func:`_stats`)."""
    from scipy import optimize

    return optimize


@dataclass(frozen=True)
class MatchCount:
    """One match for the rating fit: A's points over ``games`` games against B."""

    a: int
    b: int
    points: float
    games: int


ELO_SCALE = math.log(10) / 400.0
#: Virtual drawn games added to every match before the fit: a strategy that won every game would otherwise
#: have an infinite maximum-likelihood rating (as BayesElo's prior does, but much weaker).
PRIOR_DRAWS = 1.0


def _fit(k: int, matches: Sequence[MatchCount], prior: float,
         start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Ratings (mean 0) and their covariance for ``k`` players from the matches (Fisher information)."""
    a = np.array([m.a for m in matches], dtype=int)
    b = np.array([m.b for m in matches], dtype=int)
    w = np.array([m.points for m in matches], dtype=float) + prior / 2
    n = np.array([m.games for m in matches], dtype=float) + prior
    # Design matrix of the differences r_a - r_b, player 0 anchoring the scale during the fit.
    design = np.zeros((len(matches), k))
    design[np.arange(len(matches)), a] += ELO_SCALE
    design[np.arange(len(matches)), b] -= ELO_SCALE
    x = design[:, 1:]

    def nll(free: np.ndarray) -> float:
        z = x @ free
        # log p = -log(1 + e^-z), log(1 - p) = -log(1 + e^z)
        return float(np.sum(w * np.logaddexp(0, -z) + (n - w) * np.logaddexp(0, z)))

    def grad(free: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-(x @ free)))
        return -(x.T @ (w - n * p))

    def info(free: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-(x @ free)))
        return (x.T * (n * p * (1 - p))) @ x  # the Fisher information (= the Hessian of nll)

    x0 = np.zeros(k - 1) if start is None else (start[1:] - start[0])
    res = _optimize().minimize(nll, x0, jac=grad, hess=info, method="trust-exact", options={"gtol": 1e-9})
    r = np.concatenate([[0.0], res.x])
    cov = np.zeros((k, k))
    cov[1:, 1:] = np.linalg.pinv(info(res.x))
    center = np.eye(k) - 1.0 / k
    return center @ r, center @ cov @ center.T


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings (logistic Elo, mean 0) with their interval and standard error."""

    rating: list[float]
    ci_low: list[float]
    ci_high: list[float]
    se: list[float]
    method: str


def fit_ratings(k: int, matches: Sequence[MatchCount], confidence: float = CONFIDENCE,
                prior: float = PRIOR_DRAWS) -> Ratings:
    """Maximum-likelihood Elo ratings of ``k`` players (Bradley-Terry on the logistic Elo curve).

    Each game scores 1, 1/2 or 0 for A, with P(A wins) = 1 / (1 + 10^(-(r_A - r_B)/400)); ties count as half a
    win and half a loss. ``prior`` virtual drawn games are added to every match. Ratings are centred on mean
    0; the interval is rating +- z * se, with the covariance from the inverse Fisher information (player 0
    anchored, then centred). Games are treated as independent: duplicate twins are usually negatively
    correlated in outcome, which makes this interval conservative; :func:`bootstrap_ratings` resamples pairs.
    """
    if k < 2:
        raise DuplicateError("ratings need at least two players")
    r, cov = _fit(k, matches, prior)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    z = two_sided_z(confidence)
    return Ratings(rating=r.tolist(), ci_low=(r - z * se).tolist(), ci_high=(r + z * se).tolist(), se=se.tolist(),
                   method="fisher")


def bootstrap_ratings(k: int, pairs: Sequence[tuple[int, int, Sequence[int]]], n_boot: int, seed: int = 0,
                      confidence: float = CONFIDENCE, prior: float = PRIOR_DRAWS) -> Ratings:
    """Ratings with percentile intervals from ``n_boot`` resamples of the pairs (``numpy`` stream ``seed``).

    ``pairs`` holds each match as ``(a, b, half_points)``, with ``half_points[i]`` the pair of game index i.
    All matches of a tournament are played on the same deal streams, so the resample draws game indices once
    and applies them to every match: this keeps the correlation the shared deals create between matches.
    ``scipy.stats.bootstrap`` resamples the game indices (``rng=numpy.random.default_rng(seed)``, percentile
    interval); each resample refits every rating. ``se`` is the standard deviation of the bootstrap ratings.
    """
    lengths = {len(h) for _, _, h in pairs}
    if len(lengths) != 1:
        raise DuplicateError("a bootstrap over pairs needs every match to have the same number of pairs")
    n_pairs = lengths.pop()
    if n_pairs < 2:
        raise DuplicateError(f"a bootstrap over pairs needs at least 2 pairs a match, not {n_pairs}")
    halves = [np.asarray(h, dtype=float) for _, _, h in pairs]

    def counts(idx: np.ndarray) -> list[MatchCount]:
        return [MatchCount(a, b, float(h[idx].sum()) / 2, 2 * n_pairs) for (a, b, _), h in zip(pairs, halves,
                                                                                            strict=True)]

    r, _ = _fit(k, counts(np.arange(n_pairs)), prior)
    res = _stats().bootstrap((np.arange(n_pairs),), lambda idx: _fit(k, counts(idx), prior, start=r)[0],
                             n_resamples=n_boot, vectorized=False, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed))
    draws = np.asarray(res.bootstrap_distribution, dtype=float).reshape(k, -1)
    return Ratings(rating=r.tolist(), ci_low=np.asarray(res.confidence_interval.low, dtype=float).tolist(),
                   ci_high=np.asarray(res.confidence_interval.high, dtype=float).tolist(),
                   se=draws.std(axis=1).tolist(), method=f"bootstrap-{n_boot}")
