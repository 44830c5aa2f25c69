"""``simcli report``: every summary of a run with its sample size and 95% interval."""

from __future__ import annotations

from pathlib import Path

import click

from simcli.commands.common import json_flag
from simcli.commands.output import emit, reported
from simcli.reporting.formatting import FORMATS
from simcli.reporting.run_dirs import report_targets
from simcli.reporting.runs import report_documents


@click.command()
@json_flag
@click.argument("run_dirs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--by", type=click.Choice(["strategy", "seat", "team"]), default="team", show_default=True,
              help="group win rates (and per-team deal figures) by team, seat or strategy")
@click.option("--metric", "metrics", multiple=True, metavar="NAME[,NAME...]",
              help="also summarize these metrics (e.g. strategy_win:greedy,strategy_score:greedy); "
                   "docs/analysis.md lists them")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write to FILE instead of stdout")
@reported
def report(run_dirs: tuple[Path, ...], by: str, metrics: tuple[str, ...], fmt: str, out: Path | None) -> None:
    """Summarize a run (the latest in results/runs when none is given; several: each): win rates, margins, game
    length, deal endings, canastas, red threes, first melds, pile takes, exact cuts (when paid) and pony pickups
    (when recorded), each with n and a 95% interval."""
    from simcli import stats

    try:
        chosen = stats.parse_metrics(metrics, [])
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    targets = report_targets(run_dirs)
    if not run_dirs:
        click.echo(f"reporting on the latest run, {targets[0]}", err=True)
    emit(report_documents(targets, by, chosen, fmt), out)
