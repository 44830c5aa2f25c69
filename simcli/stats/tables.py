"""The run tables' shape: keys, teams and seats, one row per deal, units (a game and its seat-swapped twin), pony
columns and strategy sides; the helpers every metric and report section reads the ``games`` / ``deals`` tables with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from simcli.stats.estimators import StatsError

__all__ = [
    "KEYS", "DEAL_KEYS", "PONY_PREFIX", "RunLike", "n_teams", "n_seats", "team_seats", "team_strategy_label",
    "one_per_deal", "game_cluster", "is_rotated", "unit_clusters", "twin_deals", "rules_of", "integer_counts",
    "pony_columns", "pony_per_deal", "run_strategies", "strategy_sides", "team_groups", "twin_pairs"
]


KEYS = ["game_index", "rotation"]


DEAL_KEYS = ["game_index", "rotation", "deal_index"]


PONY_PREFIX = "pony_pickup_turn_seat_"


class RunLike(Protocol):
    """What the statistics need from a run (:class:`simcli.runs.results.Run` fits)."""

    games: pd.DataFrame
    deals: pd.DataFrame
    manifest: dict[str, Any]


def n_teams(games: pd.DataFrame) -> int:
    """Number of teams in a games table (from its ``score_team_*`` columns)."""
    return len([c for c in games.columns if re.fullmatch(r"score_team_\d+", c)])


def n_seats(games: pd.DataFrame) -> int:
    """Number of seats in a games table (from its ``strategy_seat_*`` columns)."""
    return len([c for c in games.columns if re.fullmatch(r"strategy_seat_\d+", c)])


def team_seats(games: pd.DataFrame, team: int) -> list[int]:
    """Seats of ``team`` (seat ``s`` plays for team ``s % n_teams``)."""
    t = n_teams(games)
    return [s for s in range(n_seats(games)) if s % t == team]


def team_strategy_label(games: pd.DataFrame, team: int) -> pd.Series:
    """Per game, the strategies of ``team``'s seats joined by '+' (duplicates once, in seat order)."""
    cols = [f"strategy_seat_{s}" for s in team_seats(games, team)]
    codes, combos = pd.factorize(pd.Series(list(zip(*(games[c].astype(str) for c in cols), strict=True))))
    labels = np.array(["+".join(dict.fromkeys(combo)) for combo in combos], dtype=object)
    return pd.Series(labels[codes], index=games.index)


