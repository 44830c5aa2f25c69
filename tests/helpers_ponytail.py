"""Stacked-deck helpers for Ponytail tests (hands *and* ponies), next to :mod:`helpers`.

:func:`helpers.stack_deck` does not know about ponies: ``new_deal`` deals the hands, then ``pony_size`` more rounds
to the ponies (same round-robin order), then the upcards. :func:`stack_pony_deck` lays a pack out for that order, so
each seat gets exactly the hand and the pony asked for; every other card is filled in from the rest of the pack
(naturals cycling 4, 5, ... A first, then black threes, twos, jokers and red threes at the very bottom), so each card
of the pack appears exactly once unless ``fill_stock=False`` asks for a short stock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from helpers import Cards, PackCounter, filler_cards, seat_order

from simcli.engine.deal import new_deal
from simcli.engine.state import DealState
from simcli.primitives.cards import (
    IS_NATURAL,
    JOKER,
    NUM_RANKS,
    RED_THREE,
    TWO,
)
from simcli.rules.presets import load_rules

#: The dealer of every hand-dealt scenario: seat 0 plays first, seat 2 is seat 0's partner.
DEALER = 3



def pt_rules(**knobs: Any) -> Any:
    """Ponytail rules with knob overrides; dotted names may use ``__`` (``canasta_bonus__sevens=2500``)."""
    return load_rules("ponytail", {k.replace("__", "."): v for k, v in knobs.items()})


def _filler(remaining: Sequence[int]) -> deque[int]:
    """The unrequested cards, in the shared filler order of :func:`helpers.filler_cards`."""
    return deque(filler_cards(remaining))


def stack_pony_deck(rules: Any, hands: Mapping[int, Cards] | None = None, ponies: Mapping[int, Cards] | None = None,
                    upcards: Cards = None, stock: Cards = "", dealer: int = DEALER,
                    fill_stock: bool = True) -> list[int]:
    """A deck (top first) dealing ``hands[seat]`` and ``ponies[seat]``, then turning ``upcards``, then ``stock``.

    Hands and ponies may be partial or missing (filled with naturals). ``upcards`` is the whole sequence turned face
    up, e.g. ``"JK 7 9"``: every card but the last must be a rank the rules cover. ``stock`` lists the first stock
    cards in drawing order (replacements for dealt red threes come first, then turn 1's draw, ...).
    """
    p = rules.num_players
    pack = PackCounter(rules)
    remaining = pack.remaining
    take = pack.take
    want_hands = pack.per_seat(hands, rules.hand_size, "hand")
    want_ponies = pack.per_seat(ponies, rules.pony_size, "pony")
    cover = set(rules.upcard_cover_ranks)
    up = take("upcards", upcards) if upcards is not None else None
    if up is not None and (not up or up[-1] in cover or any(c not in cover for c in up[:-1])):
        raise ValueError(f"upcards {upcards!r}: all but the last must be covered ranks, the last not")
    top = take("stock", stock)
    fill = _filler(remaining)
    for want, size in ((want_hands, rules.hand_size), (want_ponies, rules.pony_size)):
        for s in range(p):
            while len(want[s]) < size:
                want[s].append(fill.popleft())
    if up is None:
        i = next(i for i, c in enumerate(fill) if IS_NATURAL[c])
        up = [fill[i]]
        del fill[i]
    order = seat_order(rules, dealer)
    deck = [want_hands[s][i] for i in range(rules.hand_size) for s in order]
    deck += [want_ponies[s][i] for i in range(rules.pony_size) for s in order]
    deck += up + top
    if fill_stock:
        deck += list(fill)
    return deck


def pony_deal_state(rules: Any = None, hands: Mapping[int, Cards] | None = None,
                    ponies: Mapping[int, Cards] | None = None, upcards: Cards = None, stock: Cards = "",
                    dealer: int = DEALER, team_scores: Sequence[int] | None = None, fill_stock: bool = True,
                    cut_count: int = 0, pony_cut_count: int = 0) -> DealState:
    """A prepared Ponytail deal (:func:`simcli.engine.deal.new_deal`) from :func:`stack_pony_deck`."""
    rules = rules or pt_rules()
    deck = stack_pony_deck(rules, hands, ponies, upcards, stock, dealer, fill_stock)
    scores = list(team_scores) if team_scores is not None else [0] * rules.n_teams
    return new_deal(rules, deck, dealer, 0, scores, cut_count=cut_count, pony_cut_count=pony_cut_count)


def all_cards(st: DealState) -> list[int]:
    """Rank counts of every card of a deal wherever it is: hands, ponies, stock, pile, melds (closed canastas set
    aside included) and laid red threes."""
    total = [0] * NUM_RANKS
    for vec in (*st.hands, *st.ponies):
        for r, n in enumerate(vec):
            total[r] += n
    for c in (*st.stock, *st.pile):
        total[c] += 1
    for team, team_melds in enumerate(st.melds):
        melds = [(rank, *m) for rank, m in enumerate(team_melds) if m is not None] + list(st.closed[team])
        for rank, n, tw, jk in melds:  # the slots and the closed canastas set aside (A-PT-18)
            total[rank] += n
            total[TWO] += tw
            total[JOKER] += jk
    total[RED_THREE] += sum(st.red_threes)
    return total
