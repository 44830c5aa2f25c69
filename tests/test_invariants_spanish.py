"""Spanish Canasta (juego) engine invariants over random (and some greedy) play, event by event, in every mode.

Whole games are played with :func:`simcli.players.seating.play_game` (capped with ``max_hands``: random play loses
points and would never reach 5000) while a :class:`SpanishChecker` sits between each deal and its ``emit`` listener. It
sees the live :class:`~simcli.engine.state.DealState` after every event and checks, from RULES.md §1 and §2.4 written
out
again here (not from the knobs), that

* the table is the mode's: 2 decks (108 cards) below 6 players, 4 decks (216) with 6; 15 cards each; teams
  alternate (``seat % n_teams``); play runs to the dealer's right (CCW) and starts at the dealer's right;
* the montón is 6 face-down cards + 1 upcard, plus 1 face-down + 1 upcard for every premio (A, 2, 7, JK) turned,
  all in deck order after the hands; the pile is premiado iff a premio was turned; the dealer cuts (target 15 x P)
  and picks the montón (target 7), and each exact grab names the dealer's team;
* the hands are dealt one card at a time from the top, starting at the dealer's right; every card of the pack is
  somewhere (hands + stock + pile + team melds + laid red threes), the stock is the undrawn top of the shuffled
  deck, ``hand_sizes`` agree with the hands, a draw takes one card; dealt red threes are laid before play in
  playing order, the others at once, and no red three stays in a hand; those found in a taken pile are not
  replaced;
* every meld obeys STRICT_MAJORITY (N > W, W <= 3) at 3 to 7 cards; a wild meld holds only wild cards (3 to 7)
  and starts with at least 3; black threes are melded only as exactly 7, by the player going out;
  ``st.canastas`` and ``st.clean_canastas`` equal a recount made here (clean = no wild card; a wild canasta is
  clean when it is all twos or all jokers);
* a canasta is *hidden* exactly when a complete canasta of a natural rank appears as a new meld in one batch of
  melds from the hand (a meld decision, or the extra melds of a pile take; never the top card's meld);
* the pile is never taken with a non-natural card (B3, R3, wild) or a closed rank (a canasta of either team) on
  top; the first take of the deal and any take of a premiado or crossed (a wild discarded since the last take)
  pile needs a natural pair; in the first round only the first player takes the pile;
* a team's opening counts at least the minimum of the CLASSIC table for its score, unless it holds a hidden
  canasta;
* going out needs >= 1 clean and >= 1 dirty canasta and never happens in the turn in which the team completed its
  first clean canasta; the quick-finish and terremoto flags are what the events show;
* a strategy's view shows only public information: at sampled decisions the hidden cards (other hands, the stock
  order, the pile below its top) are dealt again and every seat's view must stay the same (the harness of
  ``tests/test_view.py``).

At the end of each deal every score part is recomputed from the end state with the §2.4 values by the code
here, the parts must add up to the total, and the DealResult's Spanish fields must match the events. After each
game the records (``simcli.runs.records.deal_rows`` / ``game_row``) must agree with the events, the totals must add up
deal by deal, the dealer must move to the right, and the game must end exactly when §1.13 says.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any
from unittest import mock

import numpy as np
import pytest
from helpers import Scripted, meld
from invariant_harness import DealChecker, InvariantError, play_games, rank_name, rank_of, report
from invariant_harness import checking as checking_with
from test_view import assert_same_view, clone, rehide

import simcli.engine.game
import simcli.runs.records
from simcli.engine.deal import DealResult, new_deal
from simcli.engine.game import GameResult, prepare_deal
from simcli.engine.scoring import SCORE_PARTS
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.primitives.cards import (
    ACE,
    BLACK_THREE,
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
    deck_counts,
)
from simcli.primitives.seeding import deal_rng, first_dealer
from simcli.rules.presets import load_rules
from simcli.runs.records import deal_rows, game_row
from simcli.strategy import Strategy

#: The modes of §2.4: (players, team size).
MODES = {"2x1": (2, 1), "3x1": (3, 1), "4x1": (4, 1), "4x2": (4, 2), "6x3": (6, 3)}
MAX_HANDS = 4


def spanish(mode: str, **knobs: Any) -> Any:
    """The Spanish preset in ``mode``, games capped at MAX_HANDS deals, with knob overrides."""
    n, k = MODES[mode]
    return load_rules("spanish", {"num_players": n, "team_size": k, "max_hands": MAX_HANDS, **knobs})


# ---------------------------------------------------------------------------------------------- §2.4 written out
#: Card values of RULES.md §1.3 (a black three melded by the player going out counts 5).
VALUE = {"JK": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
         "7": 5, "6": 5, "5": 5, "4": 5, "B3": 5, "R3": 0}
CARD = [VALUE[name] for name in RANK_NAMES]
ALL_RANKS = range(NUM_RANKS)
B3_IN_HAND = -100  # A-ES-17
PREMIOS = frozenset((ACE, TWO, SEVEN, JOKER))
FACEDOWN, UPCARDS = 6, 1
HAND = 15
GAME_TARGET = 5000
LIMPIA, SUCIA, WILD_LIMPIA, WILD_SUCIA, HIDDEN = 500, 300, 3000, 2000, 1000
CLOSING, QUICK_FINISH, EXACT_CUT, EXACT_PICK = 200, 300, 100, 700


def classify(rank: int, m: Sequence[int]) -> str | None:
    """The canasta type of a meld (RULES.md §1.5 for Spanish: WILD, NATURAL or MIXED; sevens are ordinary)."""
    n, tw, jk = m
    if n + tw + jk < 7 or rank == BLACK_THREE:
        return None
    if rank == WILD_MELD:
        return "WILD"
    return "NATURAL" if tw + jk == 0 else "MIXED"


def clean(rank: int, m: Sequence[int]) -> bool:
    """A canasta is *limpia* with no wild card; a wild canasta when it is all twos or all jokers (A-ES-11)."""
    if rank == WILD_MELD:
        return m[1] == 0 or m[2] == 0
    return m[1] + m[2] == 0


def meld_problem(rank: int, m: Sequence[int]) -> str | None:
    """Why a meld on the table breaks the §2.4 rules (checked independently of simcli.engine.melds)."""
    n, tw, jk = m
    size, w = n + tw + jk, tw + jk
    if min(m) < 0:
        return "a negative count"
    if size > 7:
        return f"{size} cards, above the cap of 7"
    if rank == WILD_MELD:
        return None if n == 0 and size >= 3 else "a wild meld with naturals or fewer than 3 cards"
    if rank == BLACK_THREE:
        return None if w == 0 and n == 7 else "a black-three meld that is not exactly 7 black threes"
    if rank not in NATURAL_RANKS:
        return f"a meld in the {RANK_NAMES[rank]} slot"
    if size < 3:
        return f"{size} cards, below 3"
    if w > 3 or n <= w:
        return f"{n} naturals with {w} wilds break STRICT_MAJORITY (N > W, W <= 3)"
    return None


def opening_minimum(score: int) -> int:
    """The opening table (A-ES-3, CLASSIC): <0: 15; 0-1495: 50; 1500-2995: 90; >= 3000: 120."""
    return 15 if score < 0 else 50 if score < 1500 else 90 if score < 3000 else 120


def expected_upcards(deck: Sequence[int], players: int) -> tuple[list[int], int]:
    """The upcards turned from a shuffled deck after the hands, and the montón's size (6 + 1, + 2 per premio)."""
    i = HAND * players + FACEDOWN
    up = []
    while True:
        card = deck[i]
        up.append(card)
        i += 1
        if card not in PREMIOS:
            break
        i += 1  # one more face-down card covers the premio
    return up, i - HAND * players


