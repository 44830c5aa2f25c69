"""The parts of a learnt player's row that depend on the rules beyond the rule features (issue 47): the match's
state (feature version 2) and the ranks the rules have closed to a team for the rest of the deal (version 4).

Both come from the :class:`~simcli.engine.view.PlayerView` alone: its rules, the scores before the deal and the
teams' melds on the table, all of them public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from simcli.engine.view import PlayerView
from simcli.primitives.cards import FOUR, NUM_RANKS

#: No rank closed (a list shared by every decision where the rules close none; never written).
NO_DEAD: Final[list[int]] = [0] * NUM_RANKS


class Closed(NamedTuple):
    """What the rules have closed for the deal at a decision (feature version 4): the size at which a meld closes
    its rank for good (0: none does), the ranks closed to the own team and to every other team, and the cards of
    the own team's closed ranks in the seat's hand."""

    cap: int
    own: list[int]
    others: list[int]
    in_hand: int


#: Nothing closed: the rules close no rank (no ``meld_max_size``, or ``new_meld_after_closed_canasta`` on).
NONE_CLOSED: Final = Closed(0, NO_DEAD, NO_DEAD, 0)


def table_totals(table: tuple[tuple[int, int, int] | None, ...]) -> list[int]:
    """Cards in each rank's meld of a team's meld table (0 without one)."""
    out = [0] * NUM_RANKS
    for r, m in enumerate(table):
        if m is not None:
            out[r] = m[0] + m[1] + m[2]
    return out


def closed_ranks(view: PlayerView, hand: list[int], own: list[int], others: list[int]) -> Closed:
    """What the rules have closed at ``view``'s decision (:class:`Closed`): ``hand`` and ``own`` are the seat's
    hand and its team's meld cards by rank, ``others`` the other teams."""
    cap = closed_for_good(view)
    if not cap:
        return NONE_CLOSED
    dead = dead_ranks(own, cap)
    return Closed(cap, dead, dead_for_all([table_totals(view.meld_table(t)) for t in others], cap),
                  count_dead(hand, dead))


def match_counts(view: PlayerView, own: int, other: int) -> list[int]:
    """The match's state that depends on the rules (issue 47), as counts: the deals left under ``max_hands``
    counting this one (/10, at most 20; 20 without a cap), whether this is the last, whether there is no cap; the
    own and the best other team's distance to ``game_target`` in hundreds of points (/50, at most 255) and in
    hundredths of the target (/100, at most 255), and whether there is no target. From the view alone (its rules and
    the scores before the deal)."""
    rules = view.rules
    cap = rules.max_hands
    left = 20 if cap is None else min(max(cap - view.deal_index, 0), 20)
    target = rules.game_target
    if target is None:
        return [left, 1 if left == 1 else 0, 1 if cap is None else 0, 0, 0, 0, 0, 1]
    mine, theirs = max(target - own, 0), max(target - other, 0)
    return [left, 1 if left == 1 else 0, 1 if cap is None else 0, min(mine // 100, 255), min(theirs // 100, 255),
            min(100 * mine // target, 255), min(100 * theirs // target, 255), 0]


def closed_for_good(view: PlayerView) -> int:
    """The meld size at which a rank is closed to its team for the rest of the deal, or 0 where none is: under a
    ``meld_max_size`` with ``new_meld_after_closed_canasta`` off, a meld at the cap takes no more cards and no new
    meld of its rank may start (RULES.md §1.4.5, A-PT-18), so the rank's cards in the team's hands can only be
    discarded and count against it at the deal's end. (With the knob on, a closed canasta is set aside and its
    rank's slot is free again; without a cap, a meld grows.)"""
    rules = view.rules
    cap = rules.meld_max_size
    if not cap or rules.new_meld_after_closed_canasta:
        return 0
    return int(cap)


def dead_ranks(table: list[int], cap: int) -> list[int]:
    """1 for each natural rank whose meld in ``table`` (a team's meld cards by rank) has reached ``cap``
    (:func:`closed_for_good`; 0: none), else 0. Wild cards and threes are never dead: a wild card may join another
    meld, a three is not melded."""
    if not cap:
        return NO_DEAD
    return [1 if r >= FOUR and table[r] >= cap else 0 for r in range(NUM_RANKS)]


def dead_for_all(tables: list[list[int]], cap: int) -> list[int]:
    """1 for each rank closed to every one of ``tables``' teams (:func:`dead_ranks`): a discard of it cannot be
    melded by any of them, and so takes no pile for them."""
    if not cap or not tables:
        return NO_DEAD
    out = [1] * NUM_RANKS
    for table in tables:
        for r, d in enumerate(dead_ranks(table, cap)):
            if not d:
                out[r] = 0
    return out


def count_dead(hand: list[int], dead: list[int]) -> int:
    """The cards of ``hand`` (by rank) of the ranks ``dead`` marks."""
    total = 0
    if dead is NO_DEAD:
        return 0
    for r in range(NUM_RANKS):
        if dead[r]:
            total += hand[r]
    return total


def dead_after(hand: list[int], table: list[int], cap: int, gained: Sequence[int]) -> list[int]:
    """A draw's or meld plan's closed-rank counts (feature version 4): the cards of the ranks its after-table
    ``table`` closes that stay in ``hand`` or come with a take (``gained``: the pile cards below the top), and no
    discard flags."""
    dead = dead_ranks(table, cap)
    total = count_dead(hand, dead)
    if gained:
        total += count_dead(list(gained), dead)
    return [total, 0, 0]

