"""The initial pile and the Spanish pile's features (RULES.md §1.5, §1.7 and §4): the upcards and their cover
(*tapa*), the face-down initial pile and the dealer's pick of it (*picar exacto*), the prized pile (*premiado*)
and the pile crossed by a wild card (*castigado*).

Pure set-up and predicates over :class:`~simcli.engine.state.DealState` (the crossed-pile take rule is
:func:`crossed_take_error`, used by :mod:`simcli.engine.judge`) and the transitions the turn calls: after a pile take
(:func:`after_take`), at a freezing discard (:func:`on_freezing_discard`) and at the deal's end
(:func:`at_end`).
"""

from __future__ import annotations

from collections.abc import Sequence

from simcli.engine.features import handfoot
from simcli.engine.state import DealState
from simcli.primitives.cards import IS_WILD, RANK_NAMES, SEVEN
from simcli.rules.presets import pick_target


def deal_initial_pile(st: DealState, bury: Sequence[float] = ()) -> None:
    """Lay the initial pile from the stock: ``initial_pile_facedown`` cards face down, then upcards, each covered
    by the next while it is of ``upcard_cover_ranks`` (a premio freezes or prizes the pile and, in the Spanish
    montón, is covered by face-down cards too), or under ``upcard_reject_mode=BURY`` put back into the stock at the
    places ``bury``."""
    rules = st.rules
    stock = st.stock
    for _ in range(rules.initial_pile_facedown):
        st.pile.append(stock.pop())
    if not rules.initial_pile_faceup:
        return
    cover = rules.upcard_cover_ranks
    buried = 0
    while stock:
        card = stock.pop()
        st.pile.append(card)
        st.upcards.append(card)
        if card == SEVEN and rules.seven_freezes_pile != "NONE":
            st.pile_frozen = True
        # RULES.md §1.7: a wild card in the pile freezes it, discarded or turned up, covered or not.
        if IS_WILD[card] and rules.freeze_on_wild_discard:
            st.pile_frozen = True
        if card not in cover:
            break
        if rules.upcard_reject_mode == "BURY":
            handfoot.bury_upcard(st, bury[buried] if buried < len(bury) else 0.5)
            buried += 1
            continue
        if rules.upcard_cover_effect != "NONE" and card in rules.upcard_freeze_ranks:
            st.pile_frozen = True
            st.pile_premiado = rules.upcard_cover_effect == "PREMIADO"
        # Spanish montón: a premio is covered by one more face-down card and a new upcard.
        for _ in range(rules.upcard_cover_facedown):
            if len(stock) > 1:
                st.pile.append(stock.pop())


def pick_initial_pile(st: DealState, pick_count: int) -> None:
    """The dealer's grab for a face-down initial pile (*picar exacto*): exact, it may earn the dealer's team a
    bonus (``exact_pile_pick_bonus``)."""
    rules = st.rules
    if not rules.initial_pile_facedown:
        return
    st.pick_count = pick_count
    st.pick_target = pick_target(rules)
    st.exact_pick = pick_count == st.pick_target
    if st.exact_pick and rules.exact_pile_pick_bonus:
        st.exact_pick_team = st.team_of[st.dealer]


def crossed_take_error(st: DealState, top: int, naturals: int) -> str | None:
    """Why a pile crossed by a wild card (castigado) may not be taken with ``naturals`` natural ``top`` cards
    from the hand, or ``None`` (``castigado_requirement=THREE_FROM_HAND``)."""
    if st.castigado_since is not None and st.rules.castigado_requirement == "THREE_FROM_HAND" and naturals < 3:
        return f"the pile is crossed by a wild card: three natural {RANK_NAMES[top]} from the hand are needed"
    return None


def after_take(st: DealState) -> None:
    """After a pile take: a crossed pile is logged as uncrossed, a prized pile as first taken now."""
    st.end_crossing()
    if st.pile_premiado and st.premiado_end_turn is None:
        st.premiado_end_turn = st.turn


def on_freezing_discard(st: DealState, card: int) -> None:
    """A discard that froze the pile: a wild one crosses it (castigado) until it is taken."""
    if IS_WILD[card] and st.castigado_since is None:
        st.castigado_since = st.turn


def at_end(st: DealState) -> None:
    """The deal's end: a pile still crossed lasted until the last turn."""
    st.end_crossing()
