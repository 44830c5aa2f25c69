"""The table's public history in the view (``PlayerView.history``): what it records, and that nothing hidden is in it.

Four checks. It is recorded only when a seated strategy reads it. The history is the trace's public events, projected (a
stock draw as its count of cards), in the same order, for every deal of a game in each variant. It only grows, and every
seat reads the same one. And replay twins: a deal played again with one card a player drew from the stock (and kept to
the end, never showing it) swapped with a card left in the stock, every seat replaying its decisions, gives the very
same history at every decision, although the drawing player's hand and the trace's draw events differ (so a history that
recorded drawn cards would be caught).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from simcli.engine.deal import Deal
from simcli.engine.game import prepare_deal
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC as HEURISTIC
from simcli.players.seating import play_game
from simcli.primitives.actions import DRAW_STOCK, Meld, TakePile
from simcli.primitives.cards import JOKER, RANK_NAMES, TWO, deck_cards
from simcli.primitives.seeding import deal_rng
from simcli.rules.presets import load_rules
from simcli.strategy import Strategy, load_strategy

HOOKS = ("choose_draw", "choose_melds", "choose_discard", "hold_three", "ask_to_go_out", "answer_go_out")


class Recorder(Strategy):
    """Plays like ``policy``, keeping every answer (by hook, in order) and the history and hand at each call."""

    reads_history = True  # the engine records the history for it

    def __init__(self, policy: Strategy):
        super().__init__(policy.rng)
        self.policy = policy
        self.answers: dict[str, list[Any]] = defaultdict(list)
        self.seen: list[tuple[str, tuple[Any, ...], tuple[int, ...]]] = []
        self.views: dict[int, PlayerView] = {}

    def _ask(self, hook: str, view: PlayerView, *args: Any) -> Any:
        self.seen.append((hook, view.history, view.hand))
        self.views[id(view)] = view
        answer = getattr(self.policy, hook)(view, *args)
        self.answers[hook].append(answer)
        return answer

    def choose_draw(self, view: PlayerView) -> Any:
        return self._ask("choose_draw", view)

    def choose_melds(self, view: PlayerView) -> Any:
        return self._ask("choose_melds", view)

    def choose_discard(self, view: PlayerView) -> Any:
        return self._ask("choose_discard", view)

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        return self._ask("hold_three", view, rank)

    def ask_to_go_out(self, view: PlayerView) -> bool:
        return self._ask("ask_to_go_out", view)

    def answer_go_out(self, view: PlayerView) -> bool:
        return self._ask("answer_go_out", view)


class Replayer(Recorder):
    """Gives back a recorded seat's answers in order (keeping what it sees, as a Recorder does)."""

    def __init__(self, answers: dict[str, list[Any]]):
        super().__init__(Strategy(np.random.default_rng(0)))
        self.queue = {hook: list(a) for hook, a in answers.items()}

    def _ask(self, hook: str, view: PlayerView, *args: Any) -> Any:
        self.seen.append((hook, view.history, view.hand))
        return self.queue[hook].pop(0)


def public(kind: str, d: dict[str, Any]) -> tuple[Any, ...] | None:
    """A trace event as the history records it, without the turn (``None``: not a public history event)."""
    if kind == "draw":
        return ("draw", d["seat"], len(d["cards"]))
    if kind == "take_pile":
        return ("take", d["seat"], d["top"], d["size"])
    if kind == "decision" and d["kind"] == "melds" and d["value"] and isinstance(d["value"], list):
        return ("melds", d["seat"], len(d["value"]))
    if kind == "special_hand":
        return ("special", d["seat"], d["kind"])
    if kind == "discard":
        return ("discard", d["seat"], d["card"])
    if kind == "ask_go_out":
        return ("ask", d["seat"], d["answer"])
    if kind in ("red_three", "black_three"):
        return ("three", d["seat"], "R3" if kind == "red_three" else "B3", d["source"])
    if kind == "pony_pickup":
        return ("pony", d["seat"], d["cards"])
    if kind == "wing":
        return ("wing", d["seat"], d["cards"])
    if kind == "going_out":
        return ("out", d["seat"])
    if kind == "stock_out":
        return ("stock_out", d["seat"])
    return None


