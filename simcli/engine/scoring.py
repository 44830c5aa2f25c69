"""Scoring of one deal, exactly as the ordered algorithm of RULES.md §1.12.

The engine and ``simcli score`` both build :class:`TeamPosition` objects and call
:func:`score_deal`, so a golden case checked through the CLI checks the engine too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from simcli.engine.melds import ACES, MIXED, NATURAL, SEVENS, WILD, canasta_bonus, canasta_kind, meld_value
from simcli.primitives.cards import ACE, BLACK_THREE, CARD_VALUES, RED_THREE, SEVEN, WILD_MELD
from simcli.rules.ruleset import RuleSet

#: Score parts in the order they are reported; a team's total is their sum.
SCORE_PARTS: Final[tuple[str, ...]] = (
    "going_out", "canasta_natural", "canasta_mixed", "canasta_wild", "canasta_sevens", "canasta_aces",
    "canasta_hidden", "canasta_count", "red_threes", "black_threes", "exact_cut", "exact_pick",
    "pony_dealer_exact", "quick_finish", "terremoto", "incomplete_melds", "hand_rank_penalty",
    "melded", "hand", "pony", "special_hand",
)

#: Every part at 0, in order: a team's score starts as a copy of it.
_NO_PARTS: Final = dict.fromkeys(SCORE_PARTS, 0)

#: Special hands (Americana) and the knob holding each one's value.
SPECIAL_HAND_KNOBS: Final = {
    "STRAIGHT": "special_hand_value_straight",
    "PAIRS_NATURAL": "special_hand_value_pairs_natural",
    "PAIRS_WITH_2_7_A": "special_hand_value_pairs_with_2_7_a",
    "GARBAGE": "special_hand_value_garbage",
}



# init=False and an __init__ of its own: the compiled build then builds one (twice a deal) in compiled code, not
# through the dataclass's interpreted __init__ (about 20,000 instructions each when it was frozen). Not frozen for
# the same reason (a frozen class sets its fields through object.__setattr__); nothing changes one once built.
@dataclass(init=False)
class TeamPosition:
    """One team's end-of-deal position: what :func:`score_deal` needs and nothing else."""

    #: ``(rank, naturals, twos, jokers)`` for each meld on the table.
    melds: tuple[tuple[int, int, int, int], ...]
    #: Red threes laid in front of the team.
    red_threes: int
    #: Rank-count vectors of the cards left in each member's hand.
    hands: tuple[tuple[int, ...], ...]
    went_out: bool
    concealed: bool
    #: The team received the exact-cut bonus this deal.
    exact_cut: bool
    #: Ponies (rank-count vectors) of members who never picked theirs up (Ponytail).
    ponies: tuple[tuple[int, ...], ...]
    #: The team's pony dealer grabbed exactly the pony cards (``pony_dealer_exact_bonus``).
    pony_dealer_exact: bool
    #: Black threes laid in front of the team (Americana: both colours are bonus cards).
    black_threes: int
    #: A member went out with this special hand (Americana): the team scores its value and nothing else.
    special_hand: str | None
    #: Ranks of the team's hidden canastas (Spanish *oculta*; each is also among ``melds``).
    hidden: tuple[int, ...]
    #: The team received the exact-pick bonus (the dealer grabbed exactly the initial pile; Spanish).
    exact_pick: bool
    #: The team went out on the player's first turn of the deal (Spanish *corte rápido*).
    quick_finish: bool
    #: The team went out in one turn after a stock draw with no earlier melds of the player (*terremoto*).
    terremoto: bool
    #: Members who grabbed exactly hand + foot when dealing themselves (Hand and Foot ``self_deal_exact_bonus``).
    self_deal_exact: int

    def __init__(self, melds: tuple[tuple[int, int, int, int], ...] = (), red_threes: int = 0,
                 hands: tuple[tuple[int, ...], ...] = (), went_out: bool = False, concealed: bool = False,
                 exact_cut: bool = False, ponies: tuple[tuple[int, ...], ...] = (), pony_dealer_exact: bool = False,
                 black_threes: int = 0, special_hand: str | None = None, hidden: tuple[int, ...] = (),
                 exact_pick: bool = False, quick_finish: bool = False, terremoto: bool = False,
                 self_deal_exact: int = 0) -> None:
        self.melds = melds
        self.red_threes = red_threes
        self.hands = hands
        self.went_out = went_out
        self.concealed = concealed
        self.exact_cut = exact_cut
        self.ponies = ponies
        self.pony_dealer_exact = pony_dealer_exact
        self.black_threes = black_threes
        self.special_hand = special_hand
        self.hidden = hidden
        self.exact_pick = exact_pick
        self.quick_finish = quick_finish
        self.terremoto = terremoto
        self.self_deal_exact = self_deal_exact


