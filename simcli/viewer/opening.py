"""A deal's layout lines in a trace (docs/trace-format.md): the lines after a ``deal`` line that say how it was laid
out (the grabs of ``cut``, ``pony_grab`` and ``pile_pick``, and Hand and Foot's ``self_deal`` and ``upcard_buried``),
read by the replay (:mod:`simcli.viewer.replay`) to lay the deal out as the engine did."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.state import DealState
from simcli.primitives.cards import RANK_NAMES, parse_rank

#: The lines that follow a ``deal`` line before the first turn and say how it was laid out.
OPENING = ("cut", "pony_grab", "pile_pick", "self_deal", "upcard_buried")


def opening_lines(events: Sequence[dict[str, Any]], start: int) -> list[dict[str, Any]]:
    """The lines after the ``deal`` line at ``start`` that describe its layout (:data:`OPENING`)."""
    out = []
    for ev in events[start + 1:]:
        if ev["event"] not in OPENING:
            break
        out.append(ev)
    return out


def grab(opening: Sequence[dict[str, Any]], kind: str) -> int:
    """The ``count`` of the deal's ``kind`` line (``cut``, ``pony_grab``, ``pile_pick``), 0 when it has none."""
    return next((int(ev["count"]) for ev in opening if ev["event"] == kind), 0)


def hand_and_foot_layout(st: DealState, opening: Sequence[dict[str, Any]]) -> None:
    """Hand and Foot's part of a deal's layout from its trace lines: the players' self-deal grabs (``self_deal``)
    and the upcards put back into the stock (``upcard_buried``; the deck is already in the order dealt, so only the
    cards are needed, each of which must be a rank the rules put back)."""
    for ev in opening:
        if ev["event"] == "self_deal":
            counts = ev["counts"]
            if len(counts) != st.n_players:
                raise ValueError(f"its self_deal line has {len(counts)} grabs for {st.n_players} players")
            st.self_deal_grabs = tuple(int(c) for c in counts)
    buried = tuple(parse_rank(ev["card"]) for ev in opening if ev["event"] == "upcard_buried")
    if buried and st.rules.upcard_reject_mode != "BURY":
        raise ValueError("it buries an upcard, but the rules cover rejected upcards (upcard_reject_mode=COVER)")
    for card in buried:
        if card not in st.rules.upcard_cover_ranks:
            raise ValueError(f"it buries a {RANK_NAMES[card]} upcard, which the rules do not reject "
                             "(upcard_cover_ranks)")
    st.buried_upcards = buried
