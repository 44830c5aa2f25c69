"""RULES.md A-X-5: with ``partial_draw_allowed=false`` a stock draw that finds fewer than ``draw_count`` cards ends
the deal by stock exhaustion, exactly as an empty stock does (also the forced pile take of classic continuation);
hand-dealt scenarios on a one-card stock with ``draw_count=2``."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import Scripted, Table, deal_state, make_rules, players, take

from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.primitives.cards import KING, NINE
from simcli.primitives.errors import IllegalDecision

HAND = "4 4 5 5 6 6 8 8 10 10 J"  # seat 1 (the first player): no nines, nothing to meld


def short_stock(partial: bool, **knobs: Any) -> Any:
    """Classic drawing 2 from a stock of one card (a K); the first player is seat 1."""
    rules = make_rules(draw_count=2, partial_draw_allowed=str(partial).lower(), **knobs)
    return deal_state(rules, {1: HAND}, upcards="9", stock="K", fill_stock=False)


def test_a_short_stock_ends_the_deal_at_the_draw() -> None:
    st = short_stock(False)
    log = EventLog()
    Table(st, players(), emit=log).step()
    assert st.end_reason == "stock_out" and st.stock == [KING]  # the K is never drawn
    assert log.of_kind("draw") == []
    assert log.of_kind("stock_out") == [{"seat": 1, "turn": 1, "stock_left": 1}]


def test_with_partial_draws_the_player_takes_what_is_left() -> None:
    st = short_stock(True)
    log = EventLog()
    Table(st, players(), emit=log).step()
    assert st.end_reason is None and st.stock == []
    assert log.of_kind("draw")[0]["cards"] == ["K"]


def opened_with_nines(partial: bool) -> Any:
    """The first player's team has opened with three nines, and a 9 tops the unfrozen pile."""
    st = short_stock(partial)
    st.add_to_meld(1, NINE, 3, 0, 0)
    st.opened[1] = True
    st.pile_frozen = False
    return st


def test_a_short_stock_forces_the_matching_pile_take_as_an_empty_one_does() -> None:
    st = opened_with_nines(False)
    assert PlayerView(st, 1).must_take_pile
    forced = r"stock is down to 1 \(partial_draw_allowed=false\) and the pile matches a team meld"
    with pytest.raises(IllegalDecision, match=forced):
        Table(st, players()).step()
    st = opened_with_nines(False)
    Table(st, players({1: Scripted(draws=[take("9")])})).step()
    assert st.melds[1][NINE] == [4, 0, 0] and st.end_reason is None  # the take is legal, and play goes on


def test_with_partial_draws_the_take_is_not_forced() -> None:
    st = opened_with_nines(True)
    assert not PlayerView(st, 1).must_take_pile
    Table(st, players()).step()
    assert st.stock == [] and st.end_reason is None
