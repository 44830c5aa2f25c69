"""``simcli match A B``: a duplicate match between two strategies, with an optional SPRT."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any, NoReturn

import click
from click.core import ParameterSource

from simcli.commands.common import (
    BackendChoice,
    backend_options,
    build_rules,
    complete_strategy,
    json_flag,
    rule_option,
    rules_file_option,
    show_traceback,
    variant_option,
)
from simcli.commands.hints import again, build_hint, on_terminal, progress_bar
from simcli.duplicate.match import BatchCounts, MatchError, MatchState, SprtSettings, play_match, seat_strategies
from simcli.duplicate.match_store import MatchSpec, MatchStoreError, write_batch, write_result
from simcli.duplicate.pairs import DuplicateError
from simcli.duplicate.sprt import parse_sprt
from simcli.players.loading import parse_strategy_list
from simcli.players.specs import StrategyLookupError, split_strategy_list
from simcli.reporting.formatting import fmt_elo
from simcli.reporting.matches import match_json, match_text
from simcli.reporting.studies import safe_name
from simcli.runs.backends import ClusterLost
from simcli.runs.lost import kept_of_store
from simcli.runs.preflight import CannotPlay, check_strategies

DEFAULT_GAMES = 1000
DEFAULT_MAX_GAMES = 20000


def strategy_spec(text: str, side: str | None = None) -> str:
    """One strategy spec, validated (a one-line error naming it when it is unknown). ``side`` (A or B) names the
    argument of ``match``, which takes exactly one strategy per side."""
    try:
        several = len(split_strategy_list(text)) > 1
        if several and side is not None:
            raise click.ClickException(
                f"match takes one strategy per side (A against B): {side} is {text!r}; to rate several "
                f"strategies against each other use `simcli tournament {text},...`")
        if several:
            raise StrategyLookupError(f"'{text}' names several strategies; give one strategy spec here")
        names = parse_strategy_list(text, 1)
    except StrategyLookupError as exc:
        raise click.ClickException(str(exc)) from None
    return names[0]


def pairs_from_games(games: int, option: str) -> int:
    """Games to pairs: each pair is two games, so the count must be even."""
    if games < 2 or games % 2:
        raise click.ClickException(f"{option} must be an even number of at least 2 (each pair is two games): "
                                   f"got {games}")
    return games // 2


def sprt_settings(sprt_text: str, alpha: float, beta: float, elo_model: str) -> SprtSettings:
    """The ``--sprt elo0=E0,elo1=E1`` test, checked (a one-line error for a bad one)."""
    try:
        elo0, elo1 = parse_sprt(sprt_text)
        settings = SprtSettings(elo0, elo1, alpha, beta, elo_model)
        settings.bounds()
    except DuplicateError as exc:
        raise click.ClickException(str(exc)) from None
    return settings


def pairs_to_play(games: int | None, max_games: int | None, sprt: bool) -> int:
    """Pairs of a fixed-N match (``--games``) or the most a sequential one may play (``--max-games``)."""
    if sprt:
        if games is not None:
            raise click.ClickException("--games plays a fixed number of games; with --sprt use --max-games")
        return pairs_from_games(max_games if max_games is not None else DEFAULT_MAX_GAMES, "--max-games")
    if max_games is not None:
        raise click.ClickException("--max-games goes with --sprt; without it use --games")
    return pairs_from_games(games if games is not None else DEFAULT_GAMES, "--games")


def resumed_settings(ctx: click.Context, out: Path, params: dict[str, Any]) -> dict[str, Any]:
    """The command's parameters with every one not given on this command line taken from ``out/match.json``."""
    from simcli.duplicate.match_store import stored_spec

    try:
        stored = stored_spec(out)
    except MatchStoreError as exc:
        raise click.ClickException(str(exc)) from None

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE

    merged = dict(params)
    for name in ("variant", "seed", "batch"):
        if not given(name):
            merged[name] = stored[name]
    merged["a"] = params["a"] or stored["a"]
    merged["b"] = params["b"] or stored["b"]
    sprt = stored.get("sprt")
    if not given("sprt_text") and sprt is not None:
        merged["sprt_text"] = f"elo0={sprt['elo0']:g},elo1={sprt['elo1']:g}"
        for name in ("alpha", "beta"):
            merged[name] = params[name] if given(name) else sprt[name]
        merged["elo_model"] = params["elo_model"] if given("elo_model") else sprt["model"]
    key = "max_games" if merged["sprt_text"] is not None else "games"
    if not given("games") and not given("max_games"):
        merged[key] = 2 * int(stored["pairs"])
    merged["stored_rules"] = None if params["rules"] else stored["rules"]
    return merged