def expected_parts(st: DealState, team: int, out_team: int | None, hidden: Sequence[int], exact_cut: bool,
                   exact_pick: bool, quick: bool) -> dict[str, int]:
    """The non-zero score parts of ``team``, recomputed from the end state with the §2.4 values."""
    parts: Counter[str] = Counter()
    canastas = 0
    melded = 0
    for rank, m in enumerate(st.melds[team]):
        if m is None:
            continue
        n, tw, jk = m
        melded += n * CARD[rank] + 20 * tw + 50 * jk
        kind = classify(rank, m)
        if kind is None:
            continue
        canastas += 1
        if kind == "WILD":
            parts["canasta_wild"] += WILD_LIMPIA if clean(rank, m) else WILD_SUCIA
        elif rank in hidden:
            parts["canasta_hidden"] += HIDDEN  # replaces the 500/300 (A-ES-12)
        elif kind == "NATURAL":
            parts["canasta_natural"] += LIMPIA
        else:
            parts["canasta_mixed"] += SUCIA
    sign = 1 if canastas else -1
    parts["canasta_count"] = 500 * (canastas >= 5) + 2000 * (canastas >= 7)  # cumulative (A-ES-19)
    red = st.red_threes[team]
    every = 2 * len(st.deck) // 54  # 4 red threes with 2 decks, 8 with 4
    parts["red_threes"] = sign * ((800 if every == 4 else 1000) if red == every else 100 * red)
    dealer_team = st.dealer % st.n_teams
    if team == dealer_team:
        parts["exact_cut"] = sign * EXACT_CUT * exact_cut
        parts["exact_pick"] = sign * EXACT_PICK * exact_pick
    if team == out_team:
        parts["going_out"] = CLOSING
        parts["quick_finish"] = QUICK_FINISH * quick
    parts["melded"] = sign * melded
    for seat in range(team, st.n_players, st.n_teams):
        hand = st.hands[seat]
        parts["hand"] -= sum(n * CARD[r] for r, n in enumerate(hand) if r != BLACK_THREE)
        parts["hand"] += B3_IN_HAND * hand[BLACK_THREE]
    return {p: v for p, v in parts.items() if v}


