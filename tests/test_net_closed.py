"""Feature version 4 (issue 47): the ranks the rules close to a team for the rest of the deal.

Under a ``meld_max_size`` with ``new_meld_after_closed_canasta`` off (Americana's and Spanish's presets, Ponytail's
house rule) a meld at the cap takes no card and no new meld of its rank may start, and under
``closed_rank_dead_for_all`` (Americana) a canasta of a rank closes it to every team: the rank's cards in hand can
only be discarded and count against the team at the deal's end. A discard of a rank closed to every other team, or
(``closed_rank_blocks_pile``) of a rank with a canasta on the table, gives no other team the pile. The rows hold the
hand's cards of the own team's closed ranks (state), the same after each candidate, and for a discard whether its
rank is closed to the own team and whether it gives no other team the pile; all from the ``PlayerView`` (the
no-leak twins, tests/test_net_no_leak.py, cover these columns too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from net_probe import play_checked

from simcli.engine.view import PlayerView
from simcli.primitives.cards import FOUR, NUM_RANKS
from simcli.rules.presets import load_rules
from simcli.strategies.learnt.net_features import STATE_COLUMNS, decision_features, widths
from simcli.strategies.learnt.net_match import table_totals

#: Version 4's columns in a float row: the state part's last, the candidate part's last three.
IN_HAND = widths(3)[0]
AFTER, OWN_FLAG, OTHERS_FLAG = (STATE_COLUMNS + widths(3)[1] + i for i in range(3))


def _closed(table: list[int], rules: Any, anyone: list[bool]) -> list[bool]:
    """The natural ranks closed to the team of ``table`` (its meld cards by rank); ``anyone``: the ranks with a
    canasta on the table. Written from RULES.md apart from strategies/learnt/net_match.py."""
    cap = None if rules.new_meld_after_closed_canasta else rules.meld_max_size
    return [r >= FOUR and ((cap is not None and table[r] >= cap) or (rules.closed_rank_dead_for_all and anyone[r]))
            for r in range(NUM_RANKS)]


def _play(variant: str, rules_over: dict[str, Any], games: int) -> dict[str, int]:
    """Play ``games`` games of the variant's heuristic, checking every decision's version-4 columns against the
    melds on the table; how often each column was not zero."""
    rules = load_rules(variant, rules_over)
    seen = {"in_hand": 0, "after": 0, "own": 0, "others": 0, "decisions": 0}

    def check(view: PlayerView, kind: str, candidates: list[Any]) -> None:
        x = decision_features(view, kind, candidates)
        own = table_totals(view.meld_table(view.team))
        others = [table_totals(view.meld_table(t)) for t in range(view.n_teams) if t != view.team]
        anyone = [any(t[r] >= rules.canasta_size for t in [own, *others]) for r in range(NUM_RANKS)]
        mine = _closed(own, rules, anyone)
        hand = list(view.hand)
        in_hand = sum(hand[r] for r in range(NUM_RANKS) if mine[r])
        assert np.allclose(x[:, IN_HAND] * 8, in_hand)
        seen["in_hand"] += in_hand > 0
        seen["decisions"] += 1
        for row, c in zip(x, candidates, strict=True):
            if kind == "discard" and c is not None:
                theirs = all(_closed(t, rules, anyone)[c] for t in others) or (
                    rules.closed_rank_blocks_pile and c >= FOUR and anyone[c])
                assert row[OWN_FLAG] == mine[c] and row[OTHERS_FLAG] == theirs
                assert round(row[AFTER] * 8) == in_hand - (1 if mine[c] and hand[c] > 0 else 0)
                seen["own"] += mine[c]
                seen["others"] += theirs
            else:
                assert row[OWN_FLAG] == row[OTHERS_FLAG] == 0
                seen["after"] += row[AFTER] > 0

    play_checked(rules, games, check)
    return seen


@pytest.mark.parametrize(("variant", "rules_over"), [
    ("ponytail", {"new_meld_after_closed_canasta": False, "max_hands": 2}),
    ("americana", {"max_hands": 1}),  # closed_rank_dead_for_all, closed_rank_blocks_pile
    ("spanish", {"max_hands": 1}),  # closed_rank_blocks_pile
])
def test_the_closed_ranks_are_those_the_table_shows(variant: str, rules_over: dict[str, Any]) -> None:
    seen = _play(variant, rules_over, 2)
    # the checks met what they check: closed ranks' cards in hand, after a candidate, discards of them
    assert seen["in_hand"] > 0 and seen["after"] > 0 and seen["own"] > 0, seen


@pytest.mark.parametrize(("variant", "rules_over"), [
    ("ponytail", {"max_hands": 2}),  # the preset: a closed canasta is set aside, its rank free again
    ("classic", {"max_hands": 1}),  # no cap: a meld grows
])
def test_no_rank_is_closed_where_the_rules_close_none(variant: str, rules_over: dict[str, Any]) -> None:
    seen = _play(variant, rules_over, 1)
    assert seen["decisions"] > 20 and seen["in_hand"] == seen["after"] == seen["own"] == seen["others"] == 0, seen


def test_version_4_appends_its_columns_to_both_parts() -> None:
    assert (IN_HAND, AFTER - STATE_COLUMNS) == (166, 78) and OTHERS_FLAG == STATE_COLUMNS + widths(4)[1] - 1
