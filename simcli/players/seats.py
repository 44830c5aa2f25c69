"""Seats that stand between the engine and a strategy: :class:`PassThrough` hands the yes/no questions
(``hold_three``, ``answer_go_out`` and, in :class:`AskingPassThrough`, ``ask_to_go_out``) to the strategy inside,
and :class:`Recording` plays that strategy's decisions unchanged while telling a listener what each of its searches
weighed (:mod:`simcli.players.search_record`), or, given a *follower*, plays the follower's decisions instead while
the search still weighs each (the training data of the states another player's play reaches: ``simcli train data
--play``).

A seat is asked "may I go out?" only if its class overrides ``ask_to_go_out`` (the engine asks no other:
:class:`simcli.engine.deal.Deal`), so a seat that passes the question on is a class of its own, chosen by whether
the strategy inside asks (:func:`asks_to_go_out`); a strategy that asks only where asking is required (the
built-ins, issue 51: its hook is in :data:`~simcli.engine.strategy_base.ASKS_ONLY_WHEN_REQUIRED`) gets a seat whose
hook is registered so too (:class:`RecordingRequiredAsker`), so that the engine asks the seat exactly where it asks
the strategy itself. The rollout seat (:class:`simcli.players.forward.Forced`), the search tree's walker
(``ismcts``) and the recorders of the viewer and the training data are built on these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simcli.engine.strategy_base import ASKS_ONLY_WHEN_REQUIRED, Draw, Strategy, asks_only_when_required
from simcli.engine.view import PlayerView
from simcli.players.search_record import RecordsSearch, Weighed
from simcli.primitives.actions import Meld

__all__ = ["AskingPassThrough", "PassThrough", "Recording", "RecordingAsker", "RecordingRequiredAsker",
           "asks_to_go_out", "recording_seat", "recording_seats"]

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
    what the seat saw when it decided.

    With a ``follower`` the seat asks the search first (its record as without one), then plays the follower's
    decision: the search's random draws are the same calls as ever, and the game is the follower's play."""

    def __init__(self, inner: RecordsSearch, record: Record, follower: Strategy | None = None) -> None:
        assert isinstance(inner, Strategy)
        super().__init__(inner)
        self.searcher = inner
        self.follower = follower
        self.name = inner.name
        self.reads_history = inner.reads_history or (follower is not None and follower.reads_history)
        self.record = record

    def _asked(self, kind: str, ask: Callable[[PlayerView], Any], view: PlayerView,
               follow: Callable[[PlayerView], Any] | None) -> Any:
        before = self.searcher.last_search
        decision = ask(view)
        weighed = self.searcher.last_search
        if weighed is not before and weighed.searched:
            self.record(view, kind, weighed)
        return decision if follow is None else follow(view)

    def choose_draw(self, view: PlayerView) -> Draw:
        """The inner strategy's draw (the follower's, if any)."""
        return self._asked("draw", self.inner.choose_draw, view,
                           None if self.follower is None else self.follower.choose_draw)

    def choose_melds(self, view: PlayerView) -> Sequence[Meld]:
        """The inner strategy's melds (the follower's, if any)."""
        return self._asked("melds", self.inner.choose_melds, view,
                           None if self.follower is None else self.follower.choose_melds)

    def choose_discard(self, view: PlayerView) -> int | None:
        """The inner strategy's discard (the follower's, if any)."""
        return self._asked("discard", self.inner.choose_discard, view,
                           None if self.follower is None else self.follower.choose_discard)


class RecordingAsker(Recording):
    """A :class:`Recording` seat whose strategy asks "may I go out?" (see the module docstring)."""

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """The inner strategy's question."""
        return self.inner.ask_to_go_out(view)


class RecordingRequiredAsker(RecordingAsker):
    """A :class:`RecordingAsker` seat whose strategy asks only where asking is required (the built-ins, ``mc``:
    their hook is in :data:`~simcli.engine.strategy_base.ASKS_ONLY_WHEN_REQUIRED`, and so is this seat's)."""

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """The inner strategy's question (a hook of its own, registered as asking only where required)."""
        return super().ask_to_go_out(view)


asks_only_when_required(RecordingRequiredAsker.ask_to_go_out)


def recording_seat(inner: RecordsSearch, record: Record, follower: Strategy | None = None) -> Recording:
    """``inner`` in a recording seat (playing ``follower``'s decisions, if given) that asks "may I go out?" exactly
    when, and under the same rules as, ``inner`` does (its yes/no answers stay ``inner``'s)."""
    assert isinstance(inner, Strategy)
    if not asks_to_go_out(inner):
        return Recording(inner, record, follower)
    required_only = type(inner).ask_to_go_out in ASKS_ONLY_WHEN_REQUIRED
    return (RecordingRequiredAsker if required_only else RecordingAsker)(inner, record, follower)


def recording_seats(players: Sequence[Strategy], record: Callable[[int], Record],
                    followers: Sequence[Strategy] | None = None) -> list[Strategy]:
    """``players`` with each one that keeps a search record (:func:`~simcli.players.search_record.records_search`) in
    a recording seat telling ``record(seat)`` (and playing ``followers[seat]``'s decisions, if given); the others as
    they are."""
    return [recording_seat(p, record(seat), None if followers is None else followers[seat])
            if isinstance(p, RecordsSearch) else p for seat, p in enumerate(players)]
