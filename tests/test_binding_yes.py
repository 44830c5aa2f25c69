"""A binding "yes" (issue 51, item 1; RULES.md §1.10 "If asked, the answer binds", RULES-hand-and-foot.md §2.5.5):
after partner's yes every move that cannot end in going out this turn is refused, a walk into the foot (the pony
under ``pony_unlock=HAND_EMPTY``) included, and an ask that no move could honour is refused in the first place.

Before the fix the engine refused a discard after a yes only while the player held more than one card, so a player
still in its hand could be told yes, meld down to one card and walk into the foot without going out."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import Scripted, deal_state, make_rules, meld, play_until, players
from helpers_ponytail import pony_deal_state, pt_rules
from probe_strategies import AskInHand

from simcli.engine.deal import Deal
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.primitives.cards import parse_rank
from simcli.primitives.errors import StrategyError

#: How every refusal of a move that breaks partner's yes starts (``simcli.engine.judge.BOUND_BY_YES``).
BOUND_BY_YES = "partner answered yes to 'may I go out?', so this player must go out"

#: Hand-and-Foot-style knobs (RULES-hand-and-foot.md §3.8.2, those the engine has), on the Ponytail preset.
HF_LIKE = {"pony_unlock": "HAND_EMPTY", "ask_partner_permission": "REQUIRED", "initial_meld_basis": "DEAL_NUMBER",
           "initial_meld_table": "HF_BY_DEAL", "go_out_requirement": "NATURAL:2,MIXED:2,WILD:1"}


class Asking(Scripted):
    """Scripted play that asks "may I go out?" after every draw (its partner, a plain Scripted, says yes)."""

    def ask_to_go_out(self, view: PlayerView) -> bool:
        return True


def walk_state(**knobs: Any) -> Any:
    """Seat 0, still in its hand under HAND_EMPTY, draws Q 4: melding K x7, Q x6, 9 x3 leaves the 4, whose discard
    walks into the foot (tests/test_scenarios_ponytail.py, the same deal)."""
    rules = pt_rules(pony_unlock="HAND_EMPTY", **knobs)
    return pony_deal_state(rules, {0: "K K K K K K K Q Q Q Q Q 9 9 9"}, {0: "A A A 5 5 5 6 6 6 8 8 8 10"},
                           stock="Q 4")


@pytest.mark.parametrize("permission", ["OPTIONAL", "REQUIRED"])
def test_after_a_yes_melding_down_to_a_walk_is_refused(permission: str) -> None:
    st = walk_state(ask_partner_permission=permission)
    s0 = Asking(melds=[[meld("K", 7), meld("Q", 6), meld("9", 3)]], discards=["4"])
    with pytest.raises(StrategyError, match="walk into the foot") as err:
        play_until(st, players({0: s0}), 1)
    assert BOUND_BY_YES in str(err.value) and st.permission is True and not st.pony_picked[0]


def test_without_asking_the_same_walk_is_legal() -> None:
    st = walk_state(ask_partner_permission="OPTIONAL")
    s0 = Scripted(melds=[[meld("K", 7), meld("Q", 6), meld("9", 3)]], discards=["4"])
    play_until(st, players({0: s0}), 1)
    assert st.end_reason is None and st.pony_picked[0]


def test_after_a_yes_a_last_card_discard_that_walks_is_refused() -> None:
    """The discard itself: one hand card left, the pony face down, partner said yes."""
    st = walk_state(ask_partner_permission="REQUIRED")
    seat = st.first_player
    hand = st.hands[seat]
    for r in range(len(hand)):
        hand[r] = 0
    hand[parse_rank("4")] = 1
    st.hand_sizes[seat] = 1
    st.asked, st.permission = True, True
    assert PlayerView(st, seat).legal_discards() == []
    with pytest.raises(StrategyError, match="walk into the foot"):
        Deal(st, players())._check_discard(seat, parse_rank("4"))


def test_after_a_yes_melds_keeping_cards_are_refused_at_once() -> None:
    st = walk_state(ask_partner_permission="REQUIRED")
    s0 = Asking(melds=[[meld("K", 7)]])
    view = PlayerView(st, 0)
    st.permission = True
    assert BOUND_BY_YES in (view.check_melds([meld("K", 7)]) or "")
    st.permission = None
    with pytest.raises(StrategyError, match="these melds leave 10 cards"):
        play_until(st, players({0: s0}), 1)


def test_after_a_yes_laying_nothing_with_cards_kept_is_refused() -> None:
    st = walk_state(ask_partner_permission="REQUIRED")
    with pytest.raises(StrategyError, match=r"melds \[\]: .*keeping 17 cards"):
        play_until(st, players({0: Asking()}), 1)


def run_into_foot(then: list[Any]) -> tuple[Any, Asking]:
    """Seat 0 asks, is told yes, melds its whole hand (running into the foot: allowed, it may still go out)."""
    rules = pt_rules(pony_unlock="HAND_EMPTY", ask_partner_permission="REQUIRED", go_out_requirement="NATURAL:2")
    st = pony_deal_state(rules, {0: "K K K K K K K Q Q Q Q Q Q Q 9"}, {0: "A A A 5 5 5 6 6 6 8 8 8 10"},
                         stock="9 9")
    return st, Asking(melds=[[meld("K", 7), meld("Q", 7), meld("9", 3)], then], discards=["10"])


def test_after_a_yes_running_into_the_foot_then_going_out_is_legal() -> None:
    st, s0 = run_into_foot([meld("A", 3), meld("5", 3), meld("6", 3), meld("8", 3)])
    play_until(st, players({0: s0}), 1)
    assert st.pony_picked[0] and st.end_reason == "went_out" and st.went_out_seat == 0


def test_after_a_yes_running_into_the_foot_then_keeping_cards_is_refused() -> None:
    st, s0 = run_into_foot([meld("A", 3)])
    with pytest.raises(StrategyError, match="these melds leave 10 cards"):
        play_until(st, players({0: s0}), 1)
    assert st.pony_picked[0]


def test_an_ask_no_move_could_honour_is_refused() -> None:
    """Under go_out_not_same_turn_as_required_canasta (REQUIREMENT), a team that did not meet the requirement
    before this turn cannot go out in it, whatever it melds: a yes could not be honoured, so no ask."""
    rules = make_rules(ask_partner_permission="REQUIRED", go_out_not_same_turn_as_required_canasta=True,
                       go_out_wait_event="REQUIREMENT", hand_size=5)
    st = deal_state(rules, {1: "K K K K 5"}, stock="K")
    view = PlayerView(st, 1)
    assert not view.may_ask
    with pytest.raises(StrategyError, match="no move could honour a 'yes'"):
        play_until(st, players({1: Asking()}), 1)


def test_an_ask_that_could_be_honoured_is_still_allowed() -> None:
    rules = make_rules(ask_partner_permission="REQUIRED", hand_size=5)
    st = deal_state(rules, {1: "K K K K 5"}, stock="K")
    assert PlayerView(st, 1).may_ask


def test_the_referee_case_a_yes_in_the_hand_never_ends_in_a_walk() -> None:
    """The trace referees' probe (asks while in its hand, greedy otherwise) under Hand-and-Foot-style knobs: each
    game either ends with every yes followed by the asker going out, or stops at the refused move."""
    rules = pt_rules(**HF_LIKE)
    refused = 0
    for game in range(12):
        log = EventLog()
        try:
            play_game(rules, ["probe"] * 4, 51, game, emit=log,
                      strategies=[AskInHand(np.random.default_rng(s)) for s in range(4)])
        except StrategyError as exc:
            assert BOUND_BY_YES in str(exc), exc
            refused += 1
        events = log.events
        for i, (kind, data) in enumerate(events):
            if kind != "ask_go_out" or not data["answer"]:
                continue
            # Until anyone's next draw: the asker goes out, or the game stopped at the refused move (no next draw).
            turn = [(k, d) for k, d in events[i + 1:]]
            nxt = next((j for j, (k, d) in enumerate(turn) if k == "decision" and d["kind"] == "draw"), None)
            if nxt is None and i == max(j for j, (k, _) in enumerate(events) if k == "ask_go_out"):
                continue
            assert any(k == "going_out" and d["seat"] == data["seat"] for k, d in turn[:nxt]), (
                f"game {game}: a yes to seat {data['seat']} did not end in its going out: "
                f"{[k for k, _ in turn[:nxt]]}")
    assert refused > 0
