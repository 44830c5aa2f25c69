"""The forward model (simcli.players.forward): sampled worlds leak nothing hidden, account for every card, and play
on."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from simcli.engine.dealing import new_deal
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.forward import clone, rank_totals, rollout, sample_world, seen_counts
from simcli.players.seating import play_game
from simcli.primitives.cards import BLACK_THREE, RED_THREE, deck_counts
from simcli.rules.presets import load_rules
from simcli.strategies.search.inference import HandPool
from simcli.strategy import Strategy, load_strategy

VARIANTS = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana", "spanish": "spanish"}


def snapshot(st: DealState) -> dict[str, Any]:
    """Every slot of a state, for comparing two states."""
    return {name: getattr(st, name) for name in DealState.__slots__ if name not in ("_meld_tables", "_meld_dicts")}


def twin(st: DealState, seat: int, rng: np.random.Generator) -> DealState:
    """The same state with hidden cards moved: the stock reshuffled and a card of the next player's unknown
    hand swapped with a stock card (when there is one that differs), built without the sampler."""
    other = clone(st)
    other.stock = [other.stock[i] for i in rng.permutation(len(other.stock)).tolist()]
    other.deck = [other.deck[i] for i in rng.permutation(len(other.deck)).tolist()]
    nxt = (seat + 1) % st.n_players
    hand, known = other.hands[nxt], other.known[nxt]
    for r, n in enumerate(hand):
        if n > known[r]:
            for k, card in enumerate(other.stock):
                if card != r and not st.is_bonus_three[card]:
                    hand[r] -= 1
                    hand[card] += 1
                    other.stock[k] = r
                    return other
    return other


class Probe(Strategy):
    """Plays like ``policy`` and checks the forward model at every decision of its seat."""

    def __init__(self, policy: Strategy, seed: int):
        super().__init__(policy.rng)
        self.policy = policy
        self.rng2 = np.random.default_rng(seed)
        self.checked = 0

    def _check(self, view: PlayerView, phase: str, decision: Any) -> Any:
        st = view._st
        pack = deck_counts(st.rules.decks, st.rules.jokers_per_deck)
        assert rank_totals(st) == pack
        seed = int(self.rng2.integers(1 << 30))
        world = view.sample_world(np.random.default_rng(seed))
        assert rank_totals(world) == pack  # a sample accounts for every card of the pack
        assert world.hand_sizes == st.hand_sizes and len(world.stock) == len(st.stock)
        assert all(sum(h) == n for h, n in zip(world.hands, world.hand_sizes, strict=True))
        assert world.hands[view.seat] == st.hands[view.seat]
        assert seen_counts(world, view.seat) == seen_counts(st, view.seat)
        # No leak: a state differing only in hidden cards gives the very same sample.
        for other in (twin(st, view.seat, self.rng2), world):
            again = sample_world(other, view.seat, np.random.default_rng(seed))
            assert snapshot(again) == snapshot(world)
        if self.checked % 7 == 0:  # a rollout from the sample finishes the deal under the same rules
            result = rollout(clone(world), phase, decision, [self.policy] * st.n_players)
            assert result.end_reason in ("went_out", "stock_out")
            assert world.stock == again.stock  # the rollout played a clone
        self.checked += 1
        return decision

    def choose_draw(self, view: PlayerView) -> Any:
        """The policy's draw, checked."""
        return self._check(view, "draw", self.policy.choose_draw(view))

    def choose_melds(self, view: PlayerView) -> Any:
        """The policy's melds, checked."""
        return self._check(view, "melds", self.policy.choose_melds(view))

    def choose_discard(self, view: PlayerView) -> Any:
        """The policy's discard, checked."""
        return self._check(view, "discard", self.policy.choose_discard(view))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The policy's."""
        return self.policy.hold_three(view, rank)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_samples_are_consistent_and_leak_nothing(variant: str) -> None:
    rules = load_rules(variant, {"max_hands": 1})
    cls = load_strategy(VARIANTS[variant])
    players: list[Strategy] = [cls(np.random.default_rng(s)) for s in range(rules.num_players)]
    probes = [Probe(players[0], 1), Probe(players[1], 2)]
    players[0], players[1] = probes
    play_game(rules, [VARIANTS[variant]] * rules.num_players, 3, strategies=players)
    assert min(p.checked for p in probes) > 10


def test_sample_hides_what_others_hold_but_keeps_what_was_seen() -> None:
    rules = load_rules("classic", {"max_hands": 1})
    states: list[DealState] = []

    class Grab(Strategy):
        def choose_discard(self, view: PlayerView) -> int | None:
            st = view._st
            if any(sum(k) for k in st.known) and not states:
                states.append(clone(st))
            return super().choose_discard(view)

    greedy = load_strategy("greedy")
    players = [Grab(np.random.default_rng(0))] + [greedy(np.random.default_rng(s)) for s in range(1, 4)]
    for game in range(20):
        play_game(rules, ["x"] * 4, game, strategies=players)
        if states:
            break
    st = states[0]
    seat = st.current
    holder = next(s for s in range(4) if sum(st.known[s]) and s != seat)
    worlds = [sample_world(st, seat, np.random.default_rng(k)) for k in range(30)]
    # The cards seen going into another hand stay there in every sample ...
    for w in worlds:
        assert all(w.hands[holder][r] >= n for r, n in enumerate(st.known[holder]))
    # ... while the rest of the hidden cards move between samples.
    assert len({tuple(w.stock) for w in worlds}) == 30
    assert len({tuple(w.hands[(seat + 1) % 4]) for w in worlds}) > 1


