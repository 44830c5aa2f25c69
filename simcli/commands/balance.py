"""``simcli balance``: seat balance of each variant with one strategy in every seat.

For each variant: the first-player team's and the dealer team's win rates (by deal 0 of each game), team 0's
win rate, the mean margin, deals per game and the stock-out and going-out shares of deals, each with its 95%
interval. ``--strategy NAME`` plays NAME in every variant; ``--strategy classic=greedy,ponytail=ponytail`` gives
each variant its own strategy (in every seat of that variant's run).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from simcli.commands.common import (
    BackendChoice,
    backend_options,
    complete_variants,
    json_flag,
    overrides_of,
    rule_option,
    rules_file_option,
    seed_option,
)
from simcli.commands.plot import forest_figure
from simcli.commands.report import FORMATS, emit, fmt_ci, fmt_count, fmt_value, text_table
from simcli.commands.sweep import (
    check_out,
    command_line,
    default_out,
    make_rules,
    play_all,
    provenance,
    render_summary,
    save_outputs,
)

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
    from simcli.commands.report import fmt_share

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


def parse_variant_strategies(text: str, variants: list[str]) -> dict[str, str]:
    """The strategy of each variant from ``--strategy``: one name for every variant (``greedy``,
    ``mc:samples=32``), or ``VARIANT=NAME,...`` with one entry per variant of ``--variants``
    (``classic=greedy,ponytail=mc:samples=32,depth=2``: a ``key=value`` piece that names no variant continues the
    options of the previous entry's strategy, as in ``--strategies``). One-line errors for anything else."""
    head = text.split(",")[0]
    if not re.match(r"^[^:=]+=", head):  # a single strategy (options come after a colon)
        rest = text.split(",")[1:]
        if rest and not (":" in head and all(re.match(r"^[^:=]+=", p.strip()) for p in rest)):
            raise click.ClickException(f"--strategy takes one name (it plays every seat), got '{text}'; give each "
                                       "variant its own with VARIANT=NAME,VARIANT=NAME")
        return {v: text for v in variants}
    out: dict[str, str] = {}
    last: str | None = None
    for piece in (p.strip() for p in text.split(",")):
        key, eq, value = piece.partition("=")
        if eq and ":" not in key and key.strip() in variants:
            v = key.strip()
            if v in out:
                raise click.ClickException(f"--strategy names variant '{v}' twice")
            if not value.strip():
                raise click.ClickException(f"--strategy {v}=: no strategy given for {v}")
            out[v], last = value.strip(), v
        elif last is not None and eq and ":" not in key and ":" in out[last]:
            out[last] += "," + piece  # an option of the previous strategy
        else:
            raise click.ClickException(f"--strategy: '{piece}' is not VARIANT=NAME for one of --variants "
                                       f"({', '.join(variants)})")
    missing = [v for v in variants if v not in out]
    if missing:
        raise click.ClickException(f"--strategy gives no strategy for {', '.join(missing)}; give one for every "
                                   "variant (VARIANT=NAME,...) or a single name for all")
    return out


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


@click.command()
@json_flag
@click.option("--variants", default="classic", show_default=True, help="comma-separated variant presets",
              shell_complete=complete_variants)
@click.option("--games", "-n", type=click.IntRange(min=2), default=2000, show_default=True, help="games per variant")
@click.option("--strategy", "--strategies", "strategy", default="greedy", show_default=True,
              help="the strategy in every seat, or one per variant: VARIANT=NAME,VARIANT=NAME,...")
@seed_option("master seed (the same for every variant)")
@rule_option
@rules_file_option
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@backend_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="folder for the runs (one per variant) [default: results/runs/balance-<variants>-<time>]")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path),
              help="write PREFIX.md/.csv/.json/.png [default: OUT/balance]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="format of the table printed on stdout")
def balance(variants: str, games: int, strategy: str, seed: int, rules: tuple[str, ...], rules_file: Path | None,
            jobs: int | None, backend: BackendChoice, out: Path | None,
            save: Path | None, fmt: str) -> None:
    """Seat balance per variant with the same strategy in every seat: first-player and dealer team win rates,
    mean margin, deals per game and stock-out and going-out shares, each with its 95% interval.

    With --strategy classic=greedy,ponytail=ponytail each variant plays its own strategy."""
    from simcli import stats

    names = [v.strip() for v in variants.split(",") if v.strip()]
    if not names:
        raise click.ClickException("--variants is empty; give one or more presets, e.g. classic")
    if len(set(names)) != len(names):
        raise click.ClickException(f"--variants repeats a variant: {variants}")
    strategies = parse_variant_strategies(strategy, names)
    overrides = overrides_of(rules, rules_file)
    settings = [(v, *make_rules(v, overrides, strategies[v])) for v in names]
    out = out or default_out("balance", "-".join(names))
    check_out(out, names, "balance")
    jobs = jobs or os.cpu_count() or 1
    cmd = command_line("balance", [("--variants", ",".join(names)), ("--games", games), ("--strategy", strategy),
                                   ("--seed", seed), ("--rule", rules), ("--rules", rules_file), ("--out", out),
                                   ("--save", save)])
    runs = play_all(settings, seed, games, out, jobs, cmd, names, backend=backend.open(jobs))
    try:
        table = stats.balance_table(runs)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    table.insert(1, "strategy", table["variant"].map(strategies))
    prefix = save or out / "balance"
    metrics = [stats.metric(m) for m in stats.BALANCE_METRICS]
    meta: dict[str, Any] = {"variants": names, "strategy": strategy, "strategies": strategies, "games": games,
                            "seed": seed, "command": cmd, "runs": {v: str(r.path) for v, r in runs}}
    who = strategy_text(strategies)
    single = len(set(strategies.values())) == 1
    fig_table = table if single else table.assign(variant=table["variant"] + " (" + table["strategy"] + ")")
    fig = forest_figure(fig_table, "variant", metrics,
                        (f"Seat balance with {who} in every seat" if single else
                         "Seat balance, each variant with its strategy in every seat")
                        + f" ({games:,} games per variant, seed {seed})")
    md = study_markdown(table, runs, cmd, strategies, games, seed, prefix.name + ".png")
    paths = save_outputs(prefix, md, table, render_summary(table, "variant", "json", [], "simcli.balance/1", meta),
                         fig)
    if fmt in ("table", "markdown"):
        headers, rows = wide_table(table, metrics, strategies)
        text = "\n".join([f"Seat balance ({who} in every seat, {games:,} games per variant, seed {seed}); "
                          "estimates with 95% intervals", "", text_table(headers, rows, fmt)])
        emit(text, None)
    else:
        emit(render_summary(table, "variant", fmt, [], "simcli.balance/1", meta), None)
    click.echo("saved " + ", ".join(map(str, paths)), err=True)