def projected(entry: tuple[Any, ...]) -> tuple[Any, ...]:
    """A history entry in :func:`public`'s shape."""
    kind, seat = entry[0], entry[1]
    if kind == "draw":
        return ("draw", seat, entry[3])
    if kind == "take":
        return ("take", seat, RANK_NAMES[entry[3]], entry[4])
    if kind == "melds":
        return ("melds", seat, len(entry[3]))
    if kind == "discard":
        return ("discard", seat, RANK_NAMES[entry[3]])
    if kind == "three":
        return ("three", seat, RANK_NAMES[entry[3]], entry[4])
    if kind in ("ask", "special", "pony", "wing"):
        return (kind, seat, entry[3])
    return (kind, seat)


@pytest.mark.parametrize("variant", list(HEURISTIC))
def test_history_is_the_traces_public_events(variant: str) -> None:
    rules = load_rules(variant)
    heuristic = load_strategy(HEURISTIC[variant])
    players = [Recorder(heuristic(np.random.default_rng(s))) for s in range(rules.num_players)]
    log = EventLog()
    play_game(rules, [HEURISTIC[variant]] * rules.num_players, 5, strategies=players, emit=log)
    deals: list[list[tuple[Any, ...]]] = []
    for kind, data in log.events:
        if kind == "deal":
            deals.append([])
        elif deals and (p := public(kind, data)) is not None:
            deals[-1].append(p)
    views = {k: v for p in players for k, v in p.views.items()}
    ends: dict[int, tuple[Any, ...]] = {}
    for view in views.values():  # one view per seat and deal: after the deal its history is the whole deal's
        ends.setdefault(view.deal_index, view.history)
        assert view.history == ends[view.deal_index]  # every seat reads the same history
    assert len(ends) == len(deals) >= 1
    for i, expected in enumerate(deals):
        history = ends[i]
        assert [projected(e) for e in history] == expected
        turns = [e[2] for e in history]
        assert turns == sorted(turns)
        kinds = {e[0] for e in history}
        assert {"draw", "discard"} <= kinds
    for p in players:  # the history a seat sees only grows within a deal
        for (_, before, _), (_, after, _) in zip(p.seen, p.seen[1:], strict=False):
            assert after[:len(before)] == before or len(after) < len(before)


def draws_of(log: EventLog) -> list[tuple[int, list[int], int]]:
    """The deal's stock draws without a bonus three: (seat, cards, stock left after)."""
    out = []
    names = {n: r for r, n in enumerate(RANK_NAMES)}
    events = log.events
    for k, (kind, d) in enumerate(events):
        if kind == "draw" and not any(e in ("red_three", "black_three") for e, _ in events[max(k - 3, 0):k]):
            out.append((d["seat"], [names[c] for c in d["cards"]], d["stock_left"]))
    return out


def later_uses(answers: list[tuple[int, str, Any]], seat: int, rank: int, after: int) -> bool:
    """Whether ``seat`` melded, took with or discarded a card of ``rank`` after its ``after``-th decision."""
    for i, (s, hook, a) in enumerate(answers):
        if i <= after or s != seat:
            continue
        if hook == "choose_discard" and a == rank:
            return True
        melds = [a.meld, *a.extra] if isinstance(a, TakePile) else (a if hook == "choose_melds" else [])
        melds = [m for m in melds if isinstance(m, Meld)]  # not a special hand
        for m in melds:
            if m.rank == rank or (rank == TWO and m.twos) or (rank == JOKER and m.jokers):
                return True
    return False


