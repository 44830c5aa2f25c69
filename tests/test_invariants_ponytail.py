"""Ponytail engine invariants over random play, determinism, and whole games through the CLI.

A :class:`PonyChecker` sits between the engine and its ``emit`` listener and sees the live
:class:`~simcli.engine.state.DealState`. After every event it checks that

* every card of the pack is somewhere: hands + **ponies** + stock + pile + team melds + laid red threes equal the
  pack rank by rank, and the stock is still the undrawn top of the shuffled deck;
* ``hand_sizes`` agree with the hands, no count is negative, no red three stays in a hand; a pony is whole
  (``pony_size`` cards) until it is picked up and empty afterwards;
* closed canastas set aside under ``new_meld_after_closed_canasta`` (A-PT-18, the preset) are 7-card canastas of a
  natural rank or of wild cards, set aside exactly when a ``meld`` event (marked ``closed``) brings a meld to 7, and
  never without the knob; they count with the slot melds below;
* every meld obeys the Ponytail rules, checked here from RULES.md §1.4/§2.2 and not only with ``meld_error``: at most
  7 cards, ``N > W`` and ``W <= 3`` for natural ranks, only wild cards (3 to 7) in the wild slot, black threes only
  by the player going out (3 to 7, no wilds); ``st.canastas`` equals a count made here (7 cards: wild slot -> WILD,
  sevens -> SEVENS, no wild -> NATURAL, else MIXED);
* a player whose team has a canasta never draws before picking up the pony (TEAM_FIRST_CANASTA), and a pony is
  picked up only by its owner's turn or, for a partner, at the start of the partner's own turn;
* nothing happens after the deal ended except its scoring.

At the end of each deal it recomputes every score part from the end state with the §2.2 values (going out 200;
canastas 500/300/1000/1500; R3 +100, never negative; exact cut 100 to the cutter's team; unpicked ponies at card value
with R3 and B3 -100), checks that the parts add up and that a team that went out had the four canasta types and
the pony of the player going out.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from invariant_harness import DealChecker, InvariantError, play_games, rank_of, report

from simcli.cli import main
from simcli.engine.deal import DealResult
from simcli.engine.game import prepare_deal
from simcli.engine.melds import meld_error
from simcli.engine.state import DealState
from simcli.players.seating import play_game
from simcli.primitives.cards import (
    BLACK_THREE,
    JOKER,
    NUM_RANKS,
    RANK_NAMES,
    RED_THREE,
    SEVEN,
    TWO,
    WILD_MELD,
    deck_cards,
)
from simcli.primitives.seeding import deal_rng
from simcli.rules.presets import load_rules

PONYTAIL = load_rules("ponytail")
SIX_PAIRS = load_rules("ponytail", {"num_players": 6})  # 3 teams of 2
SIX_TRIOS = load_rules("ponytail", {"num_players": 6, "team_size": 3})  # 2 teams of 3
CONFIGS = {"4p": PONYTAIL, "6p-3x2": SIX_PAIRS, "6p-2x3": SIX_TRIOS}

#: Card values of RULES.md §1.3, written out again (B3 in hand: -100 in Ponytail).
VALUE = {"JK": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
         "7": 5, "6": 5, "5": 5, "4": 5}
HAND_VALUE = [VALUE.get(name, 0) for name in RANK_NAMES]
HAND_VALUE[BLACK_THREE] = 100  # a B3 left in hand (or in an unpicked pony) counts -100
PONY_VALUE = list(HAND_VALUE)
PONY_VALUE[RED_THREE] = 100  # A-PT-15: a red three in an unpicked pony counts -100
BONUS = {"NATURAL": 500, "MIXED": 300, "WILD": 1000, "SEVENS": 1500}
PART_OF = {"NATURAL": "canasta_natural", "MIXED": "canasta_mixed", "WILD": "canasta_wild",
           "SEVENS": "canasta_sevens"}

OUT_WITH_FOUR = "went_out_with_four_types"


def classify(rank: int, m: Sequence[int]) -> str | None:
    """The canasta type of a meld under the Ponytail preset (RULES.md §1.5, §2.2), or None."""
    n, tw, jk = m
    if n + tw + jk < 7 or rank == BLACK_THREE:
        return None
    if rank == WILD_MELD:
        return "WILD"
    if rank == SEVEN:
        return "SEVENS"
    return "NATURAL" if tw + jk == 0 else "MIXED"


def meld_problem(rank: int, m: Sequence[int]) -> str | None:
    """Why a meld on the table breaks the Ponytail rules (checked independently of simcli.engine.melds)."""
    n, tw, jk = m
    size, w = n + tw + jk, tw + jk
    if size > 7:
        return f"{size} cards, above the cap of 7"
    if rank == WILD_MELD:
        return None if n == 0 and size >= 3 else "a wild meld with naturals or fewer than 3 cards"
    if rank == BLACK_THREE:
        return None if w == 0 and 3 <= n <= 7 else "a black-three meld with wilds or of a bad size"
    if rank in (TWO, RED_THREE):
        return f"a meld in the {RANK_NAMES[rank]} slot"
    if size < 3:
        return f"{size} cards, below 3"
    if w > 3 or n <= w:
        return f"{n} naturals with {w} wilds break STRICT_MAJORITY"
    return None


def all_melds(slots: Sequence[Sequence[int] | None], closed: Sequence[tuple[int, int, int, int]]
              ) -> list[tuple[int, int, int, int]]:
    """Every meld of a team as (rank, naturals, twos, jokers): the rank slots and the closed canastas set aside."""
    return [(rank, m[0], m[1], m[2]) for rank, m in enumerate(slots) if m is not None] + list(closed)


class PonyChecker(DealChecker):
    """The ``emit`` listener of one Ponytail deal: checks the state after every event, then forwards it."""

    def __init__(self, st: DealState, stats: Counter[str], forward: Any = None, where: str = ""):
        super().__init__(st, stats, forward, where)
        self.threes_laid_at_start = False
        self.meld_cache: dict[tuple[int, Any], tuple[str | None, dict[str, int]]] = {}
        self.b3_melds: list[tuple[int, int]] = []
        self.closed_ranks: set[tuple[int, int]] = set()  # (team, rank) with a closed canasta set aside
        self.draw_turn = 0

    # ------------------------------------------------------------------ per event
    def check_state(self, kind: str, data: dict[str, Any] | None = None) -> None:
        st = self.st
        r = self.rules
        total = self.stock_counts(kind)
        for seat in range(st.n_players):
            hand, pony = st.hands[seat], st.ponies[seat]
            self.check_hand(kind, seat, hand)
            if min(pony) < 0:
                self.fail(kind, f"seat {seat}: a negative count in pony {pony}")
            # Dealt red threes wait for their owner's first turn under dealt_threes_laid=FIRST_TURN (§1.9).
            waiting = self.rules.dealt_threes_laid == "FIRST_TURN" and (
                st.seat_turns[seat] == 0 or (kind == "red_three" and st.current == seat))
            if self.threes_laid_at_start and hand[RED_THREE] and not waiting:
                self.fail(kind, f"seat {seat} keeps a red three in hand")
            if not st.pony_picked[seat] and sum(pony) != r.pony_size:
                self.fail(kind, f"seat {seat}: an unpicked pony of {sum(pony)} cards")
            if st.pony_picked[seat] and sum(pony) - pony[RED_THREE]:
                self.fail(kind, f"seat {seat}: a picked-up pony still holds {pony}")
            for rank in range(NUM_RANKS):
                total[rank] += hand[rank] + pony[rank]
        for c in st.pile:
            total[c] += 1
        for team, team_melds in enumerate(st.melds):
            slots = tuple(None if m is None else (m[0], m[1], m[2]) for m in team_melds)
            key = (slots, tuple(st.closed[team]))
            cached = self.meld_cache.get((team, key))
            if cached is None:
                cached = self.meld_cache[(team, key)] = self._judge(*key)
            err, canastas = cached
            if err:
                self.fail(kind, f"team {team}: {err}")
            if {t: n for t, n in st.canastas[team].items() if n} != canastas:
                self.fail(kind, f"team {team}: st.canastas {st.canastas[team]} != {canastas}")
            for rank, n, tw, jk in all_melds(slots, st.closed[team]):
                total[rank] += n
                total[TWO] += tw
                total[JOKER] += jk
            red = sum(st.red_threes_by_seat[s] for s in st.members(team))
            if red != st.red_threes[team]:
                self.fail(kind, f"team {team}: red_threes {st.red_threes[team]} but its seats laid {red}")
        total[RED_THREE] += sum(st.red_threes)
        self.check_pack(kind, total)

    def _judge(self, slots: tuple[Any, ...], closed: tuple[tuple[int, int, int, int], ...]
               ) -> tuple[str | None, dict[str, int]]:
        canastas: Counter[str] = Counter()
        if closed and not self.rules.new_meld_after_closed_canasta:
            return f"closed canastas set aside {closed} with new_meld_after_closed_canasta=false", {}
        for rank, n, tw, jk in closed:
            # RULES.md A-PT-18: only a closed canasta (7 cards, the cap) of a natural rank or of wild cards is
            # set aside; its rank's slot may then hold a new meld.
            if n + tw + jk != 7 or not (rank == WILD_MELD or rank >= 4):
                return f"set aside {RANK_NAMES[rank]} {(n, tw, jk)}, which is not a closed canasta", {}
        for rank, *m in all_melds(slots, closed):
            problem = meld_problem(rank, m)
            engine = meld_error(self.rules, rank, *m, new=True)
            if problem or engine:
                return f"illegal meld of {RANK_NAMES[rank] if rank else 'WILD'} {m}: {problem or engine}", {}
            kind = classify(rank, m)
            if kind:
                canastas[kind] += 1
        return None, dict(canastas)

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        st = self.st
        r = self.rules
        stats = self.stats
        if kind == "deal":
            if st.hand_sizes != [r.hand_size] * st.n_players:
                self.fail(kind, f"dealt hands of {st.hand_sizes} cards")
            if [sum(p) for p in st.ponies] != [r.pony_size] * st.n_players:
                self.fail(kind, f"dealt ponies of {[sum(p) for p in st.ponies]} cards")
        elif kind == "decision":
            self.threes_laid_at_start = True
            if data.get("kind") == "draw":
                self.draw_turn = st.turn
                seat = data["seat"]
                team = st.team_of[seat]
                has_canasta = sum(st.canastas[team].values()) > 0
                if r.pony_unlock == "TEAM_FIRST_CANASTA" and has_canasta and not st.pony_picked[seat]:
                    self.fail(kind, f"seat {seat} draws without its pony although team {team} has a canasta")
                if data.get("value") != "stock":
                    stats["pile_takes"] += 1
        elif kind == "pony_pickup":
            seat = data["seat"]
            team = st.team_of[seat]
            if st.pony_turn[seat] != st.turn:
                self.fail(kind, f"pony_turn[{seat}] = {st.pony_turn[seat]}, turn {st.turn}")
            if r.pony_unlock == "TEAM_FIRST_CANASTA" and not sum(st.canastas[team].values()):
                self.fail(kind, f"seat {seat} picked up its pony before team {team} had a canasta")
            if seat == st.current:
                stats["pony_own_turn"] += 1
            elif r.pony_partner_pickup == "IMMEDIATE_OUT_OF_TURN" and st.team_of[st.current] == team:
                stats["pony_out_of_turn"] += 1
            else:
                self.fail(kind, f"seat {seat} picked up its pony during seat {st.current}'s turn")
            if self.draw_turn == st.turn:
                stats["pony_while_melding"] += 1
            else:
                stats["pony_at_turn_start"] += 1
        elif kind == "red_three":
            stats[f"red_three_{data['source']}"] += 1
        elif kind == "meld":
            rank = rank_of(data["rank"])
            if rank == BLACK_THREE:
                self.b3_melds.append((data["seat"], st.turn))
            if "added" not in data:
                return  # a hand-made event of a checker test
            key = (data["team"], rank)
            added = data["added"]
            if key in self.closed_ranks and data["meld"] == [added["naturals"], added["twos"], added["jokers"]]:
                stats["new_meld_after_closed"] += 1  # A-PT-18: a new meld of a rank the team has closed
            # A meld is set aside exactly when it reaches the cap of 7, and only under the knob.
            closes = sum(data["meld"]) == 7 and r.new_meld_after_closed_canasta and rank != BLACK_THREE
            if bool(data.get("closed")) != closes or (closes and st.melds[data["team"]][rank] is not None):
                self.fail(kind, f"meld {data} closed={data.get('closed')}, slot {st.melds[data['team']][rank]}")
            if closes:
                self.closed_ranks.add(key)
                stats["closed_set_aside"] += 1
        elif kind in ("going_out", "stock_out"):
            self.ended_by = kind
            stats[kind] += 1

    # ------------------------------------------------------------------ end of deal
    def finish(self, result: DealResult) -> None:
        st = self.st
        kind = self.finish_common(result)
        out_team = None
        if result.end_reason == "went_out":
            seat = result.went_out_seat
            if seat is None or st.hand_sizes[seat]:
                self.fail(kind, f"went out with seat {seat}, hand sizes {st.hand_sizes}")
            out_team = st.team_of[seat]
            have = {t: n for t, n in st.canastas[out_team].items() if n}
            if not all(have.get(t) for t in ("NATURAL", "MIXED", "WILD", "SEVENS")):
                self.fail(kind, f"team {out_team} went out with canastas {have}")
            if self.rules.must_pick_pony_before_going_out and not st.pony_picked[seat]:
                self.fail(kind, f"seat {seat} went out without picking up its pony")
            self.stats[OUT_WITH_FOUR] += 1
        elif len(st.stock) >= (1 if self.rules.partial_draw_allowed else self.rules.draw_count):
            self.fail(kind, f"stock_out with {len(st.stock)} cards left")  # A-X-5: fewer than a draw may be left
        elif st.stock:
            self.stats["stock_out_short"] += 1
        self.check_black_three_melds(kind, self.b3_melds, result.went_out_seat)
        self.check_score_sums(kind, result)
        for team, score in enumerate(result.scores):
            expected = self.expected_parts(team, out_team)
            got = {p: v for p, v in score.items() if p != "total" and v}
            if got != expected:
                self.fail(kind, f"team {team}: score parts {got} != recomputed {expected}")

    def expected_parts(self, team: int, out_team: int | None) -> dict[str, int]:
        """The non-zero score parts of ``team``, from the end state and the §2.2 values."""
        st = self.st
        parts: Counter[str] = Counter()
        for rank, *m in all_melds(st.melds[team], st.closed[team]):
            parts["melded"] += m[0] * HAND_VALUE[rank] * (rank != BLACK_THREE) + m[0] * 5 * (rank == BLACK_THREE)
            parts["melded"] += m[1] * 20 + m[2] * 50
            kind = classify(rank, m)
            if kind:
                parts[PART_OF[kind]] += BONUS[kind]
        if team == out_team:
            parts["going_out"] = 200
        parts["red_threes"] = 100 * st.red_threes[team]
        if st.exact_cut_team == team:
            parts["exact_cut"] = 100
        for seat in st.members(team):
            parts["hand"] -= sum(n * HAND_VALUE[x] for x, n in enumerate(st.hands[seat]))
            if not st.pony_picked[seat]:
                parts["pony"] -= sum(n * PONY_VALUE[x] for x, n in enumerate(st.ponies[seat]))
        return {p: v for p, v in parts.items() if v}


# ---------------------------------------------------------------------------------------------- running games
def mix(rules: Any, k: int) -> list[str]:
    """Seat strategies: all random (k = 0), random and greedy alternating (k = 1, 2), all greedy (k = 3)."""
    if k in (0, 3):
        return ["random" if k == 0 else "greedy"] * rules.num_players
    return ["random" if (s + k) % 2 else "greedy" for s in range(rules.num_players)]


def play_checked(rules: Any, seed: int, min_deals: int, stats: Counter[str], mixes: Sequence[int] = (0, 1, 2)) -> int:
    """Play checked games (cycling through the strategy mixes) until ``min_deals`` deals were played."""
    return play_games(rules, seed, stats, lambda st, emit, where: PonyChecker(st, stats, emit, where),
                      lambda g: mix(rules, mixes[g % len(mixes)]), min_deals=min_deals)


# ---------------------------------------------------------------------------------------------- default sample
DEFAULT_DEALS = {"4p": 360, "6p-3x2": 180, "6p-2x3": 180}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def sample(request: pytest.FixtureRequest) -> tuple[str, Counter[str], int]:
    name = request.param
    stats: Counter[str] = Counter()
    t0 = time.perf_counter()
    deals = play_checked(CONFIGS[name], 2024, DEFAULT_DEALS[name], stats)
    report(name, stats, t0)
    return name, stats, deals


def test_sample_keeps_every_invariant(sample: tuple[str, Counter[str], int]) -> None:
    name, stats, deals = sample
    assert deals >= DEFAULT_DEALS[name] and stats["deals"] == deals
    assert stats["going_out"] + stats["stock_out"] == deals


def test_sample_reaches_the_pony_moves(sample: tuple[str, Counter[str], int]) -> None:
    _, stats, _ = sample
    for move in ("pony_while_melding", "pony_at_turn_start", "pile_takes", "red_three_pony", "closed_set_aside",
                 "new_meld_after_closed"):
        assert stats[move] > 0, f"no '{move}' in {dict(stats)}"


def test_checker_catches_a_lost_pony_card() -> None:
    """The checker can fail: a card taken out of a pony is reported."""
    st = prepare_deal(PONYTAIL, deck_cards(6, 2), deal_rng(1, 0), 0, 0, [0, 0])
    checker = PonyChecker(st, Counter())
    checker("cut", {})
    rank = next(x for x in range(NUM_RANKS) if st.ponies[1][x])
    st.ponies[1][rank] -= 1
    with pytest.raises(InvariantError, match="unpicked pony of 12 cards"):
        checker("discard", {})
    st.ponies[1][rank] += 1
    st.melds[0][SEVEN] = [3, 2, 1]
    with pytest.raises(InvariantError, match="STRICT_MAJORITY"):
        checker("meld", {"seat": 0, "rank": "7"})


def test_checker_catches_a_bad_closed_canasta() -> None:
    """The checker can fail: a six-card meld set aside, or a closed canasta set aside without the knob."""
    for rules, needle in ((PONYTAIL, "which is not a closed canasta"),
                          (load_rules("ponytail", {"new_meld_after_closed_canasta": False}),
                           "with new_meld_after_closed_canasta=false")):
        st = prepare_deal(rules, deck_cards(6, 2), deal_rng(1, 0), 0, 0, [0, 0])
        checker = PonyChecker(st, Counter())
        checker("cut", {})
        st.closed[0].append((9, 6 if rules.new_meld_after_closed_canasta else 7, 0, 0))
        st.stock = st.stock[:-6 if rules.new_meld_after_closed_canasta else -7]  # the cards come from the stock
        with pytest.raises(InvariantError, match=needle):
            checker("meld", {"seat": 0, "rank": "9"})


def test_meld_problem_by_hand() -> None:
    assert meld_problem(SEVEN, (5, 1, 1)) is None and classify(SEVEN, (5, 1, 1)) == "SEVENS"
    assert meld_problem(6, (2, 2, 0)) and meld_problem(6, (4, 2, 2)) and meld_problem(6, (8, 0, 0))
    assert meld_problem(WILD_MELD, (0, 4, 3)) is None and classify(WILD_MELD, (0, 4, 3)) == "WILD"
    assert meld_problem(WILD_MELD, (0, 2, 0)) and meld_problem(BLACK_THREE, (3, 1, 0))
    assert classify(6, (5, 1, 1)) == "MIXED" and classify(6, (7, 0, 0)) == "NATURAL" and classify(6, (6, 0, 0)) is None


# ---------------------------------------------------------------------------------------------- 1,000 deals each
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_slow_thousand_deals(name: str) -> None:
    stats: Counter[str] = Counter()
    t0 = time.perf_counter()
    deals = play_checked(CONFIGS[name], 77, 1000, stats)
    report(name, stats, t0)
    assert deals >= 1000 and stats["going_out"] + stats["stock_out"] == deals
    for move in ("pony_while_melding", "pony_at_turn_start", "pile_takes", "red_three_pony", "going_out"):
        assert stats[move] > 0, f"no '{move}' in {dict(stats)}"


@pytest.mark.slow
@pytest.mark.parametrize("knobs", [
    {"pony_unlock": "OWN_FIRST_CANASTA"},
    {"pony_unlock": "HAND_EMPTY"},
    {"pony_partner_pickup": "IMMEDIATE_OUT_OF_TURN"},
    {"seven_freezes_pile": "UPCARD_AND_DISCARD"},
    {"draw_count": 1},
    {"pony_size": 11, "must_pick_pony_before_going_out": False},
    {"new_meld_after_closed_canasta": False},
], ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_slow_knob_settings_keep_invariants(knobs: dict[str, Any]) -> None:
    stats: Counter[str] = Counter()
    t0 = time.perf_counter()
    deals = play_checked(load_rules("ponytail", knobs), 88, 120, stats, mixes=(1, 2))
    report(str(knobs), stats, t0)
    assert stats["going_out"] + stats["stock_out"] == deals


# ---------------------------------------------------------------------------------------------- determinism
def _events(rules: Any, names: list[str], seed: int, game: int) -> list[str]:
    out: list[str] = []
    play_game(rules, names, seed, game, emit=lambda kind, data: out.append(json.dumps([kind, data], sort_keys=True)))
    return out


@pytest.mark.parametrize("name", ["4p", "6p-2x3"])
def test_same_seed_same_event_stream(name: str) -> None:
    rules = CONFIGS[name]
    names = mix(rules, 1)
    a = _events(rules, names, 31, 2)
    b = _events(rules, names, 31, 2)
    assert a == b and len(a) > 500
    assert sum(1 for e in a if e.startswith('["pony_pickup"')) > 0
    assert _events(rules, names, 32, 2) != a


def test_game_alone_equals_game_after_others() -> None:
    names = ["greedy", "random", "greedy", "random"]
    after: list[str] = []
    for g in range(3):
        after = _events(PONYTAIL, names, 9, g)
    assert after == _events(PONYTAIL, names, 9, 2)


# ---------------------------------------------------------------------------------------------- through the CLI
@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_simcli_play_ponytail_to_the_end(strategy: str) -> None:
    res = CliRunner().invoke(main, ["play", "--variant", "ponytail", "--strategies", strategy, "--seed", "4"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"ponytail game, seed 4, game 0; seats 0:{strategy}(team 0)")
    deals = [x for x in lines if x.startswith("deal ")]
    assert 1 <= len(deals) <= 4
    assert lines[-1].startswith(("winner: team", "shared win"))
    totals = [int(part.rsplit("=", 1)[1]) for part in deals[-1].split("|")[1:]]
    assert len(deals) == 4 or max(totals) >= 50_000


@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_simcli_run_ponytail_six_games(strategy: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", "--variant", "ponytail", "--games", "6", "--strategies", strategy,
                                    "--seed", "3", "--jobs", "1", "--quiet", "--out", str(out)])
    assert res.exit_code == 0, res.output
    games = pd.read_parquet(out / "games.parquet")
    deals = pd.read_parquet(out / "deals.parquet")
    assert len(games) == 6 and set(games["game_index"]) == set(range(6))
    assert games["deals"].between(1, 4).all()
    finished = (games["deals"] == 4) | (games[["score_team_0", "score_team_1"]].max(axis=1) >= 50_000)
    assert finished.all()
    assert len(deals) == 2 * games["deals"].sum()
    parts = [c for c in deals.columns if c.startswith("score_") and c != "score_total"]
    assert (deals[parts].sum(axis=1) == deals["score_total"]).all()
    out_rows = deals[deals["went_out"]]
    for kind in ("natural", "mixed", "wild", "sevens"):
        assert (out_rows[f"canastas_{kind}"] >= 1).all()
    assert (out_rows["score_going_out"] == 200).all()
    print(f"\n{strategy}: {len(out_rows)} of {len(deals) // 2} deals ended by going out")


def test_greedy_goes_out_with_the_four_canastas() -> None:
    """Over a modest sample greedy play goes out (always with the four required types: the checker sees to it)."""
    stats: Counter[str] = Counter()
    deals = play_checked(PONYTAIL, 5, 80, stats, mixes=(3,))
    print(f"\ngreedy: {stats[OUT_WITH_FOUR]} of {deals} deals ended by going out with the four canasta types")
    assert stats[OUT_WITH_FOUR] >= 1
