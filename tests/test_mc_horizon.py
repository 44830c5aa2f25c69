"""``mc``'s rollout horizon (``horizon``; ``simcli.players.forward.rollout``'s ``max_turns``): a limited rollout stops
after
exactly that many further turns and is scored as the table stands; no limit is today's rollout, bit for bit.

The positions are real ones: every decision of seat 0 in a seeded one-deal game of the variant's heuristic, the true
state cloned at the decision (so a rollout from it plays on the very cards of that game).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from simcli.engine.deal import MAX_TURNS_PER_DEAL, Deal
from simcli.engine.ending import team_positions
from simcli.engine.scoring import score_deal
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC
from simcli.players.forward import Forced, clone, margin, rollout
from simcli.players.seating import play_game
from simcli.players.specs import StrategyLookupError
from simcli.primitives.cards import CARD_VALUES, RED_THREE
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategies.search.mc import MonteCarlo
from simcli.strategy import Strategy, load_strategy, strategy_factory

#: A decision position: the true state cloned at the decision, its phase and the heuristic's decision.
Position = tuple[DealState, str, Any]


class Capture(Strategy):
    """Plays like ``policy`` and keeps every decision of its seat as a :data:`Position`."""

    def __init__(self, policy: Strategy) -> None:
        super().__init__(policy.rng)
        self.policy = policy
        self.positions: list[Position] = []

    def _keep(self, view: PlayerView, phase: str, decision: Any) -> Any:
        self.positions.append((clone(view._st), phase, decision))  # the true state: a test may look
        return decision

    def choose_draw(self, view: PlayerView) -> Any:
        """The policy's draw, kept."""
        return self._keep(view, "draw", self.policy.choose_draw(view))

    def choose_melds(self, view: PlayerView) -> Any:
        """The policy's melds, kept."""
        return self._keep(view, "melds", self.policy.choose_melds(view))

    def choose_discard(self, view: PlayerView) -> Any:
        """The policy's discard, kept."""
        return self._keep(view, "discard", self.policy.choose_discard(view))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The policy's."""
        return self.policy.hold_three(view, rank)

    def answer_go_out(self, view: PlayerView) -> bool:
        """The policy's."""
        return self.policy.answer_go_out(view)


class CountDraws(Strategy):
    """Plays like ``policy`` and counts its draw decisions: every turn asks exactly one, so they count the turns
    started, independently of the engine's own turn counter."""

    def __init__(self, policy: Strategy) -> None:
        super().__init__(policy.rng)
        self.policy = policy
        self.draws = 0

    def choose_draw(self, view: PlayerView) -> Any:
        """The policy's draw, counted."""
        self.draws += 1
        return self.policy.choose_draw(view)

    def choose_melds(self, view: PlayerView) -> Any:
        """The policy's."""
        return self.policy.choose_melds(view)

    def choose_discard(self, view: PlayerView) -> Any:
        """The policy's."""
        return self.policy.choose_discard(view)

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The policy's."""
        return self.policy.hold_three(view, rank)

    def answer_go_out(self, view: PlayerView) -> bool:
        """The policy's."""
        return self.policy.answer_go_out(view)


def positions(variant: str, games: int = 3) -> tuple[list[Position], list[Strategy]]:
    """Seat 0's decisions in one-deal games 0.. of seed 3 of the variant's heuristic, and rollout policies for
    every seat."""
    rules = load_rules(variant, {"max_hands": 1})
    cls = load_strategy(BEST_HEURISTIC[variant])
    found: list[Position] = []
    for game in range(games):
        table: list[Strategy] = [cls(seat_rng(3, game, s)) for s in range(rules.num_players)]
        capture = Capture(table[0])
        table[0] = capture
        play_game(rules, ["h"] * rules.num_players, 3, game, strategies=table)
        found += capture.positions
    return found, [cls(np.random.default_rng(s)) for s in range(rules.num_players)]


def snapshot(st: DealState) -> dict[str, Any]:
    """Every slot of a state, for comparing two states (the meld look-up caches left out)."""
    return {name: getattr(st, name) for name in DealState.__slots__ if name not in ("_meld_tables", "_meld_dicts")}


def classic_scores(st: DealState) -> list[int]:
    """Classic deal totals of ``st`` as if the deal ended now with nobody going out, by RULES.md's Classic rules
    written out here (not the engine's scoring): card points melded, 500 a natural and 300 a mixed canasta of 7
    or more, 100 a red three (800 for all four; negative for a team without melds), minus the cards in hand."""
    totals = []
    for team in range(st.n_teams):
        melds = [(rank, m) for rank, m in enumerate(st.melds[team]) if m is not None]
        points = 0
        for rank, (naturals, twos, jokers) in melds:
            points += naturals * CARD_VALUES[rank] + 20 * twos + 50 * jokers
            if naturals + twos + jokers >= 7:
                points += 500 if twos + jokers == 0 else 300
        threes = st.red_threes[team]
        bonus = 800 if threes == 4 else 100 * threes
        points += bonus if melds else -bonus
        for seat in st.members(team):
            points -= sum(n * CARD_VALUES[rank] for rank, n in enumerate(st.hands[seat]) if rank != RED_THREE)
        totals.append(points)
    return totals


def full_length(position: Position, policies: list[Strategy]) -> int:
    """How many turns after the decision's own a full rollout from ``position`` plays."""
    st, phase, decision = position
    return rollout(clone(st), phase, decision, policies).turns - st.turn


