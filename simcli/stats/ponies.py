"""Pony pickups (Ponytail): the report's pony section and distribution, and the pony metrics (pickup turn, never
picked up, by strategy, and the partners' order).

The deals table records a seat's pickup turn in ``pony_pickup_turn_seat_{s}`` (-1: never), on its own team's row
or on every row: a deal's value for a seat is the first one recorded (:func:`~simcli.stats.tables.pony_per_deal`).
:func:`pony_slots` gathers these per deal and seat while reading the deals (a small number a deal and seat), and
every statistic here is computed from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.estimators import StatsError
from simcli.stats.extracts import DealExtract, observation_frame
from simcli.stats.streams import DealSource, Reduced, deal_source
from simcli.stats.sums import ValueCounts, describe_sums, rate_of_sums, value_counts
from simcli.stats.tables import (
    DEAL_KEYS,
    KEYS,
    PONY_PREFIX,
    RunLike,
    integer_counts,
    n_seats,
    n_teams,
    pony_columns,
    pony_per_deal,
    run_strategies,
)

__all__ = ["PonySlots", "pony_slots", "pony_summary", "pony_distribution", "pony_seat_deals", "pony_values",
           "pony_pickups", "pony_seat_values", "pony_order_values", "pony_column_names"]


@dataclass
class PonySlots:
    """Each deal's pony pickup turn per seat (``turns``: deals x seats, NaN where the deal records none; deals in
    the order of the source's units), the ``seats`` of the columns and the source."""

    turns: np.ndarray
    seats: list[int]
    source: DealSource

    def per_unit(self, x: np.ndarray) -> np.ndarray:
        """A per-deal quantity (deals, or deals x k: summed over its columns) added up per unit."""
        flat = x.sum(axis=1) if x.ndim == 2 else x
        cum = np.concatenate([[0.0], np.cumsum(flat, dtype=float)])
        starts = self.source.deal_starts
        return cum[starts[1:]] - cum[starts[:-1]]

    def rotated_deals(self) -> np.ndarray:
        """Per deal: whether it belongs to a twin (rotation 1)."""
        rotation = self.source.units["rotation"].to_numpy(np.int64)
        return np.repeat(rotation != 0, self.source.deals)

    def reduced(self, values: np.ndarray, counted: np.ndarray) -> Reduced:
        """Observations ``values`` where ``counted`` (both deals x k) as per-unit sums and value counts."""
        units = self.source.units
        sums = self.per_unit(np.where(counted, values, 0.0))
        counts = self.per_unit(counted.astype(float))
        return Reduced(units["game_index"].to_numpy(np.int64), units["rotation"].to_numpy(np.int64),
                       sums[:, None], counts[:, None], [value_counts(values[counted])])


def pony_slots(source: DealSource) -> PonySlots | None:
    """The pony pickup turns of every deal and seat (None without pony columns), read in one pass: per deal and
    seat the value of the lowest team's row that records one (the first in key order, as ``pony_per_deal``)."""
    cols = pony_columns(pd.DataFrame(columns=source.columns))
    if not cols:
        return None
    total = int(source.deal_starts[-1])
    turns = np.full((total, len(cols)), np.nan, dtype=np.float32)  # turns and -1 are exact in float32
    best = np.full((total, len(cols)), np.iinfo(np.int64).max, dtype=np.int64)
    for frame, pos in source.batches(["deal_index", "team", *cols]):
        deal = frame["deal_index"].to_numpy(np.int64)
        team = frame["team"].to_numpy(np.int64)
        ok = (pos >= 0) & (deal >= 0) & (deal < source.deals[np.maximum(pos, 0)])
        slot = source.deal_starts[np.maximum(pos, 0)] + deal
        for j, c in enumerate(cols):
            v = frame[c].to_numpy(float)
            m = ok & ~np.isnan(v)
            s, t, x = slot[m], team[m], v[m]
            order = np.lexsort((t, s))
            s, t, x = s[order], t[order], x[order]
            first = np.concatenate([[True], s[1:] != s[:-1]]) if len(s) else np.zeros(0, dtype=bool)
            s, t, x = s[first], t[first], x[first]
            better = t < best[s, j]
            best[s[better], j] = t[better]
            turns[s[better], j] = x[better]
    return PonySlots(turns, [int(c[len(PONY_PREFIX):]) for c in cols], source)


def _rate_row(metric: str, group: str, r: Any) -> dict[str, Any]:
    return {"metric": metric, "group": group, "unit": "share", **r.as_dict()}


def _mean_row(metric: str, group: str, d: dict[str, Any]) -> dict[str, Any]:
    return {"metric": metric, "group": group, "unit": "turn", "k": None, **d}


def _binary(k: int, n: int) -> ValueCounts:
    values, counts = np.array([0.0, 1.0]), np.array([n - k, k], dtype=np.int64)
    return ValueCounts(values[counts > 0], counts[counts > 0])


