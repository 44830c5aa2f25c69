"""The forward model for search players: information sets, sampled worlds, cheap clones and rollouts.

A search player needs to ask "what happens if I do X?" without seeing the cards it may not see. This
module answers in three steps, all on the engine's own :class:`~simcli.state.DealState` so that a
rollout follows exactly the same rules and validation as a real game:

* :func:`seen_counts` — the cards a seat has seen, by rank: its own hand, every meld, the laid bonus
  threes, the face-up cards of the pile, and the cards every player saw go into another hand with a pile
  take and that have not left it since (``DealState.known``, kept by the engine).
* :func:`sample_world` — a full deal state consistent with that and with every public count (hand sizes,
  stock size, ponies, wings and face-down pile cards), the unseen cards dealt at random among the hidden
  places. It reads nothing hidden, so two true states that differ only in hidden cards give the same
  sample for the same random stream (``tests/test_forward.py`` proves it).
* :func:`rollout` — play a (sampled or cloned) state from the current player's pending decision to the
  end of the deal with given strategies, the first decision forced (:class:`Forced`), and score it.

Everything is plain lists, so a clone costs tens of microseconds and a Classic rollout about a millisecond.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simcli.cards import BLACK_THREE, NUM_RANKS, RED_THREE, deck_counts
from simcli.deal import Deal, DealResult
from simcli.state import DealState
from simcli.strategy import Strategy

#: The decision points a rollout can resume from (see :meth:`simcli.deal.Deal.resume`).
PHASES = ("draw", "melds", "discard")

# Slots whose values are never mutated in place (shared between clones), and slots that are flat lists.
_SHARED = frozenset({
    "layout", "rules", "n_players", "n_teams", "team_of", "step", "is_bonus_three", "validated",
})
_FLAT = frozenset({
    "team_scores", "minimum", "hand_sizes", "stock", "pile", "opened", "first_meld_turn", "has_melded",
    "seat_turns", "team_took", "req_checked", "pony_picked", "black_threes", "black_threes_by_seat",
    "wing_taken", "pony_unlocked", "pony_turn", "made_canasta", "req_met_turn", "clean_canastas",
    "first_clean_turn", "red_threes", "red_threes_by_seat", "upcards", "deck", "castigado_log", "wing_log",
    "_meld_tables", "_meld_dicts",
})


def _deep(value: Any) -> Any:
    """Copy nested lists and dicts (ints, strings, tuples and None are shared)."""
    t = type(value)
    if t is list:
        return [_deep(x) if type(x) in (list, dict) else x for x in value]
    if t is dict:
        return {k: _deep(v) for k, v in value.items()}
    return value


def clone(st: DealState) -> DealState:
    """An independent copy of a deal state (the rule set and table layout are shared)."""
    new = DealState.__new__(DealState)
    for name in DealState.__slots__:
        try:
            value = getattr(st, name)
        except AttributeError:
            continue
        if name in _SHARED:
            setattr(new, name, value)
        elif name in _FLAT:
            setattr(new, name, value[:] if type(value) is list else value)
        else:  # nested lists (hands, melds, ...) and any slot added later: copied deeply to be safe
            setattr(new, name, _deep(value))
    return new


def rank_totals(st: DealState) -> list[int]:
    """Every card of the deal by rank, wherever it is (hands, stock, pile, melds, threes, ponies, wings)."""
    total = [0] * NUM_RANKS
    for group in (st.hands, st.ponies, st.wings, [w for w in st.wing_pending if w is not None]):
        for counts in group:
            for r, n in enumerate(counts):
                total[r] += n
    for card in st.stock:
        total[card] += 1
    for card in st.pile:
        total[card] += 1
    _add_table(st, total)
    return total


def _add_table(st: DealState, total: list[int]) -> None:
    """Add the cards on the table in front of the teams (melds and laid threes) to ``total``."""
    for team_melds in st.melds:
        for r, m in enumerate(team_melds):
            if m is not None:
                total[r] += m[0]
                total[1] += m[1]  # twos
                total[0] += m[2]  # jokers
    total[RED_THREE] += sum(st.red_threes)
    total[BLACK_THREE] += sum(st.black_threes)


def seen_counts(st: DealState, seat: int) -> list[int]:
    """The cards ``seat`` has seen and knows where they are, by rank (see the module docstring)."""
    seen = list(st.hands[seat])
    _add_table(st, seen)
    pile = st.pile
    for card in pile:
        seen[card] += 1
    for i in st.facedown_positions():
        seen[pile[i]] -= 1
    for s in range(st.n_players):
        if s != seat:
            for r, n in enumerate(st.known[s]):
                seen[r] += n
    return seen


def unseen_counts(st: DealState, seat: int) -> list[int]:
    """The cards ``seat`` has not seen, by rank: the full pack minus :func:`seen_counts`."""
    rules = st.rules
    pack = deck_counts(rules.decks, rules.jokers_per_deck)
    return [a - b for a, b in zip(pack, seen_counts(st, seat), strict=True)]


def _hidden_places(st: DealState, seat: int) -> list[tuple[str, int, int, bool]]:
    """The hidden places in a fixed order: (kind, index, how many cards, may it hold bonus threes)."""
    places: list[tuple[str, int, int, bool]] = []
    first_turn_threes = st.rules.dealt_threes_laid == "FIRST_TURN"
    for s in range(st.n_players):
        if s != seat:
            # Bonus threes are laid at once; only a hand that has not had its first turn may still hold them.
            places.append(("hand", s, st.hand_sizes[s] - sum(st.known[s]),
                           first_turn_threes and st.seat_turns[s] == 0))
    places.append(("stock", 0, len(st.stock), True))
    for s in range(st.n_players):
        if not st.pony_picked[s]:
            places.append(("pony", s, sum(st.ponies[s]), True))
    for i, wing in enumerate(st.wings):
        places.append(("wing", i, sum(wing), True))
    for s, wing in enumerate(st.wing_pending):
        if wing is not None:
            places.append(("pending", s, sum(wing), True))
    for i in st.facedown_positions():
        places.append(("pile", i, 1, True))
    return places


def sample_world(st: DealState, seat: int, rng: np.random.Generator) -> DealState:
    """A full deal state consistent with what ``seat`` has seen, the unseen cards dealt at random.

    Reads only what ``seat`` may know (own hand, table, face-up pile, publicly known cards in other
    hands, and the sizes of every hidden place), so the result depends on the true hidden cards not at
    all. Bonus threes (laid at once when drawn) go only where a player could hold them unseen.
    """
    pool = unseen_counts(st, seat)
    places = _hidden_places(st, seat)
    slots: list[int] = []  # place index of each hidden card position
    for i, (_, _, n, _) in enumerate(places):
        slots.extend([i] * n)
    if any(n < 0 for n in pool) or sum(pool) != len(slots):
        raise ValueError(f"inconsistent information set for seat {seat}: {sum(pool)} unseen cards for "
                         f"{len(slots)} hidden positions")
    bonus = [r for r in range(NUM_RANKS) if st.is_bonus_three[r] and pool[r]]
    cards: list[int] = [-1] * len(slots)
    if bonus:  # the bonus threes first, uniformly over the positions that may hold them
        allowed = [k for k, i in enumerate(slots) if places[i][3]]
        threes = [r for r in bonus for _ in range(pool[r])]
        if len(threes) > len(allowed):
            raise ValueError(f"inconsistent information set for seat {seat}: nowhere to put the bonus threes")
        picks = rng.permutation(len(allowed))[:len(threes)]
        for r, k in zip(threes, picks.tolist(), strict=True):
            cards[allowed[k]] = r
    rest = [r for r in range(NUM_RANKS) if r not in bonus for _ in range(pool[r])]
    order = rng.permutation(len(rest)).tolist()
    free = [k for k, c in enumerate(cards) if c < 0]
    for k, j in zip(free, order, strict=True):
        cards[k] = rest[j]

    world = clone(st)
    world.deck = []  # the true shuffled pack is hidden
    world.validated = None
    for s in range(st.n_players):
        if s != seat:
            world.hands[s] = list(st.known[s])
    world.stock = []
    for s in range(st.n_players):
        if not st.pony_picked[s]:
            world.ponies[s] = [0] * NUM_RANKS
    world.wings = [[0] * NUM_RANKS for _ in st.wings]
    world.wing_pending = [None if w is None else [0] * NUM_RANKS for w in st.wing_pending]
    for k, card in enumerate(cards):
        kind, idx, _, _ = places[slots[k]]
        if kind == "hand":
            world.hands[idx][card] += 1
        elif kind == "stock":
            world.stock.append(card)
        elif kind == "pony":
            world.ponies[idx][card] += 1
        elif kind == "wing":
            world.wings[idx][card] += 1
        elif kind == "pending":
            world.wing_pending[idx][card] += 1  # type: ignore[index]
        else:
            world.pile[idx] = card
    return world


class Forced(Strategy):
    """Plays ``decision`` at the first ``phase`` decision of a rollout, then defers to ``policy``."""

    name = "forced"

    def __init__(self, policy: Strategy, phase: str, decision: Any):
        super().__init__(policy.rng)
        self.policy = policy
        self.phase = phase
        self.decision = decision
        self.pending = True

    def _take(self, phase: str) -> bool:
        if self.pending and phase == self.phase:
            self.pending = False
            return True
        return False

    def choose_draw(self, view: Any) -> Any:
        """The forced draw, then the policy's."""
        return self.decision if self._take("draw") else self.policy.choose_draw(view)

    def choose_melds(self, view: Any) -> Any:
        """The forced melds, then the policy's."""
        return self.decision if self._take("melds") else self.policy.choose_melds(view)

    def choose_discard(self, view: Any) -> Any:
        """The forced discard, then the policy's."""
        return self.decision if self._take("discard") else self.policy.choose_discard(view)

    def hold_three(self, view: Any, rank: int) -> bool:
        """The policy's."""
        return self.policy.hold_three(view, rank)

    def ask_to_go_out(self, view: Any) -> bool:
        """The policy's."""
        return self.policy.ask_to_go_out(view)

    def answer_go_out(self, view: Any) -> bool:
        """The policy's."""
        return self.policy.answer_go_out(view)


def rollout(world: DealState, phase: str, decision: Any, policies: Sequence[Strategy]) -> DealResult:
    """Play ``world`` from the current player's pending ``phase`` decision, which is ``decision``, to the
    end of the deal, every seat then played by ``policies[seat]``; return the scored deal.

    ``world`` is played in place: pass a :func:`clone` to keep it.
    """
    seat = world.current
    players = list(policies)
    players[seat] = Forced(policies[seat], phase, decision)
    return Deal(world, players).resume(phase)


def margin(result: DealResult, team: int) -> int:
    """A team's deal score minus the best other team's."""
    totals = [s["total"] for s in result.scores]
    return totals[team] - max(t for i, t in enumerate(totals) if i != team)
