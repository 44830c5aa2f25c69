"""``simcli sweep``: one run per value of a rule knob (same seeds), then a table and a plot with intervals.

Also the helpers ``balance`` shares: playing (or reusing) a run and saving a study (Markdown, CSV, JSON, PNG).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from simcli import __version__
from simcli.commands.common import (
    BackendChoice,
    backend_options,
    complete_knob,
    complete_strategy,
    json_flag,
    read_rules_file,
    rules_file_option,
    seed_option,
    show_traceback,
    variant_option,
)
from simcli.commands.hints import again, build_hint, on_terminal, progress_bar
from simcli.commands.plot import save_figure, seats_text, sweep_figure
from simcli.commands.report import FORMATS, dump_json, emit, fmt_ci, fmt_count, fmt_value, open_run, records, text_table
from simcli.commands.run import refuse_useless_rotation
from simcli.players.loading import parse_strategy_list
from simcli.players.specs import StrategyLookupError, split_strategy_list
from simcli.rules.knobs import Knob, RuleError, knob
from simcli.rules.presets import diff, load_rules, parse_overrides
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import Backend
from simcli.runs.errors import RunError
from simcli.runs.execute import execute_run
from simcli.runs.integrity import MANIFEST
from simcli.runs.spec import RunSpec, default_chunk_size

if TYPE_CHECKING:  # imported when a command runs, so `simcli --help` stays fast
    import pandas as pd
    from matplotlib.figure import Figure

    from simcli.runs.results import Run
    from simcli.stats.metrics import Metric

DEFAULT_SWEEP = ("first_player_win", "margin", "deals", "deal_score")


# ------------------------------------------------------------------------------------------ helpers
def default_metrics(variant: str, overrides: dict[str, Any]) -> tuple[str, ...]:
    """The default sweep metrics for the variant: with a deal cap (Ponytail plays 4 deals, ``max_hands``) the
    number of deals is nearly constant, so turns per deal take its panel."""
    try:
        capped = load_rules(variant, overrides).max_hands is not None
    except RuleError:
        return DEFAULT_SWEEP  # the rules are refused with their own message when the runs are set up
    return tuple("deal_turns" if m == "deals" and capped else m for m in DEFAULT_SWEEP)


def make_rules(variant: str, overrides: dict[str, Any], strategies: str) -> tuple[Any, list[str]]:
    """A rule set and the seat strategies, with rule and strategy errors as one-line CLI errors."""
    try:
        rs = load_rules(variant, overrides)
        return rs, parse_strategy_list(strategies, rs.num_players)
    except (RuleError, StrategyLookupError) as exc:
        raise click.ClickException(str(exc)) from None


def play_or_reuse(rs: RuleSet, names: Sequence[str], seed: int, games: int, run_dir: Path, jobs: int,
                  label: str, command: list[str], rotate_seats: bool = False, backend: str | Backend = "local") -> Run:
    """Play a run into ``run_dir``, or reuse/finish the one there when its settings match exactly (on ``backend``:
    the command's open backend, or a name opened for this run)."""
    spec = RunSpec(variant=rs.variant, rules=rs.formatted(), strategies=tuple(names), seed=seed, games=games,
                   rotate_seats=rotate_seats, chunk_size=default_chunk_size(games))
    total = games * (2 if rotate_seats else 1)
    bar = progress_bar(total, label, quiet=False)
    build_hint(total, names, shown=on_terminal(False))
    try:
        outcome = execute_run(spec, run_dir, jobs=jobs, backend=backend, resume=(run_dir / MANIFEST).exists(),
                              command=command,
                              progress=bar.update, rules_diff={k: v[1] for k, v in diff(rs).items()})
    except RunError as exc:
        show_traceback(getattr(exc, "traceback", ""))
        raise click.ClickException(f"{label}: {exc}") from None
    finally:
        bar.close()
    kept = f" (and kept {outcome.kept:,} an earlier run had finished)" if outcome.kept else ""
    what = (f"played {outcome.games - outcome.kept:,} games{kept} in {outcome.wall_seconds:.1f} s"
            if outcome.hands_per_s else "reused the finished run (nothing played)")
    click.echo(f"{label}: {what} -> {run_dir}", err=True)
    return open_run(run_dir)


def play_all(settings: Sequence[tuple[str, Any, Sequence[str]]], seed: int, games: int, out: Path, jobs: int,
             cmd: str, labels: Sequence[str], rotate_seats: bool = False,
             backend: str | Backend = "local") -> list[tuple[str, Run]]:
    """Play (or reuse) one run per setting ``(key, rules, seats)`` into ``out/<label>``, all on ``backend`` (the
    command's open backend). Ctrl-C (or SIGTERM) keeps every finished run and chunk and exits 130 (143) with the
    exact command that continues, as ``run`` does."""
    runs: list[tuple[str, Run]] = []
    try:
        for (key, rs, names), label in zip(settings, labels, strict=True):
            runs.append((key, play_or_reuse(rs, names, seed, games, out / safe_name(label), jobs, label,
                                            shlex.split(cmd), rotate_seats, backend)))
    except KeyboardInterrupt as exc:
        signum = int(getattr(exc, "signum", signal.SIGINT))
        what = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
        click.echo(f"\n{what}: {len(runs)} finished run(s) and the finished chunks of the next are kept in {out}; "
                   f"continue with the same command:\n  {again(shlex.split(cmd)[1:])}", err=True)
        sys.exit(128 + signum)
    return runs


def check_out(out: Path, labels: Sequence[str], kind: str) -> None:
    """Refuse an ``--out`` that holds anything but this command's own runs and tables (a folder of other files),
    before anything is played or written, as ``run`` refuses a non-empty folder that is not a run."""
    if not out.is_dir():
        if out.exists():
            raise click.ClickException(f"--out {out} is a file; give a folder for the runs")
        return
    own = {safe_name(label) for label in labels} | {f"{kind}{ext}" for ext in (".md", ".csv", ".json", ".png")}
    strangers = sorted(p.name for p in out.iterdir() if p.name not in own)
    if strangers:
        shown = ", ".join(strangers[:3]) + (", ..." if len(strangers) > 3 else "")
        raise click.ClickException(f"--out {out} holds files that are not this {kind}'s runs ({shown}); choose an "
                                   f"empty or new folder")


def safe_name(text: str) -> str:
    """A folder name for a run label (knob=value)."""
    return re.sub(r"[^A-Za-z0-9._=,+-]", "_", text)


def default_out(kind: str, name: str) -> Path:
    """``results/runs/<kind>-<name>-<time>``."""
    return Path("results") / "runs" / f"{kind}-{safe_name(name)}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def has_expected(table: pd.DataFrame) -> bool:
    """Whether a summary table holds a model's expected value for some row (the exact cut or pick)."""
    return "expected" in table.columns and bool(table["expected"].notna().any())


def summary_rows(table: pd.DataFrame, key: str) -> list[list[str]]:
    """Rows of a :func:`simcli.stats.summary_table` for a text or Markdown table (with a ``model`` column after
    the interval when some metric has an expected value)."""
    import pandas as pd

    model = has_expected(table)
    rows = []
    for r in table.to_dict(orient="records"):
        unit = r["unit"]
        expected = [] if not model else ["" if pd.isna(r["expected"]) else fmt_value(r["expected"], unit)]
        rows.append([str(r[key]), r["metric"], fmt_count(r["n"]), fmt_count(r.get("n_units")), fmt_count(r["k"]),
                     fmt_value(r["value"], unit),
                     fmt_ci(r["ci_low"], r["ci_high"], unit), *expected, "" if unit == "share" else unit,
                     r["method"]])
    return rows


def diff_rows(diffs: pd.DataFrame, key: str) -> list[list[str]]:
    """Rows of a :func:`simcli.stats.baseline_differences` table for a text or Markdown table."""
    from simcli import stats
    from simcli.commands.report import fmt_p

    units: dict[str, Any] = {}
    rows = []
    for r in diffs.to_dict(orient="records"):
        unit = units.setdefault(r["metric"], stats.metric(r["metric"]).unit)
        diff, ci = fmt_value(r["diff"], unit), fmt_ci(r["diff_ci_low"], r["diff_ci_high"], unit)
        if unit == "share":
            diff, ci = diff.replace("%", " pp"), ci.replace("%", " pp")
        rows.append([f"{r[key]} - {r['baseline']}", r["metric"], fmt_count(r["n"]), diff, ci, r["test"],
                     fmt_p(r["p"]), fmt_p(r["p_holm"]), "" if unit == "share" else unit])
    return rows


def render_summary(table: pd.DataFrame, key: str, fmt: str, header: Sequence[str], schema: str,
                   meta: dict[str, Any], diffs: pd.DataFrame | None = None) -> str:
    """A sweep or balance table in ``table``, ``markdown``, ``csv`` or ``json``; a sweep's ``diffs`` (each value
    against the baseline) join the CSV/JSON rows and follow as a second table in text and Markdown."""
    from simcli import stats

    long = table if diffs is None else stats.with_differences(table, diffs, key)
    if fmt == "csv":
        return long.to_csv(index=False)
    if fmt == "json":
        return dump_json({"schema": schema, **meta, "confidence": stats.CONFIDENCE, "rows": records(long)})
    headers = [key, "metric", "n", "units", "k", "estimate", "95% CI", *(["model"] if has_expected(table) else []),
               "unit", "interval"]
    md = fmt == "markdown"
    body = text_table(headers, summary_rows(table, key), "markdown" if md else "table")
    out = [*header, "", body]
    if diffs is not None and not diffs.empty:
        base = diffs["baseline"].iloc[0]
        out += ["", f"Paired differences from the baseline {key}={base} (same deals game by game; p adjusted with "
                    f"Holm over all {len(diffs)} value-metric pairs):", "",
                text_table([key, "metric", "n", "difference", "95% CI", "test", "p", "p (Holm)", "unit"],
                           diff_rows(diffs, key), "markdown" if md else "table")]
    return "\n".join(out) + "\n"


def save_outputs(prefix: Path, markdown: str, table: pd.DataFrame, json_text: str, fig: Figure) -> list[Path]:
    """Write PREFIX.md, PREFIX.csv, PREFIX.json and PREFIX.png; return the paths."""
    paths = [prefix.with_name(prefix.name + ext) for ext in (".md", ".csv", ".json", ".png")]
    try:
        prefix.parent.mkdir(parents=True, exist_ok=True)
        paths[0].write_text(markdown, encoding="utf-8")
        paths[1].write_text(table.to_csv(index=False), encoding="utf-8")
        paths[2].write_text(json_text + "\n", encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write {prefix}.*: {exc.strerror or exc}") from None
    save_figure(fig, paths[3])
    return paths


def provenance(runs: Sequence[Run]) -> str:
    """simcli version and engine commit of the runs."""
    commits = {str(r.manifest.get("git_commit") or "unknown")[:12] for r in runs}
    return f"simcli {__version__}, engine commit {', '.join(sorted(commits))}"


def command_line(name: str, args: Sequence[tuple[str, Any]]) -> str:
    """The canonical command that regenerates a sweep or balance (options with values, in order)."""
    parts = ["simcli", name]
    for opt, value in args:
        if value is None or value == () or value is False:
            continue
        for v in value if isinstance(value, tuple) else (value,):
            parts += [opt] if v is True else [opt, str(v)]
    return shlex.join(parts)


# ------------------------------------------------------------------------------------------- command
@click.command()
@json_flag
@variant_option
@click.option("--rule", "rule", required=True, metavar="KNOB=V1,V2,...", shell_complete=complete_knob,
              help="the knob to sweep and its values (separate with ';' when values contain commas)")
@click.option("--set", "fixed", multiple=True, metavar="KNOB=VALUE", shell_complete=complete_knob,
              help="fixed rule override for every run")
@rules_file_option
@click.option("--games", "-n", type=click.IntRange(min=2), default=1000, show_default=True, help="games per value")
@seed_option("master seed (the same for every value)")
@click.option("--strategies", "--strategy", "strategy_args", multiple=True, shell_complete=complete_strategy,
              help="one name for every seat, or one per seat [default: greedy]; repeated, each one is a level")
@click.option("--levels", metavar="L1,L2,...", shell_complete=complete_strategy,
              help="skill levels: play the sweep once per strategy spec (every seat) and report the interaction")
@click.option("--rotate-seats", is_flag=True,
              help="play every game again with the partnerships swapped (duplicate pairs; needs two strategies)")
@click.option("--metric", "metrics", multiple=True, metavar="NAME[,NAME...]",
              help=f"metric(s) to tabulate and plot, e.g. strategy_win:NAME [default: {','.join(DEFAULT_SWEEP)}; "
                   "deal_turns for deals when games have a deal cap, as in Ponytail]")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="folder for the runs (one per value) [default: results/runs/sweep-<knob>-<time>]")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path),
              help="write PREFIX.md/.csv/.json/.png [default: OUT/sweep]")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@backend_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="format of the table printed on stdout")
