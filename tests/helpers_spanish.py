"""Stacked-deck helpers for Spanish Canasta tests (the *montón* of 6 face-down cards + upcards), next to :mod:`helpers`.

Why not :func:`helpers.stack_deck` alone: the Spanish initial pile is ``initial_pile_facedown`` (6) face-down cards
and an upcard, and while the upcard is a *premio* (A, 2, 7, JK) ``upcard_cover_facedown`` (1) more face-down card
and a new upcard are placed on it (RULES.md §2.4). ``stack_deck`` puts all the upcards right after the face-down
cards, so the cover cards would be taken from the upcards. :func:`stack_es_deck` interleaves them in the order
``new_deal`` turns them: hands, 6 face down, upcard, (1 face down, upcard)*, then the stock in drawing order.

Seats: the dealer is seat 1 and play runs to the dealer's right (``play_direction = CCW``: seat - 1), so seat 0
plays first, then seat 3, seat 2, seat 1 (4 players). Team 0 = seats 0 and 2, team 1 = seats 1 and 3 (the dealer's
team, which gets the exact-cut and exact-pick bonuses). Turn 1 = seat 0, turn 2 = seat 3, turn 3 = seat 2, turn 4 =
seat 1, turn 5 = seat 0 again (its second turn: round two).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from helpers import Cards, PackCounter, Table, filler_cards, players, seat_order

from simcli.engine.deal import new_deal
from simcli.engine.state import DealState
from simcli.primitives.cards import IS_NATURAL
from simcli.primitives.errors import IllegalDecision
from simcli.rules.presets import load_rules
from simcli.strategy import Strategy

#: The dealer of every hand-dealt scenario: with CCW play seat 0 (the dealer's right) plays first.
DEALER = 1


def es_rules(**knobs: Any) -> Any:
    """Spanish rules with knob overrides; dotted names may use ``__`` (``canasta_bonus__wild_pure=2500``)."""
    return load_rules("spanish", {k.replace("__", "."): v for k, v in knobs.items()})


def stack_es_deck(rules: Any, hands: Mapping[int, Cards] | None = None, upcards: Cards = None, stock: Cards = "",
                  dealer: int = DEALER, facedown: Cards = None, cover: Cards = None,
                  fill_stock: bool = True) -> list[int]:
    """A deck (top first) dealing ``hands[seat]``, then the Spanish pile, then ``stock`` in drawing order.

    ``facedown`` are the first face-down pile cards (completed with filler up to ``initial_pile_facedown``);
    ``upcards`` is the whole sequence turned face up, e.g. ``"A 8"`` (every card but the last must be a rank the
    rules cover); ``cover`` are the face-down cards placed on the covered upcards (``upcard_cover_facedown`` per
    covered upcard, filled with filler). ``stock`` lists the first stock cards: replacements for dealt red threes
    first (in laying order from the first player), then turn 1's draw, turn 2's, ...
    """
    p = rules.num_players
    pack = PackCounter(rules)
    remaining = pack.remaining
    take = pack.take
    want = pack.per_seat(hands, rules.hand_size)
    coverable = set(rules.upcard_cover_ranks)
    up = take("upcards", upcards) if upcards is not None else None
    if up is not None and (not up or up[-1] in coverable or any(c not in coverable for c in up[:-1])):
        raise ValueError(f"upcards {upcards!r}: all but the last must be covered ranks, the last not")
    down = take("facedown", facedown)
    if len(down) > rules.initial_pile_facedown:
        raise ValueError(f"{len(down)} face-down cards asked for, the rules place {rules.initial_pile_facedown}")
    covers = take("cover", cover)
    top = take("stock", stock)
    fill = deque(filler_cards(remaining))
    for s in range(p):
        while len(want[s]) < rules.hand_size:
            want[s].append(fill.popleft())
    while len(down) < rules.initial_pile_facedown:
        down.append(fill.popleft())
    if up is None:
        i = next(i for i, c in enumerate(fill) if IS_NATURAL[c] and c not in coverable)
        up = [fill[i]]
        del fill[i]
    n_cover = rules.upcard_cover_facedown * (len(up) - 1)
    if len(covers) > n_cover:
        raise ValueError(f"{len(covers)} cover cards asked for, {len(up) - 1} covered upcards take {n_cover}")
    while len(covers) < n_cover:
        covers.append(fill.popleft())
    order = seat_order(rules, dealer)
    deck = [want[s][i] for i in range(rules.hand_size) for s in order]
    deck += down
    k = rules.upcard_cover_facedown
    for j, card in enumerate(up):
        deck.append(card)
        if j < len(up) - 1:
            deck += covers[j * k:(j + 1) * k]
    deck += top
    if fill_stock:
        deck += list(fill)
    return deck


def es_deal_state(rules: Any = None, hands: Mapping[int, Cards] | None = None, upcards: Cards = None,
                  stock: Cards = "", dealer: int = DEALER, team_scores: Sequence[int] | None = None,
                  facedown: Cards = None, cover: Cards = None, fill_stock: bool = True, cut_count: int = 0,
                  pick_count: int = 0) -> DealState:
    """A prepared Spanish deal (:func:`simcli.engine.deal.new_deal`) from :func:`stack_es_deck`.

    ``cut_count`` / ``pick_count`` are the dealer's grabs (0 = not exact: the targets are 15 x players and 7).
    """
    rules = rules or es_rules()
    deck = stack_es_deck(rules, hands, upcards, stock, dealer, facedown, cover, fill_stock)
    scores = list(team_scores) if team_scores is not None else [0] * rules.n_teams
    return new_deal(rules, deck, dealer, 0, scores, cut_count=cut_count, pick_count=pick_count)


def es_table(st: DealState, scripts: Mapping[int, Strategy] | None = None, turns: int = 0) -> Table:
    """A :class:`helpers.Table` on ``st`` (dealt red threes laid) with ``turns`` turns already played."""
    return Table(st, players(scripts, st.n_players)).step(turns)


def refused(table: Table, needle: str) -> str:
    """Play one more turn, which must be refused with an :class:`IllegalDecision` containing ``needle``."""
    with pytest.raises(IllegalDecision) as exc:
        table.step(1)
    msg = str(exc.value)
    assert needle in msg, msg
    return msg
