"""``simcli compare``: two runs metric by metric, paired game by game (same seed and N) or as two samples."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from simcli.commands.common import SEED, json_flag, refuse_unused
from simcli.commands.report import (
    FORMATS,
    describe_run,
    dump_json,
    emit,
    fmt_ci,
    fmt_count,
    fmt_value,
    is_missing,
    open_run,
    records,
    run_info,
    text_table,
)

if TYPE_CHECKING:
    import pandas as pd

    from simcli.results import Run

DEFAULT_METRICS = "win_team_0,margin,deals,deal_score"


def run_differences(a: Run, b: Run) -> list[str]:
    """What differs between two runs' settings: variant, strategies and rule knobs (``knob: A -> B``)."""
    ma, mb = a.manifest, b.manifest
    out = []
    if ma.get("variant") != mb.get("variant"):
        out.append(f"variant: {ma.get('variant')} -> {mb.get('variant')}")
    if ma.get("strategies") != mb.get("strategies"):
        out.append(f"strategies: {','.join(ma.get('strategies') or [])} -> {','.join(mb.get('strategies') or [])}")
    ra, rb = ma.get("rules") or {}, mb.get("rules") or {}
    out += [f"{k}: {ra.get(k, '(not in A)')} -> {rb.get(k, '(not in B)')}" for k in sorted(set(ra) | set(rb))
            if ra.get(k) != rb.get(k)]
    return out


def fmt_p(p: Any) -> str:
    """A p-value: 4 significant digits, '<1e-300' for underflow."""
    if is_missing(p):
        return "-"
    return "<1e-300" if p == 0 else (f"{p:.4f}" if p >= 0.001 else f"{p:.2e}")


def _rows(table: pd.DataFrame) -> list[list[str]]:
    rows = []
    for r in table.to_dict(orient="records"):
        unit = r["unit"]
        diff = fmt_value(r["diff"], unit)
        if unit == "share" and diff != "-":
            diff = diff.replace("%", " pp")
            ci = fmt_ci(r["ci_low"], r["ci_high"], unit).replace("%", " pp")
        else:
            ci = fmt_ci(r["ci_low"], r["ci_high"], unit)
        n = f"{fmt_count(r['n_a'])}/{fmt_count(r['n_b'])}" if not is_missing(r.get("n_a")) else fmt_count(r["n"])
        rows.append([r["metric"], n, fmt_value(r["a"], unit), fmt_value(r["b"], unit), diff, ci, r["test"],
                     fmt_p(r["p"]), fmt_p(r["p_holm"]), "" if unit == "share" else unit])
    return rows


HEADERS = ["metric", "n", "A", "B", "A - B", "95% CI", "test", "p", "p (Holm)", "unit"]


def render_compare(a: Run, b: Run, table: pd.DataFrame, paired: bool, fmt: str) -> str:
    """The comparison in ``table``, ``markdown``, ``csv`` or ``json``."""
    from simcli import stats

    if fmt == "csv":
        return table.to_csv(index=False)
    if fmt == "json":
        return dump_json({"schema": "simcli.compare/1", "a": run_info(a), "b": run_info(b), "paired": paired,
                          "differences": run_differences(a, b), "confidence": stats.CONFIDENCE,
                          "rows": records(table)})
    md = fmt == "markdown"
    diffs = run_differences(a, b)
    twins = bool(a.manifest.get("rotate_seats")) or bool(b.manifest.get("rotate_seats"))
    if paired:
        how = ("paired on game_index (a game and its seat-swapped twin form one unit); n = pairs of units" if twins
               else "paired on (game_index, rotation); n = pairs")
    else:
        how = ("unpaired (two independent samples); n = units (game indices) in A/B" if twins
               else "unpaired (two independent samples); n = games in A/B")
    lines = [("# " if md else "") + "Comparison", "",
             f"A: {describe_run(a)}", f"B: {describe_run(b)}",
             "differences: " + ("; ".join(diffs) if diffs else "none (same settings)"),
             f"{how}; p-values adjusted with Holm over the {len(table)} metric(s) compared", ""]
    lines.append(text_table(HEADERS, _rows(table), "markdown" if md else "table"))
    return "\n".join(lines) + "\n"


@click.command()
@json_flag
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option("--metric", "metrics", multiple=True, metavar="NAME[,NAME...]",
              help=f"metric(s) to compare (repeatable) [default: {DEFAULT_METRICS}]; docs/analysis.md lists them")
@click.option("--unpaired", is_flag=True, help="two-sample tests (Fisher, Welch) for runs with other seeds or N")
@click.option("--bootstrap", type=click.IntRange(min=0), default=0, show_default=True,
              help="paired bootstrap resamples for the non-rate metrics (0 = paired t-interval)")
@click.option("--bootstrap-seed", type=SEED, default=0, show_default=True, help="seed of the bootstrap resampling")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write to FILE instead of stdout")
def compare(run_a: Path, run_b: Path, metrics: tuple[str, ...], unpaired: bool, bootstrap: int,
            bootstrap_seed: int, fmt: str, out: Path | None) -> None:
    """Compare RUN_A with RUN_B: difference A - B of each metric with a 95% interval and a p-value.

    Runs of the same master seed and N are compared game by game (paired); others need --unpaired.
    """
    from simcli import stats

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
