"""Feature version 5 (issue 47): where a wild card may go.

Under Americana's ``min_naturals_before_adding_wild=5`` a wild card may join only a meld of five naturals, so a wild
card in hand may have nowhere to go: it can then only be discarded (freezing the pile) or held, and it counts
against the team at the deal's end. The rows hold the own melds a wild card may join and, where none may, the wild
cards in hand (state), and the same after each candidate (a take's pile cards counted); all from the ``PlayerView``
(the no-leak twins, tests/test_net_no_leak.py, cover these columns too). The legality of a wild card on a meld is
the engine's own (:func:`simcli.engine.melds.meld_error`); what is checked here is that the rows hold it for the
table before and after every candidate.
"""

from __future__ import annotations

from typing import Any

import pytest
from net_probe import play_checked

from simcli.engine.melds import meld_error
from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, SpecialHand, TakePile
from simcli.primitives.cards import JOKER, TWO
from simcli.rules.presets import load_rules
from simcli.strategies.learnt.net_features import STATE_COLUMNS, decision_features, widths

#: Version 5's columns in a float row: the state part's last two, the candidate part's last two.
HOMES, STUCK = widths(4)[0], widths(4)[0] + 1
HOMES_AFTER, STUCK_AFTER = STATE_COLUMNS + widths(4)[1], STATE_COLUMNS + widths(4)[1] + 1


def _homes(rules: Any, table: dict[int, list[int]]) -> int:
    """The melds of ``table`` (rank: naturals, twos, jokers) that a wild card may join: the engine says so."""
    return sum(meld_error(rules, r, n, t + 1, j, new=False, opening=False, added_wilds=1) is None
               for r, (n, t, j) in table.items())


def _after(view: PlayerView, kind: str, candidate: Any) -> tuple[dict[int, list[int]], int]:
    """The own melds after ``candidate`` and the wild cards then in hand (a take's pile cards counted)."""
    table = {r: list(m) for r, m in enumerate(view.meld_table(view.team)) if m is not None}
    wilds = view.hand[TWO] + view.hand[JOKER]
    melds: list[Any] = []
    if kind == "draw" and isinstance(candidate, TakePile):
        pile = list(view.pile_cards)
        pile[view.pile_top] -= 1
        wilds += pile[TWO] + pile[JOKER]
        table.setdefault(candidate.meld.rank, [0, 0, 0])[0] += 1  # the top card
        melds = [candidate.meld, *candidate.extra]
    elif kind == "melds" and candidate and isinstance(candidate[0], SpecialHand):
        return table, 0
    elif kind == "melds":
        melds = list(candidate or ())
    elif kind == "discard" and candidate in (TWO, JOKER):
        wilds -= 1
    for m in melds:
        got = table.setdefault(m.rank, [0, 0, 0])
        got[0], got[1], got[2] = got[0] + m.naturals, got[1] + m.twos, got[2] + m.jokers
        wilds -= m.twos + m.jokers
    return table, wilds


def _play(variant: str, rules_over: dict[str, Any], games: int) -> dict[str, int]:
    """Play ``games`` games of the variant's heuristic, checking every decision's version-5 columns against the
    table; how often each case came up."""
    rules = load_rules(variant, rules_over)
    seen = {"decisions": 0, "homes": 0, "stuck": 0, "opened_a_home": 0, "stuck_after": 0}

    def check(view: PlayerView, kind: str, candidates: list[Any]) -> None:
        x = decision_features(view, kind, candidates)
        table, wilds = _after(view, "draw", DRAW_STOCK)
        homes = _homes(rules, table)
        assert round(x[0, HOMES] * 4) == homes
        assert round(x[0, STUCK] * 4) == (wilds if homes == 0 else 0)
        seen["decisions"] += 1
        seen["homes"] += homes > 0
        seen["stuck"] += homes == 0 and wilds > 0
        for row, c in zip(x, candidates, strict=True):
            after, left = _after(view, kind, c)
            n = _homes(rules, after)
            assert round(row[HOMES_AFTER] * 4) == n, (kind, c)
            assert round(row[STUCK_AFTER] * 4) == (left if n == 0 else 0), (kind, c)
            seen["opened_a_home"] += n > homes
            seen["stuck_after"] += n == 0 and left > 0

    play_checked(rules, games, check)
    return seen


@pytest.mark.parametrize(("variant", "rules_over"), [
    ("americana", {"min_naturals_before_adding_wild": 5, "max_hands": 1}),
    ("americana", {"max_hands": 1}),
    ("classic", {"max_hands": 1}),
    ("ponytail", {"max_hands": 1}),
    ("spanish", {"max_hands": 1}),
])
def test_the_wild_cards_homes_are_those_the_table_shows(variant: str, rules_over: dict[str, Any]) -> None:
    seen = _play(variant, rules_over, 2)
    # the checks met what they check: melds that take a wild card, wild cards with none, a candidate that makes one
    assert seen["decisions"] > 50 and seen["homes"] > 0 and seen["stuck"] > 0 and seen["opened_a_home"] > 0, seen


def test_the_rule_changes_the_columns() -> None:
    """Americana's preset lets a wild card join a meld of three naturals; under ``min_naturals_before_adding_wild=5``
    the same kind of table has fewer homes and more wild cards stuck in hand (the rows follow the rule)."""
    loose = _play("americana", {"max_hands": 1}, 2)
    strict = _play("americana", {"min_naturals_before_adding_wild": 5, "max_hands": 1}, 2)
    assert strict["stuck"] / strict["decisions"] > 2 * loose["stuck"] / loose["decisions"], (strict, loose)


def test_version_5_appends_its_columns_to_both_parts() -> None:
    assert (HOMES, HOMES_AFTER - STATE_COLUMNS) == (167, 81) and STUCK_AFTER == STATE_COLUMNS + 82
