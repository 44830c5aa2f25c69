"""One game: deals until a team reaches the target (or the deal cap), with the dealer rotating.

:func:`play_seated_game` is the single game loop used by ``simcli play``, batch runs and
tests (through :func:`simcli.players.seating.play_game`, which seats strategies by name). A game is
fully determined by (rules, strategies, master seed, game index).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from simcli.engine.deal import Deal, DealResult, Emit, new_deal
from simcli.engine.features import handfoot
from simcli.engine.state import DealState
from simcli.engine.strategy_base import Strategy
from simcli.primitives.cards import deck_cards
from simcli.primitives.errors import EngineError, GameContext
from simcli.primitives.seeding import deal_rng, first_dealer, human_cut, shuffled_deck
from simcli.rules.presets import cut_target, pick_target
from simcli.rules.ruleset import RuleSet

#: A game with more deals than this is an engine bug.
MAX_DEALS_PER_GAME: Final = 400


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
    draws = handfoot.deal_draws(rules, rng, len(pack))  # None (no draw) outside Hand and Foot's BURY and grab bonus
    return new_deal(rules, deck, dealer, deal_index, totals, cut, pony_cut, pick, draws)


def target_reached(rules: RuleSet, total: int) -> bool:
    """Whether a cumulative total ends the game (``target_comparison`` GE or GT)."""
    if rules.game_target is None:  # no target: the game lasts max_hands deals (Hand and Foot)
        return False
    if rules.target_comparison == "GT":
        return total > rules.game_target
    return total >= rules.game_target


def play_seated_game(rules: RuleSet, players: Sequence[Strategy], strategy_names: Sequence[str], master_seed: int,
                     game_index: int = 0, emit: Emit | None = None) -> GameResult:
    """Play one complete game between strategies already seated (one per seat) and return its result.

    ``strategy_names`` are what the result and the events record for the seats. Seating strategies by name (with
    their per-seat random streams) is :func:`simcli.players.seating.play_game`'s job, above the engine.
    """
    p = rules.num_players
    if len(strategy_names) != p or len(players) != p:
        raise ValueError(f"{len(strategy_names)} strategies for {p} seats")
    players = list(players)
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
            f"(totals {totals}); where deals score too little to reach it (strategies that lose points every deal: "
            f"random play in Americana, or the Spanish game with 4 players each alone; house rules that make "
            f"canastas rare, such as Americana's min_naturals_before_adding_wild=5) a game never ends: cap it with "
            f"--rule max_hands=N "
            f"({ctx.describe()})", ctx)
    result.decisions = decisions
    if emit:
        emit("game_end", {"totals": list(totals), "winner_team": result.winner_team,
                          "deals": len(result.deals)})
    return result


