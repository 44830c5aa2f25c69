"""Stacked-deck scenarios for engine tests: build a deck that deals given hands, script the players, run turns.

* :func:`stack_deck` lays a pack out (``deck[0]`` = top card) so that the engine's round-robin deal gives each seat
  exactly the hand asked for, turns the given upcard(s) and leaves the given stock order on top of the stock. Every
  card not asked for is filled in from the rest of the pack in a fixed order, so each card of the pack appears exactly
  once (unless ``fill_stock=False`` asks for a short stock that ends after the given cards).
* :class:`Scripted` plays queued decisions and falls back to a fixed simple behaviour when its script runs out.
* :func:`play_until` / :class:`Table` drive a deal turn by turn; :func:`run_deal` plays it to the end through
  :meth:`simcli.engine.deal.Deal.play`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import numpy as np

import simcli.engine.game
from simcli.engine.deal import START, Deal, DealResult, new_deal
from simcli.engine.game import GameResult
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.primitives.actions import DRAW_STOCK, Meld, TakePile
from simcli.primitives.cards import (
    BLACK_THREE,
    CARD_VALUES,
    IS_NATURAL,
    JOKER,
    NATURAL_RANKS,
    NUM_RANKS,
    RANK_NAMES,
    RED_THREE,
    TWO,
    deck_counts,
    parse_cards,
)
from simcli.primitives.errors import GameContext
from simcli.rules.presets import load_rules
from simcli.strategy import Strategy

Cards = str | Iterable[int] | Iterable[str] | None
#: A game's event stream: (kind, canonical JSON of the data) per event.
Events = list[tuple[str, str]]

#: Order in which unrequested cards fill hands and the stock: naturals cycling 4, 5, ... A, 4, 5 ... (so filler
#: hands hold few pairs), then black threes, twos, jokers and, at the very bottom, red threes.
_FILLER_TAIL = (BLACK_THREE, TWO, JOKER, RED_THREE)


def cards(text: Cards) -> list[int]:
    """Rank indices from ``"K K 2 JK"``, a list of names or a list of rank ints (``None`` = no cards)."""
    if text is None:
        return []
    if isinstance(text, str):
        return parse_cards(text)
    out = []
    for c in text:
        out.append(c if isinstance(c, int) else parse_cards([c])[0])
    return out


def filler_cards(remaining: Sequence[int]) -> list[int]:
    """The unrequested cards of the pack in a fixed order: naturals cycling 4, 5 ... A, then black threes,
    twos, jokers, and red threes last (consumes nothing)."""
    left = list(remaining)
    out: list[int] = []
    while any(left[r] for r in NATURAL_RANKS):
        for r in NATURAL_RANKS:
            if left[r]:
                out.append(r)
                left[r] -= 1
    for r in _FILLER_TAIL:
        out.extend([r] * left[r])
        left[r] = 0
    assert not any(left), left
    return out


def seat_order(rules: Any, dealer: int) -> list[int]:
    """Seats in the order they receive cards and play: the player after the dealer first."""
    p = rules.num_players
    step = 1 if rules.play_direction == "CW" else -1
    return [(dealer + step * (k + 1)) % p for k in range(p)]


class PackCounter:
    """What is left of a rule set's pack while a test asks for given cards (never more than the pack holds)."""

    def __init__(self, rules: Any):
        self.rules = rules
        self.remaining = deck_counts(rules.decks, rules.jokers_per_deck)

    def take(self, what: str, text: Cards) -> list[int]:
        """The cards of ``text`` (see :func:`cards`), removed from the pack; ``what`` names them in errors."""
        out = cards(text)
        for r in out:
            if self.remaining[r] == 0:
                raise ValueError(f"{what}: the pack has no {RANK_NAMES[r]} left")
            self.remaining[r] -= 1
        return out

    def per_seat(self, spec: Mapping[int, Cards] | None, size: int, what: str = "hand") -> dict[int, list[int]]:
        """Cards asked for each seat (missing seats: none), at most ``size`` (``{what}_size``) per seat."""
        p = self.rules.num_players
        spec = dict(spec or {})
        if any(s not in range(p) for s in spec):
            raise ValueError(f"{what}: seats must be in 0..{p - 1}: {sorted(spec)}")
        out = {s: self.take(f"{what} of seat {s}", spec.get(s)) for s in range(p)}
        for s, h in out.items():
            if len(h) > size:
                raise ValueError(f"{what} of seat {s}: {len(h)} cards asked for, but {what}_size is {size}")
        return out


