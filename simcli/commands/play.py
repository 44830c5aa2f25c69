"""``simcli play``: one game with a readable deal-by-deal summary and an optional JSON-lines trace."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import (
    SEED,
    STRATEGIES_HELP,
    build_rules,
    cli_errors,
    complete_strategy,
    rule_option,
    rules_file_option,
    seed_option,
    variant_option,
)
from simcli.commands.hints import interrupted_nothing_kept
from simcli.engine.deal import DealResult
from simcli.engine.trace import TraceWriter
from simcli.players.loading import parse_strategy_list
from simcli.players.seating import make_strategies, play_game
from simcli.players.specs import StrategyLookupError
from simcli.primitives.errors import EngineError, StrategyError
from simcli.rules.presets import diff, scores_concealed
from simcli.runs.atomic import AtomicText
from simcli.viewer.hint import HINT_WORLDS
from simcli.viewer.human import LeftTable
from simcli.viewer.narrate import tee
from simcli.viewer.session import Following, parse_seat, seat_person
from simcli.viewer.weighed import SearchRecorder
from simcli.viewer.words import SPECIAL_WORDS, SUMMARY_LEGEND


def deal_ending(d: DealResult, concealed_scored: bool) -> str:
    """How a deal ended, for the summary: a special hand, going out, or the stock running out.

    "concealed" is said only where the rules define concealed going out (``concealed_scored``, see
    :func:`simcli.rules.presets.scores_concealed`): the ``concealed`` flag itself records RULES.md §1.10's conditions in
    every variant, e.g. for a Spanish terremoto.
    """
    if d.special_hand:
        how = f"seat {d.went_out_seat}: {SPECIAL_WORDS.get(d.special_hand, d.special_hand.lower())}"  # as the page
    elif d.end_reason == "went_out":
        how = f"seat {d.went_out_seat} went out{' concealed' if d.concealed and concealed_scored else ''}"
    else:
        how = "stock ran out"
    if d.black_three_canasta_team is not None:
        how += " (black-three canasta)"
    return how


def _legend() -> str:
    """The help's explanation of the per-deal line (one entry per abbreviation)."""
    lines = ["\b", "The per-deal line, e.g. 'deal  2 dealer 0 turns  46 seat 2 went out | team 0 +1875",
             "(canastas 1n/2m, R3 2) = 2730', says:"]
    for abbreviation, meaning in SUMMARY_LEGEND:
        wrapped = textwrap.wrap(meaning, 58)
        lines += [f"  {abbreviation:16} {wrapped[0]}", *(f"  {'':16} {more}" for more in wrapped[1:])]
    return "\n".join(lines)


@click.command(epilog=_legend())
@variant_option
@seed_option()
@click.option("--game-index", type=SEED, default=0, show_default=True, help="which game of that seed")
@click.option("--strategies", "--strategy", "strategies", default="greedy", show_default=True, help=STRATEGIES_HELP,
              shell_complete=complete_strategy)
@rule_option
@rules_file_option
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, path_type=Path),
              help="write every decision and event as JSON lines")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="write the game's replay page (one self-contained HTML file; as simcli replay makes)")
@click.option("--narrate", is_flag=True, help="print every event in words as it happens (the play-by-play)")
@click.option("--search-values", is_flag=True,
              help="with --trace, --html or --narrate: after each decision a search player (mc, oracle, ismcts) "
                   "searched, add the candidates it weighed and their values (a search event; the game is the same)")
@click.option("--human", "human", metavar="SEAT",
              help="play this seat yourself at the terminal (a number from 0, or North/East/South/West at four "
                   "players); the other seats play --strategies (the spec at your seat is ignored)")
@click.option("--hint-worlds", type=click.IntRange(1, 256), default=HINT_WORLDS, show_default=True,
              help="with --human: worlds the mc search samples for a hint (type ? at a decision)")
