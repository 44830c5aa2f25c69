"""Statistics of duplicate matches: pair scores, Elo, the pentanomial SPRT, ratings and sample-size planning.

A **pair** is one deal sequence (game index ``i`` of a master seed) played twice with the teams swapped: A on
team 0 in the first game, B on team 0 in the second. The pair, not the game, is the unit of randomisation: the
two games share their cards, so their results are correlated, and every interval here is computed over pairs.

A's **pair points** are its wins plus half its shared wins over the two games: 0, 0.5, 1, 1.5 or 2 (kept as
integer half-points ``0..4``). The five counts of pair points 0, 0.5, 1, 1.5, 2 are the
**pentanomial** distribution, as in chess engine testing (Fishtest). Without shared wins only 0, 1 and 2 occur.

Functions:

* :func:`summarize_pairs` -- A's score (per game) with a t-interval over pairs, the logistic Elo difference with
  its interval (the score interval's end points mapped through the Elo curve) and the pentanomial counts;
* :func:`sprt_llr` / :func:`sprt_bounds` / :func:`sprt_decision` -- the generalized sequential probability ratio
  test on the pentanomial counts (Fishtest's GSPRT: the multinomial MLE under the constraint ``score = L(elo)``
  for the logistic model, or ``t = (mu - 1/2) / sigma = nelo / (800 / ln 10) * sqrt(2)`` for normalized Elo);
* :func:`fit_ratings` -- Elo ratings of several strategies fitted by maximum likelihood from their matches
  (Bradley-Terry with the logistic Elo curve, ``scipy.optimize.minimize``), intervals from the Fisher information
  or from a bootstrap over pairs;
* :func:`games_unpaired` / :func:`pairs_paired` / :func:`discordance` -- games needed to detect a change of a
  win share (normal approximation; the paired version from the discordance of twin games).

The methods are documented in ``docs/analysis.md`` ("Duplicate matches").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# The one confidence level and normal quantile of the analysis package (simcli/stats/confidence.py imports
# neither pandas nor scipy, so this module stays cheap to import for every command).
from simcli.stats.confidence import CONFIDENCE, normal_quantile, two_sided_z


def _stats() -> Any:
    """scipy.stats, imported when first needed: it costs most of a second, and every simcli command (play, run,
    bench, ...) imports this module through the CLI."""
    from scipy import stats

    return stats


def _optimize() -> Any:
    """scipy.optimize, imported when first needed (see :func:`_stats`)."""
    from scipy import optimize

    return optimize

#: Pair points in half-points: index k of the pentanomial counts is A's k/2 points over the pair.
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
#: Normalized Elo per unit of normalized t-value (Fishtest): 800 / ln 10.
NELO_PER_T = 800 / math.log(10)
#: The weight given to a pentanomial cell that has no observations, so that the constrained MLE exists
#: (Fishtest mixes in the same small prior).
EMPTY_CELL = 1e-3


class DuplicateError(ValueError):
    """Bad input to a duplicate statistic (an empty match, impossible SPRT or planning parameters)."""


# ------------------------------------------------------------------------------------------ Elo curve
def score_from_elo(elo: float) -> float:
    """Expected score per game of a player ``elo`` logistic Elo points stronger: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """Logistic Elo difference of a per-game score (``+-inf`` for a score of 1 or 0, NaN outside [0, 1])."""
    if not 0.0 <= score <= 1.0 or math.isnan(score):
        return math.nan
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0, not -0


# ------------------------------------------------------------------------------------------ pair scores
def pentanomial(half_points: Sequence[int]) -> list[int]:
    """Counts of pairs with A's points 0, 0.5, 1, 1.5, 2, from each pair's points in half-points (0..4)."""
    arr = np.asarray(half_points, dtype=int)
    if arr.size and (arr.min() < 0 or arr.max() > 4):
        raise DuplicateError("pair points must be between 0 and 4 half-points")
    return np.bincount(arr, minlength=5).tolist()


@dataclass(frozen=True)
class PairSummary:
    """A's result over a duplicate match: per-game score with its interval over pairs, Elo and pentanomial."""

    pairs: int
    games: int
    score: float
    score_ci_low: float
    score_ci_high: float
    elo: float
    elo_ci_low: float
    elo_ci_high: float
    pentanomial: list[int]
    wins: int = 0
    ties: int = 0
    losses: int = 0


