"""Meld legality, canasta classification and the initial-meld minimum.

A team's melds are stored per rank: ``melds[rank]`` is ``None`` or a 3-item list
``[naturals, twos, jokers]``. The slot ``WILD_MELD`` (= 0) holds a meld of wild
cards only, and the black-three slot holds the black threes melded by a player
going out. One meld per rank per team (RULES.md §1.4.3) falls out of this layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from simcli.primitives.cards import ACE, BLACK_THREE, CARD_VALUES, JOKER, SEVEN, TWO, WILD_MELD
from simcli.rules.ruleset import RuleSet

#: The W <= cap that each wild rule imposes by itself (RULES.md §1.4.4).
_RULE_WILD_CAP: Final = {"PAGAT": 3, "WIKI": 3, "STRICT_MAJORITY": 3, "AMERICAN": 2, "DOUBLE_NATURALS": 3}

NATURAL: Final = "NATURAL"
MIXED: Final = "MIXED"
WILD: Final = "WILD"
SEVENS: Final = "SEVENS"
ACES: Final = "ACES"
#: Canasta types in classification order (RULES.md §1.5: first match wins).
CANASTA_KINDS: Final = (WILD, SEVENS, ACES, NATURAL, MIXED)


def wild_ratio_ok(wild_rule: str, naturals: int, wilds: int, max_wilds: int = 3) -> bool:
    """Whether ``naturals`` natural cards and ``wilds`` wild cards satisfy ``wild_rule``.

    ``max_wilds`` is the ``max_wilds_per_meld`` knob; the tighter of it and the
    rule's own cap applies.
    """
    if wilds > max_wilds or wilds > _RULE_WILD_CAP[wild_rule]:
        return False
    if wild_rule == "STRICT_MAJORITY":
        return naturals > wilds
    if wild_rule == "WIKI":
        return naturals >= 2 and wilds <= naturals
    if wild_rule == "DOUBLE_NATURALS":  # Hand and Foot after pagat (RULES.md A-HF-4)
        return naturals >= 2 and naturals >= 2 * wilds
    return naturals >= 2  # PAGAT, AMERICAN


def meld_error(rules: RuleSet, rank: int, naturals: int, twos: int, jokers: int, *,
               new: bool, opening: bool = True, added_wilds: int = 0, over_cap: int = 0) -> str | None:
    """Why a meld of ``rank`` holding these cards is illegal under ``rules``, or ``None`` if legal.

    ``new`` says whether the meld is being started (then it must reach the minimum
    size); an existing meld only has to stay within the ratio and size caps.
    ``opening`` says whether the cards are laid in the team's opening and ``added_wilds``
    how many wild cards this action adds (for ``mixed_aces_only_in_opening``). ``over_cap`` cards beyond
    ``meld_max_size`` are allowed (the going-out 8th card of ``allow_8th_card_when_going_out``).
    """
    wilds = twos + jokers
    size = naturals + wilds
    cap = rules.meld_max_size
    if cap is not None and size > cap + over_cap:
        return f"meld of {size} cards exceeds meld_max_size={cap}"
    if rank == WILD_MELD:
        if not rules.wild_melds_allowed:
            return "melds of wild cards only are not allowed (wild_melds_allowed=false)"
        if naturals:
            return "a wild meld cannot hold natural cards"
        if new and size < rules.wild_meld_min_start:
            return f"a wild meld needs at least {rules.wild_meld_min_start} wild cards to start"
        return None
    if rank == BLACK_THREE:
        lo_hi = rules.black_three_meld_when_going_out
        if lo_hi is None:
            return "black threes may not be melded"
        if wilds:
            return "a black-three meld cannot hold wild cards"
        if not (lo_hi[0] <= naturals <= lo_hi[1]):
            return f"a black-three meld must have {lo_hi[0]} to {lo_hi[1]} cards"
        return None
    if new and size < rules.meld_min_size:
        return f"a new meld needs at least {rules.meld_min_size} cards"
    if wilds:
        if rank == SEVEN and not rules.sevens_wilds_allowed:
            return "wild cards may not join a meld of sevens (sevens_wilds_allowed=false)"
        # mixed_aces_only_in_opening acts alone, whatever aces_special says (issue 52: each knob acts alone).
        if rank == ACE and rules.mixed_aces_only_in_opening and added_wilds and not opening:
            return "wild cards may join aces only in the team's opening (mixed_aces_only_in_opening)"
        if naturals < rules.min_naturals_before_adding_wild:
            return f"a wild card needs {rules.min_naturals_before_adding_wild} naturals in the meld first"
    if not wild_ratio_ok(rules.wild_rule, naturals, wilds, rules.max_wilds_per_meld):
        return f"{naturals} naturals with {wilds} wild cards break wild_rule={rules.wild_rule}"
    return None


def meld_value(naturals: int, twos: int, jokers: int, rank: int) -> int:
    """Card points of a meld (RULES.md §1.3): naturals at their rank's value, 2s 20, jokers 50."""
    return naturals * CARD_VALUES[rank] + twos * CARD_VALUES[TWO] + jokers * CARD_VALUES[JOKER]


