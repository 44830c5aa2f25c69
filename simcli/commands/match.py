"""``simcli match A B``: a duplicate match between two strategies, with an optional SPRT."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any, NoReturn

import click

from simcli.commands.common import (
    BackendChoice,
    backend_options,
    build_rules,
    complete_strategy,
    given_params,
    json_flag,
    rule_option,
    rules_file_option,
    show_traceback,
    variant_option,
)
from simcli.commands.hints import again, build_hint, on_terminal, progress_bar
from simcli.duplicate.match import (
    BatchCounts,
    MatchError,
    MatchOutcome,
    MatchState,
    SprtSettings,
    check_sides,
    play_match,
)
from simcli.duplicate.match_store import MatchSpec, MatchStoreError, write_batch, write_result
from simcli.duplicate.pairs import DuplicateError
from simcli.duplicate.resuming import match_settings
from simcli.duplicate.sprt import parse_sprt
from simcli.players.loading import parse_strategy_list
from simcli.players.specs import StrategyLookupError, split_strategy_list
from simcli.reporting.formatting import fmt_elo
from simcli.reporting.matches import match_header, match_json, match_text, resumed_line
from simcli.reporting.studies import safe_name
from simcli.rules.presets import rules_diff
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import ClusterLost
from simcli.runs.lost import kept_of_store

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
    stored_rules: dict[str, str] | None = None
    if resume:
        if out is None:
            raise click.ClickException("--resume needs --out DIR")
        try:
            p = match_settings(out, {"a": a, "b": b, "variant": variant, "seed": seed, "batch": batch,
                                     "sprt_text": sprt_text, "alpha": alpha, "beta": beta, "elo_model": elo_model,
                                     "games": games, "max_games": max_games, "rules": rules or rules_file},
                               given_params(ctx))
        except MatchStoreError as exc:
            raise click.ClickException(str(exc)) from None
        a, b, variant, seed, batch = p["a"], p["b"], p["variant"], p["seed"], p["batch"]
        sprt_text, alpha, beta, elo_model = p["sprt_text"], p["alpha"], p["beta"], p["elo_model"]
        games, max_games, stored_rules = p["games"], p["max_games"], p["stored_rules"]
    if a is None or b is None:
        raise click.ClickException("give the two strategies A and B (one strategy per side, e.g. "
                                   "`simcli match ponytail greedy`), or --resume --out DIR")
    rs = build_rules(variant, rules, rules_file, stored=stored_rules)
    a, b = strategy_spec(a, "A"), strategy_spec(b, "B")
    try:
        check_sides([a, b], rs, variant)  # two sides, and what the rules tell of each
    except MatchError as exc:
        raise click.ClickException(str(exc)) from None
    settings = sprt_settings(sprt_text, alpha, beta, elo_model) if sprt_text is not None else None
    pairs = pairs_to_play(games, max_games, settings is not None)
    spec = MatchSpec(variant=variant, rules=rs.formatted(), a=a, b=b, seed=seed, pairs=pairs, batch=batch,
                     sprt=None if settings is None else asdict(settings))
    stored = open_store(out, spec, resume)
    # The rules as given on the command line, else (a rules file, a resume) those changed from the preset.
    rule_text = (" ".join(rules) if stored_rules is None and rules_file is None
                 else " ".join(f"{k}={v}" for k, v in rules_diff(rs).items()))
    header = match_header(spec, rule_text)
    show = settings is not None and not quiet  # progress lines: the LLR as it goes
    outcome, played = _play(spec, rs, settings, stored, out, jobs or os.cpu_count() or 1, backend, fmt, quiet,
                            header if show else None)
    if stored:
        click.echo(resumed_line(out, stored, played, outcome, batch), err=True)
    result = match_json(outcome)
    if out is not None:
        write_result(out, result)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(match_text(outcome, None if show else header, settings))


def _play(spec: MatchSpec, rs: RuleSet, settings: SprtSettings | None, stored: dict[int, BatchCounts],
          out: Path | None, jobs: int, backend: BackendChoice, fmt: str, quiet: bool,
          header: str | None) -> tuple[MatchOutcome, list[int]]:
    """Play the match with a progress bar, keeping each batch in ``out``; with ``header`` (an SPRT not --quiet),
    say it and a progress line with the LLR after each batch. The outcome, and the batches played here."""
    a, b, pairs = spec.a, spec.b, spec.pairs
    # Progress goes to stdout with the text report and to stderr with JSON (stdout then holds one object).
    say = (lambda line: click.echo(line, err=True)) if fmt == "json" else click.echo
    if header is not None and fmt == "text":
        say(header)
    build_hint(2 * pairs, [a, b], shown=on_terminal(quiet))  # before the bar: a line of its own
    bar = progress_bar(2 * pairs, f"{a} vs {b}", quiet=quiet)

    def progress(state: MatchState, status: dict[str, Any] | None) -> None:
        s = state.summary()
        bar.update(2 * s.pairs - bar.n)
        if header is None:
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
        outcome = play_match(spec.variant, rs, a, b, spec.seed, pairs, jobs=jobs, batch=spec.batch, sprt=settings,
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
    return outcome, played


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
