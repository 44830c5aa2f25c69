"""The base Strategy plays legal games on its own: stock draws, no melds, its default discard."""

from __future__ import annotations

from simcli.players.seating import make_strategies, play_game
from simcli.primitives.cards import BLACK_THREE, JOKER, TWO, parse_rank
from simcli.rules.presets import load_rules
from simcli.strategy import Strategy


class Minimal(Strategy):
    """No overrides at all."""

    name = "minimal"


def test_the_base_strategy_finishes_a_deal_against_greedy() -> None:
    rules = load_rules("classic", {"max_hands": "1"})
    greedy = make_strategies(["greedy"] * 4, 5, 0)
    players = [Minimal(None), greedy[1], Minimal(None), greedy[3]]  # type: ignore[arg-type]
    result = play_game(rules, ["minimal", "greedy", "minimal", "greedy"], 5, 0, strategies=players)
    assert len(result.deals) == 1 and result.deals[0].end_reason in ("went_out", "stock_out")
    assert result.deals[0].first_meld_turn[0] is None  # the base strategy never melds


def test_default_discard_order() -> None:
    from helpers import deal_state

    from simcli.engine.view import PlayerView

    st = deal_state(load_rules("classic"), {0: "B3 JK 2 K 5 5 9 9 Q Q A"}, upcards="8")
    view = PlayerView(st, 0)
    assert Minimal(None).choose_discard(view) == BLACK_THREE  # type: ignore[arg-type]
    st.hands[0][BLACK_THREE] = 0
    st.hand_sizes[0] -= 1
    assert Minimal(None).choose_discard(view) == parse_rank("5")  # type: ignore[arg-type]  # cheapest natural
    for r in range(4, 15):
        st.hand_sizes[0] -= st.hands[0][r]
        st.hands[0][r] = 0
    assert Minimal(None).choose_discard(view) == TWO  # type: ignore[arg-type]  # wild cards last, 2 before JK
    st.hands[0][TWO] = 0
    st.hand_sizes[0] -= 1
    assert Minimal(None).choose_discard(view) == JOKER  # type: ignore[arg-type]
