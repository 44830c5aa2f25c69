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


def may_hold_kept_three(st: DealState, seat: int) -> bool:
    """Whether ``seat``'s hand may hold a bonus three kept before its team opened, as far as anyone can tell
    (``may_hold_one_three_before_opening``, RULES.md §1.9 and §2.3: one three at most, laid at the start of the
    holder's first turn after the team opened).

    Public information only: the team has not opened, or it opened (``first_meld_turn``) at or after the start of
    ``seat``'s last turn, which the strict rotation of turns gives (the player of turn ``st.turn`` is
    ``st.current``). A kept three laid early by a wing that reaches the hand during the opening turn itself is not
    ruled out: the fallback below may then give a hand a three it has just laid, a world slightly too wide, never
    none. (The wing knobs are read only in the wings feature module.)
    """
    if not st.rules.may_hold_one_three_before_opening:
        return False
    opened_at = st.first_meld_turn[st.team_of[seat]]
    if opened_at is None:
        return True
    back = 0  # turns since ``seat``'s last turn began
    s = seat
    while s != st.current and back < st.n_players:
        s = st.next_seat(s)
        back += 1
    return st.turn - back <= opened_at


def three_positions(st: DealState, seat: int, places: list[HiddenPlace], threes: int) -> list[int]:
    """The hidden positions (indices into the places' positions, in order) that may get the ``threes`` unseen bonus
    threes: every position of a place flagged to hold them (:func:`hidden_places`); only if those are too few,
    also the first position of each other hand that may still hold a three kept before opening
    (:func:`may_hold_kept_three`: one a hand).

    The fallback comes second so that every information set the flagged places can explain is sampled as before
    (the same worlds from the same random stream); it is the only explanation left when they cannot, e.g. a kept
    three while the stock is empty (issue 47: Americana under ``draw_count=2``). Raises ``ValueError`` when even
    the fallback has too few places.
    """
    allowed: list[int] = []
    kept: list[tuple[int, int]] = []  # (a hand's first position, its seat) for the hands not flagged
    pos = 0
    for kind, idx, n, may in places:
        if may:
            allowed.extend(range(pos, pos + n))
        elif kind == "hand" and n:
            kept.append((pos, idx))
        pos += n
    if threes <= len(allowed):
        return allowed
    allowed = sorted(allowed + [k for k, s in kept if may_hold_kept_three(st, s)])
    if threes > len(allowed):
        raise ValueError(f"inconsistent information set for seat {seat}: nowhere to put the {threes} bonus threes "
                         f"({len(allowed)} hidden places may hold one)")
    return allowed


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
        threes = [r for r in bonus for _ in range(pool[r])]
        allowed = three_positions(st, seat, places, len(threes))
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
