"""``simcli tournament S1,S2,...``: a round robin of duplicate matches, Elo ratings by maximum likelihood."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import (
    BackendChoice,
    backend_options,
    build_rules,
    complete_strategy,
    given_params,
    json_flag,
    refuse_unused,
    rule_option,
    rules_file_option,
    show_traceback,
    variant_option,
)
from simcli.commands.hints import again, build_hint, on_terminal, progress_bar
from simcli.commands.match import DEFAULT_GAMES, pairs_from_games, strategy_spec
from simcli.commands.output import reported
from simcli.duplicate.match import MatchError, MatchState, check_sides, play_match
from simcli.duplicate.resuming import tournament_settings
from simcli.duplicate.tournament import (
    StoredMatch,
    TournamentError,
    TournamentSpec,
    open_folder,
    play_schedule,
    results,
)
from simcli.reporting.matches import save_tournament, tournament_text
from simcli.reporting.studies import default_out
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import ClusterLost


def split_strategies(text: str) -> list[str]:
    """Split ``S1,S2,...``; a ``key=value`` token without a colon continues the previous entry's options."""
    out: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if out and "=" in token and ":" not in token:
            out[-1] += "," + token
        else:
            out.append(token)
    return out


@contextmanager
def series_errors(bar: Any, out: Path, resume: Sequence[str]) -> Iterator[None]:
    """How a series of matches (``tournament``, ``ladder``) ends early: a failed match or a damaged folder is one
    line (with the strategy's traceback under ``--debug``), an unwritable folder names it, and Ctrl-C keeps every
    finished match, prints ``resume`` (the command that continues) and exits 130."""
    try:
        yield
    except (TournamentError, MatchError) as exc:
        bar.close()
        show_traceback(getattr(exc, "traceback", ""))
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write to {out}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        bar.close()
        click.echo(f"\ninterrupted: finished matches are saved in {out}; finish with:\n  {again(resume)}", err=True)
        sys.exit(130)
    except ClusterLost as exc:  # one line (simcli.cli): what is kept, the command that finishes
        bar.close()
        raise exc.keep(f"the finished matches are kept in {out}", list(resume)) from None


def advance(bar: Any, start: int) -> Callable[[MatchState, Any], None]:
    """A match's progress callback moving the tournament's bar to ``start`` plus the match's games so far."""
    def update(state: MatchState, _status: Any) -> None:
        bar.update(start + 2 * len(state.half_points) - bar.n)
    return update


@click.command()
@json_flag
@click.argument("strategies", required=False, shell_complete=complete_strategy)
@variant_option
@rule_option
@rules_file_option
@click.option("--seed", type=int, default=0, show_default=True, help="master seed (the same deals in every match)")
@click.option("--games", "-n", type=int, default=DEFAULT_GAMES, show_default=True,
              help="games per match (even: pairs of two)")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@backend_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="tournament folder [default: results/runs/tournament-<variant>-<time>]")
@click.option("--resume", is_flag=True, help="play only the matches missing in --out (verifying the others)")
@click.option("--bootstrap", type=click.IntRange(min=0), default=0, show_default=True,
              help="rating intervals from B resamples of the pairs (0: Fisher information)")
