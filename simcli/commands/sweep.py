"""``simcli sweep``: one run per value of a rule knob (same seeds), then a table and a plot with intervals."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from simcli.commands.common import (
    BackendChoice,
    backend_options,
    complete_knob,
    complete_strategy,
    json_flag,
    rules_file_option,
    seed_option,
    variant_option,
)
from simcli.commands.hints import study_interrupts, study_progress
from simcli.commands.output import reported, save_and_print
from simcli.commands.run import refuse_useless_rotation
from simcli.commands.sweep_strength import DEFAULT_GAMES, is_learnt, strengths, with_strengths
from simcli.players.loading import parse_strategy_list
from simcli.players.specs import StrategyLookupError, split_strategy_list
from simcli.reporting.formatting import FORMATS
from simcli.reporting.levels import levels_study
from simcli.reporting.studies import Setting, check_out, command_line, default_out, play_all, safe_name
from simcli.reporting.sweeps import Sweep, sweep_study
from simcli.rules.knobs import Knob, RuleError, knob
from simcli.rules.presets import load_rules, parse_overrides, read_rules_file
from simcli.runs.preflight import check_strategies

if TYPE_CHECKING:
    from simcli.stats.metrics import Metric

DEFAULT_SWEEP = ("first_player_win", "margin", "deals", "deal_score")


def default_metrics(variant: str, overrides: dict[str, Any]) -> tuple[str, ...]:
    """The default sweep metrics for the variant: with a deal cap (Ponytail plays 4 deals, ``max_hands``) the
    number of deals is nearly constant, so turns per deal take its panel."""
    try:
        capped = load_rules(variant, overrides).max_hands is not None
    except RuleError:
        return DEFAULT_SWEEP  # the rules are refused with their own message when the runs are set up
    return tuple("deal_turns" if m == "deals" and capped else m for m in DEFAULT_SWEEP)


@dataclass(frozen=True)
class Swept:
    """The swept knob(s) of ``--rule``: one knob, or several tied together (``hand_size+pony_size=11,13``: every
    run sets each of them to the same value). ``name`` is what the tables and run folders call it."""

    knobs: tuple[Knob, ...]

    @property
    def name(self) -> str:
        return "+".join(k.name for k in self.knobs)

    @property
    def help(self) -> str:
        return "; ".join(k.help for k in self.knobs)

    def overrides(self, value: str) -> dict[str, str]:
        """The rule overrides of one value: each tied knob set to it."""
        return {k.name: value for k in self.knobs}


def swept_knob(variant: str, rule: str, fixed: tuple[str, ...], rules_file: Path | None,
               metrics: tuple[str, ...]) -> tuple[Swept, list[str], dict[str, Any], list[Metric]]:
    """``--rule KNOB=V1,V2,...`` (or ``KNOB+KNOB=V1,V2,...``, knobs tied to the same value) read: the knob(s) and
    the values, the fixed overrides (``--rules`` then ``--set``) and the metrics, each checked (a knob both swept and
    fixed or named twice, or a value given twice, is refused)."""
    from simcli import stats

    name, sep, raw_values = rule.partition("=")
    if not sep or not raw_values.strip():
        raise click.ClickException(f"bad --rule '{rule}': expected KNOB=V1,V2,... or KNOB+KNOB=V1,V2,...")
    try:
        k = Swept(tuple(knob(n.strip()) for n in name.split("+")))
        base = {**(read_rules_file(rules_file) if rules_file is not None else {}), **parse_overrides(fixed)}
        chosen = stats.parse_metrics(metrics, default_metrics(variant, base))
    except (RuleError, stats.StatsError) as exc:
        raise click.ClickException(str(exc)) from None
    names = [kn.name for kn in k.knobs]
    if len(set(names)) != len(names):
        raise click.ClickException(f"bad --rule '{rule}': knob '{names[0]}' is named twice; tie different knobs")
    for n in names:
        if n in base:
            raise click.ClickException(f"knob '{n}' is both swept (--rule) and fixed (--set)")
    values = stats.split_values(raw_values)
    if len(set(values)) != len(values):
        raise click.ClickException(f"--rule {k.name}: repeated values in {raw_values!r}")
    return k, values, base, chosen


def checked_settings(variant: str, base: dict[str, Any], k: Swept, values: list[str], strategies: str,
                     rotate_seats: bool, chosen: Sequence[Metric], level: str | None = None) -> list[Setting]:
    """One setting ``(value, rules, seats)`` per value of the swept knob, each checked with the metrics before
    anything is played; a level's errors name the level (``level``: its strategy spec)."""
    from simcli import stats

    settings: list[Setting] = []
    for v in values:
        try:
            rs = load_rules(variant, {**base, **k.overrides(v)})
            names = parse_strategy_list(strategies, rs.num_players, rs.n_teams)
            check_strategies([rs], names, label=f"{k.name}={v}")  # every level, before any is played
        except RuleError as exc:
            raise click.ClickException(str(exc)) from None
        except StrategyLookupError as exc:
            raise click.ClickException(str(exc) if level is None else f"bad level '{level}': {exc}") from None
        settings.append((v, rs, names))
    if rotate_seats:
        refuse_useless_rotation(settings[0][2])
    try:
        stats.check_strategy_metrics(chosen, settings[0][2])
    except stats.StatsError as exc:
        raise click.ClickException(str(exc) if level is None else f"level '{level}': {exc}") from None
    return settings


