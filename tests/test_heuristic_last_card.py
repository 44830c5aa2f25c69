"""A heuristic always names a legal discard, even in the corner where its last card is a red three (Americana lays
threes and replaces them from the stock; with the stock out a three drawn last stays in hand). Found by a search's
rollout in a 400-game Americana match (seed 32401, game 103): greedy's choice had no fallback for a red three and
returned -1, which stopped the match."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_americana import am_deal_state

from simcli.engine.view import PlayerView
from simcli.players.loading import load_strategy
from simcli.primitives.cards import NUM_RANKS, RED_THREE, TWO


@pytest.mark.parametrize("name", ["greedy", "americana"])
def test_the_last_card_a_red_three_is_discarded(name: str) -> None:
    st = am_deal_state()
    seat = 0
    hand = [0] * NUM_RANKS
    hand[RED_THREE] = 1
    st.hands[seat], st.hand_sizes[seat], st.stock = hand, 1, []
    view = PlayerView(st, seat)
    assert view.legal_discards() == [RED_THREE]
    assert load_strategy(name)(np.random.default_rng(0)).choose_discard(view) == RED_THREE
    # With a wild card beside it (two cards: not going out) the three may not go, the wild card may.
    hand[TWO] = 1
    st.hand_sizes[seat] = 2
    assert PlayerView(st, seat).legal_discards() == [TWO]
    assert load_strategy(name)(np.random.default_rng(0)).choose_discard(PlayerView(st, seat)) == TWO
