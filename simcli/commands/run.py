"""``simcli run``: thousands of seeded games in parallel into a run directory (Parquet or CSV)."""

from __future__ import annotations

import json
import os
import signal
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import (
    STRATEGIES_HELP,
    BackendChoice,
    backend_options,
    build_rules,
    complete_strategy,
    first_error_message,
    given_params,
    refuse_unused,
    rule_option,
    rules_file_option,
    seed_option,
    show_traceback,
    variant_option,
)
from simcli.commands.hints import again, build_hint, prog
from simcli.players.loading import parse_strategy_list
from simcli.players.specs import StrategyLookupError
from simcli.rules.presets import rules_diff
from simcli.runs.errors import ClusterLost, RunError
from simcli.runs.execute import RunOutcome, execute_run
from simcli.runs.preflight import check_strategies
from simcli.runs.resume import resumed_settings
from simcli.runs.spec import RunSpec, default_chunk_size


def refuse_useless_rotation(names: list[str]) -> None:
    """``--rotate-seats`` with the same strategy in every seat would replay each game identically: refuse it."""
    if len(set(names)) == 1:
        raise click.ClickException(
            f"--rotate-seats with '{names[0]}' in every seat would replay each game as an exact copy (the same "
            "deals and the same players), doubling n without new information; drop --rotate-seats")


def _default_out(variant: str, name: str | None) -> tuple[Path, bool]:
    """``results/runs/<variant>-<name or time>``, claimed by making it: two runs started in the same second
    get ``...-2``, ``...-3`` (a folder made by another process makes ``mkdir`` fail, so no two runs share one).
    Returns the folder and whether it was made here (a failed set-up removes it again)."""
    base = Path("results") / "runs" / f"{variant}-{name or datetime.now().strftime('%Y%m%d-%H%M%S')}"
    if name:
        return base, False  # a chosen name is used as given (and refused if it holds something else)
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"cannot create output folder {base.parent}: {exc.strerror}") from None
    for n in range(1, 1000):
        candidate = base if n == 1 else base.with_name(f"{base.name}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise click.ClickException(f"cannot create output folder {candidate}: {exc.strerror}") from None
        return candidate, True
    raise click.ClickException(f"cannot find a free run name next to {base}; give one with --out or --name")


@click.command()
@variant_option
@click.option("--games", "-n", type=click.IntRange(min=1), default=1000, show_default=True, help="games to play")
@seed_option()
@click.option("--strategies", "--strategy", "strategies", default="greedy", show_default=True, help=STRATEGIES_HELP,
              shell_complete=complete_strategy)
@rule_option
@rules_file_option
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="run directory [default: results/runs/<variant>-<name or time>]")
@click.option("--name", help="run name used in the default --out")
@click.option("--rotate-seats", is_flag=True, help="play every game again with the partnerships swapped")
@click.option("--trace-games", type=click.IntRange(min=0), default=0, show_default=True,
              help="write JSON-lines traces of the first K games to RUN_DIR/traces/")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet", show_default=True)
@click.option("--resume", is_flag=True,
              help="finish or repair the run in --out: checks every finished chunk and table, plays what is "
                   "missing or damaged")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
@click.option("--on-error", type=click.Choice(["stop", "skip"]), default="stop", show_default=True,
              help="a failing game stops the run, or is recorded in errors.parquet and skipped")
@backend_options
@click.option("--chunk-size", type=click.IntRange(min=1), default=None, help="games per chunk [default: from N]")
# Not json_option: --format is the table format here (parquet or csv).
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON instead of text")
@click.pass_context
def run(ctx: click.Context, variant: str, games: int, seed: int, strategies: str, rules: tuple[str, ...],
        rules_file: Path | None, jobs: int | None, out: Path | None, name: str | None, rotate_seats: bool,
        trace_games: int, fmt: str, resume: bool, quiet: bool, on_error: str, backend: BackendChoice,
        chunk_size: int | None, as_json: bool) -> None:
    """Play N seeded games and write games/deals tables to a run directory."""
    refuse_unused(ctx, [("name", out is None, "--name only names the default --out folder, and --out is given")])
    stored_rules: dict[str, Any] | None = None
    if resume:
        if out is None:
            raise click.ClickException("--resume needs --out RUN_DIR")
        try:
            p = resumed_settings(out, {"variant": variant, "games": games, "seed": seed, "strategies": strategies,
                                       "rotate_seats": rotate_seats, "trace_games": trace_games,
                                       "on_error": on_error, "chunk_size": chunk_size, "fmt": fmt},
                                 given_params(ctx))
        except RunError as exc:
            raise click.ClickException(str(exc)) from None
        variant, games, seed, strategies = p["variant"], p["games"], p["seed"], p["strategies"]
        rotate_seats, trace_games, on_error, chunk_size = (p["rotate_seats"], p["trace_games"], p["on_error"],
                                                           p["chunk_size"])
        fmt, stored_rules = p["fmt"], p["stored_rules"]
    rs = build_rules(variant, rules, rules_file, stored=stored_rules)
    try:
        names = parse_strategy_list(strategies, rs.num_players, rs.n_teams)
        check_strategies([rs], names)  # what the rules tell of each strategy, before any game or file
    except StrategyLookupError as exc:
        raise click.ClickException(str(exc)) from None
    if rotate_seats and not resume:  # a resume keeps the stored settings (or refuses other ones itself)
        refuse_useless_rotation(names)
    spec = RunSpec(variant=variant, rules=rs.formatted(), strategies=tuple(names), seed=seed, games=games,
                   rotate_seats=rotate_seats, chunk_size=chunk_size or default_chunk_size(games),
                   on_error=on_error, trace_games=trace_games)
    made_dir = False
    if out is None:
        out, made_dir = _default_out(variant, name)
    jobs = jobs or os.cpu_count() or 1
    outcome = _execute(spec, out, fmt, resume, quiet, backend, jobs, rules_diff(rs), made_dir)
    files = [out / f for f in (f"games.{fmt}", f"deals.{fmt}", f"errors.{fmt}", "run.json") if (out / f).exists()]
    if outcome.errors and not outcome.games:
        # Nothing to analyse: a failure, however --on-error is set (the errors table says why each game failed).
        raise click.ClickException(
            f"every game failed ({outcome.errors:,} of {outcome.errors:,}), the first with: "
            f"{first_error_message(out / f'errors.{fmt}')}; all errors are in {out}/errors.{fmt}"
        )
    if as_json:
        click.echo(json.dumps(_played_json(outcome, out, spec, jobs, backend, files), indent=2))
    else:
        click.echo(_played_text(outcome, out, variant, names, jobs, backend, fmt, files))


