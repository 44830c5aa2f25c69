"""What a search player weighed at its last decision: the :class:`Weighed` record and the :class:`RecordsSearch`
interface of a strategy that keeps one (``mc``, ``oracle``, ``ismcts``; a user's search may declare it too).

The record is read from outside the search, never by it: the hint at the table (:mod:`simcli.viewer.hint`), the
``search`` trace events of ``simcli play --search-values`` (:mod:`simcli.viewer.weighed`) and the learnt player's
training data (:mod:`simcli.training.data`), through a recording seat (:mod:`simcli.players.seats`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["RecordsSearch", "Weighed", "records_search"]


@dataclass(frozen=True)
class Weighed:
    """What a search weighed at one decision (a hint at the table and ``simcli play --search-values`` read it; the
    search never does): the worlds sampled in all, and per candidate, in the search's order (the heuristic's own
    choice first), the worlds it was played in (rollouts from the decision), its mean deal margin over them (own
    team's deal score minus the best other team's) and that mean's standard error; ``mc`` also keeps its mean gain
    over the first candidate in the same worlds and that paired difference's standard error (the numbers its pick
    compares; ``ismcts``: ``None``).
    """

    candidates: list[Any]
    chosen: int
    samples: int
    worlds: list[int]
    means: list[float | None]
    errors: list[float | None]
    gains: list[float | None]
    gain_errors: list[float | None]

    @classmethod
    def only(cls, candidate: Any) -> Weighed:
        """A decision with one candidate, taken without a search."""
        return cls([candidate], 0, 0, [0], [None], [None], [0.0], [None])

    @property
    def searched(self) -> bool:
        """Whether candidates were compared (more than one, in at least one world)."""
        return len(self.candidates) > 1 and self.samples > 0


@runtime_checkable
class RecordsSearch(Protocol):
    """A strategy that keeps what it weighed at its last decision in ``last_search`` (a new :class:`Weighed` object
    at each decision it searches: a reader compares the object before and after a call to tell a fresh one)."""

    last_search: Weighed


def records_search(strategy: object) -> bool:
    """Whether ``strategy`` keeps a search record (:class:`RecordsSearch`)."""
    return isinstance(strategy, RecordsSearch)
