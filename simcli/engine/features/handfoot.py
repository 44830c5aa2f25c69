"""Hand and Foot (RULES.md §2.5, RULES-hand-and-foot.md §3.8.3): the knobs that variant brought to the engine.

The foot is the engine's pony (:mod:`simcli.engine.features.ponies`, unlocked by an empty hand); this module holds
the rules Hand and Foot adds on top, each behind its knob so that every other preset pays one test at most:

* ``pile_take_count``: a take gets only the top cards of the pile (:func:`take_start`; the rest stays, and may keep
  the pile frozen: :func:`frozen_after_take`), and the judge counts only those as reaching the hand
  (:func:`take_gain`);
* ``pile_take_requires_team_opened``: only a team that has opened may take the pile (:func:`take_gate_error`);
* ``wild_top_takeable``: a two or joker on top taken with two more of its kind (:func:`wild_take_error`);
* ``go_out_partners_in_pony``: every partner in their foot before a going out (:func:`partners_error`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from simcli.engine.state import DealState
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import BLACK_THREE, IS_WILD, JOKER, RANK_NAMES, RED_THREE, TWO, WILD_MELD
from simcli.primitives.seeding import human_cut
from simcli.rules.ruleset import RuleSet

#: Upcards a deal can bury before the random places run out (then the middle of the stock): 8 in a row is
#: (3/18)^8 ~ 1e-6 with 5 decks.
BURY_DRAWS = 8


def deal_draws(rules: RuleSet, rng: np.random.Generator, deck_size: int) -> tuple[list[float], list[int]] | None:
    """The deal stream's draws for ``upcard_reject_mode=BURY`` (where each buried upcard goes) and
    ``self_deal_exact_bonus`` (each player's grab), drawn after the shuffle and the cuts so that they never change
    the deal's cards; both are drawn when either knob is on, so that the other knob never changes later deals.
    None when both are off: no draw, the other variants' streams are untouched."""
    if rules.upcard_reject_mode != "BURY" and not rules.self_deal_exact_bonus:
        return None
    bury = [float(u) for u in rng.random(BURY_DRAWS)]
    target = rules.hand_size + rules.pony_size
    return bury, [human_cut(rng, target, rules.cut_sigma, deck_size) for _ in range(rules.num_players)]


def bury_upcard(st: DealState, u: float) -> None:
    """``upcard_reject_mode=BURY``: the upcard just turned goes back into the stock, at place ``u`` (0..1) of it but
    never on top; it leaves no mark on the pile (no freeze)."""
    card = st.pile.pop()
    st.upcards.pop()
    st.buried_upcards += (card,)
    stock = st.stock
    stock.insert(int(u * len(stock)), card)
    st.pile_frozen = False


def settle_deck(st: DealState) -> None:
    """After the initial pile under ``upcard_reject_mode=BURY``: :attr:`DealState.deck` becomes the order the cards
    are dealt in once the rejected upcards are back in the stock (dealt cards, the pile, then the stock from its top),
    so that the stock stays the undrawn top of the deck."""
    deck, pile, stock = st.deck, st.pile, st.stock
    st.deck = deck[:len(deck) - len(stock) - len(pile)] + pile + stock[::-1]


def self_deal_exact(st: DealState, team: int) -> int:
    """Members of ``team`` whose self-deal grab was exact (``self_deal_exact_bonus``)."""
    target = st.rules.hand_size + st.rules.pony_size
    return sum(1 for s in st.members(team) if st.self_deal_grabs and st.self_deal_grabs[s] == target)


def self_deal_json(st: DealState) -> dict[str, object]:
    """The ``self_deal`` trace event: each seat's grab, its target, which were exact and each team's bonus."""
    target = st.rules.hand_size + st.rules.pony_size
    bonus = st.rules.self_deal_exact_bonus
    return {"counts": list(st.self_deal_grabs), "target": target,
            "exact": [g == target for g in st.self_deal_grabs],
            "bonus": [bonus * self_deal_exact(st, t) for t in range(st.n_teams)]}


def take_gate_error(st: DealState, seat: int) -> str | None:
    """Why ``seat`` may not take the pile under ``pile_take_requires_team_opened``, or ``None``."""
    if st.rules.pile_take_requires_team_opened and not st.opened[st.team_of[seat]]:
        return "the pile may be taken only by a team that has opened (pile_take_requires_team_opened=true)"
    return None


def take_start(st: DealState) -> int:
    """Index in :attr:`DealState.pile` of the lowest card a take gets (``pile_take_count``; 0 = the whole pile)."""
    k = st.rules.pile_take_count
    size = len(st.pile)
    return 0 if k is None or k >= size else size - k


def take_gain(st: DealState) -> int:
    """Cards of the pile that a take brings into the hand: those it gets (:func:`take_start`) but its top card,
    without the bonus threes the taker can see when they are laid unreplaced (``red_three_from_pile_replaced``)."""
    pile = st.pile
    start = take_start(st)
    gained = len(pile) - start - 1
    if st.rules.red_three_from_pile_replaced:
        return gained
    # Only the bonus threes the taker can see are laid without reaching the hand: a face-down card (a Spanish
    # initial pile) counts as a card gained, so that the answer depends on public cards only.
    bonus = st.is_bonus_three
    if start:  # pile_take_count: only the top cards are taken (no face-down card among them: presets.validate)
        return gained - sum(1 for i in range(start, len(pile)) if bonus[pile[i]])
    threes = pile.count(RED_THREE) + (pile.count(BLACK_THREE) if bonus[BLACK_THREE] else 0)
    if threes:
        threes -= sum(1 for i in st.facedown_positions() if bonus[pile[i]])
    return gained - threes


def frozen_after_take(st: DealState, start: int) -> bool:
    """Whether the cards a take left (``pile[:start]``, ``pile_take_count``) keep the pile frozen: a wild card among
    them under ``freeze_on_wild_discard``. Their new top card is face up."""
    return st.rules.freeze_on_wild_discard and any(IS_WILD[c] for c in st.pile[:start])


def wild_take_error(st: DealState, seat: int, take: TakePile,
                    melds_error: Callable[..., str | None]) -> str | None:
    """Why ``seat`` may not take the pile under a two or joker with ``take`` (``wild_top_takeable``), or ``None``.

    The take meld is a wild meld of exactly two wild cards of the top card's kind from the hand; with the top card
    they join the team's wild meld or start one, and are judged (with ``take.extra``) as melds laid from the hand by
    ``melds_error`` (the judge's, passed in: features sit below the judge), the top card counted in the opening."""
    top = st.pile[-1]
    m = take.meld
    if m.rank != WILD_MELD or m.naturals or (m.twos, m.jokers) != ((2, 0) if top == TWO else (0, 2)):
        return (f"a {RANK_NAMES[top]} on top is taken with two more {RANK_NAMES[top]} from the hand as a wild meld "
                "(wild_top_takeable)")
    err = take_gate_error(st, seat)
    if err or any(x.rank == WILD_MELD for x in take.extra):
        return err or "extra melds may not repeat the wild meld of the take"
    hand, sizes = st.hands[seat], st.hand_sizes
    hand[top] += 1  # the top card as if from the hand, for one check of the whole meld (undone below)
    sizes[seat] += 1
    try:
        whole = Meld(WILD_MELD, 0, m.twos + (top == TWO), m.jokers + (top == JOKER))
        melds: Sequence[Meld] = (whole, *take.extra)
        return melds_error(st, seat, melds, hand_bonus=take_gain(st))
    finally:
        hand[top] -= 1
        sizes[seat] -= 1


def partners_error(st: DealState, seat: int) -> str | None:
    """Why ``seat`` may not go out while a partner is not in the foot (``go_out_partners_in_pony``), or ``None``.

    PICKED_UP: every partner has picked up the foot. PLAYED_FROM (pagat): also, each has played from it, by running
    into it (picking it up in the meld phase, then playing on) or by starting a turn since walking into it."""
    mode = st.rules.go_out_partners_in_pony
    if mode == "OFF":
        return None
    for s in st.partners(seat):
        if not st.pony_picked[s]:
            return "cannot go out: every partner must first pick up the foot (go_out_partners_in_pony)"
        if mode == "PLAYED_FROM" and st.seat_turns[s] < st.pony_ready[s]:
            return ("cannot go out: every partner must first play from the foot (go_out_partners_in_pony="
                    "PLAYED_FROM)")
    return None
