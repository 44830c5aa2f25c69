"""A person's choices at a decision, from what their :class:`~simcli.engine.view.PlayerView` allows.

The legal draws (the stock, and each take of the pile the rules accept), the single meld actions that fit the plan
built so far, the legal discards; typed moves (``take K K + A A A``, ``K K 2``, ``K``) parsed into decisions; every
decision said in words. Whether a move is legal is always the view's answer (``check_take``, ``check_melds``,
``discard_error``: the engine's judge), so a refusal carries the rule's own reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.view import PlayerView
from simcli.players.planning import legal_draws
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand, TakePile
from simcli.primitives.cards import (
    BLACK_THREE,
    JOKER,
    NATURAL_RANKS,
    RANK_NAMES,
    TWO,
    WILD_MELD,
    CardError,
    parse_cards,
)
from simcli.viewer.words import SPECIAL_WORDS, meld_cards, sort_cards


def meld_text(m: Meld) -> str:
    """A meld action's cards: ``K K 2``."""
    rank = "WILD" if m.rank == WILD_MELD and not m.naturals else RANK_NAMES[m.rank]
    return meld_cards(rank, m.naturals, m.twos, m.jokers)


def describe(decision: Any) -> str:
    """A decision in words: ``draw from the stock``, ``take the pile with K K``, ``lay K K K``, ``discard 7``."""
    if decision is DRAW_STOCK:
        return "draw from the stock"
    if isinstance(decision, TakePile):
        text = (f"take the pile with {meld_text(decision.meld)}" if decision.meld.size
                else "take the pile, laying its top card on your meld")
        return text + ("".join(f" + {meld_text(m)}" for m in decision.extra))
    if isinstance(decision, int):
        return f"discard {RANK_NAMES[decision]}"
    plan = list(decision)
    if plan and isinstance(plan[0], SpecialHand):
        return f"lay a special hand: {SPECIAL_WORDS.get(plan[0].kind, plan[0].kind)}"
    return "lay " + ", ".join(meld_text(m) for m in plan) if plan else "lay nothing more"


def draw_options(view: PlayerView) -> list[Any]:
    """The legal draws: the stock (unless the pile must be taken) and each distinct legal take of the pile, as the
    search weighs them (:func:`simcli.players.planning.legal_draws`); any other legal take can be typed."""
    return list(legal_draws(view))


def _planned(plan: Sequence[Meld]) -> list[int]:
    """Cards of each rank a plan takes from the hand."""
    used = [0] * len(RANK_NAMES)
    for m in plan:
        if m.rank != WILD_MELD:
            used[m.rank] += m.naturals
        used[TWO] += m.twos
        used[JOKER] += m.jokers
    return used


def meld_options(view: PlayerView, plan: Sequence[Meld]) -> list[Meld]:
    """Single meld actions that the rules accept on top of ``plan`` (not yet checked as a whole turn): every
    natural of a rank (alone, or with a 2 or a joker), a wild card onto a meld, all wild cards as a wild meld,
    the black threes of a player going out."""
    hand = view.hand
    used = _planned(plan)
    left = [h - u for h, u in zip(hand, used, strict=True)]
    planned = {m.rank for m in plan}
    candidates: list[Meld] = []
    for r in sorted(NATURAL_RANKS, reverse=True):
        if left[r]:
            candidates.append(Meld(r, left[r]))
            if left[TWO]:
                candidates.append(Meld(r, left[r], 1, 0))
            if left[JOKER]:
                candidates.append(Meld(r, left[r], 0, 1))
        if view.meld(r) is not None or r in planned:
            if left[TWO]:
                candidates.append(Meld(r, 0, 1, 0))
            if left[JOKER]:
                candidates.append(Meld(r, 0, 0, 1))
    if view.rules.wild_melds_allowed and left[TWO] + left[JOKER]:
        candidates.append(Meld(WILD_MELD, 0, left[TWO], left[JOKER]))
    if left[BLACK_THREE] >= 3:
        candidates.append(Meld(BLACK_THREE, left[BLACK_THREE]))
    return [m for m in candidates if view.check_melds([*plan, m], partial=True) is None]


def special_options(view: PlayerView) -> list[SpecialHand]:
    """The special hands (Americana) the rules let this player lay now."""
    return [SpecialHand(kind) for kind in view.rules.special_hands if view.check_special(kind) is None]


def parse_meld(text: str) -> Meld:
    """Typed cards as one meld action: ``K K 2`` (K with a 2), ``2 2 JK`` (wild cards only: the wild meld),
    ``B3 B3 B3``. Wild cards alone onto a meld of a rank are typed ``K: 2`` (:func:`parse_wild_onto`)."""
    ranks = parse_cards(text)
    if not ranks:
        raise CardError("no cards given")
    naturals = {r for r in ranks if r not in (TWO, JOKER)}
    if len(naturals) > 1:
        raise CardError("one meld at a time: cards of one rank, with 2s and jokers")
    twos, jokers = ranks.count(TWO), ranks.count(JOKER)
    if not naturals:
        return Meld(WILD_MELD, 0, twos, jokers)
    rank = naturals.pop()
    return Meld(rank, len(ranks) - twos - jokers, twos, jokers)


def parse_wild_onto(text: str) -> Meld | None:
    """``K: 2`` or ``K:2 JK``: wild cards (only) onto the meld of K; ``None`` if the text is not of that form."""
    head, sep, tail = text.partition(":")
    if not sep:
        return None
    rank = parse_cards(head)
    wilds = parse_cards(tail)
    if len(rank) != 1 or not wilds or any(r not in (TWO, JOKER) for r in wilds):
        raise CardError("after 'RANK:' give only 2s and jokers, e.g. K: 2")
    return Meld(rank[0], 0, wilds.count(TWO), wilds.count(JOKER))


def parse_take(text: str) -> TakePile:
    """``take K K`` or ``take K K 2 + A A A`` (the take's meld, then opening melds): a pile take."""
    groups = [g.strip() for g in text.split("+")]
    first = parse_meld(groups[0]) if groups[0] else None
    if first is None or first.rank == WILD_MELD:
        raise CardError("say the cards from your hand that go with the top card, e.g. take K K")
    return TakePile(first, tuple(parse_meld(g) for g in groups[1:] if g))


def hand_text(view: PlayerView) -> str:
    """The player's hand, sorted by rank: ``A A K 9 9 4 2 JK``."""
    return " ".join(sort_cards([RANK_NAMES[r] for r, n in enumerate(view.hand) for _ in range(n)]))
