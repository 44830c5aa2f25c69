"""One game: deals until a team reaches the target (or the deal cap), with the dealer rotating.

:func:`play_game` is the single entry point used by ``simcli play``, batch runs and
tests. A game is fully determined by (rules, strategies, master seed, game index).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from simcli.cards import deck_cards
from simcli.deal import Deal, DealResult, Emit, new_deal
from simcli.errors import EngineError, GameContext, StrategyError
from simcli.rules import cut_target, pick_target
from simcli.ruleset import RuleSet
from simcli.seeding import deal_rng, first_dealer, human_cut, seat_rng, shuffled_deck
from simcli.state import DealState
from simcli.strategy import Strategy, strategy_factory

#: A game with more deals than this is an engine bug.
MAX_DEALS_PER_GAME = 400


@dataclass
class GameResult:
    """The outcome of a game: final totals, the winner and every deal."""

    game_index: int
    seed: int
    strategies: list[str]
    totals: list[int]
    winner_team: int  # -1 for a shared win
    first_dealer: int = 0
    deals: list[DealResult] = field(default_factory=list)
    decisions: int = 0

    @property
    def turns(self) -> int:
        """Turns played over all deals."""
        return sum(d.turns for d in self.deals)


def make_strategies(names: Sequence[str], master_seed: int, game_index: int) -> list[Strategy]:
    """Build one strategy per seat, each with its own random stream (``NAME:key=value`` options applied).

    A strategy that cannot be found or whose ``__init__`` raises is a :class:`StrategyError` naming the strategy,
    seat, game and seed, like a strategy that fails during play.
    """
    players = []
    for seat, name in enumerate(names):
        try:
            players.append(strategy_factory(name)(seat_rng(master_seed, game_index, seat)))
        except Exception as exc:
            detail = str(exc).splitlines()[0] if str(exc) else ""
            raise StrategyError(
                f"strategy '{name}' at seat {seat} raised {type(exc).__name__}"
                + (f": {detail}" if detail else "") + f" when built for game {game_index} (seed {master_seed})",
                seat=seat, strategy=name, game_index=game_index, seed=master_seed, deal_index=0, turn=0,
            ) from exc
    return players


def game_outcome(rules: RuleSet, totals: Sequence[int], deals_played: int) -> tuple[bool, int]:
    """Whether the game is over after ``deals_played`` deals with these totals, and the winner (-1: shared).

    The game ends when a team reaches ``game_target`` or ``max_hands`` deals have been played; the
    highest total wins. A tie is shared under ``tie_policy=SHARED_WIN`` once no more deals are due,
    otherwise another deal is played (RULES.md §1.13, A-X-3).
    """
    over = any(target_reached(rules, x) for x in totals) or (
        rules.max_hands is not None and deals_played >= rules.max_hands)
    if not over:
        return False, -1
    best = max(totals)
    leaders = [t for t, x in enumerate(totals) if x == best]
    if len(leaders) == 1:
        return True, leaders[0]
    if rules.tie_policy == "SHARED_WIN" and (rules.max_hands is None or deals_played >= rules.max_hands):
        return True, -1
    return False, -1


def prepare_deal(rules: RuleSet, pack: list[int], rng: np.random.Generator, deal_index: int, dealer: int,
                 totals: list[int]) -> DealState:
    """Shuffle and cut a deal from the game's deal stream ``rng`` and lay it out.

    The stream draws, in order: the shuffle, the cutter's grab, (with ponies) the pony dealer's grab and
    (with a face-down initial pile) the dealer's pick of it. The grabs are drawn whatever the bonus knobs
    say, so that changing a bonus never changes the cards of later deals.
    """
    p = rules.num_players
    deck = shuffled_deck(rng, pack)
    cut = human_cut(rng, cut_target(rules), rules.cut_sigma, len(pack))
    pony_cut = human_cut(rng, rules.pony_size * p, rules.cut_sigma, len(pack)) if rules.pony_size else 0
    pick = 0
    if rules.initial_pile_facedown:
        pick = human_cut(rng, pick_target(rules), rules.cut_sigma, len(pack))
    return new_deal(rules, deck, dealer, deal_index, totals, cut, pony_cut, pick)


def target_reached(rules: RuleSet, total: int) -> bool:
    """Whether a cumulative total ends the game (``target_comparison`` GE or GT)."""
    if rules.target_comparison == "GT":
        return total > rules.game_target
    return total >= rules.game_target


def play_game(rules: RuleSet, strategy_names: Sequence[str], master_seed: int, game_index: int = 0,
              emit: Emit | None = None, strategies: Sequence[Strategy] | None = None) -> GameResult:
    """Play one complete game and return its result.

    ``strategies`` may pass ready-made strategy objects (tests use scripted ones);
    otherwise they are built from ``strategy_names`` with per-seat streams.
    """
    p = rules.num_players
    if len(strategy_names) != p:
        raise ValueError(f"{len(strategy_names)} strategies for {p} seats")
    players = list(strategies) if strategies is not None else make_strategies(
        strategy_names, master_seed, game_index)
    pack = deck_cards(rules.decks, rules.jokers_per_deck)
    dealer = first_dealer(master_seed, game_index, p)
    totals = [0] * (p // rules.team_size)
    ctx = GameContext(game_index=game_index, seed=master_seed)
    result = GameResult(game_index=game_index, seed=master_seed, strategies=list(strategy_names),
                        totals=totals, winner_team=-1, first_dealer=dealer)
    if emit:
        emit("game_start", {"game_index": game_index, "seed": master_seed, "strategies": list(strategy_names),
                            "first_dealer": dealer})
    decisions = 0
    deals = deal_rng(master_seed, game_index)
    for deal_index in range(MAX_DEALS_PER_GAME):
        st = prepare_deal(rules, pack, deals, deal_index, dealer, totals)
        ctx.deal_index = deal_index
        ctx.turn = 0

        runner = Deal(st, players, emit, ctx)
        deal = runner.play()
        decisions += runner.decisions
        result.deals.append(deal)
        for t, s in enumerate(deal.scores):
            totals[t] += s["total"]
        if emit:
            emit("totals", {"deal_index": deal_index, "totals": list(totals)})
        over, winner = game_outcome(rules, totals, deal_index + 1)
        if deal.black_three_canasta_team is not None:  # Spanish "canasta a lo gusto" wins the game at once
            over, winner = True, deal.black_three_canasta_team
        if over:
            result.winner_team = winner
            break
        dealer = (dealer + st.step) % p
    else:
        raise EngineError(
            f"game did not finish in {MAX_DEALS_PER_GAME} deals: no team reached game_target={rules.game_target} "
            f"(totals {totals}); strategies that lose points every deal (random play in Americana, or in the "
            f"Spanish game with 4 players each alone) never end a game: cap it with --rule max_hands=N "
            f"({ctx.describe()})", ctx)
    result.decisions = decisions
    if emit:
        emit("game_end", {"totals": list(totals), "winner_team": result.winner_team,
                          "deals": len(result.deals)})
    return result


