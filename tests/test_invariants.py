"""Engine invariants checked after every event of thousands of simulated deals.

A :class:`Checker` sits between the engine and its ``emit`` listener and sees the live
:class:`~simcli.engine.state.DealState`. After every event it checks that

* every card of the pack is somewhere: hands + stock + pile + all team melds + laid red
  threes equal ``deck_counts`` rank by rank, and the stock is still an untouched part
  of the shuffled deck (cards only ever leave it from the top);
* ``hand_sizes`` agree with the hands, no count is negative, no red three stays in a hand;
* every meld on the table is legal (``meld_error(..., new=True)``), black threes are melded
  only by the player going out in the last turn, and ``st.canastas`` equals
  ``count_canastas``;
* nothing happens after the deal ended (``going_out`` / ``stock_out``) except its scoring.

At the end of each deal it checks the score parts against the totals and against an
independent recomputation, the going-out requirement, and "concealed" against the
definition of RULES.md §1.10 rebuilt from the event stream. It also counts the kinds of
moves seen (pile takes by pair / natural+wild / lay-off, ways of going out, stock-outs) so
the tests can require that random play reaches each of them.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from invariant_harness import DealChecker, InvariantError, play_deal, play_games, rank_name, rank_of, same_seats

from simcli.engine.deal import DealResult, new_deal
from simcli.engine.melds import count_canastas, meld_error, requirement_met
from simcli.engine.scoring import SCORE_PARTS
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, Meld, TakePile
from simcli.primitives.cards import (
    ACE,
    BLACK_THREE,
    CARD_VALUES,
    EIGHT,
    FIVE,
    FOUR,
    IS_NATURAL,
    JOKER,
    KING,
    NINE,
    NUM_RANKS,
    QUEEN,
    RANK_NAMES,
    RED_THREE,
    SEVEN,
    SIX,
    TWO,
    WILD_MELD,
    counts_of,
    deck_counts,
)
from simcli.rules.presets import load_rules
from simcli.strategies.heuristics.greedy import Greedy
from simcli.strategy import Strategy

CLASSIC = load_rules("classic")

#: Move kinds counted by the checker (keys of its ``stats`` counter).
TAKE_PAIR, TAKE_NAT_WILD, TAKE_LAYOFF = "take_pair", "take_nat_wild", "take_layoff"
OUT_DISCARD, OUT_MELDING, OUT_CONCEALED = "out_with_discard", "out_melding_all", "out_concealed"
STOCK_OUT, STOCK_OUT_LAST_R3, B3_OUT = "stock_out", "stock_out_last_red_three", "black_three_meld_out"
FORCED_TAKE = "take_with_stock_empty"


class Checker(DealChecker):
    """The ``emit`` listener of one Classic deal: checks the state after every event, then forwards it."""

    def __init__(self, st: DealState, stats: Counter[str], forward: Any = None, where: str = ""):
        super().__init__(st, stats, forward, where)
        self.legal_cache: dict[tuple[int, tuple[Any, ...]], tuple[str | None, dict[str, int]]] = {}
        self.dealt_threes_done = False
        self.pending_take: tuple[int, int, bool, bool] | None = None
        # (seat, turn, rank, new) per "meld" event and (seat, turn, upgraded_from) per "canasta" event
        self.meld_log: list[tuple[int, int, int, bool]] = []
        self.canasta_log: list[tuple[int, int, str | None]] = []

    # ------------------------------------------------------------------ per event
    def check_state(self, kind: str, data: dict[str, Any] | None = None) -> None:
        st = self.st
        total = self.stock_counts(kind)
        add = operator.add
        for seat, hand in enumerate(st.hands):
            self.check_hand(kind, seat, hand)
            if self.dealt_threes_done and hand[RED_THREE]:
                self.fail(kind, f"seat {seat} keeps a red three in hand")
            total = list(map(add, total, hand))
        for c in st.pile:
            total[c] += 1
        for team, team_melds in enumerate(st.melds):
            key = tuple(None if m is None else (m[0], m[1], m[2]) for m in team_melds)
            for rank, m in enumerate(key):
                if m is not None:
                    total[rank] += m[0]
                    total[TWO] += m[1]
                    total[JOKER] += m[2]
            cached = self.legal_cache.get((team, key))
            if cached is None:
                cached = self.legal_cache[(team, key)] = self._judge_melds(key)
            err, canastas = cached
            if err:
                self.fail(kind, f"team {team}: {err}")
            if st.canastas[team] != canastas:
                self.fail(kind, f"team {team}: st.canastas {st.canastas[team]} != count_canastas {canastas}")
            red = sum(st.red_threes_by_seat[s] for s in range(st.n_players) if st.team_of[s] == team)
            if red != st.red_threes[team]:
                self.fail(kind, f"team {team}: red_threes {st.red_threes[team]} but seats laid {red}")
        total[RED_THREE] += sum(st.red_threes)
        self.check_pack(kind, total)

    def _judge_melds(self, key: tuple[Any, ...]) -> tuple[str | None, dict[str, int]]:
        rules = self.rules
        for rank, m in enumerate(key):
            if m is None:
                continue
            if rank == RED_THREE or (rank == TWO):
                return f"a meld in the {RANK_NAMES[rank]} slot: {m}", {}
            if rank == WILD_MELD and m[0]:
                return f"the wild slot holds naturals: {m}", {}
            err = meld_error(rules, rank, m[0], m[1], m[2], new=True)
            if err:
                return f"illegal meld of {rank_name(rank)} {m}: {err}", {}
        return None, count_canastas(rules, [None if m is None else list(m) for m in key])

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        st = self.st
        stats = self.stats
        if kind == "decision":
            self.dealt_threes_done = True
            if data.get("kind") == "draw" and data.get("value") != "stock":
                # Emitted before the engine acts: this is the state the take was judged on.
                seat = data["seat"]
                team = st.team_of[seat]
                if not st.pile:
                    self.fail(kind, "a pile take with an empty pile")
                top = st.pile[-1]
                if not IS_NATURAL[top]:
                    self.fail(kind, f"a pile take with {RANK_NAMES[top]} on top")
                if len(st.pile) == 1 and st.hand_sizes[seat] == 1 and \
                        self.rules.forbid_single_card_pile_with_single_card_hand:
                    self.fail(kind, "a one-card hand took a one-card pile")
                self.pending_take = (seat, top, st.melds[team][top] is not None, st.frozen_for(team))
                if not st.stock:
                    stats[FORCED_TAKE] += 1
        elif kind == "meld":
            seat = data["seat"]
            team = st.team_of[seat]
            rank = rank_of(data["rank"])
            added = data["added"]
            m = st.melds[team][rank]
            if m is None or list(m) != list(data["meld"]):
                self.fail(kind, f"event meld {data['meld']} != state meld {m}")
            new = (m[0] - added["naturals"], m[1] - added["twos"], m[2] - added["jokers"]) == (0, 0, 0)
            self.meld_log.append((seat, st.turn, rank, new))
            if rank == BLACK_THREE:
                stats[B3_OUT] += 1
            if self.pending_take is not None:
                take_seat, top, existed, frozen = self.pending_take
                self.pending_take = None
                if take_seat != seat or rank != top:
                    self.fail(kind, f"the first meld after a take by seat {take_seat} of {RANK_NAMES[top]} is "
                                    f"seat {seat}'s {rank_name(rank)}")
                from_hand = added["naturals"] - 1
                if from_hand >= 2:
                    stats[TAKE_PAIR] += 1
                elif frozen:
                    self.fail(kind, f"frozen pile taken without a natural pair: {added}")
                elif existed:
                    stats[TAKE_LAYOFF] += 1
                elif from_hand == 1 and added["twos"] + added["jokers"] >= 1:
                    stats[TAKE_NAT_WILD] += 1
                else:
                    self.fail(kind, f"pile taken with {added}: not a pair, natural+wild or lay-off")
        elif kind == "canasta":
            self.canasta_log.append((data["seat"], st.turn, data.get("upgraded_from")))
        elif kind == "going_out":
            self.ended_by = kind
            if self.last_kind == "discard":
                stats[OUT_DISCARD] += 1
            else:
                stats[OUT_MELDING] += 1
            if data.get("concealed"):
                stats[OUT_CONCEALED] += 1
        elif kind == "stock_out":
            self.ended_by = kind
            stats[STOCK_OUT] += 1
            if data.get("last_card_red_three"):
                stats[STOCK_OUT_LAST_R3] += 1
        elif kind == "deal_scored":
            if self.ended_by is None:
                self.fail(kind, "scored before the deal ended")

    # ------------------------------------------------------------------ end of deal
    def finish(self, result: DealResult) -> None:
        st = self.st
        rules = self.rules
        kind = self.finish_common(result)
        if result.end_reason != st.end_reason or result.end_reason not in ("went_out", "stock_out"):
            self.fail(kind, f"end_reason {result.end_reason!r} (state {st.end_reason!r})")
        if result.concealed and result.end_reason != "went_out":
            self.fail(kind, "concealed without going out")
        if result.turns != st.turn:
            self.fail(kind, f"result.turns {result.turns} != {st.turn}")
        if result.red_threes != st.red_threes:
            self.fail(kind, f"result.red_threes {result.red_threes} != {st.red_threes}")
        final_canastas = [count_canastas(rules, team_melds) for team_melds in st.melds]
        if result.canastas != final_canastas:
            self.fail(kind, f"result.canastas {result.canastas} != {final_canastas}")
        out_team = None
        if result.end_reason == "went_out":
            seat = result.went_out_seat
            if seat is None or st.hand_sizes[seat] != 0:
                self.fail(kind, f"went out with seat {seat} (hand sizes {st.hand_sizes})")
            out_team = st.team_of[seat]
            if not requirement_met(rules.go_out_requirement, final_canastas[out_team]):
                self.fail(kind, f"team {out_team} went out with {final_canastas[out_team]}, short of "
                                f"{rules.go_out_requirement}")
            # Concealed, rebuilt from the events (RULES.md §1.10): every meld this player made in the
            # deal was laid in the last turn, none of them added to a meld laid before that turn (adding to
            # a meld the player started earlier in the same turn is fine), and a canasta among them.
            mine = [(t, rank, new) for s, t, rank, new in self.meld_log if s == seat]
            started = {rank for t, rank, new in mine if t == st.turn and new}
            expect = bool(mine) and all(t == st.turn and (new or rank in started) for t, rank, new in mine) and any(
                s == seat and t == st.turn for s, t, _ in self.canasta_log)
            if result.concealed != expect:
                self.fail(kind, f"concealed = {result.concealed}, but the meld events say {expect}: {mine}")
        else:
            if result.went_out_seat is not None:
                self.fail(kind, "stock_out with a went_out_seat")
            if len(st.stock) >= (1 if rules.partial_draw_allowed else rules.draw_count):
                self.fail(kind, f"stock_out with {len(st.stock)} cards in the stock")
        self.check_black_three_melds(kind, [(s, t) for s, t, rank, _ in self.meld_log if rank == BLACK_THREE],
                                     result.went_out_seat)
        self.check_score_sums(kind, result)
        for team, score in enumerate(result.scores):
            expected = expected_parts(st, team, out_team, result.concealed)
            if expected is not None and {p: score[p] for p in SCORE_PARTS} != expected:
                self.fail(kind, f"team {team}: score {score} != recomputed {expected}")


def expected_parts(st: DealState, team: int, out_team: int | None, concealed: bool) -> dict[str, int] | None:
    """The score parts recomputed from the end state for Classic-style scoring (``None`` if other knobs apply)."""
    r = st.rules
    if (r.meld_points_sign != "ALWAYS_PLUS" or r.bonuses_require_canasta != "NO"
            or r.red_three_negative_if != "NO_MELD" or r.exact_cut_bonus):
        return None
    melds = [(rank, m) for rank, m in enumerate(st.melds[team]) if m is not None]
    parts = dict.fromkeys(SCORE_PARTS, 0)
    for rank, (n, tw, jk) in melds:
        parts["melded"] += n * CARD_VALUES[rank] + tw * CARD_VALUES[TWO] + jk * CARD_VALUES[JOKER]
        if n + tw + jk >= r.canasta_size and rank != BLACK_THREE:
            if rank == WILD_MELD:
                parts["canasta_wild"] += r.canasta_bonus_wild
            elif tw + jk == 0:
                parts["canasta_natural"] += r.canasta_bonus_natural
            else:
                parts["canasta_mixed"] += r.canasta_bonus_mixed
    if team == out_team:
        parts["going_out"] = r.concealed_out_total_bonus if concealed else r.going_out_bonus
    n3 = st.red_threes[team]
    if n3:
        value = n3 * r.red_three_value
        if r.all_red_threes_total is not None and n3 == 2 * r.decks:
            value = r.all_red_threes_total
        reached = [v for t, v in r.red_three_totals or () if t is not None and n3 >= t]  # A-CL-4: 5 and 6 of 6
        if reached:
            value = reached[-1]
        parts["red_threes"] = -value if not melds else value
    for seat in range(st.n_players):
        if st.team_of[seat] == team:
            hand = st.hands[seat]
            parts["hand"] -= sum(hand[k] * CARD_VALUES[k] for k in range(NUM_RANKS) if k != BLACK_THREE)
            parts["hand"] += hand[BLACK_THREE] * r.black_three_in_hand_value
    return parts


# ---------------------------------------------------------------------------------------------- running games
def play_checked(rules: Any, names: Sequence[str], seed: int, games: Sequence[int], stats: Counter[str]) -> int:
    """Play the given games under the checker; return how many deals were played (in full games)."""
    return play_games(rules, seed, stats, lambda st, emit, where: Checker(st, stats, emit, where),
                      same_seats(names), games=games)


def play_sample(rules: Any, mixes: Sequence[tuple[Sequence[str], int, int]], stats: Counter[str]) -> int:
    """Play ``(names, seed, min_deals)`` samples, game after game, until each mix reaches its deal count."""
    return sum(play_games(rules, seed, stats, lambda st, emit, where: Checker(st, stats, emit, where),
                          same_seats(names), min_deals=min_deals) for names, seed, min_deals in mixes)


# ---------------------------------------------------------------------------------------------- the default sample
R4 = ["random"] * 4
MIXES = [
    (R4, 101, 1200),
    (["random", "greedy", "random", "greedy"], 202, 500),
    (["greedy", "random", "greedy", "random"], 303, 400),
]
#: Moves random play (with a little greedy) must reach in the default sample.
REQUIRED_MOVES = [TAKE_PAIR, TAKE_NAT_WILD, TAKE_LAYOFF, OUT_DISCARD, OUT_MELDING, STOCK_OUT, B3_OUT]


@pytest.fixture(scope="module")
def classic_sample() -> Counter[str]:
    stats: Counter[str] = Counter()
    deals = play_sample(CLASSIC, MIXES, stats)
    stats["played"] = deals
    print(f"\nclassic sample: {dict(stats)}")
    return stats


def test_sample_checks_at_least_2000_deals(classic_sample: Counter[str]) -> None:
    assert classic_sample["played"] >= 2000
    assert classic_sample["deals"] == classic_sample["played"]
    assert classic_sample["events"] > 100 * classic_sample["deals"]


@pytest.mark.parametrize("move", REQUIRED_MOVES)
def test_random_play_reaches_every_move(classic_sample: Counter[str], move: str) -> None:
    assert classic_sample[move] > 0, f"no '{move}' in {dict(classic_sample)}"


def test_random_only_play_goes_out_and_takes_the_pile_every_way() -> None:
    stats: Counter[str] = Counter()
    play_sample(CLASSIC, [(R4, 7, 150)], stats)
    for move in (TAKE_PAIR, TAKE_NAT_WILD, TAKE_LAYOFF, OUT_DISCARD, OUT_MELDING):
        assert stats[move] > 0, f"no '{move}' in {dict(stats)}"


# ---------------------------------------------------------------------------------------------- other knob settings
KNOB_SETS: list[dict[str, Any]] = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 6},
    {"num_players": 6, "team_size": 2},
    {"draw_count": 2},
    {"draw_count": 2, "partial_draw_allowed": False},
    {"initial_meld_basis": "DEAL_NUMBER", "initial_meld_table": "HF_BY_DEAL"},
    {"wild_rule": "WIKI"},
    {"wild_rule": "STRICT_MAJORITY"},
    {"meld_max_size": 7},
    {"num_players": 2, "meld_max_size": 7, "wild_rule": "STRICT_MAJORITY"},
]


def _names(rules: Any, mix: int) -> list[str]:
    p = rules.num_players
    if mix == 0:
        return ["random"] * p
    return ["random" if (s + mix) % 2 else "greedy" for s in range(p)]


@pytest.mark.parametrize("knobs", KNOB_SETS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_knob_settings_keep_invariants(knobs: dict[str, Any]) -> None:
    rules = load_rules("classic", knobs)
    stats: Counter[str] = Counter()
    deals = 0
    for mix in range(3):
        deals += play_checked(rules, _names(rules, mix), 11 + mix, range(2), stats)
    assert stats["deals"] == deals > 0
    assert stats[OUT_DISCARD] + stats[OUT_MELDING] + stats[STOCK_OUT] == deals


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knobs=hs.sampled_from(KNOB_SETS + [{}]), seed=hs.integers(0, 2**32 - 1),
       game=hs.integers(0, 10**6), mix=hs.integers(0, 2))
def test_any_seed_keeps_invariants(knobs: dict[str, Any], seed: int, game: int, mix: int) -> None:
    rules = load_rules("classic", {**knobs, "max_hands": 3})
    stats: Counter[str] = Counter()
    deals = play_checked(rules, _names(rules, mix), seed, [game], stats)
    assert deals == stats["deals"]


# ---------------------------------------------------------------------------------------------- crafted deals
class _Script(Strategy):
    """Plays one scripted turn; afterwards draws from the stock (or takes the pile when forced), melds nothing
    and discards its lowest card."""

    name = "script"

    def __init__(self, draw: Any = DRAW_STOCK, melds: Sequence[Meld] = (), discard: int | None = -1):
        super().__init__(np.random.default_rng(0))
        self.draw = draw
        self.melds = list(melds)
        self.discard = discard

    def choose_draw(self, view: Any) -> Any:
        draw, self.draw = self.draw, DRAW_STOCK
        if draw is DRAW_STOCK and view.must_take_pile:
            return TakePile(Meld(view.pile_top))
        return draw

    def choose_melds(self, view: Any) -> list[Meld]:
        melds, self.melds = self.melds, []
        return melds

    def choose_discard(self, view: Any) -> int | None:
        if self.discard != -1:
            card, self.discard = self.discard, -1
            return card
        return next(r for r in range(NUM_RANKS) if view.hand[r])


def crafted_deck(rules: Any, first_hand: Sequence[int], stock_top: Sequence[int],
                 upcards: Sequence[int] = (FIVE,)) -> list[int]:
    """A pack ordered so that the first player (dealer 3 -> seat 0) gets ``first_hand``, ``upcards`` are turned
    and ``stock_top`` are the first stock cards; the other hands get naturals and no red three."""
    left = deck_counts(rules.decks, rules.jokers_per_deck)
    for c in [*first_hand, *stock_top, *upcards]:
        left[c] -= 1
    assert min(left) >= 0
    rest = [r for r in range(NUM_RANKS) if r != RED_THREE for _ in range(left[r])]  # pop() takes naturals first
    p, size = rules.num_players, rules.hand_size
    hands = [list(first_hand)] + [[rest.pop() for _ in range(size)] for _ in range(p - 1)]
    deck = [hands[i % p][i // p] for i in range(p * size)]
    tail = rest[::-1] + [RED_THREE] * left[RED_THREE]
    return deck + [*upcards, *stock_top] + tail


def run_crafted(first_hand: Sequence[int], script: _Script, team_scores: list[int], stock_top: Sequence[int] = (),
                upcards: Sequence[int] = (FIVE,)) -> tuple[DealResult, Counter[str], list[tuple[str, dict]]]:
    """Play a crafted Classic deal under the checker: seat 0 plays ``script`` first, then everyone plays dumb."""
    rules = CLASSIC
    st = new_deal(rules, crafted_deck(rules, first_hand, stock_top, upcards), 3, 0, team_scores, cut_count=0)
    assert st.first_player == 0 and st.hands[0] == counts_of(first_hand)
    stats: Counter[str] = Counter()
    events: list[tuple[str, dict]] = []
    checker = Checker(st, stats, lambda kind, data: events.append((kind, data)), where="crafted")
    players = [script] + [_Script() for _ in range(rules.num_players - 1)]
    return play_deal(checker, players), stats, events


def test_concealed_going_out_after_a_stock_draw_waives_the_minimum() -> None:
    # 7 kings, 3 queens and a 5 (worth 110 < the 120 minimum of a team on 3000); the draw brings the 4th queen.
    hand = [KING] * 7 + [QUEEN] * 3 + [FIVE]
    script = _Script(melds=[Meld(KING, 7), Meld(QUEEN, 4)], discard=FIVE)
    result, stats, _ = run_crafted(hand, script, [3000, 0], stock_top=[QUEEN])
    assert result.end_reason == "went_out" and result.went_out_seat == 0 and result.turns == 1
    assert result.concealed and stats[OUT_CONCEALED] == 1 and stats[OUT_DISCARD] == 1
    assert result.scores[0]["going_out"] == CLASSIC.concealed_out_total_bonus == 200
    assert result.scores[0]["canasta_natural"] == 500
    assert result.scores[1]["going_out"] == 0


def test_concealed_going_out_by_melding_every_card_with_black_threes() -> None:
    # 7 kings, a 2 and 3 black threes; the draw brings the 4th black three: meld all 12 cards, no discard.
    hand = [KING] * 7 + [TWO] + [BLACK_THREE] * 3
    script = _Script(melds=[Meld(KING, 7, 1, 0), Meld(BLACK_THREE, 4)], discard=None)
    result, stats, _ = run_crafted(hand, script, [0, 0], stock_top=[BLACK_THREE])
    assert result.end_reason == "went_out" and result.concealed
    assert stats[OUT_MELDING] == 1 and stats[B3_OUT] == 1 and stats[OUT_CONCEALED] == 1
    assert result.scores[0]["canasta_mixed"] == 300 and result.scores[0]["going_out"] == 200
    assert result.scores[0]["melded"] == 7 * 10 + 20 + 4 * 5


def test_taking_a_pile_with_red_threes_keeps_every_card_in_place() -> None:
    """Two red threes turned up under a 9: taking the pile lays both; every event sees all 108 cards.

    Regression: the engine used to emit ``take_pile`` with the top card already off the pile and in no meld,
    and ``red_three`` events while the rest of the pile was in neither the pile nor the hand."""
    hand = [NINE] * 2 + [KING] * 3 + [QUEEN, QUEEN, FIVE, SIX, SEVEN, EIGHT]
    script = _Script(draw=TakePile(Meld(NINE, 2), (Meld(KING, 3),)), discard=FIVE)
    result, stats, events = run_crafted(hand, script, [0, 0], upcards=[RED_THREE, RED_THREE, NINE])
    assert stats[TAKE_PAIR] >= 1
    from_pile = [d for k, d in events if k == "red_three" and d["source"] == "pile"]
    assert [(d["seat"], d["team"]) for d in from_pile] == [(0, 0), (0, 0)]
    assert result.red_threes[0] >= 2


def test_greedy_takes_a_forced_pile() -> None:
    """Stock empty, a 5-king meld, K on the pile, two kings in hand, melds capped at 7: the pile must be
    taken (laying off the K alone is legal), but greedy only tries K+K+K onto the meld (8 cards) and draws."""
    rules = load_rules("classic", {"meld_max_size": 7})
    st = new_deal(rules, crafted_deck(rules, [KING, KING, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, QUEEN, QUEEN, ACE],
                                      []), 3, 0, [0, 0], 0)
    st.add_to_meld(0, KING, 5, 0, 0)
    st.opened[0] = True
    st.pile = [SIX, KING]
    st.stock = []
    view = PlayerView(st, 0)
    assert view.must_take_pile and view.check_take(TakePile(Meld(KING))) is None
    decision = Greedy(np.random.default_rng(0)).choose_draw(view)
    assert decision is not DRAW_STOCK and view.check_take(decision) is None


def test_checker_catches_a_lost_card() -> None:
    """The checker itself can fail: a card that vanishes from a hand is reported."""
    st = new_deal(CLASSIC, crafted_deck(CLASSIC, [KING] * 8 + [QUEEN] * 3, [QUEEN]), 3, 0, [0, 0], 0)
    checker = Checker(st, Counter())
    checker("cut", {})
    st.hands[0][KING] -= 1
    st.hand_sizes[0] -= 1
    with pytest.raises(InvariantError, match="not accounted"):
        checker("discard", {})
    st.hands[0][KING] += 1
    with pytest.raises(InvariantError, match="hand_sizes"):
        checker("discard", {})


def test_checker_catches_an_illegal_meld_and_a_stale_canasta_count() -> None:
    st = new_deal(CLASSIC, crafted_deck(CLASSIC, [KING] * 8 + [TWO] * 3, [QUEEN]), 3, 0, [0, 0], 0)
    checker = Checker(st, Counter())

    def move_to_meld(naturals: int, twos: int) -> None:
        st.hands[0][KING] -= naturals
        st.hands[0][TWO] -= twos
        st.hand_sizes[0] -= naturals + twos
        m = st.melds[0][KING] = [a + b for a, b in zip(st.melds[0][KING] or [0, 0, 0], [naturals, twos, 0],
                                                           strict=True)]
        checker("meld", {"seat": 0, "rank": "K", "added": {"naturals": naturals, "twos": twos, "jokers": 0},
                         "meld": list(m)})

    move_to_meld(2, 3)  # 2 kings and 3 twos: legal under PAGAT
    with pytest.raises(InvariantError, match="count_canastas"):
        move_to_meld(6, 0)  # now a mixed canasta that st.canastas does not count
    st.canastas[0]["MIXED"] = 1
    checker("canasta", {"seat": 0, "upgraded_from": None})
    with pytest.raises(InvariantError, match="illegal meld"):
        move_to_meld(-7, 0)  # 1 king with 3 wild cards


# ---------------------------------------------------------------------------------------------- heavy sweeps
@pytest.mark.slow
def test_slow_ten_thousand_classic_deals() -> None:
    stats: Counter[str] = Counter()
    deals = play_sample(CLASSIC, [
        (R4, 1001, 5000),
        (["random", "greedy", "random", "greedy"], 1002, 2500),
        (["greedy", "greedy", "random", "random"], 1003, 2500),
    ], stats)
    print(f"\n10k sample: {dict(stats)}")
    assert deals >= 10_000
    for move in REQUIRED_MOVES + [STOCK_OUT_LAST_R3, FORCED_TAKE]:
        assert stats[move] > 0, f"no '{move}' in {dict(stats)}"


@pytest.mark.slow
def test_slow_concealed_going_out_in_play() -> None:
    """Concealed going out is rare for random and greedy play (about 1 deal in 10,000): sample until seen."""
    stats: Counter[str] = Counter()
    g = 0
    while stats[OUT_CONCEALED] == 0 and stats["deals"] < 60_000:
        play_checked(CLASSIC, ["random", "greedy", "greedy", "random"], 4242, [g], stats)
        play_checked(CLASSIC, R4, 4243, [g], stats)
        g += 1
    print(f"\nconcealed sample: {dict(stats)}")
    assert stats[OUT_CONCEALED] > 0


@pytest.mark.slow
@pytest.mark.parametrize("knobs", KNOB_SETS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_slow_knob_sweep(knobs: dict[str, Any]) -> None:
    rules = load_rules("classic", knobs)
    stats: Counter[str] = Counter()
    deals = 0
    for mix in range(3):
        deals += play_checked(rules, _names(rules, mix), 500 + mix, range(60), stats)
    print(f"\n{knobs}: {dict(stats)}")
    assert deals >= 300
    for move in (TAKE_PAIR, TAKE_LAYOFF, OUT_DISCARD):
        assert stats[move] > 0, f"no '{move}' in {dict(stats)}"


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knobs=hs.fixed_dictionaries({}, optional={
    "num_players": hs.sampled_from([2, 3, 4, 6]),
    "draw_count": hs.sampled_from([1, 2]),
    "wild_rule": hs.sampled_from(["PAGAT", "WIKI", "STRICT_MAJORITY"]),
    "meld_max_size": hs.sampled_from([None, 7, 9]),
}), seed=hs.integers(0, 2**32 - 1), game=hs.integers(0, 10**6), mix=hs.integers(0, 2))
def test_slow_random_knob_combinations(knobs: dict[str, Any], seed: int, game: int, mix: int) -> None:
    rules = load_rules("classic", knobs)
    stats: Counter[str] = Counter()
    deals = play_checked(rules, _names(rules, mix), seed, [game], stats)
    assert deals == stats["deals"]