def pony_summary(deals: pd.DataFrame | DealSource) -> pd.DataFrame:
    """Pony pickup timing per seat and pooled: share never picked up (-1) and quartiles of the pickup turn.

    One observation per deal and seat (see :func:`pony_per_deal`). Empty without pony columns.
    """
    slots = pony_slots(deals if isinstance(deals, DealSource) else deal_source(deals))
    if slots is None:
        return pd.DataFrame()
    turns = slots.turns.astype(float)
    present, picked = ~np.isnan(turns), turns >= 0
    clusters = slots.source.units["game_index"].to_numpy(np.int64)
    twin = slots.rotated_deals()
    rows = []
    for j, seat in enumerate(slots.seats):
        never = present[:, j] & ~picked[:, j]
        n, k = int(present[:, j].sum()), int(never.sum())
        rotated = bool((present[:, j] & twin).any())
        rows.append(_rate_row("pony_never_picked_up", f"seat {seat}", rate_of_sums(
            slots.per_unit(never.astype(float)), slots.per_unit(present[:, j].astype(float)),
            clusters if rotated else None, _binary(k, n))))
        rows.append(_mean_row("pony_pickup_turn", f"seat {seat}", describe_sums(
            slots.per_unit(np.where(picked[:, j], turns[:, j], 0.0)), slots.per_unit(picked[:, j].astype(float)),
            clusters, value_counts(turns[picked[:, j], j]))))
    never = present & ~picked
    rows.append(_rate_row("pony_never_picked_up", "all seats", rate_of_sums(
        slots.per_unit(never.astype(float)), slots.per_unit(present.astype(float)),
        clusters if bool(twin.any()) else None, _binary(int(never.sum()), int(present.sum())))))
    rows.append(_mean_row("pony_pickup_turn", "all seats", describe_sums(
        slots.per_unit(np.where(picked, turns, 0.0)), slots.per_unit(picked.astype(float)), clusters,
        value_counts(turns[picked]))))
    return integer_counts(pd.DataFrame(rows))


def pony_distribution(deals: pd.DataFrame | DealSource) -> pd.DataFrame:
    """Counts and shares of the pony pickup turn over deals x seats (-1 = never picked up)."""
    slots = pony_slots(deals if isinstance(deals, DealSource) else deal_source(deals))
    if slots is None:
        return pd.DataFrame(columns=["turn", "count", "share"])
    vc = value_counts(slots.turns.astype(float).ravel())
    return pd.DataFrame({"turn": vc.values.astype(int), "count": vc.counts, "share": vc.counts / vc.counts.sum()})


def pony_seat_deals(run: RunLike) -> pd.DataFrame:
    """One row per deal and seat: ``game_index``, ``rotation``, ``deal_index``, ``seat``, ``team``, ``strategy`` (the
    seat's strategy in that game) and ``turn`` (the pony pickup turn, -1 never, NaN when not recorded)."""
    cols = pony_columns(run.deals)
    if not cols:
        raise StatsError("pony metrics: the deals table has no pony_pickup_turn_seat_* columns")
    long = pony_per_deal(run.deals)[DEAL_KEYS + cols].melt(id_vars=DEAL_KEYS, var_name="column", value_name="turn")
    long["seat"] = long["column"].str.slice(len(PONY_PREFIX)).astype(int)
    games = run.games
    strat = games[KEYS + [f"strategy_seat_{s}" for s in range(n_seats(games))]].melt(
        id_vars=KEYS, var_name="column", value_name="strategy")
    strat["seat"] = strat["column"].str.slice(len("strategy_seat_")).astype(int)
    long = long.merge(strat[[*KEYS, "seat", "strategy"]], on=[*KEYS, "seat"], how="left")
    long["team"] = long["seat"] % max(n_teams(games), 1)
    return (long.sort_values([*DEAL_KEYS, "seat"]).reset_index(drop=True)
            [[*DEAL_KEYS, "seat", "team", "strategy", "turn"]])


def _slots_of(run: RunLike, metric_name: str) -> PonySlots:
    slots = pony_slots(deal_source(run))
    if slots is None:
        raise StatsError(f"{metric_name}: the deals table has no pony_pickup_turn_seat_* columns")
    return slots


def _seats_playing(run: RunLike, slots: PonySlots, who: str, metric_name: str) -> np.ndarray:
    """Per unit and seat of ``slots``: whether the seat plays ``who`` (the unit's game in ``run.games``)."""
    present = run_strategies(run.games)
    if who not in present:
        raise StatsError(f"metric {metric_name}: strategy '{who}' is not in the run; "
                         f"its strategies: {', '.join(present) or 'none'}")
    cols = [f"strategy_seat_{s}" for s in slots.seats]
    games = run.games[[*KEYS, *[c for c in cols if c in run.games.columns]]]
    units = slots.source.units[KEYS].merge(games.astype({k: np.int64 for k in KEYS}), on=KEYS, how="left")
    return np.column_stack([(units[c].astype(str) == who).to_numpy() if c in units.columns
                            else np.zeros(len(units), dtype=bool) for c in cols])


