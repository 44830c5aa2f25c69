"""Duplicate matches: pair points, pair scores with their interval, the pentanomial counts and the Elo curve.

A **pair** is one deal sequence (game index ``i`` of a master seed) played twice with the teams swapped: A on
team 0 in the first game, B on team 0 in the second. The pair, not the game, is the unit of randomisation: the
two games share their cards, so their results are correlated, and every interval here is computed over pairs.

A's **pair points** are its wins plus half its shared wins over the two games: 0, 0.5, 1, 1.5 or 2 (kept as
integer half-points ``0..4``). The five counts of pair points 0, 0.5, 1, 1.5, 2 are the
**pentanomial** distribution, as in chess engine testing (Fishtest). Without shared wins only 0, 1 and 2 occur.

Functions:

* :func:`summarize_pairs` -- A's score (per game) with a t-interval over pairs, the logistic Elo difference with
  its interval (the score interval's end points mapped through the Elo curve) and the pentanomial counts;
* :func:`score_from_elo` / :func:`elo_from_score` -- the logistic Elo curve.

The other statistics of duplicate matches build on these: the pentanomial SPRT (:mod:`simcli.duplicate.sprt`),
ratings of several strategies (:mod:`simcli.duplicate.ratings`) and sample-size planning
(:mod:`simcli.duplicate.power`). The methods are documented in ``docs/analysis.md`` ("Duplicate matches").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# The one confidence level of the analysis package (simcli/stats/confidence.py imports neither pandas nor scipy,
# so this module stays cheap to import for every command).
from simcli.stats.confidence import CONFIDENCE


def _stats() -> Any:
    """scipy.stats, imported when first needed: it costs most of a second, and every simcli command (play, run,
    bench, ...) imports this module through the CLI."""
    from scipy import stats

    return stats


#: Pair points in half-points: index k of the pentanomial counts is A's k/2 points over the pair.
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)


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
