"""Twins for the no-leak tests: the same deal state with hidden cards moved, built without the sampler.

A state's hidden places are found here from the rules and the state's own slots, not from
:mod:`simcli.engine.worlds` (whose list of hidden places is what the tests check): the unknown part of every other
hand (the hand minus the cards all saw go into it, ``DealState.known``), the stock (order included), every
face-down pony (the player's own too), the Americana wings still set aside, pending and void, and the face-down
cards of a Spanish initial pile (walked from the rules: ``initial_pile_facedown`` cards, then each upcard, a
covered one followed by ``upcard_cover_facedown`` face-down cards).

:func:`twins` gives one twin per hidden place (a card of it swapped with a different card of another hidden
place), a reshuffled stock, and one with every hidden card dealt anew at once. Bonus threes never move into a
hand (a hand that has had its turn would have laid them). :func:`public_outputs` lists everything a
:class:`~simcli.engine.view.PlayerView` answers (every property, every method over its arguments, every check over a
set of candidate moves), computed on a clone so that the checks' validation cache stays out of the real game.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.planning import opening_take
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import FOUR, JOKER, NUM_RANKS, TWO

#: A hidden place: (kind, index): ("hand", seat), ("stock", 0), ("pony", seat), ("wing", i), ("pending", seat),
#: ("void", i) or ("pile", position in the pile).
Place = tuple[str, int]
VECTORS = {"pony": "ponies", "wing": "wings", "pending": "wing_pending", "void": "wings_void"}


#: DealState's attributes: its __slots__, or on the compiled build (a native class has none at run time) the list
#: mypyc keeps.
SLOTS: tuple[str, ...] = tuple(getattr(DealState, "__slots__", None) or DealState.__mypyc_attrs__)


def snapshot(st: DealState) -> dict[str, Any]:
    """Every slot of a state (less the caches), for comparing two states."""
    return {name: getattr(st, name) for name in SLOTS if name not in ("_meld_tables", "_meld_dicts")}


def expand(counts: list[int]) -> list[int]:
    """A rank-count vector as a list of cards, lowest rank first."""
    return [r for r, n in enumerate(counts) for _ in range(n)]


def facedown_pile(st: DealState) -> list[int]:
    """Positions in the pile of cards nobody has seen, walked from the rules (no card was taken yet).

    Before the first take every completed turn added one discard, so the initial pile is the pile less the
    ``turn - 1`` discards on top of it.
    """
    r = st.rules
    if st.first_take_done:
        return []
    initial = len(st.pile) - (st.turn - 1)
    down = list(range(min(r.initial_pile_facedown, initial)))
    pos = len(down)
    faceup = []
    while pos < initial:
        card = st.pile[pos]
        faceup.append(card)
        pos += 1
        if card in r.upcard_cover_ranks and pos < initial:
            covers = list(range(pos, min(pos + r.upcard_cover_facedown, initial - 1)))
            down += covers
            pos += len(covers)
    assert faceup == st.upcards, (faceup, st.upcards)  # the walk found the upcards the deal recorded
    return down


def hidden_places(st: DealState, seat: int) -> list[Place]:
    """Every place holding cards ``seat`` has not seen (see the module docstring)."""
    places: list[Place] = [("hand", s) for s in range(st.n_players)
                           if s != seat and st.hand_sizes[s] > sum(st.known[s])]
    if st.stock:
        places.append(("stock", 0))
    places += [("pony", s) for s in range(st.n_players) if sum(st.ponies[s])]
    places += [("wing", i) for i, w in enumerate(st.wings) if sum(w)]
    places += [("pending", s) for s, w in enumerate(st.wing_pending) if w is not None and sum(w)]
    places += [("void", i) for i, w in enumerate(st.wings_void) if sum(w)]
    places += [("pile", i) for i in facedown_pile(st)]
    return places


def cards_at(st: DealState, place: Place) -> list[int]:
    """The hidden cards of a place (a hand's unknown part only; the stock in order, its top card last)."""
    kind, idx = place
    if kind == "hand":
        return expand([h - k for h, k in zip(st.hands[idx], st.known[idx], strict=True)])
    if kind == "stock":
        return list(st.stock)
    if kind == "pile":
        return [st.pile[idx]]
    return expand(getattr(st, VECTORS[kind])[idx])


def put_cards(st: DealState, place: Place, cards: list[int]) -> None:
    """Replace a place's hidden cards with ``cards`` (as many as it holds)."""
    kind, idx = place
    counts = [0] * NUM_RANKS
    for c in cards:
        counts[c] += 1
    if kind == "hand":
        st.hands[idx] = [k + c for k, c in zip(st.known[idx], counts, strict=True)]
    elif kind == "stock":
        st.stock = list(cards)
    elif kind == "pile":
        st.pile[idx] = cards[0]
    else:
        getattr(st, VECTORS[kind])[idx] = counts


def _may_hold(st: DealState, place: Place, card: int) -> bool:
    return place[0] != "hand" or not st.is_bonus_three[card]


def swapped(st: DealState, place: Place, places: list[Place], rng: np.random.Generator) -> DealState | None:
    """A clone with one card of ``place`` swapped with a different card of another hidden place (``None`` when
    every other hidden card is the same rank, or no swap keeps bonus threes out of hands)."""
    mine = cards_at(st, place)
    options = []
    for other in places:
        if other == place:
            continue
        theirs = cards_at(st, other)
        for i, a in enumerate(mine):
            for j, b in enumerate(theirs):
                if a != b and _may_hold(st, place, b) and _may_hold(st, other, a):
                    options.append((other, i, j))
    if not options:
        return None
    other, i, j = options[int(rng.integers(len(options)))]
    twin = st.clone()
    a_cards, b_cards = cards_at(twin, place), cards_at(twin, other)
    a_cards[i], b_cards[j] = b_cards[j], a_cards[i]
    put_cards(twin, place, a_cards)
    put_cards(twin, other, b_cards)
    return twin


def reshuffled(st: DealState, places: list[Place], rng: np.random.Generator) -> DealState:
    """A clone with every hidden card dealt anew among the hidden places (sizes kept, bonus threes not in hands)."""
    twin = st.clone()
    sizes = [len(cards_at(st, p)) for p in places]
    pool = [c for p in places for c in cards_at(st, p)]
    pool = [pool[k] for k in rng.permutation(len(pool)).tolist()]
    owner = [i for i, n in enumerate(sizes) for _ in range(n)]
    for k, card in enumerate(pool):  # a bonus three dealt to a hand changes places with a card that may go there
        if not _may_hold(st, places[owner[k]], card):
            j = next(j for j, c in enumerate(pool) if _may_hold(st, places[owner[j]], card)
                     and _may_hold(st, places[owner[k]], c))
            pool[k], pool[j] = pool[j], pool[k]
    pos = 0
    for place, n in zip(places, sizes, strict=True):
        put_cards(twin, place, pool[pos:pos + n])
        pos += n
    return twin


def twins(st: DealState, seat: int, rng: np.random.Generator) -> Iterator[tuple[str, DealState]]:
    """(name, twin) for each hidden place that has a card to swap, the reshuffled stock and everything at once.

    Names are the place's kind (``hand:partner``, ``hand:opponent``, ``stock``, ``stock_order``, ``pony:own``,
    ``pony:other``, ``wing``, ``pending``, ``void``, ``pile``, ``all``).
    """
    places = hidden_places(st, seat)
    team = st.team_of[seat]
    for place in places:
        twin = swapped(st, place, places, rng)
        if twin is not None:
            yield place_name(place, seat, team, st), twin
    if len(st.stock) > 1 and len(set(st.stock)) > 1:
        twin = st.clone()
        while twin.stock == st.stock:
            twin.stock = [st.stock[k] for k in rng.permutation(len(st.stock)).tolist()]
        yield "stock_order", twin
    yield "all", reshuffled(st, places, rng)


def place_name(place: Place, seat: int, team: int, st: DealState) -> str:
    """The kind of a hidden place as the tests count them."""
    kind, idx = place
    if kind == "hand":
        return "hand:partner" if st.team_of[idx] == team else "hand:opponent"
    if kind == "pony":
        return "pony:own" if idx == seat else "pony:other"
    return kind


# ------------------------------------------------------------------------------------------ public outputs
#: The view's methods that take arguments, with how they are called in :func:`public_outputs`; every other
#: public attribute of PlayerView must be a property (tests/test_no_leak.py checks that nothing is left out).
METHODS = ("melds", "meld_table", "meld", "closed_canastas", "canastas", "clean_canastas", "hidden_canastas",
           "check_melds", "check_take", "check_special", "discard_error", "legal_discards", "go_out_error",
           "sample_world", "melds_if_yes")


def properties() -> list[str]:
    """The names of PlayerView's public properties (data descriptors: a compiled class's are not ``property``)."""
    return sorted(n for n in dir(PlayerView)
                  if not n.startswith("_") and inspect.isdatadescriptor(getattr(PlayerView, n)))


def candidate_takes(view: PlayerView) -> list[TakePile]:
    """Pile takes worth checking: the top card with 0-3 naturals and 0-1 of each wild, alone and with the
    opening melds a team that has not opened would add."""
    top = view.pile_top
    if top is None:
        return [TakePile(Meld(FOUR, 2))]
    out = []
    for n in range(4):
        for tw in range(2):
            for jk in range(2):
                m = Meld(top, n, tw, jk)
                out.append(TakePile(m))
                take = opening_take(view.hand, m, view.minimum, view.has_opened)
                if take is not None and take not in out:
                    out.append(take)
    return out


def candidate_melds(view: PlayerView) -> list[list[Meld]]:
    """Meld plans worth checking: each rank in hand alone (all of it, three of it, two with a wild), and all the
    naturals of the hand at once."""
    hand = view.hand
    plans: list[list[Meld]] = []
    for r in range(NUM_RANKS):
        if not hand[r] or r in (TWO, JOKER):
            continue
        plans.append([Meld(r, hand[r])])
        plans.append([Meld(r, min(hand[r], 3))])
        plans.append([Meld(r, min(hand[r], 2), min(hand[TWO], 1), 0)])
        plans.append([Meld(r, 1, 0, min(hand[JOKER], 1))])
    plans.append([Meld(r, n) for r, n in enumerate(hand) if n and r >= FOUR])
    return plans


def public_outputs(st: DealState, seat: int, extra: Callable[[PlayerView], dict[str, Any]] | None = None
                   ) -> dict[str, Any]:
    """Everything ``seat``'s view answers about a clone of ``st``, by name (``sample_world`` apart)."""
    view = PlayerView(st.clone(), seat)
    out: dict[str, Any] = {name: getattr(view, name) for name in properties()}
    for team in (None, *range(view.n_teams)):
        for name in ("melds", "meld_table", "closed_canastas", "canastas", "clean_canastas", "hidden_canastas"):
            out[f"{name}({team})"] = getattr(view, name)(team)
        for r in range(NUM_RANKS):
            out[f"meld({r}, {team})"] = view.meld(r, team)
    for r in range(NUM_RANKS):
        out[f"discard_error({r})"] = view.discard_error(r)
    out["legal_discards"] = view.legal_discards()
    out["go_out_error"] = view.go_out_error()
    for kind in (*view.rules.special_hands, "NO_SUCH_HAND"):
        out[f"check_special({kind})"] = view.check_special(kind)
    for take in candidate_takes(view):
        out[f"check_take({take})"] = view.check_take(take)
    for plan in candidate_melds(view):
        out[f"check_melds({plan})"] = view.check_melds(plan)
        out[f"check_melds({plan}, partial)"] = view.check_melds(plan, partial=True)
    # Supposing a "yes" (issue 51): the same checks, as a strategy deciding whether to ask reads them.
    plans = candidate_melds(view)
    out["melds_if_yes"] = view.melds_if_yes(lambda v: [(v.check_melds(p), v.legal_discards()) for p in plans])
    if extra is not None:
        out.update(extra(view))
    return out
