"""How each built-in metric's observations come out of a run: from the games table, or from a few columns of the
deals table. A deals metric is a :class:`DealExtract`: called on a run it gives the observations (reading only the
columns it names), and :meth:`DealExtract.reduce` adds them up per game as the deals are read (what the summaries
and comparisons use, in memory that grows with the games, not with the deals).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.estimators import StatsError, cut_exact_probability
from simcli.stats.streams import Quantity, Reduced, deal_source, reduce_deals, team_sums
from simcli.stats.tables import DEAL_KEYS, KEYS, RunLike, n_teams, one_per_deal, rules_of, twin_deals
from simcli.stats.wins import first_deal_team_wins

__all__ = ["observation_frame", "projected", "DealExtract", "game_values", "team_values", "deal_values", "any_in_deal",
           "win_team", "first_deal_wins", "score_difference", "expected_exact_cut", "points_decided"]


def observation_frame(df: pd.DataFrame, values: Any) -> pd.DataFrame:
    """Observations: the ``game_index`` and ``rotation`` of ``df``'s rows with ``values``."""
    out = df[KEYS].copy()
    out["value"] = np.asarray(values, dtype=float)
    return out.reset_index(drop=True)


def projected(run: RunLike, columns: Sequence[str]) -> RunLike:
    """``run`` with a deals table of ``columns`` (and the keys) only, sorted by the keys: what an extractor written
    for ``run.deals`` reads from a run opened by :func:`simcli.runs.results.scan` (a run in memory is itself)."""
    stream = getattr(run, "deal_batches", None)
    if stream is None:
        return run
    present = set(getattr(run, "deal_columns"))  # noqa: B009 - a stored run's, not in RunLike
    wanted = [c for c in dict.fromkeys([*DEAL_KEYS, *columns]) if c in present]
    parts = list(stream(wanted))
    deals = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=wanted)
    by = [c for c in DEAL_KEYS if c in deals.columns]
    if by and len(deals) > 1 and not pd.MultiIndex.from_frame(deals[by]).is_monotonic_increasing:
        deals = deals.sort_values(by, ignore_index=True)
    return SimpleNamespace(games=run.games, deals=deals, manifest=run.manifest)


class DealExtract:
    """A metric's observations from deals ``columns`` (or a function choosing them among a table's columns):
    ``frame(run)`` on a run whose deals hold those columns gives the observations; :meth:`reduce` adds them up per
    game while reading, with ``quantity`` or ``reducer`` (when neither is given there is no reduction)."""

    def __init__(self, columns: Sequence[str] | Callable[[Sequence[str]], Sequence[str]],
                 frame: Callable[[RunLike], pd.DataFrame], quantity: Quantity | None = None,
                 reducer: Callable[[RunLike], Reduced] | None = None) -> None:
        self.columns = columns
        self.frame = frame
        self.quantity = quantity
        self.reducer = reducer

    def needed(self, available: Sequence[str]) -> list[str]:
        """The deals columns this metric reads, of a table with columns ``available``."""
        return list(self.columns(available) if callable(self.columns) else self.columns)

    def __call__(self, run: RunLike) -> pd.DataFrame:
        """The observations (``game_index``, ``rotation``, ``value``)."""
        names = getattr(run, "deal_columns", None)
        return self.frame(projected(run, self.needed(list(run.deals.columns) if names is None else names)))

    def reduce(self, run: RunLike) -> Reduced | None:
        """The observations added up per game (None when this metric has no reduction)."""
        if self.reducer is not None:
            return self.reducer(run)
        if self.quantity is None:
            return None
        return reduce_deals(deal_source(run), [self.quantity])[0]


def game_values(column: str) -> Callable[[RunLike], pd.DataFrame]:
    """A column of the games table, one observation per game."""
    return lambda run: observation_frame(run.games, run.games[column])


