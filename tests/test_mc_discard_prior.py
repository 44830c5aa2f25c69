"""``mc:discards=K`` compares the heuristic's discard and the K-1 that :func:`simcli.strategies.search.mc.discard_prior`
rates most disposable (issue 23 item 1's pruning screen, results/studies/mc-cost section 6); without ``discards`` every
distinct legal discard is a candidate, as before."""

from __future__ import annotations

import numpy as np
from helpers import deal_state, make_rules

from simcli.engine.view import PlayerView
from simcli.primitives.cards import BLACK_THREE, FIVE, JOKER, KING, QUEEN, SEVEN, TWO
from simcli.strategies.search.mc import MonteCarlo, discard_prior


def view_of(hand: str) -> PlayerView:
    """Seat 1 (first to play) holds ``hand``; its team has a meld of queens on the table."""
    rules = make_rules(hand_size=len(hand.split()))
    st = deal_state(rules, {1: hand}, stock="K")
    st.add_to_meld(1, QUEEN, 3, 0, 0)
    st.opened[1] = True
    return PlayerView(st, 1)


def test_the_prior_rates_black_three_first_wilds_last_and_own_meld_ranks_above_loose_cards() -> None:
    prior = discard_prior(view_of("B3 5 7 7 Q 2 JK"))
    assert prior[BLACK_THREE] < prior[FIVE] < prior[SEVEN]  # a pair of sevens is worth more than a loose five
    assert prior[SEVEN] < prior[QUEEN]  # the team melded queens
    assert max(prior[FIVE], prior[SEVEN], prior[QUEEN]) < min(prior[TWO], prior[JOKER])


def test_discards_keeps_the_heuristic_choice_and_the_most_disposable_others() -> None:
    view = view_of("B3 5 7 7 Q K 2 JK")
    rng = np.random.default_rng(0)
    every = MonteCarlo(rng)._discard_candidates(view, KING)
    assert every[0] == KING and set(every[1:]) == {BLACK_THREE, FIVE, SEVEN, QUEEN, TWO, JOKER}
    assert MonteCarlo(rng, discards=3)._discard_candidates(view, KING) == [KING, BLACK_THREE, FIVE]
    # The heuristic's own choice stays first even where the prior rates it least disposable.
    assert MonteCarlo(rng, discards=2)._discard_candidates(view, JOKER) == [JOKER, BLACK_THREE]