def sweep(variant: str, rule: str, fixed: tuple[str, ...], rules_file: Path | None, games: int, seed: int,
          strategy_args: tuple[str, ...], levels: str | None, rotate_seats: bool, metrics: tuple[str, ...],
          out: Path | None, save: Path | None, jobs: int | None, backend: BackendChoice, fmt: str) -> None:
    """Play one run per value of a rule knob (same master seed and N, so runs are paired game by game) and
    tabulate and plot the chosen metrics against the value, each with its 95% interval, and each value's
    paired difference from the first (the baseline) with its interval and Holm-adjusted p.

    With --levels (or --strategies repeated) the sweep is played at each level, and each value's effect is
    reported per level with the interaction: its effect at a level minus its effect at the first level."""
    from simcli import stats

    level_specs = parse_levels(levels, strategy_args)
    strategies = strategy_args[0] if strategy_args else "greedy"

    name, sep, raw_values = rule.partition("=")
    if not sep or not raw_values.strip():
        raise click.ClickException(f"bad --rule '{rule}': expected KNOB=V1,V2,...")
    try:
        k = knob(name.strip())
        base = {**(read_rules_file(rules_file) if rules_file is not None else {}), **parse_overrides(fixed)}
        chosen = stats.parse_metrics(metrics, default_metrics(variant, base))
    except (RuleError, stats.StatsError) as exc:
        raise click.ClickException(str(exc)) from None
    if k.name in base:
        raise click.ClickException(f"knob '{k.name}' is both swept (--rule) and fixed (--set)")
    values = stats.split_values(raw_values)
    if len(set(values)) != len(values):
        raise click.ClickException(f"--rule {k.name}: repeated values in {raw_values!r}")
    if level_specs is not None:
        return sweep_levels(variant, rule, k, values, base, fixed, rules_file, games, seed, level_specs, levels,
                            strategy_args, rotate_seats, chosen, out, save, jobs, backend, fmt)
    settings = []
    for v in values:  # validate every value before playing anything
        rs, names = make_rules(variant, {**base, k.name: v}, strategies)
        settings.append((v, rs, names))
    if rotate_seats:
        refuse_useless_rotation(settings[0][2])
    try:
        stats.check_strategy_metrics(chosen, settings[0][2])
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    out = out or default_out("sweep", k.name)
    check_out(out, [f"{k.name}={v}" for v, _, _ in settings], "sweep")
    jobs = jobs or os.cpu_count() or 1
    cmd = command_line("sweep", [("--variant", variant), ("--rule", rule), ("--set", fixed),
                                 ("--rules", rules_file), ("--games", games),
                                 ("--seed", seed), ("--strategies", strategies), ("--rotate-seats", rotate_seats),
                                 ("--metric", ",".join(m.name for m in chosen)), ("--out", out),
                                 ("--save", save)])
    runs = play_all(settings, seed, games, out, jobs, cmd, [f"{k.name}={v}" for v, _, _ in settings], rotate_seats,
                    backend.open(jobs))
    try:
        table = stats.summary_table(runs, chosen, key=k.name)
        diffs = stats.baseline_differences(runs, chosen, key=k.name)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    strat = seats_text(settings[0][2])
    per_value = f"{games:,} games{' x 2 seatings' if rotate_seats else ''} per value"
    title = (f"variant {variant}: sweep of {k.name} (strategies {strat}; {per_value}, seed {seed})"
             + (f"\nfixed: {', '.join(fixed)}" if fixed else ""))
    meta = {"variant": variant, "knob": k.name, "values": values, "baseline": values[0], "fixed": list(fixed),
            "games": games, "seed": seed, "strategies": settings[0][2], "rotate_seats": rotate_seats,
            "command": cmd, "runs": {v: str(r.path) for v, r in runs}}
    header = [f"Sweep of {k.name} over {', '.join(values)}: variant {variant}; strategies {strat}; {per_value}, "
              f"seed {seed}" + (f"; fixed {', '.join(fixed)}" if fixed else ""),
              "Runs share the master seed, so game i is dealt the same cards in every run (until the rules make "
              "play differ). n = observations (games or deals); units = independent units (game indices); "
              "95% intervals."]
    prefix = save or out / "sweep"
    md = "\n".join([f"# {k.name} sweep", "", f"Regenerate: `{cmd}`", "",
                    f"Made with {provenance([r for _, r in runs])}.", "", f"![{k.name} sweep]({prefix.name}.png)", "",
                    render_summary(table, k.name, "markdown", header, "", {}, diffs)])
    fig = sweep_figure(table, diffs, k.name, chosen, title, f"{k.name}: {k.help}", rotate_seats)
    paths = save_outputs(prefix, md, stats.with_differences(table, diffs, k.name),
                         render_summary(table, k.name, "json", [], "simcli.sweep/1", meta, diffs), fig)
    emit(render_summary(table, k.name, fmt, header, "simcli.sweep/1", meta, diffs), None)
    click.echo("saved " + ", ".join(map(str, paths)), err=True)


