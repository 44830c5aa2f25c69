"""Seats that stand between the engine and a strategy: :class:`PassThrough` hands the yes/no questions
(``hold_three``, ``answer_go_out`` and, in :class:`AskingPassThrough`, ``ask_to_go_out``) to the strategy inside,
and :class:`Recording` plays that strategy's decisions unchanged while telling a listener what each of its searches
weighed (:mod:`simcli.players.search_record`).

A seat is asked "may I go out?" only if its class overrides ``ask_to_go_out`` (the engine asks no other:
:class:`simcli.engine.deal.Deal`), so a seat that passes the question on is a class of its own, chosen by whether
the strategy inside asks (:func:`asks_to_go_out`). The rollout seat (:class:`simcli.players.forward.Forced`), the
search tree's walker (``ismcts``) and the recorders of the viewer and the training data are built on these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simcli.engine.strategy_base import Draw, Strategy
from simcli.engine.view import PlayerView
from simcli.players.search_record import RecordsSearch, Weighed
from simcli.primitives.actions import Meld

__all__ = ["AskingPassThrough", "PassThrough", "Recording", "RecordingAsker", "asks_to_go_out", "recording_seat",
           "recording_seats"]

#: What a recording seat tells its listener after a searched decision: the seat's view, the decision's kind
#: (``draw``, ``melds``, ``discard``) and the search's record.
Record = Callable[[PlayerView, str, Weighed], None]


def asks_to_go_out(strategy: Strategy) -> bool:
    """Whether ``strategy``'s class overrides :meth:`~simcli.engine.strategy_base.Strategy.ask_to_go_out` (the
    engine asks only such a seat)."""
    return type(strategy).ask_to_go_out is not Strategy.ask_to_go_out


class PassThrough(Strategy):
    """A seat around ``inner``: its yes/no answers are ``inner``'s (the decisions are the subclass's to make)."""

    def __init__(self, inner: Strategy) -> None:
        super().__init__(inner.rng)
        self.inner = inner

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The inner strategy's answer."""
        return self.inner.hold_three(view, rank)

    def answer_go_out(self, view: PlayerView) -> bool:
        """The inner strategy's answer."""
        return self.inner.answer_go_out(view)


class AskingPassThrough(PassThrough):
    """A :class:`PassThrough` that passes "may I go out?" on too (so the engine asks it)."""

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """The inner strategy's question."""
        return self.inner.ask_to_go_out(view)


class Recording(PassThrough):
    """A seat that plays ``inner``'s decisions unchanged (the same calls in the same order, so the same random draws
    and the same game) and, after each searched one, tells ``record`` the view, the kind and what was weighed. It
    reads ``inner.last_search`` once the decision is made and before the engine applies it, so the view still shows
    what the seat saw when it decided."""

    def __init__(self, inner: RecordsSearch, record: Record) -> None:
        assert isinstance(inner, Strategy)
        super().__init__(inner)
        self.searcher = inner
        self.name = inner.name
        self.reads_history = inner.reads_history  # the engine records the table's history for it (mc:infer)
        self.record = record

    def _asked(self, kind: str, ask: Callable[[PlayerView], Any], view: PlayerView) -> Any:
        before = self.searcher.last_search
        decision = ask(view)
        weighed = self.searcher.last_search
        if weighed is not before and weighed.searched:
            self.record(view, kind, weighed)
        return decision

    def choose_draw(self, view: PlayerView) -> Draw:
        """The inner strategy's draw."""
        return self._asked("draw", self.inner.choose_draw, view)

    def choose_melds(self, view: PlayerView) -> Sequence[Meld]:
        """The inner strategy's melds."""
        return self._asked("melds", self.inner.choose_melds, view)

    def choose_discard(self, view: PlayerView) -> int | None:
        """The inner strategy's discard."""
        return self._asked("discard", self.inner.choose_discard, view)


class RecordingAsker(Recording):
    """A :class:`Recording` seat whose strategy asks "may I go out?" (see the module docstring)."""

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """The inner strategy's question."""
        return self.inner.ask_to_go_out(view)


def recording_seat(inner: RecordsSearch, record: Record) -> Recording:
    """``inner`` in a recording seat that asks "may I go out?" exactly when ``inner`` does."""
    assert isinstance(inner, Strategy)
    return (RecordingAsker if asks_to_go_out(inner) else Recording)(inner, record)


def recording_seats(players: Sequence[Strategy], record: Callable[[int], Record]) -> list[Strategy]:
    """``players`` with each one that keeps a search record (:func:`~simcli.players.search_record.records_search`) in
    a recording seat telling ``record(seat)``; the others as they are."""
    return [recording_seat(p, record(seat)) if isinstance(p, RecordsSearch) else p for seat, p in enumerate(players)]
