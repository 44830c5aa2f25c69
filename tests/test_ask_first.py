"""Asking under ``ask_partner_permission=REQUIRED`` (issue 22 item 8): the meld check returns ``ASK_FIRST`` for a
going-out plan exactly when asking partner is all it lacks, so a strategy can ask only when a "yes" lets it go
out; a probe strategy (``probe_strategies.AskWhenOut``) does exactly that."""

from __future__ import annotations

from typing import Any

import numpy as np
from helpers import Table, deal_state, make_rules, players
from probe_strategies import AskWhenOut

from simcli.engine.judge import ASK_FIRST
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.primitives.actions import Meld
from simcli.primitives.cards import FOUR, KING, QUEEN

REQUIRED = {"ask_partner_permission": "REQUIRED"}


def ready_to_go_out(hand: str = "K K K 5", canasta: bool = True, **knobs: Any) -> Any:
    """Seat 1 (team 1, first to play) holds ``hand``; its team has opened with a canasta of queens (or 3 queens)."""
    rules = make_rules(hand_size=len(hand.split()), **{**REQUIRED, **knobs})
    st = deal_state(rules, {1: hand}, stock="K")
    st.add_to_meld(1, QUEEN, 7 if canasta else 3, 0, 0)
    st.opened[1] = True
    return st


def test_a_going_out_plan_is_legal_once_asked() -> None:
    st = ready_to_go_out()
    view = PlayerView(st, 1)
    plan = [Meld(KING, 3)]  # leaves the 5 to discard: going out
    assert view.check_melds(plan) == ASK_FIRST == view.ASK_FIRST
    assert view.go_out_error() == ASK_FIRST
    st.asked = True  # after asking (and before the answer) nothing refuses it
    assert view.check_melds(plan) is None
    kept = PlayerView(ready_to_go_out("K K K 5 6"), 1)
    assert kept.check_melds(plan) is None  # a plan that keeps two cards does not go out: it needs no ask


def test_refusals_that_asking_would_not_lift_are_not_ask_first() -> None:
    view = PlayerView(ready_to_go_out(canasta=False), 1)
    err = view.check_melds([Meld(KING, 3)])
    assert err is not None and err != ASK_FIRST and "needs canastas" in err
    # Not opened, minimum 120 at 3000: a concealed plan of 85 before any stock draw (no waiver) is refused for its
    # count, although asking partner is also missing.
    rules = make_rules(**REQUIRED)
    st = deal_state(rules, {1: "K K K K K K K 4 4 4 5"}, team_scores=[3000, 3000])
    view = PlayerView(st, 1)
    plan = [Meld(KING, 7), Meld(FOUR, 3)]
    assert view.check_melds(plan) == "opening melds count 85, below the minimum 120"


def test_without_the_requirement_the_plan_is_simply_legal() -> None:
    view = PlayerView(ready_to_go_out(ask_partner_permission="OPTIONAL"), 1)
    assert view.check_melds([Meld(KING, 3)]) is None


def test_the_probe_asks_when_it_could_go_out_and_goes_out() -> None:
    st = ready_to_go_out()
    log = EventLog()
    asker, partner = AskWhenOut(np.random.default_rng(0)), AskWhenOut(np.random.default_rng(1))
    Table(st, players({1: asker, 3: partner}), emit=log).step()
    assert log.of_kind("ask_go_out") == [{"seat": 1, "partner": 3, "answer": True}]
    assert st.end_reason == "went_out" and st.went_out_seat == 1


def test_over_whole_games_every_ask_is_followed_by_going_out() -> None:
    rules = make_rules(**REQUIRED)
    asks = outs = 0
    for game in range(12):
        log = EventLog()
        play_game(rules, ["probe"] * 4, 22, game, emit=log,
                  strategies=[AskWhenOut(np.random.default_rng(s)) for s in range(4)])
        events = log.events
        for i, (kind, data) in enumerate(events):
            if kind == "ask_go_out":
                asks += 1
                assert data["answer"] is True
                # The asker goes out in that turn: its going_out comes before anyone's next draw decision.
                kind_, end = next((k, d) for k, d in events[i:] if k in ("going_out", "stock_out") or (
                    k == "decision" and d["kind"] == "draw"))
                assert kind_ == "going_out" and end["seat"] == data["seat"], (kind_, end)
            outs += kind == "going_out"
    assert asks > 0 and outs >= asks