# ------------------------------------------------------------------------------- skill levels (--levels)
LEVELS_SCHEMA = "simcli.sweep-levels/1"


def parse_levels(levels: str | None, strategy_args: Sequence[str]) -> list[str] | None:
    """The levels of a levels sweep, or None for a plain sweep. ``--levels L1,L2`` gives one strategy spec per
    level (split as ``--strategies`` is, so ``mc:samples=8,depth=2`` stays one spec), each playing every seat;
    ``--strategies`` repeated gives one level per occurrence, each read as a plain ``--strategies`` (one spec for
    every seat or one per seat). The two spellings do not mix: that would leave two meanings of a seat's strategy."""
    if levels is not None:
        if strategy_args:
            raise click.ClickException("--levels and --strategies do not mix: give the levels with --levels "
                                       "L1,L2,... or with one --strategies per level")
        try:
            specs = split_strategy_list(levels)
        except StrategyLookupError as exc:
            raise click.ClickException(f"bad --levels '{levels}': {exc}") from None
        if len(specs) < 2:
            raise click.ClickException(f"--levels '{levels}' names {len(specs)} level(s); give at least two "
                                       f"strategy specs, e.g. --levels greedy,ponytail")
    elif len(strategy_args) > 1:
        specs = list(strategy_args)
    else:
        return None
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        raise click.ClickException(f"level '{repeated[0]}' is given twice; each level must be another strategy "
                                   f"setting")
    folders = [safe_name(s) for s in specs]
    if len(set(folders)) != len(folders):
        raise click.ClickException(f"levels {', '.join(specs)} would share a run folder name; rename one")
    return specs