def twin_checks(variant: str, seed: int) -> tuple[int, int]:
    """Replay twins of the first deal of game ``seed``: (twins played, twins whose draw events differed)."""
    rules = load_rules(variant)
    pack = deck_cards(rules.decks, rules.jokers_per_deck)
    st = prepare_deal(rules, pack, deal_rng(seed, 0), 0, 0, [0] * (rules.num_players // rules.team_size))
    stock0 = list(st.stock)
    heuristic = load_strategy(HEURISTIC[variant])
    seated = [Recorder(heuristic(np.random.default_rng(s))) for s in range(rules.num_players)]
    order: list[tuple[int, str, Any]] = []  # every answer of every seat, in the order asked

    class Ordered(Recorder):
        def _ask(self, hook: str, view: PlayerView, *args: Any) -> Any:
            answer = super()._ask(hook, view, *args)
            order.append((view.seat, hook, answer))
            return answer

    seated = [Ordered(p.policy) for p in seated]
    log = EventLog()
    original = st.clone()
    Deal(st, seated, log).play()
    final_stock = len(st.stock)
    played = differed = 0
    draw_answers = [i for i, (_, hook, a) in enumerate(order) if hook == "choose_draw" and a is DRAW_STOCK]
    for n, (seat, cards, left) in enumerate(draws_of(log)):
        # The n-th stock draw without a bonus three; its decision is the n-th DRAW_STOCK answer (or later).
        decision = draw_answers[n] if n < len(draw_answers) else len(order)
        for k, card in enumerate(cards):
            i = left + len(cards) - 1 - k  # popped from the end: the first card drawn was the highest index
            assert stock0[i] == card
            if st.is_bonus_three[card] or later_uses(order, seat, card, decision):
                continue
            j = next((j for j in range(final_stock) if stock0[j] != card and not st.is_bonus_three[stock0[j]]),
                     None)
            if j is None:
                continue
            twin = original.clone()
            twin.stock[i], twin.stock[j] = twin.stock[j], twin.stock[i]
            replay = [Replayer(p.answers) for p in seated]
            twin_log = EventLog()
            try:
                Deal(twin, replay, twin_log).play()
            except Exception:  # noqa: BLE001 - a replayed decision the swapped card made illegal: no twin
                continue
            played += 1
            for p, r in zip(seated, replay, strict=True):
                assert [h for _, h, _ in r.seen] == [h for _, h, _ in p.seen]
            hands_apart = any(a[2] != b[2] for p, r in zip(seated, replay, strict=True)
                              for a, b in zip(p.seen, r.seen, strict=True))
            draws_apart = log.of_kind("draw") != twin_log.of_kind("draw")
            differed += hands_apart and draws_apart
            if played >= 4:
                return played, differed
    return played, differed


@pytest.mark.parametrize("variant", list(HEURISTIC))
def test_replay_twins_see_the_same_history(variant: str) -> None:
    played = differed = 0
    for seed in range(1, 13):  # a deal that used up its stock has no card left there to swap with: the next seed
        p, d = twin_checks(variant, seed)
        played += p
        differed += d
        if played >= 4:
            break
    assert played >= 4, played
    assert differed == played  # every twin's hidden cards and draw events differed: the check has power


def test_the_history_is_recorded_only_for_a_strategy_that_reads_it() -> None:
    rules = load_rules("classic", {"max_hands": 1})
    seen: list[tuple[Any, ...]] = []

    class Reader(Strategy):
        reads_history = False

        def choose_discard(self, view: PlayerView) -> int | None:
            seen.append(view.history)
            return super().choose_discard(view)

    play_game(rules, ["r"] * 4, 2, strategies=[Reader(np.random.default_rng(s)) for s in range(4)])
    assert seen and all(h == () for h in seen)  # nobody said it reads it: not recorded (no cost)
    seen.clear()
    Reader.reads_history = True
    play_game(rules, ["r"] * 4, 2, strategies=[Reader(np.random.default_rng(s)) for s in range(4)])
    assert seen[-1] and seen[-1][0][0] in ("draw", "three")
