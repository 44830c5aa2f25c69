"""The schema of a trace (docs/trace-format.md): its header and each event kind, field by field (issue 50).

:data:`EVENTS` maps each event kind to a :class:`~simcli.primitives.schema.Record` of its fields (those every line
of the kind has, and the ``optional`` ones only some have); :data:`DECISION_VALUES` gives a decision's ``value`` by
its ``kind``. ``simcli replay`` checks every line against them before replaying (:func:`line_problem`), so a damaged
or hand-edited trace is refused with one line naming the line, the key, what was found and what is allowed.
``tests/test_file_schemas.py`` checks that these fields are the ones the doc's event table lists, and that every
trace the engine writes fits them.
"""

from __future__ import annotations

from typing import Any

from simcli.primitives.cards import RANK_NAMES
from simcli.primitives.schema import (
    ANY,
    BOOL,
    INT,
    NAT,
    NUMBER,
    STR,
    TEXT,
    TRUE,
    AnyOf,
    Is,
    ListOf,
    MapOf,
    OneOf,
    Record,
    Spec,
    found,
    opt,
    problem,
)

CARD = OneOf(RANK_NAMES)
#: A meld's rank: a natural rank, WILD or B3 (docs/trace-format.md).
MELD_RANK = OneOf((*RANK_NAMES[4:], "WILD", "B3"))
CARDS_TEXT = Is("cards separated by spaces (A K Q J 10 9 8 7 6 5 4 2 JK R3 B3)",
                lambda v: isinstance(v, str) and all(c in RANK_NAMES for c in v.split()))
SEAT = NAT
TEAM = NAT
NULLABLE_TEAM = opt(NAT)
TRIPLE = ListOf(NAT, 3)
MELD = Record("a MELD object", {"rank": MELD_RANK, "naturals": NAT, "twos": NAT, "jokers": NAT})
SPECIAL_KIND = OneOf(("STRAIGHT", "PAIRS_NATURAL", "PAIRS_WITH_2_7_A", "GARBAGE"))
CANASTA_KIND = OneOf(("NATURAL", "MIXED", "WILD", "SEVENS", "ACES"))
SOURCES = ("dealt", "stock", "replacement", "pile", "pony", "wing", "held")

TAKE = Record("a pile take", {"take_pile": MELD, "extra": ListOf(MELD)})
SPECIAL = Record("a special hand", {"special_hand": SPECIAL_KIND})
#: A decision's ``value`` by its ``kind``.
DECISION_VALUES: dict[str, Spec] = {
    "draw": AnyOf((OneOf(("stock",)), TAKE), '"stock" or {"take_pile": MELD, "extra": [MELD...]}'),
    "melds": AnyOf((ListOf(MELD), SPECIAL), '[MELD...] or {"special_hand": KIND}'),
    "discard": CARD,
    "hold_three": Record("a hold_three value", {"card": OneOf(("R3", "B3")), "hold": BOOL}),
}
#: What a search weighs: a draw, melds or a discard.
SEARCHED = AnyOf(tuple(DECISION_VALUES[k] for k in ("draw", "melds", "discard")), "a draw, melds or discard value")

BREAKDOWN_PARTS = ("going_out", "canasta_natural", "canasta_mixed", "canasta_wild", "canasta_sevens", "canasta_aces",
                   "canasta_hidden", "canasta_count", "red_threes", "black_threes", "exact_cut", "exact_pick",
                   "pony_dealer_exact", "quick_finish", "terremoto", "incomplete_melds", "hand_rank_penalty",
                   "melded", "hand", "pony", "special_hand")
TEAM_SCORE = Record("a team's deal score", {
    "total": INT, "breakdown": Record("a breakdown", dict.fromkeys(BREAKDOWN_PARTS, INT)),
    "melds": MapOf(TRIPLE), "red_threes": NAT, "hands": ListOf(CARDS_TEXT)}, optional={
    "unpicked_ponies": ListOf(CARDS_TEXT), "black_threes": NAT,
    "closed_canastas": ListOf(ListOf(AnyOf((MELD_RANK, NAT))))})
GRAB: dict[str, Spec] = {"count": NAT, "target": NAT, "exact": BOOL, "bonus_team": NULLABLE_TEAM}
#: A search candidate: ``value`` and ``chosen`` here; the figures are typed here when present and required by the
#: replay's own check of a search line (``viewer.weighed.checked_search``, which names a missing one).
CANDIDATE = Record("a search candidate", {"value": SEARCHED, "chosen": BOOL}, optional={
    "worlds": NAT, "mean": NUMBER, "se": opt(NUMBER), "gain": opt(NUMBER), "gain_se": opt(NUMBER)})

