"""``simcli bench``: hands (deals) per second and decisions per second of whole games in one process."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import (
    build_rules,
    cli_errors,
    complete_strategy,
    json_option,
    rule_option,
    rules_file_option,
    seed_option,
    variant_option,
)
from simcli.commands.hints import interrupted_nothing_kept
from simcli.engine.builds import engine_build
from simcli.players.loading import load_strategy, parse_strategy_list, strategy_build
from simcli.players.seating import play_game
from simcli.players.specs import StrategyLookupError
from simcli.primitives.errors import EngineError, StrategyError
from simcli.rules.ruleset import RuleSet


def strategies_build(names: list[str]) -> str:
    """The build of the seats' strategy classes (:func:`simcli.players.loading.strategy_build`): ``"compiled"`` or
    ``"pure"`` when all agree, else ``"mixed"`` (e.g. ``mc``, interpreted, beside a compiled heuristic)."""
    builds = {strategy_build(load_strategy(name)) for name in names}
    return builds.pop() if len(builds) == 1 else "mixed"


def bench_games(rules: RuleSet, names: list[str], hands: int, seed: int = 0) -> dict[str, Any]:
    """Play seeded games 0, 1, 2, ... with :func:`play_game` until at least ``hands`` deals are played; time them.

    This is the workload of ``simcli run --jobs 1`` with the same seed and strategies, minus making
    records and writing files: the clock covers everything :func:`play_game` does (building the
    strategies, the game's deal stream and first dealer, every deal's shuffle, cut and layout, and
    playing the deal). Whole games are played, so ``hands`` is rounded up to the end of the last game.
    """
    played = decisions = turns = games = 0
    t0 = time.perf_counter()
    while played < hands:
        result = play_game(rules, names, seed, games)
        games += 1
        played += len(result.deals)
        decisions += result.decisions
        turns += result.turns
    elapsed = time.perf_counter() - t0
    return {
        "hands": played, "games": games, "seconds": elapsed,
        "hands_per_s": played / elapsed if elapsed else 0.0,
        "decisions_per_s": decisions / elapsed if elapsed else 0.0,
        "turns_per_hand": turns / played if played else 0.0, "build": engine_build(),
        "strategies_build": strategies_build(names),
    }


@click.command()
@variant_option
@click.option("--strategy", "--strategies", "strategy", default="greedy", show_default=True,
              shell_complete=complete_strategy,
              help="strategy for every seat, one per team (seated alternately) or one per seat, comma-separated")
@click.option("--hands", type=click.IntRange(min=1), default=2000, show_default=True,
              help="play whole games until at least this many deals are played")
@seed_option("master seed (games 0, 1, 2, ... of it)")
@rule_option
@rules_file_option
@json_option
def bench(variant: str, strategy: str, hands: int, seed: int, rules: tuple[str, ...], rules_file: Path | None,
          as_json: bool) -> None:
    """Play whole seeded games in one process and print hands/s and decisions/s.

    Plays games 0, 1, 2, ... of --seed (the games `simcli run --seed S --jobs 1` plays) until at least
    --hands deals are done. The clock covers all of each game: building the strategies, every deal's
    shuffle, cut and layout, and the play. It does not cover what a run adds on top: turning results
    into table rows and writing files. A hand is one deal; hands/s is deals per second. The line names the
    build that ran, pure (Python) or compiled (mypyc, docs/performance.md), of the engine and of the strategies.
    """
    rs = build_rules(variant, rules, rules_file)
    try:
        names = parse_strategy_list(strategy, rs.num_players, rs.n_teams)
        out = bench_games(rs, names, hands, seed)
    except StrategyLookupError as exc:
        raise click.ClickException(str(exc)) from None
    except (StrategyError, EngineError) as exc:
        raise cli_errors(exc) from None
    except KeyboardInterrupt:
        interrupted_nothing_kept("a benchmark")
    if as_json:
        keys = ("hands", "games", "seconds", "hands_per_s", "decisions_per_s", "turns_per_hand", "build",
                "strategies_build")
        click.echo(json.dumps({k: out[k] for k in keys}))
    else:
        click.echo(f"{variant}, {strategy}: {out['hands']:,} hands ({out['games']:,} games) in {out['seconds']:.2f} s"
                   f" = {out['hands_per_s']:,.0f} hands/s, {out['decisions_per_s']:,.0f} decisions/s "
                   f"({out['turns_per_hand']:.1f} turns/hand; {out['build']} build, "
                   f"{out['strategies_build']} strategies)")
