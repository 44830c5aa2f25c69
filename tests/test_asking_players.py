"""Under ``ask_partner_permission=REQUIRED`` the built-in players ask and go out (issue 51, item 2).

Before the fix no built-in strategy asked, so under REQUIRED nobody ever went out (every deal ended by an empty
stock). Now every built-in player asks when the melds it would lay after a "yes" go out, and answers a partner's
ask as a partner weighing the team's position; under OPTIONAL the built-ins do not ask (their games there, the
Classic preset's among them, are as before). The players are loaded by spec name through the project's loader.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import Table, deal_state, make_rules, players

from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.asking import asks_to_go_out, good_partner_answer
from simcli.players.loading import load_strategy
from simcli.players.seating import play_game
from simcli.primitives.cards import KING, QUEEN
from simcli.rules import load_rules

#: The variant's heuristic (docs/strategies.md), the player whose going out the share measures.
HEURISTIC = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana", "spanish": "spanish"}
#: Games per variant and ask_partner_permission value, two deals each.
GAMES = 8


def went_out_share(variant: str, permission: str) -> tuple[float, int]:
    """The share of deals ended by going out in GAMES two-deal games of the variant's heuristic, and the deals."""
    rules = load_rules(variant, {"ask_partner_permission": permission, "max_hands": 2})
    deals = [d for g in range(GAMES) for d in play_game(rules, [HEURISTIC[variant]] * 4, 51, g).deals]
    return sum(d.end_reason == "went_out" for d in deals) / len(deals), len(deals)


@pytest.mark.parametrize("variant", list(HEURISTIC))
def test_under_required_deals_end_by_going_out_about_as_often(variant: str) -> None:
    optional, _ = went_out_share(variant, "OPTIONAL")
    required, deals = went_out_share(variant, "REQUIRED")
    assert required > 0, f"{variant}: no deal ended by going out under REQUIRED ({deals} deals)"
    assert abs(required - optional) <= 0.2, (variant, optional, required)


def asks_and_outs(rules: Any, names: list[str], games: int = 1) -> list[tuple[dict[str, Any], bool]]:
    """Every ``ask_go_out`` of the games, with whether the asker went out in that turn when told yes."""
    out = []
    for game in range(games):
        log = EventLog()
        play_game(rules, names, 51, game, emit=log)
        events = log.events
        for i, (kind, data) in enumerate(events):
            if kind != "ask_go_out":
                continue
            rest = events[i + 1:]
            nxt = next((j for j, (k, d) in enumerate(rest) if k == "decision" and d["kind"] == "draw"), len(rest))
            out.append((data, any(k == "going_out" and d["seat"] == data["seat"] for k, d in rest[:nxt])))
    return out


@pytest.mark.parametrize(("variant", "names"), [
    ("classic", ["mc:samples=2", "greedy"] * 2),
    ("classic", ["oracle:samples=1", "greedy"] * 2),
    ("classic", ["ismcts:iterations=8", "greedy"] * 2),
    ("classic", ["net:any_rules=true", "greedy"] * 2),
    ("ponytail", ["net:any_rules=true", "ponytail"] * 2),
], ids=["mc", "oracle", "ismcts", "net", "net-ponytail"])
def test_search_and_learnt_players_ask_as_their_heuristic_and_go_out(variant: str, names: list[str]) -> None:
    rules = load_rules(variant, {"ask_partner_permission": "REQUIRED", "max_hands": 1})
    asks = asks_and_outs(rules, names, games=3)
    own = [(d, out) for d, out in asks if d["seat"] % 2 == 0]  # the seats of the player under test
    assert own, f"{names[0]} never asked"
    assert all(out for d, out in asks if d["answer"]), asks


def test_the_heuristics_ask_only_where_asking_is_required() -> None:
    """Under OPTIONAL no built-in is asked (their hook is registered as asking only when required): games as before."""
    for name in ("greedy", "ponytail", "mc:samples=2", "net:any_rules=true"):
        log = EventLog()
        play_game(make_rules(max_hands=1), [name, "greedy"] * 2, 51, 0, emit=log)
        assert log.of_kind("ask_go_out") == [], name


def test_a_heuristic_asks_when_its_plan_after_a_yes_goes_out() -> None:
    """Seat 1 holds K K K 5 with a canasta of queens melded: after a yes greedy lays the kings and discards the 5."""
    rules = make_rules(hand_size=4, ask_partner_permission="REQUIRED")
    st = deal_state(rules, {1: "K K K 5"}, stock="K")
    st.add_to_meld(1, QUEEN, 7, 0, 0)
    st.opened[1] = True
    greedy = load_strategy("greedy")
    seats = players({1: greedy(np.random.default_rng(1)), 3: greedy(np.random.default_rng(3))})
    log = EventLog()
    Table(st, seats, emit=log).step()
    assert log.of_kind("ask_go_out") == [{"seat": 1, "partner": 3, "answer": True}]
    assert st.end_reason == "went_out" and st.went_out_seat == 1
    # Without the canasta the plan does not go out: no ask.
    st = deal_state(rules, {1: "K K K 5"}, stock="K")
    st.opened[1] = True
    assert not asks_to_go_out(PlayerView(st, 1), greedy(np.random.default_rng(1)).choose_melds)


def test_a_good_partner_says_no_only_when_the_team_trails_and_holds_points() -> None:
    rules = make_rules(hand_size=11, ask_partner_permission="REQUIRED")
    # Seat 3 (partner of seat 1) holds aces and jokers worth far more than the bonus; the opponents lead the table
    # with six kings (no canasta: they could not go out first).
    st = deal_state(rules, {3: "A A A A JK JK 2 2 Q Q Q"})
    st.add_to_meld(0, KING, 6, 0, 0)
    view = PlayerView(st, 3)
    assert view.stock_size > 16
    assert good_partner_answer(view) is False
    st.stock[:] = st.stock[:10]  # the stock running low: yes
    assert good_partner_answer(PlayerView(st, 3)) is True
