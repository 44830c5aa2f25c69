"""Wings (Americana, RULES.md §2.3): small packets set aside at the deal, one given to each team's first opener.

:func:`set_aside` lays them aside at the deal; the predicate :func:`wing_for_opening` says whether an opening
takes a wing; the transitions are the turn's hooks: on opening (:func:`on_open`) and at the start of a turn, for
a wing handed over late (``wing_timing=NEXT_TURN``, :func:`at_turn_start`). Without wings ``st.wings`` is empty
and ``on_open`` returns at its first test.
"""

from __future__ import annotations

from simcli.engine.core import Engine
from simcli.engine.features import threes
from simcli.engine.state import DealState
from simcli.primitives.cards import BLACK_THREE, RED_THREE


def set_aside(st: DealState) -> None:
    """Set the wings aside from the stock after the hands (and ponies), in ``wing_sizes`` order."""
    stock = st.stock
    for size in st.rules.wing_sizes:
        wing = [0] * len(st.hands[0])
        for _ in range(size):
            wing[stock.pop()] += 1
        st.wings.append(wing)


def wing_for_opening(st: DealState, team: int, via_pile: bool) -> bool:
    """Whether ``team`` opening now (``via_pile``: by taking the pile) takes the next wing: one is left, the team
    has had none, the opening was not a pile take barred by ``wing_denied_if_opened_via_pile``, and the stock is
    above ``wing_cutoff_stock_remaining``."""
    r = st.rules
    if not st.wings or st.wing_taken[team]:
        return False
    if via_pile and r.wing_denied_if_opened_via_pile:
        return False
    return r.wing_cutoff_stock_remaining is None or len(st.stock) > r.wing_cutoff_stock_remaining


def on_open(eng: Engine, seat: int, via_pile: bool) -> None:
    """A team has just opened: its opener takes the next wing if one is due (RULES.md §2.3)."""
    st = eng.st
    r = st.rules
    team = st.team_of[seat]
    if not st.wings or st.wing_taken[team]:
        return
    due = wing_for_opening(st, team, via_pile)
    st.wing_taken[team] = True
    if not due:
        if via_pile and r.wing_denied_if_opened_via_pile and r.wing_after_pile_opening == "THREE":
            # RULES.md A-AM-4b: the wing this opening would have taken is not given; the other team's
            # first opener takes the next one (the 3-card wing). It stays set aside, never counted.
            st.wings_void.append(st.wings.pop(0))
        return
    wing = st.wings[0]
    st.wing_log.append((seat, sum(wing), st.turn))
    if st.history is not None:
        st.history.append(("wing", seat, st.turn, sum(wing)))  # its cards stay hidden: the count only
    if eng.emit:  # while the wing is still set aside, so that listeners see every card in one place
        eng.emit("wing", {"seat": seat, "team": team, "cards": sum(wing), "turn": st.turn})
    st.wings.pop(0)
    if r.wing_timing == "IMMEDIATE":
        add_wing(eng, seat, wing)
    else:
        st.wing_pending[seat] = wing


def at_turn_start(eng: Engine, seat: int) -> None:
    """Start of turn: a wing taken on opening but handed over at the opener's next turn comes into the hand."""
    st = eng.st
    pending = st.wing_pending[seat]
    if pending is not None:
        st.wing_pending[seat] = None
        add_wing(eng, seat, pending)


def add_wing(eng: Engine, seat: int, wing: list[int]) -> None:
    """Put ``wing`` into ``seat``'s hand and lay the bonus threes it brings (and one kept before opening)."""
    st = eng.st
    hand = st.hands[seat]
    held = (hand[RED_THREE], hand[BLACK_THREE])  # a three kept before opening is laid now too, as "held"
    for rank, n in enumerate(wing):
        hand[rank] += n
    st.hand_sizes[seat] += sum(wing)
    threes.lay_held_threes(eng, seat, "wing", held)