def play(variant: str, seed: int, game_index: int, strategies: str, rules: tuple[str, ...],
         rules_file: Path | None, trace_path: Path | None, html_path: Path | None, narrate: bool,
         search_values: bool, human: str | None, hint_worlds: int) -> None:
    """Play one game and print a deal-by-deal summary.

    Follow it with --narrate (each event in words), --html PAGE.html (a page to step through), or play a seat
    yourself with --human SEAT (docs/replay.md).
    """
    if search_values and not (trace_path or html_path or narrate):
        raise click.UsageError("--search-values adds what search players weighed to --trace, --html or --narrate: "
                               "give one of them")
    rs = build_rules(variant, rules, rules_file)
    try:
        names = parse_strategy_list(strategies, rs.num_players, rs.n_teams)
        seat = None if human is None else parse_seat(human, rs.num_players)
    except (StrategyLookupError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if seat is not None:
        names[seat] = "human"
    header: dict[str, Any] = {"variant": variant, "seed": seed, "game_index": game_index, "strategies": names,
              "rules": rs.formatted(), "rules_diff": {k: v[1] for k, v in diff(rs).items()},
              "num_players": rs.num_players, "n_teams": rs.n_teams}
    writer = None
    handle = None
    if trace_path is not None:
        try:
            trace_path.parent.mkdir(parents=True, exist_ok=True)  # as plot --out and report --out do
            handle = AtomicText(trace_path)  # written whole or not at all (a failed game leaves no trace file)
        except OSError as exc:
            raise click.ClickException(f"cannot write trace file {trace_path}: {exc.strerror}") from None
        writer = TraceWriter(handle.stream)
        writer.header(**header)
    follow = Following(header, narrate=narrate, page=html_path is not None, seat=seat, write=click.echo)
    players = None
    if seat is not None:
        players = seat_person(names, seed, game_index, seat, sys.stdin, sys.stdout, follow.words, hint_worlds)
    emit = tee(writer, follow.emit)
    try:
        if search_values:  # each searching seat recorded: the same calls, the same game
            emit = recorder = SearchRecorder(emit)
            players = recorder.seat(players if players is not None else make_strategies(names, seed, game_index))
        result = play_game(rs, names, seed, game_index, emit=emit, strategies=players)
        if handle is not None:
            handle.commit()
    except (StrategyError, EngineError) as exc:
        raise cli_errors(exc) from None
    except LeftTable:
        click.echo("you left the table; the game was not finished")
        return
    except KeyboardInterrupt:
        if seat is not None:
            click.echo("\nyou left the table (Ctrl-C); the game was not finished", err=True)
            raise SystemExit(130) from None
        interrupted_nothing_kept("a single game" + (f" (no trace is written to {trace_path})" if trace_path else ""))
    finally:
        if handle is not None:
            handle.close()
    teams = rs.n_teams
    seats = ", ".join(f"{s}:{n}(team {s % teams})" for s, n in enumerate(names))
    click.echo(f"{variant} game, seed {seed}, game {game_index}; seats {seats}")
    changed = diff(rs)
    if changed:
        click.echo("rules changed from the preset: " + ", ".join(f"{k}={v[1]}" for k, v in changed.items()))
    running = [0] * teams
    concealed_scored = scores_concealed(rs)  # "concealed" is a Classic notion (RULES.md §1.10)
    for d in result.deals:
        for t, s in enumerate(d.scores):
            running[t] += s["total"]
        how = deal_ending(d, concealed_scored)
        parts = []
        for t, s in enumerate(d.scores):
            kinds = "/".join(f"{n}{k[0].lower()}" for k, n in d.canastas[t].items() if n) or "none"
            hidden = d.hidden_canastas[t] if d.hidden_canastas else 0
            if hidden:
                kinds += f" incl. {hidden} hidden"
            black = d.black_threes[t] if d.black_threes else 0
            threes = f"R3 {d.red_threes[t]}" + (f" B3 {black}" if black else "")
            parts.append(f"team {t} {s['total']:+6d} (canastas {kinds}, {threes}) = {running[t]:6d}")
        click.echo(f"deal {d.deal_index + 1:2d} dealer {d.dealer} turns {d.turns:3d} {how:24s} | "
                   + " | ".join(parts))
    last = result.deals[-1]
    if last.black_three_canasta_team is not None:
        click.echo(f"team {last.black_three_canasta_team} made a canasta of black threes: it wins the game")
    if result.winner_team >= 0:
        margin = result.totals[result.winner_team] - max(
            x for t, x in enumerate(result.totals) if t != result.winner_team)
        click.echo(f"winner: team {result.winner_team} by {margin} after {len(result.deals)} deals, "
                   f"{result.turns} turns")
    else:
        click.echo(f"shared win at {result.totals} after {len(result.deals)} deals")
    if trace_path is not None:
        click.echo(f"trace written to {trace_path}")
    if html_path is not None:
        try:
            follow.page(html_path)
        except OSError as exc:
            raise click.ClickException(f"cannot write {html_path}: {exc.strerror}") from None
        click.echo(f"replay page written to {html_path}")


