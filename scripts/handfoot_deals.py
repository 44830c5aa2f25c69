"""Hand and Foot deal by deal (issue 48, item 4): contracts met and deals ended by going out per deal number, and
the foot pickup turn by the way into the foot, from a Hand and Foot run's deals table.

Usage: ``python scripts/handfoot_deals.py RUN_DIR --save PREFIX``

``RUN_DIR`` is a run written by ``simcli run`` or ``simcli balance`` under a rule set with a foot
(``pony_unlock = HAND_EMPTY``: its deals table has ``foot_entry_seat_*`` columns, docs/results-format.md). Writes
``PREFIX.csv`` and ``PREFIX.json`` (one row per figure: ``section``, ``deal``, ``way``, ``metric``, ``n``, ``units``,
``k``, ``estimate``, ``ci_low``, ``ci_high``, ``interval``) and ``PREFIX.png`` (the shares per deal number, and the
histogram of the pickup turn by way), and prints the table.

What is counted, per deal number (1-4: the opening minimum rises 50/90/120/150):

* ``went_out``: deals ended by a player going out (the rest end on the stock), n = deals;
* ``contract_met``: team-deals whose team completed its contract (``required_set_turn >= 0``), n = team-deals;
* ``contract_met_turn``: the turn it was completed, over the team-deals that completed it;
* ``first_meld_turn``: the turn of the team's opening meld, over the team-deals in which it opened;
* ``foot_running`` / ``foot_walking`` / ``foot_never``: how each player got into the foot, n = player-deals
  (``running``: the hand emptied by melding, picked up and played on; ``walking``: by discarding the last card);
* ``pickup_turn``: the foot's pickup turn (``pony_pickup_turn_seat_*``, the deal's turn counter), over the players
  who picked it up, with its quartiles and 10th/90th percentiles (``q10`` ... ``q90`` rows; no interval).

Every interval is 95% and clustered by game (the deals of one game, and the teams and players of one deal, share
cards and scores): Wilson's on the design-effect sample size for shares, cluster-robust t for means
(``simcli.stats.cluster_rate`` and ``mean_interval``), as ``simcli report`` computes them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simcli import stats

FOOT = "foot_entry_seat_"
PICKUP = "pony_pickup_turn_seat_"
WAYS = ("running", "walking", "never")
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
COLUMNS = ["section", "deal", "way", "metric", "n", "units", "k", "estimate", "ci_low", "ci_high", "interval"]


def player_deals(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per player and deal: ``game_index``, ``deal`` (1-based), ``seat``, ``way`` and ``pickup_turn``
    (-1 when never picked up). A seat's columns are filled on its team's rows only."""
    seats = sorted(int(c[len(FOOT):]) for c in deals.columns if c.startswith(FOOT))
    if not seats:
        raise SystemExit("the run has no foot_entry_seat_* columns: it was not played under a rule set with a foot "
                         "(pony_unlock = HAND_EMPTY, as the handfoot preset)")
    parts = []
    for s in seats:
        own = deals[deals[f"{FOOT}{s}"].notna()]
        parts.append(pd.DataFrame({"game_index": own["game_index"].to_numpy(), "deal": own["deal_index"].to_numpy() + 1,
                                   "seat": s, "way": own[f"{FOOT}{s}"].to_numpy(),
                                   "pickup_turn": own[f"{PICKUP}{s}"].to_numpy()}))
    return pd.concat(parts, ignore_index=True)


def _share(section: str, deal: Any, way: str, metric: str, flags: pd.Series, games: pd.Series) -> dict[str, Any]:
    r = stats.cluster_rate(flags.astype(float), games)
    return {"section": section, "deal": deal, "way": way, "metric": metric, "n": r.n, "units": r.n_units, "k": r.k,
            "estimate": r.rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "interval": r.method}


def _mean(section: str, deal: Any, way: str, metric: str, values: pd.Series, games: pd.Series) -> dict[str, Any]:
    m = stats.mean_interval(values.astype(float), games)
    return {"section": section, "deal": deal, "way": way, "metric": metric, "n": m.n, "units": m.clusters,
            "k": None, "estimate": m.mean, "ci_low": m.ci_low, "ci_high": m.ci_high, "interval": m.method}