def _mutables(value: Any, found: dict[int, str], path: str) -> None:
    """Record the id of every list, dict and set inside ``value``."""
    if isinstance(value, (list, dict, set)):
        found[id(value)] = path
        for i, x in enumerate(value.values() if isinstance(value, dict) else value):
            _mutables(x, found, f"{path}[{i}]")


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_clone_copies_every_slot_and_shares_nothing_mutable(variant: str) -> None:
    """DealState.clone() is written out slot by slot: each slot equal in the copy, no list or dict shared."""
    rules = load_rules(variant, {"max_hands": 1})
    states: list[DealState] = []

    class Grab(Strategy):
        def choose_discard(self, view: PlayerView) -> int | None:
            if view.turn >= 12 * (1 + len(states)) and len(states) < 4:  # mid-deal states with melds and takes
                states.append(view._st)
                states.append(clone(view._st))
            return super().choose_discard(view)

    heuristic = load_strategy(VARIANTS[variant])
    players: list[Strategy] = [heuristic(np.random.default_rng(s)) for s in range(rules.num_players)]
    players[0] = type("GrabHeuristic", (Grab, heuristic), {})(np.random.default_rng(0))
    play_game(rules, [VARIANTS[variant]] * rules.num_players, 5, strategies=players)
    assert states
    for st, copy in zip(states[::2], states[1::2], strict=True):
        for name in DealState.__slots__:
            assert hasattr(copy, name), name
        shared_mutables: dict[int, str] = {}
        for name in DealState.__slots__:
            _mutables(getattr(copy, name), shared_mutables, name)
        originals: dict[int, str] = {}
        for name in DealState.__slots__:
            _mutables(getattr(st, name), originals, name)
        assert not set(shared_mutables) & set(originals), [shared_mutables[i] for i in set(shared_mutables)
                                                            & set(originals)]
    # The copies were taken while play went on: each equals its original at the time it was taken, which the
    # engine then changed; compare a fresh copy with its original instead.
    st = states[0]
    copy = clone(st)
    for name in DealState.__slots__:
        assert getattr(copy, name) == getattr(st, name), name


def _kept_three_position(opened_at: int | None, threes: int = 1) -> DealState:
    """An Americana deal seen by seat 0 at the start of turn 10 (seats 1, 2, 3 played turns 7, 8, 9) with an empty
    stock and ``threes`` unseen red threes, the first in seat 3's hand: every other bonus three laid, the stock's
    cards in seat 0's own hand. Team 0 opened at turn 5 (seat 2 has played since: it holds no three); team 1
    (seats 1 and 3) opened at turn ``opened_at`` (``None``: not yet). Issue 47's crash, built by hand."""
    rules = load_rules("americana", {"draw_count": "2", "wing_sizes": "none"})
    rng = np.random.default_rng(5)
    deck = rng.permutation([r for r, n in enumerate(deck_counts(rules.decks, rules.jokers_per_deck))
                            for _ in range(n)]).tolist()
    st = new_deal(rules, deck, 3, 0, [0, 0], cut_count=0)
    for card in st.stock:
        st.hands[0][card] += 1
    st.hand_sizes[0] += len(st.stock)
    st.stock = []
    for s in range(4):  # every bonus three on the table (team 0's), then ``threes`` red ones into hidden hands
        for r in (RED_THREE, BLACK_THREE):
            n = st.hands[s][r]
            st.hands[s][r] = 0
            st.hand_sizes[s] -= n
            (st.red_threes if r == RED_THREE else st.black_threes)[0] += n
    for s in (3, 1)[:threes]:
        st.red_threes[0] -= 1
        st.hands[s][RED_THREE] += 1
        st.hand_sizes[s] += 1
    st.turn, st.current = 10, 0
    st.seat_turns = [3, 2, 2, 2]
    st.opened = [True, opened_at is not None]
    st.first_meld_turn = [5, opened_at]
    assert rank_totals(st) == deck_counts(rules.decks, rules.jokers_per_deck)
    return st


@pytest.mark.parametrize(("opened_at", "holders"), [(None, {1, 3}), (9, {1, 3}), (8, {1})])
def test_a_kept_three_goes_to_a_hand_that_may_keep_it(opened_at: int | None, holders: set[int]) -> None:
    """Issue 47: with the stock empty, an unseen bonus three can only be one kept before opening (Americana,
    RULES.md §1.9): it goes to a hand whose team had not opened when that player's last turn began, one a hand,
    both in sample_world and in the search's pools (HandPool). The sampler used to refuse the position."""
    st = _kept_three_position(opened_at)
    found = set()
    for k in range(40):
        world = sample_world(st, 0, np.random.default_rng(k))
        assert rank_totals(world) == rank_totals(st)
        holding = [s for s in range(4) if world.hands[s][RED_THREE]]
        assert len(holding) == 1 and world.hands[holding[0]][RED_THREE] == 1
        found |= set(holding)
    assert found == holders
    pool = HandPool(sample_world(st, 0, np.random.default_rng(0)), 0, 40, np.random.default_rng(1))
    in_pool = {pool.seats[i] for w, i in zip(*np.nonzero(pool.hands[:, :, RED_THREE]), strict=True)}
    assert in_pool == holders
    assert all(rank_totals(pool.world(w)) == rank_totals(st) for w in range(3))


def test_more_unseen_threes_than_hands_that_may_keep_one_is_refused() -> None:
    """Two unseen threes (in seats 3 and 1), an empty stock, and team 1 opened at turn 6, before both its players'
    last turns (7 and 9), which would have laid a kept three: no world explains it, and the sampler says so."""
    st = _kept_three_position(6, threes=2)
    with pytest.raises(ValueError, match="nowhere to put the 2 bonus threes"):
        sample_world(st, 0, np.random.default_rng(0))
