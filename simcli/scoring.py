"""Scoring of one deal, exactly as the ordered algorithm of RULES.md §1.12.

The engine and ``simcli score`` both build :class:`TeamPosition` objects and call
:func:`score_deal`, so a golden case checked through the CLI checks the engine too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from simcli.cards import BLACK_THREE, CARD_VALUES, RED_THREE
from simcli.melds import MIXED, NATURAL, SEVENS, WILD, canasta_bonus, canasta_type, meld_value

#: Score parts in the order they are reported; a team's total is their sum.
SCORE_PARTS: tuple[str, ...] = (
    "going_out", "canasta_natural", "canasta_mixed", "canasta_wild", "canasta_sevens",
    "red_threes", "exact_cut", "pony_dealer_exact", "melded", "hand", "pony",
)


@dataclass(frozen=True)
class TeamPosition:
    """One team's end-of-deal position: what :func:`score_deal` needs and nothing else."""

    #: ``(rank, naturals, twos, jokers)`` for each meld on the table.
    melds: tuple[tuple[int, int, int, int], ...] = ()
    #: Red threes laid in front of the team.
    red_threes: int = 0
    #: Rank-count vectors of the cards left in each member's hand.
    hands: tuple[tuple[int, ...], ...] = field(default_factory=tuple)
    went_out: bool = False
    concealed: bool = False
    #: The team received the exact-cut bonus this deal.
    exact_cut: bool = False
    #: Ponies (rank-count vectors) of members who never picked theirs up (Ponytail).
    ponies: tuple[tuple[int, ...], ...] = ()
    #: The team's pony dealer grabbed exactly the pony cards (``pony_dealer_exact_bonus``).
    pony_dealer_exact: bool = False


def hand_points(rules: Any, counts: Sequence[int]) -> int:
    """Value of the cards left in one hand (positive; subtracted by the caller)."""
    total = 0
    for r, n in enumerate(counts):
        if n:
            if r == BLACK_THREE:
                total -= n * rules.black_three_in_hand_value
            else:
                total += n * CARD_VALUES[r]
    return total


def score_team(rules: Any, team: TeamPosition) -> dict[str, int]:
    """Score one team: a dict of the parts in :data:`SCORE_PARTS` plus ``total``."""
    parts = dict.fromkeys(SCORE_PARTS, 0)
    n_canastas = 0
    melded = 0
    for rank, naturals, twos, jokers in team.melds:
        melded += meld_value(naturals, twos, jokers, rank)
        kind = canasta_type(rules, rank, (naturals, twos, jokers))
        if kind is not None:
            n_canastas += 1
            key = {NATURAL: "canasta_natural", MIXED: "canasta_mixed", WILD: "canasta_wild",
                   SEVENS: "canasta_sevens"}[kind]
            parts[key] += canasta_bonus(rules, kind)
    if team.went_out:
        parts["going_out"] = (
            rules.concealed_out_total_bonus
            if team.concealed and rules.concealed_out_total_bonus is not None
            else rules.going_out_bonus
        )
    negate_bonuses = rules.bonuses_require_canasta == "NEGATE" and n_canastas == 0
    if team.red_threes:
        all_threes = rules.decks * 2
        value = (
            rules.all_red_threes_total
            if rules.all_red_threes_total is not None and team.red_threes >= all_threes
            else team.red_threes * rules.red_three_value
        )
        negative = (
            (rules.red_three_negative_if == "NO_MELD" and not team.melds)
            or (rules.red_three_negative_if == "NO_CANASTA" and n_canastas == 0)
            or negate_bonuses
        )
        parts["red_threes"] = -value if negative else value
    if team.exact_cut and rules.exact_cut_bonus:
        bonus = rules.exact_cut_bonus
        if n_canastas == 0 and rules.exact_cut_requires_canasta == "VOID":
            bonus = 0
        elif n_canastas == 0 and (rules.exact_cut_requires_canasta == "NEGATE" or negate_bonuses):
            bonus = -bonus
        parts["exact_cut"] = bonus
    if team.pony_dealer_exact and rules.pony_dealer_exact_bonus:
        parts["pony_dealer_exact"] = rules.pony_dealer_exact_bonus
    if team.ponies and rules.unpicked_pony_counts_against:
        # An unpicked pony counts at card value, a red three in it at its bonus value (A-PT-15).
        parts["pony"] = -sum(hand_points(rules, p) + p[RED_THREE] * rules.red_three_value
                             for p in team.ponies if p)
    sign = -1 if rules.meld_points_sign == "PLUS_IF_CANASTA_ELSE_MINUS" and n_canastas == 0 else 1
    parts["melded"] = sign * melded
    parts["hand"] = -sum(hand_points(rules, h) for h in team.hands)
    parts["total"] = sum(parts[p] for p in SCORE_PARTS)
    return parts


def score_deal(rules: Any, teams: Sequence[TeamPosition]) -> list[dict[str, int]]:
    """Score every team of a finished deal; the result is in the order of ``teams``."""
    return [score_team(rules, t) for t in teams]