def open_store(out: Path | None, spec: MatchSpec, resume: bool) -> dict[int, BatchCounts]:
    """Make or check the ``--out`` folder; the batches a resume keeps (naming those it must play again)."""
    from simcli.duplicate.match_store import open_folder, read_batches

    if out is None:
        return {}
    try:
        open_folder(out, spec, resume, command=["simcli", *sys.argv[1:]])
    except MatchStoreError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write to {out}: {exc.strerror or exc}") from None
    if not resume:
        return {}
    good, bad = read_batches(out, spec)
    for line in bad:
        click.echo(line, err=True)
    return good


@click.command()
@json_flag
@click.argument("a", required=False, shell_complete=complete_strategy)
@click.argument("b", required=False, shell_complete=complete_strategy)
@variant_option
@rule_option
@rules_file_option
@click.option("--seed", type=int, default=0, show_default=True, help="master seed (pair i is game index i)")
@click.option("--games", "-n", type=int, default=None, help=f"games to play, even [default: {DEFAULT_GAMES}]")
@click.option("--max-games", type=int, default=None,
              help=f"with --sprt: stop here if undecided [default: {DEFAULT_MAX_GAMES}]")
@click.option("--sprt", "sprt_text", metavar="elo0=E0,elo1=E1", help="sequential test of H0 elo0 against H1 elo1")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT false H1 rate")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT false H0 rate")
@click.option("--elo-model", type=click.Choice(["logistic", "normalized"]), default="logistic", show_default=True,
              help="Elo scale of --sprt bounds")
@click.option("--batch", type=click.IntRange(min=1), default=50, show_default=True,
              help="pairs per batch (the SPRT is checked after each)")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@backend_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="match folder: every finished batch is kept there, so that --resume can finish the match")