# ------------------------------------------------------------------------------------------- command
@click.command()
@json_flag
@variant_option
@click.option("--rule", "rule", required=True, metavar="KNOB[+KNOB]=V1,V2,...", shell_complete=complete_knob,
              help="the knob to sweep and its values (separate with ';' when values contain commas); "
                   "KNOB+KNOB=V1,V2 ties knobs to the same value in every run, e.g. hand_size+pony_size=11,13")
@click.option("--set", "fixed", multiple=True, metavar="KNOB=VALUE", shell_complete=complete_knob,
              help="fixed rule override for every run")
@rules_file_option
@click.option("--games", "-n", type=click.IntRange(min=2), default=1000, show_default=True, help="games per value")
@seed_option("master seed (the same for every value)")
@click.option("--strategies", "--strategy", "strategy_args", multiple=True, shell_complete=complete_strategy,
              help="one name for every seat, one per team (seated alternately) or one per seat [default: greedy]; "
                   "repeated, each one is a level")
@click.option("--levels", metavar="L1,L2,...", shell_complete=complete_strategy,
              help="skill levels: play the sweep once per strategy spec (every seat) and report the interaction")
@click.option("--strength-games", type=click.IntRange(min=0), default=DEFAULT_GAMES, show_default=True,
              help="with --levels: each learnt level (net) against the variant's heuristic under each value, a "
                   "duplicate match of this many games, reported with the study (0: none)")
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
@click.option("--quiet", "-q", is_flag=True, help="no progress bar and no line per run on stderr")
@reported
def sweep(variant: str, rule: str, fixed: tuple[str, ...], rules_file: Path | None, games: int, seed: int,
          strategy_args: tuple[str, ...], levels: str | None, strength_games: int, rotate_seats: bool,
          metrics: tuple[str, ...], out: Path | None, save: Path | None, jobs: int | None, backend: BackendChoice,
          fmt: str, quiet: bool) -> None:
    """Play one run per value of a rule knob (same master seed and N, so runs are paired game by game) and
    tabulate and plot the chosen metrics against the value, each with its 95% interval, and each value's
    paired difference from the first (the baseline) with its interval and Holm-adjusted p.

    With --levels (or --strategies repeated) the sweep is played at each level, and each value's effect is
    reported per level with the interaction: its effect at a level minus its effect at the first level; a learnt
    level (net) also plays a small duplicate match against the heuristic under each value (--strength-games)."""
    from simcli import stats

    level_specs = parse_levels(levels, strategy_args)
    strategies = strategy_args[0] if strategy_args else "greedy"

    k, values, base, chosen = swept_knob(variant, rule, fixed, rules_file, metrics)
    if level_specs is not None:
        return sweep_levels(variant, rule, k, values, base, fixed, rules_file, games, seed, level_specs, levels,
                            strategy_args, rotate_seats, chosen, out, save, jobs, backend, fmt, quiet, strength_games)
    settings = checked_settings(variant, base, k, values, strategies, rotate_seats, chosen)
    out = out or default_out("sweep", k.name)
    labels = [f"{k.name}={v}" for v in values]
    check_out(out, labels, "sweep")
    jobs = jobs or os.cpu_count() or 1
    cmd = command_line("sweep", [("--variant", variant), ("--rule", rule), ("--set", fixed),
                                 ("--rules", rules_file), ("--games", games),
                                 ("--seed", seed), ("--strategies", strategies), ("--rotate-seats", rotate_seats),
                                 ("--metric", ",".join(m.name for m in chosen)), ("--out", out),
                                 ("--save", save)])
    with study_interrupts(cmd):
        runs = play_all(settings, seed, games, out, jobs, cmd, labels, rotate_seats, backend.open(jobs),
                        **study_progress(quiet))
    prefix = save or out / "sweep"
    try:
        study = sweep_study(Sweep(variant, k.name, k.help, values, fixed, games, seed, rotate_seats, list(chosen), cmd),
                            runs, settings[0][2], prefix.name + ".png", fmt)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    save_and_print(prefix, study)


