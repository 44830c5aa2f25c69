"""What a player has seen, and the worlds consistent with it: the information set below the view.

The forward model's first half, on the engine's own :class:`~simcli.engine.state.DealState` and nothing above it (it
imports only cards, state and numpy), so that :class:`~simcli.engine.view.PlayerView` can offer
:meth:`~simcli.engine.view.PlayerView.sample_world` without reaching up into the engine; rollouts, ``Forced`` and
``margin`` stay above the engine in :mod:`simcli.players.forward`, which re-exports these names.

* :func:`seen_counts` — the cards a seat has seen, by rank: its own hand, every meld, the laid bonus
  threes, the face-up cards of the pile, and the cards every player saw go into another hand with a pile
  take and that have not left it since (``DealState.known``, kept by the engine).
* :func:`unseen_counts` and :func:`hidden_places` — the rest of the pack, and the places it may be in (other
  hands, stock, ponies, wings, face-down pile cards), with their public sizes.
* :func:`sample_world` — a full deal state consistent with that and with every public count, the unseen cards
  dealt at random among the hidden places. It reads nothing hidden, so two true states that differ only in
  hidden cards give the same sample for the same random stream (``tests/test_no_leak.py`` proves it, with twins
  built without the sampler).
"""

from __future__ import annotations

import numpy as np

from simcli.engine.state import DealState
from simcli.primitives.cards import BLACK_THREE, NUM_RANKS, RED_THREE, deck_counts

#: A hidden place: (kind, index, how many cards, may it hold bonus threes). Kinds: ``hand`` (index: seat),
#: ``stock``, ``pony`` (seat), ``wing`` (index among the wings), ``pending`` (seat: a wing won, not yet taken),
#: ``void`` (a wing set aside for good) and ``pile`` (position of a face-down pile card).
HiddenPlace = tuple[str, int, int, bool]


def clone(st: DealState) -> DealState:
    """An independent copy of a deal state (the rule set and table layout are shared)."""
    return st.clone()


def rank_totals(st: DealState) -> list[int]:
    """Every card of the deal by rank, wherever it is (hands, stock, pile, melds, threes, ponies, wings)."""
    total = [0] * NUM_RANKS
    for group in (st.hands, st.ponies, st.wings, [w for w in st.wing_pending if w is not None], st.wings_void):
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
    for team_closed in st.closed:  # closed canastas set aside under new_meld_after_closed_canasta
        for r, n, tw, jk in team_closed:
            total[r] += n
            total[1] += tw
            total[0] += jk
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


def hidden_places(st: DealState, seat: int) -> list[HiddenPlace]:
    """The places ``seat`` cannot see into, in a fixed order (see :data:`HiddenPlace`), with their public sizes."""
    places: list[HiddenPlace] = []
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
    for s, pending in enumerate(st.wing_pending):
        if pending is not None:
            places.append(("pending", s, sum(pending), True))
    for i, wing in enumerate(st.wings_void):  # wings set aside for good (wing_after_pile_opening=THREE), face down
        places.append(("void", i, sum(wing), True))
    for i in st.facedown_positions():
        places.append(("pile", i, 1, True))
    return places


def check_counts(pool: list[int], positions: int, seat: int) -> None:
    """Refuse an information set whose unseen cards (``pool``, by rank) do not fill its hidden ``positions``."""
    unseen = 0
    negative = False
    for n in pool:  # a loop, not any()/sum() over a generator: a world is sampled at every search decision
        unseen += n
        negative = negative or n < 0
    if negative or unseen != positions:
        raise ValueError(f"inconsistent information set for seat {seat}: {unseen} unseen cards for "
                         f"{positions} hidden positions")


def sample_world(st: DealState, seat: int, rng: np.random.Generator) -> DealState:
    """A full deal state consistent with what ``seat`` has seen, the unseen cards dealt at random.

    Reads only what ``seat`` may know (own hand, table, face-up pile, publicly known cards in other
    hands, and the sizes of every hidden place), so the result depends on the true hidden cards not at
    all. Bonus threes (laid at once when drawn) go only where a player could hold them unseen.
    """
    pool = unseen_counts(st, seat)
    places = hidden_places(st, seat)
    slots: list[int] = []  # the place of each hidden card position, in place order
    for i, (_, _, n, _) in enumerate(places):
        slots.extend([i] * n)
    check_counts(pool, len(slots), seat)
    bonus = [r for r in range(NUM_RANKS) if st.is_bonus_three[r] and pool[r]]
    rest = [r for r in range(NUM_RANKS) if r not in bonus for _ in range(pool[r])]
    rng.shuffle(rest)  # = [rest[j] for j in rng.permutation(len(rest))]: the same swaps from the same draws
    if bonus:  # the bonus threes first, uniformly over the positions that may hold them
        allowed = [k for k, i in enumerate(slots) if places[i][3]]
        threes = [r for r in bonus for _ in range(pool[r])]
        if len(threes) > len(allowed):
            raise ValueError(f"inconsistent information set for seat {seat}: nowhere to put the bonus threes")
        cards = [-1] * len(slots)
        spots = list(range(len(allowed)))
        rng.shuffle(spots)  # rng.permutation(len(allowed)), as above
        for r, k in zip(threes, spots[:len(threes)], strict=True):
            cards[allowed[k]] = r
        it = iter(rest)
        cards = [next(it) if c < 0 else c for c in cards]
    else:
        cards = rest

    world = clone(st)
    world.deck = []  # the true shuffled pack is hidden
    world.validated = None
    fill_hidden(world, places, cards)
    return world


def fill_hidden(world: DealState, places: list[HiddenPlace], cards: list[int]) -> None:
    """Deal ``cards`` (a rank for every hidden position, in the order of ``places``, :func:`hidden_places`' list of
    the world's hidden places) into ``world``, in place: each place's cards are a contiguous run of ``cards``, a hand's
    added to the cards publicly known in it. :func:`sample_world` and the search's pools of worlds
    (:class:`simcli.strategies.search.inference.HandPool`) fill their worlds with it."""
    pos = 0
    for kind, idx, n, _ in places:
        chunk = cards[pos:pos + n]
        pos += n
        if kind == "stock":
            world.stock = chunk
            continue
        if kind == "pile":
            world.pile[idx] = chunk[0]
            continue
        counts = list(world.known[idx]) if kind == "hand" else [0] * NUM_RANKS
        for card in chunk:
            counts[card] += 1
        if kind == "hand":
            world.hands[idx] = counts
        elif kind == "pony":
            world.ponies[idx] = counts
        elif kind == "wing":
            world.wings[idx] = counts
        elif kind == "void":
            world.wings_void[idx] = counts
        else:
            world.wing_pending[idx] = counts
