"""``simcli play``: one game with a readable deal-by-deal summary and an optional JSON-lines trace."""

from __future__ import annotations

import sys
from pathlib import Path

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
from simcli.engine.core import Emit
from simcli.engine.game import GameResult
from simcli.engine.strategy_base import Strategy
from simcli.engine.trace import TraceWriter, game_header
from simcli.players.loading import parse_strategy_list
from simcli.players.seating import make_strategies, play_game
from simcli.players.specs import StrategyLookupError
from simcli.primitives.errors import EngineError, StrategyError
from simcli.rules.ruleset import RuleSet
from simcli.runs.atomic import AtomicText
from simcli.viewer.hint import HINT_WORLDS
from simcli.viewer.human import LeftTable
from simcli.viewer.narrate import tee
from simcli.viewer.session import Following, parse_seat, seat_person
from simcli.viewer.summary import game_summary, legend
from simcli.viewer.weighed import SearchRecorder


@click.command(epilog=legend())
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
    names, seat = _seating(strategies, human, rs)
    header = game_header(rs, variant, seed, game_index, names)
    handle = _open_trace(trace_path)
    writer = None if handle is None else TraceWriter(handle.stream)
    if writer is not None:
        writer.header(**header)
    follow = Following(header, narrate=narrate, page=html_path is not None, seat=seat, write=click.echo)
    players = None
    if seat is not None:
        players = seat_person(names, seed, game_index, seat, sys.stdin, sys.stdout, follow.words, hint_worlds)
    try:
        result = _play_followed(rs, names, seed, game_index, tee(writer, follow.emit), players, search_values, seat,
                                trace_path)
        if handle is not None and result is not None:
            handle.commit()  # the trace is written whole, once the game finished (a failed game leaves none)
    finally:
        if handle is not None:
            handle.close()
    if result is None:
        return
    for line in game_summary(rs, variant, seed, game_index, names, result):
        click.echo(line)
    if trace_path is not None:
        click.echo(f"trace written to {trace_path}")
    if html_path is not None:
        try:
            follow.page(html_path)
        except OSError as exc:
            raise click.ClickException(f"cannot write {html_path}: {exc.strerror}") from None
        click.echo(f"replay page written to {html_path}")


def _seating(strategies: str, human: str | None, rs: RuleSet) -> tuple[list[str], int | None]:
    """The seats' strategy specs and the seat a person plays (``--human``; None: nobody), whose spec is ``human``."""
    try:
        names = parse_strategy_list(strategies, rs.num_players, rs.n_teams)
        seat = None if human is None else parse_seat(human, rs.num_players)
    except (StrategyLookupError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if seat is not None:
        names[seat] = "human"
    return names, seat


def _open_trace(trace_path: Path | None) -> AtomicText | None:
    """The ``--trace`` file opened for writing (its folder made), or None without ``--trace``: written whole or not
    at all (a temporary file renamed once the game finished, :class:`simcli.runs.atomic.AtomicText`)."""
    if trace_path is None:
        return None
    try:
        trace_path.parent.mkdir(parents=True, exist_ok=True)  # as plot --out and report --out do
        return AtomicText(trace_path)
    except OSError as exc:
        raise click.ClickException(f"cannot write trace file {trace_path}: {exc.strerror}") from None


def _play_followed(rs: RuleSet, names: list[str], seed: int, game_index: int, emit: Emit | None,
                   players: list[Strategy] | None, search_values: bool, seat: int | None,
                   trace_path: Path | None) -> GameResult | None:
    """Play the game with ``emit`` listening (each searching seat recorded with ``--search-values``: the same
    calls, the same game); None when the person at ``seat`` left the table. Ctrl-C ends the command."""
    try:
        if search_values:
            emit = recorder = SearchRecorder(emit)
            players = recorder.seat(players if players is not None else make_strategies(names, seed, game_index))
        return play_game(rs, names, seed, game_index, emit=emit, strategies=players)
    except (StrategyError, EngineError) as exc:
        raise cli_errors(exc) from None
    except LeftTable:
        click.echo("you left the table; the game was not finished")
        return None
    except KeyboardInterrupt:
        if seat is not None:
            click.echo("\nyou left the table (Ctrl-C); the game was not finished", err=True)
            raise SystemExit(130) from None
        interrupted_nothing_kept("a single game" + (f" (no trace is written to {trace_path})" if trace_path else ""))
