"""One metric measured on one run: its observations, its value with an interval, and its value per game or unit.

A metric of the deals table is added up per game as the deals are read (:meth:`~simcli.stats.extracts.DealExtract.
reduce`) and summarised from those sums (:mod:`simcli.stats.sums`); the others from their observations.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.confidence import CONFIDENCE
from simcli.stats.estimators import StatsError, cluster_rate, describe, rate
from simcli.stats.metrics import Metric
from simcli.stats.streams import Reduced, deal_source, quantity_values
from simcli.stats.sums import describe_sums, rate_of_sums
from simcli.stats.tables import KEYS, RunLike, game_cluster, is_rotated, unit_clusters

__all__ = ["observations", "reduced", "observation_values", "summarize", "per_game", "per_unit"]


def observations(run: RunLike, m: Metric) -> pd.DataFrame:
    """The metric's observations (``game_index``, ``rotation``, ``value``); raises :class:`StatsError`."""
    try:
        return m.extract(run)
    except KeyError as exc:
        raise StatsError(f"metric {m.name}: the run has no column {exc}") from None


def reduced(run: RunLike, m: Metric) -> Reduced | None:
    """The metric's observations added up per game while the deals are read, or None for a metric without a
    reduction (a games metric, or an extractor of one's own); raises :class:`StatsError`."""
    reduce = getattr(m.extract, "reduce", None)
    if reduce is None:
        return None
    try:
        out: Reduced | None = reduce(run)
    except KeyError as exc:
        raise StatsError(f"metric {m.name}: the run has no column {exc}") from None
    return out


def observation_values(run: RunLike, m: Metric) -> np.ndarray:
    """The metric's observed values as floats, in the observations' order: a metric of a deals column streams
    them, eight bytes a value however wide the deals table (a figure of millions of deals), the others come from
    :func:`observations`."""
    q = getattr(m.extract, "quantity", None)
    if q is None or q.per not in ("row", "deal") or q.twins:
        return observations(run, m)["value"].to_numpy(float)
    try:
        return quantity_values(deal_source(run), q)
    except KeyError as exc:
        raise StatsError(f"metric {m.name}: the run has no column {exc}") from None


def summarize(run: RunLike, m: Metric, confidence: float = CONFIDENCE) -> dict[str, Any]:
    """One run's value of a metric with its interval: a rate (n, k) or a mean (n, sd, quantiles).

    ``n_units`` counts the independent units behind the interval: the game indices when observations of one unit
    are correlated (deals of a game; the twins of a rotated run), else ``n``.
    """
    base: dict[str, Any] = {"metric": m.name, "label": m.label, "unit": m.unit, "level": m.level,
                            "expected": None if m.expected is None else m.expected(run)}
    red = reduced(run, m)
    if red is not None:
        sums, counts, values = red.group()
        # the seats of a deal are not independent (partners unlock together): always clustered by game
        units = red.game_index if red.rotated or m.level == "seat-deal" else None
        if m.kind == "rate":
            return {**base, **rate_of_sums(sums, counts, units, values, m.interval, confidence).as_dict()}
        clusters = units if m.level == "game" else red.game_index
        return {**base, "k": None, **describe_sums(sums, counts, clusters, values, confidence)}
    obs = observations(run, m)
    units = unit_clusters(obs)
    if m.level == "seat-deal":  # the seats of a deal are not independent (partners unlock together)
        units = game_cluster(obs)
    if m.kind == "rate":
        if units is None and m.binary:
            r = rate(int(obs["value"].sum()), len(obs), m.interval, confidence)
        else:
            r = cluster_rate(obs["value"], units, m.interval, confidence)
        return {**base, **r.as_dict()}
    clusters = units if m.level == "game" else game_cluster(obs)
    return {**base, "k": None, **describe(obs["value"], clusters, confidence)}


def per_game(run: RunLike, m: Metric) -> pd.Series:
    """The metric per game (mean over the game's observations), indexed by (game_index, rotation)."""
    red = reduced(run, m)
    if red is not None:
        return red.per_unit()
    obs = observations(run, m)
    return obs.groupby(KEYS, sort=True)["value"].mean()


def per_unit(run: RunLike, m: Metric) -> pd.Series:
    """The metric per unit: per game (:func:`per_game`) without rotation; in a rotated run the mean of the two
    twins' per-game values, indexed by ``game_index`` (each game weighs the same, each pair of twins too)."""
    g = per_game(run, m)
    if not is_rotated(run.games):
        return g
    return g.groupby(level="game_index", sort=True).mean()
