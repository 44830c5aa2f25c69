"""``simcli bench``: deals per second and decisions per second in one process."""

from __future__ import annotations

import json
import time

import click

from simcli.cards import deck_cards
from simcli.commands.common import build_rules, cli_errors, rule_option, variant_option
from simcli.deal import Deal
from simcli.errors import EngineError, GameContext, StrategyError
from simcli.game import make_strategies, prepare_deal
from simcli.seeding import deal_rng, first_dealer
from simcli.strategy import StrategyLookupError, parse_strategy_list


def bench_deals(rules: object, names: list[str], hands: int, seed: int = 0) -> dict[str, float]:
    """Play ``hands`` seeded deals (deal ``i`` is game ``i``'s first deal) and time them."""
    pack = deck_cards(rules.decks, rules.jokers_per_deck)  # type: ignore[attr-defined]
    p = rules.num_players  # type: ignore[attr-defined]
    decisions = 0
    turns = 0
    elapsed = 0.0
    for i in range(hands):
        players = make_strategies(names, seed, i)
        n_teams = p // rules.team_size  # type: ignore[attr-defined]
        st = prepare_deal(rules, pack, deal_rng(seed, i), 0, first_dealer(seed, i, p), [0] * n_teams)
        runner = Deal(st, players, None, GameContext(game_index=i, seed=seed))
        t0 = time.perf_counter()
        runner.play()
        elapsed += time.perf_counter() - t0
        decisions += runner.decisions
        turns += st.turn
    return {
        "hands": hands, "seconds": elapsed, "hands_per_s": hands / elapsed if elapsed else 0.0,
        "decisions_per_s": decisions / elapsed if elapsed else 0.0, "turns_per_hand": turns / max(hands, 1),
    }


@click.command()
@variant_option
@click.option("--strategy", "strategy", default="greedy", show_default=True,
              help="strategy for every seat, or one per seat comma-separated")
@click.option("--hands", type=click.IntRange(min=1), default=2000, show_default=True, help="deals to play")
@click.option("--seed", type=int, default=0, show_default=True)
@rule_option
@click.option("--json", "as_json", is_flag=True, help="print a JSON object")
def bench(variant: str, strategy: str, hands: int, seed: int, rules: tuple[str, ...], as_json: bool) -> None:
    """Play N seeded deals in one process and print hands/s and decisions/s.

    The clock runs only while deals are played (setup such as shuffling is excluded).
    """
    rs = build_rules(variant, rules)
    try:
        names = parse_strategy_list(strategy, rs.num_players)
        out = bench_deals(rs, names, hands, seed)
    except StrategyLookupError as exc:
        raise click.ClickException(str(exc)) from None
    except (StrategyError, EngineError) as exc:
        raise cli_errors(exc) from None
    if as_json:
        click.echo(json.dumps({k: out[k] for k in ("hands", "seconds", "hands_per_s", "decisions_per_s")}))
    else:
        click.echo(f"{variant}, {strategy}: {out['hands']} hands in {out['seconds']:.2f} s = "
                   f"{out['hands_per_s']:,.0f} hands/s, {out['decisions_per_s']:,.0f} decisions/s "
                   f"({out['turns_per_hand']:.1f} turns/hand)")