@click.option("--bootstrap-seed", type=int, default=0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="no progress lines")
@click.pass_context
@reported
def tournament(ctx: click.Context, strategies: str | None, variant: str, rules: tuple[str, ...],
               rules_file: Path | None, seed: int,
               games: int, jobs: int | None, backend: BackendChoice, out: Path | None, resume: bool, bootstrap: int,
               bootstrap_seed: int, fmt: str, quiet: bool) -> None:
    """Round robin of duplicate matches between the strategies S1,S2,...; Elo ratings with intervals."""
    try:
        stored_rules = None
        if resume:
            if out is None:
                raise click.ClickException("--resume needs --out DIR")
            p = tournament_settings(out, {"variant": variant, "seed": seed, "games": games,
                                          "strategies": strategies, "rules": rules or rules_file},
                                    given_params(ctx))
            variant, seed, games, strategies, stored_rules = (p["variant"], p["seed"], p["games"], p["strategies"],
                                                              p["stored_rules"])
        elif not strategies:
            raise click.ClickException("give the strategies as S1,S2,... (at least two)")
        rs = build_rules(variant, rules, rules_file, stored=stored_rules)
    except (TournamentError, KeyError, TypeError, ValueError) as exc:
        raise click.ClickException(str(exc).splitlines()[0] if str(exc) else "unreadable tournament") from None
    names = _players(strategies, rs, variant)
    refuse_unused(ctx, [("bootstrap_seed", bootstrap != 0, "it seeds the resampling of --bootstrap B, which is not "
                                                            "given")])
    pairs = pairs_from_games(games, "--games")
    if bootstrap and pairs < 2:
        raise click.ClickException(f"--bootstrap resamples the pairs of each match: it needs at least 2 pairs "
                                   f"(--games 4), not {pairs}")
    spec = TournamentSpec(variant=variant, rules=rs.formatted(), strategies=tuple(names), seed=seed, pairs=pairs)
    out = out or default_out("tournament", variant)
    finished = _play_round_robin(spec, rs, out, resume, jobs or os.cpu_count() or 1, backend, fmt, quiet)
    data = results(spec, finished, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)
    data["command"] = ["simcli", *sys.argv[1:]]
    save_tournament(out, data)
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(tournament_text(data, out))


def _players(strategies: str, rs: RuleSet, variant: str) -> list[str]:
    """The tournament's strategy specs, each checked: at least two, all different, seated under ``rs``."""
    names = [strategy_spec(s) for s in split_strategies(strategies)]
    if len(names) < 2:
        raise click.ClickException(f"a tournament needs at least two strategies: got {strategies!r}")
    if len(set(names)) != len(names):
        raise click.ClickException(f"strategies must be different: got {', '.join(names)}")
    try:
        check_sides(names, rs, variant)  # two sides, and what the rules tell of each, before any game
    except MatchError as exc:
        raise click.ClickException(str(exc)) from None
    return names


def _play_round_robin(spec: TournamentSpec, rs: RuleSet, out: Path, resume: bool, jobs: int,
                      backend: BackendChoice, fmt: str, quiet: bool) -> list[StoredMatch]:
    """Play (or reuse from ``out``) every match of the round robin on one backend, with a progress bar and a line
    per match."""
    names, pairs = spec.strategies, spec.pairs
    pool = backend.open(jobs)  # one backend for every match (one Dask cluster or client, not one per match)
    say = (lambda line: click.echo(line, err=True)) if fmt == "json" else click.echo
    schedule = spec.schedule()
    build_hint(2 * pairs * len(schedule), list(names), shown=on_terminal(quiet))  # before the bar: its own line
    bar = progress_bar(2 * pairs * len(schedule), f"{spec.variant} round robin", quiet=quiet)
    if not bar.disable:
        say = bar.write  # lines above the bar, not through it
    with series_errors(bar, out, ['tournament', '--resume', '--out', str(out), *backend.words()]):
        open_folder(out, spec, resume, command=["simcli", *sys.argv[1:]])

        def play(i: int, j: int) -> MatchState:
            return play_match(spec.variant, rs, names[i], names[j], spec.seed, pairs, jobs=jobs,
                              batch=min(pairs, 100), progress=advance(bar, bar.n), backend=pool,
                              on_games=bar.update).state

        def settled(n: int, m: StoredMatch, reused: bool) -> None:
            a, b = names[m.i], names[m.j]
            if reused:
                bar.update(2 * pairs)
            if quiet:
                return
            if reused:
                say(f"match {n}/{len(schedule)}: {a} vs {b}: stored, verified (reused)")
            else:
                say(f"match {n}/{len(schedule)}: {a} vs {b}: score of {a} {sum(m.half_points) / (4 * pairs):.3f} "
                    f"over {2 * pairs:,} games")

        finished = play_schedule(out, spec, schedule, play, settled)
    bar.close()
    return finished
