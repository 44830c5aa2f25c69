"""Win rates per team, seat or strategy (the report's first section), and the first-deal team win flags."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.estimators import StatsError, rate_of
from simcli.stats.streams import DealSource, deal_source, select_rows
from simcli.stats.tables import KEYS, integer_counts, n_seats, n_teams, team_seats, unit_clusters

__all__ = ["win_rates", "first_deal_team_wins"]


def _win_row(group: str, flags: pd.Series, metric: str = "win_rate", units: pd.Series | None = None,
             **extra: Any) -> dict[str, Any]:
    clusters = None if units is None else units.loc[flags.index]
    return {"metric": metric, "group": group, **rate_of(flags, clusters=clusters).as_dict(), **extra}


def win_rates(games: pd.DataFrame, by: str = "team") -> pd.DataFrame:
    """Win rates per team, seat or strategy: columns metric, group, n, k, rate, value, ci_low, ci_high, method.

    * ``team``: team ``t`` wins the games with ``winner_team == t``.
    * ``seat``: a seat wins when its team wins (partners have the same rate).
    * ``strategy``: a strategy wins a game when the winning team has a seat playing it; ``n`` is the
      games in which it plays. A mixed team's win counts for each of its strategies, and a game in which a
      strategy sits on both teams counts as a win for it whoever wins; ``head_to_head`` rows restrict to
      the games where the strategy sits on exactly one team (the comparable rate against other strategies).

    A shared win (``winner_team == -1``) is a win for nobody; a ``shared_win`` row gives its rate. In a
    rotated run a game and its twin are one unit (``n_units`` counts them), with :func:`cluster_rate`'s intervals.
    """
    if games.empty:
        return pd.DataFrame(columns=["metric", "group", "n", "k", "rate", "value", "ci_low", "ci_high", "method"])
    teams = n_teams(games)
    winner = games["winner_team"]
    units = unit_clusters(games)
    rows = []
    if by == "team":
        for t in range(teams):
            seats = ",".join(map(str, team_seats(games, t)))
            rows.append(_win_row(f"team {t} (seats {seats})", winner == t, units=units))
    elif by == "seat":
        for s in range(n_seats(games)):
            rows.append(_win_row(f"seat {s} (team {s % teams})", winner == s % teams, units=units))
    elif by == "strategy":
        seat_cols = [f"strategy_seat_{s}" for s in range(n_seats(games))]
        names = sorted(set(games[seat_cols].astype(str).to_numpy().ravel()))
        for name in names:
            on_team = pd.DataFrame({t: (games[[f"strategy_seat_{s}" for s in team_seats(games, t)]] == name)
                                   .any(axis=1) for t in range(teams)})
            present = on_team.any(axis=1)
            w = winner.to_numpy()
            hit = on_team.to_numpy()[np.arange(len(w)), np.clip(w, 0, None)]
            won = pd.Series((w >= 0) & hit, index=games.index)
            rows.append(_win_row(name, won[present], units=units))
            one_side = on_team.sum(axis=1) == 1
            rows.append(_win_row(name, won[one_side], metric="head_to_head_win_rate", units=units))
    else:
        raise StatsError(f"unknown grouping '{by}'; allowed: strategy, seat, team")
    if (winner < 0).any():
        rows.append(_win_row("all", winner < 0, metric="shared_win", units=units))
    return integer_counts(pd.DataFrame(rows))


def first_deal_team_wins(games: pd.DataFrame, deals: pd.DataFrame | DealSource, column: str) -> pd.Series:
    """Per game, whether the team flagged by ``column`` (``first_player_team`` / ``dealer_team``) in deal 0 won.

    ``deals``: the deals table or a :class:`~simcli.stats.streams.DealSource` (only deal 0's rows are kept)."""
    source = deals if isinstance(deals, DealSource) else deal_source(deals)
    first = select_rows(source, ["team", column],
                        lambda d: (d["deal_index"] == 0).to_numpy() & d[column].astype(bool).to_numpy())
    first = first[[*KEYS, "team"]]
    merged = games[[*KEYS, "winner_team"]].merge(first, on=KEYS, how="inner")
    return pd.Series((merged["winner_team"] == merged["team"]).to_numpy(), index=pd.MultiIndex.from_frame(
        merged[KEYS]), name=column)
