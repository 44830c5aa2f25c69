"""``mc:melded=true``: sampled worlds in which no other player holds naturals of its team's open melds (issue 48).

The built-in heuristics lay every natural of a rank their team has melded, so a world that gives them such cards
misjudges the discard of that rank (Hand and Foot's heuristic discards it first: nobody can take the frozen pile
with it). The option moves those cards into the stock; these tests check the worlds it gives and that the default
search is untouched.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_mc_horizon import positions

from simcli.engine.view import PlayerView
from simcli.engine.worlds import rank_totals
from simcli.players.specs import StrategyLookupError
from simcli.primitives.cards import ACE, FOUR
from simcli.strategies.search.mc import MonteCarlo
from simcli.strategies.search.opponent_model import lay_melded
from simcli.strategy import strategy_factory


def melded_held(world: object, seat: int) -> int:
    """Naturals of their team's open melds that the other seats hold beyond the cards known in their hands."""
    held = 0
    for s in range(world.n_players):  # type: ignore[attr-defined]
        if s == seat:
            continue
        table = world.melds[world.team_of[s]]  # type: ignore[attr-defined]
        for r in range(FOUR, ACE + 1):
            if table[r] is not None:
                held += max(world.hands[s][r] - world.known[s][r], 0)  # type: ignore[attr-defined]
    return held


def test_melded_worlds_hold_no_naturals_of_melded_ranks_and_keep_every_card() -> None:
    found, _ = positions("handfoot", games=1)
    moved = 0
    for k, (st, _, _) in enumerate(found[::8]):
        view = PlayerView(st.clone(), st.current)
        world = view.sample_world(np.random.default_rng(k))
        before = melded_held(world, view.seat)
        totals = rank_totals(world)
        stock = len(world.stock)
        sizes = [sum(h) for h in world.hands]
        own = list(world.hands[view.seat])
        lay_melded(world, view.seat, np.random.default_rng(k))
        if before and len(world.stock) > 20:  # a large stock always has cards to swap in
            assert melded_held(world, view.seat) == 0
        assert melded_held(world, view.seat) <= before
        moved += before - melded_held(world, view.seat)
        assert rank_totals(world) == totals  # cards moved, none made or lost
        assert len(world.stock) == stock and [sum(h) for h in world.hands] == sizes
        assert world.hands[view.seat] == own  # the searcher's own hand is what it is
    assert moved > 0  # the uniform sampler does give players naturals of their melded ranks


def test_the_option_is_off_by_default_and_typed_on_the_command_line() -> None:
    assert MonteCarlo(np.random.default_rng(0)).melded is False
    mc = strategy_factory("mc:melded=true")(np.random.default_rng(0))
    assert isinstance(mc, MonteCarlo) and mc.melded is True
    with pytest.raises(StrategyLookupError, match="bad value 'x' for option 'melded'"):
        strategy_factory("mc:melded=x")
    with pytest.raises(ValueError, match="melded must be true or false, got 'yes'"):
        MonteCarlo(np.random.default_rng(0), melded="yes")


def searched(st: object, phase: str, melded: bool) -> tuple[list[object], list[float | None]]:
    """The candidates and mean margins of a 3-world search of ``st``'s decision, with or without ``melded``."""
    mc = MonteCarlo(np.random.default_rng(1), samples=3, melded=melded)
    getattr(mc, f"choose_{phase}")(PlayerView(st.clone(), st.current))  # type: ignore[attr-defined]
    return mc.last_search.candidates, mc.last_search.means


def test_a_melded_search_weighs_the_same_candidates_in_other_worlds() -> None:
    found, _ = positions("handfoot", games=1)
    busy = next((st, p) for st, p, _ in found if p == "discard" and len(st.stock) > 40 and sum(
        1 for s in range(st.n_players) for r in range(FOUR, ACE + 1) if s != st.current
        and st.melds[st.team_of[s]][r] is not None) >= 6)
    cands, means = searched(*busy, melded=True)
    plain_cands, plain_means = searched(*busy, melded=False)
    assert cands == plain_cands and means != plain_means  # the same options weighed in other worlds
