"""The JSON shapes of the engine's trace events (docs/trace-format.md): melds, decisions and the scored deal.

The engine builds these only when a listener is attached (``emit`` set), so none of this is on the path of an
untraced game. :mod:`simcli.engine.trace` writes the events; this module decides what they hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.scoring import TeamPosition
from simcli.engine.state import DealState
from simcli.primitives.actions import DRAW_STOCK, Meld, TakePile
from simcli.primitives.cards import RANK_NAMES, WILD_MELD, cards_of


def cards_json(counts: Sequence[int]) -> str:
    """Card counts by rank as names, lowest first, space-separated (hands, ponies, special hands)."""
    return " ".join(RANK_NAMES[c] for c in cards_of(counts))


def meld_json(m: Meld) -> dict[str, Any]:
    """A meld action as JSON: ``{"rank": "K", "naturals": 2, "twos": 1, "jokers": 0}``."""
    return {"rank": "WILD" if m.rank == WILD_MELD and not m.naturals else RANK_NAMES[m.rank],
            "naturals": m.naturals, "twos": m.twos, "jokers": m.jokers}


def describe_decision(decision: Any) -> Any:
    """A draw decision for its ``decision`` line: ``"stock"`` or the pile take with its melds."""
    if isinstance(decision, TakePile):
        return {"take_pile": meld_json(decision.meld), "extra": [meld_json(x) for x in decision.extra]}
    return "stock" if decision is DRAW_STOCK else repr(decision)


def melds_json(st: DealState, team: int) -> dict[str, Any]:
    """A team's melds for ``deal_scored``: ``melds`` by rank and, under ``new_meld_after_closed_canasta``, the
    closed canastas set aside as ``closed_canastas`` (a list of ``[rank, naturals, twos, jokers]``)."""
    out: dict[str, Any] = {"melds": {("WILD" if r == WILD_MELD else RANK_NAMES[r]): [m[0], m[1], m[2]]
                                     for r, m in enumerate(st.melds[team]) if m is not None}}
    if st.layout.close_at is not None:
        out["closed_canastas"] = [["WILD" if r == WILD_MELD else RANK_NAMES[r], n, tw, jk]
                                  for r, n, tw, jk in st.closed[team]]
    return out


def deal_scored_json(st: DealState, scores: list[dict[str, int]], positions: list[TeamPosition]) -> dict[str, Any]:
    """The ``deal_scored`` event: how the deal ended and each team's total, breakdown and cards left."""
    return {
        "deal_index": st.deal_index, "end_reason": st.end_reason, "went_out_seat": st.went_out_seat,
        "concealed": st.concealed, "turns": st.turn,
        "teams": [{"total": s["total"], "breakdown": {k: v for k, v in s.items() if k != "total"},
                   **melds_json(st, team),
                   "red_threes": pos.red_threes, "black_threes": pos.black_threes,
                   "unpicked_ponies": [cards_json(p) for p in pos.ponies],
                   "hands": [cards_json(h) for h in pos.hands]}
                  for team, (s, pos) in enumerate(zip(scores, positions, strict=True))],
    }