@click.option("--resume", is_flag=True, help="finish the match in --out (its settings; verified batches kept)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="no progress bar or lines")
@click.pass_context
def match(ctx: click.Context, a: str | None, b: str | None, variant: str, rules: tuple[str, ...],
          rules_file: Path | None, seed: int,
          games: int | None, max_games: int | None, sprt_text: str | None, alpha: float, beta: float,
          elo_model: str, batch: int, jobs: int | None, backend: BackendChoice, out: Path | None, resume: bool,
          fmt: str, quiet: bool) -> None:
    """Play strategy A against B in duplicate pairs and report A's score, Elo difference and pair counts."""
    from simcli.rules.presets import diff, load_rules

    stored_rules: dict[str, str] | None = None
    if resume:
        if out is None:
            raise click.ClickException("--resume needs --out DIR")
        p = resumed_settings(ctx, out, {"a": a, "b": b, "variant": variant, "seed": seed, "batch": batch,
                                        "sprt_text": sprt_text, "alpha": alpha, "beta": beta,
                                        "elo_model": elo_model, "games": games, "max_games": max_games,
                                        "rules": rules or rules_file})
        a, b, variant, seed, batch = p["a"], p["b"], p["variant"], p["seed"], p["batch"]
        sprt_text, alpha, beta, elo_model = p["sprt_text"], p["alpha"], p["beta"], p["elo_model"]
        games, max_games, stored_rules = p["games"], p["max_games"], p["stored_rules"]
    if a is None or b is None:
        raise click.ClickException("give the two strategies A and B (one strategy per side, e.g. "
                                   "`simcli match ponytail greedy`), or --resume --out DIR")
    rs = load_rules(variant, stored_rules) if stored_rules is not None else build_rules(variant, rules, rules_file)
    a, b = strategy_spec(a, "A"), strategy_spec(b, "B")
    try:
        seat_strategies(a, b, rs.num_players, rs.n_teams, variant)
        check_strategies([rs], [a, b])  # what the rules tell of each, before any game
    except (MatchError, CannotPlay) as exc:
        raise click.ClickException(str(exc)) from None
    settings = sprt_settings(sprt_text, alpha, beta, elo_model) if sprt_text is not None else None
    pairs = pairs_to_play(games, max_games, settings is not None)
    spec = MatchSpec(variant=variant, rules=rs.formatted(), a=a, b=b, seed=seed, pairs=pairs, batch=batch,
                     sprt=None if settings is None else asdict(settings))
    stored = open_store(out, spec, resume)
    jobs = jobs or os.cpu_count() or 1
    rule_text = (" ".join(rules) if stored_rules is None and rules_file is None
                 else " ".join(f"{k}={v[1]}" for k, v in diff(rs).items()))
    header = (f"match {a} vs {b}: {variant}, seed {seed}" + (f", rules {rule_text}" if rule_text else "")
              + f", {a} on team 0 in the first game of each pair")
    # Progress goes to stdout with the text report and to stderr with JSON (stdout then holds one object).
    say = (lambda line: click.echo(line, err=True)) if fmt == "json" else click.echo
    show = settings is not None and not quiet  # progress lines: the LLR as it goes
    if show and fmt == "text":
        say(header)
    build_hint(2 * pairs, [a, b], shown=on_terminal(quiet))  # before the bar: a line of its own
    bar = progress_bar(2 * pairs, f"{a} vs {b}", quiet=quiet)

    def progress(state: MatchState, status: dict[str, Any] | None) -> None:
        s = state.summary()
        bar.update(2 * s.pairs - bar.n)
        if not show:
            return
        line = f"  pairs {s.pairs:>6,}  score {s.score:.3f}  Elo {fmt_elo(s.elo):>5}"
        if status is not None:
            line += f"  LLR {status['llr']:+.3f} [{status['lower']:.3f}, {status['upper']:.3f}]"
        if bar.disable:
            say(line)
        else:
            bar.write(line, file=sys.stderr if fmt == "json" else sys.stdout)

    played: list[int] = []

    def keep(k: int, counts: BatchCounts) -> None:
        played.append(k)
        if out is not None:
            write_batch(out, spec, k, counts)

    try:
        outcome = play_match(variant, rs, a, b, seed, pairs, jobs=jobs, batch=batch, sprt=settings,
                             progress=progress, stored=stored, on_batch=keep, backend=backend.open(jobs),
                             on_games=bar.update)
    except MatchError as exc:
        bar.close()
        show_traceback(exc.traceback)
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        bar.close()
        interrupted(out, a, b, backend)
    except ClusterLost as exc:  # one line (simcli.cli): what is kept, the command that finishes
        bar.close()
        raise exc.keep(*kept_of_store("finished batches", out, "match", sys.argv[1:])) from None
    bar.close()
    if stored and not played:
        click.echo(f"the match in {out} was finished: its {outcome.summary.pairs:,} stored pairs are reused, "
                   "none played", err=True)
    elif stored:
        kept = sum(len(stored[k].half_points) for k in stored if k * batch < outcome.summary.pairs)
        click.echo(f"resumed {out}: {kept:,} stored pairs reused, "
                   f"{outcome.summary.pairs - kept:,} played", err=True)
    result = match_json(outcome)
    if out is not None:
        write_result(out, result)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(match_text(outcome, None if show else header, settings))


def interrupted(out: Path | None, a: str, b: str, backend: BackendChoice) -> NoReturn:
    """Ctrl-C: say what is kept and the exact command that continues (on the same backend), then exit 130 (as
    ``run`` does)."""
    if out is not None:
        click.echo(f"\ninterrupted: finished batches are saved in {out}; finish the match with:\n"
                   f"  {again(['match', '--resume', '--out', str(out), *backend.words()])}", err=True)
    else:
        args = [*sys.argv[1:]] if Path(sys.argv[0]).name in ("simcli", "__main__.py") else ["match", a, b, "..."]
        click.echo("\ninterrupted: without --out the pairs played are not kept; to keep them, play it with:\n"
                   f"  {again([*args, '--out', 'results/runs/match-' + safe_name(f'{a}-vs-{b}')])}", err=True)
    sys.exit(130)