def hand_points(rules: RuleSet, counts: Sequence[int]) -> int:
    """Value of the cards left in one hand (positive; subtracted by the caller)."""
    total = 0
    any_three = rules.threes_mode == "AMERICAN_COLOUR_TABLE"
    for r, n in enumerate(counts):
        if n:
            if r == BLACK_THREE or (r == RED_THREE and any_three):
                total -= n * rules.black_three_in_hand_value
            elif r == RED_THREE and rules.threes_mode == "RED_PENALTY":
                total -= n * rules.red_three_in_hand_value
            else:
                total += n * CARD_VALUES[r]
    return total


def american_threes(rules: RuleSet, count: int, canastas: int) -> int:
    """Americana threes of one colour: the table value times ``american_threes_sign`` for the team's canastas
    (S1: negative with none, ignored with one, positive with two or more)."""
    if not count:
        return 0
    value = 0
    for threshold, v in rules.american_threes_table:
        if threshold is not None and count >= threshold:
            value = v
    return value * rules.american_threes_sign[min(canastas, 2)]  # S1: -1, 0, +1 for 0, 1, 2+ canastas


def red_threes_value(rules: RuleSet, count: int) -> int:
    """The bonus for ``count`` red threes before its sign: the band of ``red_three_totals`` that ``count`` reaches
    (Classic 6 players: 5 -> 1000, 6 -> 1200), else ``all_red_threes_total`` for every red three of the decks,
    else ``red_three_value`` each (RULES.md §1.9, A-CL-4)."""
    if rules.red_three_totals is not None:
        reached = [v for threshold, v in rules.red_three_totals if threshold is not None and count >= threshold]
        if reached:
            return reached[-1]
    if rules.all_red_threes_total is not None and count >= rules.decks * 2:
        return int(rules.all_red_threes_total)
    return count * int(rules.red_three_value)


def score_team(rules: RuleSet, team: TeamPosition) -> dict[str, int]:
    """Score one team: a dict of the parts in :data:`SCORE_PARTS` plus ``total``."""
    parts = dict(_NO_PARTS)  # a copy: cheaper than dict.fromkeys
    if team.special_hand is not None and rules.special_hand_overrides_team_score:
        # RULES.md §1.12 step 1: the hand's value and nothing else.
        parts["special_hand"] = getattr(rules, SPECIAL_HAND_KNOBS[team.special_hand])
        parts["total"] = parts["special_hand"]
        return parts
    if team.special_hand is not None:  # special_hand_overrides_team_score=false: the value on top of the rest
        parts["special_hand"] = getattr(rules, SPECIAL_HAND_KNOBS[team.special_hand])
    melded, n_canastas = _meld_parts(rules, team, parts)
    if team.went_out:
        parts["going_out"] = (
            rules.concealed_out_total_bonus
            if team.concealed and rules.concealed_out_total_bonus is not None
            else rules.going_out_bonus
        )
    _three_and_cut_parts(rules, team, parts, n_canastas)
    parts["canasta_count"] = canasta_count_bonus(rules, n_canastas)
    if team.went_out and team.quick_finish:
        parts["quick_finish"] = rules.quick_finish_bonus
    if team.went_out and team.terremoto:
        parts["terremoto"] = rules.terremoto_bonus
    if team.pony_dealer_exact and rules.pony_dealer_exact_bonus:
        parts["pony_dealer_exact"] = rules.pony_dealer_exact_bonus
    if team.ponies and rules.unpicked_pony_counts_against:
        # An unpicked pony counts at card value, a red three in it at its bonus value (A-PT-15; under RED_PENALTY
        # at red_three_in_hand_value, as in a hand).
        r3 = 0 if rules.threes_mode == "RED_PENALTY" else rules.red_three_value
        parts["pony"] = -sum(hand_points(rules, p) + p[RED_THREE] * r3 for p in team.ponies if p)
    penalty = 0
    hand = 0
    for h in team.hands:
        if h[ACE] >= 3:
            penalty += rules.hand_rank_penalty_aces
        if h[SEVEN] >= 3:
            penalty += rules.hand_rank_penalty_sevens
        hand -= hand_points(rules, h)
    parts["hand_rank_penalty"] = penalty
    sign = -1 if rules.meld_points_sign == "PLUS_IF_CANASTA_ELSE_MINUS" and n_canastas == 0 else 1
    parts["melded"] = sign * melded
    parts["hand"] = hand
    total = 0
    for value in parts.values():  # every part (the keys are SCORE_PARTS; "total" is not yet among them)
        total += value
    parts["total"] = total
    return parts


