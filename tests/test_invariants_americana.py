"""Canasta Americana engine invariants over random (and some scripted-strategy) play, event by event.

Deals are driven directly: :func:`simcli.engine.game.prepare_deal` lays a seeded deck out, and
``invariant_harness.play_deal(checker, strategies, ctx)`` plays it with an :class:`AmChecker` as its ``emit``
listener. The checker sees the live :class:`~simcli.engine.state.DealState` after every event and checks that

* every card of the pack is somewhere: hands + stock + pile + team melds + red **and** black threes laid
  + wings still set aside (``st.wings``, ``st.wings_void``) + pending wings (``st.wing_pending``) + the 14 cards
  of a special hand equal the pack rank by rank, and the stock is the undrawn top of the shuffled deck;
* ``hand_sizes`` agree with the hands; laid threes per team agree with the threes laid per seat;
* every meld obeys RULES.md §2.3, checked here independently and with ``meld_error(new=True)``: at most 7
  cards, ``N >= 2`` and ``W <= 2`` (AMERICAN), no wild card among sevens, wild melds of 3-7 wild cards only,
  wild cards join aces only in the team's opening, no meld of a two or a three; ``st.canastas`` equals a count
  made here;
* no meld of a rank that already had a canasta of either team is started or added to (dead ranks), and the pile
  is never taken with a dead rank, a wild card or a three on top, nor without a natural pair;
* a team's opening melds count at least its minimum (the opening table by team score);
* a three sits in a hand only when held before the team opened: one per player at most once the dealt threes
  are laid, none after the team opened once that player has started a turn, and no new one after the opening;
* a wing goes to the player who opens a team, from the melds (never via the pile) and only while more than 8
  stock cards remain, 4 cards first and 3 next, and joins the hand at the start of that player's next turn; a team
  that opens via the pile forfeits the wing it would have taken (``wing_after_pile_opening=THREE``, A-AM-4b: the
  other team's opener then takes the 3), and a forfeited wing stays set aside (``st.wings_void``);
* a three is discarded only as the going-out discard, a wild card only when going out or when the hand holds no
  natural card, and on an empty pile an ace or a seven only when no other natural card is held;
* going out needs two canastas (except a special hand) and ends with a discard (except a special hand of
  exactly 14 cards, or the last stock card being a three); a special hand is laid only while the team has not
  opened and is one of the four §2.3 hands;
* nothing happens after the deal ended except its scoring.

At the end of each deal every score part is recomputed from the end state with the §2.3 values (a special hand
scores exactly its value and nothing else), the parts must add up to the total, and the result's Americana fields
(black threes, special hand, wings, dead ranks) must agree with what the events showed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any
from unittest import mock

import pytest
from helpers_americana import stack_am_deck
from invariant_harness import DealChecker, InvariantError, play_deal, rank_name, rank_of, report

from simcli.engine.deal import DealResult, new_deal
from simcli.engine.game import prepare_deal
from simcli.engine.melds import meld_error
from simcli.engine.state import DealState
from simcli.players.seating import make_strategies
from simcli.primitives.cards import (
    ACE,
    BLACK_THREE,
    FOUR,
    JOKER,
    NATURAL_RANKS,
    NUM_RANKS,
    RANK_NAMES,
    RED_THREE,
    SEVEN,
    TWO,
    WILD_MELD,
    counts_of,
    deck_cards,
    parse_cards,
)
from simcli.primitives.errors import GameContext
from simcli.primitives.seeding import deal_rng
from simcli.rules.presets import load_rules

AMERICANA = load_rules("americana")
DRAW2 = load_rules("americana", {"draw_count": 2})

#: Card values of RULES.md §1.3 written out again; a three left in hand counts -100 in Americana (A-AM-11).
VALUE = {"JK": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
         "7": 5, "6": 5, "5": 5, "4": 5, "R3": 100, "B3": 100}
CARD = [VALUE[name] for name in RANK_NAMES]
THREES_TABLE = {1: 100, 2: 300, 3: 500, 4: 1000}
#: The discard bars of RULES.md A-AM-4d, in the order they lift.
LIFTS = ("dead_rank", "ace_seven")
SPECIAL_VALUE = {"STRAIGHT": 3000, "PAIRS_NATURAL": 2500, "PAIRS_WITH_2_7_A": 2000, "GARBAGE": 2000}
BONUS_PART = {"NATURAL": "canasta_natural", "MIXED": "canasta_mixed", "WILD": "canasta_wild",
              "SEVENS": "canasta_sevens", "ACES": "canasta_aces"}
#: Team totals cycled over the sample, so that every line of the opening table (15/50/90/120/150) is played.
TOTALS = [(0, 0), (-300, 1500), (3000, 5200), (1495, -10), (5000, 2995)]
R4 = ["random"] * 4
MIXED_SEATS = [["americana", "random", "americana", "random"], ["random", "greedy", "random", "greedy"],
               ["americana", "greedy", "americana", "greedy"], ["greedy", "americana", "random", "americana"]]


def classify(rank: int, m: Sequence[int]) -> str | None:
    """The canasta type of a meld under RULES.md §2.3, or None."""
    n, tw, jk = m
    if n + tw + jk < 7:
        return None
    if rank == WILD_MELD:
        return "WILD"
    if rank == SEVEN:
        return "SEVENS"
    if tw + jk == 0:
        return "ACES" if rank == ACE else "NATURAL"
    return "MIXED"


def bonus(kind: str, m: Sequence[int]) -> int:
    """A canasta's bonus (§2.3): natural 500, mixed 300, aces 2500, sevens 2500, wild 3000/2500/2000."""
    if kind == "WILD":
        return 3000 if m[1] == 7 else 2500 if m[2] == 4 else 2000
    return {"NATURAL": 500, "MIXED": 300, "ACES": 2500, "SEVENS": 2500}[kind]