def _execute(spec: RunSpec, out: Path, fmt: str, resume: bool, quiet: bool, backend: BackendChoice, jobs: int,
             changed: dict[str, str], made_dir: bool) -> RunOutcome:
    """Play (or finish) the run with a progress bar; a failure is a one-line error, and Ctrl-C, SIGTERM or SIGHUP
    keep the finished chunks (run.json says interrupted), say how to finish and exit 128 + the signal."""
    from tqdm import tqdm

    total = spec.games * (2 if spec.rotate_seats else 1)
    shown = not quiet and sys.stderr.isatty()
    build_hint(total, list(spec.strategies), shown=shown)  # before the bar: a line of its own, not glued to it
    bar = tqdm(total=total, unit="game", desc=f"{spec.variant}", disable=not shown, dynamic_ncols=True,
               smoothing=0.1)
    try:
        outcome = execute_run(spec, out, backend=backend.open(jobs), fmt=fmt, resume=resume,
                              command=["simcli", *sys.argv[1:]], progress=bar.update, rules_diff=changed,
                              notify=lambda message: bar.write(message, file=sys.stderr), made_dir=made_dir)
    except RunError as exc:
        bar.close()
        show_traceback(getattr(exc, "traceback", ""))
        raise click.ClickException(str(exc)) from None
    except ClusterLost:  # one line (simcli.cli): what is kept, the command that finishes
        bar.close()
        raise
    except KeyboardInterrupt as exc:
        # Ctrl-C, SIGTERM or SIGHUP: finished chunks are kept, run.json says interrupted, exit 128 + signal.
        bar.close()
        signum = int(getattr(exc, "signum", signal.SIGINT))
        what = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
        click.echo(f"\n{what}: finished chunks are saved in {out}; finish the run with:\n"
                   f"  {again(['run', '--resume', '--out', str(out), *backend.words()])}", err=True)
        sys.exit(128 + signum)
    bar.close()
    return outcome


def _played_json(outcome: RunOutcome, out: Path, spec: RunSpec, jobs: int, backend: BackendChoice,
                 files: list[Path]) -> dict[str, Any]:
    """What ``run --json`` prints when it is done."""
    return {
        "run_dir": str(out), "status": outcome.status, "variant": spec.variant, "strategies": list(spec.strategies),
        "seed": spec.seed, "games": outcome.games, "deals": outcome.hands, "failed_games": outcome.errors,
        "jobs": jobs, "backend": backend.kind, "wall_seconds": round(outcome.wall_seconds, 3),
        "hands_per_s": round(outcome.hands_per_s, 1) if outcome.hands_per_s else None,
        "files": [str(f) for f in files],
    }


def _played_text(outcome: RunOutcome, out: Path, variant: str, names: list[str], jobs: int, backend: BackendChoice,
                 fmt: str, files: list[Path]) -> str:
    """What ``run`` says when it is done: the games played or kept, the speed, the files and how to report."""
    hands_per_s = (f"{outcome.hands_per_s:,.0f} hands/s" if outcome.hands_per_s
                   else "nothing left to play, the finished run was reused")
    played = (f"Played {outcome.games:,} games" if not outcome.kept else
              f"Kept {outcome.kept:,} games an earlier run had finished and played {outcome.games - outcome.kept:,}"
              f" more, {outcome.games:,} games in all")
    return (
        f"{played} ({outcome.hands:,} deals) of {variant} with {', '.join(dict.fromkeys(names))}"
        f" on {jobs} {backend.kind} job(s): {hands_per_s}"
        + (f", {outcome.errors} failed game(s) in errors.{fmt}" if outcome.errors else "")
        + f".\nResults: {', '.join(str(f) for f in files)} (schemas in docs/results-format.md).\n"
        f"Report on them with: {prog()} report {out}   (or in Python: simcli.results.load('{out}'))"
    )
