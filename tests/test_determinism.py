"""Determinism: a game is a function of (rules, strategies, master seed, game index) and nothing else.

Same seed -> the same GameResult and the same event stream; another game index -> another deck;
games played before do not matter; the global ``random`` / ``np.random`` states are neither used
nor touched; each seat's strategy has its own random stream; and a fresh interpreter with another
``PYTHONHASHSEED`` plays the same game.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import Events, digest, record_game

from simcli.players.seating import make_strategies, play_game
from simcli.primitives.cards import deck_counts, parse_cards
from simcli.primitives.seeding import deal_rng, first_dealer, seat_rng
from simcli.rules.presets import load_rules

CLASSIC = load_rules("classic")
MIX = ["random", "greedy", "random", "greedy"]
R4 = ["random"] * 4




def deal_decks(events: Events) -> list[list[str]]:
    return [json.loads(data)["deck"] for kind, data in events if kind == "deal"]


@pytest.mark.parametrize("knobs", [{}, {"num_players": 2}, {"num_players": 6}, {"draw_count": 2}],
                         ids=["classic", "2p", "6p", "draw2"])
@pytest.mark.parametrize("names", [R4, MIX], ids=["random", "mixed"])
def test_same_seed_same_game(knobs: dict[str, Any], names: list[str]) -> None:
    rules = load_rules("classic", knobs)
    names = (names * 2)[:rules.num_players]
    a, ev_a = record_game(rules, names, 20240, 3)
    b, ev_b = record_game(rules, names, 20240, 3)
    assert len(ev_a) > 100 and any(kind == "deal_scored" for kind, _ in ev_a)
    assert a.totals == b.totals and a.winner_team == b.winner_team
    assert [d.scores for d in a.deals] == [d.scores for d in b.deals]
    assert a == b  # every field of every DealResult, positions included
    assert ev_a == ev_b


def test_listener_does_not_change_play() -> None:
    with_emit, _ = record_game(CLASSIC, MIX, 77, 1)
    assert play_game(CLASSIC, MIX, 77, 1) == with_emit


def test_another_seed_plays_another_game() -> None:
    a, ev_a = record_game(CLASSIC, R4, 1, 0)
    b, ev_b = record_game(CLASSIC, R4, 2, 0)
    assert deal_decks(ev_a)[0] != deal_decks(ev_b)[0]
    assert ev_a != ev_b


def test_game_index_changes_the_deck() -> None:
    pack = deck_counts(CLASSIC.decks, CLASSIC.jokers_per_deck)
    first_decks = []
    for g in range(6):
        _, events = record_game(CLASSIC, R4, 99, g)
        decks = deal_decks(events)
        for deck in decks:
            ranks = parse_cards(deck)
            assert [ranks.count(r) for r in range(len(pack))] == pack  # a shuffle of the whole pack
        assert len({tuple(d) for d in decks}) == len(decks)  # every deal of a game is shuffled anew
        first_decks.append(tuple(decks[0]))
    assert len(set(first_decks)) == len(first_decks)


def test_decks_do_not_depend_on_the_strategies() -> None:
    """Deal i's shuffle comes from (seed, game, i) alone, not from how earlier deals were played."""
    _, ev_random = record_game(CLASSIC, R4, 5, 2)
    _, ev_greedy = record_game(CLASSIC, ["greedy"] * 4, 5, 2)
    a, b = deal_decks(ev_random), deal_decks(ev_greedy)
    n = min(len(a), len(b))
    assert n >= 2 and a[:n] == b[:n]
    assert ev_random != ev_greedy


def test_other_games_in_between_change_nothing() -> None:
    alone, ev_alone = record_game(CLASSIC, MIX, 31337, 5)
    for g in range(5):
        play_game(CLASSIC, MIX, 31337, g)
    play_game(CLASSIC, ["greedy"] * 4, 8, 5)  # another seed and other strategies, too
    after, ev_after = record_game(CLASSIC, MIX, 31337, 5)
    assert after == alone
    assert ev_after == ev_alone


def _np_state_equal(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and tuple(a[2:]) == tuple(b[2:])


def test_global_random_states_untouched_and_unused() -> None:
    random.seed(12345)
    np.random.seed(54321)
    py_before, np_before = random.getstate(), np.random.get_state()
    first = play_game(CLASSIC, MIX, 2024, 0)
    assert random.getstate() == py_before
    assert _np_state_equal(np.random.get_state(), np_before)
    # ... and the result does not depend on them
    random.seed(1)
    np.random.seed(2)
    assert play_game(CLASSIC, MIX, 2024, 0) == first


def test_each_seat_has_its_own_stream() -> None:
    seed, game = 424242, 7
    firsts = [seat_rng(seed, game, s).integers(2**62, size=4).tolist() for s in range(6)]
    assert len({tuple(f) for f in firsts}) == 6  # every seat draws something different
    assert seat_rng(seed, game, 0).integers(2**62, size=4).tolist() == firsts[0]  # and reproducibly
    assert seat_rng(seed, game + 1, 0).integers(2**62, size=4).tolist() != firsts[0]
    assert deal_rng(seed, game).integers(2**62, size=4).tolist() not in firsts
    assert 0 <= first_dealer(seed, game, 4) < 4

    strategies = make_strategies(R4, seed, game)
    assert len({id(s.rng) for s in strategies}) == 4
    strategies[1].rng.integers(10, size=1000)  # seat 1 draws a lot ...
    strategies[2].rng.random(size=77)
    for s in (0, 3):  # ... which does not move the other seats' streams
        assert strategies[s].rng.integers(2**62, size=4).tolist() == firsts[s]


_CHILD = """
import hashlib, json, sys
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules
h = hashlib.sha256()
def emit(kind, data):
    h.update(kind.encode())
    h.update(json.dumps(data, sort_keys=True).encode())
play_game(load_rules("classic"), sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), emit=emit)
print(h.hexdigest())
"""


def test_fresh_interpreters_with_other_hash_seeds_agree() -> None:
    _, events = record_game(CLASSIC, MIX, 606, 4)
    expected = digest(events)
    root = Path(__file__).resolve().parents[1]
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", _CHILD, ",".join(MIX), "606", "4"], env=env, cwd=root,
                             capture_output=True, text=True, timeout=120, check=True)
        assert out.stdout.strip() == expected, out.stderr
