"""The forward model (simcli.players.forward): sampled worlds leak nothing hidden, account for every card, and play
on."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.forward import clone, rank_totals, rollout, sample_world, seen_counts
from simcli.players.seating import play_game
from simcli.primitives.cards import deck_counts
from simcli.rules.presets import load_rules
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