def stack_deck(rules: Any, hands: Mapping[int, Cards] | None = None, upcards: Cards = None, stock: Cards = "",
               dealer: int = 0, facedown: Cards = None, fill_stock: bool = True) -> list[int]:
    """A deck (rank ints, top first) whose deal gives ``hands[seat]`` to each seat, then ``upcards``, then ``stock``.

    Hands may be partial (or missing): they are completed with filler cards. ``upcards`` is the sequence turned
    face up (e.g. ``"JK R3 9"``: every card but the last must be one the variant covers); by default one filler
    natural is turned. ``stock`` is the order of the first stock cards (the first one is drawn first). Dealt red
    threes are replaced from the top of the stock right after the deal, so they take the first ``stock`` cards.
    With ``fill_stock=False`` the deck ends after ``stock`` (a short stock for exhaustion scenarios); otherwise
    the rest of the pack follows, so every card of the pack appears exactly once.
    """
    p = rules.num_players
    size = rules.hand_size
    pack = PackCounter(rules)
    remaining = pack.remaining
    wanted = pack.per_seat(hands, size)
    cover = set(rules.upcard_cover_ranks)
    if rules.initial_pile_faceup:
        up = pack.take("upcards", upcards) if upcards is not None else None
        if up is not None:
            if not up or up[-1] in cover or any(c not in cover for c in up[:-1]):
                raise ValueError(f"upcards {upcards!r}: all but the last must be covered ranks, the last not")
    elif upcards:
        raise ValueError("this rule set turns no upcard")
    else:
        up = []
    down = pack.take("facedown", facedown)
    if len(down) > rules.initial_pile_facedown:
        raise ValueError(f"{len(down)} face-down pile cards asked for, the rules place {rules.initial_pile_facedown}")
    top = pack.take("stock", stock)

    fill = deque(filler_cards(remaining))

    def pop_filler(natural: bool = False) -> int:
        if natural:
            for i, c in enumerate(fill):
                if IS_NATURAL[c]:
                    del fill[i]
                    return c
        return fill.popleft()

    for s in range(p):
        while len(wanted[s]) < size:
            wanted[s].append(pop_filler())
    while len(down) < rules.initial_pile_facedown:
        down.append(pop_filler())
    if up is None:
        up = [pop_filler(natural=True)]

    deck: list[int] = []
    order = seat_order(rules, dealer)
    for i in range(size):
        for s in order:
            deck.append(wanted[s][i])
    deck += down + up + top
    if fill_stock:
        deck += list(fill)
    return deck


def make_rules(**knobs: Any) -> Any:
    """Classic rules with knob overrides; dotted knob names may use ``__`` (``canasta_bonus__natural=700``)."""
    return load_rules("classic", {k.replace("__", "."): v for k, v in knobs.items()})


def deal_state(rules: Any = None, hands: Mapping[int, Cards] | None = None, upcards: Cards = None,
               stock: Cards = "", dealer: int = 0, team_scores: Sequence[int] | None = None,
               fill_stock: bool = True, deal_index: int = 0) -> DealState:
    """A prepared deal (see :func:`simcli.engine.deal.new_deal`) from a stacked deck."""
    rules = rules or load_rules("classic")
    deck = stack_deck(rules, hands, upcards, stock, dealer, fill_stock=fill_stock)
    scores = list(team_scores) if team_scores is not None else [0] * rules.n_teams
    return new_deal(rules, deck, dealer, deal_index, scores, cut_count=0)


# ------------------------------------------------------------------------------------------- scripted players
class _Auto:
    def __repr__(self) -> str:
        return "AUTO"


#: In a script, "use the fallback behaviour for this call".
AUTO = _Auto()


class _Script:
    """Decisions for one kind of call: a queue (one per call) or a ``{turn: decision}`` map."""

    def __init__(self, items: Sequence[Any] | Mapping[int, Any]):
        self.by_turn = dict(items) if isinstance(items, Mapping) else None
        self.queue = deque(() if isinstance(items, Mapping) else items)

    def next(self, turn: int) -> Any:
        if self.by_turn is not None:
            return self.by_turn.pop(turn, AUTO)
        return self.queue.popleft() if self.queue else AUTO

    def __len__(self) -> int:
        return len(self.by_turn) if self.by_turn is not None else len(self.queue)


