"""Special hands of Canasta Americana (RULES.md §2.3): which 14 cards of a hand make one.

Each finder takes a rank-count vector and returns the rank-count vector of the 14 cards
that form the special hand, or ``None``. The engine and strategies share them. :func:`special_hand_error` is the
rule (used by :mod:`simcli.engine.judge` and the view) and :func:`lay_special_hand` the meld phase's transition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from simcli.engine.core import Engine
from simcli.engine.state import DealState
from simcli.engine.trace_json import cards_json
from simcli.primitives.cards import ACE, BLACK_THREE, CARD_VALUES, FOUR, JOKER, NUM_RANKS, RED_THREE, SEVEN, TWO

NATURALS_HIGH_FIRST: Final = tuple(range(ACE, FOUR - 1, -1))


def straight(hand: Sequence[int]) -> list[int] | None:
    """One each of A, 2, 3 (either colour), 4 ... K, plus one joker."""
    if hand[JOKER] < 1 or hand[TWO] < 1 or hand[RED_THREE] + hand[BLACK_THREE] < 1:
        return None
    if any(hand[r] < 1 for r in range(FOUR, ACE + 1)):
        return None
    out = [0] * NUM_RANKS
    out[JOKER] = out[TWO] = 1
    out[BLACK_THREE if hand[BLACK_THREE] else RED_THREE] = 1
    for r in range(FOUR, ACE + 1):
        out[r] = 1
    return out


def _pairs(hand: Sequence[int], required: tuple[int, ...]) -> list[int] | None:
    out = [0] * NUM_RANKS
    for r in required:
        if hand[r] < 2:
            return None
        out[r] = 2
    total = sum(out)  # kept as pairs are added (not summed again at every rank)
    for r in NATURALS_HIGH_FIRST:
        if total == 14:
            break
        if out[r] == 0 and hand[r] >= 2:
            out[r] = 2
            total += 2
    return out if total == 14 else None


def pairs_natural(hand: Sequence[int]) -> list[int] | None:
    """Seven pairs of different natural ranks (no threes, no wild cards)."""
    return _pairs(hand, ())


def pairs_with_2_7_a(hand: Sequence[int], wild_ranks: Sequence[int] = (TWO,)) -> list[int] | None:
    """Seven pairs including a pair of wild cards (2s; jokers too where allowed) plus pairs of 7s and aces."""
    for wild in wild_ranks:
        found = _pairs(hand, (wild, SEVEN, ACE))
        if found is not None:
            return found
    return None


def garbage(hand: Sequence[int]) -> list[int] | None:
    """Two four-of-a-kinds and two three-of-a-kinds of four different natural ranks."""
    out = [0] * NUM_RANKS
    fours = [r for r in NATURALS_HIGH_FIRST if hand[r] >= 4][:2]
    if len(fours) < 2:
        return None
    for r in fours:
        out[r] = 4
    threes = [r for r in NATURALS_HIGH_FIRST if r not in fours and hand[r] >= 3][:2]
    if len(threes) < 2:
        return None
    for r in threes:
        out[r] = 3
    return out


FINDERS: dict[str, Callable[[Sequence[int]], list[int] | None]] = {
    "STRAIGHT": straight,
    "PAIRS_NATURAL": pairs_natural,
    "PAIRS_WITH_2_7_A": pairs_with_2_7_a,
    "GARBAGE": garbage,
}


def find_special(kind: str, hand: Sequence[int], wild_pair_ranks: Sequence[int] = (TWO,)) -> list[int] | None:
    """The 14 cards of ``hand`` that make special hand ``kind``, or ``None``."""
    if kind == "PAIRS_WITH_2_7_A":
        return pairs_with_2_7_a(hand, wild_pair_ranks)
    if kind == "STRAIGHT":  # the finders called directly: compiled calls, not through FINDERS' function objects
        return straight(hand)
    if kind == "PAIRS_NATURAL":
        return pairs_natural(hand)
    if kind == "GARBAGE":
        return garbage(hand)
    return FINDERS[kind](hand)


def special_hand_error(st: DealState, seat: int, kind: str) -> str | None:
    """Why ``seat`` may not lay special hand ``kind`` now, or ``None`` (RULES.md §2.3)."""
    r = st.rules
    if kind not in r.special_hands:
        allowed = ", ".join(r.special_hands) or "none in this variant"
        return f"special hand {kind!r} is not allowed; allowed: {allowed}"
    if r.special_hand_requires_team_unopened and st.opened[st.team_of[seat]]:
        return "a special hand may be laid only while the team has not opened"
    cards = find_special(kind, st.hands[seat], r.pairs_wild_pair_ranks)
    if cards is None:
        return f"the hand does not hold a {kind} special hand"
    if not r.special_hand_waives_minimum and not st.opened[st.team_of[seat]]:
        value = sum(n * CARD_VALUES[rank] for rank, n in enumerate(cards) if rank not in (RED_THREE, BLACK_THREE))
        if value < st.minimum[st.team_of[seat]]:
            return f"the special hand counts {value}, below the minimum {st.minimum[st.team_of[seat]]}"
    if st.hand_sizes[seat] - 14 > 1:
        return "a special hand must use the whole hand but one card at most"
    return None


def lay_special_hand(eng: Engine, seat: int, decision: Sequence[Any]) -> None:
    """Lay a special hand (Americana): it ends the deal after the discard of a last card, if any."""
    st = eng.st
    if len(decision) != 1:
        raise eng.fail(seat, "a special hand must be returned alone")
    kind = decision[0].kind
    err = special_hand_error(st, seat, kind)
    if err:
        raise eng.fail(seat, err)
    cards = find_special(kind, st.hands[seat], st.rules.pairs_wild_pair_ranks)
    assert cards is not None
    hand = st.hands[seat]
    for rank, n in enumerate(cards):
        hand[rank] -= n
        st.forget(seat, rank, n)
    st.hand_sizes[seat] -= 14
    st.special_hand = kind
    st.has_melded[seat] = True
    if st.history is not None:
        st.history.append(("special", seat, st.turn, kind))
    if eng.emit:
        eng.emit("special_hand", {"seat": seat, "team": st.team_of[seat], "kind": kind, "turn": st.turn,
                                  "cards": cards_json(cards)})
