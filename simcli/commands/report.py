"""``simcli report``: every summary of a run with its sample size and 95% interval."""

from __future__ import annotations

from pathlib import Path

import click

from simcli.commands.common import json_flag
from simcli.commands.output import emit, reported
from simcli.reporting.formatting import FORMATS
from simcli.reporting.runs import open_run, render_report


@click.command()
@json_flag
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--by", type=click.Choice(["strategy", "seat", "team"]), default="team", show_default=True,
              help="group win rates (and per-team deal figures) by team, seat or strategy")
@click.option("--metric", "metrics", multiple=True, metavar="NAME[,NAME...]",
              help="also summarize these metrics (e.g. strategy_win:greedy,strategy_score:greedy); "
                   "docs/analysis.md lists them")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write to FILE instead of stdout")
@reported
def report(run_dir: Path, by: str, metrics: tuple[str, ...], fmt: str, out: Path | None) -> None:
    """Summarize a run: win rates, margins, game length, deal endings, canastas, red threes, first melds,
    pile takes, exact cuts (when paid) and pony pickups (when recorded), each with n and a 95% interval."""
    from simcli import stats

    try:
        chosen = stats.parse_metrics(metrics, [])
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    run = open_run(run_dir)
    try:
        rep = stats.run_report(run, by, chosen)
    except stats.StatsError as exc:
        raise click.ClickException(f"{run_dir}: {exc}") from None
    emit(render_report(run, rep, by, fmt), out)
