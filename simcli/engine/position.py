"""End-of-deal positions: what a whole position must satisfy beyond each team's own items, and the teams' names.

A position (docs/position-format.md) is the rules and one :class:`~simcli.engine.scoring.TeamPosition` per team,
as :func:`simcli.engine.scoring.score_deal` scores them. Reading one from JSON (and writing one back) is
:mod:`simcli.positions`; this module holds the error every check raises, the teams' labels in messages and
tables, and :func:`check_position`, the checks across teams: one team goes out (cuts, picks or grabs its pony
exactly) and the pack holds every card of the position.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcli.engine.scoring import TeamPosition
from simcli.primitives.cards import BLACK_THREE, JOKER, NUM_RANKS, RANK_NAMES, RED_THREE, TWO, deck_counts
from simcli.rules.ruleset import RuleSet

__all__ = ["PositionError", "check_position", "team_label"]


class PositionError(ValueError):
    """A position that cannot be scored: the message is one line naming the bad item and what is allowed."""


def team_label(index: int) -> str:
    """The name used for the ``index``-th team in messages and tables: Team A, Team B, ..."""
    return f"Team {chr(ord('A') + index)}" if index < 26 else f"Team {index + 1}"


def check_position(rules: RuleSet, teams: Sequence[TeamPosition]) -> None:
    """Refuse (:class:`PositionError`) a position in which more than one team went out, cut, picked or grabbed its
    pony exactly, or that holds more cards of a rank than the pack."""
    for flag in ("went_out", "exact_cut", "exact_pick", "pony_dealer_exact"):
        flagged = [team_label(i) for i, t in enumerate(teams) if getattr(t, flag)]
        if len(flagged) > 1:  # one player goes out; one cut, one pick and one pony grab per deal
            raise PositionError(f"{flag} is true for {' and '.join(flagged)}; allowed: at most one team")
    _check_pack(rules, teams)


def _check_pack(rules: RuleSet, teams: Sequence[TeamPosition]) -> None:
    used = [0] * NUM_RANKS
    for team in teams:
        for rank, naturals, twos, jokers in team.melds:
            used[rank] += naturals  # 0 for a wild meld
            used[TWO] += twos
            used[JOKER] += jokers
        used[RED_THREE] += team.red_threes
        used[BLACK_THREE] += team.black_threes
        for hand in (*team.hands, *team.ponies):
            for r, n in enumerate(hand):
                used[r] += n
    pack = deck_counts(rules.decks, rules.jokers_per_deck)
    for r in range(NUM_RANKS):
        if used[r] > pack[r]:
            raise PositionError(
                f"the position holds {used[r]} cards of rank {RANK_NAMES[r]} but decks={rules.decks} "
                f"(jokers_per_deck={rules.jokers_per_deck}) hold only {pack[r]}"
            )
