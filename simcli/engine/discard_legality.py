"""Discard legality: the discard bars (``discard_restrictions``, ``empty_pile_no_dead_card``) and the order in which
they lift when a hand could otherwise discard nothing (RULES.md A-AM-4d; the three bar for a hand of threes only,
docs/rules.md, the simcli note below §3.6). :func:`simcli.engine.judge.discard_error` is :func:`discard_error`; the
judge also says when a seat has no legal discard at all (``judge.no_discard_error``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from simcli.engine.state import DealState
from simcli.primitives.cards import ACE, BLACK_THREE, FOUR, IS_NATURAL, IS_WILD, RED_THREE, SEVEN

__all__ = ["DISCARD_LIFTS", "discard_error", "discard_lifts"]


#: The discard bars that lift, in this order, when a player could otherwise discard nothing: the dead-rank bar of
#: ``empty_pile_no_dead_card``, then the A/7 bar of ``EMPTY_PILE_NO_A7_UNLESS_ONLY`` (RULES.md A-AM-4d), then the three
#: bar of ``NO_THREE_UNLESS_OUT`` for a hand that holds only threes (black threes kept under ``threes_mode=RED_BONUS``;
#: docs/rules.md, the simcli note below §3.6).
DISCARD_LIFTS: Final = ("dead_rank", "ace_seven", "three")


def discard_error(st: DealState, seat: int, card: int) -> str | None:
    """Why ``seat`` may not discard ``card`` now (``discard_restrictions``, ``empty_pile_no_dead_card``), or ``None``.

    Where the bars leave no card in the hand discardable, they lift as :func:`discard_lifts` says (A-AM-4d, and
    the three bar for a hand of threes only), so that some card in a hand is always discardable.
    """
    restrictions = st.rules.discard_restrictions
    if not restrictions and not st.rules.empty_pile_no_dead_card:
        return None
    err = _discard_bar(st, seat, card, 0)
    if err is None:
        return None
    if st.pile or not st.rules.empty_pile_no_dead_card:
        if not (card == RED_THREE or card == BLACK_THREE) or not _only_threes(st.hands[seat]):
            return err  # without the dead-rank bar only a hand of threes can have no discardable card
    return _discard_bar(st, seat, card, discard_lifts(st, seat))


def _only_threes(hand: Sequence[int]) -> bool:
    """Whether every card of ``hand`` is a three."""
    return not any(n for r, n in enumerate(hand) if n and r != RED_THREE and r != BLACK_THREE)


def discard_lifts(st: DealState, seat: int) -> int:
    """How many bars of :data:`DISCARD_LIFTS` are lifted for ``seat`` now: 0 while some card in hand may be
    discarded under every bar; else the fewest, in that order, that make one discardable.

    With the restrictions of RULES.md lifting the dead-rank bar is always enough for a hand that holds a card
    other than a three (a hand with no discardable card holds a dead natural, and once dead ranks may go, a dead
    natural other than A/7 may, or the naturals are all A/7, which the A/7 bar then allows; wild cards are barred
    only while a natural is held); the A/7 lift is there for the order the rule states. A hand of threes only
    (two or more: a last card is a going-out discard) needs the three bar lifted, on any pile.
    """
    hand = st.hands[seat]
    if (st.pile or not st.rules.empty_pile_no_dead_card) and (
            "NO_THREE_UNLESS_OUT" not in st.rules.discard_restrictions or not _only_threes(hand)):
        return 0
    held = [r for r, n in enumerate(hand) if n]
    for lifted in range(len(DISCARD_LIFTS) + 1):
        if any(_discard_bar(st, seat, r, lifted) is None for r in held):
            return lifted
    return len(DISCARD_LIFTS)


def _discard_bar(st: DealState, seat: int, card: int, lifted: int) -> str | None:
    """The first discard bar that stops ``card``, with the first ``lifted`` bars of DISCARD_LIFTS lifted."""
    restrictions = st.rules.discard_restrictions
    hand = st.hands[seat]
    going_out = st.hand_sizes[seat] == 1
    if going_out:
        return None
    is_three = card == RED_THREE or card == BLACK_THREE
    if is_three and lifted < 3 and "NO_THREE_UNLESS_OUT" in restrictions:
        return "a three may be discarded only when going out (or when the hand holds only threes)"
    if IS_WILD[card] and "NO_WILD_UNLESS_OUT_OR_ONLY_WILDS" in restrictions:
        if any(hand[r] for r in range(FOUR, ACE + 1)):
            return "a wild card may be discarded only when going out or when the hand holds only wilds and threes"
    if (lifted < 1 and not st.pile and st.rules.empty_pile_no_dead_card and IS_NATURAL[card]
            and st.rank_has_canasta(card)):
        return "on an empty pile a card of a dead rank may not be discarded (empty_pile_no_dead_card)"
    if lifted < 2 and card in (ACE, SEVEN) and not st.pile and "EMPTY_PILE_NO_A7_UNLESS_ONLY" in restrictions:
        if any(hand[r] for r in range(FOUR, ACE + 1) if r not in (ACE, SEVEN)):
            return "on an empty pile an ace or a seven may be discarded only if no other natural card is held"
    return None
