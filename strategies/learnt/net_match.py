"""The parts of a learnt player's row that depend on the rules beyond the rule features (issue 47): the match's
state (feature version 2), the ranks the rules have closed to a team for the rest of the deal (version 4) and the
melds a wild card may join (version 5).

All come from the :class:`~simcli.engine.view.PlayerView` alone: its rules, the scores before the deal and the
teams' melds on the table, all of them public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from simcli.engine.meld_legality import merge_melds
from simcli.engine.melds import meld_error
from simcli.engine.view import PlayerView
from simcli.primitives.actions import Meld
from simcli.primitives.cards import FOUR, NUM_RANKS
from simcli.rules.ruleset import RuleSet

#: No rank closed (a list shared by every decision where the rules close none; never written).
NO_DEAD: Final[list[int]] = [0] * NUM_RANKS


class Closed(NamedTuple):
    """What the rules have closed for the deal at a decision (feature version 4; :func:`closed_ranks`)."""

    #: A meld this long closes its rank to its own team (``meld_max_size`` without
    #: ``new_meld_after_closed_canasta``; 0: none does).
    cap: int
    #: A canasta (this many cards) of a rank closes it to every team (``closed_rank_dead_for_all``; 0: off).
    canasta: int
    #: The ranks of the other teams' canastas (0 where neither rule above nor ``closed_rank_blocks_pile`` is on).
    others_canasta: list[int]
    #: The ranks closed to the own team.
    own: list[int]
    #: The ranks whose discard gives no other team the pile: closed to each of them, or (``closed_rank_blocks_pile``)
    #: a canasta of it on the table.
    safe: list[int]
    #: The seat's cards of the ranks closed to its team.
    in_hand: int


#: Nothing closed: the rules close no rank (no ``meld_max_size`` or ``new_meld_after_closed_canasta`` on, neither
#: ``closed_rank_dead_for_all`` nor ``closed_rank_blocks_pile``).
NONE_CLOSED: Final = Closed(0, 0, NO_DEAD, NO_DEAD, NO_DEAD, 0)


def table_totals(table: tuple[tuple[int, int, int] | None, ...]) -> list[int]:
    """Cards in each rank's meld of a team's meld table (0 without one)."""
    out = [0] * NUM_RANKS
    for r, m in enumerate(table):
        if m is not None:
            out[r] = m[0] + m[1] + m[2]
    return out


def closed_ranks(view: PlayerView, hand: list[int], own: list[int], tables: list[list[int]]) -> Closed:
    """What the rules have closed at ``view``'s decision (:class:`Closed`; ``hand`` and ``own``: the seat's hand and
    its team's meld cards by rank, ``tables``: each other team's). A rank is closed to a team for the rest of the deal
    where its meld has reached ``meld_max_size`` and the rank may start no new meld (``new_meld_after_closed_canasta``
    off: RULES.md §1.4.5, A-PT-18), or under ``closed_rank_dead_for_all`` once any team has a canasta of it; the
    rank's cards in the team's hands can then only be discarded, and count against it at the deal's end. Wild cards
    and threes are never closed (a wild card may join another meld; a three is not melded)."""
    rules = view.rules
    cap = int(rules.meld_max_size or 0) if not rules.new_meld_after_closed_canasta else 0
    canasta = int(rules.canasta_size) if rules.closed_rank_dead_for_all else 0
    blocks = rules.closed_rank_blocks_pile
    if not cap and not canasta and not blocks:
        return NONE_CLOSED
    size = int(rules.canasta_size)
    others_canasta = [0] * NUM_RANKS
    for table in tables:
        for r in range(NUM_RANKS):
            if table[r] >= size:
                others_canasta[r] = 1
    anyone = [1 if others_canasta[r] or own[r] >= size else 0 for r in range(NUM_RANKS)]
    dead = dead_ranks(own, cap, canasta, others_canasta)
    safe = [1] * NUM_RANKS if tables else [0] * NUM_RANKS
    for table in tables:
        for r, d in enumerate(dead_ranks(table, cap, canasta, anyone)):
            if not d:
                safe[r] = 0
    if blocks:
        for r in range(FOUR, NUM_RANKS):
            if anyone[r]:
                safe[r] = 1
    return Closed(cap, canasta, others_canasta, dead, safe, count_dead(hand, dead))


def dead_ranks(table: list[int], cap: int, canasta: int, elsewhere: list[int]) -> list[int]:
    """1 for each natural rank closed to the team of ``table`` (its meld cards by rank): its meld has reached
    ``cap``, or (``canasta`` not 0) it has a canasta of it or ``elsewhere`` marks it (another team's canasta)."""
    if not cap and not canasta:
        return NO_DEAD
    out = [0] * NUM_RANKS
    for r in range(FOUR, NUM_RANKS):
        n = table[r]
        if (cap and n >= cap) or (canasta and (n >= canasta or elsewhere[r])):
            out[r] = 1
    return out


def count_dead(hand: Sequence[int], dead: list[int]) -> int:
    """The cards of ``hand`` (by rank) of the ranks ``dead`` marks."""
    if dead is NO_DEAD:
        return 0
    total = 0
    for r in range(NUM_RANKS):
        if dead[r]:
            total += hand[r]
    return total


def dead_after(hand: list[int], table: list[int], closed: Closed, gained: Sequence[int]) -> list[int]:
    """A draw's or meld plan's closed-rank counts (feature version 4): the cards of the ranks closed to the team
    once its melds are ``table`` that stay in ``hand`` or come with a take (``gained``: the pile cards below the
    top), and no discard flags."""
    dead = dead_ranks(table, closed.cap, closed.canasta, closed.others_canasta)
    return [count_dead(hand, dead) + (count_dead(gained, dead) if gained else 0), 0, 0]


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


class Homes(NamedTuple):
    """Where a wild card may go at a decision (feature version 5; :func:`wild_homes`)."""

    #: The rules the melds are judged under.
    rules: RuleSet
    #: The own team's melds by rank, ``(naturals, twos, jokers)`` or ``None`` (the view's meld table).
    table: tuple[tuple[int, int, int] | None, ...]
    #: 1 for each rank whose meld may take one more wild card now.
    now: list[int]
    #: How many melds may take one (the sum of ``now``).
    total: int


def takes_wild(rules: RuleSet, rank: int, naturals: int, twos: int, jokers: int) -> int:
    """1 if a meld of ``rank`` holding these cards may take one more wild card under ``rules`` (the engine's own
    check, :func:`simcli.engine.melds.meld_error`: ``min_naturals_before_adding_wild``, the wild rule and its cap,
    ``meld_max_size``, sevens without wild cards), else 0. A team that has melds has opened."""
    return 0 if meld_error(rules, rank, naturals, twos + 1, jokers, new=False, opening=False,
                           added_wilds=1) else 1


def wild_homes(view: PlayerView) -> Homes:
    """The own team's melds that may take a wild card at ``view``'s decision (:class:`Homes`): under Americana's
    ``min_naturals_before_adding_wild=5`` only a meld of five naturals does, so a wild card in hand may have nowhere
    to go and then counts against the team at the deal's end (feature version 5). From the view alone (its rules and
    the table)."""
    rules = view.rules
    table = view.meld_table(view.team)
    now = [0] * NUM_RANKS
    total = 0
    for r, m in enumerate(table):
        if m is not None and takes_wild(rules, r, m[0], m[1], m[2]):
            now[r] = 1
            total += 1
    return Homes(rules, table, now, total)


def home_counts(count: int, wilds: int) -> tuple[int, int]:
    """Version 5's two counts: the own melds a wild card may join, and the wild cards in hand if none may (cards
    that can only be discarded, or laid in a new meld, and count against the team at the deal's end)."""
    return (count, wilds if count == 0 else 0)


def homes_after(homes: Homes, melds: Sequence[Meld]) -> int:
    """The own melds that may take a wild card once ``melds`` are laid (a take's meld and its extra melds, or a meld
    plan): the ranks they touch judged again with their new cards, the others as they are."""
    if not melds:
        return homes.total
    count = homes.total
    for r, (n, t, j) in merge_melds(melds).items():
        base = homes.table[r]
        if base is not None:
            n, t, j = n + base[0], t + base[1], j + base[2]
        count += takes_wild(homes.rules, r, n, t, j) - homes.now[r]
    return count