class Scripted(Strategy):
    """Plays the given decisions in order, then a fixed simple behaviour.

    ``draws`` holds :data:`~simcli.primitives.actions.DRAW_STOCK` or :class:`~simcli.primitives.actions.TakePile`
    values, ``melds`` lists of :class:`~simcli.primitives.actions.Meld`, ``discards`` card names or ranks (``None``
    = go out by melding every card). Each argument is either a sequence consumed one item per call, or a mapping
    from the deal's turn number to the decision of that turn. :data:`AUTO` (or a missing turn) means "fallback":
    draw from the stock, lay no melds, discard the lowest-value natural card (then a black three, then a 2, then a
    joker).
    Every call is logged in :attr:`log` as ``(turn, kind, decision)``.
    """

    name = "scripted"

    def __init__(self, draws: Sequence[Any] | Mapping[int, Any] = (),
                 melds: Sequence[Any] | Mapping[int, Any] = (),
                 discards: Sequence[Any] | Mapping[int, Any] = (), name: str | None = None):
        super().__init__(np.random.default_rng(0))
        self.scripts = {"draw": _Script(draws), "melds": _Script(melds), "discard": _Script(discards)}
        if name is not None:
            self.name = name
        self.log: list[tuple[int, str, Any]] = []

    @property
    def pending(self) -> dict[str, int]:
        """How many scripted decisions of each kind were never asked for."""
        return {k: len(s) for k, s in self.scripts.items() if len(s)}

    def _next(self, kind: str, view: PlayerView) -> Any:
        return self.scripts[kind].next(view.turn)

    def choose_draw(self, view: PlayerView) -> Any:
        d = self._next("draw", view)
        if d is AUTO:
            d = DRAW_STOCK
        self.log.append((view.turn, "draw", d))
        return d

    def choose_melds(self, view: PlayerView) -> Sequence[Meld]:
        m = self._next("melds", view)
        if m is AUTO:
            m = []
        self.log.append((view.turn, "melds", m))
        return m

    def choose_discard(self, view: PlayerView) -> int | None:
        d = self._next("discard", view)
        if d is AUTO:
            d = fallback_discard(view.hand)
        elif isinstance(d, str):
            d = cards(d)[0]
        self.log.append((view.turn, "discard", d))
        return d


def fallback_discard(hand: Sequence[int]) -> int:
    """The fallback discard: lowest-value natural (lowest rank on ties), else B3, else 2, else joker."""
    naturals = [r for r in NATURAL_RANKS if hand[r]]
    if naturals:
        return min(naturals, key=lambda r: (CARD_VALUES[r], r))
    for r in (BLACK_THREE, TWO, JOKER):
        if hand[r]:
            return r
    raise ValueError("empty hand")


def players(scripts: Mapping[int, Strategy] | None = None, n: int = 4) -> list[Strategy]:
    """One strategy per seat: the given ones, and a pure-fallback :class:`Scripted` elsewhere."""
    scripts = scripts or {}
    return [scripts.get(s) or Scripted(name=f"auto{s}") for s in range(n)]


def take(rank: str | int, naturals: int = 0, twos: int = 0, jokers: int = 0, extra: Iterable[Meld] = ()) -> TakePile:
    """Shorthand for ``TakePile(Meld(rank, naturals, twos, jokers), extra)``."""
    r = rank if isinstance(rank, int) else cards(rank)[0]
    return TakePile(Meld(r, naturals, twos, jokers), tuple(extra))


def meld(rank: str | int, naturals: int = 0, twos: int = 0, jokers: int = 0) -> Meld:
    """Shorthand for ``Meld(rank, ...)`` with a card name for the rank."""
    r = rank if isinstance(rank, int) else cards(rank)[0]
    return Meld(r, naturals, twos, jokers)


