"""The harness the invariant checkers of every variant share (tests/test_invariants*.py).

A variant's checker is a :class:`DealChecker`: the ``emit`` listener of one deal, which sees the live
:class:`~simcli.engine.state.DealState` after every event, checks it and forwards the event. What is common to every
variant lives here, once: the error and its message (where, deal, turn, event), the event loop (nothing after the
deal's end but its scoring), the stock as the undrawn top of the shuffled deck, hands against ``hand_sizes``, the
card count against the pack, the start of the end-of-deal checks (an event reached the checker, the ending event
matches ``end_reason``, the score parts add up), and the drivers that play seeded games under a checker.

What a variant's rules say (which melds are legal, what a canasta is, what each part scores) is its *oracle* and
stays in its own test module, written out again from RULES.md and not read from the knobs: the harness never
decides whether a meld or a score is right, only runs the oracle at every event and reports where it broke.
"""

from __future__ import annotations

import abc
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from helpers import checking_deals, stock_prefixes

from simcli.engine.deal import Deal, DealResult
from simcli.engine.game import GameResult
from simcli.engine.scoring import SCORE_PARTS
from simcli.engine.state import DealState
from simcli.players.seating import play_game
from simcli.primitives.cards import RANK_NAMES, WILD_MELD, counts_of, deck_counts
from simcli.primitives.errors import GameContext
from simcli.strategy import Strategy

#: The ending events of a deal and the ``end_reason`` each one gives.
END_REASON = {"going_out": "went_out", "stock_out": "stock_out"}


class InvariantError(AssertionError):
    """An engine invariant broke; the message says where (game, deal, turn, event) and what."""


def rank_of(name: str) -> int:
    """The rank index of a rank name in an event (``"WILD"`` is the wild-meld slot)."""
    return WILD_MELD if name == "WILD" else RANK_NAMES.index(name)


def rank_name(rank: int) -> str:
    """The name of a rank index as events write it (the wild-meld slot is ``"WILD"``)."""
    return "WILD" if rank == WILD_MELD else RANK_NAMES[rank]


class DealChecker(abc.ABC):
    """The common part of a variant's checker: the event loop, the shared state checks and the error.

    A subclass writes ``on_event`` (what one event must mean), ``check_state`` (what must hold after every
    event) and ``finish`` (the end of the deal, starting with :meth:`finish_common`). ``pack`` is the rank counts
    of the pack the deal must use; by default the one the rules name, a variant whose oracle derives the pack
    itself (Spanish: 4 decks with 6 players) passes its own.
    """

    def __init__(self, st: DealState, stats: Counter[str], forward: Any = None, where: str = "",
                 pack: list[int] | None = None):
        self.st = st
        self.rules = st.rules
        self.stats = stats
        self.forward = forward
        self.where = where
        self.events = 0
        self.last_kind = ""
        self.ended_by: str | None = None
        self.pack = deck_counts(self.rules.decks, self.rules.jokers_per_deck) if pack is None else pack
        if counts_of(st.deck) != self.pack:
            self.fail("setup", f"the shuffled deck ({len(st.deck)} cards) is not the pack: "
                               f"{counts_of(st.deck)} != {self.pack}")
        # new_deal makes stock = reversed(deck) and pops from its end: the stock is always a prefix of ``rev``.
        self.rev, self.prefix = stock_prefixes(st.deck)

    # ------------------------------------------------------------------ plumbing
    def fail(self, kind: str, message: str) -> None:
        """Raise :class:`InvariantError` for ``message``, saying where in the game and after which event."""
        st = self.st
        raise InvariantError(f"{self.where} deal {st.deal_index} turn {st.turn}, after event #{self.events} "
                             f"'{kind}': {message}")

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        self.events += 1
        self.before_event(kind, data)
        self.on_event(kind, data)
        self.check_state(kind, data)
        self.last_kind = kind
        if self.forward is not None:
            self.forward(kind, data)

    def before_event(self, kind: str, data: dict[str, Any]) -> None:
        """Checks on the event's arrival, before the oracle reads it: nothing but its scoring follows the end."""
        if self.ended_by is not None and kind not in (self.ended_by, "deal_scored"):
            self.fail(kind, f"event after the deal ended by '{self.ended_by}'")

    @abc.abstractmethod
    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        """What one event must mean (the variant's oracle); bookkeeping for the later checks."""

    @abc.abstractmethod
    def check_state(self, kind: str, data: dict[str, Any] | None = None) -> None:
        """What must hold after every event (the variant's oracle)."""

    # ------------------------------------------------------------------ shared state checks
    def stock_counts(self, kind: str) -> list[int]:
        """Check that the stock is the undrawn top of the shuffled deck; return its rank counts (a fresh list, the
        start of the card count)."""
        stock = self.st.stock
        k = len(stock)
        if stock != self.rev[:k]:
            self.fail(kind, "the stock is not the undrawn top of the shuffled deck")
        return list(self.prefix[k])

    def check_hand(self, kind: str, seat: int, hand: Sequence[int]) -> None:
        """No negative count in ``seat``'s hand, and ``hand_sizes`` agrees with it."""
        if min(hand) < 0:
            self.fail(kind, f"seat {seat} holds a negative count: {hand}")
        if sum(hand) != self.st.hand_sizes[seat]:
            self.fail(kind, f"hand_sizes[{seat}] = {self.st.hand_sizes[seat]} but the hand holds {sum(hand)} cards")

    def check_pack(self, kind: str, total: Sequence[int]) -> None:
        """Every card of the pack is somewhere: ``total`` (the rank counts found in every place) is the pack."""
        if list(total) != self.pack:
            diff = {RANK_NAMES[x]: total[x] - n for x, n in enumerate(self.pack) if total[x] != n}
            self.fail(kind, f"cards not accounted for (found - pack, by rank): {diff}")

    # ------------------------------------------------------------------ end of deal
    @abc.abstractmethod
    def finish(self, result: DealResult) -> None:
        """The end-of-deal checks (the variant's oracle), called once the deal is scored."""

    def finish_common(self, result: DealResult) -> str:
        """The end-of-deal checks every variant makes: count the deal, require that events reached the checker
        and that the ending event matches ``end_reason``. Returns the event kind to name in failures."""
        kind = "finish"
        self.stats["deals"] += 1
        self.stats["events"] += self.events
        if not self.events:
            self.fail(kind, "no event reached the checker")
        if result.end_reason != END_REASON.get(self.ended_by or ""):
            self.fail(kind, f"end_reason {result.end_reason} but the deal ended with '{self.ended_by}'")
        return kind

    def check_score_sums(self, kind: str, result: DealResult) -> None:
        """Each team's score has exactly the parts of SCORE_PARTS and a total, and the parts add up to it."""
        for team, score in enumerate(result.scores):
            if set(score) != set(SCORE_PARTS) | {"total"}:
                self.fail(kind, f"score keys {sorted(score)}")
            if score["total"] != sum(score[p] for p in SCORE_PARTS):
                self.fail(kind, f"team {team}: parts do not add up to the total: {score}")

    def check_black_three_melds(self, kind: str, melds: Iterable[tuple[int, int]], out_seat: int | None) -> None:
        """Black threes (``(seat, turn)`` per meld) are melded only by the player going out, in the last turn."""
        for seat, turn in melds:
            if seat != out_seat or turn != self.st.turn:
                self.fail(kind, f"black threes melded by seat {seat} on turn {turn}, but seat {out_seat} went out "
                                f"on turn {self.st.turn}")