def _meld_parts(rules: RuleSet, team: TeamPosition, parts: dict[str, int]) -> tuple[int, int]:
    """score_team's melds: add the canasta bonuses (hidden ones first) and the incomplete-meld penalties to
    ``parts``; return the card value melded and the number of canastas."""
    # Summed in locals and written to ``parts`` once each: a dict update costs more than the arithmetic (every
    # mc rollout ends in a score).
    n_canastas = 0
    melded = 0
    natural = mixed = wild = sevens = aces = hidden_total = incomplete = 0
    size = rules.canasta_size
    hidden_bonus = rules.hidden_canasta_bonus
    hidden = list(team.hidden) if hidden_bonus is not None else []
    for rank, naturals, twos, jokers in team.melds:
        melded += meld_value(naturals, twos, jokers, rank)
        kind = canasta_kind(rules, rank, naturals, twos, jokers)
        if kind is not None:
            n_canastas += 1
            if hidden_bonus is not None and rank in hidden:  # (hidden is empty without the bonus)
                hidden.remove(rank)
                hidden_total += hidden_bonus
                if rules.hidden_canasta_mode == "REPLACE":
                    continue
            if kind == NATURAL:
                natural += rules.canasta_bonus_natural
            elif kind == MIXED:
                mixed += rules.canasta_bonus_mixed
            elif kind == WILD:
                wild += canasta_bonus(rules, WILD, (naturals, twos, jokers))
            elif kind == SEVENS:
                sevens += canasta_bonus(rules, SEVENS)
            else:
                aces += canasta_bonus(rules, ACES)
        elif rank != BLACK_THREE and naturals + twos + jokers < size:
            incomplete += incomplete_penalty(rules, rank, twos + jokers)
    if n_canastas:
        parts["canasta_natural"] = natural
        parts["canasta_mixed"] = mixed
        parts["canasta_wild"] = wild
        parts["canasta_sevens"] = sevens
        parts["canasta_aces"] = aces
        parts["canasta_hidden"] = hidden_total
    parts["incomplete_melds"] = incomplete
    return melded, n_canastas


def _three_and_cut_parts(rules: RuleSet, team: TeamPosition, parts: dict[str, int], n_canastas: int) -> None:
    """score_team's threes, exact cut and exact pile pick, each of which a team without a canasta may lose or
    owe (``bonuses_require_canasta``, ``red_three_negative_if``, ``exact_cut_requires_canasta``)."""
    negate_bonuses = rules.bonuses_require_canasta == "NEGATE" and n_canastas == 0
    if rules.threes_mode == "AMERICAN_COLOUR_TABLE":
        parts["red_threes"] = american_threes(rules, team.red_threes, n_canastas)
        parts["black_threes"] = american_threes(rules, team.black_threes, n_canastas)
    elif team.red_threes:
        value = red_threes_value(rules, team.red_threes)
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
    if team.self_deal_exact and rules.self_deal_exact_bonus:  # Hand and Foot's exact grabs: the exact_cut part
        parts["exact_cut"] += team.self_deal_exact * rules.self_deal_exact_bonus
    if team.exact_pick and rules.exact_pile_pick_bonus:
        parts["exact_pick"] = -rules.exact_pile_pick_bonus if negate_bonuses else rules.exact_pile_pick_bonus


def canasta_count_bonus(rules: RuleSet, canastas: int) -> int:
    """The bonus for holding ``canastas`` canastas (Spanish: 5 → 500, 7 → 2000; cumulative or the highest)."""
    bands = rules.canasta_count_bonus
    if not bands:
        return 0
    earned = [value for threshold, value in bands if threshold is not None and canastas >= threshold]
    if not earned:
        return 0
    return sum(earned) if rules.canasta_count_bonus_cumulative else earned[-1]


def incomplete_penalty(rules: RuleSet, rank: int, wilds: int) -> int:
    """Penalty for a special meld left short of a canasta (Americana): pure aces, sevens, wild cards."""
    if rank == WILD_MELD:
        return rules.incomplete_penalty_wild
    if rank == ACE and rules.aces_special and wilds == 0:
        return rules.incomplete_penalty_pure_aces
    if rank == SEVEN and rules.canasta_bonus_sevens is not None:
        return rules.incomplete_penalty_sevens
    return 0


def score_deal(rules: RuleSet, teams: Sequence[TeamPosition]) -> list[dict[str, int]]:
    """Score every team of a finished deal; the result is in the order of ``teams``."""
    return [score_team(rules, t) for t in teams]