def meld_problem(rank: int, m: Sequence[int], cap: int = 7) -> str | None:
    """Why a meld on the table breaks the Americana rules (checked independently of simcli.engine.melds); ``cap`` is 8
    under allow_8th_card_when_going_out (whether the 8th card went out is checked at the end of the deal)."""
    n, tw, jk = m
    size, w = n + tw + jk, tw + jk
    if min(m) < 0:
        return "a negative count"
    if size > cap:
        return f"{size} cards, above the cap of {cap}"
    if rank == WILD_MELD:
        return None if n == 0 and size >= 3 else "a wild meld with naturals or fewer than 3 cards"
    if rank not in NATURAL_RANKS:
        return f"a meld in the {RANK_NAMES[rank]} slot"
    if size < 3:
        return f"{size} cards, below 3"
    if w > 2 or n < 2:
        return f"{n} naturals with {w} wilds break AMERICAN (N >= 2, W <= 2)"
    if rank == SEVEN and w:
        return "wild cards among sevens"
    return None


def special_problem(kind: str, cards: Sequence[int]) -> str | None:
    """Why 14 cards (a rank-count vector) are not special hand ``kind`` of §2.3."""
    if sum(cards) != 14:
        return f"{sum(cards)} cards, not 14"
    naturals = [cards[r] for r in NATURAL_RANKS]
    threes = cards[RED_THREE] + cards[BLACK_THREE]
    if kind == "STRAIGHT":
        ok = naturals == [1] * 11 and cards[TWO] == 1 and cards[JOKER] == 1 and threes == 1
    elif kind == "PAIRS_NATURAL":
        ok = threes == cards[TWO] == cards[JOKER] == 0 and sorted(n for n in naturals if n) == [2] * 7
    elif kind == "PAIRS_WITH_2_7_A":
        ok = (threes == cards[JOKER] == 0 and cards[TWO] == cards[SEVEN] == cards[ACE] == 2
              and sorted(n for n in naturals if n) == [2] * 6)
    elif kind == "GARBAGE":
        ok = threes == cards[TWO] == cards[JOKER] == 0 and sorted(n for n in naturals if n) == [3, 3, 4, 4]
    else:
        return f"unknown special hand {kind}"
    return None if ok else f"{[RANK_NAMES[r] for r in range(NUM_RANKS) for _ in range(cards[r])]} is not a {kind}"


def opening_minimum(score: int) -> int:
    """The §2.3 opening table (AM_PAGAT): <0: 15; 0-1495: 50; 1500-2995: 90; 3000-4995: 120; >= 5000: 150."""
    return 15 if score < 0 else 50 if score < 1500 else 90 if score < 3000 else 120 if score < 5000 else 150


def threes_part(count: int, canastas: int, signs: Sequence[int] = (-1, 0, 1)) -> int:
    """Threes of one colour (§2.3 table): negative with no canasta, ignored with one, positive with two or more
    (``signs``: american_threes_sign for 0, 1 and 2+ canastas)."""
    if not count:
        return 0
    value = THREES_TABLE[min(count, 4)]
    return value * signs[0] if canastas == 0 else value * signs[1] if canastas == 1 else value * signs[2]


def expected_parts(st: DealState, team: int, out_team: int | None) -> dict[str, int]:
    """The non-zero score parts of ``team``, recomputed from the end state with the §2.3 values."""
    special = st.special_hand is not None and team == out_team
    if special and st.rules.special_hand_overrides_team_score:
        return {"special_hand": SPECIAL_VALUE[st.special_hand]}
    parts: Counter[str] = Counter()
    if special:  # special_hand_overrides_team_score=false: the hand's value on top of the normal score
        parts["special_hand"] = SPECIAL_VALUE[st.special_hand]
    canastas = 0
    melded = 0
    for rank, m in enumerate(st.melds[team]):
        if m is None:
            continue
        n, tw, jk = m
        melded += n * CARD[rank] + 20 * tw + 50 * jk
        kind = classify(rank, m)
        if kind:
            canastas += 1
            parts[BONUS_PART[kind]] += bonus(kind, m)
        elif rank == WILD_MELD:
            parts["incomplete_melds"] -= 2000
        elif rank == SEVEN or (rank == ACE and tw + jk == 0):
            parts["incomplete_melds"] -= 2500
    parts["melded"] = melded if canastas else -melded
    if team == out_team:
        parts["going_out"] = 100
    signs = st.rules.american_threes_sign
    parts["red_threes"] = threes_part(st.red_threes[team], canastas, signs)
    parts["black_threes"] = threes_part(st.black_threes[team], canastas, signs)
    for seat in st.members(team):
        hand = st.hands[seat]
        parts["hand"] -= sum(n * CARD[r] for r, n in enumerate(hand))
        parts["hand_rank_penalty"] -= 1500 * (hand[ACE] >= 3) + 1500 * (hand[SEVEN] >= 3)
    return {p: v for p, v in parts.items() if v}


