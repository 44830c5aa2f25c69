"""Knob ``new_meld_after_closed_canasta`` (RULES.md A-PT-18): a new meld of a rank whose earlier meld is closed.

With the knob (the Ponytail preset) a meld that reaches ``meld_max_size`` (7) is a closed canasta: it is set aside
(``DealState.closed``, ``PlayerView.closed_canastas``), still counts as a canasta for going out and scoring, and the
rank's slot is free for a new meld. Without it (every other preset, or ``--rule new_meld_after_closed_canasta=false``)
a team has one meld per rank for the whole deal, so cards of a closed rank can never be melded again.

Seats: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2. The deal is the four-canasta deal of
``test_scenarios_ponytail`` with kings in place of the nines: seat 0 lays K x7 (natural) and Q x6 + 2 (mixed) on
turn 1, picks up its pony, lays 7 x7 (sevens) and a wild canasta from it, and keeps one K after discarding the other.
On turn 5 it draws K K: with the knob it lays K K K as a new meld and goes out; without it the kings fit nowhere.
Expected values are worked out by hand from RULES.md §1.12 and the §2.2 bonus table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import Scripted, Table, hand_of, meld, play_until, players, take
from helpers_ponytail import all_cards, pony_deal_state, pt_rules
from helpers_spanish import es_deal_state, es_rules, es_table

from simcli.cli import main
from simcli.engine.scoring import score_deal
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.planning import naturals_plan
from simcli.players.seating import play_game
from simcli.positions.reader import PositionError, parse_position
from simcli.positions.writer import position_to_json
from simcli.primitives.actions import Meld
from simcli.primitives.cards import KING, QUEEN, SEVEN, WILD_MELD, deck_counts
from simcli.primitives.errors import IllegalDecision
from simcli.rules.knobs import RuleError
from simcli.rules.presets import load_rules
from simcli.strategies.heuristics.greedy import Greedy
from simcli.strategies.heuristics.ponytail import Ponytail

HANDS = {0: "K K K K K K K Q Q Q Q Q Q 2 JK", 1: "8 " * 15, 2: "4 " * 15, 3: "J " * 15}
PONIES = {0: "7 7 7 7 7 7 2 2 2 2 JK JK K", 1: "10 " * 13, 2: "5 " * 13, 3: "Q " * 13}
STOCK = "7 K  8 8  4 4  J J  K K"
OPEN = [meld("K", 7), meld("Q", 6, twos=1)]  # 70 + 80 = 150 >= 50
FROM_PONY = [meld("7", 7), Meld(WILD_MELD, 0, 4, 3)]
ON = pt_rules()
OFF = pt_rules(new_meld_after_closed_canasta=False)


class TryScripted(Scripted):
    """A Scripted player whose melds fall back to none when the engine would refuse them."""

    def choose_melds(self, view: PlayerView) -> Any:
        plan = super().choose_melds(view)
        return plan if not plan or view.check_melds(plan) is None else []


def deal(rules: Any) -> Any:
    return pony_deal_state(rules, HANDS, PONIES, upcards="6", stock=STOCK)


def seat0(cls: type[Scripted] = Scripted) -> Scripted:
    return cls(melds=[OPEN, FROM_PONY, [meld("K", 3)]], discards=["K"])


def parts(score: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in score.items() if v}


def test_preset_values_and_rules_show() -> None:
    assert ON.new_meld_after_closed_canasta is True
    for variant in ("classic", "americana", "spanish"):
        assert load_rules(variant).new_meld_after_closed_canasta is False
    res = CliRunner().invoke(main, ["rules", "show", "ponytail"])
    assert res.exit_code == 0
    line = next(x for x in res.output.splitlines() if x.split()[:1] == ["new_meld_after_closed_canasta"])
    assert "= true" in line and "a closed canasta (meld_max_size cards) frees its rank" in line


def test_knob_contradicting_dead_ranks_is_refused() -> None:
    with pytest.raises(RuleError, match="new_meld_after_closed_canasta=true contradicts closed_rank_dead_for_all"):
        load_rules("americana", {"new_meld_after_closed_canasta": "true"})
    with pytest.raises(RuleError, match="allowed: set one of them to false"):
        pt_rules(closed_rank_dead_for_all=True)
    res = CliRunner().invoke(main, ["rules", "show", "americana", "--rule", "new_meld_after_closed_canasta=true"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "contradicts closed_rank_dead_for_all" in res.output


def test_closed_canastas_are_set_aside_and_still_count() -> None:
    st = deal(ON)
    log = EventLog()
    table = Table(st, players({0: seat0()}), emit=log)
    table.step(1)
    # All four canastas of turn 1 reached 7 cards: set aside, slots free, still counted for going out.
    assert st.closed[0] == [(KING, 7, 0, 0), (QUEEN, 6, 1, 0), (SEVEN, 7, 0, 0), (WILD_MELD, 0, 4, 3)]
    assert all(m is None for m in st.melds[0])
    assert {k: v for k, v in st.canastas[0].items() if v} == {"NATURAL": 1, "MIXED": 1, "WILD": 1, "SEVENS": 1}
    view = PlayerView(st, 0)
    assert view.closed_canastas() == tuple(st.closed[0]) and dict(view.melds()) == {}
    assert view.go_out_error() is None
    # The meld events carry the meld as it closed, marked closed.
    first = log.of_kind("meld")[0]
    assert first["meld"] == [7, 0, 0] and first["closed"] is True and first["rank"] == "K"
    assert all_cards(st) == deck_counts(6, 2)


def test_new_meld_of_a_closed_rank_goes_out_with_the_knob() -> None:
    st = deal(ON)
    res = Table(st, players({0: seat0()})).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 5
    assert st.melds[0][KING] == [3, 0, 0] and (KING, 7, 0, 0) in st.closed[0]
    # Team 0: 200 + 500 + 300 + 1000 + 1500; melded K x7 70, Q x6 + 2 80, 7 x7 35, 2 x4 + JK x3 230 and the new
    # K x3 30; seat 2 keeps 4 x16 (80) and its pony 5 x13 (65), picked up on turn 3.
    assert parts(res.scores[0]) == {"going_out": 200, "canasta_natural": 500, "canasta_mixed": 300,
                                    "canasta_wild": 1000, "canasta_sevens": 1500, "melded": 445, "hand": -145,
                                    "total": 3800}
    # Both kings melds are on the table for scoring: the closed canasta and the new meld.
    assert sorted(m for m in res.positions[0].melds if m[0] == KING) == [(KING, 3, 0, 0), (KING, 7, 0, 0)]
    assert res.dead_ranks == 3  # K, Q and 7 have a canasta (the wild meld is no rank)


def test_without_the_knob_the_closed_rank_takes_no_more_cards() -> None:
    msg = ""
    with pytest.raises(IllegalDecision) as exc:
        Table(deal(OFF), players({0: seat0()})).finish()
    msg = str(exc.value)
    assert "meld of 10 cards exceeds meld_max_size=7" in msg and "turn 5" in msg
    # A player that lays only what the engine accepts keeps its kings; nobody else melds: the stock runs out.
    st = deal(OFF)
    res = Table(st, players({0: seat0(TryScripted)})).finish()
    assert res.end_reason == "stock_out" and res.went_out_seat is None
    assert st.melds[0][KING] == [7, 0, 0] and st.closed == [[], []]


def test_trace_lists_closed_canastas_in_deal_scored() -> None:
    log = EventLog()
    st = deal(ON)
    table = Table(st, players({0: seat0()}), emit=log)
    table.finish()
    team0 = log.of_kind("deal_scored")[0]["teams"][0]
    assert team0["melds"] == {"K": [3, 0, 0]}
    assert team0["closed_canastas"] == [["K", 7, 0, 0], ["Q", 6, 1, 0], ["7", 7, 0, 0], ["WILD", 0, 4, 3]]
    log_off = EventLog()
    Table(deal(OFF), players({0: seat0(TryScripted)}), emit=log_off).finish()
    scored = log_off.of_kind("deal_scored")[0]
    assert "closed_canastas" not in scored["teams"][0]  # only written under the knob
    assert not any("closed" in m for m in log_off.of_kind("meld"))


# ============================================================================ melding and taking, both ways
def opened_state(rules: Any, hand: str, king_meld: int, top: str = "6") -> Any:
    """Turn 1 done: team 0 has K x``king_meld`` (and Q x3), seat 0 holds ``hand`` (+ what it drew)."""
    st = pony_deal_state(rules, {0: "K " * king_meld + "Q Q Q " + hand}, upcards=top, stock="4 5")
    play_until(st, players({0: Scripted(melds=[[meld("K", king_meld), meld("Q", 3)]], discards=["4"])}), 1)
    assert st.opened[0]
    return st


@pytest.mark.parametrize(("plan", "on", "off"), [
    ([meld("K", 3)], None, "meld of 10 cards exceeds meld_max_size=7"),
    ([meld("K", 2)], "a new meld needs at least 3 cards", "meld of 9 cards exceeds meld_max_size=7"),
    ([meld("K", 1)], "a new meld needs at least 3 cards", "meld of 8 cards exceeds meld_max_size=7"),
])
def test_melding_on_a_closed_rank(plan: list[Meld], on: str | None, off: str) -> None:
    for rules, expected in ((ON, on), (OFF, off)):
        st = opened_state(rules, "K K K 9 9", 7)
        err = PlayerView(st, 0).check_melds(plan)
        assert err == expected or (expected is not None and err is not None and expected in err), (rules, err)


def test_one_decision_may_close_a_meld_and_start_the_next() -> None:
    # K x5 on the table, K x5 in hand: 2 close it at 7, the next 3 start a new meld; one action of 5 does not split.
    plan = [meld("K", 2), meld("K", 3)]
    st = opened_state(ON, "K K K K K 9 9", 5)
    view = PlayerView(st, 0)
    assert view.check_melds(plan) is None
    assert "meld of 10 cards exceeds meld_max_size=7" in view.check_melds([meld("K", 5)])
    assert "hand holds 5 x K, not 6" in view.check_melds([meld("K", 2), meld("K", 4)])
    off = opened_state(OFF, "K K K K K 9 9", 5)
    assert "meld of 10 cards exceeds meld_max_size=7" in PlayerView(off, 0).check_melds(plan)
    # Played: the first action closes the canasta, the second starts the next meld.
    st = pony_deal_state(ON, {0: "K K K K K Q Q Q K K K K K 9 9"}, upcards="6", stock="4 5")
    s0 = Scripted(melds=[[meld("K", 5), meld("Q", 3)], plan], discards=["4", "9"])
    play_until(st, players({0: s0}), 5)
    assert st.closed[0] == [(KING, 7, 0, 0)] and st.melds[0][KING] == [3, 0, 0]
    assert st.canastas[0]["NATURAL"] == 1


def test_pile_take_on_a_closed_rank() -> None:
    """With the knob the top K and a natural pair start a new meld; without it they would make a 10-card meld."""
    for rules, expected in ((ON, None), (OFF, "meld of 10 cards exceeds meld_max_size=7")):
        st = opened_state(rules, "K K 9 9 9", 7)
        st.pile.append(KING)  # the next discard is a K (placed directly: only the top matters here)
        err = PlayerView(st, 0).check_take(take("K", 2))
        assert err == expected or (expected and err and expected in err)
        # A bare lay-off on the closed canasta is never possible.
        assert PlayerView(st, 0).check_take(take("K", 0)) is not None


def test_a_second_wild_canasta() -> None:
    st = pony_deal_state(ON, {0: "K K K 2 2 2 2 JK JK JK 2 2 JK 9 9"}, upcards="6", stock="4 5")
    wild7, wild3 = Meld(WILD_MELD, 0, 4, 3), Meld(WILD_MELD, 0, 2, 1)
    play_until(st, players({0: Scripted(melds=[[meld("K", 3), wild7, wild3]], discards=["4"])}), 1)
    assert st.closed[0] == [(WILD_MELD, 0, 4, 3)] and st.melds[0][WILD_MELD] == [0, 2, 1]
    st = pony_deal_state(OFF, {0: "K K K 2 2 2 2 JK JK JK 2 2 JK 9 9"}, upcards="6", stock="4 5")
    assert "exceeds meld_max_size=7" in PlayerView(st, 0).check_melds([meld("K", 3), wild7, wild3])


# ============================================================================ strategies and planning
def test_naturals_plan() -> None:
    assert naturals_plan(ON, KING, 5, (5, 0, 0)) == [Meld(KING, 2), Meld(KING, 3)]
    assert naturals_plan(OFF, KING, 5, (5, 0, 0)) == [Meld(KING, 2)]
    assert naturals_plan(ON, KING, 4, (5, 0, 0)) == [Meld(KING, 2)]  # 2 left: too few for a new meld
    assert naturals_plan(ON, KING, 10, None) == [Meld(KING, 7), Meld(KING, 3)]
    assert naturals_plan(ON, KING, 2, None) == [] and naturals_plan(OFF, KING, 3, (7, 0, 0)) == []
    assert naturals_plan(ON, KING, 3, (7, 0, 0)) == [Meld(KING, 3)]  # (a closed meld still in a slot)
    classic = load_rules("classic")
    assert naturals_plan(classic, KING, 9, (7, 0, 0)) == [Meld(KING, 9)]  # no cap: the canasta grows


@pytest.mark.parametrize("cls", [Greedy, Ponytail])
def test_strategies_start_the_next_meld_of_a_closed_rank(cls: type[Greedy]) -> None:
    for rules in (ON, OFF):
        st = opened_state(rules, "K K K 9 9", 7)
        kings = st.hands[0][KING]
        expected = [Meld(KING, kings)] if rules.new_meld_after_closed_canasta else []
        plan = cls(np.random.default_rng(0)).choose_melds(PlayerView(st, 0))
        assert kings >= 3 and [m for m in plan if m.rank == KING] == expected, (cls.name, rules)


def test_ponytail_counts_a_closed_wild_canasta() -> None:
    """With its wild canasta set aside (the wild slot empty again), ponytail still knows the canasta is made: its
    one wild card turns K x6 into the mixed canasta the set lacks instead of waiting for a second wild meld."""
    st = pony_deal_state(ON, {0: "K K K K K K Q Q Q 2 2 2 JK JK 9"}, {0: "2 4 4 4 5 5 5 6 8 9 10 J A"},
                         upcards="6", stock="JK 2")
    first = [meld("K", 6), meld("Q", 3), Meld(WILD_MELD, 0, 4, 3)]  # the wild canasta unlocks the pony
    play_until(st, players({0: Scripted(melds=[first, []], discards=["9"])}), 1)
    assert st.closed[0] == [(WILD_MELD, 0, 4, 3)] and st.melds[0][WILD_MELD] is None
    assert hand_of(st, 0) == "A J 10 9 8 6 5 5 5 4 4 4 2"
    plan = Ponytail(np.random.default_rng(0)).choose_melds(PlayerView(st, 0))
    assert plan == [Meld(5, 3), Meld(4, 3), Meld(KING, 0, 1, 0)]
    assert PlayerView(st, 0).check_melds(plan) is None


# ============================================================================ positions for simcli score
def position(rules: dict[str, Any], melds: list[str]) -> dict[str, Any]:
    return {"variant": "ponytail", "rules": rules, "teams": [
        {"melds": melds, "hands": [["4"], ["5"]]}, {"melds": [], "hands": [["6"], ["4"]]}]}


def test_position_with_a_second_meld_of_a_rank() -> None:
    melds = ["K K K K K K K", "K K K", "Q Q Q Q Q Q 2", "K K K K K K 2"]
    rules, teams = parse_position(position({}, melds))
    scores = score_deal(rules, teams)
    # K x7 500 + K x6 + 2 300 + Q x6 + 2 300; melded 70 + 30 + 80 + 80 = 260; hands -10
    assert parts(scores[0]) == {"canasta_natural": 500, "canasta_mixed": 600, "melded": 260, "hand": -10,
                                "total": 1350}
    doc = position_to_json(rules, teams)
    assert parse_position(doc) == (rules, teams)
    with pytest.raises(PositionError, match="second meld of K in one team .*allowed: one meld per rank per team, "
                                            "merge them"):
        parse_position(position({"new_meld_after_closed_canasta": False}, melds))
    with pytest.raises(PositionError, match="besides closed canastas of meld_max_size=7 cards"):
        parse_position(position({}, ["K K K K", "K K K"]))


def test_position_went_out_counts_closed_canastas_of_one_rank() -> None:
    """Two sevens canastas still lack a natural, a mixed and a wild one: going out is refused."""
    pos = position({}, ["7 7 7 7 7 7 7", "7 7 7 7 7 7 2"])
    pos["teams"][0]["went_out"] = True
    pos["teams"][0]["hands"] = [[], ["5"]]
    with pytest.raises(PositionError, match=r"went out without meeting .*\(canastas: SEVENS:2\)"):
        parse_position(pos)


# ============================================================================ random and strategy play
@pytest.mark.parametrize("names", [["random"] * 4, ["greedy", "ponytail"] * 2])
def test_games_lay_new_melds_of_closed_ranks(names: list[str]) -> None:
    log = EventLog()
    play_game(ON, names, 3, 0, emit=log)
    closed: set[tuple[int, str]] = set()
    again = 0
    for m in log.of_kind("meld"):
        key = (m["team"], m["rank"])
        added = m["added"]
        if key in closed and m["meld"] == [added["naturals"], added["twos"], added["jokers"]]:
            again += 1  # a new meld of a rank whose earlier meld the team closed
        if m.get("closed"):
            closed.add(key)
    assert closed and again > 0


# ============================================================================ with Spanish hidden canastas and tapa
def test_spanish_with_the_knob_two_hidden_canastas_of_one_rank_and_the_tapa() -> None:
    """Knob on in the Spanish game (2 decks: 8 kings): K x4 + 2 x3 twice in one decision closes the first canasta
    and lays the second as a new meld; both are hidden (1000 each, REPLACE), and the kings stay a tapa."""
    plan = [Meld(KING, 4, 3, 0), Meld(KING, 4, 3, 0)]
    hand = {0: "K K K K K K K K 2 2 2 2 2 2 9"}
    st = es_deal_state(es_rules(new_meld_after_closed_canasta=True), hands=hand)
    table = es_table(st, {0: Scripted(melds={1: plan}, discards={1: "9"})}, turns=1)
    assert st.closed[0] == [(KING, 4, 3, 0), (KING, 4, 3, 0)] and st.hidden[0] == [KING, KING]
    st.pile.append(KING)  # a K on top: closed ranks block the pile (tapa) whichever meld closed them
    assert "already has a canasta (closed_rank_blocks_pile)" in PlayerView(st, 0).check_take(take("K", 2))
    st.pile.pop()
    res = table.finish()
    assert res.hidden_canastas == [2, 0] and res.positions[0].hidden == (KING, KING)
    assert res.scores[0]["canasta_hidden"] == 2000 and res.scores[0]["canasta_mixed"] == 0
    off = es_deal_state(es_rules(), hands=hand)
    assert "meld of 14 cards exceeds meld_max_size=7" in PlayerView(off, 0).check_melds(plan)