# ---------------------------------------------------------------------------------------------- the checker
class SpanishChecker(DealChecker):
    """The ``emit`` listener of one Spanish deal: checks the state after every event, then forwards it."""

    def __init__(self, st: DealState, stats: Counter[str], forward: Any = None, where: str = "",
                 view_rng: np.random.Generator | None = None, view_rate: float = 0.0):
        p = self.p = st.n_players
        self.decks = 4 if p >= 6 else 2  # §2.4: the pack is the mode's, whatever the rules' ``decks`` say
        super().__init__(st, stats, forward, where, pack=deck_counts(self.decks, 2))
        self.view_rng = view_rng
        self.view_rate = view_rate
        t = self.t = p // self.rules.team_size
        self.team_of = tuple(s % t for s in range(p))
        self.team_scores = list(st.team_scores)
        self.dealer = st.dealer
        self.first_player = (st.dealer - 1) % p  # the first card goes to the dealer's right, who starts
        self.prelude_done = False
        self.meld_cache: dict[str, tuple[str | None, list[dict[str, int]], list[int], list[int]]] = {}
        self.melds_seen: list[list[list[int] | None]] = []
        self.judged = self._judge(st.melds, st.canastas[0])
        # Turns and seats, counted here.
        self.turn = 0
        self.seat: int | None = None
        self.seat_turns = [0] * p
        self.melded_before: set[int] = set()  # seats that melded in an earlier turn
        self.melded_now = False
        self.drew_stock = False
        # The pile.
        self.premiado = False
        self.takes = 0
        self.premiado_end: int | None = None
        self.crossed_since: int | None = None
        self.crossed: list[tuple[int, int]] = []
        self.cut_exact = False
        self.pick_exact = False
        self.pick_seen = False
        # Canastas and melds.
        self.first_clean: list[int | None] = [None] * t
        self.hidden: list[list[int]] = [[] for _ in range(t)]
        self.expect_canasta: tuple[int, int, bool] | None = None  # (team, rank, hidden) of the next canasta event
        self.b3_melds: list[tuple[int, int, int]] = []  # (seat, team, turn)
        self.opened = [False] * t
        self.take_left = 0
        self.stock_at_take: int | None = None
        self.dealt_position = 0
        self.batch: dict[str, Any] | None = None
        self.out: dict[str, Any] | None = None
        self.records: dict[int, dict[str, Any]] = {}
        self.parts: list[dict[str, int]] = []

    def _minimum(self, score: int) -> int:
        """The opening minimum: A-ES-3's table by team score, or under ``initial_meld_basis=DEAL_NUMBER`` a by-deal
        table, 50/90/120/150 over deals 1 to 4 (A-X-6)."""
        if self.rules.initial_meld_basis == "DEAL_NUMBER":
            return (50, 90, 120, 150)[min(self.st.deal_index, 3)]
        return opening_minimum(score)

    def before_event(self, kind: str, data: dict[str, Any]) -> None:
        super().before_event(kind, data)
        if self.expect_canasta is not None and kind != "canasta":
            team, rank, _ = self.expect_canasta
            self.fail(kind, f"no canasta event after team {team}'s meld of {rank_name(rank)} became a canasta")

    # ------------------------------------------------------------------ after every event
    def check_state(self, kind: str, data: dict[str, Any] | None = None) -> None:
        st = self.st
        in_stock = self.stock_counts(kind)
        hands = st.hands
        # The hands are checked all at once (not with check_hand seat by seat): this is the busiest checker.
        if list(map(sum, hands)) != st.hand_sizes:
            self.fail(kind, f"hand_sizes {st.hand_sizes} but the hands hold {list(map(sum, hands))}")
        if min(map(min, hands)) < 0:
            self.fail(kind, f"a negative count in a hand: {hands}")
        if self.prelude_done and any(h[RED_THREE] for h in hands):
            self.fail(kind, f"a red three kept in hand: {[h[RED_THREE] for h in hands]}")
        if st.melds != self.melds_seen:  # judged again only when the melds changed (compared in full)
            self.melds_seen = [[None if m is None else list(m) for m in team] for team in st.melds]
            key = str(st.melds)
            cached = self.meld_cache.get(key)
            if cached is None:
                cached = self.meld_cache[key] = self._judge(st.melds, st.canastas[0])
            self.judged = cached
        err, canastas, n_clean, cards = self.judged
        if err:
            self.fail(kind, err)
        if st.canastas != canastas:
            self.fail(kind, f"st.canastas {st.canastas} != recounted {canastas}")
        if st.clean_canastas != n_clean:
            self.fail(kind, f"st.clean_canastas {st.clean_canastas} != recounted {n_clean}")
        if st.first_clean_turn != self.first_clean:
            self.fail(kind, f"first_clean_turn {st.first_clean_turn}, the events say {self.first_clean}")
        by_seat = st.red_threes_by_seat
        laid = [sum(by_seat[team::self.t]) for team in range(self.t)]
        if laid != st.red_threes:
            self.fail(kind, f"red_threes {st.red_threes} but the seats of each team laid {laid}")
        pile = st.pile
        total = list(map(sum, zip(in_stock, map(pile.count, ALL_RANKS), cards, *hands, strict=True)))
        total[RED_THREE] += sum(st.red_threes)
        self.check_pack(kind, total)

    def _judge(self, melds: Sequence[Sequence[Sequence[int] | None]],
               kinds: dict[str, int]) -> tuple[str | None, list[dict[str, int]], list[int], list[int]]:
        """Every team's melds: what is illegal, the canastas by type (every key of ``kinds``), how many are
        clean, and the cards all melds hold by rank."""
        canastas = [dict.fromkeys(kinds, 0) for _ in melds]
        n_clean = [0] * len(melds)
        cards = [0] * NUM_RANKS
        for team, team_melds in enumerate(melds):
            for rank, m in enumerate(team_melds):
                if m is None:
                    continue
                problem = meld_problem(rank, m)
                if problem:
                    return f"team {team}: illegal meld of {rank_name(rank)} {m}: {problem}", canastas, n_clean, cards
                cards[rank] += m[0]
                cards[TWO] += m[1]
                cards[JOKER] += m[2]
                kind = classify(rank, m)
                if kind:
                    if kind not in canastas[team]:
                        return f"a {kind} canasta, a type the state does not count", canastas, n_clean, cards
                    canastas[team][kind] += 1
                    n_clean[team] += clean(rank, m)
        return None, canastas, n_clean, cards

    def _quiet_state(self, kind: str) -> None:
        """Between actions (at decisions and at the end) the engine's pile and hidden bookkeeping is ours."""
        st = self.st
        if st.castigado_since != self.crossed_since:
            self.fail(kind, f"castigado_since {st.castigado_since}, the discards say {self.crossed_since}")
        if st.castigado_log != self.crossed:
            self.fail(kind, f"castigado_log {st.castigado_log}, the events say {self.crossed}")
        if st.first_take_done != (self.takes > 0) or st.premiado_end_turn != self.premiado_end:
            self.fail(kind, f"first_take_done {st.first_take_done} / premiado_end_turn {st.premiado_end_turn}, "
                            f"the events say {self.takes} takes / {self.premiado_end}")
        if st.hidden != self.hidden:
            self.fail(kind, f"hidden canastas {st.hidden}, the events say {self.hidden}")
        if st.opened != self.opened:
            self.fail(kind, f"opened {st.opened}, the events say {self.opened}")

    # ------------------------------------------------------------------ event by event
    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        st = self.st
        if kind == "deal":
            self._on_deal(data)
        elif kind == "cut":
            self._on_cut(data)
        elif kind == "pile_pick":
            self._on_pick(data)
        elif kind == "red_three":
            self._on_red_three(data)
        elif kind == "decision":
            self._on_decision(data)
        elif kind == "draw":
            self.drew_stock = True
            if len(data["cards"]) != (1 if st.stock or data["cards"] else 0) or data["stock_left"] != len(st.stock):
                self.fail(kind, f"a draw of {data['cards']} with {len(st.stock)} stock cards left: draw 1 card")
        elif kind == "take_pile":
            self._on_take(data)
        elif kind == "meld":
            self._on_meld(data)
        elif kind == "canasta":
            self._on_canasta(data)
        elif kind == "discard":
            self._close_batch(kind)
            card = rank_of(data["card"])
            if not st.pile or st.pile[-1] != card or data["pile_size"] != len(st.pile):
                self.fail(kind, f"discard of {data['card']} but the pile is {st.pile[-3:]}")
            if card in (TWO, JOKER) and self.crossed_since is None:
                self.crossed_since = self.turn  # the pile is crossed (castigado) until taken
                self.stats["crossed"] += 1
        elif kind == "going_out":
            self._on_going_out(data)
        elif kind == "stock_out":
            self._close_batch(kind)
            self.ended_by = kind
            if len(st.stock) >= (1 if self.rules.partial_draw_allowed else self.rules.draw_count):
                self.fail(kind, f"stock_out with {len(st.stock)} stock cards left")  # A-X-5: a short stock may be
            if st.stock:
                self.stats["stock_out_short"] += 1
        elif kind == "deal_scored" and self.ended_by is None:
            self.fail(kind, "scored before the deal ended")

    def _on_red_three(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "red_three"
        seat, source = data["seat"], data["source"]
        self.stats[f"red_three_{source}"] += 1
        if data["team"] != self.team_of[seat]:
            self.fail(kind, f"a red three of seat {seat} laid for team {data['team']}")
        if source != "replacement" and (source == "dealt") == self.prelude_done:
            self.fail(kind, f"a red three from '{source}' with prelude_done={self.prelude_done}")
        if source == "pile" and seat != self.seat:
            self.fail(kind, f"seat {seat} laid a red three from the pile in seat {self.seat}'s turn")
        if not self.prelude_done:
            # Dealt red threes are shown in playing order from the player who got the first card (§2.4);
            # a replacement that is a red three is laid by the same player.
            position = (self.first_player - seat) % self.p
            if position < self.dealt_position or (source == "replacement" and position != self.dealt_position):
                self.fail(kind, f"a {source} red three of seat {seat} after seat position {self.dealt_position}")
            self.dealt_position = position
        if st.red_threes[data["team"]] == 2 * self.decks:
            self.stats[f"all_red_threes_{self.decks}_decks"] += 1

    def _on_deal(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "deal"
        p = self.p
        if len(st.deck) != 54 * self.decks:
            self.fail(kind, f"{len(st.deck)} cards for {p} players")
        if st.team_of != self.team_of or st.n_teams != self.t:
            self.fail(kind, f"teams {st.team_of}, expected alternating {self.team_of}")
        if st.first_player != self.first_player or data["first_player"] != self.first_player:
            self.fail(kind, f"first player {st.first_player} for dealer {st.dealer}: play goes to the dealer's right")
        if st.hand_sizes != [HAND] * p:
            self.fail(kind, f"dealt hands of {st.hand_sizes} cards")
        for i in range(p):  # one card at a time from the top, from the dealer's right, to the right
            seat = (self.first_player - i) % p
            if st.hands[seat] != counts_of(st.deck[i:HAND * p:p]):
                self.fail(kind, f"seat {seat}, {i + 1}th to receive cards, holds {st.hands[seat]}")
        minimum = [self._minimum(score) for score in st.team_scores]
        if st.minimum != minimum:
            self.fail(kind, f"opening minimums {st.minimum} for team scores {st.team_scores}, expected {minimum}")
        self.stats.update(f"minimum_{m}" for m in minimum)
        up, size = expected_upcards(st.deck, p)
        start = HAND * p
        if st.pile != st.deck[start:start + size] or st.upcards != up or len(st.pile) != size:
            self.fail(kind, f"the montón {st.pile} with upcards {st.upcards}; the deck gives {up}")
        if data["upcards"] != [RANK_NAMES[c] for c in up]:
            self.fail(kind, f"event upcards {data['upcards']}")
        if [st.pile[FACEDOWN + 2 * i] for i in range(len(up))] != up:
            self.fail(kind, f"upcards {up} not where the montón turns them: {st.pile}")
        self.premiado = len(up) > 1
        if st.pile_premiado != self.premiado:
            self.fail(kind, f"pile_premiado {st.pile_premiado} with upcards {up}")
        self.stats["premiado"] += self.premiado
        self.stats[f"montón_{size}"] += 1

    def _on_cut(self, data: dict[str, Any]) -> None:
        st = self.st
        target = HAND * self.p
        self.cut_exact = data["count"] == target
        team = self.team_of[self.dealer] if self.cut_exact else None
        if (data["cutter"], data["target"], data["exact"], data["bonus_team"]) != (self.dealer, target,
                                                                                  self.cut_exact, team):
            self.fail("cut", f"{data}: the dealer {self.dealer} cuts at {target}, bonus team {team}")
        if st.exact_cut_team != team or st.cut_count != data["count"]:
            self.fail("cut", f"exact_cut_team {st.exact_cut_team}, cut_count {st.cut_count}")
        self.stats["exact_cut"] += self.cut_exact

    def _on_pick(self, data: dict[str, Any]) -> None:
        st = self.st
        self.pick_seen = True
        target = FACEDOWN + UPCARDS
        self.pick_exact = data["count"] == target
        team = self.team_of[self.dealer] if self.pick_exact else None
        if (data["dealer"], data["target"], data["exact"], data["bonus_team"], data["premiado"]) != (
                self.dealer, target, self.pick_exact, team, self.premiado):
            self.fail("pile_pick", f"{data}: the dealer {self.dealer} picks {target}, bonus team {team}")
        if st.exact_pick_team != team or st.pick_count != data["count"]:
            self.fail("pile_pick", f"exact_pick_team {st.exact_pick_team}, pick_count {st.pick_count}")
        self.stats["exact_pick"] += self.pick_exact

    def _on_decision(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "decision"
        seat = data["seat"]
        if data["kind"] == "draw":
            if not self.pick_seen:
                self.fail(kind, "no pile_pick event before play")
            self.prelude_done = True
            self._close_batch(kind)
            expected = self.first_player if self.seat is None else (self.seat - 1) % self.p
            if seat != expected:
                self.fail(kind, f"seat {seat} plays, expected seat {expected} (play goes to the right)")
            if self.seat is not None and self.melded_now:
                self.melded_before.add(self.seat)
            self.seat = seat
            self.turn += 1
            self.seat_turns[seat] += 1
            self.melded_now = False
            self.drew_stock = False
            if st.turn != self.turn or data["turn"] != self.turn:
                self.fail(kind, f"turn {st.turn}/{data['turn']}, counted {self.turn}")
            self._quiet_state(kind)
            self._check_views(seat)
        elif seat != self.seat:
            self.fail(kind, f"seat {seat} decides during seat {self.seat}'s turn")
        elif data["kind"] == "melds":
            self._close_batch(kind)
            self._quiet_state(kind)
            if self.stock_at_take is not None and len(st.stock) != self.stock_at_take:
                self.fail(kind, f"the stock went from {self.stock_at_take} to {len(st.stock)} cards in a pile take: "
                                "red threes from the pile are not replaced")
            self.stock_at_take = None

    def _check_views(self, seat: int) -> None:
        """Sometimes: deal the hidden cards again; no seat's view may change (tests/test_view.py)."""
        if self.view_rng is None or self.view_rng.random() >= self.view_rate:
            return
        snap = clone(self.st)
        for s in range(self.p):
            assert_same_view(snap, rehide(snap, s, self.view_rng), s)
        self.stats["view_checks"] += 1

    def _on_take(self, data: dict[str, Any]) -> None:
        """Emitted before any card moves: the state the take was judged on."""
        st = self.st
        kind = "take_pile"
        seat = data["seat"]
        team = self.team_of[seat]
        if seat != self.seat or not st.pile:
            self.fail(kind, f"a take by seat {seat} in seat {self.seat}'s turn, pile {st.pile}")
        top = st.pile[-1]
        if data["top"] != RANK_NAMES[top] or data["size"] != len(st.pile):
            self.fail(kind, f"event top {data['top']} / size {data['size']}, pile {st.pile[-3:]}")
        if top not in NATURAL_RANKS:
            self.fail(kind, f"the pile taken with {RANK_NAMES[top]} on top")
        if any(m[top] is not None and sum(m[top]) >= 7 for m in st.melds):
            self.fail(kind, f"the pile taken with closed rank {RANK_NAMES[top]} on top (tapa)")
        if self.seat_turns[seat] == 1 and seat != self.first_player:
            self.fail(kind, f"seat {seat} took the pile in the first round (only seat {self.first_player} may)")
        m = data["meld"]
        why = [w for w, on in (("first take of the deal", self.takes == 0),
                               ("premiado pile", self.premiado and self.premiado_end is None),
                               ("crossed pile", self.crossed_since is not None)) if on]
        if why and m["naturals"] < 2:
            self.fail(kind, f"the pile ({', '.join(why)}) taken without a natural pair: {m}")
        method = "pair" if m["naturals"] >= 2 else "layoff" if st.melds[team][top] is not None else "nat_wild"
        if method == "nat_wild" and not (m["naturals"] == 1 and m["twos"] + m["jokers"] >= 1):
            self.fail(kind, f"a take with neither a pair, a natural and a wild, nor a team meld: {m}")
        self.stats[f"take_{method}"] += 1
        for w in why:
            self.stats[f"take_{w.split()[0]}"] += 1
        self.takes += 1
        if self.premiado and self.premiado_end is None:
            self.premiado_end = self.turn
        if self.crossed_since is not None:
            self.crossed.append((self.crossed_since, self.turn))
            self.crossed_since = None
        self.take_left = 1 + len({x["rank"] for x in data["extra"]})
        self.stock_at_take = len(st.stock)
        self._close_batch(kind)
        self.batch = {"team": team, "seat": seat, "opening": not self.opened[team], "value": 0, "how": "pile",
                      "hidden": False, "top": top, "meld": m}

    def _on_meld(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "meld"
        seat = data["seat"]
        team = self.team_of[seat]
        rank = rank_of(data["rank"])
        added = data["added"]
        m = st.melds[team][rank]
        if m is None or list(m) != list(data["meld"]) or data["team"] != team:
            self.fail(kind, f"event meld {data['meld']} of team {data['team']} != state meld {m} of team {team}")
        if seat != self.seat:
            self.fail(kind, f"seat {seat} melds during seat {self.seat}'s turn")
        n_added = added["naturals"] + added["twos"] + added["jokers"]
        size = sum(m)
        before = size - n_added
        if n_added <= 0:
            self.fail(kind, f"a meld event adding nothing: {added}")
        self.melded_now = True
        top_meld = False
        if self.take_left:
            self.take_left -= 1
            batch = self.batch
            assert batch is not None
            top_meld = batch.get("top_done") is None
            batch["top_done"] = True
            take = batch["meld"]
            if top_meld and (rank, added["naturals"], added["twos"], added["jokers"]) != (
                    batch["top"], take["naturals"] + 1, take["twos"], take["jokers"]):
                self.fail(kind, f"the take's first meld adds {added} to {rank_name(rank)}; the take was {take} with "
                                f"{rank_name(batch['top'])} on top")
        else:
            if self.batch is None or self.batch["how"] == "pile":
                self._close_batch(kind)  # a take's batch ends where the turn's own melds begin
                self.batch = {"team": team, "seat": seat, "opening": not self.opened[team], "value": 0,
                              "how": "hand", "hidden": False}
            batch = self.batch
        batch["value"] += added["naturals"] * CARD[rank] + 20 * added["twos"] + 50 * added["jokers"]
        if rank == WILD_MELD and before == 0 and n_added < 3:
            self.fail(kind, f"a wild meld started with {n_added} wild cards")
        if rank == BLACK_THREE:
            self.b3_melds.append((seat, team, self.turn))
            self.stats["black_three_canasta"] += 1
        hidden = not top_meld and before == 0 and size >= 7 and rank in NATURAL_RANKS
        if hidden:
            batch["hidden"] = True
            self.hidden[team].append(rank)
            self.stats["hidden"] += 1
        if size >= 7 and before < 7 and rank != BLACK_THREE:
            self.expect_canasta = (team, rank, hidden)
            self.stats["canasta_completed"] += 1
            if self.first_clean[team] is None and clean(rank, m):
                self.first_clean[team] = self.turn

    def _on_canasta(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "canasta"
        if self.expect_canasta is None:
            self.fail(kind, f"a canasta event with no meld completing a canasta: {data}")
        team, rank, hidden = self.expect_canasta
        self.expect_canasta = None
        m = st.melds[team][rank]
        if (data["team"], rank_of(data["rank"]), data["kind"]) != (team, rank, classify(rank, m)):
            self.fail(kind, f"{data}, but team {team}'s meld of {rank_name(rank)} {m} is a {classify(rank, m)}")
        if data["upgraded_from"] is not None:
            self.fail(kind, f"a closed canasta changed type: {data}")
        if bool(data.get("hidden")) != hidden:
            self.fail(kind, f"hidden={data.get('hidden')} on {data}, but the meld batch says hidden={hidden}")

    def _close_batch(self, kind: str) -> None:
        batch = self.batch
        if batch is None:
            return
        self.batch = None
        if self.take_left:
            self.fail(kind, f"{self.take_left} meld events of the take missing")
        if not batch["opening"]:
            return
        team = batch["team"]
        minimum = self._minimum(self.team_scores[team])
        if batch["value"] < minimum and not batch["hidden"]:
            self.fail(kind, f"team {team} opened with {batch['value']} points, minimum {minimum}, no hidden canasta")
        self.opened[team] = True
        if batch["value"] < minimum:
            self.stats["opened_below_minimum_by_hidden"] += 1
        self.stats[f"opened_via_{batch['how']}"] += 1

    def _on_going_out(self, data: dict[str, Any]) -> None:
        st = self.st
        kind = "going_out"
        self._close_batch(kind)
        self.ended_by = kind
        seat = data["seat"]
        team = self.team_of[seat]
        if seat != self.seat or st.hand_sizes[seat]:
            self.fail(kind, f"seat {seat} went out (current {self.seat}, hand sizes {st.hand_sizes})")
        melds = st.melds[team]
        kinds = [(classify(r, m), clean(r, m)) for r, m in enumerate(melds) if m is not None and classify(r, m)]
        n_clean = sum(1 for _, c in kinds if c)
        if n_clean < 1 or len(kinds) - n_clean < 1:
            self.fail(kind, f"team {team} went out with {n_clean} clean of {len(kinds)} canastas")
        if self.first_clean[team] == self.turn:
            self.fail(kind, f"team {team} went out in turn {self.turn}, the turn of its first clean canasta")
        quick = self.seat_turns[seat] == 1
        terremoto = self.drew_stock and seat not in self.melded_before
        if bool(data.get("quick_finish")) != quick or bool(data.get("terremoto")) != terremoto:
            self.fail(kind, f"{data}: the events say quick_finish={quick}, terremoto={terremoto}")
        self.out = {"seat": seat, "team": team, "quick": quick, "terremoto": terremoto}
        self.stats["quick_finish"] += quick
        self.stats["terremoto"] += terremoto
        self.stats["out_with_discard" if self.last_kind == "discard" else "out_without_discard"] += 1

    # ------------------------------------------------------------------ end of deal
    def finish(self, result: DealResult) -> None:
        st = self.st
        kind = "finish"
        stats = self.stats
        self.finish_common(result)
        stats[self.ended_by or "?"] += 1
        if self.crossed_since is not None:  # a pile still crossed at the end lasted to the last turn
            self.crossed.append((self.crossed_since, self.turn))
            self.crossed_since = None
        self._quiet_state(kind)
        out = self.out
        out_team = out["team"] if out else None
        b3_team = None
        for seat, team, turn in self.b3_melds:
            if out is None or seat != out["seat"] or turn != self.turn:
                self.fail(kind, f"black threes melded by seat {seat} on turn {turn}, not by the player going out")
            b3_team = team
        expect = {
            "went_out_seat": out["seat"] if out else None, "turns": self.turn,
            "hidden_canastas": [len(h) for h in self.hidden], "premiado": self.premiado,
            "premiado_end_turn": self.premiado_end, "crossed": self.crossed,
            "exact_pick": self.pick_exact, "exact_pick_team": self.team_of[self.dealer] if self.pick_exact else None,
            "exact_cut_team": self.team_of[self.dealer] if self.cut_exact else None,
            "black_three_canasta_team": b3_team, "quick_finish": bool(out and out["quick"]),
            "terremoto": bool(out and out["terremoto"]), "red_threes": list(st.red_threes),
        }
        got = {name: getattr(result, name) for name in expect}
        if got != expect:
            self.fail(kind, f"DealResult {got} != the events' {expect}")
        self.check_score_sums(kind, result)
        for team, score in enumerate(result.scores):
            expected = expected_parts(st, team, out_team, self.hidden[team], self.cut_exact, self.pick_exact,
                                      bool(out and out["quick"]))
            got_parts = {p: v for p, v in score.items() if p != "total" and v}
            if got_parts != expected:
                self.fail(kind, f"team {team}: score parts {got_parts} != recomputed {expected}")
            self.parts.append(expected)
            stats["points"] += score["total"]
            for part in expected:
                stats[f"part_{part}"] += 1
            crossed = [end - start for start, end in self.crossed]
            self.records[team] = {
                "hidden_canastas": len(self.hidden[team]), "pile_premiado": self.premiado,
                "premiado_turns": (self.premiado_end or self.turn) if self.premiado else 0,
                "crossed_piles": len(crossed), "crossed_turns": sum(crossed), "pick_exact": self.pick_exact,
                "exact_pick_bonus_team": self.pick_exact and team == self.team_of[self.dealer],
                "black_three_canasta": b3_team == team, "quick_finish": bool(out and out["quick"])
                and team == out_team, "terremoto": bool(out and out["terremoto"]) and team == out_team,
                "cut_exact": self.cut_exact, "exact_cut_bonus_team": self.cut_exact
                and team == self.team_of[self.dealer], "went_out": team == out_team,
                "score_total": sum(expected.values()),
                **{f"score_{p}": expected.get(p, 0) for p in SCORE_PARTS},
            }


# ---------------------------------------------------------------------------------------------- running games
def checking(stats: Counter[str], log: list[SpanishChecker], where: str, view_rng: np.random.Generator | None = None,
             view_rate: float = 0.0) -> Any:
    """Within the block, every deal that play_game plays is checked event by event (checkers kept in ``log``)."""
    return checking_with(spanish_checkers(stats, log, view_rng, view_rate), where)


def spanish_checkers(stats: Counter[str], log: list[SpanishChecker], view_rng: np.random.Generator | None = None,
                     view_rate: float = 0.0) -> Any:
    """A ``make(st, emit, where)`` for the harness: a SpanishChecker per deal, kept in ``log`` for check_game."""

    def make(st: DealState, emit: Any, where: str) -> SpanishChecker:
        checker = SpanishChecker(st, stats, emit, where, view_rng, view_rate)
        log.append(checker)
        return checker

    return make


def check_game(rules: Any, result: GameResult, log: list[SpanishChecker], stats: Counter[str], where: str) -> None:
    """Game-level checks: deals, dealers, totals, the end of the game (§1.13) and the records."""
    p, t = rules.num_players, rules.num_players // rules.team_size
    team_of = [s % t for s in range(p)]
    if len(log) != len(result.deals):
        raise InvariantError(f"{where}: {len(log)} checked deals, {len(result.deals)} played")
    totals = [0] * t
    end = None
    for i, (checker, deal) in enumerate(zip(log, result.deals, strict=True)):
        if checker.team_scores != totals:
            raise InvariantError(f"{where} deal {i}: started with team scores {checker.team_scores}, totals {totals}")
        if checker.dealer != (result.first_dealer - i) % p:
            raise InvariantError(f"{where} deal {i}: dealer {checker.dealer}; the deal moves to the right")
        totals = [x + s["total"] for x, s in zip(totals, deal.scores, strict=True)]
        leaders = [x for x in range(t) if totals[x] == max(totals)]
        b3 = deal.black_three_canasta_team
        if b3 is not None:
            end = (i, b3)
        elif (max(totals) >= GAME_TARGET or i + 1 >= MAX_HANDS) and len(leaders) == 1:
            end = (i, leaders[0])
        if end is not None:
            break
    if end is None or end[0] != len(result.deals) - 1:
        raise InvariantError(f"{where}: the game ended after {len(result.deals)} deals, totals {result.totals}; "
                             f"§1.13 ends it at {end}")
    if result.totals != totals or result.winner_team != end[1]:
        raise InvariantError(f"{where}: totals {result.totals}, winner {result.winner_team}; expected {totals}, "
                             f"{end[1]}")
    rows = deal_rows(result, 0, t, team_of)
    if len(rows) != t * len(result.deals):
        raise InvariantError(f"{where}: {len(rows)} deal rows")
    for row in rows:
        expected = log[row["deal_index"]].records[row["team"]]
        got = {k: row.get(k) for k in expected}
        if got != expected:
            diff = {k: (got[k], v) for k, v in expected.items() if got[k] != v}
            raise InvariantError(f"{where} deal {row['deal_index']} team {row['team']}: record (got, events) {diff}")
    grow = game_row(result, 0, t)
    expected_row = {"deals": len(result.deals), "winner_team": end[1],
                    "black_three_canasta_win": result.deals[-1].black_three_canasta_team is not None,
                    "last_deal_end": result.deals[-1].end_reason,
                    **{f"score_team_{x}": totals[x] for x in range(t)}}
    got_row = {k: grow.get(k) for k in expected_row}
    if got_row != expected_row:
        raise InvariantError(f"{where}: game row {got_row} != {expected_row}")
    stats["records"] += len(rows)


def seats(rules: Any, mix: int) -> list[str]:
    """Seat strategies: all random (0), or random and greedy alternating (1: greedy on odd seats, 2: even)."""
    if mix == 0:
        return ["random"] * rules.num_players
    return ["greedy" if (s + mix) % 2 == 0 else "random" for s in range(rules.num_players)]


def play_checked(rules: Any, seed: int, min_deals: int, stats: Counter[str], mixes: Sequence[int] = (0,),
                 view_rate: float = 0.0, first: int = 0) -> int:
    """Play checked games (game indices ``first``..., cycling the mixes) until ``min_deals`` deals were played."""
    view_rng = np.random.default_rng(seed) if view_rate else None
    log: list[SpanishChecker] = []

    def after_game(result: GameResult, where: str) -> None:
        check_game(rules, result, log, stats, where)
        log.clear()

    return play_games(rules, seed, stats, spanish_checkers(stats, log, view_rng, view_rate),
                      lambda g: seats(rules, mixes[g % len(mixes)]), games=itertools.count(first),
                      min_deals=min_deals, after_game=after_game)


# ---------------------------------------------------------------------------------------------- default sample
#: Per mode: (seed, random deals, mixed random/greedy deals).
SAMPLE = {"2x1": (21, 1000, 60), "3x1": (31, 1000, 60), "4x1": (41, 1000, 60), "4x2": (42, 1000, 60),
          "6x3": (63, 1000, 60)}
VIEW_RATE = 0.001


@pytest.fixture(scope="module")
def sample() -> dict[str, Counter[str]]:
    """1,000 all-random deals and 60 random/greedy deals per mode, every invariant after every event."""
    out: dict[str, Counter[str]] = {}
    for mode, (seed, n_random, n_mixed) in SAMPLE.items():
        rules = spanish(mode)
        for label, mixes, n, first in (("random", (0,), n_random, 0), ("mixed", (1, 2), n_mixed, 10_000)):
            stats: Counter[str] = Counter()
            t0 = time.perf_counter()
            stats["played"] = play_checked(rules, seed, n, stats, mixes, VIEW_RATE, first=first)
            report(f"{mode} {label}", stats, t0)
            out[f"{mode}.{label}"] = stats
    return out


@pytest.mark.parametrize("mode", list(MODES))
def test_sample_keeps_every_invariant(sample: dict[str, Counter[str]], mode: str) -> None:
    _, n_random, n_mixed = SAMPLE[mode]
    for label, n in (("random", n_random), ("mixed", n_mixed)):
        stats = sample[f"{mode}.{label}"]
        assert stats["deals"] == stats["played"] >= n
        assert stats["going_out"] + stats["stock_out"] == stats["deals"]
        assert stats["records"] == stats["deals"] * (MODES[mode][0] // MODES[mode][1])
    assert sample[f"{mode}.random"]["deals"] >= 1000


#: What random play reaches in every mode (over the default sample).
REACHES = ("take_pair", "take_nat_wild", "take_layoff", "take_first", "take_crossed", "take_premiado", "crossed",
           "premiado", "exact_pick", "exact_cut", "hidden", "canasta_completed", "stock_out", "opened_via_hand",
           "opened_via_pile", "red_three_dealt", "red_three_stock", "red_three_pile", "part_canasta_hidden",
           "part_exact_pick", "part_exact_cut", "part_red_threes", "montón_9", "minimum_15",
           "minimum_50", "view_checks")


@pytest.mark.parametrize("mode", list(MODES))
def test_random_play_reaches_the_spanish_moves(sample: dict[str, Counter[str]], mode: str) -> None:
    stats = sample[f"{mode}.random"] + sample[f"{mode}.mixed"]
    missing = [m for m in REACHES if stats[m] <= 0]
    assert not missing, f"{mode}: never reached {missing}: {dict(stats)}"


def test_every_opening_band_and_going_out_is_played(sample: dict[str, Counter[str]]) -> None:
    total = sum(sample.values(), Counter())
    for what in ("minimum_15", "minimum_50", "minimum_90", "minimum_120", "going_out", "part_canasta_count",
                 "part_canasta_wild", "all_red_threes_2_decks",
                 "opened_below_minimum_by_hidden", "out_with_discard", "out_without_discard"):
        assert total[what] > 0, f"never reached '{what}': {dict(total)}"
    for mode in MODES:
        assert sample[f"{mode}.random"]["going_out"] + sample[f"{mode}.mixed"]["going_out"] > 0, mode


# ---------------------------------------------------------------------------------------------- the checker can fail
def _fresh(mode: str = "4x2", seed: int = 1) -> tuple[DealState, SpanishChecker]:
    rules = spanish(mode)
    pack = deck_cards(rules.decks, rules.jokers_per_deck)
    st = prepare_deal(rules, pack, deal_rng(seed, 0), 0, 3, [0] * rules.n_teams)
    checker = SpanishChecker(st, Counter())
    return st, checker


def test_checker_catches_lost_cards_and_bad_melds() -> None:
    st, checker = _fresh()
    checker.check_state("deal")
    rank = next(r for r in NATURAL_RANKS if st.hands[0][r])
    st.hands[0][rank] -= 1
    st.hand_sizes[0] -= 1
    with pytest.raises(InvariantError, match="cards not accounted for"):
        checker.check_state("discard")
    for m, message in (((2, 1, 1), "STRICT_MAJORITY"), ((3, 0, 0), None), ((4, 3, 1), "cap of 7"),
                       ((3, 2, 2), "STRICT_MAJORITY")):
        problem = meld_problem(9, m)
        assert problem is None if message is None else message in str(problem), (m, problem)
    assert meld_problem(WILD_MELD, (0, 1, 1)) and meld_problem(WILD_MELD, (0, 5, 2)) is None
    assert meld_problem(BLACK_THREE, (6, 0, 0)) and meld_problem(BLACK_THREE, (7, 0, 0)) is None
    assert meld_problem(RED_THREE, (3, 0, 0)) and meld_problem(TWO, (3, 0, 0))


def test_checker_recounts_canastas_and_clean_ones() -> None:
    assert classify(SEVEN, (5, 1, 1)) == "MIXED" and classify(SEVEN, (7, 0, 0)) == "NATURAL"
    assert classify(WILD_MELD, (0, 4, 3)) == "WILD" and classify(BLACK_THREE, (7, 0, 0)) is None
    assert clean(WILD_MELD, (0, 7, 0)) and clean(WILD_MELD, (0, 0, 7)) and not clean(WILD_MELD, (0, 6, 1))
    assert clean(9, (7, 0, 0)) and not clean(9, (6, 1, 0))
    st, checker = _fresh()
    st.melds[0][9] = [7, 0, 0]
    st.canastas[0]["NATURAL"] = 1
    with pytest.raises(InvariantError, match="clean_canastas"):
        checker.check_state("meld")


def test_checker_catches_bad_takes() -> None:
    st, checker = _fresh()
    checker.seat = checker.first_player
    checker.seat_turns[checker.seat] = 1
    st.pile.append(9)
    take = {"seat": checker.seat, "team": 0, "top": "9", "size": len(st.pile),
            "meld": {"rank": "9", "naturals": 1, "twos": 1, "jokers": 0}, "extra": []}
    with pytest.raises(InvariantError, match="first take of the deal"):
        checker.on_event("take_pile", dict(take))
    st.melds[1][9] = [5, 2, 0]
    with pytest.raises(InvariantError, match="closed rank 9"):
        checker.on_event("take_pile", dict(take))
    st.melds[1][9] = None
    other = (checker.first_player - 1) % checker.p
    checker.seat, checker.seat_turns[other] = other, 1
    with pytest.raises(InvariantError, match="first round"):
        checker.on_event("take_pile", {**take, "seat": other})
    checker.takes, checker.seat_turns[other] = 3, 2
    checker.crossed_since = 5
    with pytest.raises(InvariantError, match="crossed pile"):
        checker.on_event("take_pile", {**take, "seat": other})


def test_checker_catches_short_openings_and_early_going_out() -> None:
    st, checker = _fresh()
    checker.batch = {"team": 0, "seat": 0, "opening": True, "value": 45, "how": "hand", "hidden": False}
    with pytest.raises(InvariantError, match="opened with 45 points, minimum 50"):
        checker._close_batch("decision")
    checker.batch = {"team": 0, "seat": 0, "opening": True, "value": 45, "how": "hand", "hidden": True}
    checker._close_batch("decision")  # a hidden canasta meets the opening
    assert [opening_minimum(x) for x in (-5, 0, 1495, 1500, 2995, 3000, 6000)] == [15, 50, 50, 90, 90, 120, 120]
    st, checker = _fresh()
    seat = checker.seat = 0
    st.hand_sizes[seat] = 0
    st.melds[0][9] = [7, 0, 0]
    with pytest.raises(InvariantError, match="went out with 1 clean of 1 canastas"):
        checker.on_event("going_out", {"seat": seat})
    st.melds[0][8] = [5, 1, 1]
    checker.ended_by = None
    checker.turn = checker.first_clean[0] = 4
    with pytest.raises(InvariantError, match="the turn of its first clean canasta"):
        checker.on_event("going_out", {"seat": seat})


def test_checker_scores_the_golden_cases_of_rules_5_4() -> None:
    """RULES.md §5.4 E1-E3 through expected_parts: the checker's own scoring code, not the engine's."""
    rules = spanish("4x2")
    st = DealState(rules, 0, 1, [0, 0])  # dealer 1 (team 1); seats 0/2 are team 0
    st.deck = [0] * 108
    st.melds[0][10] = [7, 0, 0]
    st.melds[0][13] = [5, 1, 1]
    st.melds[0][ACE] = [3, 0, 0]
    st.red_threes = [2, 1]
    st.hands[2] = counts_of([5, 8])
    st.melds[1][12] = [3, 1, 0]
    st.hands[1] = counts_of([JOKER, 9])
    st.hands[3] = counts_of([BLACK_THREE])
    st.dealer = 0  # E1: A's dealer cut exactly
    e1a = expected_parts(st, 0, 0, [], True, False, False)
    e1b = expected_parts(st, 1, 0, [], True, False, False)
    assert sum(e1a.values()) == 1535 and sum(e1b.values()) == -310
    st = DealState(rules, 0, 1, [0, 0])
    st.deck = [0] * 108
    for rank, m in ((6, [7, 0, 0]), (11, [7, 0, 0]), (9, [7, 0, 0]), (4, [5, 1, 1]), (WILD_MELD, [0, 4, 3])):
        st.melds[0][rank] = m
    st.hands[0] = counts_of([7])
    st.hands[2] = counts_of([12])
    assert sum(expected_parts(st, 0, 1, [6], False, False, False).values()) == 5285
    st = DealState(rules, 0, 1, [0, 0])
    st.deck = [0] * 108
    st.melds[1][8] = [3, 0, 0]
    st.hands[1], st.hands[3] = counts_of([4]), counts_of([6])
    st.melds[0][ACE], st.melds[0][5] = [7, 0, 0], [4, 2, 1]
    st.hands[2] = counts_of([10])
    assert sum(expected_parts(st, 1, 0, [], True, False, False).values()) == -140
    assert sum(expected_parts(st, 0, 0, [], True, False, False).values()) == 1240
    assert expected_parts(st, 1, 0, [], False, True, False)["exact_pick"] == -700


# ---------------------------------------------------------------------------------------------- engine mutants
MUTANTS = {
    # hidden canastas paid on top of the 500/300 instead of replacing them
    "hidden-adds": ({"hidden_canasta_mode": "ADD"}, "score parts"),
    # no tapa: the pile is taken with a closed rank on top
    "no-tapa": ({"closed_rank_blocks_pile": False}, "closed rank"),
    # every player may take the pile in the first round
    "first-round-free": ({"first_round_pile_restriction": False}, "first round"),
    # the first take of the deal need not be a pair
    "first-take-free": ({"first_take_pair_only": "NONE"}, "natural pair"),
    # going out in the turn of the first limpia
    "out-same-turn": ({"go_out_not_same_turn_as_required_canasta": False}, "first clean canasta"),
    # going out with any canasta
    "out-any": ({"go_out_requirement": "ANY:1"}, "went out with"),
    # an opening table of other values
    "other-table": ({"initial_meld_table": "AM_MODERN_2020S"}, "opening minimums"),
    # the majority rule of Classic
    "pagat-ratio": ({"wild_rule": "PAGAT"}, "STRICT_MAJORITY"),
    # no premios: the montón is 6 + 1 whatever the upcard
    "no-premios": ({"upcard_cover_ranks": "none"}, "montón"),
    # play to the left
    "clockwise": ({"play_direction": "CW"}, "right"),
    # no canastas are hidden
    "no-hidden": ({"hidden_canasta_bonus": "null"}, "hidden"),
    # red threes never negative
    "red-threes-plus": ({"red_three_negative_if": "NEVER", "bonuses_require_canasta": "NO"}, "score parts"),
    # red threes found in the pile are replaced from the stock
    "pile-threes-replaced": ({"red_three_from_pile_replaced": True}, "not replaced"),
    # a black three left in hand costs 5, as in Classic
    "b3-minus-5": ({"black_three_in_hand_value": -5}, "score parts"),
    # all four red threes pay 1000 with two decks
    "all-threes-1000": ({"all_red_threes_total": 1000}, "score parts"),
    # dealt red threes laid at each player's first turn
    "threes-first-turn": ({"dealt_threes_laid": "FIRST_TURN"}, "red three"),
    # a wild discard does not cross the pile
    "no-castigado": ({"freeze_on_wild_discard": False}, "castigado_since|crossed pile"),
    # the cut aims at 15 x P + 1 cards, cut by the player before the dealer
    "cut-plus-one": ({"exact_cut_target_formula": "HAND_X_PLAYERS_PLUS_1"}, "cuts at"),
    "cutter": ({"cut_by": "PLAYER_BEFORE_DEALER"}, "cuts at"),
    # a montón of 5 + 1
    "small-montón": ({"initial_pile_facedown": 5}, "montón|picks 7"),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_checker_catches_an_engine_playing_other_rules(mutant: str) -> None:
    """The checker reads §2.4, not the knobs: deals played under other knob values break its invariants."""
    knobs, message = MUTANTS[mutant]
    with pytest.raises(InvariantError, match=message):
        play_checked(spanish("4x2", **knobs), 9, 400, Counter(), mixes=(0, 1))


def _premiado_turns_off_by_one(*args: Any) -> dict[str, Any]:
    out = _real_spanish_columns(*args)
    out["premiado_turns"] += out["pile_premiado"]
    return out


_real_spanish_columns = simcli.runs.records._spanish_columns


@pytest.mark.parametrize(("target", "replacement", "message"), [
    ("simcli.runs.records._spanish_columns", _premiado_turns_off_by_one, "premiado_turns"),
    ("simcli.engine.game.game_outcome",
     lambda rules, totals, deals: (deals > MAX_HANDS, int(np.argmax(totals))), "§1.13"),
    ("simcli.engine.scoring.canasta_count_bonus", lambda rules, n: 500 * (n >= 5), "score parts"),
], ids=["records", "game-end", "count-bonus"])
def test_checker_catches_engine_mutants(target: str, replacement: Any, message: str) -> None:
    """Records, the end of the game and the canasta-count bonus broken in the engine are caught."""
    with mock.patch(target, replacement), pytest.raises(InvariantError, match=message):
        play_checked(spanish("6x3"), 9, 300, Counter(), mixes=(0, 1))


def test_checker_catches_a_leaky_view() -> None:
    """A view that shows the next stock card is told apart from the same table with the hidden cards re-dealt."""
    class Leaky(PlayerView):
        __slots__ = ()

        @property
        def next_stock_card(self) -> int:
            return self._st.stock[-1]

    with ExitStack() as stack:
        stack.enter_context(mock.patch("test_view.PlayerView", Leaky))
        with pytest.raises(AssertionError, match="can tell the states apart"):
            play_checked(spanish("2x1"), 3, 5, Counter(), view_rate=1.0)


# ---------------------------------------------------------------------------------------------- rare moves, stacked
def _stacked(rules: Any, hands: dict[int, list[int]], stock: list[int], dealer: int) -> list[int]:
    """A deck dealing ``hands`` (complete, 15 cards each), then a plain montón (6 + a natural upcard), then
    ``stock`` and the rest of the pack."""
    p = rules.num_players
    left = deck_counts(rules.decks, rules.jokers_per_deck)
    for c in [c for h in hands.values() for c in h] + stock:
        left[c] -= 1
    rest = [c for c in (4, 5, 6, 8, 9, 10, 11, 12, 13) for _ in range(left[c])]
    rest += [c for c in range(NUM_RANKS) if c not in (4, 5, 6, 8, 9, 10, 11, 12, 13) for _ in range(left[c])]
    for s in range(p):
        hands.setdefault(s, [])
        while len(hands[s]) < HAND:
            hands[s].append(rest.pop(0))
    order = [(dealer - 1 - i) % p for i in range(p)]
    deck = [hands[s][i] for i in range(HAND) for s in order]
    return deck + rest[:7] + stock + rest[7:]


def test_quick_finish_terremoto_and_a_black_three_canasta_under_the_checker() -> None:
    """Trios with 4 decks, a whole game: seat 0 (team 0) lays a hidden limpia of nines and a wild sucia on turn 1;
    its partner seat 4 then goes out on its own first turn, from the hand, with seven black threes among its melds
    (quick finish, terremoto, canasta a lo gusto: the game is won at once, far below 5000). The dealer (seat 1,
    team 1) cut and picked exactly, and team 1 holds all eight red threes (1000), all three negative without a
    canasta."""
    rules = spanish("6x3")
    seed = next(s for s in range(100) if first_dealer(s, 0, 6) == 1)  # seat 1 deals, seat 0 plays first
    hands = {0: [9] * 7 + [TWO] * 4 + [JOKER] * 3 + [4],
             4: [BLACK_THREE] * 7 + [10] * 4 + [11] * 4,
             1: [RED_THREE] * 3, 3: [RED_THREE] * 3, 5: [RED_THREE] * 2}  # team 1 gets all eight red threes
    deck = _stacked(rules, hands, [12] * 12, dealer=1)  # seat 0 plays first, then 5, then 4 (to the right)

    def stacked_deal(rules: Any, pack: Any, rng: Any, deal_index: int, dealer: int, totals: list[int]) -> DealState:
        assert (deal_index, dealer) == (0, 1)
        return new_deal(rules, deck, dealer, deal_index, totals, cut_count=90, pick_count=7)

    scripts: list[Strategy] = [Scripted(name=f"s{s}") for s in range(6)]
    scripts[0] = Scripted(melds=[[meld(9, 7), meld(WILD_MELD, 0, 4, 3)]], discards=["4"])
    scripts[4] = Scripted(melds=[[meld(BLACK_THREE, 7), meld(10, 4), meld(11, 4)]], discards=["Q"])
    stats: Counter[str] = Counter()
    log: list[SpanishChecker] = []
    with mock.patch.object(simcli.engine.game, "prepare_deal", stacked_deal), checking(stats, log, "stacked:"):
        game = play_game(rules, ["scripted"] * 6, seed, 0, strategies=scripts)
    check_game(rules, game, log, stats, "stacked:")
    result = game.deals[0]
    assert len(game.deals) == 1 and game.winner_team == 0 and max(game.totals) < GAME_TARGET
    assert game_row(game, 0, 2)["black_three_canasta_win"]
    assert result.went_out_seat == 4 and result.turns == 3
    assert stats["quick_finish"] == stats["terremoto"] == stats["hidden"] == stats["black_three_canasta"] == 1
    assert result.black_three_canasta_team == 0 and result.exact_pick_team == result.exact_cut_team == 1
    win, lose = log[0].parts
    assert (win["quick_finish"], win["going_out"], win["canasta_hidden"], win["canasta_wild"]) == (300, 200, 1000,
                                                                                                   2000)
    assert win["melded"] == 70 + 230 + 35 + 40 + 40
    assert (lose["exact_cut"], lose["exact_pick"], lose["red_threes"]) == (-100, -700, -1000)
    assert stats["all_red_threes_4_decks"] == 1 and stats["red_three_dealt"] == 8
    rows = deal_rows(game, 0, 2, [s % 2 for s in range(6)])
    assert [(r["quick_finish"], r["terremoto"], r["black_three_canasta"], r["hidden_canastas"]) for r in rows] == [
        (True, True, True, 1), (False, False, False, 0)]


# ---------------------------------------------------------------------------------------------- more deals
@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
def test_slow_five_thousand_deals_per_mode(mode: str) -> None:
    stats: Counter[str] = Counter()
    t0 = time.perf_counter()
    play_checked(spanish(mode), 4048, 4000, stats, mixes=(0,), view_rate=0.001)
    play_checked(spanish(mode), 4049, 1000, stats, mixes=(1, 2, 0), first=50_000)
    report(f"{mode} slow", stats, t0)
    assert stats["deals"] >= 5000 and stats["going_out"] + stats["stock_out"] == stats["deals"]
    for move in REACHES:
        assert stats[move] > 0, f"no '{move}' in {dict(stats)}"
