"""``simcli ladder --variant V``: a ladder of players on one Elo scale (greedy = 0), resumable match by match."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import (
    SEED,
    BackendChoice,
    BoundedInt,
    backend_options,
    build_rules,
    given_params,
    json_flag,
    rule_option,
    rules_file_option,
    seed_option,
    variant_option,
)
from simcli.commands.hints import build_hint, on_terminal, progress_bar
from simcli.commands.match import strategy_spec
from simcli.commands.output import reported
from simcli.commands.tournament import advance, series_errors
from simcli.duplicate.ladder import (
    DEFAULT_BOOTSTRAP,
    LadderError,
    LadderSpec,
    check_rungs,
    default_rungs,
)
from simcli.duplicate.ladder_results import results
from simcli.duplicate.match import MatchError, MatchState, check_sides, play_match
from simcli.duplicate.resuming import ladder_settings
from simcli.duplicate.tournament import StoredMatch, TournamentError, open_folder, play_schedule
from simcli.players.specs import StrategyLookupError, split_strategy_list
from simcli.reporting.matches import ladder_text, save_ladder
from simcli.reporting.studies import default_out
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import Backend

#: Pairs of a neighbour match by default (200 games).
DEFAULT_PAIRS = 100


def parse_rungs(text: str) -> list[str]:
    """``A,B,...`` as strategy specs (a ``key=value`` without a colon continues the previous spec's options), each
    checked; a one-line error names a rung that cannot be loaded."""
    try:
        specs = split_strategy_list(text)
    except StrategyLookupError as exc:
        raise click.ClickException(f"bad --rungs {text!r}: {exc}") from None
    return [strategy_spec(s) for s in specs]


def play_one(spec: LadderSpec, rules: RuleSet, i: int, j: int, *, jobs: int, bar: Any,
             backend: Backend | str = "local") -> MatchState:
    """Play the ladder's match of rungs ``i`` and ``j`` (its own seed and pairs). The one place the ladder plays
    games: ``backend`` (the command's one open backend: local processes or a Dask client) is passed on here."""
    pairs = spec.match_pairs(i, j)
    return play_match(spec.variant, rules, spec.rungs[i], spec.rungs[j], spec.match_seed(i, j), pairs, jobs=jobs,
                      batch=min(pairs, 100), progress=advance(bar, bar.n), backend=backend,
                      on_games=bar.update).state


@click.command()
@json_flag
@variant_option
@rule_option
@rules_file_option
@click.option("--rungs", "rungs_text", metavar="A,B,...",
              help="the players, weak to strong [default: random, greedy, the variant's heuristic, net where its "
                   "model was trained under these rules, mc:samples=4, mc, ismcts when installed, oracle]")
@seed_option("ladder seed: each match's seed derives from it and the match's two rungs")
@click.option("--pairs", type=BoundedInt(2, 10**9, "the intervals resample each match's pairs"),
              default=DEFAULT_PAIRS, show_default=True,
              help="duplicate pairs (two games each) of each neighbour match")
@click.option("--jump-pairs", type=BoundedInt(0, 10**9), default=None,
              help="pairs of each jump match (rung i against i+2; 0: none) [default: --pairs]")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@backend_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="ladder folder [default: results/runs/ladder-<variant>-<time>]")
@click.option("--resume", is_flag=True, help="play only the matches missing in --out (verifying the others)")
@click.option("--bootstrap", type=BoundedInt(10, 10**7), default=DEFAULT_BOOTSTRAP, show_default=True,
              help="resamples of the pairs for the 95% intervals")
@click.option("--bootstrap-seed", type=SEED, default=0, show_default=True, help="seed of the resampling")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: the Markdown report (ladder.md); json: ratings.json")
@click.option("--quiet", "-q", is_flag=True, help="no progress lines")
@click.pass_context
@reported
def ladder(ctx: click.Context, variant: str, rules: tuple[str, ...], rules_file: Path | None,
           rungs_text: str | None, seed: int, pairs: int, jump_pairs: int | None, jobs: int | None,
           backend: BackendChoice, out: Path | None, resume: bool, bootstrap: int, bootstrap_seed: int, fmt: str,
           quiet: bool) -> None:
    """Rate a ladder of players (weak to strong) on one Elo scale with greedy = 0, from duplicate matches of
    neighbouring rungs and of rungs two apart; upset rates, the Elo span and the share of the heuristic-to-oracle
    gap that search closes."""
    try:
        stored_rules = None
        if resume:
            if out is None:
                raise click.ClickException("--resume needs --out DIR")
            p = ladder_settings(out, {"variant": variant, "seed": seed, "pairs": pairs, "jump_pairs": jump_pairs,
                                      "bootstrap": bootstrap, "bootstrap_seed": bootstrap_seed,
                                      "rungs_text": rungs_text, "rules": rules or rules_file}, given_params(ctx))
            variant, seed, pairs, jump_pairs = p["variant"], p["seed"], p["pairs"], p["jump_pairs"]
            bootstrap, bootstrap_seed, rungs_text, stored_rules = (p["bootstrap"], p["bootstrap_seed"],
                                                                   p["rungs_text"], p["stored_rules"])
        rs = build_rules(variant, rules, rules_file, stored=stored_rules)
    except (TournamentError, KeyError, TypeError, ValueError) as exc:
        raise click.ClickException(str(exc).splitlines()[0] if str(exc) else "unreadable ladder") from None
    names = parse_rungs(rungs_text) if rungs_text else default_rungs(variant, rs)
    if jump_pairs is None:
        jump_pairs = pairs
    if jump_pairs == 1:
        raise click.ClickException("--jump-pairs must be 0 (no jumps) or at least 2: the intervals resample the "
                                   "pairs of each match")
    try:
        check_rungs(names)
        check_sides(names, rs, variant)  # two sides, and what the rules tell of each, before any game
    except (LadderError, MatchError) as exc:
        raise click.ClickException(str(exc)) from None
    spec = LadderSpec(variant=variant, rules=rs.formatted(), rungs=tuple(names), seed=seed, pairs=pairs,
                      jump_pairs=jump_pairs, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)
    out = out or default_out("ladder", variant)
    finished = _play_ladder(spec, rs, out, resume, jobs or os.cpu_count() or 1, backend, fmt, quiet)
    data = results(spec, finished)
    save_ladder(out, data)
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(ladder_text(data, out))


def _play_ladder(spec: LadderSpec, rs: RuleSet, out: Path, resume: bool, jobs: int, backend: BackendChoice,
                 fmt: str, quiet: bool) -> list[StoredMatch]:
    """Play (or reuse from ``out``) every match of the ladder on one backend, with a progress bar and a line per
    match."""
    names = spec.rungs
    pool = backend.open(jobs)  # one backend for every match (one Dask cluster or client, not one per match)
    say = (lambda line: click.echo(line, err=True)) if fmt == "json" else click.echo
    schedule = spec.schedule()
    total = sum(2 * spec.match_pairs(i, j) for i, j in schedule)
    build_hint(total, list(names), shown=on_terminal(quiet))  # before the bar: a line of its own
    bar = progress_bar(total, f"{spec.variant} ladder", quiet=quiet)
    if not bar.disable:
        say = bar.write  # lines above the bar, not through it

    def settled(n: int, m: StoredMatch, reused: bool) -> None:
        a, b, games = names[m.i], names[m.j], 2 * len(m.half_points)
        if reused:
            bar.update(games)
        if not quiet:
            what = ("stored, verified (reused)" if reused else
                    f"score of {a} {sum(m.half_points) / (2 * games):.3f} over {games:,} games")
            say(f"match {n}/{len(schedule)} ({spec.match_kind(m.i, m.j)}, seed {spec.match_seed(m.i, m.j)}): "
                f"{a} vs {b}: {what}")

    with series_errors(bar, out, ['ladder', '--resume', '--out', str(out), *backend.words()]):
        open_folder(out, spec, resume, command=["simcli", *sys.argv[1:]])
        finished = play_schedule(out, spec, schedule, lambda i, j: play_one(spec, rs, i, j, jobs=jobs, bar=bar,
                                                                                backend=pool),
                                 settled)
    bar.close()
    return finished
