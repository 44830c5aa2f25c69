"""Issue 53: a hand of threes only under ``NO_THREE_UNLESS_OUT`` (Americana with ``threes_mode=RED_BONUS`` keeps its
black threes in hand) had no legal discard, and the game stopped. The three bar lifts for such a hand, last of the
bars that lift (simcli.engine.judge.DISCARD_LIFTS; docs/rules.md, the simcli note below §3.6): a three may be
discarded when the hand holds nothing else. The trace names the lifted bar."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import cli
from helpers import Scripted
from helpers_americana import AmTable, am_deal_state, am_rules

from simcli.engine.judge import DISCARD_LIFTS, discard_error, discard_lifts
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.loading import available_strategies, strategy_factory
from simcli.primitives.cards import BLACK_THREE, parse_rank


def threes_only_state(threes_mode: str = "RED_BONUS", pile: str = "8") -> object:
    """Seat 0 (first to play) holds two black threes after its draw; the pile holds ``pile``."""
    st = am_deal_state(am_rules(hand_size=1, threes_mode=threes_mode), {0: "B3"}, stock="B3")
    st.hands[0][BLACK_THREE] = 2
    st.hand_sizes[0] = 2
    st.pile.extend(parse_rank(c) for c in pile.split())
    return st


def test_a_hand_of_threes_only_may_discard_a_three() -> None:
    st = threes_only_state()
    assert DISCARD_LIFTS[-1] == "three" and discard_lifts(st, 0) == len(DISCARD_LIFTS)
    assert discard_error(st, 0, BLACK_THREE) is None
    assert PlayerView(st, 0).legal_discards() == [BLACK_THREE]


def test_on_an_empty_pile_too() -> None:
    st = threes_only_state()
    st.pile.clear()
    assert PlayerView(st, 0).legal_discards() == [BLACK_THREE]


def test_the_three_stays_barred_while_another_card_is_held() -> None:
    st = threes_only_state()
    st.hands[0][parse_rank("9")] += 1
    st.hand_sizes[0] += 1
    assert discard_lifts(st, 0) == 0
    assert "only when going out" in (discard_error(st, 0, BLACK_THREE) or "")
    assert PlayerView(st, 0).legal_discards() == [parse_rank("9")]


def test_every_built_in_strategy_discards_the_three() -> None:
    """net is left out: its model refuses rules it was not trained under (a one-line ModelError)."""
    names = [n for n in available_strategies() if n != "net"]
    assert {"greedy", "americana", "random", "ponytail", "spanish", "mc", "ismcts"} <= set(names)
    for name in names:
        st = threes_only_state()
        strategy = strategy_factory(name)(np.random.default_rng(0))
        assert strategy.choose_discard(PlayerView(st, 0)) == BLACK_THREE, name


def test_the_engine_accepts_the_discard_and_traces_the_lift() -> None:
    st = am_deal_state(am_rules(hand_size=1, threes_mode="RED_BONUS"), {0: "B3"}, stock="B3")  # draws the second
    log = EventLog()
    AmTable(st, [Scripted(discards=["B3"]), Scripted(), Scripted(), Scripted()], emit=log).step()
    discard = log.of_kind("discard")[0]
    assert discard["card"] == "B3" and discard["bar_lifted"] == "three"


def test_the_issue_game_plays_to_its_end() -> None:
    """The game of the issue: it stopped in deal 2, turn 42 (choose_discard returned -1)."""
    out = cli("play", "--variant", "americana", "--seed", "8039", "--strategies", "americana",
              "--rule", "max_hands=2", "--rule", "threes_mode=RED_BONUS").stdout
    assert "winner:" in out and "deal  2" in out


def test_the_engine_never_asks_for_a_discard_that_has_no_legal_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were every card barred (here: a bar forced on every card), the engine stops with an engine error before
    asking the strategy (issue 53: no strategy is asked for a decision with no legal answer)."""
    import simcli.engine.judge as judge
    from simcli.primitives.errors import EngineError

    st = am_deal_state(am_rules(), {0: "8 9 K K"}, stock="Q")
    asked: list[int] = []

    class Recorder(Scripted):
        def choose_discard(self, view: PlayerView) -> int | None:
            asked.append(view.turn)
            return super().choose_discard(view)

    monkeypatch.setattr(judge, "_discard_bar", lambda *args: "barred (test)")
    with pytest.raises(EngineError, match="no legal discard"):
        AmTable(st, [Recorder(), Scripted(), Scripted(), Scripted()]).step()
    assert not asked
    assert judge.no_discard_error(st, 0) == "no card in hand may be discarded"
