"""``simcli play``: one game with a readable deal-by-deal summary and an optional JSON-lines trace."""

from __future__ import annotations

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
from simcli.engine.deal import DealResult
from simcli.engine.trace import TraceWriter
from simcli.players.loading import StrategyLookupError, parse_strategy_list
from simcli.players.seating import play_game
from simcli.primitives.errors import EngineError, StrategyError
from simcli.rules.presets import diff, scores_concealed


def deal_ending(d: DealResult, concealed_scored: bool) -> str:
    """How a deal ended, for the summary: a special hand, going out, or the stock running out.

    "concealed" is said only where the rules define concealed going out (``concealed_scored``, see
    :func:`simcli.rules.presets.scores_concealed`): the ``concealed`` flag itself records RULES.md §1.10's conditions in
    every variant, e.g. for a Spanish terremoto.
    """
    if d.special_hand:
        how = f"seat {d.went_out_seat}: {d.special_hand.lower()}"
    elif d.end_reason == "went_out":
        how = f"seat {d.went_out_seat} went out{' concealed' if d.concealed and concealed_scored else ''}"
    else:
        how = "stock ran out"
    if d.black_three_canasta_team is not None:
        how += " (black-three canasta)"
    return how


@click.command()
@variant_option
@seed_option()
@click.option("--game-index", type=SEED, default=0, show_default=True, help="which game of that seed")
@click.option("--strategies", "--strategy", "strategies", default="greedy", show_default=True, help=STRATEGIES_HELP,
              shell_complete=complete_strategy)
@rule_option
@rules_file_option
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, path_type=Path),
              help="write every decision and event as JSON lines")
def play(variant: str, seed: int, game_index: int, strategies: str, rules: tuple[str, ...],
         rules_file: Path | None, trace_path: Path | None) -> None:
    """Play one game and print a deal-by-deal summary."""
    rs = build_rules(variant, rules, rules_file)
    try:
        names = parse_strategy_list(strategies, rs.num_players)
    except StrategyLookupError as exc:
        raise click.ClickException(str(exc)) from None
    writer = None
    handle = None
    if trace_path is not None:
        try:
            trace_path.parent.mkdir(parents=True, exist_ok=True)  # as plot --out and report --out do
            handle = trace_path.open("w", encoding="utf-8", newline="\n")
        except OSError as exc:
            raise click.ClickException(f"cannot write trace file {trace_path}: {exc.strerror}") from None
        writer = TraceWriter(handle)
        writer.header(variant=variant, seed=seed, game_index=game_index, strategies=names,
                      rules=rs.formatted(), rules_diff={k: v[1] for k, v in diff(rs).items()},
                      num_players=rs.num_players, n_teams=rs.n_teams)
    try:
        result = play_game(rs, names, seed, game_index, emit=writer)
    except (StrategyError, EngineError) as exc:
        raise cli_errors(exc) from None
    except KeyboardInterrupt:
        interrupted_nothing_kept("a single game" + (f" (its trace {trace_path} is cut short)" if trace_path else ""))
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