def sweep_levels(variant: str, rule: str, k: Knob, values: list[str], base: dict[str, Any], fixed: tuple[str, ...],
                 rules_file: Path | None, games: int, seed: int, level_specs: list[str], levels: str | None,
                 strategy_args: tuple[str, ...], rotate_seats: bool, chosen: Sequence[Metric], out: Path | None,
                 save: Path | None, jobs: int | None, backend: BackendChoice, fmt: str) -> None:
    """``sweep`` at several levels: one run per (level, value) into ``OUT/<level>/<knob>=<value>`` on the same
    master seed and N (every level and value pairs game by game), then the per-level effects and interactions."""
    from simcli import stats

    if len(values) < 2:
        raise click.ClickException(f"--rule {k.name}={values[0]}: a sweep by level needs at least two values "
                                   f"(the first is the baseline each effect is measured from)")
    plan: list[tuple[str, list[tuple[str, RuleSet, list[str]]]]] = []
    for spec in level_specs:  # validate every level, value and metric before playing anything
        settings = []
        for v in values:
            try:
                rs = load_rules(variant, {**base, k.name: v})
                names = parse_strategy_list(spec, rs.num_players)
            except RuleError as exc:
                raise click.ClickException(str(exc)) from None
            except StrategyLookupError as exc:
                raise click.ClickException(f"bad level '{spec}': {exc}") from None
            settings.append((v, rs, names))
        if rotate_seats:
            refuse_useless_rotation(settings[0][2])
        try:
            stats.check_strategy_metrics(chosen, settings[0][2])
        except stats.StatsError as exc:
            raise click.ClickException(f"level '{spec}': {exc}") from None
        plan.append((spec, settings))
    out = out or default_out("sweep", k.name)
    check_out(out, level_specs, "sweep")
    labels = [f"{k.name}={v}" for v in values]
    for spec in level_specs:
        check_out(out / safe_name(spec), labels, "sweep")
    jobs = jobs or os.cpu_count() or 1
    cmd = command_line("sweep", [("--variant", variant), ("--rule", rule), ("--set", fixed),
                                 ("--rules", rules_file), ("--games", games), ("--seed", seed),
                                 ("--levels", levels), ("--strategies", strategy_args if not levels else ()),
                                 ("--rotate-seats", rotate_seats), ("--metric", ",".join(m.name for m in chosen)),
                                 ("--out", out), ("--save", save)])
    level_runs = []
    pool = backend.open(jobs)  # one backend for every level's runs
    for spec, settings in plan:  # play_all keeps finished runs on Ctrl-C; the same command resumes level by level
        level_runs.append((spec, play_all(settings, seed, games, out / safe_name(spec), jobs, cmd,
                                          labels, rotate_seats, pool)))
    try:
        table = pd_concat([stats.summary_table(runs, chosen, key=k.name).assign(level=spec)
                           for spec, runs in level_runs])
        effects = stats.level_effects(level_runs, chosen, key=k.name)
        inter = stats.effect_interactions(level_runs, chosen, key=k.name)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    per_value = f"{games:,} games{' x 2 seatings' if rotate_seats else ''} per level and value"
    lv = ", ".join(level_specs)
    header = [f"Sweep of {k.name} over {', '.join(values)} at levels {lv}: variant {variant}; {per_value}, seed "
              f"{seed}" + (f"; fixed {', '.join(fixed)}" if fixed else ""),
              "Every level and value shares the master seed, so game i is dealt the same cards in every run. "
              f"effect = value - baseline {k.name}={values[0]} at a level (paired on the game index); interaction "
              f"= effect at a level - effect at the first level {level_specs[0]} (paired on the game index: the "
              "mean of d_i(level) - d_i(first)); 95% intervals, p adjusted with Holm within each table."]
    meta = {"variant": variant, "knob": k.name, "values": values, "baseline": values[0], "levels": level_specs,
            "base_level": level_specs[0], "level_strategies": {s: st[0][2] for s, st in plan},
            "metrics": [m.name for m in chosen], "fixed": list(fixed), "games": games, "seed": seed,
            "rotate_seats": rotate_seats, "command": cmd,
            "runs": {s: {v: str(r.path) for v, r in runs} for s, runs in level_runs}}
    prefix = save or out / "sweep"
    long = levels_long_table(table, effects, inter, k.name)
    title = f"variant {variant}: effect of {k.name} by level ({per_value}, seed {seed})"
    md = "\n".join([f"# {k.name} sweep by level", "", f"Regenerate: `{cmd}`", "",
                    f"Made with {provenance([r for _, runs in level_runs for _, r in runs])}.", "",
                    f"![{k.name} effect by level]({prefix.name}.png)", "",
                    render_levels(table, effects, inter, long, k.name, "markdown", header, meta)])
    fig = levels_figure(effects, inter, k.name, level_specs, chosen, title, f"{k.name}: {k.help}")
    paths = save_outputs(prefix, md, long, render_levels(table, effects, inter, long, k.name, "json", [], meta), fig)
    emit(render_levels(table, effects, inter, long, k.name, fmt, header, meta), None)
    click.echo("saved " + ", ".join(map(str, paths)), err=True)


