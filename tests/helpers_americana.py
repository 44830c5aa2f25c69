"""Stacked-deck helpers for Canasta Americana tests (hands, wings, stock), next to :mod:`helpers`.

Why not :func:`helpers.stack_deck` alone: in Americana ``new_deal`` sets the wings (4 then 3 cards) aside from the
top of the stock right after the hands, so the first seven ``stock`` cards of ``stack_deck`` would silently become
the wings. :func:`stack_am_deck` takes the wings explicitly and puts ``stock`` after them, in drawing order.

Why not :class:`helpers.Table` alone: its prelude lays only dealt *red* threes, while ``Deal.play`` lays every
bonus three (black ones too in Americana) through ``simcli.engine.features.threes.lay_held_threes``, which also asks
the ``hold_three`` hook. :class:`AmTable` uses the engine's own prelude.

Seats: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2, team 1 = seats 1 and 3.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from helpers import Cards, PackCounter, Scripted, Table, filler_cards, seat_order

from simcli.engine.deal import new_deal
from simcli.engine.features import threes
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.primitives.cards import RANK_NAMES
from simcli.primitives.errors import GameContext
from simcli.rules.presets import load_rules
from simcli.strategy import Strategy

DEALER = 3



def am_rules(**knobs: Any) -> Any:
    """Americana rules with knob overrides; dotted names may use ``__`` (``canasta_bonus__sevens=2000``)."""
    return load_rules("americana", {k.replace("__", "."): v for k, v in knobs.items()})


def _filler(remaining: Sequence[int]) -> deque[int]:
    """The unrequested cards, in the shared filler order of :func:`helpers.filler_cards`."""
    return deque(filler_cards(remaining))


def stack_am_deck(rules: Any, hands: Mapping[int, Cards] | None = None, wings: Sequence[Cards] = (),
                  stock: Cards = "", dealer: int = DEALER, fill_stock: bool = True) -> list[int]:
    """A deck (top first) dealing ``hands[seat]``, then setting ``wings`` aside, then ``stock`` in drawing order.

    Hands and wings may be partial or missing: they are completed with filler cards. ``stock`` lists the first
    stock cards after the wings: replacements for dealt threes come first, then turn 1's draw, turn 2's, ...
    """
    p = rules.num_players
    pack = PackCounter(rules)
    remaining = pack.remaining
    take = pack.take
    want = pack.per_seat(hands, rules.hand_size)
    sizes = list(rules.wing_sizes)
    if len(wings) > len(sizes):
        raise ValueError(f"{len(wings)} wings asked for, the rules set aside {len(sizes)}")
    want_wings = [take(f"wing {i + 1}", w) for i, w in enumerate(wings)]
    want_wings += [[] for _ in range(len(sizes) - len(want_wings))]
    for i, (w, size) in enumerate(zip(want_wings, sizes, strict=True)):
        if len(w) > size:
            raise ValueError(f"wing {i + 1}: {len(w)} cards asked for, its size is {size}")
    top = take("stock", stock)
    fill = _filler(remaining)
    for s in range(p):
        while len(want[s]) < rules.hand_size:
            want[s].append(fill.popleft())
    for w, size in zip(want_wings, sizes, strict=True):
        while len(w) < size:
            w.append(fill.popleft())
    order = seat_order(rules, dealer)
    deck = [want[s][i] for i in range(rules.hand_size) for s in order]
    for w in want_wings:
        deck += w
    deck += top
    if fill_stock:
        deck += list(fill)
    return deck


def am_deal_state(rules: Any = None, hands: Mapping[int, Cards] | None = None, wings: Sequence[Cards] = (),
                  stock: Cards = "", dealer: int = DEALER, team_scores: Sequence[int] | None = None,
                  fill_stock: bool = True) -> DealState:
    """A prepared Americana deal (:func:`simcli.engine.deal.new_deal`) from :func:`stack_am_deck`."""
    rules = rules or am_rules()
    deck = stack_am_deck(rules, hands, wings, stock, dealer, fill_stock)
    scores = list(team_scores) if team_scores is not None else [0] * rules.n_teams
    return new_deal(rules, deck, dealer, 0, scores, cut_count=0)


class AmTable(Table):
    """:class:`helpers.Table` with the engine's own prelude: every dealt bonus three laid (or held) and replaced."""

    def __init__(self, st: DealState, strategies: Sequence[Strategy], ctx: GameContext | None = None,
                 emit: Any = None):
        super().__init__(st, strategies, ctx, emit)

    def _lay_dealt_red_threes(self) -> None:
        # The same loop as Deal.play: seat order from the first player, threes.lay_held_threes(deal, seat, "dealt").
        st = self.st
        seat = st.first_player
        for _ in range(st.n_players):
            threes.lay_held_threes(self.deal, seat, "dealt")
            seat = st.next_seat(seat)


def am_play(st: DealState, strategies: Sequence[Strategy], turns: int) -> AmTable:
    """Play the first ``turns`` turns of a prepared Americana deal; return the table."""
    return AmTable(st, strategies).step(turns)


class Holder(Scripted):
    """A scripted player whose ``hold_three`` hook answers ``hold`` (and logs each question)."""

    def __init__(self, hold: bool = True, **kw: Any):
        super().__init__(**kw)
        self.hold = hold
        self.asked: list[tuple[int, str]] = []

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        self.asked.append((view.turn, RANK_NAMES[rank]))
        return self.hold
