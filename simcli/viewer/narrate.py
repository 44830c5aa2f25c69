"""The play-by-play: each event of a game printed in words as it happens (``simcli play --narrate``).

A :class:`Narrator` is an ``emit(kind, data)`` listener (like :class:`~simcli.engine.trace.TraceWriter`): it says
each event with :class:`~simcli.viewer.words.Words` under a line for each turn and the deal's score breakdown at its
end. Told a seat (a person playing it, ``simcli play --human``), it says the other seats' events as that seat hears
them: the cards another player draws from the stock are not named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simcli.engine.core import Emit
from simcli.viewer.weighed import search_line
from simcli.viewer.words import Words

#: Events that close what came before them at once (printed without waiting for the next turn's first line).
_ENDS = ("going_out", "stock_out", "deal_scored", "totals", "game_end")


class Narrator:
    """Prints a game's events in words through ``write`` (one call per line).

    Events that come between one player's discard and the next player's draw decision (a pony or a wing reaching
    the hand, threes laid at the start of a turn) are held back and printed under the next turn's line.
    """

    def __init__(self, words: Words, write: Callable[[str], None], seat: int | None = None) -> None:
        self.words = words
        self.write = write
        self.seat = seat
        self.held: list[str] = []
        self.in_turn = False

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "decision" and data.get("kind") == "draw":
            if data["seat"] != self.seat:  # a person's own turn is headed by the table they were shown
                self.write(f"-- turn {data['turn']}, {self.words.seat(data['seat'])}")
            self.flush()
            self.in_turn = True
        line = search_line(self.words.seat, data) if kind == "search" else self.words.describe(kind, data)
        if kind == "deal":
            self.flush()
            self.write("")
            self.in_turn = True  # the cut and the dealt threes belong to the deal's own lines
        if line is None:
            return
        own = self.seat is None or data.get("seat") == self.seat
        text = line.text if own else line.public
        if kind in _ENDS:
            self.flush()
        if self.in_turn or kind in _ENDS:
            self.write(text)
        else:
            self.held.append(text)
        if kind == "discard":
            self.in_turn = False
        if kind == "deal_scored":
            for part in self.words.breakdown(data):
                self.write("   " + part)

    def flush(self) -> None:
        """Print the lines held back."""
        for text in self.held:
            self.write(text)
        self.held = []


def tee(*listeners: Emit | None) -> Emit | None:
    """One ``emit`` listener that calls each of ``listeners`` in turn (``None`` ones left out; ``None`` if none)."""
    present = [x for x in listeners if x is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]

    def emit(kind: str, data: dict[str, Any]) -> None:
        for listener in present:
            listener(kind, data)

    return emit
