"""Dealing: a deal set up from a shuffled deck (hands, ponies, wings, the initial pile, the cuts) and the opening
events that describe it (RULES.md §1.5, §2.2, §2.3; the Spanish montón of §4).

:func:`new_deal` is pure set-up over :class:`~simcli.engine.state.DealState`; :func:`emit_opening` writes the
``deal``, ``cut`` and (where the variant has them) ``pony_grab`` and ``pile_pick`` events before the first turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcli.engine.core import Emit
from simcli.engine.features import handfoot, ponies, spanish_pile, wings
from simcli.engine.state import DealState
from simcli.engine.trace_json import cards_json
from simcli.primitives.cards import RANK_NAMES
from simcli.rules.presets import cut_target
from simcli.rules.ruleset import RuleSet


def new_deal(rules: RuleSet, deck: Sequence[int], dealer: int, deal_index: int, team_scores: list[int],
             cut_count: int, pony_cut_count: int = 0, pick_count: int = 0,
             draws: tuple[list[float], list[int]] | None = None) -> DealState:
    """Set up a deal from a shuffled ``deck`` (``deck[0]`` is the top card): hands, ponies, upcards, cuts.

    ``pick_count`` is the dealer's grab for a face-down initial pile (Spanish *picar exacto*); ``draws`` the
    places of buried upcards and the players' grabs of Hand and Foot (:func:`simcli.engine.features.handfoot.
    deal_draws`).
    """
    st = DealState(rules, deal_index, dealer, team_scores)
    st.deck = list(deck)
    st.stock = list(reversed(deck))  # stock[-1] is the top card, so pop() draws it
    stock = st.stock
    p = st.n_players
    order = [(st.first_player + i * st.step) % p for i in range(p)]
    # One card at a time from the top, round the table: the k-th player in order gets deck[k::p].
    dealt = rules.hand_size * p
    for k, seat in enumerate(order):
        hand = st.hands[seat]
        for card in deck[k:dealt:p]:
            hand[card] = hand[card] + 1  # not +=: the compiled build then adds natively
    del stock[len(stock) - dealt:]
    for seat in range(p):
        st.hand_sizes[seat] = rules.hand_size
    ponies.deal_ponies(st, order)
    wings.set_aside(st)
    spanish_pile.deal_initial_pile(st, draws[0] if draws else ())
    if draws:
        handfoot.settle_deck(st)
        st.self_deal_grabs = tuple(draws[1])
    st.cut_count = cut_count
    st.cut_target = cut_target(rules)
    st.exact_cut = cut_count == st.cut_target
    if st.exact_cut and rules.exact_cut_bonus:
        beneficiary = st.cutter if rules.exact_cut_beneficiary == "CUTTER_TEAM" else dealer
        st.exact_cut_team = st.team_of[beneficiary]
    spanish_pile.pick_initial_pile(st, pick_count)
    ponies.grab_ponies(st, pony_cut_count)
    return st


def emit_opening(st: DealState, emit: Emit) -> None:
    """The events before the first turn: the deal itself, the cut, the pony grab and the initial pile's pick; in
    Hand and Foot the players' self-deal grabs and the upcards put back into the stock."""
    emit("deal", {
        "deal_index": st.deal_index, "dealer": st.dealer, "first_player": st.first_player,
        "deck": [RANK_NAMES[c] for c in st.deck],
        "hands": [cards_json(h) for h in st.hands],
        "upcards": [RANK_NAMES[c] for c in st.upcards], "pile_frozen": st.pile_frozen,
        "minimum": list(st.minimum),
    })
    emit("cut", {"cutter": st.cutter, "count": st.cut_count, "target": st.cut_target,
                 "exact": st.exact_cut, "bonus_team": st.exact_cut_team})
    if st.rules.pony_size:
        emit("pony_grab", {"pony_dealer": st.pony_dealer, "count": st.pony_cut_count,
                           "target": st.rules.pony_size * st.n_players, "exact": st.pony_exact,
                           "bonus_team": st.pony_exact_team})
    if st.pick_target:
        emit("pile_pick", {"dealer": st.dealer, "count": st.pick_count, "target": st.pick_target,
                           "exact": st.exact_pick, "bonus_team": st.exact_pick_team,
                           "premiado": st.pile_premiado})
    if st.self_deal_grabs:
        emit("self_deal", handfoot.self_deal_json(st))
    for card in st.buried_upcards:
        emit("upcard_buried", {"card": RANK_NAMES[card]})