#: Every event kind and its fields (``seq`` and ``event``, on every line, are checked apart).
EVENTS: dict[str, Record] = {e.name: e for e in (
    Record("trace_header", {"trace_version": INT, "variant": TEXT, "seed": opt(INT), "game_index": NAT,
                            "strategies": ListOf(STR, 1), "rules": MapOf(STR), "rules_diff": MapOf(STR),
                            "num_players": Is("an integer from 2", lambda v: NAT.test(v) and v >= 2),
                            "n_teams": Is("an integer from 1", lambda v: NAT.test(v) and v >= 1)}),
    Record("game_start", {"game_index": NAT, "seed": opt(INT), "strategies": ListOf(STR, 1), "first_dealer": SEAT}),
    Record("deal", {"deal_index": NAT, "dealer": SEAT, "first_player": SEAT, "deck": ListOf(CARD, 1),
                    "hands": ListOf(CARDS_TEXT), "upcards": ListOf(CARD), "pile_frozen": BOOL,
                    "minimum": ListOf(INT)}),
    Record("cut", {"cutter": SEAT, **GRAB}),
    Record("pony_grab", {"pony_dealer": SEAT, **GRAB}),
    Record("pile_pick", {"dealer": SEAT, **GRAB, "premiado": BOOL}),
    Record("self_deal", {"counts": ListOf(NAT, 2), "target": NAT, "exact": ListOf(BOOL, 2), "bonus": ListOf(INT, 1)}),
    Record("upcard_buried", {"card": CARD}),
    Record("red_three", {"seat": SEAT, "team": TEAM, "source": OneOf(SOURCES)}),
    Record("black_three", {"seat": SEAT, "team": TEAM, "source": OneOf(SOURCES)}),
    # A decision's value is checked by its kind (DECISION_VALUES), after the kind.
    Record("decision", {"seat": SEAT, "turn": NAT, "kind": OneOf(tuple(DECISION_VALUES)), "value": ANY}),
    Record("draw", {"seat": SEAT, "cards": ListOf(CARD), "stock_left": NAT}),
    Record("take_pile", {"seat": SEAT, "team": TEAM, "top": CARD, "size": NAT, "meld": MELD, "extra": ListOf(MELD)}),
    Record("meld", {"seat": SEAT, "team": TEAM, "rank": MELD_RANK,
                    "added": Record("an added object", {"naturals": NAT, "twos": NAT, "jokers": NAT}),
                    "meld": TRIPLE}, optional={"closed": TRUE}),
    Record("canasta", {"seat": SEAT, "team": TEAM, "rank": MELD_RANK, "kind": CANASTA_KIND,
                       "upgraded_from": opt(CANASTA_KIND)}, optional={"hidden": TRUE}),
    Record("pony_pickup", {"seat": SEAT, "team": TEAM, "turn": NAT, "cards": NAT},
           optional={"into_foot": OneOf(("walking", "running"))}),
    Record("wing", {"seat": SEAT, "team": TEAM, "cards": NAT, "turn": NAT}),
    Record("special_hand", {"seat": SEAT, "team": TEAM, "kind": SPECIAL_KIND, "turn": NAT, "cards": CARDS_TEXT}),
    Record("ask_go_out", {"seat": SEAT, "partner": SEAT, "answer": BOOL}),
    Record("discard", {"seat": SEAT, "card": CARD, "pile_size": NAT, "frozen": BOOL},
           optional={"bar_lifted": OneOf(("dead_rank", "ace_seven", "three"))}),
    Record("going_out", {"seat": SEAT, "team": TEAM, "concealed": BOOL, "turn": NAT},
           optional={"quick_finish": TRUE, "terremoto": TRUE}),
    Record("stock_out", {"seat": SEAT, "turn": NAT}, optional={"last_card_red_three": TRUE, "stock_left": NAT}),
    Record("deal_scored", {"deal_index": NAT, "end_reason": OneOf(("went_out", "stock_out")),
                           "went_out_seat": opt(INT), "concealed": BOOL, "turns": NAT, "teams": ListOf(TEAM_SCORE, 1)}),
    Record("totals", {"deal_index": NAT, "totals": ListOf(INT, 1)}),
    Record("game_end", {"totals": ListOf(INT, 1), "winner_team": INT, "deals": NAT}),
    Record("search", {"seat": SEAT, "turn": NAT, "kind": OneOf(("draw", "melds", "discard")), "worlds": NAT,
                      "candidates": ListOf(CANDIDATE, 1)}),
)}


def line_problem(ev: Any, seq: int) -> str | None:
    """What is wrong with a trace line (parsed JSON, the ``seq``-th line), or None: its ``seq``, its ``event`` kind,
    and its fields as :data:`EVENTS` (and a decision's value as :data:`DECISION_VALUES`) describe them."""
    if not isinstance(ev, dict):
        return f"found {type(ev).__name__ if ev is not None else 'null'}, allowed a JSON object (a trace event)"
    if "event" not in ev:
        return "no 'event' key: not a trace event"
    kind = ev["event"]
    if not isinstance(kind, str) or kind not in EVENTS:
        return f"key 'event': found {found(kind)}, allowed one of the events of docs/trace-format.md"
    if ev.get("seq") != seq or isinstance(ev.get("seq"), bool):
        return f"key 'seq': found {ev.get('seq')!r}, allowed {seq} (lines are numbered 0, 1, 2, ... in file order)"
    why = problem(ev, EVENTS[kind])
    if why is None and kind == "decision":
        why = problem(ev["value"], DECISION_VALUES[ev["kind"]], "value")
    return f"a {kind} line: {why}" if why else None
