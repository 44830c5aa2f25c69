"""The few lines a run's report opens with, before its full tables: who won how often and how long games last,
each with its 95% interval (the same figures as the tables below, said in words)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simcli.reporting.formatting import fmt_ci, fmt_count, fmt_num, fmt_share, is_missing

if TYPE_CHECKING:
    import pandas as pd


def _row(rep: pd.DataFrame, metric: str, group: str = "all") -> dict[str, Any] | None:
    rows = rep[(rep["metric"] == metric) & (rep["group"] == group)]
    return None if rows.empty else rows.iloc[0].to_dict()


def _figure(r: dict[str, Any] | None, what: str) -> str | None:
    """``5.9 deals [5.8, 6.1]``, or None when the row or its value is missing."""
    if r is None or is_missing(r.get("value")):
        return None
    return f"{fmt_num(r['value'])} {what} {fmt_ci(r.get('ci_low'), r.get('ci_high'), r.get('unit'))}"


def summary_lines(rep: pd.DataFrame) -> list[str]:
    """``In short:`` lines from a run report's rows: each group's wins (k of n, the rate and its interval), then the
    mean deals and turns of a game and the mean final margin, each with its interval. Empty when the report has
    no win rates."""
    wins = rep[rep["metric"] == "win_rate"].to_dict(orient="records")
    if not wins:
        return []
    games = fmt_count(wins[0].get("n"))
    won = "; ".join(f"{r['group']} won {fmt_count(r.get('k'))} ({fmt_share(r.get('value'))} "
                    f"{fmt_ci(r.get('ci_low'), r.get('ci_high'), 'share')})" for r in wins)
    lines = [f"In short, over {games} games: {won}."]
    length = [f for f in (_figure(_row(rep, "deals"), "deals"), _figure(_row(rep, "turns"), "turns")) if f]
    margin = _figure(_row(rep, "margin"), "points")
    if length or margin:
        lines.append("A game lasts " + " and ".join(length) + (f"; the winner wins by {margin}" if margin else "")
                     + " (means, 95% intervals; the full tables follow).")
    return lines