def pony_values(run: RunLike) -> pd.DataFrame:
    """The pony pickup turns over deals x seats that picked up (the ``pony_pickup`` metric's observations)."""
    cols = pony_columns(run.deals)
    if not cols:
        raise StatsError("metric pony_pickup: the deals table has no pony_pickup_turn_seat_* columns")
    long = pony_per_deal(run.deals)[KEYS + cols].melt(id_vars=KEYS, value_name="value")
    long = long[long["value"] >= 0]
    return observation_frame(long, long["value"])


def _reduce_pickups(run: RunLike) -> Reduced:
    slots = _slots_of(run, "metric pony_pickup")
    turns = slots.turns.astype(float)
    return slots.reduced(turns, turns >= 0)


def pony_pickups() -> DealExtract:
    """The ``pony_pickup`` metric: the pickup turn over deals x seats that picked up."""
    return DealExtract(pony_column_names, pony_values, reducer=_reduce_pickups)


def pony_column_names(names: Sequence[str]) -> list[str]:
    """The pony columns among a deals table's column ``names``."""
    return [c for c in names if c.startswith(PONY_PREFIX)]


def pony_seat_values(never: bool, who: str | None = None, metric_name: str = "") -> DealExtract:
    """Seat-deal observations: the pickup turn (seat-deals with a pickup) or ``never`` (1 = not picked up), of
    every seat or of the seats playing strategy ``who``."""
    def frame(run: RunLike) -> pd.DataFrame:
        d = pony_seat_deals(run)
        d = d[d["turn"].notna()]
        if who is not None:
            present = run_strategies(run.games)
            if who not in present:
                raise StatsError(f"metric {metric_name}: strategy '{who}' is not in the run; "
                                 f"its strategies: {', '.join(present) or 'none'}")
            d = d[d["strategy"].astype(str) == who]
        if never:
            return observation_frame(d, d["turn"] < 0)
        d = d[d["turn"] >= 0]
        return observation_frame(d, d["turn"])

    def reducer(run: RunLike) -> Reduced:
        slots = _slots_of(run, "pony metrics")
        turns = slots.turns.astype(float)
        counted = ~np.isnan(turns)
        if who is not None:
            counted &= np.repeat(_seats_playing(run, slots, who, metric_name), slots.source.deals, axis=0)
        if never:
            return slots.reduced((turns < 0).astype(float), counted)
        return slots.reduced(turns, counted & (turns >= 0))
    return DealExtract(pony_column_names, frame, reducer=reducer)


def pony_order_values(which: str) -> DealExtract:
    """Team-deal observations of partner order: the turn of the team's ``first`` or ``second`` pony pickup, or the
    ``gap`` between them (team-deals with at least one, or with two, pickups)."""
    def frame(run: RunLike) -> pd.DataFrame:
        d = pony_seat_deals(run)
        d = d[d["turn"] >= 0].sort_values([*DEAL_KEYS, "team", "turn"])
        d["order"] = d.groupby([*DEAL_KEYS, "team"]).cumcount()
        first = d[d["order"] == 0].set_index([*DEAL_KEYS, "team"])["turn"]
        if which == "first":
            return observation_frame(first.reset_index(), first.to_numpy())
        second = d[d["order"] == 1].set_index([*DEAL_KEYS, "team"])["turn"]
        if which == "second":
            return observation_frame(second.reset_index(), second.to_numpy())
        gap = (second - first.reindex(second.index)).reset_index()
        return observation_frame(gap, gap["turn"])

    def reducer(run: RunLike) -> Reduced:
        slots = _slots_of(run, "pony metrics")
        turns = slots.turns.astype(float)
        teams = max(n_teams(run.games), 1)
        seat_team = np.array(slots.seats) % teams
        firsts, seconds = [], []
        for t in range(teams):
            own = turns[:, seat_team == t]
            ordered = np.sort(np.where(own >= 0, own, np.inf), axis=1)  # NaN and -1 (no pickup) last
            firsts.append(ordered[:, 0] if ordered.shape[1] else np.full(len(own), np.inf))
            seconds.append(ordered[:, 1] if ordered.shape[1] > 1 else np.full(len(own), np.inf))
        first, second = np.column_stack(firsts), np.column_stack(seconds)
        if which == "first":
            return slots.reduced(first, np.isfinite(first))
        if which == "second":
            return slots.reduced(second, np.isfinite(second))
        both = np.isfinite(second)
        gap = np.zeros_like(second)
        gap[both] = second[both] - first[both]
        return slots.reduced(gap, both)
    return DealExtract(pony_column_names, frame, reducer=reducer)