class AmChecker(DealChecker):
    """The ``emit`` listener of one Americana deal: checks the state after every event, then forwards it."""

    def __init__(self, st: DealState, stats: Counter[str], forward: Any = None, where: str = ""):
        super().__init__(st, stats, forward, where)
        p, t = st.n_players, st.n_teams
        self.last_seat: int | None = None
        self.prelude_done = False
        self.meld_cache: dict[tuple[int, Any], tuple[str | None, dict[str, int]]] = {}
        self.special_cards = [0] * NUM_RANKS
        # Threes: how many each seat held when its team opened, and whether it has started a turn since.
        self.threes_at_open: list[int | None] = [None] * p
        self.must_be_clear = [False] * p
        self.held: set[int] = set()
        # Meld batches: a take (its top meld and extras) or one choose_melds answer.
        self.take_left = 0
        self.take_opening = False
        self.batch: dict[str, Any] | None = None
        self.opened_how: list[str | None] = [None] * t  # "hand" or "pile"
        self.stock_at_open: list[int] = [0] * t
        self.wing_events: list[tuple[int, int, int]] = []
        self.wing_teams: set[int] = set()
        #: Wings a pile opening forfeited (wing_after_pile_opening=THREE: the next opener takes the next wing).
        self.forfeited = 0
        #: allow_8th_card_when_going_out: the cap, and each (seat, turn) that laid an 8th card (it must go out).
        self.cap = 8 if st.rules.allow_8th_card_when_going_out else 7
        self.eighths: list[tuple[int, int]] = []

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        super().__call__(kind, data)
        self.last_seat = data.get("seat")  # who acted last: a going-out discard must be the player's own

    # ------------------------------------------------------------------ after every event
    def check_state(self, kind: str, data: dict[str, Any] | None = None) -> None:
        st = self.st
        total = self.stock_counts(kind)
        three_event = kind in ("red_three", "black_three")
        for seat, hand in enumerate(st.hands):
            self.check_hand(kind, seat, hand)
            for r in range(NUM_RANKS):
                total[r] += hand[r]
            threes = hand[RED_THREE] + hand[BLACK_THREE]
            team = st.team_of[seat]
            if st.opened[team] and self.threes_at_open[seat] is None:
                self.threes_at_open[seat] = threes
            # While threes are being laid (dealt ones, a wing's, their replacements) a hand may hold several.
            if not self.prelude_done or three_event:
                continue
            if threes > 1:
                self.fail(kind, f"seat {seat} holds {threes} threes")
            if threes:
                self.held.add(seat)
                if self.must_be_clear[seat]:
                    self.fail(kind, f"seat {seat} still holds a three after a turn start with team {team} opened")
                at_open = self.threes_at_open[seat]
                if at_open is not None and threes > at_open:
                    self.fail(kind, f"seat {seat} took a three into its hand after team {team} opened")
        for c in st.pile:
            total[c] += 1
        for wing in (*st.wings, *st.wings_void):
            for r in range(NUM_RANKS):
                total[r] += wing[r]
        for wing in st.wing_pending:
            if wing is not None:
                for r in range(NUM_RANKS):
                    total[r] += wing[r]
        for r in range(NUM_RANKS):
            total[r] += self.special_cards[r]
        for team, team_melds in enumerate(st.melds):
            key = tuple(None if m is None else (m[0], m[1], m[2]) for m in team_melds)
            cached = self.meld_cache.get((team, key))
            if cached is None:
                cached = self.meld_cache[(team, key)] = self._judge(key)
            err, canastas = cached
            if err:
                self.fail(kind, f"team {team}: {err}")
            if {x: n for x, n in st.canastas[team].items() if n} != canastas:
                self.fail(kind, f"team {team}: st.canastas {st.canastas[team]} != {canastas}")
            for rank, m in enumerate(key):
                if m is not None:
                    total[rank] += m[0]
                    total[TWO] += m[1]
                    total[JOKER] += m[2]
            seats = st.members(team)
            if sum(st.red_threes_by_seat[s] for s in seats) != st.red_threes[team] or \
                    sum(st.black_threes_by_seat[s] for s in seats) != st.black_threes[team]:
                self.fail(kind, f"team {team}: threes laid {st.red_threes[team]}/{st.black_threes[team]} do not "
                                f"match its seats' {st.red_threes_by_seat}/{st.black_threes_by_seat}")
        total[RED_THREE] += sum(st.red_threes)
        total[BLACK_THREE] += sum(st.black_threes)
        self.check_pack(kind, total)

    def _judge(self, key: tuple[Any, ...]) -> tuple[str | None, dict[str, int]]:
        canastas: Counter[str] = Counter()
        for rank, m in enumerate(key):
            if m is None:
                continue
            natural_or_wild = rank == WILD_MELD or rank in NATURAL_RANKS
            problem = meld_problem(rank, m, self.cap) if natural_or_wild else "a meld of threes/2s"
            engine = meld_error(self.rules, rank, *m, new=True, over_cap=self.cap - 7)
            if problem or engine:
                return f"illegal meld of {rank_name(rank)} {m}: {problem or engine}", {}
            kind = classify(rank, m)
            if kind:
                canastas[kind] += 1
        return None, dict(canastas)

    # ------------------------------------------------------------------ event by event
    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        st = self.st
        stats = self.stats
        if kind == "deal":
            minimum = [opening_minimum(score) for score in st.team_scores]
            if st.minimum != minimum:
                self.fail(kind, f"opening minimums {st.minimum} for team scores {st.team_scores}, expected {minimum}")
            if st.pile or st.hand_sizes != [self.rules.hand_size] * st.n_players:
                self.fail(kind, f"dealt hands {st.hand_sizes}, pile {st.pile}")
            if [sum(w) for w in st.wings] != list(self.rules.wing_sizes):
                self.fail(kind, f"wings of {[sum(w) for w in st.wings]} cards set aside")
        elif kind == "decision" and data["kind"] == "hold_three":
            # asked about a dealt or drawn three: during the dealt prelude it is not the seat's turn
            stats[f"hold_three_{data['value']['hold']}"] += 1
            if data["value"]["card"] not in ("R3", "B3") or st.opened[st.team_of[data["seat"]]]:
                self.fail(kind, f"hold_three decision {data}: a three may be kept only before the team opens")
        elif kind == "decision":
            self.prelude_done = True
            seat = data["seat"]
            team = st.team_of[seat]
            if seat != st.current:
                self.fail(kind, f"seat {seat} decides during seat {st.current}'s turn")
            if data["kind"] == "draw":
                self.batch = None
                if st.wing_pending[seat] is not None:
                    self.fail(kind, f"seat {seat} draws before its wing joined the hand")
                if st.opened[team]:
                    self.must_be_clear[seat] = True
                if data["value"] != "stock":
                    stats["pile_take"] += 1
            elif data["kind"] == "melds":
                if isinstance(data["value"], dict) and self.last_kind != "special_hand":
                    self.fail(kind, f"special-hand decision line {data} after '{self.last_kind}'")
                self._close_batch(kind)
        elif kind == "take_pile":
            self._on_take(data)
        elif kind == "meld":
            self._on_meld(data)
        elif kind == "wing":
            self._on_wing(data)
        elif kind in ("red_three", "black_three"):
            seat = data["seat"]
            stats[f"three_{data['source']}"] += 1
            if data["source"] == "held" and not st.opened[st.team_of[seat]]:
                self.fail(kind, f"seat {seat} laid a held three before its team opened")
        elif kind == "special_hand":
            self._on_special(data)
        elif kind == "discard":
            self._on_discard(data)
        elif kind == "going_out":
            self._on_going_out(data)
        elif kind == "stock_out":
            self.ended_by = kind
            stats["stock_out"] += 1
            if st.stock:
                self.fail(kind, f"stock_out with {len(st.stock)} stock cards left")
        elif kind == "deal_scored" and self.ended_by is None:
            self.fail(kind, "scored before the deal ended")

    def _on_take(self, data: dict[str, Any]) -> None:
        """Emitted before any card moves: the state the take was judged on."""
        st = self.st
        kind = "take_pile"
        seat = data["seat"]
        team = st.team_of[seat]
        if not st.pile:
            self.fail(kind, "a take of an empty pile")
        top = st.pile[-1]
        if top not in NATURAL_RANKS:
            self.fail(kind, f"the pile taken with {RANK_NAMES[top]} on top")
        if self._canasta_of(top):
            self.fail(kind, f"the pile taken with dead rank {RANK_NAMES[top]} on top")
        if data["meld"]["naturals"] < 2:
            self.fail(kind, f"the (always frozen) pile taken without a natural pair: {data['meld']}")
        existing = st.melds[team][top]
        if existing is not None and sum(existing) > 4:
            self.fail(kind, f"the pile taken onto a meld of {sum(existing)} {RANK_NAMES[top]}")
        self.take_left = 1 + len({x["rank"] for x in data["extra"]})
        self.take_opening = not st.opened[team]
        self.batch = {"team": team, "seat": seat, "opening": self.take_opening, "value": 0, "how": "pile",
                      "stock": len(st.stock)}

    def _on_meld(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "meld"
        seat = data["seat"]
        team = st.team_of[seat]
        rank = rank_of(data["rank"])
        added = data["added"]
        m = st.melds[team][rank]
        if m is None or list(m) != list(data["meld"]):
            self.fail(kind, f"event meld {data['meld']} != state meld {m}")
        if seat != st.current:
            self.fail(kind, f"seat {seat} melds during seat {st.current}'s turn")
        before = sum(m) - added["naturals"] - added["twos"] - added["jokers"]
        if self.cap == 8 and before == 7 and sum(m) == 8:
            self.eighths.append((seat, st.turn))  # must be the going-out player's last melds (checked at the end)
            self.stats["eighth_card"] += 1
        elif rank != WILD_MELD:
            if before >= 7 or any(st.melds[t][rank] is not None and sum(st.melds[t][rank]) >= 7
                                  for t in range(st.n_teams) if t != team):
                self.fail(kind, f"a meld of dead rank {RANK_NAMES[rank]} {'added to' if before else 'started'}")
        if self.take_left:
            self.take_left -= 1
            batch = self.batch
            assert batch is not None
        else:
            if self.batch is None or self.batch["how"] == "pile":
                self._close_batch(kind)  # a take's batch ends where the turn's own melds begin
                self.batch = {"team": team, "seat": seat, "opening": not st.opened[team], "value": 0,
                              "how": "hand", "stock": len(st.stock)}
            batch = self.batch
        batch["value"] += added["naturals"] * CARD[rank] + 20 * added["twos"] + 50 * added["jokers"]
        wilds = added["twos"] + added["jokers"]
        if rank == ACE and wilds and not batch["opening"]:
            self.fail(kind, f"wild cards added to aces outside team {team}'s opening: {data['meld']}")
        if rank == ACE and wilds:
            self.stats["aces_with_wilds_in_opening"] += 1
        if before >= 1 and before < 7 and sum(m) >= 7 and rank != WILD_MELD:
            self.stats["canasta_completed"] += 1

    def _close_batch(self, kind: str) -> None:
        batch = self.batch
        if batch is None or batch.get("closed"):
            return
        batch["closed"] = True
        st = self.st
        team = batch["team"]
        if not batch["opening"]:
            return
        if batch["value"] < st.minimum[team]:
            self.fail(kind, f"team {team} opened with {batch['value']} points, minimum {st.minimum[team]}")
        if not st.opened[team]:
            self.fail(kind, f"team {team} melded but is not marked opened")
        self.opened_how[team] = batch["how"]
        self.stock_at_open[team] = batch["stock"]
        self.stats[f"opened_via_{batch['how']}"] += 1
        others = sum(1 for seat, _, _ in self.wing_events if st.team_of[seat] != team)
        used = others + self.forfeited  # wings already given or forfeited before this opening
        expect_wing = batch["how"] == "hand" and batch["stock"] > 8 and used < len(self.rules.wing_sizes)
        if batch["how"] == "pile" and used < len(self.rules.wing_sizes) and \
                self.rules.wing_after_pile_opening == "THREE":
            self.forfeited += 1  # A-AM-4b: the wing this opening would have taken is not given
            self.stats["wing_forfeited"] += 1
        if expect_wing != (team in self.wing_teams):
            self.fail(kind, f"team {team} opened via {batch['how']} with {batch['stock']} stock cards: "
                            f"wing expected {expect_wing}, wings given {self.wing_events}")
        if not expect_wing:
            self.stats["wing_denied_pile" if batch["how"] == "pile" else "wing_denied_late"] += 1

    def _on_wing(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "wing"
        seat, team = data["seat"], data["team"]
        batch = self.batch
        if batch is None or batch["seat"] != seat or not batch["opening"] or batch["how"] != "hand":
            self.fail(kind, f"a wing for seat {seat}, who did not just open team {team} from the hand ({batch})")
        if team in self.wing_teams:
            self.fail(kind, f"a second wing for team {team}")
        if len(st.stock) <= 8:
            self.fail(kind, f"a wing with {len(st.stock)} stock cards left")
        size = self.rules.wing_sizes[len(self.wing_events) + self.forfeited]
        if data["cards"] != size:
            self.fail(kind, f"wing {len(self.wing_events) + 1} of {data['cards']} cards, expected {size}")
        self.wing_events.append((seat, data["cards"], st.turn))
        self.wing_teams.add(team)
        self.stats["wing"] += 1

    def _on_special(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "special_hand"
        seat = data["seat"]
        if seat != st.current or st.opened[st.team_of[seat]]:
            self.fail(kind, f"special hand by seat {seat} (current {st.current}, opened {st.opened})")
        cards = counts_of(parse_cards(data["cards"]))
        problem = special_problem(data["kind"], cards)
        if problem or data["kind"] not in self.rules.special_hands:
            self.fail(kind, problem or f"{data['kind']} is not allowed")
        if st.hand_sizes[seat] > 1:
            self.fail(kind, f"seat {seat} keeps {st.hand_sizes[seat]} cards after its special hand")
        self.special_cards = cards
        self.stats[f"special_{data['kind']}"] += 1

    def _on_discard(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "discard"
        seat = data["seat"]
        card = RANK_NAMES.index(data["card"])
        hand = st.hands[seat]
        out = st.hand_sizes[seat] == 0
        naturals = [r for r in NATURAL_RANKS if hand[r]]
        if st.special_hand is not None or out:
            return
        if card in (RED_THREE, BLACK_THREE):
            self.fail(kind, f"seat {seat} discarded a three without going out")
        if card in (TWO, JOKER) and naturals:
            self.fail(kind, f"seat {seat} discarded a wild card while holding {[RANK_NAMES[r] for r in naturals]}")
        lifted = LIFTS.index(data["bar_lifted"]) + 1 if "bar_lifted" in data else 0
        if card in (ACE, SEVEN) and len(st.pile) == 1 and any(r not in (ACE, SEVEN) for r in naturals) and lifted < 2:
            self.fail(kind, f"seat {seat} discarded {RANK_NAMES[card]} on an empty pile holding other naturals")
        if self.rules.empty_pile_no_dead_card and len(st.pile) == 1:
            self._check_lift(seat, card, lifted)
        elif lifted:
            self.fail(kind, f"bar_lifted {data['bar_lifted']} without empty_pile_no_dead_card on an empty pile")

    def _barred(self, before: Sequence[int], card: int, lifted: int) -> bool:
        """Whether a discard of ``card`` from the hand ``before`` is barred on an empty pile with the first ``lifted``
        bars of A-AM-4d lifted (dead rank, then A/7); threes and wild cards as the §2.3 restrictions say."""
        naturals = [r for r in NATURAL_RANKS if before[r]]
        if card in (RED_THREE, BLACK_THREE):
            return True
        if card in (TWO, JOKER):
            return bool(naturals)
        if lifted < 1 and self._canasta_of(card):
            return True
        return lifted < 2 and card in (ACE, SEVEN) and any(r not in (ACE, SEVEN) for r in naturals)

    def _check_lift(self, seat: int, card: int, lifted: int) -> None:
        """RULES.md A-AM-4d: bars lift, in order, only as far as needed for some card in the hand to be discardable."""
        before = list(self.st.hands[seat])
        before[card] += 1
        held = [r for r in range(NUM_RANKS) if before[r]]
        needed = next((k for k in range(len(LIFTS) + 1) if any(not self._barred(before, r, k) for r in held)), None)
        if needed != lifted or self._barred(before, card, lifted):
            self.fail("discard", f"seat {seat} discarded {RANK_NAMES[card]} with {lifted} bars lifted; the hand "
                                 f"{[RANK_NAMES[r] for r in held]} needed {needed}")
        if lifted:
            self.stats[f"lifted_{LIFTS[lifted - 1]}"] += 1

    def _on_going_out(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "going_out"
        self.ended_by = kind
        seat = data["seat"]
        team = st.team_of[seat]
        if seat != st.current or st.hand_sizes[seat]:
            self.fail(kind, f"seat {seat} went out (current {st.current}, hand sizes {st.hand_sizes})")
        discarded = self.last_kind == "discard" and self.last_seat == seat
        if st.special_hand is not None:
            if not (discarded or self.last_kind == "decision"):  # the special hand's decision(melds) line
                self.fail(kind, f"going out after '{self.last_kind}' with a special hand")
            self.stats["out_special_hand"] += 1
            return
        if sum(st.canastas[team].values()) < 2:
            self.fail(kind, f"team {team} went out with canastas {st.canastas[team]}")
        if any(e != (seat, st.turn) for e in self.eighths):
            self.fail(kind, f"8th cards laid by {self.eighths}, but seat {seat} went out in turn {st.turn}")
        self.eighths = []
        if discarded:
            self.stats["out_with_discard"] += 1
        else:
            self.fail(kind, f"seat {seat} went out without a discard (last event '{self.last_kind}')")

    def _canasta_of(self, rank: int) -> bool:
        return any(m[rank] is not None and sum(m[rank]) >= 7 for m in self.st.melds)

    # ------------------------------------------------------------------ end of deal
    def finish(self, result: DealResult) -> None:
        st = self.st
        kind = "finish"
        stats = self.stats
        if self.eighths:
            self.fail(kind, f"8th cards laid by {self.eighths} without going out")
        self.finish_common(result)
        out_team = None
        if result.end_reason == "went_out":
            stats["going_out"] += 1
            seat = result.went_out_seat
            if seat is None or st.hand_sizes[seat]:
                self.fail(kind, f"went out with seat {seat}, hand sizes {st.hand_sizes}")
            out_team = st.team_of[seat]
        elif result.went_out_seat is not None or st.special_hand is not None:
            self.fail(kind, "a stock-out with a player gone out")
        if result.special_hand != st.special_hand or (st.special_hand is None) != (sum(self.special_cards) == 0):
            self.fail(kind, f"result.special_hand {result.special_hand}, state {st.special_hand}")
        if result.black_threes != st.black_threes or result.red_threes != st.red_threes:
            self.fail(kind, f"result threes {result.red_threes}/{result.black_threes}")
        if result.wings != self.wing_events or result.wings != st.wing_log:
            self.fail(kind, f"result.wings {result.wings} but the wing events were {self.wing_events}")
        dead = sum(1 for r in range(FOUR, ACE + 1) if self._canasta_of(r))
        if result.dead_ranks != dead:
            self.fail(kind, f"result.dead_ranks {result.dead_ranks}, counted {dead}")
        stats["dead_ranks"] += dead
        stats["held_three"] += len(self.held)
        self.check_score_sums(kind, result)
        for team, score in enumerate(result.scores):
            expected = expected_parts(st, team, out_team)
            got = {p: v for p, v in score.items() if p != "total" and v}
            if got != expected:
                self.fail(kind, f"team {team}: score parts {got} != recomputed {expected}")
            if (st.special_hand is not None and team == out_team and self.rules.special_hand_overrides_team_score
                    and score["total"] != SPECIAL_VALUE[st.special_hand]):
                self.fail(kind, f"team {team}: special hand {st.special_hand} scored {score['total']}")
            stats["points"] += score["total"]


# ---------------------------------------------------------------------------------------------- driving deals
PACK = deck_cards(AMERICANA.decks, AMERICANA.jokers_per_deck)


def play_checked(rules: Any, seat_mixes: Sequence[Sequence[str]], seed: int, deals: int, stats: Counter[str],
                 first: int = 0) -> int:
    """Play ``deals`` deals (game indices ``first``...) under the checker, cycling strategies and team totals."""
    for i in range(first, first + deals):
        names = list(seat_mixes[i % len(seat_mixes)])
        totals = list(TOTALS[i % len(TOTALS)])
        st = prepare_deal(rules, PACK, deal_rng(seed, i), 0, i % rules.num_players, totals)
        checker = AmChecker(st, stats, where=f"{','.join(names)} draw {rules.draw_count} seed {seed} game {i}:")
        play_deal(checker, make_strategies(names, seed, i), GameContext(game_index=i, seed=seed))
    return deals


#: What random play must reach (over the default sample); held threes need a strategy that holds them.
RANDOM_REACHES = ("wing", "pile_take", "going_out", "stock_out", "out_with_discard", "three_dealt", "three_stock",
                  "three_wing", "three_replacement", "wing_denied_pile", "wing_forfeited", "wing_denied_late",
                  "dead_ranks", "opened_via_hand", "opened_via_pile", "aces_with_wilds_in_opening",
                  "canasta_completed")


# ---------------------------------------------------------------------------------------------- default sample
#: (label, rules, seat mixes, seed, deals): 1,000 all-random deals, then draw 2 and greedy/americana seats.
SAMPLE = [("random", AMERICANA, [R4], 11, 1000), ("draw2", DRAW2, [R4], 12, 120),
          ("mixed", AMERICANA, MIXED_SEATS, 13, 160), ("mixed-draw2", DRAW2, MIXED_SEATS, 14, 60)]


@pytest.fixture(scope="module")
def sample() -> Counter[str]:
    """1,340 checked deals (about 15 s): every invariant after every event of each."""
    out: Counter[str] = Counter()
    for label, rules, mixes, seed, deals in SAMPLE:
        stats: Counter[str] = Counter()
        t0 = time.perf_counter()
        play_checked(rules, mixes, seed, deals, stats)
        report(label, stats, t0)
        out.update({f"{label}.{k}": v for k, v in stats.items()})
    return out


def test_sample_keeps_every_invariant(sample: Counter[str]) -> None:
    for label, _, _, _, deals in SAMPLE:
        assert sample[f"{label}.deals"] == deals
        assert sample[f"{label}.going_out"] + sample[f"{label}.stock_out"] == deals
    assert sample["random.deals"] >= 1000


@pytest.mark.parametrize("move", RANDOM_REACHES)
def test_random_play_reaches(sample: Counter[str], move: str) -> None:
    assert sample[f"random.{move}"] > 0, f"random play never reached '{move}': {dict(sample)}"


def test_random_play_loses_points(sample: Counter[str]) -> None:
    """The penalties for incomplete aces/sevens/wild melds make random play lose about 1,500 a deal (per team)."""
    per_team = sample["random.points"] / (2 * sample["random.deals"])
    print(f"\nrandom play: {per_team:+.0f} points per team and deal")
    assert per_team < -500


def test_strategies_hold_threes_and_draw_two_goes_out(sample: Counter[str]) -> None:
    """Random never holds a three (its hook says no); americana holds one near a straight. Draw 2 goes out too."""
    assert sample["random.held_three"] == 0 and sample["random.three_held"] == 0
    assert sample["mixed.held_three"] + sample["mixed-draw2.held_three"] > 0, dict(sample)
    assert sample["mixed.three_held"] > 0
    assert sample["draw2.going_out"] + sample["mixed-draw2.going_out"] > 0 and sample["draw2.wing"] > 0


# ---------------------------------------------------------------------------------------------- engine mutants
def _no_canasta(self: DealState, rank: int) -> bool:
    return False


MUTANTS = {
    # discard restrictions ignored: random discards threes, wild cards, aces/sevens on an empty pile
    "no-discard-restrictions": ([("simcli.engine.deal.discard_error", lambda *a: None),
                                 ("simcli.engine.view.discard_error", lambda *a: None)], "discarded"),
    # closed ranks stay open: melds of dead ranks, takes with a dead rank on top
    "no-dead-ranks": ([("simcli.engine.state.DealState.rank_has_canasta", _no_canasta)], "dead.rank"),
    # threes scored without the canasta sign
    "threes-always-plus": ([("simcli.engine.scoring.american_threes", lambda rules, count, canastas: 100 * count)],
                           "score parts"),
    # every three drawn is kept, whether the team opened or not
    "keep-every-three": ([("simcli.engine.features.threes.may_hold_three", lambda eng, seat, rank: True)], "three"),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_checker_catches_engine_mutants(mutant: str) -> None:
    """Each broken engine is caught within 200 random deals, with the expected complaint."""
    patches, message = MUTANTS[mutant]
    with ExitStack() as stack:
        for target, replacement in patches:
            stack.enter_context(mock.patch(target, replacement))
        with pytest.raises(InvariantError, match=message):
            play_checked(AMERICANA, [R4], 5, 200, Counter())


@pytest.mark.parametrize(("knobs", "message"), [
    ({"closed_rank_dead_for_all": False, "closed_rank_blocks_pile": False}, "dead rank"),
    ({"wild_rule": "PAGAT", "max_wilds_per_meld": 3}, "W <= 2"),
    ({"sevens_wilds_allowed": True}, "wild cards among sevens"),
    ({"mixed_aces_only_in_opening": False}, "wild cards added to aces outside"),
    ({"go_out_requirement": "ANY:1"}, "went out with canastas"),
    ({"wing_denied_if_opened_via_pile": False}, "a wing for seat"),
    ({"wing_cutoff_stock_remaining": "null"}, "stock cards left"),
    ({"meld_max_size": "null"}, "above the cap of 7"),
    ({"initial_meld_table": "AM_MODERN_2020S"}, "opening minimums"),
], ids=lambda x: ",".join(x) if isinstance(x, dict) else None)
def test_checker_catches_an_engine_playing_other_rules(knobs: dict[str, Any], message: str) -> None:
    """The checker reads §2.3, not the knobs: deals played under other knob values break its invariants."""
    rules = load_rules("americana", knobs)
    with pytest.raises(InvariantError, match=message):
        play_checked(rules, [R4], 6, 300, Counter())


# ---------------------------------------------------------------------------------------------- special hands
#: 13 dealt cards + the first stock card make each special hand (the seed's examples).
SPECIAL = {
    "STRAIGHT": ("A 2 B3 4 5 6 7 8 9 10 J Q K", "JK"),
    "PAIRS_NATURAL": ("4 4 5 5 7 7 8 8 9 9 10 10 Q", "Q"),
    "PAIRS_WITH_2_7_A": ("2 2 6 6 7 7 9 9 J J K K A", "A"),
    "GARBAGE": ("4 4 4 6 6 6 6 J J J J A A", "A"),
}


@pytest.mark.parametrize("draw_count", [1, 2])
@pytest.mark.parametrize("kind", list(SPECIAL))
def test_special_hand_in_checked_play(kind: str, draw_count: int) -> None:
    """Stacked decks: the americana strategy lays the special hand (holding the straight's three) under the checker.

    With draw 2 it holds 15 cards, lays 14 and discards one; with draw 1 it goes out without a discard.
    """
    rules = load_rules("americana", {"draw_count": draw_count})
    hand, draw = SPECIAL[kind]
    stats: Counter[str] = Counter()
    for seed in range(3):
        deck = stack_am_deck(rules, hands={0: hand}, stock=draw + " 5")
        st = new_deal(rules, deck, 3, 0, [0, 0], cut_count=0)
        checker = AmChecker(st, stats, where=f"{kind} draw {draw_count}:")
        names = ["americana", "random", "random", "random"]
        result = play_deal(checker, make_strategies(names, seed, 0))
        assert result.special_hand == kind and result.went_out_seat == 0 and result.turns == 1
        assert result.scores[0]["total"] == SPECIAL_VALUE[kind]
        assert (st.pile != []) == (draw_count == 2)
    assert stats[f"special_{kind}"] == 3 and stats["out_special_hand"] == 3
    assert stats["held_three"] == (3 if kind == "STRAIGHT" else 0)


# ---------------------------------------------------------------------------------------------- the checker can fail
def _fresh(rules: Any = AMERICANA) -> tuple[DealState, AmChecker]:
    st = prepare_deal(rules, PACK, deal_rng(1, 0), 0, 3, [0, 0])
    checker = AmChecker(st, Counter())
    checker("deal", {})
    return st, checker


def test_checker_catches_lost_cards_and_a_lost_wing() -> None:
    st, checker = _fresh()
    st.wings[1][next(r for r in range(NUM_RANKS) if st.wings[1][r])] -= 1
    with pytest.raises(InvariantError, match="cards not accounted for"):
        checker("cut", {})
    st, checker = _fresh()
    st.wing_pending[0] = st.wings.pop(0)
    checker("cut", {})  # a pending wing is still accounted for
    st.wing_pending[0] = None
    with pytest.raises(InvariantError, match="cards not accounted for"):
        checker("cut", {})
    st, checker = _fresh()
    st.black_threes[1] += 1
    with pytest.raises(InvariantError, match="threes laid"):
        checker("cut", {})


@pytest.mark.parametrize(("rank", "meld", "message"), [
    (SEVEN, [4, 1, 0], "wild cards among sevens"),
    (9, [3, 2, 1], "W <= 2"),
    (9, [6, 1, 1], "above the cap of 7"),
    (WILD_MELD, [0, 1, 1], "fewer than 3"),
])
def test_checker_catches_an_illegal_meld(rank: int, meld: list[int], message: str) -> None:
    st, checker = _fresh()
    st.opened[0] = True
    st.melds[0][rank] = meld
    with pytest.raises(InvariantError, match=message):
        checker("meld", {"seat": st.current, "rank": rank_name(rank),
                         "added": {"naturals": meld[0], "twos": meld[1], "jokers": meld[2]}, "meld": meld})


def test_checker_catches_a_dead_rank_and_wilds_on_aces_after_opening() -> None:
    st, checker = _fresh()
    st.melds[1][9] = [7, 0, 0]
    st.melds[0][9] = [3, 0, 0]
    with pytest.raises(InvariantError, match="dead rank 9 started"):
        checker.on_event("meld", {"seat": st.current, "rank": "9", "added": {"naturals": 3, "twos": 0, "jokers": 0},
                                  "meld": [3, 0, 0]})
    st, checker = _fresh()
    st.opened[0] = True
    st.melds[0][ACE] = [3, 1, 0]
    with pytest.raises(InvariantError, match="wild cards added to aces outside"):
        checker.on_event("meld", {"seat": st.current, "rank": "A", "added": {"naturals": 0, "twos": 1, "jokers": 0},
                                  "meld": [3, 1, 0]})


def test_checker_catches_a_kept_three_and_a_short_going_out() -> None:
    st, checker = _fresh()
    seat = st.current
    hand = st.hands[seat]
    hand[BLACK_THREE] = hand[RED_THREE] = 0  # make it a hand of 13 without threes
    st.hand_sizes[seat] = sum(hand)
    checker.prelude_done = True
    checker.must_be_clear[seat] = True
    hand[BLACK_THREE] += 1
    st.hand_sizes[seat] += 1
    with pytest.raises(InvariantError, match="still holds a three"):
        checker.check_state("discard", {})
    st, checker = _fresh()
    st.hand_sizes[st.current] = 0
    checker.last_kind, checker.last_seat = "discard", st.current
    with pytest.raises(InvariantError, match="went out with canastas"):
        checker.on_event("going_out", {"seat": st.current})


def test_checker_catches_a_short_opening() -> None:
    st, checker = _fresh()
    st.minimum = [50, 50]
    checker.batch = {"team": 0, "seat": 0, "opening": True, "value": 45, "how": "hand", "stock": 40}
    with pytest.raises(InvariantError, match="opened with 45 points, minimum 50"):
        checker._close_batch("decision")
    assert [opening_minimum(x) for x in (-5, 0, 1495, 1500, 2995, 3000, 4995, 5000)] == [
        15, 50, 50, 90, 90, 120, 120, 150]


def test_checker_catches_a_wrong_score() -> None:
    st, checker = _fresh()
    st.melds[0][ACE] = [3, 0, 0]  # incomplete pure aces: -2500
    parts = expected_parts(st, 0, None)
    assert parts == {"incomplete_melds": -2500, "melded": -60, "hand": parts["hand"]}
    st.special_hand = "GARBAGE"
    assert expected_parts(st, 0, 0) == {"special_hand": 2000}
    assert threes_part(3, 0) == -500 and threes_part(2, 1) == 0 and threes_part(4, 2) == 1000
    assert bonus("WILD", (0, 7, 0)) == 3000 and bonus("WILD", (0, 3, 4)) == 2500 and bonus("WILD", (0, 4, 3)) == 2000
    assert special_problem("STRAIGHT", counts_of(parse_cards("A 2 R3 4 5 6 7 8 9 10 J Q K JK"))) is None
    assert special_problem("STRAIGHT", counts_of(parse_cards("A 2 R3 4 5 6 7 8 9 10 J Q Q JK")))
    assert special_problem("GARBAGE", counts_of(parse_cards("4 4 4 4 6 6 6 6 J J J A A A"))) is None
    assert special_problem("GARBAGE", counts_of(parse_cards("4 4 4 4 6 6 6 6 J J J 2 2 2")))


# ---------------------------------------------------------------------------------------------- more deals
@pytest.mark.slow
def test_slow_five_thousand_random_deals() -> None:
    stats: Counter[str] = Counter()
    t0 = time.perf_counter()
    play_checked(AMERICANA, [R4], 2024, 5000, stats)
    report("random x4, draw 1", stats, t0)
    assert stats["deals"] == 5000 and stats["going_out"] + stats["stock_out"] == 5000
    for move in RANDOM_REACHES:
        assert stats[move] > 0, f"no '{move}' in {dict(stats)}"


@pytest.mark.slow
@pytest.mark.parametrize(("rules", "mixes", "deals"), [(DRAW2, [R4], 1000), (AMERICANA, MIXED_SEATS, 1000),
                                                       (DRAW2, MIXED_SEATS, 500)],
                         ids=["draw2-random", "draw1-mixed", "draw2-mixed"])
def test_slow_more_deals(rules: Any, mixes: list[list[str]], deals: int) -> None:
    stats: Counter[str] = Counter()
    t0 = time.perf_counter()
    play_checked(rules, mixes, 4048, deals, stats)
    report(f"draw {rules.draw_count} {mixes[0]}", stats, t0)
    assert stats["going_out"] + stats["stock_out"] == deals and stats["going_out"] > 0 and stats["wing"] > 0
    if mixes is MIXED_SEATS:
        assert stats["held_three"] > 0 and stats["three_held"] > 0
