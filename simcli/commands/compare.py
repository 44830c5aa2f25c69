"""``simcli compare``: two runs metric by metric, paired game by game (same seed and N) or as two samples."""

from __future__ import annotations

from pathlib import Path

import click

from simcli.commands.common import SEED, json_flag, refuse_unused
from simcli.commands.output import emit, reported
from simcli.reporting.formatting import FORMATS
from simcli.reporting.levels import levels_comparison
from simcli.reporting.runs import open_run, render_compare
from simcli.reporting.sweep_files import gather_levels, sweep_file, sweep_metrics

DEFAULT_METRICS = "win_team_0,margin,deals,deal_score"


def compare_sweeps(paths: list[Path], docs: list[Path], metrics: tuple[str, ...], levels: str | None,
                   unpaired: bool, fmt: str, out: Path | None) -> None:
    """``compare`` of stored sweeps: every value's effect at each level and the interaction against the first
    level (the levels of the sweeps given, in order, or those ``--levels`` picks)."""
    from simcli import stats

    doc, level_runs = gather_levels(paths, docs, levels)
    try:
        chosen = stats.parse_metrics(metrics, sweep_metrics(doc))
        for _, runs in level_runs:
            stats.check_strategy_metrics(chosen, list(runs[0][1].manifest.get("strategies") or []))
        text = levels_comparison(paths, doc, level_runs, chosen, not unpaired, fmt)
    except stats.StatsError as exc:
        msg = str(exc)
        raise click.ClickException(msg + ("; use --unpaired to compare the levels' effects as two samples"
                                          if "cannot be paired" in msg else "")) from None
    emit(text, out)


@click.command()
@json_flag
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path), required=False)
@click.option("--metric", "metrics", multiple=True, metavar="NAME[,NAME...]",
              help=f"metric(s) to compare (repeatable) [default: {DEFAULT_METRICS}]; docs/analysis.md lists them")
@click.option("--unpaired", is_flag=True, help="two-sample tests (Fisher, Welch) for runs with other seeds or N")
@click.option("--bootstrap", type=click.IntRange(min=0), default=0, show_default=True,
              help="paired bootstrap resamples for the non-rate metrics (0 = paired t-interval)")
@click.option("--bootstrap-seed", type=SEED, default=0, show_default=True, help="seed of the bootstrap resampling")
@click.option("--levels", metavar="L1,L2,...",
              help="with sweeps: the levels to compare, the first the reference [default: every level, in order]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write to FILE instead of stdout")
@reported
def compare(run_a: Path, run_b: Path | None, metrics: tuple[str, ...], unpaired: bool, bootstrap: int,
            bootstrap_seed: int, levels: str | None, fmt: str, out: Path | None) -> None:
    """Compare RUN_A with RUN_B: difference B - A of each metric (RUN_B minus RUN_A, as sweep's value minus its
    baseline) with a 95% interval and a p-value.

    Runs of the same master seed and N are compared game by game (paired); others need --unpaired.
    Given sweeps instead (a sweep's folder or its .json; one levels sweep, or two sweeps of the same knob played
    at two levels), it compares the rule's effect between levels: each value's effect per level and the
    interaction, the difference of effects, with its interval and p.
    """
    from simcli import stats

    docs = [sweep_file(p) for p in (run_a, run_b) if p is not None]
    if any(d is not None for d in docs):
        paths = [p for p in (run_a, run_b) if p is not None]
        if None in docs:
            run = paths[docs.index(None)]
            raise click.ClickException(f"{run} is a run, not a sweep: compare two runs, or sweeps (a sweep's "
                                       f"folder or its sweep.json)")
        if bootstrap:
            raise click.ClickException("--bootstrap is for two runs; a comparison of sweeps uses paired t")
        return compare_sweeps(paths, [d for d in docs if d is not None], metrics, levels, unpaired, fmt, out)
    if run_b is None:
        raise click.ClickException("compare needs two runs (RUN_A RUN_B), or one or two sweeps")
    if levels is not None:
        raise click.ClickException("--levels picks levels of sweeps; RUN_A and RUN_B are runs")

    try:
        chosen = stats.parse_metrics(metrics, stats.DEFAULT_COMPARE)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    if unpaired and bootstrap:
        raise click.ClickException("--bootstrap is for paired comparisons; drop it or --unpaired")
    refuse_unused(click.get_current_context(), [
        ("bootstrap_seed", bootstrap > 0, "it seeds the --bootstrap resampling, which is off (--bootstrap 0)")])
    a, b = open_run(run_a), open_run(run_b)
    try:
        table = stats.compare_runs(a, b, chosen, paired=not unpaired, bootstrap=bootstrap, seed=bootstrap_seed)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    emit(render_compare(a, b, table, not unpaired, fmt), out)
