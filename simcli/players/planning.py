"""Helpers for writing strategies: plans built from a hand's rank-count vector.

These are conveniences, not rules: every plan is still checked by the engine
(strategies can check first with ``view.check_melds`` / ``view.check_take``).

Written for the compiler (this module is compiled in the default install): counts are read from lists of ints, and
the meld actions come from :func:`meld_of` and :func:`take_of`, which hand out one shared object per distinct action
instead of building a named tuple (an interpreted ``__new__``) at every decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, Meld, TakePile, _DrawStock
from simcli.primitives.cards import ACE, CARD_VALUES, FOUR, JOKER, NUM_RANKS, SEVEN, TWO
from simcli.rules.ruleset import RuleSet

#: Natural ranks from the most valuable down (A, K ... 8, 7 ... 4).
RANKS_BY_VALUE: Final[tuple[int, ...]] = tuple(sorted(range(FOUR, ACE + 1), key=lambda r: (-CARD_VALUES[r], -r)))

#: The meld actions :func:`meld_of` keeps, by rank, naturals (below _NATURALS) and twos and jokers (below _WILDS); a
#: larger action (more decks than the presets use) is built each time. A Meld is an immutable tuple compared by
#: value, so sharing one object between plans changes nothing a strategy or the engine can see.
_NATURALS: Final = 16
_WILDS: Final = 8
_MELDS: Final[list[Meld | None]] = [None] * (NUM_RANKS * _NATURALS * _WILDS * _WILDS)
#: ``TakePile(meld)`` with no extra melds, at the index of its meld in _MELDS.
_TAKES: Final[list[TakePile | None]] = [None] * (NUM_RANKS * _NATURALS * _WILDS * _WILDS)


def _slot(rank: int, naturals: int, twos: int, jokers: int) -> int:
    """The index of an action in _MELDS, or -1 when it is not kept."""
    if 0 <= rank < NUM_RANKS and 0 <= naturals < _NATURALS and 0 <= twos < _WILDS and 0 <= jokers < _WILDS:
        return ((rank * _NATURALS + naturals) * _WILDS + twos) * _WILDS + jokers
    return -1


def meld_of(rank: int, naturals: int = 0, twos: int = 0, jokers: int = 0) -> Meld:
    """``Meld(rank, naturals, twos, jokers)``, the same object every time it is asked for (see _MELDS)."""
    i = _slot(rank, naturals, twos, jokers)
    if i < 0:
        return Meld(rank, naturals, twos, jokers)
    m = _MELDS[i]
    if m is None:
        m = _MELDS[i] = Meld(rank, naturals, twos, jokers)
    return m


def take_of(m: Meld) -> TakePile:
    """``TakePile(m)`` (no extra melds), the same object every time it is asked for."""
    i = _slot(m[0], m[1], m[2], m[3])
    if i < 0:
        return TakePile(m)
    take = _TAKES[i]
    if take is None:
        take = _TAKES[i] = TakePile(m)
    return take


def take_wilds(hand: list[int], count: int, prefer_jokers: bool = False) -> tuple[int, int]:
    """Take up to ``count`` wild cards from ``hand`` (mutating it); return ``(twos, jokers)``."""
    if prefer_jokers:
        jokers = min(count, hand[JOKER])
        hand[JOKER] -= jokers
        twos = min(count - jokers, hand[TWO])
        hand[TWO] -= twos
    else:
        twos = min(count, hand[TWO])
        hand[TWO] -= twos
        jokers = min(count - twos, hand[JOKER])
        hand[JOKER] -= jokers
    return twos, jokers


def penalized_ranks(rules: RuleSet) -> frozenset[int]:
    """Ranks whose meld costs a penalty if left short of a canasta (Americana: pure aces, sevens)."""
    out = set()
    if rules.aces_special and rules.incomplete_penalty_pure_aces < 0:
        out.add(ACE)
    if rules.canasta_bonus_sevens is not None and rules.incomplete_penalty_sevens < 0:
        out.add(SEVEN)
    return frozenset(out)


def opening_plan(hand: Sequence[int], minimum: int, already: int = 0, exclude: int | None = None,
                 max_wilds: int = 1, avoid: frozenset[int] = frozenset(),
                 no_wild_ranks: frozenset[int] = frozenset()) -> list[Meld] | None:
    """Melds from ``hand`` worth at least ``minimum - already`` points, or ``None`` if none found.

    Lays every natural triple (or more) first, then pairs with one wild card each,
    then extra wild cards, most valuable ranks first. ``exclude`` skips one rank
    (the pile's top card when opening by taking the pile). Ranks in ``avoid`` are not laid as
    natural triples (a penalty if left short of a canasta); ranks in ``no_wild_ranks`` never take a wild.
    """
    left = list(hand)  # a list of ints: read natively by the compiled build (a Sequence is read generically)
    skip = -1 if exclude is None else exclude
    # Quick bound: every natural in a triple or better, plus each wild card with a pair.
    bound = already
    wilds = left[TWO] + left[JOKER]
    for r in RANKS_BY_VALUE:
        c = left[r]
        if (c >= 3 and (not avoid or r not in avoid)) or (c == 2 and wilds):
            bound += c * CARD_VALUES[r]
    if bound + 50 * wilds < minimum:
        return None
    value = already
    plan: list[Meld] = []
    for r in RANKS_BY_VALUE:
        c = left[r]
        if r != skip and c >= 3 and (not avoid or r not in avoid):
            plan.append(meld_of(r, c))
            value += c * CARD_VALUES[r]
            left[r] = 0
    if value >= minimum:
        return plan
    for r in RANKS_BY_VALUE:
        if value >= minimum:
            break
        if r != skip and left[r] == 2 and left[TWO] + left[JOKER] > 0 and (
                not no_wild_ranks or r not in no_wild_ranks):
            tw, jk = take_wilds(left, 1, prefer_jokers=True)
            plan.append(meld_of(r, 2, tw, jk))
            value += 2 * CARD_VALUES[r] + 20 * tw + 50 * jk
            left[r] = 0
    if value < minimum and plan and max_wilds > 1:
        # top up the first meld with wild cards (the engine checks the wild rule)
        first = plan[0]
        extra_tw, extra_jk = take_wilds(left, 1, prefer_jokers=True)
        if extra_tw or extra_jk:
            plan[0] = meld_of(first.rank, first.naturals, first.twos + extra_tw, first.jokers + extra_jk)
            value += 20 * extra_tw + 50 * extra_jk
    return plan if value >= minimum else None


def closes_melds(rules: RuleSet) -> int | None:
    """The size at which a meld is a closed canasta that frees its rank for a new meld, or ``None``.

    That is ``meld_max_size`` under ``new_meld_after_closed_canasta`` (RULES.md A-PT-18); without the knob (or
    without a size cap) a team has one meld per rank for the whole deal.
    """
    if rules.new_meld_after_closed_canasta and rules.meld_max_size:
        return int(rules.meld_max_size)
    return None


def naturals_plan(rules: RuleSet, rank: int, count: int, meld: Sequence[int] | None,
                  min_new: int | None = None) -> list[Meld]:
    """Meld actions laying up to ``count`` naturals of ``rank`` from the hand, given the team's meld ``meld``.

    The cards fill the team's meld of the rank up to ``meld_max_size`` (a new meld needs ``min_new`` cards, by
    default ``meld_min_size``). Under ``new_meld_after_closed_canasta`` the cards left once that meld is closed
    start new melds of the rank, each of ``min_new`` cards or more and at most ``meld_max_size``. Cards that fit
    nowhere stay in the hand. The engine still checks the plan.
    """
    out: list[Meld] = []
    add_naturals(out, rank, count, 0 if meld is None else meld[0] + meld[1] + meld[2],
                 rules.meld_max_size or 1 << 20, closes_melds(rules),
                 rules.meld_min_size if min_new is None else min_new)
    return out


def add_naturals(out: list[Meld], rank: int, count: int, size: int, cap: int, close_at: int | None,
                 min_new: int) -> int:
    """:func:`naturals_plan`'s melds appended to ``out``, from the team's meld of ``size`` cards, the size cap
    ``cap``, :func:`closes_melds`' ``close_at`` and ``min_new``; returns the naturals they lay. A strategy that
    plans every rank reads the knobs once and calls this (greedy)."""
    if close_at is not None and size >= close_at:
        size = 0  # a closed canasta takes nothing more: the cards start a new meld
    used = 0
    while count > 0:
        room = cap - size
        n = min(count, room)
        if n <= 0 or (size == 0 and n < min_new):
            break
        out.append(meld_of(rank, n))
        count -= n
        used += n
        if close_at is None or size + n < close_at:
            break
        size = 0  # that meld is closed: the next cards start a new one
    return used


def melds_value(melds: Sequence[Meld]) -> int:
    """Card points of the cards in ``melds``."""
    return sum(m.naturals * CARD_VALUES[m.rank] + 20 * m.twos + 50 * m.jokers for m in melds)


def opening_take(hand: Sequence[int], meld: Meld, minimum: int, opened: bool,
                 only_if_needed: bool = False) -> TakePile | None:
    """A pile take of the top card (``meld.rank``) with ``meld`` from the hand, plus the opening melds a team
    that has not opened needs: the top card counts toward ``minimum``, the rest of the pile does not.

    ``None`` when no opening plan reaches the minimum. With ``only_if_needed`` no extra melds are added
    when the take meld alone reaches it (otherwise every natural triple goes down with it).
    """
    if opened:
        return take_of(meld)
    top = meld.rank
    already = (meld.naturals + 1) * CARD_VALUES[top] + 20 * meld.twos + 50 * meld.jokers
    if only_if_needed and already >= minimum:
        return take_of(meld)
    left = list(hand)
    left[top] -= meld.naturals
    left[TWO] -= meld.twos
    left[JOKER] -= meld.jokers
    plan = opening_plan(left, minimum, already, exclude=top)
    return None if plan is None else TakePile(meld, tuple(plan))


def legal_draws(view: PlayerView) -> list[_DrawStock | TakePile]:
    """The stock (unless the pile must be taken), then each distinct legal take of the pile of the kinds a heuristic
    makes: the top card with 2 to all of its naturals in hand, onto the team's meld of its rank (alone or with one
    natural), and with all its naturals and a wild card; each with the opening melds a team that has not opened
    needs (:func:`opening_take`). The one enumeration of the draws: the search's candidates
    (:func:`simcli.strategies.search.candidates.draw_candidates`, in this order) and a person's choices at the table
    (:mod:`simcli.viewer.choices`)."""
    out: list[_DrawStock | TakePile] = [] if view.must_take_pile else [DRAW_STOCK]
    top = view.pile_top
    if top is None or top < FOUR:
        return out
    hand = view.hand
    n = hand[top]
    melds = [Meld(top, k) for k in range(2, n + 1)]
    if view.meld(top) is not None:
        melds += [Meld(top, k) for k in range(0, min(n, 1) + 1)]
    if n >= 1:
        left = list(hand)
        tw, jk = take_wilds(left, 1)
        if tw or jk:
            melds.append(Meld(top, n, tw, jk))
    minimum, opened = view.minimum, view.has_opened
    for meld in melds:
        take = opening_take(hand, meld, minimum, opened)
        if take is not None and take not in out and view.check_take(take) is None:
            out.append(take)
    return out
