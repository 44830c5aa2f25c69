"""Stacked-deck helpers for Hand and Foot tests (RULES-hand-and-foot.md §5.5): the ``handfoot`` preset with knob
overrides and a prepared deal of it (hands, feet, upcard, stock), on :mod:`helpers_ponytail` (the foot is a pony).

Seats: the dealer is seat 3, so seat 0 (N) plays first; team A = seats 0 and 2 (N, S), team B = seats 1 and 3."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helpers import Cards, cards
from helpers_ponytail import stack_pony_deck

from simcli.engine.deal import new_deal
from simcli.engine.state import DealState
from simcli.primitives.cards import JOKER, TWO, WILD_MELD, parse_rank
from simcli.rules.presets import load_rules


def hf_rules(**knobs: Any) -> Any:
    """Hand and Foot rules with knob overrides; dotted names may use ``__`` (``canasta_bonus__wild=1000``)."""
    return load_rules("handfoot", {k.replace("__", "."): v for k, v in knobs.items()})


def hf_state(rules: Any = None, hands: Mapping[int, Cards] | None = None, feet: Mapping[int, Cards] | None = None,
             upcards: Cards = "6", stock: Cards = "", deal_index: int = 0,
             team_scores: list[int] | None = None) -> DealState:
    """A prepared Hand and Foot deal; ``deal_index`` 0 is deal 1 (opening minimum 50)."""
    rules = rules or hf_rules()
    deck = stack_pony_deck(rules, hands, feet, upcards, stock)
    return new_deal(rules, deck, 3, deal_index, list(team_scores or [0] * rules.n_teams), cut_count=0)


def set_pile(st: DealState, text: str) -> None:
    """Replace the pile (bottom first) by ``text``'s cards, taken from the stock so that every card stays once."""
    wanted = cards(text)
    for c in st.pile:
        st.stock.insert(0, c)
    st.pile[:] = []
    for c in wanted:
        st.stock.remove(c)
        st.pile.append(c)


def give_meld(st: DealState, team: int, rank: str, naturals: int = 0, twos: int = 0, jokers: int = 0) -> None:
    """Put a meld on ``team``'s table from the stock (the team counts as opened)."""
    r = WILD_MELD if rank == "WILD" else parse_rank(rank)
    for card, n in ((r, naturals), (TWO, twos), (JOKER, jokers)):
        for _ in range(n if card != WILD_MELD else 0):
            st.stock.remove(card)
    st.add_to_meld(team, r, naturals, twos, jokers)
    st.opened[team] = True


def set_hand(st: DealState, seat: int, text: str) -> None:
    """Replace ``seat``'s hand by ``text``'s cards, swapped with the stock so that every card stays once."""
    hand = st.hands[seat]
    for rank, n in enumerate(hand):
        st.stock[:0] = [rank] * n
        hand[rank] = 0
    for c in cards(text):
        st.stock.remove(c)
        hand[c] += 1
    st.hand_sizes[seat] = sum(hand)
    st.known[seat] = [0] * len(hand)


def stack_draws(st: DealState, text: str) -> None:
    """Put ``text``'s cards on top of the stock, the first listed drawn first."""
    wanted = cards(text)
    for c in wanted:
        st.stock.remove(c)
    st.stock.extend(reversed(wanted))


def in_foot(st: DealState, seat: int, played: bool = True) -> None:
    """Mark ``seat`` as in the foot (its foot's cards go back to the stock); ``played``: it has played from it."""
    foot = st.ponies[seat]
    for rank, n in enumerate(foot):
        st.stock[:0] = [rank] * n
        foot[rank] = 0
    st.pony_picked[seat] = True
    st.pony_unlocked[seat] = True
    st.pony_ready[seat] = st.seat_turns[seat] + (0 if played else 1)
    st.ponies_in_play = not all(st.pony_picked)


def give_books(st: DealState, team: int, clean: int = 0, dirty: int = 0, wild: int = 0) -> None:
    """Give ``team`` closed books: clean ones of A, K, Q, ...; dirty ones of 10, 9, ... (5 + 2 + JK); wild ones of
    4 twos + 3 jokers."""
    for rank in ("A", "K", "Q", "J")[:clean]:
        give_meld(st, team, rank, 7)
    for rank in ("10", "9", "8", "7")[:dirty]:
        give_meld(st, team, rank, 5, 1, 1)
    for _ in range(wild):
        give_meld(st, team, "WILD", 0, 4, 3)
