"""``simcli match A B``: a duplicate match between two strategies, with an optional SPRT."""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any

import click

from simcli.commands.common import build_rules, rule_option, variant_option
from simcli.duplicate import DuplicateError, PairSummary, parse_sprt
from simcli.match import MatchError, MatchOutcome, MatchState, SprtSettings, play_match, seat_strategies
from simcli.strategy import StrategyLookupError, parse_strategy_list

DEFAULT_GAMES = 1000
DEFAULT_MAX_GAMES = 20000


def strategy_spec(text: str) -> str:
    """One strategy spec, validated (a one-line error naming it when it is unknown)."""
    try:
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


def finite(x: float) -> float | None:
    """A float for JSON: None for NaN and +-inf (an Elo of a score of 0 or 1 is infinite)."""
    return None if x is None or math.isnan(x) or math.isinf(x) else float(x)


def fmt_elo(x: float) -> str:
    """An Elo difference with its sign (``+inf`` for a clean sweep, ``-`` for no value)."""
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.0f}"


def match_json(outcome: MatchOutcome) -> dict[str, Any]:
    """The ``--format json`` object: exactly the keys documented in docs/analysis.md."""
    s = outcome.summary
    sprt = None
    if outcome.sprt is not None:
        sprt = {"llr": outcome.sprt["llr"], "lower": outcome.sprt["lower"], "upper": outcome.sprt["upper"],
                "result": outcome.sprt["result"]}
    return {"a": outcome.a, "b": outcome.b, "games": s.games, "pairs": s.pairs, "score": finite(s.score),
            "score_ci_low": finite(s.score_ci_low), "score_ci_high": finite(s.score_ci_high), "elo": finite(s.elo),
            "elo_ci_low": finite(s.elo_ci_low), "elo_ci_high": finite(s.elo_ci_high), "sprt": sprt}


def pentanomial_lines(s: PairSummary, a: str) -> list[str]:
    """The per-pair distribution as two aligned rows."""
    head = ["pair points of " + a, "0", "0.5", "1", "1.5", "2"]
    counts = ["pairs", *(str(c) for c in s.pentanomial)]
    width = [max(len(h), len(c)) for h, c in zip(head, counts, strict=True)]
    return ["  ".join(h.rjust(w) for h, w in zip(row, width, strict=True)) for row in (head, counts)]


def match_text(outcome: MatchOutcome, header: str | None, sprt: SprtSettings | None) -> str:
    """The text report of a finished match (after ``header`` unless it is None)."""
    s = outcome.summary
    lines = [] if header is None else [header]
    lines += [f"{s.games:,} games in {s.pairs:,} pairs: {outcome.a} won {s.wins}, tied {s.ties}, lost {s.losses}",
             f"score of {outcome.a}: {s.score:.3f} [{s.score_ci_low:.3f}, {s.score_ci_high:.3f}] "
             f"(95% t-interval over pairs)",
             f"Elo difference: {fmt_elo(s.elo)} [{fmt_elo(s.elo_ci_low)}, {fmt_elo(s.elo_ci_high)}]",
             *pentanomial_lines(s, outcome.a)]
    if sprt is not None and outcome.sprt is not None:
        st = outcome.sprt
        verdict = {"H1": f"H1 accepted: {outcome.a} is at least {sprt.elo1:g} Elo stronger",
                   "H0": f"H0 accepted: {outcome.a} is at most {sprt.elo0:g} Elo stronger",
                   "inconclusive": "inconclusive (--max-games reached)"}[st["result"]]
        lines.append(f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} ({sprt.model}), alpha {sprt.alpha:g}, beta "
                     f"{sprt.beta:g}: LLR {st['llr']:.3f} [{st['lower']:.3f}, {st['upper']:.3f}] -> {verdict}")
    return "\n".join(lines)


@click.command()
@click.argument("a")
@click.argument("b")
@variant_option
@rule_option
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
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="no progress lines")
def match(a: str, b: str, variant: str, rules: tuple[str, ...], seed: int, games: int | None,
          max_games: int | None, sprt_text: str | None, alpha: float, beta: float, elo_model: str, batch: int,
          jobs: int | None, fmt: str, quiet: bool) -> None:
    """Play strategy A against B in duplicate pairs and report A's score, Elo difference and pair counts."""
    rs = build_rules(variant, rules)
    a, b = strategy_spec(a), strategy_spec(b)
    try:
        seat_strategies(a, b, rs.num_players, rs.n_teams, variant)
    except MatchError as exc:
        raise click.ClickException(str(exc)) from None
    settings: SprtSettings | None = None
    if sprt_text is not None:
        if games is not None:
            raise click.ClickException("--games plays a fixed number of games; with --sprt use --max-games")
        try:
            elo0, elo1 = parse_sprt(sprt_text)
            settings = SprtSettings(elo0, elo1, alpha, beta, elo_model)
            settings.bounds()
        except DuplicateError as exc:
            raise click.ClickException(str(exc)) from None
        pairs = pairs_from_games(max_games if max_games is not None else DEFAULT_MAX_GAMES, "--max-games")
    else:
        if max_games is not None:
            raise click.ClickException("--max-games goes with --sprt; without it use --games")
        pairs = pairs_from_games(games if games is not None else DEFAULT_GAMES, "--games")
    jobs = jobs or os.cpu_count() or 1
    header = (f"match {a} vs {b}: {variant}, seed {seed}" + (f", rules {' '.join(rules)}" if rules else "")
              + f", {a} on team 0 in the first game of each pair")
    # Progress goes to stdout with the text report and to stderr with JSON (stdout then holds one object).
    say = (lambda line: click.echo(line, err=True)) if fmt == "json" else click.echo
    show = settings is not None and not quiet  # progress lines: the LLR as it goes
    if show and fmt == "text":
        say(header)

    def progress(state: MatchState, status: dict[str, Any] | None) -> None:
        s = state.summary()
        line = f"  pairs {s.pairs:>6,}  score {s.score:.3f}  Elo {fmt_elo(s.elo):>5}"
        if status is not None:
            line += f"  LLR {status['llr']:+.3f} [{status['lower']:.3f}, {status['upper']:.3f}]"
        say(line)

    try:
        outcome = play_match(variant, rs, a, b, seed, pairs, jobs=jobs, batch=batch, sprt=settings,
                             progress=progress if show else None)
    except MatchError as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted", err=True)
        sys.exit(130)
    if fmt == "json":
        click.echo(json.dumps(match_json(outcome), indent=2))
    else:
        click.echo(match_text(outcome, None if show else header, settings))
