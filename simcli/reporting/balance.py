"""The seat balance study (``balance``): each variant's win rates, margin, deals and deal endings with their
intervals, as a wide table (a row a variant), findings, a Markdown page and a figure."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simcli.reporting.figures import forest_figure
from simcli.reporting.formatting import fmt_ci, fmt_count, fmt_share, fmt_value, text_table
from simcli.reporting.runs import provenance
from simcli.reporting.summaries import Study, render_summary

if TYPE_CHECKING:  # imported when a command runs, so `simcli --help` stays fast
    import pandas as pd

    from simcli import stats
    from simcli.runs.results import Run

NOTES = [
    "* **first-player team win rate**: games won by the team whose player played first in deal 0 "
    "(the first-player team changes from deal to deal; deal 0 is the one fixed before any score exists).",
    "* **dealer team win rate**: games won by the team that dealt deal 0. With two teams in alternating seats the "
    "first player (next to the dealer) is always on the other team, so the two rates add up to 100% (less shared "
    "wins); with three teams they differ.",
    "* **team 0 win rate**: games won by seats 0 and 2.",
    "* **mean margin**: the winner's final total minus the runner-up's (always >= 0).",
    "* **stock-out share**: deals that ended because the stock ran out (n = deals).",
    "* **going-out share**: deals that ended because a player went out (n = deals).",
    "* Intervals: Wilson for rates, t for means over games. A win rate whose interval excludes 50% is "
    "evidence of a seat advantage for that strategy and variant.",
]


def column_label(m: stats.Metric) -> str:
    """A column header: rates by their label, means as ``mean LABEL (UNIT)`` (unit left out when in the label)."""
    if m.kind == "rate":
        return m.label
    return f"mean {m.label}" + ("" if m.unit in m.label else f" ({m.unit})")


def findings(table: pd.DataFrame) -> list[str]:
    """One line per variant and win rate: does its interval contain 50%, and how large an edge it rules out."""
    out = []
    for variant, sub in table.groupby("variant", sort=False):
        for r in sub[sub["metric"].isin(["first_player_win", "dealer_win", "win_team_0"])].to_dict("records"):
            lo, hi = r["ci_low"], r["ci_high"]
            span = f"{fmt_share(r['value'])} [{fmt_share(lo)}, {fmt_share(hi)}] of {int(r['n']):,} games"
            if lo <= 0.5 <= hi:
                edge = max(0.5 - lo, hi - 0.5) * 100
                verdict = (f"contains 50%: no detectable advantage at this N (an edge larger than {edge:.1f} "
                           "percentage points is ruled out)")
            else:
                verdict = f"excludes 50%: a {'disadvantage' if hi < 0.5 else 'advantage'} for that team"
            out.append(f"* {variant}, {r['label']}: {span}; the interval {verdict}.")
    return out


def wide_table(table: pd.DataFrame, metrics: list[stats.Metric], strategies: dict[str, str] | None = None
               ) -> tuple[list[str], list[list[str]]]:
    """One row per variant, one column per metric: ``estimate [low, high]``, plus the games and deals counts (and
    each variant's strategy when they differ)."""
    per_variant = strategies is not None and len(set(strategies.values())) > 1
    headers = ["variant", *(["strategy"] if per_variant else []), "games", "deals",
               *[column_label(m) for m in metrics]]
    rows = []
    for variant, sub in table.groupby("variant", sort=False):
        by_metric = sub.set_index("metric")
        games_n = by_metric.loc["margin", "n"] if "margin" in by_metric.index else None
        deals_n = by_metric.loc["stock_out", "n"] if "stock_out" in by_metric.index else None
        cells = []
        for m in metrics:
            r = by_metric.loc[m.name]
            cells.append(f"{fmt_value(r['value'], m.unit)} {fmt_ci(r['ci_low'], r['ci_high'], m.unit)}")
        extra = [strategies[str(variant)]] if per_variant and strategies is not None else []
        rows.append([str(variant), *extra, fmt_count(games_n), fmt_count(deals_n), *cells])
    return headers, rows


def strategy_text(strategies: dict[str, str]) -> str:
    """``greedy`` when every variant plays it, else ``classic: greedy, ponytail: ponytail``."""
    names = set(strategies.values())
    if len(names) == 1:
        return names.pop()
    return ", ".join(f"{v}: {s}" for v, s in strategies.items())


def study_markdown(table: pd.DataFrame, runs: list[tuple[str, Run]], cmd: str, strategies: dict[str, str],
                   games: int, seed: int, image: str) -> str:
    """The Markdown study: command, provenance, the wide table, notes and the long table with n and k."""
    from simcli import stats

    metrics = [stats.metric(m) for m in stats.BALANCE_METRICS]
    headers, rows = wide_table(table, metrics, strategies)
    long = render_summary(table, "variant", "markdown", [], "", {})
    single = len(set(strategies.values())) == 1
    who = (f"with {strategy_text(strategies)} in every seat" if single
           else f"each with its own strategy in every seat ({strategy_text(strategies)})")
    return "\n".join([
        "# Seat balance: " + ", ".join(v for v, _ in runs) + f" {who}", "",
        f"Regenerate: `{cmd}`", "",
        f"{games:,} games per variant, master seed {seed}; made with {provenance([r for _, r in runs])}.", "",
        "Estimates with 95% intervals:", "",
        text_table(headers, rows, "markdown"), "",
        "Findings:", "",
        *findings(table), "",
        f"![seat balance]({image})", "",
        *NOTES, "",
        "## All figures with n and k", "",
        long.strip(), "",
    ])


def balance_study(runs: list[tuple[str, Run]], strategies: dict[str, str], strategy: str, games: int, seed: int,
                  command: str, image: str, fmt: str) -> Study:
    """The seat balance's documents (``runs``: one per variant, each played by its strategy of ``strategies`` in
    every seat, as ``--strategy`` (``strategy``) gave them; ``image``: the PNG's file name)."""
    from simcli import stats

    table = stats.balance_table(runs)
    table.insert(1, "strategy", table["variant"].map(strategies))
    metrics = [stats.metric(m) for m in stats.BALANCE_METRICS]
    meta: dict[str, Any] = {"variants": [v for v, _ in runs], "strategy": strategy, "strategies": strategies,
                            "games": games, "seed": seed, "command": command,
                            "runs": {v: str(r.path) for v, r in runs}}
    who = strategy_text(strategies)
    single = len(set(strategies.values())) == 1
    fig_table = table if single else table.assign(variant=table["variant"] + " (" + table["strategy"] + ")")
    fig = forest_figure(fig_table, "variant", metrics,
                        (f"Seat balance with {who} in every seat" if single else
                         "Seat balance, each variant with its strategy in every seat")
                        + f" ({games:,} games per variant, seed {seed})")
    md = study_markdown(table, runs, command, strategies, games, seed, image)
    if fmt in ("table", "markdown"):
        headers, rows = wide_table(table, metrics, strategies)
        printed = "\n".join([f"Seat balance ({who} in every seat, {games:,} games per variant, seed {seed}); "
                             "estimates with 95% intervals", "", text_table(headers, rows, fmt)])
    else:
        printed = render_summary(table, "variant", fmt, [], "simcli.balance/1", meta)
    return Study(md, table, render_summary(table, "variant", "json", [], "simcli.balance/1", meta), fig, printed)
