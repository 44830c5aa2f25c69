"""The rows of ``simcli report``'s tables (:mod:`simcli.stats.sections`, :mod:`simcli.stats.feet`): a mean or a rate
with its interval, from values or from per-game sums, and the team-deal groups a section reports."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.estimators import Rate, describe
from simcli.stats.streams import DealSource, Grouping, Reduced, team_grouping
from simcli.stats.sums import describe_sums, rate_of_sums
from simcli.stats.tables import KEYS, n_teams, team_strategy_label

__all__ = ["mean_row", "rate_row", "label_grouping", "mean_sums", "rate_sums", "report_groups"]


def mean_row(metric_name: str, group: str, values: Any, clusters: Any, unit: str,
              **extra: Any) -> dict[str, Any]:
    return {"metric": metric_name, "group": group, "unit": unit, "k": None,
            **describe(values, clusters), **extra}


def rate_row(metric_name: str, group: str, r: Rate, **extra: Any) -> dict[str, Any]:
    return {"metric": metric_name, "group": group, "unit": "share", **r.as_dict(), **extra}


def label_grouping(games: pd.DataFrame, source: DealSource, by: str) -> Grouping:
    """Team-deal rows grouped as the report groups them: ``team N`` by their team, or with ``by='strategy'`` by
    their team's strategies in that game (:func:`~simcli.stats.tables.team_strategy_label`; a row whose game is not
    in ``games`` has no group)."""
    teams = n_teams(games)
    if by != "strategy":
        return team_grouping(teams, [f"team {t}" for t in range(teams)])
    per_team = [team_strategy_label(games, t) for t in range(teams)]
    labels = sorted({str(x) for s in per_team for x in s.unique()})
    code = {label: i for i, label in enumerate(labels)}
    table = pd.DataFrame({"game_index": games["game_index"].to_numpy(np.int64),
                          "rotation": games["rotation"].to_numpy(np.int64),
                          **{str(t): s.map(code).to_numpy() for t, s in enumerate(per_team)}})
    placed = source.units[KEYS].merge(table, on=KEYS, how="left")
    lookup = np.column_stack([placed[str(t)].fillna(-1).to_numpy(np.int64) for t in range(teams)]) \
        if teams else np.zeros((len(placed), 0), dtype=np.int64)

    def codes(frame: pd.DataFrame, pos: np.ndarray) -> np.ndarray:
        team = frame["team"].to_numpy(np.int64)
        ok = (pos >= 0) & (team >= 0) & (team < teams)
        out = np.full(len(team), -1, dtype=np.int64)
        out[ok] = lookup[pos[ok], team[ok]]
        return out
    return Grouping(labels, codes)


def mean_sums(metric_name: str, group: str, red: Reduced, i: int | None, unit: str,
               **extra: Any) -> dict[str, Any]:
    """A mean row from per-game sums, clustered by game (as :func:`_mean_row` with the game clusters)."""
    sums, counts, values = red.group(i)
    return {"metric": metric_name, "group": group, "unit": unit, "k": None,
            **describe_sums(sums, counts, red.game_index, values), **extra}


def rate_sums(metric_name: str, group: str, red: Reduced, i: int | None = None, clustered: bool | None = None,
               **extra: Any) -> dict[str, Any]:
    """A rate row from per-game sums of 0/1 outcomes: clustered by game when the observations include twins
    (``clustered``: the decision of another reduction), else one trial an observation."""
    sums, counts, values = red.group(i)
    clustered = red.rotated if clustered is None else clustered
    return rate_row(metric_name, group, rate_of_sums(sums, counts, red.game_index if clustered else None, values),
                     **extra)


def report_groups(red: Reduced) -> list[tuple[str, int | None]]:
    """``all`` and the groups with a row, in label order, as (label, group); rows without a group (the last,
    unlabelled group of a reduction that has them) only count in ``all``."""
    labelled = red.labels[:-1] if red.ungrouped else red.labels
    present = [(label, i) for i, label in enumerate(labelled) if red.counts[:, i].any()]
    return [("all", None), *sorted(present)]