def figures(deals: pd.DataFrame) -> pd.DataFrame:
    """Every figure of the study (module docstring) as a long table."""
    rows: list[dict[str, Any]] = []
    one = deals.drop_duplicates(["game_index", "rotation", "deal_index"])  # one row per deal
    players = player_deals(deals)
    for deal in [*sorted(int(d) + 1 for d in one["deal_index"].unique()), "all"]:
        d1 = one if deal == "all" else one[one["deal_index"] + 1 == deal]
        td = deals if deal == "all" else deals[deals["deal_index"] + 1 == deal]
        pl = players if deal == "all" else players[players["deal"] == deal]
        rows.append(_share("deal_end", deal, "", "went_out", d1["end_reason"] == "went_out", d1["game_index"]))
        rows.append(_share("contract", deal, "", "contract_met", td["required_set_turn"] >= 0, td["game_index"]))
        met = td[td["required_set_turn"] >= 0]
        rows.append(_mean("contract", deal, "", "contract_met_turn", met["required_set_turn"], met["game_index"]))
        opened = td[td["first_meld_turn"] >= 0]
        rows.append(_mean("contract", deal, "", "first_meld_turn", opened["first_meld_turn"], opened["game_index"]))
        for way in WAYS:
            rows.append(_share("foot", deal, way, f"foot_{way}", pl["way"] == way, pl["game_index"]))
    for way in ("any", "running", "walking"):
        up = players[players["way"] != "never"] if way == "any" else players[players["way"] == way]
        rows.append(_mean("pickup_turn", "all", way, "pickup_turn", up["pickup_turn"], up["game_index"]))
        for q in QUANTILES:
            rows.append({"section": "pickup_turn", "deal": "all", "way": way, "metric": f"q{round(q * 100)}",
                         "n": len(up), "units": up["game_index"].nunique(), "k": None,
                         "estimate": float(np.quantile(up["pickup_turn"], q)) if len(up) else float("nan"),
                         "ci_low": None, "ci_high": None, "interval": ""})
    return pd.DataFrame(rows, columns=COLUMNS)


def _cell(row: pd.Series) -> str:
    if row["metric"].startswith("q"):
        return f"{row['estimate']:g}"
    if row["interval"].startswith("wilson"):
        return f"{row['estimate']:.1%} [{row['ci_low']:.1%}, {row['ci_high']:.1%}]"
    return f"{row['estimate']:.1f} [{row['ci_low']:.1f}, {row['ci_high']:.1f}]"


def render(table: pd.DataFrame) -> str:
    """The table as Markdown, one line per figure."""
    lines = ["| section | deal | way | metric | n | units | k | estimate [95% CI] |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    for _, r in table.iterrows():
        k = "" if r["k"] is None or pd.isna(r["k"]) else str(int(r["k"]))
        lines.append(f"| {r['section']} | {r['deal']} | {r['way']} | {r['metric']} | {r['n']} | {r['units']} | {k} | "
                     f"{_cell(r)} |")
    return "\n".join(lines)


def plot(table: pd.DataFrame, players: pd.DataFrame, out: Path) -> None:
    """Left: going out, contract met and running into the foot per deal number; right: the pickup turn's histogram
    for running and walking."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    per = table[table["deal"] != "all"]
    for metric, label in (("went_out", "deals ended by going out"), ("contract_met", "teams meeting the contract"),
                          ("foot_running", "players running into the foot"),
                          ("foot_walking", "players walking into the foot")):
        rows = per[per["metric"] == metric]
        x = rows["deal"].astype(int).to_numpy()
        y = rows["estimate"].to_numpy(dtype=float)
        # clipped at 0: a share the same in every game has the interval [p, p], which rounding can invert
        err = np.clip([y - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - y], 0, None)
        left.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label)
    left.set_xlabel("deal number (opening minimum 50 / 90 / 120 / 150)")
    left.set_ylabel("share (95% CI)")
    left.set_xticks(sorted(per["deal"].astype(int).unique()))
    left.set_ylim(0, 1)
    left.legend(fontsize=8)
    turns = players[players["way"] != "never"]["pickup_turn"]
    bins = np.arange(0, (turns.max() if len(turns) else 1) + 5, 4)
    for way in ("running", "walking"):
        right.hist(players[players["way"] == way]["pickup_turn"], bins=bins, alpha=0.6, label=way)
    right.set_xlabel("turn of the foot pickup (deal's turn counter)")
    right.set_ylabel("players")
    right.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Read the run, write PREFIX.csv/.json/.png and print the Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a Hand and Foot run folder (deals.parquet)")
    ap.add_argument("--save", type=Path, required=True, help="write PREFIX.csv, PREFIX.json and PREFIX.png")
    args = ap.parse_args(argv)
    source = args.run / "deals.parquet"
    if not source.exists():
        raise SystemExit(f"{args.run}: no deals.parquet (give a run folder written by simcli run or balance)")
    deals = pd.read_parquet(source)
    table = figures(deals)
    args.save.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.save.with_suffix(".csv"), index=False)
    args.save.with_suffix(".json").write_text(json.dumps(
        {"schema": "simcli-script.handfoot-deals/1", "run": str(args.run),
         "rows": json.loads(table.to_json(orient="records"))}, indent=1) + "\n", encoding="utf-8")
    plot(table, player_deals(deals), args.save.with_suffix(".png"))
    print(render(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