def team_values(column: str | Sequence[str], where: Callable[[pd.DataFrame], Any] | None = None,
                where_columns: Sequence[str] = ()) -> DealExtract:
    """One observation per team-deal: ``column`` (several: their sum) on the rows where ``where`` holds (it reads
    ``where_columns``)."""
    columns = (column,) if isinstance(column, str) else tuple(column)

    def value(d: pd.DataFrame) -> Any:
        return d[columns[0]] if len(columns) == 1 else sum(d[c] for c in columns)

    def frame(run: RunLike) -> pd.DataFrame:
        d = run.deals
        if where is not None:
            d = d[where(d)]
        return observation_frame(d, value(d))
    return DealExtract((*columns, *where_columns), frame, Quantity((*columns, *where_columns), value, where))


def deal_values(column: str, value: Callable[[pd.Series], Any] = lambda v: v, twins: bool = False) -> DealExtract:
    """One observation per deal (its team-0 row): ``value`` of ``column``; ``twins``: the outcome is the same in
    both seat-swapped twins, counted once per (game_index, deal_index) (:func:`~simcli.stats.tables.twin_deals`)."""
    def frame(run: RunLike) -> pd.DataFrame:
        d = one_per_deal(run.deals)
        if twins:
            d = twin_deals(d)
        return observation_frame(d, value(d[column]))
    return DealExtract((column,), frame, Quantity((column,), lambda d: value(d[column]), per="deal", twins=twins))


def any_in_deal(column: str) -> DealExtract:
    """One observation per deal: whether ``column`` is true on any of the deal's rows."""
    def frame(run: RunLike) -> pd.DataFrame:
        flag = run.deals.groupby(DEAL_KEYS, sort=True)[column].any().reset_index()
        return observation_frame(flag, flag[column])
    return DealExtract((column,), frame, Quantity((column,), lambda d: d[column], per="any"))


def win_team(t: int) -> Callable[[RunLike], pd.DataFrame]:
    """Per game: did team ``t`` win."""
    def extract(run: RunLike) -> pd.DataFrame:
        if t >= n_teams(run.games):
            raise StatsError(f"metric win_team_{t}: the run has {n_teams(run.games)} teams")
        return observation_frame(run.games, run.games["winner_team"] == t)
    return extract


def first_deal_wins(column: str) -> Callable[[RunLike], pd.DataFrame]:
    """Per game: did the team flagged by ``column`` in deal 0 win."""
    def extract(run: RunLike) -> pd.DataFrame:
        won = first_deal_team_wins(run.games, deal_source(run), column)
        return observation_frame(won.index.to_frame(index=False), won.to_numpy())
    return extract


def score_difference(run: RunLike) -> pd.DataFrame:
    """Per game: team 0's final total minus team 1's."""
    return observation_frame(run.games, run.games["score_team_0"] - run.games["score_team_1"])


def expected_exact_cut(run: RunLike) -> float:
    """The cut model's exact-cut (or exact-pick) probability under the run's ``cut_sigma``."""
    return cut_exact_probability(float(rules_of(run).get("cut_sigma", "4") or 4))


def points_decided(part: str, net: bool) -> Callable[[RunLike], pd.DataFrame]:
    """Per game with a single winner: did the points of score ``part`` decide it?

    ``net=False`` (as the report's ``exact_cut_decided_game``): the winner's margin is below the points the winner
    received. ``net=True``: the winner would not be alone in front without every team's points of ``part``, i.e.
    its total minus its points is below some other team's total minus that team's points (with two teams:
    the margin is below the winner's points minus the loser's).
    """
    def extract(run: RunLike) -> pd.DataFrame:
        games = run.games
        g = games[games["winner_team"] >= 0]
        teams = n_teams(games)
        pts = team_sums(deal_source(run), part, teams)
        pts = g[KEYS].astype(np.int64).merge(pts, on=KEYS, how="left").fillna(0)
        own_pts = pts[list(range(teams))].to_numpy(float)
        rows = np.arange(len(g))
        winner = g["winner_team"].to_numpy(int)
        if not net:
            return observation_frame(g, g["margin"].to_numpy(float) < own_pts[rows, winner])
        totals = g[[f"score_team_{t}" for t in range(teams)]].to_numpy(float) - own_pts
        others = totals.copy()
        others[rows, winner] = -np.inf
        return observation_frame(g, totals[rows, winner] < others.max(axis=1))
    return extract
