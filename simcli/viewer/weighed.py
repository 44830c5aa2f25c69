"""What search players weighed: the ``search`` trace event (``simcli play --search-values``), recorded and said.

A search player (``mc``, ``oracle``, ``ismcts``) keeps what it weighed at its last decision in ``last_search`` (a
:class:`~simcli.players.search_record.Weighed` record: its candidates, the worlds each was played in, each one's mean
deal margin and its standard error, and for ``mc`` the mean gain over the heuristic's own choice).
:class:`SearchRecorder` seats each such strategy inside a recording seat (:mod:`simcli.players.seats`) that hands
every call to it unchanged (the same calls in the same order, so the same random draws and the same game) and keeps
what each call weighed; as the engine's event
listener, it writes a ``search`` event right after the decision line it belongs to, through the same listeners
(the trace writer numbers it). The engine itself is untouched, and a game without the option traces as before.

:func:`search_line` says a ``search`` event in words (``--narrate``, the replay page) and :func:`best_first` orders
its candidates for the page (docs/trace-format.md describes the event).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from simcli.engine.core import Emit
from simcli.engine.strategy_base import Strategy
from simcli.engine.trace_json import describe_decision, meld_json
from simcli.engine.view import PlayerView
from simcli.players.search_record import Weighed
from simcli.players.seats import recording_seats
from simcli.primitives.actions import SpecialHand
from simcli.primitives.cards import RANK_NAMES
from simcli.viewer.words import SPECIAL_WORDS, Line, meld_json_cards, plural

#: Candidates said in a ``--narrate`` line (the best ones and the chosen one; the rest are counted).
SAID = 3


def decision_value(kind: str, decision: Any) -> Any:
    """A ``kind`` decision (``draw``, ``melds``, ``discard``) in the notation of its trace ``decision`` line."""
    if kind == "draw":
        return describe_decision(decision)
    if kind == "discard":
        return None if decision is None else RANK_NAMES[decision]
    plan = list(decision or ())
    if plan and isinstance(plan[0], SpecialHand):
        return {"special_hand": plan[0].kind}
    return [meld_json(m) for m in plan]


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(float(x), 2)


def search_event(seat: int, turn: int, kind: str, weighed: Weighed) -> dict[str, Any]:
    """The ``search`` event of ``seat``'s ``kind`` decision on ``turn`` from a search's ``Weighed`` record."""
    return {"seat": seat, "turn": turn, "kind": kind, "worlds": int(weighed.samples),
            "candidates": [{"value": decision_value(kind, c), "chosen": i == weighed.chosen,
                            "worlds": int(weighed.worlds[i]), "mean": _rounded(weighed.means[i]),
                            "se": _rounded(weighed.errors[i]), "gain": _rounded(weighed.gains[i]),
                            "gain_se": _rounded(weighed.gain_errors[i])}
                           for i, c in enumerate(weighed.candidates)]}


class SearchRecorder:
    """The listener that adds a ``search`` event after each searched decision, passing every event on to ``emit``.

    :meth:`seat` puts the strategies that keep a search record (:class:`~simcli.players.search_record.RecordsSearch`)
    in recording seats (:mod:`simcli.players.seats`); the others are seated as they are.
    """

    def __init__(self, emit: Emit | None) -> None:
        self.emit = emit
        self.pending: dict[int, tuple[str, Weighed]] = {}

    def seat(self, players: Sequence[Strategy]) -> list[Strategy]:
        """``players`` with each searching one in a recording seat."""
        return recording_seats(players, self._recorder)

    def _recorder(self, seat: int) -> Callable[[PlayerView, str, Weighed], None]:
        def record(view: PlayerView, kind: str, weighed: Weighed) -> None:
            self.pending[seat] = (kind, weighed)
        return record

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if self.emit is not None:
            self.emit(kind, data)
        if kind != "decision" or data["seat"] not in self.pending:
            return
        asked, weighed = self.pending.pop(data["seat"])
        if asked == data["kind"] and self.emit is not None:
            self.emit("search", search_event(data["seat"], data["turn"], asked, weighed))


# ---------------------------------------------------------------------------------------------- in words
def candidate_words(kind: str, value: Any) -> str:
    """A candidate (trace notation) in words: ``draw from the stock``, ``take the pile with K K``, ``lay Q Q Q``."""
    if kind == "discard":
        return f"discard {value}"
    if kind == "draw":
        if value == "stock":
            return "draw from the stock"
        meld = value["take_pile"]
        text = (f"take the pile with {meld_json_cards(meld)}" if meld["naturals"] + meld["twos"] + meld["jokers"]
                else "take the pile onto the meld")
        return text + "".join(f" + {meld_json_cards(m)}" for m in value["extra"])
    if isinstance(value, dict):
        return f"lay a special hand: {SPECIAL_WORDS.get(value['special_hand'], value['special_hand'])}"
    return "lay " + ", ".join(meld_json_cards(m) for m in value) if value else "lay nothing"


def best_first(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A ``search`` event's candidates, best mean first, those a race dropped (played in fewer worlds) last; each
    with ``first`` set on the search's first candidate (the heuristic's own choice, for the built-in searches)."""
    full = data["worlds"]

    def key(c: Mapping[str, Any]) -> tuple[bool, float]:
        dropped = c.get("gain") is not None and c["worlds"] < full
        return dropped, -(c["mean"] if c["mean"] is not None else float("-inf"))

    return sorted(({**c, "first": i == 0} for i, c in enumerate(data["candidates"])), key=key)


