"""Ponies (Ponytail, RULES.md §2.2): a second, face-down hand each player picks up once it is unlocked.

Every pony rule is here once: dealing them (:func:`deal_ponies`, :func:`grab_ponies`); the predicates over
:class:`~simcli.engine.state.DealState` that say what unlocks a pony and what an emptied hand does, which
:mod:`simcli.engine.judge` uses to judge melds, asks and last discards before they happen; and the transitions that use
them to carry the turn out: at the start of a turn (:func:`at_turn_start`), after melds (:func:`after_melds`) and
at an empty hand (:func:`hand_empty_pony`). The engine calls :func:`after_melds` only while
``st.ponies_in_play``, so a variant without ponies pays one test per hook.
"""

from __future__ import annotations

from simcli.engine.core import Engine
from simcli.engine.features import threes
from simcli.engine.state import DealState
from simcli.primitives.cards import BLACK_THREE, RED_THREE
from simcli.rules.ruleset import RuleSet


def unlocked_by_melds(st: DealState, seat: int, team_canastas: int, own_canasta: bool) -> tuple[int, ...]:
    """The seats whose pony is unlocked once ``seat`` has melded, its team holding ``team_canastas`` canastas and
    ``seat`` having made one itself (``own_canasta``): under ``pony_unlock`` TEAM_FIRST_CANASTA the whole team,
    under OWN_FIRST_CANASTA the player; HAND_EMPTY unlocks by :func:`empty_hand_takes_pony` instead."""
    unlock = st.rules.pony_unlock
    if unlock == "TEAM_FIRST_CANASTA" and team_canastas:
        return tuple(st.members(st.team_of[seat]))
    if unlock == "OWN_FIRST_CANASTA" and own_canasta:
        return (seat,)
    return ()


def has_foot(rules: RuleSet) -> bool:
    """Whether the rules' pony is Hand and Foot's foot, picked up by emptying the hand (``pony_unlock=HAND_EMPTY``):
    the trace, the records and the viewers then say how each player got into it (walking or running)."""
    return rules.pony_size > 0 and rules.pony_unlock == "HAND_EMPTY"


def empty_hand_takes_pony(st: DealState, seat: int) -> bool:
    """Whether emptying ``seat``'s hand picks up its pony instead of going out (``pony_unlock=HAND_EMPTY``)."""
    return st.rules.pony_unlock == "HAND_EMPTY" and not st.pony_picked[seat]


def pony_gain(st: DealState, seat: int, team_canastas: int, own_canasta: bool, hand_after: int) -> int:
    """Cards ``seat``'s pony would add to the hand if melds leaving the team ``team_canastas`` canastas (and
    ``own_canasta``: one made by ``seat``) and ``hand_after`` cards in the hand unlock it (RULES.md §2.2)."""
    if st.pony_picked[seat]:
        return 0
    opens = (
        st.pony_unlocked[seat]
        or seat in unlocked_by_melds(st, seat, team_canastas, own_canasta)
        or (hand_after == 0 and empty_hand_takes_pony(st, seat))
    )
    return sum(st.ponies[seat]) if opens else 0


def deal_ponies(st: DealState, order: list[int]) -> None:
    """Deal the ponies from the stock after the hands, one card at a time in the hands' ``order`` (the pony
    dealer sits after the dealer)."""
    stock = st.stock
    for _ in range(st.rules.pony_size):
        for seat in order:
            st.ponies[seat][stock.pop()] += 1


def grab_ponies(st: DealState, pony_cut_count: int) -> None:
    """The pony dealer's grab of the ponies' cards: exact, it may earn its team ``pony_dealer_exact_bonus``."""
    rules = st.rules
    if not rules.pony_size:
        return
    st.pony_cut_count = pony_cut_count
    st.pony_exact = pony_cut_count == rules.pony_size * st.n_players
    if st.pony_exact and rules.pony_dealer_exact_bonus:
        st.pony_exact_team = st.team_of[st.pony_dealer]


def at_turn_start(eng: Engine, seat: int) -> None:
    """Start of turn: a pony unlocked by a teammate (``pony_partner_pickup=NEXT_TURN_START``) is picked up."""
    st = eng.st
    if st.pony_unlocked[seat] and not st.pony_picked[seat]:
        pick_up_pony(eng, seat)


def pick_up_pony(eng: Engine, seat: int, walked: bool = False) -> None:
    """Add ``seat``'s pony to the hand, laying its bonus threes and replacing them from the stock. ``walked``: by
    discarding the last card (Hand and Foot's walking), so that it is first played from at the next turn."""
    st = eng.st
    pony = st.ponies[seat]
    hand = st.hands[seat]
    bonus = st.is_bonus_three
    # Red threes; under threes_mode=AMERICAN_COLOUR_TABLE black ones too (issue 52: one rule wherever a three
    # enters the hand): laid and replaced.
    laid = [(r, pony[r]) for r in (RED_THREE, BLACK_THREE) if bonus[r] and pony[r]]
    n_threes = sum(n for _, n in laid)
    size = sum(pony)
    for r, n in enumerate(pony):
        if n and not bonus[r]:
            hand[r] += n
    st.hand_sizes[seat] += size - n_threes
    st.ponies[seat] = [0] * len(pony)
    # The pony's bonus threes stay in it until each is laid, so that every event sees each card in one place.
    for r, n in laid:
        st.ponies[seat][r] = n
    st.pony_picked[seat] = True
    st.ponies_in_play = not all(st.pony_picked)
    st.pony_turn[seat] = st.turn
    st.pony_ready[seat] = st.seat_turns[seat] + (1 if walked or st.current != seat else 0)
    st.pony_walked[seat] = walked
    if st.history is not None:
        st.history.append(("pony", seat, st.turn, size))  # its cards stay hidden: the count only
    if eng.emit:
        data: dict[str, object] = {"seat": seat, "team": st.team_of[seat], "turn": st.turn, "cards": size}
        if has_foot(st.rules):  # Hand and Foot: how the hand was emptied
            data["into_foot"] = "walking" if walked else "running"
        eng.emit("pony_pickup", data)
    for r, n in laid:
        for _ in range(n):
            st.ponies[seat][r] -= 1
            threes.lay_three(eng, seat, r, "pony")
            threes.draw_one(eng, seat, "replacement")


def after_melds(eng: Engine, seat: int) -> bool:
    """Unlock ponies after melds (RULES.md §2.2); return whether ``seat`` picked up its own now."""
    st = eng.st
    r = st.rules
    team = st.team_of[seat]
    picked = False
    if st.new_canasta:
        st.made_canasta[seat] = True
    for s in unlocked_by_melds(st, seat, sum(st.canastas[team].values()), st.made_canasta[seat]):
        st.pony_unlocked[s] = True
    if st.pony_unlocked[seat] and not st.pony_picked[seat]:
        pick_up_pony(eng, seat)
        picked = True
    if r.pony_partner_pickup == "IMMEDIATE_OUT_OF_TURN":
        for s in st.partners(seat):
            if st.pony_unlocked[s] and not st.pony_picked[s]:
                pick_up_pony(eng, s)
    return picked


def hand_empty_pony(eng: Engine, seat: int, walked: bool = False) -> bool:
    """``pony_unlock=HAND_EMPTY``: an emptied hand picks up the pony instead of going out (``walked``: by the
    discard)."""
    st = eng.st
    if not empty_hand_takes_pony(st, seat):
        return False
    st.pony_unlocked[seat] = True
    pick_up_pony(eng, seat, walked)
    return True