# ------------------------------------------------------------------------------------------------- running
class Table:
    """Drives a :class:`~simcli.engine.deal.Deal` one turn at a time (the same steps as ``Deal.play``)."""

    def __init__(self, st: DealState, strategies: Sequence[Strategy], ctx: GameContext | None = None,
                 emit: Any = None):
        self.st = st
        self.deal = Deal(st, strategies, emit, ctx)
        self.seat = st.first_player
        self._lay_dealt_red_threes()

    def _lay_dealt_red_threes(self) -> None:
        # The same prelude as Deal.play (test_table_matches_deal_play checks that both paths agree).
        self.deal.lay_dealt_threes()

    @property
    def over(self) -> bool:
        """Whether the deal has ended."""
        return self.st.end_reason is not None

    def step(self, turns: int = 1) -> Table:
        """Play up to ``turns`` more turns (fewer if the deal ends)."""
        st = self.st
        for _ in range(turns):
            if self.over:
                break
            st.turn += 1
            self.deal.ctx.turn = st.turn
            self.deal._play_turn(self.seat, False, START)
            self.seat = st.next_seat(self.seat)
        return self

    def finish(self, max_turns: int = 5000) -> DealResult:
        """Play to the end of the deal and score it."""
        for _ in range(max_turns):
            if self.over:
                return self.deal._finish()
            self.step()
        raise AssertionError(f"deal not over after {max_turns} more turns")


def play_until(st: DealState, strategies: Sequence[Strategy], turns: int,
               ctx: GameContext | None = None) -> Table:
    """Play the first ``turns`` turns of a prepared deal; return the :class:`Table` (``.st`` is the state)."""
    return Table(st, strategies, ctx).step(turns)


def run_deal(st: DealState, strategies: Sequence[Strategy], ctx: GameContext | None = None) -> DealResult:
    """Play a prepared deal to its scored end through :meth:`simcli.engine.deal.Deal.play`."""
    return Deal(st, strategies, None, ctx).play()


def hand_of(st: DealState, seat: int) -> str:
    """A seat's hand as card names, highest first (for readable assertions)."""
    return " ".join(RANK_NAMES[r] for r in range(NUM_RANKS - 1, -1, -1) for _ in range(st.hands[seat][r]))


def counts(text: Cards) -> list[int]:
    """The rank-count vector of some cards."""
    out = [0] * NUM_RANKS
    for r in cards(text):
        out[r] += 1
    return out


def stock_prefixes(deck: Sequence[int]) -> tuple[list[int], list[list[int]]]:
    """For invariant checkers: the stock order of a fresh deal (``deck`` reversed) and, for each k, the
    rank counts of the first k stock cards, so the cards still in a k-card stock are known at a glance."""
    rev = list(deck)[::-1]
    prefix = [[0] * NUM_RANKS]
    acc = [0] * NUM_RANKS
    for c in rev:
        acc = acc.copy()
        acc[c] += 1
        prefix.append(acc)
    return rev, prefix


def record_game(rules: Any, names: list[str], seed: int, game: int) -> tuple[GameResult, Events]:
    """Play one game; return its result and its event stream as (kind, canonical JSON of data)."""
    events: Events = []

    def emit(kind: str, data: dict[str, Any]) -> None:
        events.append((kind, json.dumps(data, sort_keys=True)))

    return play_game(rules, names, seed, game, emit=emit), events


def digest(events: Events) -> str:
    """A SHA-256 of an event stream (equal streams, equal digests)."""
    h = hashlib.sha256()
    for kind, data in events:
        h.update(kind.encode())
        h.update(data.encode())
    return h.hexdigest()


@contextmanager
def checking_deals(make_checker: Callable[[DealState, Any], Any]) -> Iterator[None]:
    """Within the block, every deal that :func:`simcli.players.seating.play_game` plays is checked event by event.

    ``make_checker(st, emit)`` builds the listener for a deal (it forwards to ``emit`` if given); the deal's
    result is handed to its ``finish`` method once the deal is scored.
    """

    class CheckedDeal(Deal):
        def __init__(self, st: DealState, strategies: Sequence[Strategy], emit: Any = None, ctx: Any = None):
            self.checker = make_checker(st, emit)
            super().__init__(st, strategies, self.checker, ctx)

        def play(self) -> DealResult:
            result = super().play()
            self.checker.finish(result)
            return result

    with mock.patch.object(simcli.engine.game, "Deal", CheckedDeal):
        yield


#: The project's scripts/ folder (not a package: its scripts are loaded by path).
SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as a module, loaded once and registered in ``sys.modules`` as ``scripts_NAME``
    (dataclasses look a module up there while a class is built; the prefix keeps a script apart from a test helper
    of the same name, such as tests/net_models.py)."""
    key = f"scripts_{name}"
    loaded = sys.modules.get(key)
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(key, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module