def marks(c: Mapping[str, Any]) -> str:
    """`` (chosen)``, `` (the heuristic's)`` or both, for a candidate of :func:`best_first`."""
    said = [w for w, on in (("chosen", c["chosen"]), ("the heuristic's", c.get("first"))) if on]
    return f" ({', '.join(said)})" if said else ""


def checked_search(ev: Mapping[str, Any], decision: Mapping[str, Any]) -> dict[str, Any]:
    """A trace's ``search`` line as event data, checked against the line before it: the decision it weighed (same
    seat, turn and kind), whose value is its one chosen candidate (else ValueError)."""
    data = {k: v for k, v in ev.items() if k not in ("seq", "event")}
    try:
        chosen = [c["value"] for c in data["candidates"] if c["chosen"]]
        search_line(str, data)  # every field a reader needs is there
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"a search line without a readable {exc}") from None
    if decision.get("event") != "decision" or any(decision.get(k) != data.get(k) for k in ("seat", "turn", "kind")):
        raise ValueError("a search line must follow the decision it weighed (same seat, turn and kind)")
    if chosen != [decision.get("value")]:
        raise ValueError(f"the search line's chosen candidate {chosen} is not the decision {decision.get('value')}")
    return data


def value_words(c: Mapping[str, Any]) -> str:
    """A candidate's value: ``+412 ±30`` (its mean deal margin and that mean's standard error)."""
    if c["mean"] is None:
        return "not played"
    return f"{c['mean']:+.0f}" + (f" ±{c['se']:.0f}" if c.get("se") is not None else "")


def search_line(seat_name: Callable[[int], str], data: Mapping[str, Any]) -> Line:
    """A ``search`` event in words: the best candidates (and the chosen one) with their values, briefly."""
    who, kind, ranked = seat_name(data["seat"]), data["kind"], best_first(data)
    head = f"{who} weighed {plural(len(ranked), kind if kind != 'melds' else 'meld plan')} in " \
           f"{plural(data['worlds'], 'world')}"
    said = [c for i, c in enumerate(ranked) if i < SAID or c["chosen"]]
    parts = [f"{candidate_words(kind, c['value'])} {value_words(c)}{marks(c)}" for c in said]
    more = len(ranked) - len(said)
    text = f"{head} (mean deal margin ± standard error): " + "; ".join(parts) + (f"; {more} more" if more else "")
    return Line(text, head)