def pd_concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Summary tables of several levels stacked, the ``level`` column first."""
    import pandas as pd

    out = pd.concat(frames, ignore_index=True)
    return out[["level", *[c for c in out.columns if c != "level"]]]


def levels_long_table(table: pd.DataFrame, effects: pd.DataFrame, inter: pd.DataFrame, key: str) -> pd.DataFrame:
    """One row per (level, value, metric): the value with its interval, its effect against the baseline value
    (``diff*``, null on the baseline) and its interaction against the first level (``inter*``, null on the
    baseline and on the first level)."""
    from simcli import stats

    eff = effects.rename(columns={"test": "diff_test", "n": "n_pairs"})
    it = inter.rename(columns={c: f"inter_{c}" for c in inter.columns if c not in ("level", key, "metric")})
    it = it.drop(columns=["inter_baseline", "inter_effect"])
    on = ["level", key, "metric"]
    frames = [table.assign(**{key: table[key].astype(str)})]
    for extra in (eff, it):
        frames.append(frames[-1].merge(extra.assign(**{key: extra[key].astype(str)}), on=on, how="left"))
    return stats.integer_counts(frames[-1], ("n", "n_units", "n_pairs", "k", "inter_n"))


def _pp(text: str, unit: str) -> str:
    """A share's difference in percentage points (``5.0 pp``), as the sweep's difference table writes it."""
    return text.replace("%", " pp") if unit == "share" else text


def interaction_rows(inter: pd.DataFrame, key: str) -> list[list[str]]:
    """Rows of a :func:`simcli.stats.effect_interactions` table for a text or Markdown table."""
    from simcli import stats
    from simcli.commands.report import fmt_p

    rows = []
    for r in inter.to_dict(orient="records"):
        unit = stats.metric(r["metric"]).unit
        rows.append([f"{r['level']} vs {r['base_level']}", f"{r[key]} - {r['baseline']}", r["metric"],
                     fmt_count(r["n"]), _pp(fmt_value(r["effect"], unit), unit),
                     _pp(fmt_value(r["base_effect"], unit), unit), _pp(fmt_value(r["interaction"], unit), unit),
                     _pp(fmt_ci(r["ci_low"], r["ci_high"], unit), unit), r["test"], fmt_p(r["p"]),
                     fmt_p(r["p_holm"]), "" if unit == "share" else unit])
    return rows


INTERACTION_HEADERS = ["levels", "value", "metric", "n", "effect", "effect (first level)", "interaction", "95% CI",
                       "test", "p", "p (Holm)", "unit"]


def render_levels(table: pd.DataFrame, effects: pd.DataFrame, inter: pd.DataFrame, long: pd.DataFrame, key: str,
                  fmt: str, header: Sequence[str], meta: dict[str, Any], schema: str = LEVELS_SCHEMA) -> str:
    """A levels sweep in ``table``, ``markdown``, ``csv`` (the long table) or ``json`` (``schema``, meta and the
    long rows)."""
    from simcli import stats

    if fmt == "csv":
        return long.to_csv(index=False)
    if fmt == "json":
        return dump_json({"schema": schema, **meta, "confidence": stats.CONFIDENCE, "rows": records(long)})
    style = "markdown" if fmt == "markdown" else "table"
    value_rows = [[lvl, *row] for lvl, row in zip(table["level"], summary_rows(table, key), strict=True)]
    effect_rows = [[lvl, *row] for lvl, row in zip(effects["level"], diff_rows(effects, key), strict=True)]
    model = ["model"] if has_expected(table) else []
    return "\n".join([
        *header, "", "Values:", "",
        text_table(["level", key, "metric", "n", "units", "k", "estimate", "95% CI", *model, "unit", "interval"],
                   value_rows, style), "",
        f"Effects: each value against the baseline {key}={effects['baseline'].iloc[0]} at its level (p Holm over "
        f"all {len(effects)} level-value-metric rows):", "",
        text_table(["level", key, "metric", "n", "effect", "95% CI", "test", "p", "p (Holm)", "unit"],
                   effect_rows, style), "",
        f"Interactions: a value's effect at a level minus its effect at {inter['base_level'].iloc[0]} (does the "
        f"effect depend on the level? p Holm over all {len(inter)} rows):", "",
        text_table(INTERACTION_HEADERS, interaction_rows(inter, key), style)]) + "\n"


def levels_figure(effects: pd.DataFrame, inter: pd.DataFrame, key: str, level_specs: Sequence[str],
                  metrics: Sequence[Metric], title: str, caption: str = "") -> Figure:
    """One panel per metric: each value's effect (against the baseline value) at each level, with its 95%
    interval; ``*`` over a level marks an interaction with Holm-adjusted p < 0.05 (its effect differs from the
    first level's)."""
    import numpy as np

    from simcli.commands.plot import axis_label, new_figure, short_labels, wrap

    per_row = min(len(metrics), 3)
    blocks = -(-len(metrics) // 3)
    fig = new_figure(4.4 * per_row, 3.8 * blocks + 1.4)
    ticks, legend = short_labels(list(level_specs), 12)
    values = list(dict.fromkeys(effects[key].astype(str)))
    width = 0.6 / max(1, len(values))
    for i, m in enumerate(metrics):
        ax = fig.add_subplot(blocks, per_row, i + 1)
        scale = 100.0 if m.unit == "share" else 1.0
        for j, v in enumerate(values):
            sub = effects[(effects["metric"] == m.name) & (effects[key].astype(str) == v)]
            pos = {s: n for n, s in enumerate(level_specs)}
            xs = np.array([pos[s] for s in sub["level"]], dtype=float) + (j - (len(values) - 1) / 2) * width
            y = sub["diff"].to_numpy(float) * scale
            lo, hi = sub["diff_ci_low"].to_numpy(float) * scale, sub["diff_ci_high"].to_numpy(float) * scale
            ax.errorbar(xs, y, yerr=[y - lo, hi - y], fmt="o", capsize=4, label=f"{key}={v}")
            marks = inter[(inter["metric"] == m.name) & (inter[key].astype(str) == v)]
            for x, top, p in zip(xs[1:], hi[1:], marks["p_holm"].to_numpy(float), strict=False):
                if p < 0.05:
                    ax.annotate("*", (x, top), ha="center", va="bottom", fontsize="large")
        ax.axhline(0, color="grey", linewidth=1)
        ax.margins(y=0.15)
        ax.set_xticks(range(len(level_specs)), ticks)
        ax.set_xlim(-0.5, len(level_specs) - 0.5)
        unit = "pp" if m.unit == "share" else m.unit
        ax.set_ylabel(wrap(f"effect on {axis_label(m, summary=True)}".replace(f"({m.unit})", f"({unit})")
                           .replace("(%)", "(pp)"), 34), fontsize="small")
        ax.set_xlabel("level")
        ax.set_title(wrap(m.label, 40), fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize="small")
    fig.suptitle(title)
    baseline = effects["baseline"].iloc[0]
    notes = [caption, f"Each value's paired effect against {key}={baseline} at each level, with its 95% interval; "
                      f"* marks an interaction (effect at the level minus effect at {level_specs[0]}, paired on "
                      "the game index) with Holm-adjusted p < 0.05.", *(["; ".join(legend)] if legend else [])]
    fig.supxlabel(wrap("\n".join(n for n in notes if n), int(15 * 4.4 * per_row)), fontsize="small", ha="center")
    return fig
