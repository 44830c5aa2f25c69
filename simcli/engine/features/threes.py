"""Bonus threes: red threes laid and replaced (RULES.md §1.9, §2.1), and Americana's black threes and the one
three a player may keep until the team opens (§3).

Predicates over :class:`~simcli.engine.state.DealState` and the transitions the turn calls: after the deal
(:func:`lay_dealt_threes`), at the start of a turn (:func:`at_turn_start`, :func:`once_opened`), on every
draw of a bonus three (:func:`draw_one`) and when cards arrive in a hand (:func:`lay_held_threes`).
"""

from __future__ import annotations

from simcli.engine.core import Engine
from simcli.engine.state import DealState
from simcli.primitives.cards import BLACK_THREE, RANK_NAMES, RED_THREE


def may_keep_three(st: DealState, seat: int) -> bool:
    """Whether ``seat`` may keep an arriving three in the hand (Americana, until the team opens; one at most)."""
    if not st.rules.may_hold_one_three_before_opening or st.opened[st.team_of[seat]]:
        return False
    return held_bonus_threes(st, seat) == 0


def held_bonus_threes(st: DealState, seat: int) -> int:
    """Bonus threes in ``seat``'s hand (a black three under threes_mode=RED_BONUS is an ordinary card and does
    not count toward the one that may be kept)."""
    hand = st.hands[seat]
    bonus = st.is_bonus_three
    return (hand[RED_THREE] if bonus[RED_THREE] else 0) + (hand[BLACK_THREE] if bonus[BLACK_THREE] else 0)


def lay_three(eng: Engine, seat: int, rank: int, source: str) -> None:
    """Lay a bonus three (a red three; in Americana a black one too) in front of the team."""
    st = eng.st
    team = st.team_of[seat]
    if rank == RED_THREE:
        st.red_threes[team] += 1
        st.red_threes_by_seat[seat] += 1
    else:
        st.black_threes[team] += 1
        st.black_threes_by_seat[seat] += 1
    if st.history is not None:
        st.history.append(("three", seat, st.turn, rank, source))
    if eng.emit:
        eng.emit("red_three" if rank == RED_THREE else "black_three",
                 {"seat": seat, "team": team, "source": source})


def may_hold_three(eng: Engine, seat: int, rank: int) -> bool | None:
    """Americana: a player may keep one three until the team opens, if the strategy wants to.

    ``None`` when the strategy is not asked (the rules or the hand do not allow keeping this three).
    """
    if not may_keep_three(eng.st, seat):
        return None
    strategy = eng.strategies[seat]
    try:
        hold = strategy.hold_three(eng.views[seat], rank)
    except Exception as exc:
        raise eng.wrap(seat, exc) from exc
    return eng.flag(seat, "hold_three", hold)


def hold_line(eng: Engine, seat: int, rank: int, hold: bool | None) -> None:
    """Write the ``hold_three`` decision line, once the three is laid or in the hand (a consistent state)."""
    if hold is not None and eng.emit:
        eng.emit("decision", {"seat": seat, "turn": eng.st.turn, "kind": "hold_three",
                              "value": {"card": RANK_NAMES[rank], "hold": hold}})


def draw_one(eng: Engine, seat: int, source: str) -> int | None:
    """Draw one card from the stock into ``seat``'s hand, laying bonus threes and replacing them."""
    st = eng.st
    stock = st.stock
    hand = st.hands[seat]
    bonus = st.is_bonus_three
    while stock:
        card = stock.pop()
        hold = None
        if bonus[card]:
            hold = may_hold_three(eng, seat, card)
            if not hold:
                lay_three(eng, seat, card, source)
                hold_line(eng, seat, card, hold)
                if not stock:
                    st.last_card_red_three = True
                    return None
                source = "replacement"
                continue
        hand[card] += 1
        st.hand_sizes[seat] += 1
        hold_line(eng, seat, card, hold)
        return card
    return None


def lay_held_threes(eng: Engine, seat: int, source: str, held: tuple[int, int] = (0, 0)) -> None:
    """Lay every bonus three in ``seat``'s hand, each replaced from the stock.

    ``held`` counts (red, black) threes that were in the hand before the cards of ``source`` arrived
    (Americana: a three kept before opening): those are laid first of their rank, with source ``held``.
    """
    st = eng.st
    hand = st.hands[seat]
    for rank, kept in ((RED_THREE, held[0]), (BLACK_THREE, held[1])):
        if not st.is_bonus_three[rank]:
            continue
        while hand[rank]:
            hold = may_hold_three_from_hand(eng, seat, rank) if source == "dealt" else None
            if hold:
                hold_line(eng, seat, rank, hold)
                break
            hand[rank] -= 1
            st.hand_sizes[seat] -= 1
            st.forget(seat, rank, 1)
            if kept:
                kept -= 1
                lay_three(eng, seat, rank, "held")
            else:
                lay_three(eng, seat, rank, source)
            hold_line(eng, seat, rank, hold)
            draw_one(eng, seat, "replacement")


def may_hold_three_from_hand(eng: Engine, seat: int, rank: int) -> bool | None:
    """:func:`may_hold_three` for a three already in the hand (dealt): asked as if it were the one arriving."""
    st = eng.st
    hand = st.hands[seat]
    if held_bonus_threes(st, seat) != 1:
        return None  # one three at most may be kept
    hand[rank] -= 1
    try:
        return may_hold_three(eng, seat, rank)
    finally:
        hand[rank] += 1


def lay_pile_threes(eng: Engine, seat: int, start: int = 0) -> None:
    """A take's bonus threes, the only cards left in ``pile[start:]`` once the rest of the take is in the hand, laid
    one by one (and replaced under ``red_three_from_pile_replaced``), so that every event sees each card in exactly
    one place. ``pile[:start]`` are the cards the take left (``pile_take_count``)."""
    st = eng.st
    pile = st.pile
    while len(pile) > start:
        lay_three(eng, seat, pile.pop(), "pile")
        if st.rules.red_three_from_pile_replaced:
            draw_one(eng, seat, "replacement")


def lay_dealt_threes(eng: Engine) -> None:
    """Lay and replace dealt threes right after the deal, in seat order (RULES.md §2.1).

    With ``dealt_threes_laid=FIRST_TURN`` (§1.9) this does nothing: each player lays them at
    the start of their first turn instead (:func:`at_turn_start`).
    """
    st = eng.st
    if st.rules.dealt_threes_laid != "AFTER_DEAL":
        return
    seat = st.first_player
    for _ in range(st.n_players):
        lay_held_threes(eng, seat, "dealt")
        seat = st.next_seat(seat)


def at_turn_start(eng: Engine, seat: int) -> None:
    """Start of turn, first step: under ``dealt_threes_laid=FIRST_TURN`` a player's first turn lays the dealt
    threes."""
    st = eng.st
    if st.seat_turns[seat] == 1 and st.rules.dealt_threes_laid == "FIRST_TURN":
        lay_held_threes(eng, seat, "dealt")


def once_opened(eng: Engine, seat: int, team: int) -> None:
    """Start of turn, last step: a three kept before opening is laid once the team has opened."""
    st = eng.st
    if st.opened[team] and st.rules.may_hold_one_three_before_opening:
        hand = st.hands[seat]
        if hand[RED_THREE] or hand[BLACK_THREE]:
            lay_held_threes(eng, seat, "held")
