"""The ``concealed`` flag (issue 22 item 6): it records RULES.md §1.10's conditions in every variant (traces, deal
tables), but only Classic defines concealed going out, so only rules that score it (``scores_concealed``) call a
going out concealed in ``simcli play``; elsewhere a one-turn going out (a Spanish terremoto) is not "concealed"
and is scored without a concealed total. Hand-dealt: the first player, whose partnership already holds a clean
canasta, draws a 5, melds Q Q Q Q Q 2 2 from the hand and discards the 5."""

from __future__ import annotations

from typing import Any

from helpers import Scripted, Table, deal_state, make_rules, meld, players
from helpers_spanish import es_deal_state, es_rules

from simcli.engine.deal import DealResult
from simcli.primitives.cards import KING
from simcli.rules.presets import load_rules, scores_concealed
from simcli.viewer.summary import deal_ending

HAND = "Q Q Q Q Q 2 2"


def one_turn_out(st: Any) -> DealResult:
    """Play the scenario from a prepared deal whose first player holds HAND and draws a 5."""
    first = st.first_player
    team = st.team_of[first]
    st.add_to_meld(team, KING, 7, 0, 0)  # a clean canasta laid earlier by the partner
    st.opened[team] = True
    st.first_clean_turn[team] = 0
    script = Scripted(melds=[[meld("Q", 5, 2)]], discards=["5"])
    result = Table(st, players({first: script}, st.n_players)).finish()
    assert result.end_reason == "went_out" and result.went_out_seat == first
    return result


def test_only_classic_defines_concealed_going_out() -> None:
    assert scores_concealed(load_rules("classic"))
    assert not any(scores_concealed(load_rules(v)) for v in ("ponytail", "americana", "spanish"))


def test_a_spanish_terremoto_is_not_called_concealed() -> None:
    rules = es_rules(hand_size=7)
    st = es_deal_state(rules, {0: HAND}, stock="5")
    result = one_turn_out(st)
    assert result.concealed and result.terremoto  # the §1.10 conditions held ...
    assert deal_ending(result, scores_concealed(rules)) == "seat 0 went out"  # ... but the summary does not say so
    assert result.scores[0]["going_out"] == 200  # the closing bonus, no concealed total


def test_a_classic_concealed_going_out_is_called_so_and_scores_200() -> None:
    rules = make_rules(hand_size=7)
    st = deal_state(rules, {1: HAND}, stock="5")
    result = one_turn_out(st)
    assert result.concealed
    assert deal_ending(result, scores_concealed(rules)) == "seat 1 went out concealed"
    assert result.scores[1]["going_out"] == 200  # concealed_out_total_bonus instead of 100
