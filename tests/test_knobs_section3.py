"""The five RULES.md §3 knobs that issue 22 found missing: three are knobs now, each shown changing an outcome
(``allow_8th_card_when_going_out``, ``american_threes_sign``, ``special_hand_overrides_team_score``); two are fixed
by the engine another way (``black_three_stop``, ``scoring_unit``), which ``rules show`` explains and ``--rule``
refuses with the reason. Expected scores are worked out by hand from RULES.md §1.12 and §2.3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli, error_line
from helpers import Scripted, Table, deal_state, meld, players
from helpers_americana import am_deal_state, am_rules
from helpers_spanish import es_deal_state
from scoring_paths import api_scores, breakdown, cli_scores, with_rules
from test_golden_americana import a3, threes

from simcli.engine.judge import take_error
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import BLACK_THREE, KING, QUEEN
from simcli.primitives.errors import IllegalDecision
from simcli.rules.knobs import FIXED_KNOBS, RuleError
from simcli.rules.presets import load_rules


@pytest.fixture(params=["api", "cli"])
def scorer(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Score a position through the Python API or through ``simcli score --json``."""
    return api_scores if request.param == "api" else (lambda pos: cli_scores(tmp_path, pos))


# ------------------------------------------------------------------------------------- american_threes_sign
def test_american_threes_sign_changes_the_one_canasta_score(scorer: Any) -> None:
    position = threes(["K K K K K K K", "Q Q Q"])  # 3 red (500) and 4 black (1000) threes, one canasta
    assert scorer(position)[0] == (600, breakdown(canasta_natural=500, melded=100))  # S1: ignored with one
    scores = scorer(with_rules(position, american_threes_sign="-1,1,1"))
    assert scores[0] == (2100, breakdown(canasta_natural=500, red_threes=500, black_threes=1000, melded=100))


def test_american_threes_sign_changes_the_no_canasta_score(scorer: Any) -> None:
    position = threes([])
    assert scorer(position)[0][0] == -1500
    assert scorer(with_rules(position, american_threes_sign="0,0,1"))[0] == (0, breakdown())


def test_american_threes_sign_takes_three_signs() -> None:
    for bad in ("-1,0", "2,0,1", "a,b,c"):
        with pytest.raises(RuleError, match="american_threes_sign"):
            load_rules("americana", {"american_threes_sign": bad})


# ------------------------------------------------------------------------ special_hand_overrides_team_score
def test_special_hand_overrides_team_score_off_adds_the_rest(scorer: Any) -> None:
    assert scorer(a3())[0] == (3000, breakdown(special_hand=3000))  # S1: the hand's value and nothing else
    # Off: 3000 + going out 100, threes with no canasta -100 red and -100 black, S's three aces and three sevens
    # -1500 each, S's hand A A A 7 7 7 B3 = -(60 + 15 + 100).
    scores = scorer(with_rules(a3(), special_hand_overrides_team_score=False))
    assert scores[0] == (-275, breakdown(special_hand=3000, going_out=100, red_threes=-100, black_threes=-100,
                                         hand_rank_penalty=-3000, hand=-175))
    assert scores[1] == scorer(a3())[1]  # the opponents score normally either way


# ----------------------------------------------------------------------------- allow_8th_card_when_going_out
def eighth_card_deal(allow: bool, hand: str = "K") -> Any:
    """Seat 0 (first to play) holds ``hand`` and draws a 5; team 0 holds closed canastas of kings and queens."""
    rules = am_rules(hand_size=len(hand.split()), allow_8th_card_when_going_out=str(allow).lower())
    st = am_deal_state(rules, {0: hand}, stock="5")
    st.add_to_meld(0, KING, 7, 0, 0)
    st.add_to_meld(0, QUEEN, 7, 0, 0)
    st.opened[0] = True
    return st


def play_eighth(st: Any) -> Table:
    table = Table(st, players({0: Scripted(melds=[[meld("K", 1)]], discards=["5"])}))
    table.step()
    return table


def test_the_eighth_card_goes_out_with_the_knob() -> None:
    st = eighth_card_deal(True)
    table = play_eighth(st)
    assert st.end_reason == "went_out" and st.melds[0][KING] == [8, 0, 0]
    scores = table.deal._finish().scores[0]
    assert scores["canasta_natural"] == 1000 and scores["melded"] == 80 + 70 and scores["going_out"] == 100


def test_without_the_knob_the_eighth_card_is_refused() -> None:
    with pytest.raises(IllegalDecision, match="closed"):
        play_eighth(eighth_card_deal(False))


def test_the_eighth_card_needs_the_player_to_go_out() -> None:
    with pytest.raises(IllegalDecision, match="allow_8th_card_when_going_out"):
        play_eighth(eighth_card_deal(True, "K 9 10"))


def test_a_scored_position_may_hold_the_eighth_card(scorer: Any) -> None:
    position = {"variant": "americana", "rules": {"allow_8th_card_when_going_out": True}, "teams": [
        {"melds": ["K K K K K K K K", "Q Q Q Q Q Q Q"], "hands": [[], []], "went_out": True}, {"hands": [[], []]}]}
    assert scorer(position)[0] == (1250, breakdown(going_out=100, canasta_natural=1000, melded=150))


def test_the_eighth_card_needs_a_cap_that_stays_in_place() -> None:
    for variant, knobs in (("classic", {}), ("ponytail", {})):
        with pytest.raises(RuleError, match="allow_8th_card_when_going_out=true needs a capped meld"):
            load_rules(variant, {"allow_8th_card_when_going_out": "true", **knobs})


# ------------------------------------------------------------------------- fixed: black_three_stop, scoring_unit
@pytest.mark.parametrize("name", sorted(FIXED_KNOBS))
def test_rules_show_explains_the_fixed_knobs(name: str) -> None:
    value, why = FIXED_KNOBS[name]
    for variant in ("classic", "ponytail", "americana", "spanish"):
        out = cli("rules", "show", variant).stdout
        assert f"# {name} = {value} is fixed by the engine (not a knob): {why}" in out
        doc = json.loads(cli("rules", "show", variant, "--json").stdout)
        assert doc["fixed"][name] == {"value": value, "why": why} and name not in doc["knobs"]
    line = error_line("rules", "show", "classic", "--rule", f"{name}=x")
    assert f"rule knob '{name}' is fixed by the engine at {value}" in line


def test_a_black_three_on_top_stops_the_pile_in_every_variant() -> None:
    """What black_three_stop=true means, as the engine fixes it: no take with a black three on top, whatever the
    hand holds (the top-card gate of RULES.md §1.7)."""
    states = [deal_state(load_rules("classic"), {1: "B3 B3 K"}), am_deal_state(am_rules(), {0: "B3 B3 K"}),
              es_deal_state(load_rules("spanish"), {0: "B3 B3 K"})]
    for st in states:
        seat = st.first_player
        st.pile.append(BLACK_THREE)
        assert take_error(st, seat, TakePile(Meld(BLACK_THREE, 2))) == "the pile cannot be taken with B3 on top"