# ------------------------------------------------------------------------------- skill levels (--levels)
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


def sweep_levels(variant: str, rule: str, k: Swept, values: list[str], base: dict[str, Any], fixed: tuple[str, ...],
                 rules_file: Path | None, games: int, seed: int, level_specs: list[str], levels: str | None,
                 strategy_args: tuple[str, ...], rotate_seats: bool, chosen: Sequence[Metric], out: Path | None,
                 save: Path | None, jobs: int | None, backend: BackendChoice, fmt: str, quiet: bool = False,
                 strength_games: int = DEFAULT_GAMES) -> None:
    """``sweep`` at several levels: one run per (level, value) into ``OUT/<level>/<knob>=<value>`` on the same
    master seed and N (every level and value pairs game by game), then the per-level effects and interactions."""
    from simcli import stats

    if len(values) < 2:
        raise click.ClickException(f"--rule {k.name}={values[0]}: a sweep by level needs at least two values "
                                   f"(the first is the baseline each effect is measured from)")
    plan: list[tuple[str, list[Setting]]] = []
    for spec in level_specs:  # validate every level, value and metric before playing anything
        plan.append((spec, checked_settings(variant, base, k, values, spec, rotate_seats, chosen, level=spec)))
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
                                 # the strength matches are part of the study: a page's command plays them again
                                 ("--strength-games", strength_games if strength_games != DEFAULT_GAMES and
                                  any(is_learnt(s) for s in level_specs) else None),
                                 ("--out", out), ("--save", save)])
    level_runs = []
    pool = backend.open(jobs)  # one backend for every level's runs
    with study_interrupts(cmd):  # play_all keeps finished runs on Ctrl-C; the same command resumes level by level
        for spec, settings in plan:
            level_runs.append((spec, play_all(settings, seed, games, out / safe_name(spec), jobs, cmd, labels,
                                              rotate_seats, pool, **study_progress(quiet))))
    prefix = save or out / "sweep"
    try:
        study = levels_study(Sweep(variant, k.name, k.help, values, fixed, games, seed, rotate_seats, list(chosen),
                                   cmd), level_runs, {s: st[0][2] for s, st in plan}, prefix.name + ".png", fmt)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    arms = [(f"{k.name}={v}", rs) for v, rs, _ in plan[0][1]]  # each value's rules (the same at every level)
    study = with_strengths(study, strengths(variant, level_specs, arms, strength_games, seed, jobs, pool), seed, fmt)
    save_and_print(prefix, study)