def one_per_deal(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per deal: the team-0 rows (deal-level columns repeat on every team's row)."""
    if "team" in deals.columns:
        return deals[deals["team"] == 0].reset_index(drop=True)
    return deals.drop_duplicates(DEAL_KEYS).reset_index(drop=True)


def game_cluster(df: pd.DataFrame) -> pd.Series:
    """A cluster id per row: its unit, the ``game_index`` (a game and its seat-swapped twin form one unit)."""
    return df["game_index"].astype(np.int64)


def is_rotated(df: pd.DataFrame) -> bool:
    """Whether a table holds seat-swapped twins (rows of ``rotation`` 1, from ``--rotate-seats``)."""
    return "rotation" in df.columns and bool((df["rotation"] != 0).any())


def unit_clusters(df: pd.DataFrame) -> pd.Series | None:
    """The unit (``game_index``) of each row of a rotated table, for twin-aware intervals; ``None`` without twins.

    Without rotation the games are independent and the usual one-observation-per-trial intervals apply.
    """
    return game_cluster(df) if is_rotated(df) else None


def twin_deals(per_deal: pd.DataFrame) -> pd.DataFrame:
    """Deals counted once per ``(game_index, deal_index)``: the twins of a rotated run are dealt the same cards
    and cuts (one random stream per game), so a cut or pick outcome repeats in both; the other rows stay."""
    if not is_rotated(per_deal):
        return per_deal
    # rotation 0 for the kept rows: each is now one independent deal, not one of a pair of twins
    return (per_deal.drop_duplicates(["game_index", "deal_index"], keep="first").reset_index(drop=True)
            .assign(rotation=0))


def rules_of(run: RunLike) -> dict[str, str]:
    """The run's rule knobs as formatted strings (from ``run.json``)."""
    return dict(run.manifest.get("rules") or {})


def integer_counts(df: pd.DataFrame, columns: Sequence[str] = ("n", "n_units", "n_pairs", "k", "n_a", "n_b", "a_only",
                                                               "b_only")) -> pd.DataFrame:
    """Count columns as nullable integers (``Int64``), so CSV and JSON show 96, not 96.0."""
    df = df.copy()
    for c in columns:
        if c in df.columns:
            df[c] = pd.to_numeric(df[c], errors="coerce").round().astype("Int64")
    return df


def pony_columns(deals: pd.DataFrame) -> list[str]:
    """The deals table's ``pony_pickup_turn_seat_*`` columns, in seat order."""
    cols = [c for c in deals.columns if c.startswith(PONY_PREFIX) and c[len(PONY_PREFIX):].isdigit()]
    return sorted(cols, key=lambda c: int(c[len(PONY_PREFIX):]))


def pony_per_deal(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per deal with each seat's pony pickup turn (-1 = never picked up).

    A seat's value may sit on its own team's row only (NaN on the others) or repeat on every row: the first
    non-missing value of the deal is used. Deals without any value for a seat stay NaN for it.
    """
    cols = pony_columns(deals)
    return deals.groupby(DEAL_KEYS, sort=True)[cols].first().reset_index()


def run_strategies(games: pd.DataFrame) -> list[str]:
    """The strategy names that play in a games table (any seat, any rotation), sorted."""
    cols = [f"strategy_seat_{s}" for s in range(n_seats(games))]
    return sorted(set(games[cols].astype(str).to_numpy().ravel())) if cols else []


def strategy_sides(games: pd.DataFrame, name: str, metric_name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The games in which strategy ``name`` sits on exactly one team, and that team (per game).

    Fails with one line when ``name`` is not in the run, or sits on every team of every game.
    """
    present = run_strategies(games)
    if name not in present:
        raise StatsError(f"metric {metric_name}: strategy '{name}' is not in the run; "
                         f"its strategies: {', '.join(present) or 'none'}")
    on_team = np.column_stack([(games[[f"strategy_seat_{s}" for s in team_seats(games, t)]].astype(str) == name)
                               .any(axis=1).to_numpy() for t in range(n_teams(games))])
    one_side = on_team.sum(axis=1) == 1
    if not one_side.any():
        raise StatsError(f"metric {metric_name}: strategy '{name}' sits on both teams in every game, so no game "
                         "pits it against another strategy")
    return games[one_side], on_team[one_side].argmax(axis=1)


def team_groups(games: pd.DataFrame, deals: pd.DataFrame, by: str) -> pd.Series:
    """A group label for each row of ``deals``: its team, or its team's strategies with ``by='strategy'``."""
    if by == "strategy":
        labels = pd.concat([pd.DataFrame({"game_index": games["game_index"], "rotation": games["rotation"],
                                          "team": t, "label": team_strategy_label(games, t)})
                            for t in range(n_teams(games))], ignore_index=True)
        merged = deals[[*KEYS, "team"]].merge(labels, on=[*KEYS, "team"], how="left")
        return pd.Series(merged["label"].to_numpy(), index=deals.index)
    return "team " + deals["team"].astype(str)


def twin_pairs(obs: pd.DataFrame) -> pd.DataFrame:
    """Observations of a rotated run averaged over each pair of twins (one row per ``game_index``, rotation 0).

    The pair is the unit of a duplicate comparison: the same deals played from both seatings. A game whose
    twin failed (``--on-error skip``) stands alone. Observations without twins come back unchanged.
    """
    if not is_rotated(obs):
        return obs
    out = obs.groupby("game_index", sort=True)["value"].mean().reset_index()
    out.insert(1, "rotation", 0)
    return out
