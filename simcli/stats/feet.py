"""Hand and Foot in ``simcli report`` (issue 48): the section of contracts met and of running and walking into the
foot, from the deals table's ``required_set_turn`` and ``foot_entry_seat_*`` columns (docs/results-format.md)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from simcli.stats.rows import label_grouping, mean_sums, rate_sums, report_groups
from simcli.stats.streams import Quantity, deal_source, reduce_deals
from simcli.stats.tables import RunLike, integer_counts

__all__ = ["FOOT_PREFIX", "handfoot_summary"]

#: The deals table's Hand and Foot columns: how each seat got into its foot (docs/results-format.md).
FOOT_PREFIX = "foot_entry_seat_"


def handfoot_summary(run: RunLike, by: str = "team") -> pd.DataFrame:
    """Hand and Foot records, per team-deal over all and per group: how often the team met its contract
    (``required_set_turn`` >= 0) and on which turn, and how many of its players ran and walked into the foot.

    Empty for runs without ``foot_entry_seat_*`` columns (written only under Hand and Foot's foot rule). The going-out
    and stock endings are the ``deal_end`` section's, the foot pickup turns the ``pony`` section's."""
    games, source = run.games, deal_source(run)
    feet = [c for c in source.columns if c.startswith(FOOT_PREFIX)]
    if not feet:
        return pd.DataFrame()
    grouping = label_grouping(games, source, "strategy" if by == "strategy" else "team")

    def entries(way: str) -> Any:
        return lambda d: sum((d[c] == way).astype(int) for c in feet)

    met, turn, ran, walked = reduce_deals(source, [
        Quantity(("required_set_turn",), lambda d: d["required_set_turn"] >= 0),
        Quantity(("required_set_turn",), lambda d: d["required_set_turn"], lambda d: d["required_set_turn"] >= 0),
        Quantity(tuple(feet), entries("running")),
        Quantity(tuple(feet), entries("walking")),
    ], grouping)
    rows: list[dict[str, Any]] = []
    for label, i in report_groups(met):
        rows.append(rate_sums("contract_met", label, met, i, clustered=met.rotated))
        if turn.counts[:, i if i is not None else slice(None)].any():
            rows.append(mean_sums("contract_met_turn", label, turn, i, "turn"))
        rows.append(mean_sums("ran_into_foot", label, ran, i, "players"))
        rows.append(mean_sums("walked_into_foot", label, walked, i, "players"))
    return integer_counts(pd.DataFrame(rows))