def clean_sweep_interval(score: float, pairs: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The interval of a clean sweep (every pair won, score 1, or every pair lost, score 0), where the t-interval
    has no spread and would claim certainty.

    The per-game score is at least the chance ``p`` that a pair is won outright (scores are never negative), and
    ``pairs`` pairs all won bound ``p`` from below by the Clopper-Pearson limit ``((1 - confidence) / 2) **
    (1 / pairs)``: so ``[that, 1]`` (about [0.964, 1] for 100 pairs), and the mirror image for a score of 0. It
    narrows as the pairs grow, as an interval should, and its Elo end is finite.
    """
    bound = ((1.0 - confidence) / 2.0) ** (1.0 / pairs)
    return (bound, 1.0) if score == 1.0 else (0.0, 1.0 - bound)


def summarize_pairs(half_points: Sequence[int], confidence: float = CONFIDENCE,
                    wins: int = 0, ties: int = 0, losses: int = 0) -> PairSummary:
    """A's score (wins + half ties over all games) with a t-interval over pairs, and its Elo difference.

    ``half_points[i]`` is A's points over pair ``i`` in half-points (0..4), so the pair's per-game score is
    ``half_points[i] / 4``. The interval is Student's t over the pairs (``scipy.stats.ttest_1samp``), clipped to
    [0, 1], except for a clean sweep (:func:`clean_sweep_interval`); the Elo interval maps its end points through
    :func:`elo_from_score` (the curve is monotone).
    """
    x = np.asarray(half_points, dtype=float) / 4.0
    n = int(x.size)
    if n == 0:
        raise DuplicateError("no pairs played")
    score = float(x.mean())
    if score in (0.0, 1.0):
        low, high = clean_sweep_interval(score, n, confidence)
    elif n < 2 or float(x.std()) == 0.0:
        # One pair, or every pair alike: no spread to estimate (a constant score gives a zero-width interval).
        low, high = (score, score) if n >= 2 else (math.nan, math.nan)
    else:
        ci = _stats().ttest_1samp(x, 0.5).confidence_interval(confidence)
        low, high = max(0.0, float(ci.low)), min(1.0, float(ci.high))
    return PairSummary(pairs=n, games=2 * n, score=score, score_ci_low=low, score_ci_high=high,
                       elo=elo_from_score(score), elo_ci_low=elo_from_score(low), elo_ci_high=elo_from_score(high),
                       pentanomial=pentanomial(half_points), wins=wins, ties=ties, losses=losses)


# ------------------------------------------------------------------------------------------------ SPRT
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


# -------------------------------------------------------------------------------------------- ratings
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


# -------------------------------------------------------------------------------------------- planning
def games_unpaired(base: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Independent games to detect a win share ``base + effect`` against ``base`` (two-sided test, normal approx.).

    ``n = (z_{1-alpha/2} sqrt(p0 (1 - p0)) + z_power sqrt(p1 (1 - p1)))^2 / effect^2``, rounded up
    (the one-sample test of a proportion, e.g. Chow, Shao & Wang, "Sample Size Calculations", 4.1).
    """
    p1 = base + effect
    _check_plan(alpha, power, effect)
    if not (0 < base < 1 and 0 < p1 < 1):
        raise DuplicateError(f"base {base} and base + effect {p1:g} must both lie strictly between 0 and 1")
    num = (normal_quantile(1 - alpha / 2) * math.sqrt(base * (1 - base))
           + normal_quantile(power) * math.sqrt(p1 * (1 - p1)))
    return math.ceil(num * num / (effect * effect) - 1e-9)


def pairs_paired(discordance: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Duplicate pairs to detect a win share ``1/2 + effect`` (McNemar's test, normal approximation).

    In pair ``i`` let d_i be A's points over the two games minus 1 (-1, -1/2, 0, 1/2 or 1). A's win share is
    ``1/2 + E[d]/2``, so the effect on the pair is ``delta = 2 * effect``. With ``discordance`` psi = E[d^2] (the
    share of pairs won twice by the same strategy, when there are no shared wins), Connor's (1987) formula
    ``n = (z_{1-alpha/2} sqrt(psi) + z_power sqrt(psi - delta^2))^2 / delta^2``, rounded up.
    """
    _check_plan(alpha, power, effect)
    delta = 2.0 * effect
    if not 0 < discordance <= 1:
        raise DuplicateError(f"discordance {discordance} must be in (0, 1]")
    if delta * delta >= discordance:
        raise DuplicateError(f"an effect of {effect:g} cannot occur with discordance {discordance:.4g} "
                             f"(needs (2 * effect)^2 < discordance)")
    num = (normal_quantile(1 - alpha / 2) * math.sqrt(discordance)
           + normal_quantile(power) * math.sqrt(discordance - delta * delta))
    return math.ceil(num * num / (delta * delta) - 1e-9)


def _check_plan(alpha: float, power: float, effect: float) -> None:
    if not 0 < alpha < 1:
        raise DuplicateError(f"alpha {alpha} must be in (0, 1)")
    if not 0 < power < 1:
        raise DuplicateError(f"power {power} must be in (0, 1)")
    if effect == 0:
        raise DuplicateError("effect must not be 0")


def twin_differences(games: Any) -> np.ndarray:
    """d_i = team 0's points in rotation 0 minus in rotation 1, per game index with both twins (a games table).

    Team 0's points are 1 for a win, 1/2 for a shared win (``winner_team = -1``), 0 for a loss. With A on
    team 0 in rotation 0 (and on team 1 in rotation 1), this is A's pair points minus 1.
    """
    g = games[["game_index", "rotation", "winner_team"]]
    points = np.where(g["winner_team"] == 0, 1.0, np.where(g["winner_team"] == -1, 0.5, 0.0))
    wide = (g.assign(points=points).pivot_table(index="game_index", columns="rotation", values="points")
            .dropna())
    if 0 not in wide.columns or 1 not in wide.columns:
        return np.zeros(0)
    return (wide[0] - wide[1]).to_numpy()


def discordance(d: Sequence[float]) -> float:
    """psi = mean of d_i^2 over pairs: the share of discordant pairs (counting a half-point pair as 1/4)."""
    arr = np.asarray(d, dtype=float)
    if arr.size == 0:
        raise DuplicateError("no complete pairs of twin games")
    return float(np.mean(arr * arr))
