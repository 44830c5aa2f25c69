"""A hint for a person at the table: what the ``mc`` search would do, with the value it gave each candidate.

The ``mc`` strategy (``strategies/search/mc.py``, the strongest player that sees only its own cards) keeps what it
weighed at its last decision (``last_search``, a ``Weighed`` record): each candidate and its mean gain, in points of
deal margin (own team's deal score minus the best other team's) per sampled world, against the heuristic's own choice
(the first candidate, 0 by definition). The hint asks it the person's decision through the person's
:class:`~simcli.engine.view.PlayerView`, as any fair player is asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simcli.engine.view import PlayerView
from simcli.players.loading import strategy_factory
from simcli.players.search_record import RecordsSearch
from simcli.viewer.choices import describe

#: Worlds sampled for a hint by default: a few seconds a decision.
HINT_WORLDS = 8


@dataclass
class Hint:
    """What the search would do, and what it weighed."""

    choice: Any
    candidates: list[Any]
    gains: list[float | None]
    worlds: int
    #: The worlds each candidate was played in (fewer than ``worlds``: the race dropped it).
    played: list[int]

    def lines(self) -> list[str]:
        """The hint in words: the choice, then each candidate with its value."""
        if len(self.candidates) <= 1:
            return [f"hint: {describe(self.choice)} (the only choice mc considers here)"]
        out = [f"hint: mc ({self.worlds} worlds) would {describe(self.choice)}"]
        out.append("  what it weighed, in mean points of deal margin per world against its heuristic's choice:")
        for i, (c, g) in enumerate(zip(self.candidates, self.gains, strict=True)):
            value = "dropped early" if g is None else f"{g:+.0f}"
            if g is not None and self.played[i] < self.worlds:
                value += f" (dropped after {self.played[i]} worlds)"
            notes = [w for w, on in (("the heuristic's choice", i == 0), ("its choice", c == self.choice)) if on]
            out.append(f"    {describe(c)}: {value}" + (f" ({', '.join(notes)})" if notes else ""))
        return out


def weigh(view: PlayerView, phase: str, worlds: int = HINT_WORLDS, seed: int = 0) -> Hint:
    """Ask ``mc`` (``worlds`` sampled worlds) for the ``phase`` decision (``draw``, ``melds`` or ``discard``) of
    ``view``'s player, and what it weighed."""
    player = strategy_factory(f"mc:samples={worlds}")(np.random.default_rng(seed))
    assert isinstance(player, RecordsSearch), "mc keeps a search record"
    choice: Any
    if phase == "draw":
        choice = player.choose_draw(view)
    elif phase == "melds":
        choice = player.choose_melds(view)
    else:
        choice = player.choose_discard(view)
    weighed = player.last_search
    return Hint(choice, list(weighed.candidates), list(weighed.gains), weighed.samples, list(weighed.worlds))