# ---------------------------------------------------------------------------------------------- running games
Make = Callable[[DealState, Any, str], Any]


def checking(make: Make, where: str) -> Any:
    """Within the block, every deal that play_game plays is checked by ``make(st, emit, where)``."""
    return checking_deals(lambda st, emit: make(st, emit, where))


def play_deal(checker: DealChecker, strategies: Sequence[Strategy], ctx: GameContext | None = None) -> DealResult:
    """Play the deal of ``checker.st`` (prepared or hand-dealt) with ``checker`` as its listener, then the
    end-of-deal checks; return the result."""
    result = Deal(checker.st, strategies, checker, ctx).play()
    checker.finish(result)
    return result


def where_of(rules: Any, names: Sequence[str], seed: int, game: int) -> str:
    """How a failure names the game it happened in."""
    return f"{','.join(names)} seed {seed} game {game} ({rules.num_players}p/{rules.team_size}):"


def play_games(rules: Any, seed: int, stats: Counter[str], make: Make, names_of: Callable[[int], Sequence[str]],
               games: Iterable[int] | None = None, min_deals: int | None = None,
               after_game: Callable[[GameResult, str], None] | None = None) -> int:
    """Play checked games and return how many deals they had: the game indices ``games`` (or 0, 1, 2, ...)
    with ``names_of(g)`` in the seats, stopping once ``min_deals`` deals were played (whole games).
    ``after_game(result, where)`` adds game-level checks. Fails unless every deal went through a checker."""
    if games is None and min_deals is None:
        raise ValueError("play_games needs the games or a number of deals")
    before = stats["deals"]
    deals = 0
    for g in itertools.count() if games is None else games:
        if min_deals is not None and deals >= min_deals:
            break
        names = list(names_of(g))
        where = where_of(rules, names, seed, g)
        with checking(make, where):
            result = play_game(rules, names, seed, g)
        if after_game is not None:
            after_game(result, where)
        deals += len(result.deals)
        stats["games"] += 1
    if stats["deals"] - before < deals:
        raise AssertionError(f"only {stats['deals'] - before} of {deals} deals went through the checker "
                             "(does play_game still build its deals with simcli.engine.game.Deal?)")
    return deals


def same_seats(names: Sequence[str]) -> Callable[[int], list[str]]:
    """``names_of`` for :func:`play_games` when every game seats the same strategies."""
    seats = list(names)
    return lambda game: seats


def report(name: str, stats: Counter[str], t0: float) -> None:
    """Print what a sample played and what its checker saw (pytest -s shows it)."""
    print(f"\n{name}: {stats['deals']} deals, {stats['games']} games in {time.perf_counter() - t0:.1f}s; "
          f"{dict(sorted(stats.items()))}")
