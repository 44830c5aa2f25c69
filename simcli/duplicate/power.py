"""Planning duplicate matches: the games or pairs needed to detect a change of a win share.

:func:`games_unpaired` / :func:`pairs_paired` / :func:`discordance` -- games needed to detect a change of a win
share (normal approximation; the paired version from the discordance of twin games, :func:`twin_differences`).
The method is documented in ``docs/analysis.md`` ("Duplicate matches").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from simcli.duplicate.pairs import DuplicateError
from simcli.stats.confidence import normal_quantile


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
