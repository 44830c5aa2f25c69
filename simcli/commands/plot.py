"""``simcli plot``: distributions of a metric for one or more runs (histogram, ECDF or box plot), or each run's
estimate with its interval (the figures are drawn by :mod:`simcli.reporting.figures`)."""

from __future__ import annotations

from pathlib import Path

import click

from simcli.commands.output import reported
from simcli.reporting.figures import KINDS, metric_figure, save_figure
from simcli.reporting.runs import open_run

SUFFIXES = (".png", ".svg")
PLOTTABLE = ("margin", "score_diff", "deals", "turns", "deal_turns", "deal_score", "going_out_score", "canastas",
             "canastas_natural", "canastas_mixed", "canastas_wild", "red_threes", "first_meld_turn", "pile_takes",
             "pile_cards_taken", "pile_take_max", "pony_pickup")


def check_image_path(out: Path) -> None:
    """Refuse an output file that is not .png or .svg (one-line CLI error)."""
    if out.suffix.lower() not in SUFFIXES:
        raise click.ClickException(f"--out {out}: the figure must be a .png or .svg file")


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--metric", "metric_name", required=True, metavar="NAME",
              help=f"what to plot; one of {', '.join(PLOTTABLE)}, strategy_score:NAME; a share such as "
                   "strategy_win:NAME with --kind ci")
@click.option("--kind", type=click.Choice(KINDS), default=None,
              help="hist, ecdf or box: the distribution (default hist); ci: each run's estimate with its 95% "
                   "interval (the default for shares such as strategy_win:NAME)")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="FILE.png or FILE.svg")
@click.option("--title", help="figure title [default: the metric, and the variant, strategies, N and seed; for "
                               "several runs the settings that differ between them first]")
@reported
def plot(run_dirs: tuple[Path, ...], metric_name: str, kind: str | None, out: Path, title: str | None) -> None:
    """Plot the distribution of a metric for one or more runs (several runs overlay, with a legend), or with
    --kind ci each run's estimate and 95% interval."""
    from simcli import stats

    check_image_path(out)
    try:
        m = stats.metric(metric_name)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    kind = kind or ("ci" if m.kind == "rate" else "hist")
    if m.kind != "mean" and kind != "ci":
        raise click.ClickException(f"metric '{m.name}' is a share: --kind {kind} shows a distribution, so use "
                                   f"--kind ci (its estimate and interval), or one of: {', '.join(PLOTTABLE)}")
    fig, shown = metric_figure([open_run(p) for p in run_dirs], m, kind, title)
    save_figure(fig, out)
    click.echo(f"wrote {out} {shown}")