def canasta_type(rules: RuleSet, rank: int, meld: Sequence[int]) -> str | None:
    """``WILD``, ``SEVENS``, ``NATURAL`` or ``MIXED`` if the meld is a canasta, else ``None``.

    A canasta of sevens is its own type only where the variant pays a sevens bonus
    (``canasta_bonus.sevens`` not null); elsewhere it is natural or mixed like any rank.
    """
    return canasta_kind(rules, rank, meld[0], meld[1], meld[2])


def canasta_kind(rules: RuleSet, rank: int, naturals: int, twos: int, jokers: int) -> str | None:
    """:func:`canasta_type` of a meld given as its three counts (the engine's checks: no tuple to build)."""
    if naturals + twos + jokers < rules.canasta_size or rank == BLACK_THREE:
        return None
    if rank == WILD_MELD:
        return WILD
    if rank == SEVEN and rules.canasta_bonus_sevens is not None:
        return SEVENS
    if twos + jokers == 0:
        return ACES if rank == ACE and rules.aces_special else NATURAL
    return MIXED


def canasta_bonus(rules: RuleSet, kind: str, meld: Sequence[int] = (7, 0, 0)) -> int:
    """The bonus for one canasta of ``kind``; wild canastas are split by content (``meld``)."""
    if kind == NATURAL:
        return rules.canasta_bonus_natural
    if kind == MIXED:
        return rules.canasta_bonus_mixed
    if kind == SEVENS:
        return rules.canasta_bonus_sevens or 0
    if kind == ACES:
        return rules.canasta_bonus_natural_aces
    _, twos, jokers = meld
    all_jokers = rules.decks * rules.jokers_per_deck
    if rules.canasta_bonus_wild_all_jokers is not None and all_jokers and jokers >= all_jokers:
        return rules.canasta_bonus_wild_all_jokers
    if rules.canasta_bonus_wild_pure is not None and (twos == 0 or jokers == 0):
        return rules.canasta_bonus_wild_pure
    return rules.canasta_bonus_wild


def count_canastas(rules: RuleSet, melds: Sequence[Sequence[int] | None]) -> dict[str, int]:
    """Count a team's canastas by type: ``{"NATURAL": n, "MIXED": m, "WILD": w, "SEVENS": s, "ACES": a}``."""
    out = dict.fromkeys((NATURAL, MIXED, WILD, SEVENS, ACES), 0)
    for rank, meld in enumerate(melds):
        if meld is not None:
            kind = canasta_type(rules, rank, meld)
            if kind is not None:
                out[kind] += 1
    return out


def count_clean(rules: RuleSet, melds: Sequence[Sequence[int] | None]) -> int:
    """How many of a team's canastas are clean (:func:`is_clean`)."""
    return sum(1 for rank, meld in enumerate(melds)
               if meld is not None and canasta_type(rules, rank, meld) is not None and is_clean(rank, meld))


def is_clean(rank: int, meld: Sequence[int]) -> bool:
    """Whether a canasta is clean (*limpia*): no wild card, or for a wild canasta one kind of wild only."""
    return is_clean_kind(rank, meld[1], meld[2])


def is_clean_kind(rank: int, twos: int, jokers: int) -> bool:
    """:func:`is_clean` of a canasta of ``rank`` holding these wild cards."""
    if rank == WILD_MELD:
        return twos == 0 or jokers == 0
    return twos + jokers == 0


def requirement_met(requirement: Sequence[tuple[str, int]], canastas: dict[str, int], clean: int = 0) -> bool:
    """Whether canasta counts by type satisfy a ``go_out_requirement`` such as ``(("ANY", 1),)``.

    ``clean`` is the number of clean canastas among them (:func:`is_clean`), for the ``CLEAN`` and
    ``DIRTY`` kinds of the Spanish game; the others are dirty.
    """
    # Plain loops, no sum() over a generator: the compiled build makes an object of every generator, and the
    # judge asks this at every meld that may go out.
    total = 0
    for count in canastas.values():
        total += count
    needed = 0  # every kind's count, ANY's included: the total must cover them all
    for kind, n in requirement:
        needed += n
        if kind == "ANY":
            continue
        have = clean if kind == "CLEAN" else total - clean if kind == "DIRTY" else canastas.get(kind, 0)
        if have < n:
            return False
    return total >= needed


def initial_meld_minimum(rules: RuleSet, team_score: int, deal_number: int = 1) -> int:
    """The opening minimum for a team (RULES.md §1.8) from its cumulative score or the deal number."""
    key = deal_number if rules.initial_meld_basis == "DEAL_NUMBER" else team_score
    minimum = rules.initial_meld_table[0][1]
    for threshold, value in rules.initial_meld_table:
        if threshold is None or key >= threshold:
            minimum = value
    return minimum
