"""Engine corrections of issue 11 (RULES.md §1.10, §2.1-§2.3): each test failed on the engine before its fix.

Seats as in ``test_scenarios_classic``: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import Scripted, Table, deal_state, make_rules, meld, players, take

from simcli.trace import EventLog

DEALER = 3


def setup(hands: dict[int, str], upcards: str | None = None, stock: str = "", rules: Any = None) -> Any:
    """A prepared Classic deal with seat 0 to play first."""
    return deal_state(rules or make_rules(), hands, upcards, stock, dealer=DEALER)


# ================================================================ 1. concealed going out after a pile take
@pytest.mark.parametrize("take_naturals,melds_after_take", [
    # the take lays K K + top K and A A A; the meld phase completes the K canasta and adds an ace: own melds
    (2, [meld("K", 4), meld("A", 1)]),
    # the take makes the K canasta (6 + top); the meld phase adds an ace to the ace meld laid with the take
    (6, [meld("A", 1)]),
])
def test_concealed_out_after_pile_take_adding_to_own_melds_of_the_turn(
        take_naturals: int, melds_after_take: list) -> None:
    """§1.10, §2.1: adding to melds the player laid earlier in the same turn keeps the going out concealed
    (200 in the preset); before the fix the engine counted them as partner's melds (100)."""
    st = setup({0: "K K K K K K A A A A 5", 2: "4 4 4 4 5 5 5 5 6 6 6"}, upcards="K")
    log = EventLog()
    s0 = Scripted(draws=[take("K", take_naturals, extra=[meld("A", 3)])], melds=[melds_after_take],
                  discards=["5"])
    table = Table(st, players({0: s0}), emit=log)
    res = table.finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 1
    assert res.concealed is True
    assert log.of_kind("going_out")[0]["concealed"] is True
    assert res.scores[0]["going_out"] == 200
    assert [(d["rank"], d["meld"]) for d in log.of_kind("meld")][-1] == ("A", [4, 0, 0])
