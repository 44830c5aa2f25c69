"""``simcli compare``: two runs metric by metric, paired game by game (same seed and N) or as two samples."""

from __future__ import annotations

import json
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
    fmt_p,
    fmt_value,
    is_missing,
    open_run,
    records,
    run_info,
    text_table,
)

if TYPE_CHECKING:
    import pandas as pd

    from simcli.runs.results import Run

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


SWEEP_SCHEMAS = ("simcli.sweep/1", "simcli.sweep-levels/1")


def sweep_file(path: Path) -> Path | None:
    """The sweep table (``sweep.json`` or a ``--save PREFIX.json``) that ``path`` names, or None for a run."""
    from simcli.runs.integrity import MANIFEST

    if path.is_file() and path.suffix == ".json":
        return path
    if path.is_dir() and not (path / MANIFEST).exists() and (path / "sweep.json").is_file():
        return path / "sweep.json"
    return None


def open_sweep(path: Path, doc_path: Path) -> tuple[dict[str, Any], list[tuple[str, list[tuple[str, Run]]]]]:
    """A stored sweep's JSON and its levels ``(label, [(value, run), ...])``: a plain sweep is one level (named
    by its strategies), a levels sweep has one per level. Each run is looked up where the sweep writes it beside
    its table (``DIR/KNOB=VALUE``, ``DIR/LEVEL/KNOB=VALUE``: the stored path's last one or two folders), else at
    the path the table stores."""
    try:
        doc = json.loads(doc_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot read sweep {path}: {str(exc).splitlines()[0]}") from None
    if not isinstance(doc, dict) or doc.get("schema") not in SWEEP_SCHEMAS:
        raise click.ClickException(f"{path} is neither a run nor a sweep's table (schema "
                                   f"{', '.join(SWEEP_SCHEMAS)})")

    def run_at(stored: str, depth: int) -> Run:
        beside = doc_path.parent.joinpath(*Path(stored).parts[-depth:])
        return open_run(beside if beside.is_dir() else Path(stored))

    try:
        if doc["schema"] == "simcli.sweep/1":
            names = list(dict.fromkeys(doc.get("strategies") or []))
            label = ",".join(names) if len(names) != 1 else names[0]
            return doc, [(label, [(v, run_at(doc["runs"][v], 1)) for v in doc["values"]])]
        return doc, [(lv, [(v, run_at(doc["runs"][lv][v], 2)) for v in doc["values"]]) for lv in doc["levels"]]
    except (KeyError, TypeError) as exc:
        raise click.ClickException(f"sweep {path}: its table lacks {exc} (not written by simcli sweep?)") from None


def gather_levels(paths: list[Path], docs: list[Path], levels: str | None
                  ) -> tuple[dict[str, Any], list[tuple[str, list[tuple[str, Run]]]]]:
    """The first sweep's JSON and the levels of the stored sweeps ``paths`` (their tables ``docs``), in order, or
    those ``levels`` (``L1,L2,...``, split as ``--strategies``) picks; refuses other knobs or fewer than 2 levels."""
    from simcli.players.specs import StrategyLookupError, split_strategy_list

    opened = [open_sweep(p, d) for p, d in zip(paths, docs, strict=True)]
    knobs = {doc["knob"] for doc, _ in opened}
    if len(knobs) > 1:
        raise click.ClickException(f"the sweeps sweep different knobs ({', '.join(sorted(knobs))}): an "
                                   f"interaction compares one knob's effects")
    found: dict[str, list[tuple[str, Run]]] = {}
    for (_, lvls), p in zip(opened, paths, strict=True):
        for label, runs in lvls:
            found[label if label not in found else f"{label} ({p})"] = runs
    if levels is not None:
        try:
            wanted = split_strategy_list(levels)
        except StrategyLookupError as exc:
            raise click.ClickException(f"bad --levels '{levels}': {exc}") from None
        missing = [w for w in wanted if w not in found]
        if missing or len(wanted) < 2:
            raise click.ClickException(f"--levels '{levels}': " + (f"no level '{missing[0]}' in the sweeps"
                                       if missing else "give at least two levels") +
                                       f"; the sweeps have {', '.join(found)}")
        found = {w: found[w] for w in wanted}
    if len(found) < 2:
        raise click.ClickException(f"{paths[0]} has one level ({', '.join(found)}): give a second sweep, or a "
                                   f"sweep played with --levels")
    return opened[0][0], list(found.items())


def sweep_metrics(doc: dict[str, Any]) -> list[str]:
    """The metrics a stored sweep tabulated (its ``metrics``, else the metrics of its rows, in order)."""
    return list(doc.get("metrics") or dict.fromkeys(r["metric"] for r in doc.get("rows", [])))


def compare_sweeps(paths: list[Path], docs: list[Path], metrics: tuple[str, ...], levels: str | None,
                   unpaired: bool, fmt: str, out: Path | None) -> None:
    """``compare`` of stored sweeps: every value's effect at each level and the interaction against the first
    level (the levels of the sweeps given, in order, or those ``--levels`` picks)."""
    from simcli import stats
    from simcli.commands.sweep import levels_long_table, pd_concat, render_levels

    doc0, level_runs = gather_levels(paths, docs, levels)
    found = dict(level_runs)
    key = doc0["knob"]
    try:
        chosen = stats.parse_metrics(metrics, sweep_metrics(doc0))
        for _, runs in level_runs:
            stats.check_strategy_metrics(chosen, list(runs[0][1].manifest.get("strategies") or []))
        table = pd_concat([stats.summary_table(runs, chosen, key=key).assign(level=label)
                           for label, runs in level_runs])
        effects = stats.level_effects(level_runs, chosen, key=key)
        inter = stats.effect_interactions(level_runs, chosen, key=key, paired=False if unpaired else True)
    except stats.StatsError as exc:
        msg = str(exc)
        raise click.ClickException(msg + ("; use --unpaired to compare the levels' effects as two samples"
                                          if "cannot be paired" in msg else "")) from None
    header = [f"Effect of {key} by level: {', '.join(found)} (sweeps {', '.join(map(str, paths))})",
              f"effect = value - baseline {key}={effects['baseline'].iloc[0]} within a level (paired on the game "
              f"index); interaction = effect at a level - effect at {level_runs[0][0]}, "
              + ("unpaired (Welch on the per-unit effects)" if unpaired else
                 "paired on the game index (the mean of d_i(level) - d_i(first))") + "; 95% intervals"]
    meta = {"sweeps": [str(p) for p in paths], "knob": key, "values": [v for v, _ in level_runs[0][1]],
            "levels": list(found), "base_level": level_runs[0][0], "paired": not unpaired,
            "metrics": [m.name for m in chosen]}
    long = levels_long_table(table, effects, inter, key)
    emit(render_levels(table, effects, inter, long, key, fmt, header, meta, "simcli.compare-levels/1"), out)


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
def compare(run_a: Path, run_b: Path | None, metrics: tuple[str, ...], unpaired: bool, bootstrap: int,
            bootstrap_seed: int, levels: str | None, fmt: str, out: Path | None) -> None:
    """Compare RUN_A with RUN_B: difference A - B of each metric with a 95% interval and a p-value.

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