@pytest.mark.parametrize("horizon", [1, 3, 8])
def test_a_horizon_rollout_stops_after_exactly_h_turns_and_scores_the_table(horizon: int) -> None:
    found, policies = positions("classic")
    checked = 0
    for st, phase, decision in found:
        if full_length((st, phase, decision), policies) <= horizon:
            continue  # the deal ends first: no horizon to stop at
        counters = [CountDraws(p) for p in policies]
        world = clone(st)
        result = rollout(world, phase, decision, counters, horizon)
        assert result.end_reason == "horizon" and result.went_out_seat is None
        assert sum(c.draws for c in counters) == horizon  # turns started after the decision's own
        assert world.turn == result.turns == st.turn + horizon
        assert [s["total"] for s in result.scores] == classic_scores(world)
        totals = classic_scores(world)
        assert margin(result, 0) == totals[0] - max(totals[1:])
        assert snapshot(st) != snapshot(world)  # the rollout played the clone, not the kept position
        checked += 1
    assert checked >= 10, checked


@pytest.mark.parametrize("variant", sorted(BEST_HEURISTIC))
def test_the_static_score_is_the_end_of_deal_score_without_going_out(variant: str) -> None:
    # In every variant the truncated table is scored by the engine's own scoring of a deal ending without going
    # out (red threes, ponies, hidden canastas and all), and reading it changes nothing.
    found, policies = positions(variant)
    checked = 0
    for st, phase, decision in found[::3]:
        world = clone(st)
        result = rollout(world, phase, decision, policies, 2)
        if result.end_reason != "horizon":
            continue
        before = snapshot(world)
        assert result.scores == score_deal(world.rules, team_positions(world))
        assert not any(p.went_out or p.concealed for p in result.positions)
        assert snapshot(world) == before
        checked += 1
    assert checked >= 3, checked


@pytest.mark.parametrize("variant", ["classic", "spanish"])
def test_no_horizon_and_a_horizon_beyond_the_deal_are_the_full_rollout(variant: str) -> None:
    found, policies = positions(variant)
    for st, phase, decision in found[::2]:
        full_world = clone(st)
        full = rollout(full_world, phase, decision, policies)
        # What the rollout was before the horizon existed: the deal resumed without a limit.
        players = list(policies)
        players[st.current] = Forced(policies[st.current], phase, decision)
        today_world = clone(st)
        today = Deal(today_world, players).resume(phase)
        for max_turns in (0, full.turns - st.turn, full.turns - st.turn + 1, MAX_TURNS_PER_DEAL):
            world = clone(st)
            assert rollout(world, phase, decision, policies, max_turns) == full == today, max_turns
            assert snapshot(world) == snapshot(full_world) == snapshot(today_world)
        assert full.end_reason in ("went_out", "stock_out")
        # One turn short of the end, the rollout stops instead.
        if full.turns - st.turn > 1:
            assert rollout(clone(st), phase, decision, policies, full.turns - st.turn - 1).end_reason == "horizon"


def test_a_search_with_a_horizon_plays_limited_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    # The option reaches every rollout of the search: with horizon=2 no rollout plays past 2 turns, and some stop
    # there; horizon=0 (the default) plays every rollout to the end and the very same game as no option at all.
    import simcli.strategies.search.mc as mcmod

    seen: list[tuple[int, str]] = []

    def spy(world: DealState, phase: str, decision: Any, policies: Any, max_turns: int = 0) -> Any:
        turn = world.turn
        result = rollout(world, phase, decision, policies, max_turns)
        seen.append((result.turns - turn, result.end_reason))
        return result

    monkeypatch.setattr(mcmod, "rollout", spy)
    rules = load_rules("classic", {"max_hands": 1})
    heuristic = load_strategy("greedy")
    games = []
    for options in ({"horizon": 2}, {"horizon": 0}, {}):
        seen.clear()
        table: list[Strategy] = [MonteCarlo(seat_rng(6, 0, s), samples=2, **options) if s % 2 == 0
                                 else heuristic(seat_rng(6, 0, s)) for s in range(4)]
        r = play_game(rules, ["mc", "h", "mc", "h"], 6, strategies=table)
        games.append((r.totals, r.decisions))
        reasons = {reason for _, reason in seen}
        if options.get("horizon"):
            assert max(turns for turns, _ in seen) <= 2 and "horizon" in reasons
        else:
            assert "horizon" not in reasons and seen
    assert games[1] == games[2]


@pytest.mark.parametrize("value", [-1, 2.5, True, "4", math.inf, math.nan])
def test_a_bad_horizon_is_refused_naming_the_value(value: Any) -> None:
    with pytest.raises(ValueError) as info:
        MonteCarlo(np.random.default_rng(0), horizon=value)
    assert str(info.value) == f"horizon must be a whole number of turns >= 0 (0: to the end of the deal), got {value!r}"


def test_the_horizon_is_typed_on_the_command_line() -> None:
    mc = strategy_factory("mc:horizon=6")(np.random.default_rng(0))
    assert isinstance(mc, MonteCarlo) and mc.horizon == 6
    assert MonteCarlo(np.random.default_rng(0)).horizon == 0  # the default: rollouts to the end of the deal
    with pytest.raises(StrategyLookupError, match="bad value 'x' for option 'horizon'"):
        strategy_factory("mc:horizon=x")
    with pytest.raises(ValueError, match="got -2"):
        strategy_factory("mc:horizon=-2")(np.random.default_rng(0))
