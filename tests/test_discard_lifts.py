"""RULES.md A-AM-4d: with ``empty_pile_no_dead_card=true`` a hand may hold no card it may discard on an empty
pile; the bars lift in order (the dead-rank bar, then the A/7 bar) until one is legal, and the trace says which."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli
from helpers import Scripted
from helpers_americana import AmTable, am_deal_state, am_rules

from simcli.engine.judge import DISCARD_LIFTS, discard_error, discard_lifts
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.primitives.cards import ACE, SEVEN, SIX, parse_rank

DEAD_END = "6 7 7 7 A A A"  # RULES.md A-AM-4d's example: 6 dead, A/7 barred while the 6 is held


def dead_end_state(knob: str = "true") -> object:
    """Seat 0 (first to play) holds the example hand, the other team has closed sixes, the pile is empty."""
    st = am_deal_state(am_rules(hand_size=7, empty_pile_no_dead_card=knob), {0: DEAD_END}, stock="A")
    st.add_to_meld(1, SIX, 7, 0, 0)  # sixes are dead for everyone
    return st


def test_the_dead_rank_bar_lifts_first_and_only_as_far_as_needed() -> None:
    st = dead_end_state()
    assert not st.pile
    assert discard_lifts(st, 0) == 1 and DISCARD_LIFTS[0] == "dead_rank"
    assert discard_error(st, 0, SIX) is None  # the dead 6 may go ...
    assert discard_error(st, 0, SEVEN) is not None and discard_error(st, 0, ACE) is not None  # ... A/7 stay barred
    assert PlayerView(st, 0).legal_discards() == [SIX]


def test_nothing_lifts_while_a_card_is_discardable() -> None:
    st = am_deal_state(am_rules(hand_size=7, empty_pile_no_dead_card="true"), {0: "6 8 7 7 A A A"})
    st.add_to_meld(1, SIX, 7, 0, 0)
    assert discard_lifts(st, 0) == 0
    assert discard_error(st, 0, SIX) is not None  # the 8 may be discarded, so the dead 6 may not
    assert PlayerView(st, 0).legal_discards() == [parse_rank("8")]


def test_without_the_knob_there_is_nothing_to_lift() -> None:
    st = dead_end_state("false")
    assert discard_lifts(st, 0) == 0 and discard_error(st, 0, SIX) is None


def test_the_engine_accepts_the_lifted_discard_and_traces_the_bar() -> None:
    st = dead_end_state()
    log = EventLog()
    player = Scripted(discards=["6"])
    table = AmTable(st, [player, Scripted(), Scripted(), Scripted()], emit=log)
    table.step()
    assert st.pile == [SIX]
    discard = log.of_kind("discard")[0]
    assert discard["seat"] == 0 and discard["card"] == "6" and discard["bar_lifted"] == "dead_rank"


def test_the_reported_dead_end_game_now_plays_to_its_end(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    cli("play", "--variant", "americana", "--seed", 8852, "--strategies", "americana", "--rule",
        "empty_pile_no_dead_card=true", "--rule", "max_hands=2", "--trace", trace)
    events = [json.loads(x) for x in trace.read_text(encoding="utf-8").splitlines()]
    lifted = [e for e in events if e["event"] == "discard" and "bar_lifted" in e]
    assert lifted and all(e["bar_lifted"] in DISCARD_LIFTS for e in lifted)
    assert events[-1]["event"] == "game_end"
