"""Hand-dealt Spanish Canasta (juego) scenarios: each Spanish rule or knob changes play (RULES.md §2.4, §3, §4.3).

Seats: the dealer is seat 1 and play runs to the dealer's right (CCW), so with 4 players the turns go seat 0, 3,
2, 1, 0, ...; team 0 = seats 0 and 2, team 1 = seats 1 and 3 (the dealer's team). The deck is stacked with
:func:`helpers_spanish.stack_es_deck`: 15-card hands, the *montón* (6 face down + upcards), then the stock in
drawing order (draw_count = 1: replacements for dealt red threes first, then turn 1 = seat 0's draw, turn 2 = seat
3's, ...). Players without a script draw from the stock, never meld and discard their lowest natural. Every expected
value was worked out by hand from RULES.md (card values §1.3, scoring §1.12, the §2.4 table), not from the engine.
Each test names the rule it checks; most run the preset value and the knob's alternative value.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import Scripted, hand_of, meld, players, take
from helpers_spanish import DEALER, es_deal_state, es_rules, es_table, refused
from scoring_paths import fake_deal

import simcli.engine.game
from simcli.cli import main
from simcli.engine.game import prepare_deal
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.primitives.actions import DRAW_STOCK, Meld
from simcli.primitives.cards import (
    ACE,
    BLACK_THREE,
    KING,
    NINE,
    QUEEN,
    RANK_NAMES,
    RED_THREE,
    SIX,
    TWO,
    WILD_MELD,
    deck_cards,
)
from simcli.rules.presets import RuleError, cut_target


def wild(twos: int = 0, jokers: int = 0) -> Meld:
    """A meld of wild cards only."""
    return Meld(WILD_MELD, 0, twos, jokers)


def parts(score: dict[str, int]) -> dict[str, int]:
    """The non-zero parts of a team's score (plus the total)."""
    return {k: v for k, v in score.items() if v}


# ============================================================================ modes (§2.4 "Modes", "Decks")
MODES = [(2, 1), (3, 1), (4, 1), (4, 2), (6, 3)]


@pytest.mark.parametrize(("p", "t"), MODES)
def test_modes_load_and_deal_15_cards(p: int, t: int) -> None:
    """Individual (2-4 players), pairs (4) and trios (6) load; each player gets 15 cards; 4 decks from 6 players."""
    rules = es_rules(num_players=p, team_size=t)
    decks = 4 if p >= 6 else 2
    assert (rules.num_players, rules.team_size, rules.n_teams, rules.decks) == (p, t, p // t, decks)
    pack = deck_cards(rules.decks, rules.jokers_per_deck)
    assert len(pack) == 54 * decks
    st = prepare_deal(rules, pack, np.random.default_rng(p * 10 + t), 0, 0, [0] * (p // t))
    assert st.hand_sizes == [15] * p and [sum(h) for h in st.hands] == [15] * p
    assert len(st.pile) >= 7 and len(st.stock) == len(pack) - 15 * p - len(st.pile)
    # partners sit alternately: the team of seat s is s mod (number of teams)
    assert [st.team_of[s] for s in range(p)] == [s % (p // t) for s in range(p)]


@pytest.mark.parametrize(("p", "t"), MODES)
def test_modes_play_a_whole_deal(p: int, t: int) -> None:
    """A deal of fallback players ends when the stock runs out (END_ON_EMPTY_DRAW) with every card accounted for."""
    rules = es_rules(num_players=p, team_size=t)
    st = es_deal_state(rules)
    res = finish_counting(st)
    assert res.end_reason == "stock_out" and len(res.scores) == p // t


def finish_counting(st: Any) -> Any:
    """Play a prepared deal to its end, checking that no card appeared or vanished."""
    table = es_table(st)
    n_cards = 54 * st.rules.decks
    res = table.finish()
    held = sum(sum(h) for h in st.hands) + len(st.pile) + len(st.stock) + sum(st.red_threes)
    melded = sum(m[0] + m[1] + m[2] for team in st.melds for m in team if m is not None)
    assert held + melded == n_cards
    return res


def test_six_players_get_trios_and_four_decks() -> None:
    """S2: 'Cuando hay 6 o más jugadores, en vez de 2 barajas se usarán 4 ... 216 cartas'; teams A-B-A-B-A-B."""
    rules = es_rules(num_players=6)  # team_size 3 and 4 decks come from the preset's [players.6]
    assert (rules.team_size, rules.decks, rules.jokers_per_deck) == (3, 4, 2)
    assert len(deck_cards(rules.decks, rules.jokers_per_deck)) == 216
    st = es_deal_state(rules)
    assert st.members(0) == (0, 2, 4) and st.members(1) == (1, 3, 5)
    assert es_rules(num_players=2).team_size == 1 and es_rules(num_players=3).team_size == 1
    assert es_rules().team_size == 2 and es_rules(num_players=4, team_size=1).n_teams == 4


def test_invalid_mode_on_the_command_line() -> None:
    """The same check through the command line: one line, non-zero exit."""
    result = CliRunner().invoke(main, ["rules", "show", "spanish", "--rule", "num_players=5"])
    assert result.exit_code != 0
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "num_players=5 with team_size=2 is not a mode of variant 'spanish'" in lines[0]


@pytest.mark.parametrize(("knobs", "values"), [
    ({"num_players": 5}, "num_players=5 with team_size=2"),
    ({"num_players": 6, "team_size": 2}, "num_players=6 with team_size=2"),
    ({"num_players": 2, "team_size": 2}, "num_players=2 with team_size=2"),
    ({"num_players": 3, "team_size": 3}, "num_players=3 with team_size=3"),
])
def test_invalid_modes_raise_one_line(knobs: dict[str, Any], values: str) -> None:
    with pytest.raises(RuleError) as exc:
        es_rules(**knobs)
    msg = str(exc.value)
    assert "\n" not in msg
    assert values in msg and "spanish" in msg
    for p, t in MODES:
        assert f"num_players={p} team_size={t}" in msg


# ============================================================================ deal and direction (§2.4, §1.14)
@pytest.mark.parametrize(("direction", "first", "order"), [("CCW", 0, [0, 3, 2, 1, 0]), ("CW", 2, [2, 3, 0, 1, 2])])
def test_play_direction(direction: str, first: int, order: list[int]) -> None:
    """S2: the dealer gives the first card to the player on the right, who starts; play runs to the right.

    With the dealer at seat 1, CCW (preset) starts at seat 0 (dealer - 1), CW at seat 2 (dealer + 1).
    """
    rules = es_rules(play_direction=direction)
    st = es_deal_state(rules, hands={first: "A A A A A A A A"})  # the first card dealt is an ace to the starter
    assert st.first_player == first and st.deck[0] == ACE and st.hands[first][ACE] == 8
    seen: list[int] = []

    class Log(Scripted):
        def choose_draw(self, view: PlayerView) -> Any:
            seen.append(view.seat)
            return super().choose_draw(view)

    es_table(st, {s: Log() for s in range(4)}, 5)
    assert seen == order


def test_the_deal_rotates_to_the_right() -> None:
    """§1.14: in Spanish play goes to the dealer's right (CCW), and so does the deal: dealer d, d - 1, d - 2."""
    rules = es_rules(max_hands=3)
    with mock.patch.object(simcli.engine.game, "Deal", fake_deal([[10, 0]] * 3)):
        result = play_game(rules, ["x"] * 4, 11, 0, strategies=players())
    d = result.first_dealer
    assert [x.dealer for x in result.deals] == [d, (d - 1) % 4, (d - 2) % 4]
    assert [x.first_player for x in result.deals] == [(d - 1) % 4, (d - 2) % 4, (d - 3) % 4]


# ============================================================================ exact cut (§2.4 "Cut", A-ES-2)
def test_cut_by_dealer_and_target() -> None:
    """The dealer cuts; an exact cut is 15 x players cards."""
    for p, t in MODES:
        rules = es_rules(num_players=p, team_size=t)
        assert cut_target(rules) == 15 * p
    st = es_deal_state(cut_count=60)
    assert st.cutter == DEALER and st.exact_cut and st.exact_cut_team == st.team_of[DEALER] == 1
    assert not es_deal_state(cut_count=61).exact_cut
    st = es_deal_state(es_rules(exact_cut_target_formula="HAND_X_PLAYERS_PLUS_1"), cut_count=60)
    assert st.cut_target == 61 and not st.exact_cut
    st = es_deal_state(es_rules(cut_by="PLAYER_BEFORE_DEALER", exact_cut_beneficiary="CUTTER_TEAM"), cut_count=60)
    assert st.cutter == 2 and st.exact_cut_team == 0  # the player before the dealer (CCW: dealer + 1)


def short_deal(rules: Any = None, hands: dict[int, str] | None = None, scripts: dict[int, Any] | None = None,
               stock: str = "Q J 10", **kw: Any) -> Any:
    """A deal on a short stock: three draws, then seat 1 finds the stock empty on turn 4 and the deal ends."""
    st = es_deal_state(rules, hands=hands, stock=stock, fill_stock=False, **kw)
    res = es_table(st, scripts).finish()
    assert res.end_reason == "stock_out" and res.turns == 4
    return res


def canasta_for_team_1() -> dict[int, Any]:
    """Seat 3 (team 1, the dealer's) opens on turn 2 with a hidden canasta of kings (it meets the opening)."""
    return {3: Scripted(melds={2: [meld("K", 7)]})}


@pytest.mark.parametrize(("with_canasta", "cut"), [(True, 100), (False, -100)])
def test_exact_cut_goes_to_the_dealers_team(with_canasta: bool, cut: int) -> None:
    """S2: exact cut +100 to the dealer's side, negative if that side makes no canasta."""
    hands = {3: "K K K K K K K 4 5 6 8 9 10 J Q"}
    res = short_deal(hands=hands, scripts=canasta_for_team_1() if with_canasta else None, cut_count=60)
    assert res.exact_cut and res.exact_cut_team == 1
    assert res.scores[1]["exact_cut"] == cut and res.scores[0]["exact_cut"] == 0


# ============================================================================ exact pick (A-ES-1)
@pytest.mark.parametrize(("with_canasta", "bonus"), [(True, 700), (False, -700)])
def test_exact_pick(with_canasta: bool, bonus: int) -> None:
    """'Al picar exacto son 700 puntos, solo si hace canasta': the dealer grabs exactly the 7 pile cards."""
    hands = {3: "K K K K K K K 4 5 6 8 9 10 J Q"}
    res = short_deal(hands=hands, scripts=canasta_for_team_1() if with_canasta else None, pick_count=7)
    assert (res.pick_target, res.exact_pick, res.exact_pick_team) == (7, True, 1)
    assert res.scores[1]["exact_pick"] == bonus and res.scores[0]["exact_pick"] == 0


def test_exact_pick_knob_and_near_misses() -> None:
    assert es_deal_state(pick_count=7).exact_pick_team == 1
    assert not es_deal_state(pick_count=8).exact_pick and es_deal_state(pick_count=8).exact_pick_team is None
    st = es_deal_state(es_rules(exact_pile_pick_bonus=0), pick_count=7)
    assert st.exact_pick and st.exact_pick_team is None  # an exact pick, but no bonus to pay


@pytest.mark.parametrize(("sigma", "all_exact"), [(0.0, True), (4.0, False)])
def test_cut_sigma(sigma: float, all_exact: bool) -> None:
    """§1.14: cut_sigma = 0 makes every cut (60 cards) and every pick (7 cards) exact; sigma = 4 about 10 %."""
    rules = es_rules(cut_sigma=sigma)
    pack = deck_cards(rules.decks, rules.jokers_per_deck)
    rng = np.random.default_rng(5)
    states = [prepare_deal(rules, pack, rng, 0, DEALER, [0, 0]) for _ in range(200)]
    cuts = sum(st.exact_cut for st in states)
    picks = sum(st.exact_pick for st in states)
    if all_exact:
        assert cuts == picks == 200
        assert all(st.exact_cut_team == st.exact_pick_team == 1 for st in states)
    else:
        assert 5 <= cuts <= 45 and 5 <= picks <= 45  # 200 x 0.0995 = 20 expected


# ============================================================================ the montón and its premios (§2.4)
@pytest.mark.parametrize(("knobs", "upcards", "size", "premiado"), [
    ({}, "A 8", 9, True),  # R9: 6 + A + 1 + 8
    ({}, "7 JK 9", 11, True),  # two premios in a row: 6 + 7 + 1 + JK + 1 + 9
    ({}, "2 A 7 K", 13, True),
    ({}, "8", 7, False),
    ({"upcard_cover_facedown": 0}, "A 8", 8, True),  # premios covered by the next upcard only
    ({"upcard_cover_facedown": 2}, "JK 8", 10, True),
    ({"upcard_cover_ranks": "2,JK"}, "A", 7, False),  # an ace is no premio: it stays on top, pile not frozen
])
def test_premio_growth_of_the_pile(knobs: dict[str, Any], upcards: str, size: int, premiado: bool) -> None:
    """S2: 6 face down + 1 face up; while the upcard is A, 2, 7 or JK, 1 more face down and a new face up."""
    st = es_deal_state(es_rules(**knobs), upcards=upcards)
    up = upcards.split()
    assert len(st.pile) == size and RANK_NAMES[st.pile[-1]] == up[-1]
    assert [RANK_NAMES[c] for c in st.upcards] == up
    assert st.pile_premiado == premiado and st.pile_frozen == premiado
    assert len(st.stock) == 108 - 60 - size


def premiado_deal(turn1: Any, turn5: Any, seat1_discard: str = "Q", **knobs: Any) -> Any:
    """Upcards A then 8: a premiado pile. Turn 1: seat 0 ``turn1`` (take the 8s with a pair + K K K, or draw) and
    discards a 4; seats 3 and 2 play the fallback; seat 1 discards ``seat1_discard`` on turn 4; turn 5: seat 0
    ``turn5``."""
    st = es_deal_state(es_rules(**knobs), hands={0: "8 8 K K K Q 2 4 5 6 9 9 10 10 J", 1: seat1_discard},
                       upcards="A 8")
    s0 = Scripted(draws={1: turn1, 5: turn5}, discards={1: "4"})
    return es_table(st, {0: s0, 1: Scripted(discards={4: seat1_discard})}, 4)


OPEN_8S = take("8", 2, extra=[meld("K", 3)])  # 8 x3 + K x3 = 60 >= 50


def test_premiado_pile_once_taken_allows_natural_plus_wild() -> None:
    """A-ES-6: the premiado pile needs a natural pair until it is taken; afterwards Q + 2 takes the pile."""
    table = premiado_deal(OPEN_8S, take("Q", 1, twos=1))
    st = table.st
    assert st.premiado_end_turn == 1 and st.first_take_done and not st.pile_frozen and st.pile[-1] == QUEEN
    assert PlayerView(st, 0).check_take(take("Q", 1, twos=1)) is None
    table.step(1)
    assert st.melds[0][QUEEN] == [2, 1, 0]


@pytest.mark.parametrize(("knobs", "allowed"), [({}, True), ({"take_methods_unfrozen": "PAIR,NAT_WILD"}, False)])
def test_later_take_lays_off_onto_an_incomplete_meld(knobs: dict[str, Any], allowed: bool) -> None:
    """S2 / §2.4: after the first take the pile may be taken when its top card matches a team meld (M3): seat 1
    discards a K and seat 0 adds it to its K K K (LAYOFF in take_methods_unfrozen)."""
    table = premiado_deal(OPEN_8S, take("K"), seat1_discard="K", **knobs)
    if allowed:
        table.step(1)
        assert table.st.melds[0][KING] == [4, 0, 0] and table.st.take_sizes[0] == [9, 4]
    else:
        refused(table, "taking by LAYOFF is not allowed (take_methods_unfrozen)")


@pytest.mark.parametrize(("knobs", "allowed"), [
    ({"first_take_pair_only": "NONE"}, False),  # still premiado: frozen
    ({"first_take_pair_only": "NONE", "upcard_cover_effect": "NONE"}, True),  # covered, but no premiado effect
    ({"first_take_pair_only": "NONE", "upcard_cover_effect": "FREEZE"}, False),
])
def test_premiado_pile_not_taken_still_needs_a_pair(knobs: dict[str, Any], allowed: bool) -> None:
    """Seat 0 drew on turn 1, so on turn 5 the pile is still premiado: Q + 2 (+ K K K to open) is refused.
    first_take_pair_only=NONE isolates the premio rule; upcard_cover_effect=NONE lifts it."""
    nat_wild = take("Q", 1, twos=1, extra=[meld("K", 3)])  # Q Q 2 (40) + K K K (30) = 70
    table = premiado_deal(DRAW_STOCK, nat_wild, **knobs)
    st = table.st
    effect = knobs.get("upcard_cover_effect", "PREMIADO")
    assert st.premiado_end_turn is None and len(st.pile) == 9 + 4
    assert st.pile_premiado == (effect == "PREMIADO") and st.pile_frozen == (effect != "NONE")
    if allowed:
        table.step(1)
        assert st.melds[0][QUEEN] == [2, 1, 0] and st.opened[0]
    else:
        refused(table, "the pile is frozen for this team: a natural pair of Q is needed")


# ============================================================================ first take of the deal (A-ES-7)
def first_take_turn1(knobs: dict[str, Any], turn1: Any) -> Any:
    st = es_deal_state(es_rules(**knobs), hands={0: "9 9 2 K K K 4 4 5 5 6 6 8 10 J"}, upcards="9")
    return es_table(st, {0: Scripted(draws={1: turn1}, discards={1: "4"})})


@pytest.mark.parametrize(("mode", "allowed"), [("PER_DEAL", False), ("PER_TEAM", False), ("NONE", True)])
def test_first_take_of_the_deal_needs_a_natural_pair(mode: str, allowed: bool) -> None:
    """S2: 'la primera vez que se toma el pozo no puede hacerse con una carta natural y un comodín'."""
    table = first_take_turn1({"first_take_pair_only": mode}, take("9", 1, twos=1, extra=[meld("K", 3)]))
    if allowed:
        table.step(1)
        assert table.st.melds[0][NINE] == [2, 1, 0]
    else:
        refused(table, "a natural pair of 9 is needed")
        ok = first_take_turn1({"first_take_pair_only": mode}, take("9", 2, extra=[meld("K", 3)])).step(1)
        assert ok.st.melds[0][NINE] == [3, 0, 0]


def second_team_take(knobs: dict[str, Any], turn6: Any) -> Any:
    """Team 0 takes the first pile on turn 1 (9 9 + K K K); seat 0 discards a Q on turn 5; on turn 6 seat 3
    (team 1, not opened) plays ``turn6``."""
    st = es_deal_state(es_rules(**knobs), hands={0: "9 9 K K K Q 4 4 5 5 6 6 8 10 J", 3: "Q Q 2 J J J"},
                       upcards="9")
    s0 = Scripted(draws={1: take("9", 2, extra=[meld("K", 3)])}, discards={1: "4", 5: "Q"})
    s3 = Scripted(draws={6: turn6}, discards={2: "4"})
    return es_table(st, {0: s0, 3: s3}, 5)


NAT_WILD_Q = take("Q", 1, twos=1, extra=[meld("J", 3)])  # Q Q 2 (40) + J J J (30) = 70 >= 50


@pytest.mark.parametrize(("knobs", "allowed", "needle"), [
    ({}, True, ""),  # PER_DEAL: the deal's first take is done
    ({"first_take_pair_only": "PER_TEAM"}, False, "a natural pair of Q is needed"),
    ({"first_take_pair_only": "NONE"}, True, ""),
    # frozen_until_team_opens=true (Classic): the pile stays frozen for a team that has not opened
    ({"frozen_until_team_opens": True}, False, "the pile is frozen for this team"),
])
def test_later_take_by_the_other_team(knobs: dict[str, Any], allowed: bool, needle: str) -> None:
    """After the first take of the deal an unopened team may take with natural + wild, opening at once
    (frozen_until_team_opens=false, §2.4 'Opening to take the pile'); PER_TEAM would still ask it for a pair."""
    table = second_team_take(knobs, NAT_WILD_Q)
    assert table.st.first_take_done and not table.st.opened[1] and table.st.pile[-1] == QUEEN
    if allowed:
        table.step(1)
        assert table.st.melds[1][QUEEN] == [2, 1, 0] and table.st.opened[1]
    else:
        refused(table, needle)


# ============================================================================ first round (§2.4 "First round")
def first_round_deal(knobs: dict[str, Any], taker_turn: int) -> Any:
    """Seat 0 discards a 9 on turn ``taker_turn - 1``; seat 3 then takes it with 9 9 + J J J (60)."""
    st = es_deal_state(es_rules(**knobs), hands={0: "9 4 4 5 5 6 6 8 8 10 10 Q Q K K", 3: "9 9 J J J"})
    discards = {1: "9"} if taker_turn == 2 else {1: "4", 5: "9"}
    s3 = Scripted(draws={taker_turn: take("9", 2, extra=[meld("J", 3)])}, discards={2: "4"})
    return es_table(st, {0: Scripted(discards=discards), 3: s3}, taker_turn - 1)


def test_first_round_only_the_first_player_may_take() -> None:
    """S2: 'El jugador que empieza puede llevarse el pozo en la primera vuelta, pero los demás hasta la segunda'."""
    refused(first_round_deal({}, 2), "in the first round only the first player may take the pile")


@pytest.mark.parametrize(("knobs", "turn"), [({"first_round_pile_restriction": False}, 2), ({}, 6)])
def test_first_round_restriction_lifted(knobs: dict[str, Any], turn: int) -> None:
    """Without the knob seat 3 takes on its first turn; with it, from its second turn (turn 6) on."""
    table = first_round_deal(knobs, turn).step(1)
    assert table.st.melds[1][NINE] == [3, 0, 0] and table.st.opened[1]


# ============================================================================ opening by taking the pile (§1.8.2)
def opening_via_pile(extra: list[Meld], team_scores: list[int] | None = None) -> Any:
    """Upcard K over six face-down aces; seat 0 holds K K and 4 4 4 4 and takes the pile on turn 1."""
    st = es_deal_state(hands={0: "K K 4 4 4 4 5 5 6 6 8 8 9 9 10"}, upcards="K", facedown="A A A A A A",
                       team_scores=team_scores)
    return es_table(st, {0: Scripted(draws={1: take("K", 2, extra=extra)}, discards={1: "5"})})


def test_opening_by_taking_the_pile_top_card_counts() -> None:
    """S2: taking the pile and opening may be one action, the top card counting: K K + K (30) + 4 x4 (20) = 50."""
    table = opening_via_pile([meld("4", 4)]).step(1)
    st = table.st
    assert st.opened[0] and st.melds[0][KING] == [3, 0, 0] and st.hands[0][ACE] == 6  # the six aces came along


def test_opening_by_taking_the_pile_other_pile_cards_do_not_count() -> None:
    """K K + K (30) + 4 4 4 (15) = 45 < 50: refused, although the six aces below would bring 120."""
    refused(opening_via_pile([meld("4", 3)]), "opening melds count 45, below the minimum 50")


@pytest.mark.parametrize(("score", "minimum"), [(-10, 15), (0, 50), (1495, 50), (1500, 90), (3000, 120),
                                                (5000, 120)])
def test_opening_table(score: int, minimum: int) -> None:
    """A-ES-3: the CLASSIC table 15 / 50 / 90 / 120 by the team's score at the start of the deal."""
    st = es_deal_state(team_scores=[score, 0])
    assert st.minimum == [minimum, 50]


def test_opening_minimum_90_refuses_the_50_point_take() -> None:
    refused(opening_via_pile([meld("4", 4)], team_scores=[1500, 0]), "opening melds count 50, below the minimum 90")


# ============================================================================ black three stop (§2.4 "Black 3")
def black_three_deal(turn6: Any) -> Any:
    """Turn 5: seat 0 discards a black three; turn 6: seat 3 ``turn6`` (then discards a 9); turn 7: seat 2 takes
    the 9 with 9 9 + J J J (60)."""
    st = es_deal_state(hands={0: "B3 4 4 5 5 6 6 8 8 10 10 Q Q K K", 2: "9 9 J J J", 3: "9 4"})
    s0 = Scripted(discards={1: "4", 5: "B3"})
    s2 = Scripted(draws={7: take("9", 2, extra=[meld("J", 3)])}, discards={3: "4"})
    s3 = Scripted(draws={6: turn6}, discards={2: "4", 6: "9"})
    return es_table(st, {0: s0, 2: s2, 3: s3}, 5)


def test_black_three_stops_the_next_player() -> None:
    """S2: 'el siguiente no puede llevarse el pozo, tiene que llevarse una carta del mazo'."""
    table = black_three_deal(take(BLACK_THREE, 2))
    assert table.st.pile[-1] == BLACK_THREE
    refused(table, "the pile cannot be taken with B3 on top")


def test_black_three_stops_only_the_next_player() -> None:
    """Once seat 3 covers the black three with a 9, seat 2 takes the pile; the black three comes into its hand."""
    table = black_three_deal(DRAW_STOCK)
    st = table.st
    table.step(2)
    assert st.melds[0][NINE] == [3, 0, 0] and st.hands[2][BLACK_THREE] == 1
    assert st.take_sizes == [[7 + 6], []]  # the 7-card montón and the discards of turns 1 to 6


# ============================================================================ crossed (castigado) pile (A-ES-4)
def crossed_deal(turn5: Any, **knobs: Any) -> Any:
    """Turn 1: seat 0 takes the upcard 9 with 9 9 + K K K (the first take) and discards a 2: the pile is crossed.
    Turn 4: seat 1 discards a Q. Turn 5: seat 0 ``turn5``."""
    st = es_deal_state(es_rules(**knobs), hands={0: "9 9 K K K 2 Q Q Q JK 4 5 6 8 10", 1: "Q"}, upcards="9")
    s0 = Scripted(draws={1: take("9", 2, extra=[meld("K", 3)]), 5: turn5}, discards={1: "2"})
    return es_table(st, {0: s0, 1: Scripted(discards={4: "Q"})}, 4)


def test_wild_discard_crosses_the_pile() -> None:
    """S2: a wild discarded crosswise makes the pile 'castigado' until someone takes it: a natural pair is needed."""
    table = crossed_deal(take("Q", 2))
    st = table.st
    assert st.castigado_since == 1 and st.pile_frozen and PlayerView(st, 0).pile_crossed
    assert PlayerView(st, 0).check_take(take("Q", 1, jokers=1)) == (
        "the pile is frozen for this team: a natural pair of Q is needed")
    table.step(1)
    assert st.melds[0][QUEEN] == [3, 0, 0] and st.castigado_since is None and st.castigado_log == [(1, 5)]
    assert st.hands[0][TWO] == 1  # the crossed 2 came back with the pile


def test_wild_discard_is_also_a_stop() -> None:
    """S2 'También es posible usar un comodín como tapón': a wild card on top cannot be taken."""
    st = es_deal_state(hands={0: "9 9 K K K 2 Q Q Q JK 4 5 6 8 10"}, upcards="9")
    es_table(st, {0: Scripted(draws={1: take("9", 2, extra=[meld("K", 3)])}, discards={1: "2"})}, 1)
    assert st.pile == [TWO] and st.castigado_since == 1
    assert PlayerView(st, 3).check_take(take(TWO, 2)) == "the pile cannot be taken with 2 on top"


def test_crossed_pile_refuses_natural_plus_wild() -> None:
    refused(crossed_deal(take("Q", 1, jokers=1)), "a natural pair of Q is needed")


def test_wild_discard_without_freeze_knob() -> None:
    """freeze_on_wild_discard=false: the 2 does not cross the pile, and Q + JK takes it."""
    table = crossed_deal(take("Q", 1, jokers=1), freeze_on_wild_discard=False)
    assert table.st.castigado_since is None and not table.st.pile_frozen
    table.step(1)
    assert table.st.melds[0][QUEEN] == [2, 0, 1]  # the top Q, one Q and the joker from the hand


@pytest.mark.parametrize(("turn5", "ok"), [(take("Q", 2), False), (take("Q", 3), True)])
def test_castigado_three_from_hand(turn5: Any, ok: bool) -> None:
    """castigado_requirement=THREE_FROM_HAND (the other reading of 'tres cartas del mismo número'): Q Q Q + T."""
    table = crossed_deal(turn5, castigado_requirement="THREE_FROM_HAND")
    if ok:
        table.step(1)
        assert table.st.melds[0][QUEEN] == [4, 0, 0]
    else:
        refused(table, "the pile is crossed by a wild card: three natural Q from the hand are needed")


# ============================================================================ closed rank: tapa (A-ES-5)
def tapa_deal(owner: int, **knobs: Any) -> Any:
    """A mixed canasta Q x5 + 2 2 is laid on turn 2 by seat 3 (team 1) or on turn 3 by seat 2 (team 0); seat 1
    discards a Q on turn 4; on turn 5 seat 0 takes it with Q Q + K K K. All eight queens: 5 + 1 + 2."""
    layer = 3 if owner == 1 else 2
    turn = 2 if owner == 1 else 3
    hands = {0: "Q Q K K K 4 4 5 5 6 6 8 8 9 9", 1: "Q", layer: "Q Q Q Q Q 2 2"}
    st = es_deal_state(es_rules(**knobs), hands=hands)
    scripts = {0: Scripted(draws={5: take("Q", 2, extra=[meld("K", 3)])}, discards={1: "4"}),
               1: Scripted(discards={4: "Q"}), layer: Scripted(melds={turn: [meld("Q", 5, twos=2)]})}
    return es_table(st, scripts, 4)


@pytest.mark.parametrize("owner", [0, 1])
def test_closed_rank_blocks_the_pile(owner: int) -> None:
    """S2: once a canasta of a rank exists, nobody (its team or the other) takes the pile with that rank on top."""
    table = tapa_deal(owner)
    assert table.st.canastas[owner]["MIXED"] == 1 and table.st.pile[-1] == QUEEN
    refused(table, "rank Q already has a canasta (closed_rank_blocks_pile)")


def test_closed_rank_knob_off_lets_the_other_team_take() -> None:
    table = tapa_deal(1, closed_rank_blocks_pile=False).step(1)
    assert table.st.melds[0][QUEEN] == [3, 0, 0] and table.st.melds[1][QUEEN] == [5, 2, 0]


# ============================================================================ melds: STRICT_MAJORITY and the cap of 7
def meld_check(melds: list[Meld], hand: str, **knobs: Any) -> str | None:
    """``PlayerView.check_melds`` for seat 0 before its first turn, at a team score of -100 (minimum 15)."""
    st = es_deal_state(es_rules(**knobs), hands={0: hand}, team_scores=[-100, 0])
    return PlayerView(st, 0).check_melds(melds)


@pytest.mark.parametrize(("melds", "hand", "needle"), [
    ([meld("K", 2, twos=1)], "K K 2", None),  # S2: 'se pueden bajar dos cartas con un comodín'
    ([meld("6", 2, twos=2)], "6 6 2 2", "2 naturals with 2 wild cards break wild_rule=STRICT_MAJORITY"),  # R1
    ([meld("5", 2, twos=2, jokers=1)], "5 5 2 2 JK", "break wild_rule=STRICT_MAJORITY"),  # R2
    ([meld("K", 3, twos=3)], "K K K 2 2 2", "3 naturals with 3 wild cards"),
    ([meld("K", 4, twos=3)], "K K K K 2 2 2", None),  # 4 > 3: a 7-card sucia
    ([meld("K", 4, twos=2, jokers=2)], "K K K K 2 2 JK JK", "exceeds meld_max_size=7"),
    ([meld("K", 8)], "K K K K K K K K", "meld of 8 cards exceeds meld_max_size=7"),
    ([wild(twos=2, jokers=1)], "2 2 JK", None),  # a wild meld starts with 3 wild cards
    ([wild(twos=2)], "2 2", "a wild meld needs at least 3 wild cards to start"),
    ([wild(twos=4, jokers=3)], "2 2 2 2 JK JK JK", None),  # any number of wilds in a wild meld
])
def test_meld_legality(melds: list[Meld], hand: str, needle: str | None) -> None:
    """§2.4: STRICT_MAJORITY (N > W, W <= 3), groups of 3 to 7, wild melds of 3+ wild cards."""
    err = meld_check(melds, hand)
    if needle is None:
        assert err is None
    else:
        assert err is not None and needle in err


@pytest.mark.parametrize(("melds", "hand", "knobs"), [
    ([meld("6", 2, twos=2)], "6 6 2 2", {"wild_rule": "PAGAT"}),  # R1: PAGAT legal
    ([meld("K", 8)], "K K K K K K K K", {"meld_max_size": None}),
])
def test_meld_knobs_change_legality(melds: list[Meld], hand: str, knobs: dict[str, Any]) -> None:
    assert meld_check(melds, hand) is not None and meld_check(melds, hand, **knobs) is None


def test_wild_melds_knob() -> None:
    assert meld_check([wild(twos=2, jokers=1)], "2 2 JK") is None
    err = meld_check([wild(twos=2, jokers=1)], "2 2 JK", wild_melds_allowed=False)
    assert err is not None and "wild_melds_allowed=false" in err


def test_closed_canasta_takes_no_eighth_card() -> None:
    """§1.4.5: with the cap of 7 a completed canasta is closed; the partner cannot add an eighth king."""
    st = es_deal_state(hands={0: "K K K K K K K 4", 2: "K"})
    table = es_table(st, {0: Scripted(melds={1: [meld("K", 7)]}, discards={1: "4"}),
                          2: Scripted(melds={3: [meld("K", 1)]})}, 2)
    assert st.melds[0][KING] == [7, 0, 0]
    refused(table, "meld of 8 cards exceeds meld_max_size=7")


# ============================================================================ wild canastas (§2.4 canasta bonuses)
@pytest.mark.parametrize(("hand", "laid", "clean", "bonus"), [
    ("2 2 2 2 2 2 2", wild(twos=7), 1, 3000),  # wild limpia: seven twos
    ("2 2 2 2 2 JK JK", wild(twos=5, jokers=2), 0, 2000),  # wild sucia: twos and jokers
    ("2 2 2 2 2 2 JK", wild(twos=6, jokers=1), 0, 2000),
])
def test_wild_canastas(hand: str, laid: Meld, clean: int, bonus: int) -> None:
    """S2: 'de comodines sucia ... 2000', 'de comodines limpia: 7 dos o 7 jokers ... 3000'. Laid from the hand at
    once, a wild canasta is not hidden (the oculta is 'limpia o sucia' of a rank, §1.5)."""
    st = es_deal_state(hands={0: hand + " 4 5 6 8 9 10 J Q"}, stock="Q J 10", fill_stock=False)
    res = es_table(st, {0: Scripted(melds={1: [laid]})}).finish()
    assert res.canastas[0]["WILD"] == 1 and res.hidden_canastas == [0, 0] and st.clean_canastas[0] == clean
    assert res.scores[0]["canasta_wild"] == bonus and res.scores[0]["canasta_hidden"] == 0
    assert res.positions[0].melds[0][0] == WILD_MELD


def test_wild_pure_bonus_knob() -> None:
    res = short_deal(es_rules(canasta_bonus__wild_pure=None), hands={0: "2 2 2 2 2 2 2 4 5 6 8 9 10 J Q"},
                     scripts={0: Scripted(melds={1: [wild(twos=7)]})})
    assert res.scores[0]["canasta_wild"] == 2000  # without the limpia value every wild canasta is 2000


# ============================================================================ hidden canastas (A-ES-12)
def hidden_deal(turn1: list[Meld], hand: str, rules: Any = None, scripts: dict[int, Any] | None = None,
                hands: dict[int, str] | None = None) -> Any:
    """A short deal in which seat 0 holds ``hand`` and lays ``turn1`` on turn 1."""
    return short_deal(rules, hands={0: hand, **(hands or {})},
                      scripts={0: Scripted(melds={1: turn1}), **(scripts or {})})


SIXES = "6 6 6 6 6 6 6 4 5 8 9 10 J Q K"


def test_hidden_canasta_meets_the_opening_by_itself() -> None:
    """S2 'La otra manera de tener los puntos ... es teniendo una canasta oculta': 6 x7 counts 35 < 50, yet opens."""
    res = hidden_deal([meld("6", 7)], SIXES)
    assert res.hidden_canastas == [1, 0] and res.positions[0].hidden == (SIX,)
    assert parts(res.scores[0])["canasta_hidden"] == 1000 and res.scores[0]["canasta_natural"] == 0
    assert res.scores[0]["melded"] == 35


@pytest.mark.parametrize("knobs", [{"hidden_canasta_satisfies_opening": False}, {"hidden_canasta_bonus": None}])
def test_hidden_canasta_opening_knobs(knobs: dict[str, Any]) -> None:
    """Without the exemption (or without hidden canastas at all) 6 x7 = 35 is below the minimum of 50."""
    st = es_deal_state(es_rules(**knobs), hands={0: SIXES})
    refused(es_table(st, {0: Scripted(melds={1: [meld("6", 7)]})}), "opening melds count 35, below the minimum 50")


@pytest.mark.parametrize(("knobs", "hidden", "natural"), [
    ({}, 1000, 0),  # REPLACE: 1000 instead of 500
    ({"hidden_canasta_mode": "ADD"}, 1000, 500),
    ({"hidden_canasta_bonus": None}, 0, 500),  # no hidden canastas: an ordinary limpia
    ({"hidden_canasta_bonus": 500}, 500, 0),  # M4S value
])
def test_hidden_canasta_bonus_knobs(knobs: dict[str, Any], hidden: int, natural: int) -> None:
    """A-ES-12: K x7 laid at once from the hand (70 points, enough to open in any case)."""
    res = hidden_deal([meld("K", 7)], "K K K K K K K 4 5 6 8 9 10 J Q", es_rules(**knobs))
    s = res.scores[0]
    assert (s["canasta_hidden"], s["canasta_natural"], s["canasta_mixed"]) == (hidden, natural, 0)
    assert res.hidden_canastas == [0 if knobs.get("hidden_canasta_bonus", 1) is None else 1, 0]


def test_hidden_mixed_canasta_scores_1000_instead_of_300() -> None:
    res = hidden_deal([meld("K", 5, twos=1, jokers=1)], "K K K K K 2 JK 4 5 6 8 9 10 J Q")
    s = res.scores[0]
    assert res.canastas[0]["MIXED"] == 1 and (s["canasta_hidden"], s["canasta_mixed"]) == (1000, 0)


def test_canasta_completed_over_several_turns_is_not_hidden() -> None:
    """Seat 0 opens K x4 + 9 9 9 (70); its partner adds K K K on turn 3: an ordinary limpia of 500."""
    res = hidden_deal([meld("K", 4), meld("9", 3)], "K K K K 9 9 9 4 5 6 8 10 J Q A",
                      scripts={2: Scripted(melds={3: [meld("K", 3)]})}, hands={2: "K K K"})
    s = res.scores[0]
    assert res.canastas[0]["NATURAL"] == 1 and res.hidden_canastas == [0, 0]
    assert (s["canasta_hidden"], s["canasta_natural"]) == (0, 500)


def test_canasta_made_with_the_pile_top_is_not_hidden() -> None:
    """§2.4: a hidden canasta is laid 'without the pile's top card': K + K x6 from the hand is a limpia (500)."""
    st = es_deal_state(hands={0: "K K K K K K 4 5 6 8 9 10 J Q A"}, upcards="K", stock="Q J 10", fill_stock=False)
    res = es_table(st, {0: Scripted(draws={1: take("K", 6)})}).finish()
    assert res.canastas[0]["NATURAL"] == 1 and res.hidden_canastas == [0, 0]
    assert (res.scores[0]["canasta_hidden"], res.scores[0]["canasta_natural"]) == (0, 500)


@pytest.mark.parametrize(("knobs", "ok"), [({}, False), ({"hidden_canasta_bonus": None}, False),
                                           ({"initial_meld_table": "neg:15,0:15"}, True)])
def test_canasta_with_the_top_card_needs_the_opening_minimum(knobs: dict[str, Any], ok: bool) -> None:
    """Taking the upcard 6 with 6 x6 makes a 7-card canasta, but not a hidden one (it holds the top card), so it
    does not waive the opening: 6 x7 counts 35 < 50. With a minimum of 15 the same take is fine."""
    st = es_deal_state(es_rules(**knobs), hands={0: "6 6 6 6 6 6 4 5 8 9 10 J Q K A"}, upcards="6")
    table = es_table(st, {0: Scripted(draws={1: take("6", 6)})})
    if ok:
        table.step(1)
        assert st.canastas[0]["NATURAL"] == 1 and st.hidden == [[], []]
    else:
        refused(table, "opening melds count 35, below the minimum 50")


# ==================================================================== going out (§2.4 "Going out", A-ES-11, A-ES-16)
def going_out_deal(first: str, seat0: str, seat2_melds: list[Meld], seat2: str, turn1: list[Meld],
                   turn5: list[Meld], discard5: str | None = "5", rules: Any = None,
                   stock: str = "5 4 4 4 9 5 5 5 9", turn9: list[Meld] | None = None) -> Any:
    """Turn 1: seat 0 draws a 5, lays ``turn1`` and discards a 4 (keeping five cards); turn 3: seat 2 lays
    ``seat2_melds``; turn 5: seat 0 draws a 9, lays ``turn5`` and discards ``discard5`` (the last card: out);
    turn 9: seat 0 draws a 9 and lays ``turn9``."""
    st = es_deal_state(rules, hands={0: seat0, 2: seat2}, stock=stock)
    s0 = Scripted(melds={1: turn1, 5: turn5, 9: turn9 or []}, discards={1: "4", 5: discard5})
    s2 = Scripted(melds={3: seat2_melds})
    table = es_table(st, {0: s0, 2: s2}, 4)
    assert st.first_clean_turn[0] == (1 if first == "clean" else None)
    return table


def dirty_then_clean(rules: Any = None, turn5: list[Meld] | None = None, turn9: list[Meld] | None = None) -> Any:
    """Sucia K x5 + 2 + JK (hidden) on turn 1, Q Q Q by the partner on turn 3, Q x4 on turn 5: the first limpia
    is completed on turn 5, the turn seat 0 tries to go out."""
    return going_out_deal("dirty", "K K K K K 2 JK Q Q Q Q 9 9 9 4", [meld("Q", 3)], "Q Q Q",
                          [meld("K", 5, twos=1, jokers=1), meld("9", 3)],
                          turn5 if turn5 is not None else [meld("Q", 4), meld("9", 1)], rules=rules, turn9=turn9)


def clean_then_dirty(rules: Any = None, seat2_melds: list[Meld] | None = None, seat2: str = "K K 2") -> Any:
    """Limpia Q x7 (hidden) on turn 1, K K 2 by the partner on turn 3, K x4 on turn 5: the sucia (and with it the
    clean + dirty requirement) is completed on turn 5, the turn seat 0 tries to go out."""
    return going_out_deal("clean", "Q Q Q Q Q Q Q K K K K 9 9 9 4",
                          seat2_melds if seat2_melds is not None else [meld("K", 2, twos=1)], seat2,
                          [meld("Q", 7), meld("9", 3)], [meld("K", 4), meld("9", 1)], rules=rules)


def test_no_going_out_in_the_turn_of_the_first_limpia() -> None:
    """S2 'Se puede cerrar la partida en la mano siguiente de cerrar la canasta limpia' (A-ES-16)."""
    refused(dirty_then_clean(), "cannot go out in the turn that completed the team's first clean canasta")


def test_going_out_same_turn_allowed_without_the_knob() -> None:
    table = dirty_then_clean(es_rules(go_out_not_same_turn_as_required_canasta=False)).step(1)
    st = table.st
    assert st.end_reason == "went_out" and st.went_out_seat == 0 and st.first_clean_turn[0] == 5
    res = table.finish()
    assert res.scores[0]["going_out"] == 200  # closing bonus (S2 'se le bonifica con 200 puntos')


def test_going_out_allowed_a_turn_later() -> None:
    """Seat 0 completes the limpia on turn 5 keeping a 9, and on turn 9 melds its last two cards (9 9): out."""
    table = dirty_then_clean(turn5=[meld("Q", 4)], turn9=[meld("9", 2)])
    st = table.st
    table.step(1)
    assert hand_of(st, 0) == "9" and st.end_reason is None
    table.step(4)
    assert st.end_reason == "went_out" and st.went_out_seat == 0 and st.turn == 9
    assert st.melds[0][NINE] == [5, 0, 0]  # going out by melding every card, no discard (S2)


def limpia_by_the_pile(rules: Any = None) -> Any:
    """Turn 1: seat 0 (first player) takes the upcard Q with six Qs: a limpia Q x7 (not hidden: it holds the top
    card). The six face-down cards 9 9 9 9 8 8 come into the hand; seat 0 then lays a hidden sucia K x5 + 2 + JK,
    9 x4 and 8 x3 and tries to go out by discarding its last card, a 4."""
    st = es_deal_state(rules, hands={0: "Q Q Q Q Q Q K K K K K 2 JK 8 4"}, upcards="Q", facedown="9 9 9 9 8 8")
    s0 = Scripted(draws={1: take("Q", 6)}, melds={1: [meld("K", 5, twos=1, jokers=1), meld("9", 4), meld("8", 3)]},
                  discards={1: "4"})
    return es_table(st, {0: s0})


def test_no_going_out_in_the_turn_the_pile_take_completed_the_first_limpia() -> None:
    """A-ES-16 also when the limpia came from taking the pile earlier in the same turn.

    Note: so under the preset the first player can never make a corte rápido (A-ES-8) on turn 1: after a stock
    draw 16 cards cannot be split into two canastas + melds + one discard, and a pile take that makes the limpia
    falls under A-ES-16."""
    table = limpia_by_the_pile()
    refused(table, "cannot go out in the turn that completed the team's first clean canasta")
    assert table.st.first_clean_turn[0] == 1 and table.st.canastas[0]["NATURAL"] == 1


def test_going_out_after_a_pile_take_is_no_terremoto() -> None:
    """Without the wait (knob off) seat 0 goes out on turn 1: a corte rápido (its first turn), but no terremoto,
    which needs a stock draw (A-ES-9)."""
    res = limpia_by_the_pile(es_rules(go_out_not_same_turn_as_required_canasta=False, terremoto_bonus=150)).finish()
    assert res.end_reason == "went_out" and res.turns == 1 and res.quick_finish and not res.terremoto
    assert res.hidden_canastas == [1, 0]  # the sucia; the limpia holds the pile's top card
    s = res.scores[0]
    assert (s["quick_finish"], s["terremoto"], s["canasta_natural"], s["canasta_hidden"]) == (300, 0, 500, 1000)


@pytest.mark.parametrize(("knobs", "ok"), [
    ({}, True),  # FIRST_CLEAN: the limpia was completed on turn 1
    ({"go_out_wait_event": "REQUIREMENT"}, False),  # the clean + dirty set was completed on turn 5
])
def test_going_out_wait_event(knobs: dict[str, Any], ok: bool) -> None:
    table = clean_then_dirty(es_rules(**knobs))
    if ok:
        table.step(1)
        assert table.st.end_reason == "went_out" and table.st.went_out_seat == 0
    else:
        refused(table, "cannot go out in the turn that completed the required canastas")


def test_going_out_needs_a_sucia() -> None:
    """With K K K from the partner the kings become a second limpia: no sucia, no going out (§2.4)."""
    table = clean_then_dirty(seat2_melds=[meld("K", 3)], seat2="K K K")
    refused(table, "cannot go out: the team needs canastas CLEAN:1,DIRTY:1")


def test_going_out_requirement_knob() -> None:
    table = clean_then_dirty(es_rules(go_out_requirement="ANY:2"), seat2_melds=[meld("K", 3)], seat2="K K K")
    table.step(1)
    assert table.st.end_reason == "went_out"


def test_going_out_needs_a_limpia() -> None:
    """Two sucias (K and Q with wilds) are not enough."""
    table = going_out_deal("dirty", "K K K K K 2 JK Q Q Q Q 9 9 9 4", [meld("Q", 2, twos=1)], "Q Q 2",
                           [meld("K", 5, twos=1, jokers=1), meld("9", 3)], [meld("Q", 4), meld("9", 1)])
    refused(table, "cannot go out: the team needs canastas CLEAN:1,DIRTY:1")


@pytest.mark.parametrize(("clean_melds", "seat0", "seat2", "seat2_melds", "turn5", "kinds"), [
    # wild limpia (seven twos) as the limpia, K x6 + JK as the sucia
    ([wild(twos=7)], "2 2 2 2 2 2 2 K K K K 9 9 9 4", "K K JK", [meld("K", 2, jokers=1)],
     [meld("K", 4), meld("9", 1)], {"WILD": 1, "MIXED": 1}),
    # limpia Q x7, wild sucia 2 2 JK (partner) + 2 2 JK JK as the sucia
    ([meld("Q", 7)], "Q Q Q Q Q Q Q 2 2 JK JK 9 9 9 4", "2 2 JK", [wild(twos=2, jokers=1)],
     [wild(twos=2, jokers=2), meld("9", 1)], {"NATURAL": 1, "WILD": 1}),
])
def test_wild_canastas_count_for_going_out(clean_melds: list[Meld], seat0: str, seat2: str,
                                           seat2_melds: list[Meld], turn5: list[Meld], kinds: dict[str, int]) -> None:
    """A-ES-11: a wild limpia counts as the limpia, a wild sucia as the sucia."""
    table = going_out_deal("clean", seat0, seat2_melds, seat2, clean_melds + [meld("9", 3)], turn5)
    table.step(1)
    st = table.st
    assert st.end_reason == "went_out" and st.clean_canastas[0] == 1
    assert {k: v for k, v in st.canastas[0].items() if v} == kinds


# ===================================================================== corte rápido and terremoto (A-ES-8, A-ES-9)
def quick_finish_deal(out_turn: int, rules: Any = None, seat2_early: list[Meld] | None = None) -> Any:
    """Seat 0 lays a hidden limpia Q x7 + 9 9 9 on turn 1 (and keeps 4 5 5 8 8 = 35 points). Seat 2 then goes out
    on turn ``out_turn`` (3 = its first turn, 7 = its second): after a stock draw it lays a hidden sucia
    K x5 + 2 + JK, a hidden limpia 6 x7 and a 9, and discards the drawn card."""
    st = es_deal_state(rules, hands={0: "Q Q Q Q Q Q Q 9 9 9 4 4 5 5 8", 2: "K K K K K 2 JK 6 6 6 6 6 6 6 9"},
                       stock="8 10 J 5 5 5 10")
    s0 = Scripted(melds={1: [meld("Q", 7), meld("9", 3)]}, discards={1: "4", 5: "5"})
    out = [meld("K", 5, twos=1, jokers=1), meld("6", 7), meld("9", 1)]
    if seat2_early:
        out = [m for m in out if m not in seat2_early]
    s2 = Scripted(melds={out_turn: out, **({3: seat2_early} if seat2_early else {})},
                  discards={3: "J", out_turn: "J" if out_turn == 3 else "10"})
    res = es_table(st, {0: s0, 2: s2}).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 2 and res.turns == out_turn
    return res


#: Team 0 when seat 2 goes out, by hand: closing 200, three hidden canastas 3 x 1000 (Q x7, K x5 + 2 + JK, 6 x7),
#: melded 70 + 40 (9 x4) + 120 + 35 = 265, seat 0's hand 4 5 5 8 8 = -35.
QUICK_BASE = {"going_out": 200, "canasta_hidden": 3000, "melded": 265, "hand": -35}


@pytest.mark.parametrize(("out_turn", "knobs", "extra"), [
    (3, {}, {"quick_finish": 300}),  # out on the player's first turn: corte rápido 300, terremoto 0
    (3, {"terremoto_bonus": 150}, {"quick_finish": 300, "terremoto": 150}),
    (3, {"quick_finish_bonus": 0}, {}),
    (7, {}, {}),  # second turn: no corte rápido
    (7, {"terremoto_bonus": 150}, {"terremoto": 150}),  # still a terremoto: no earlier melds, a stock draw
])
def test_quick_finish_and_terremoto(out_turn: int, knobs: dict[str, Any], extra: dict[str, int]) -> None:
    res = quick_finish_deal(out_turn, es_rules(**knobs))
    assert res.quick_finish == (out_turn == 3) and res.terremoto
    expected = {**QUICK_BASE, **extra}
    assert parts(res.scores[0]) == {**expected, "total": sum(expected.values())}
    assert res.scores[1]["quick_finish"] == res.scores[1]["terremoto"] == 0


def test_no_terremoto_after_earlier_melds() -> None:
    """Seat 2 lays its 6 x7 on turn 3 and goes out on turn 7: it had melded before, so no terremoto."""
    res = quick_finish_deal(7, es_rules(terremoto_bonus=150), seat2_early=[meld("6", 7)])
    assert not res.quick_finish and not res.terremoto
    assert res.scores[0]["terremoto"] == 0 and res.scores[0]["canasta_hidden"] == 3000


# ============================================================================ 5 and 7 canastas (A-ES-19)
def six_canastas_deal(rules: Any = None) -> Any:
    """Trios (6 players, 4 decks): seats 0, 4 and 2 of team 0 each lay two hidden limpias on turns 1, 3 and 5;
    the stock then runs out on turn 7."""
    rules = rules or es_rules(num_players=6)
    hands = {0: "4 4 4 4 4 4 4 5 5 5 5 5 5 5 Q", 4: "6 6 6 6 6 6 6 8 8 8 8 8 8 8 Q",
             2: "9 9 9 9 9 9 9 10 10 10 10 10 10 10 Q"}
    st = es_deal_state(rules, hands=hands, stock="K K K K K K", fill_stock=False)
    scripts = {0: Scripted(melds={1: [meld("4", 7), meld("5", 7)]}),
               4: Scripted(melds={3: [meld("6", 7), meld("8", 7)]}),
               2: Scripted(melds={5: [meld("9", 7), meld("10", 7)]})}
    res = es_table(st, scripts).finish()
    assert res.end_reason == "stock_out" and res.turns == 7 and res.hidden_canastas == [6, 0]
    return res


def seven_canastas_deal(rules: Any) -> Any:
    """Trios with 22-card hands (a hand_size override): seats 0, 4 and 2 each lay three hidden limpias on turns 1,
    3 and 5 (nine canastas); the stock then runs out on turn 7."""
    hands = {0: "4 4 4 4 4 4 4 5 5 5 5 5 5 5 6 6 6 6 6 6 6 Q", 4: "8 8 8 8 8 8 8 9 9 9 9 9 9 9 10 10 10 10 10 10 10 Q",
             2: "J J J J J J J K K K K K K K A A A A A A A Q"}
    st = es_deal_state(rules, hands=hands, stock="Q Q Q Q Q Q", fill_stock=False)
    scripts = {0: Scripted(melds={1: [meld("4", 7), meld("5", 7), meld("6", 7)]}),
               4: Scripted(melds={3: [meld("8", 7), meld("9", 7), meld("10", 7)]}),
               2: Scripted(melds={5: [meld("J", 7), meld("K", 7), meld("A", 7)]})}
    res = es_table(st, scripts).finish()
    assert res.end_reason == "stock_out" and res.hidden_canastas == [9, 0]
    return res


@pytest.mark.parametrize(("cumulative", "bonus"), [(True, 2500), (False, 2000)])
def test_seven_canastas_bonus_in_play(cumulative: bool, bonus: int) -> None:
    """A-ES-19: 7 canastas or more pay 500 + 2000 (cumulative, ACANOMAS) or only the 2000."""
    rules = es_rules(num_players=6, hand_size=22, canasta_count_bonus_cumulative=cumulative)
    res = seven_canastas_deal(rules)
    assert res.scores[0]["canasta_count"] == bonus and res.scores[0]["canasta_hidden"] == 9000


@pytest.mark.parametrize(("knobs", "bonus"), [({}, 500), ({"canasta_count_bonus": "none"}, 0),
                                              ({"canasta_count_bonus": "5:700,7:2000"}, 700),
                                              ({"canasta_count_bonus": "7:2000"}, 0)])
def test_five_canastas_bonus_in_play(knobs: dict[str, Any], bonus: int) -> None:
    """S2: 'Cuando un jugador (pareja o trío) consigue 5 canastas, se bonifica ... con 500 puntos extra'."""
    res = six_canastas_deal(es_rules(num_players=6, **knobs))
    assert res.scores[0]["canasta_count"] == bonus and res.scores[0]["canasta_hidden"] == 6000


# ============================================================================ black-three canasta (A-ES-14)
#: Trios, dealer seat 1: turn 1 seat 0 lays a hidden limpia Q x7 and a hidden sucia K x5 + 2 + JK (keeping the
#: drawn 10); turn 2 seat 5 (team 1) lays a wild limpia of seven 2s (keeping 6 x8); turn 3 seat 4 (team 0) draws
#: an 8 and goes out with B3 x7, 4 x4 and 5 x4, discarding the 8. All six hands are given, so by hand:
#: team 0 = closing 200 + 2 x 1000 (hidden) + corte rápido 300 (seat 4's first turn) + melded 70 + 120 + 35 (B3,
#: 5 each) + 20 + 20 - hands (10 + seat 2's A x8 K x7 = 230) = 2525;
#: team 1 = 3000 (wild limpia) + 140 - hands (seat 5: 6 x8 = 40; seat 1: 6 x8 + 7 x7 = 75; seat 3: 7 x8 + 4 x7 = 75)
#: = 2950. Team 1 is ahead, both are below 5000.
B3_HANDS = {0: "Q Q Q Q Q Q Q K K K K K 2 JK 4", 5: "2 2 2 2 2 2 2 6 6 6 6 6 6 6 6",
            4: "B3 B3 B3 B3 B3 B3 B3 4 4 4 4 5 5 5 5", 3: "7 7 7 7 7 7 7 7 4 4 4 4 4 4 4",
            2: "A A A A A A A A K K K K K K K", 1: "6 6 6 6 6 6 6 6 7 7 7 7 7 7 7"}


def black_three_state(rules: Any) -> Any:
    return es_deal_state(rules, hands=B3_HANDS, stock="10 9 8")


def black_three_scripts() -> dict[int, Any]:
    return {0: Scripted(melds={1: [meld("Q", 7), meld("K", 5, twos=1, jokers=1)]}, discards={1: "4"}),
            5: Scripted(melds={2: [wild(twos=7)]}, discards={2: "9"}),
            4: Scripted(melds={3: [meld(BLACK_THREE, 7), meld("4", 4), meld("5", 4)]}, discards={3: "8"})}


def test_black_three_canasta_in_a_deal() -> None:
    """S2 'Canasta a lo gusto: canasta realizada con los 3 negros. Gana el partido' (4 decks only)."""
    rules = es_rules(num_players=6)
    res = es_table(black_three_state(rules), black_three_scripts()).finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 4 and res.turns == 3
    assert res.black_three_canasta_team == 0
    assert [s["total"] for s in res.scores] == [2525, 2950]
    assert res.scores[0]["melded"] == 265 and res.scores[0]["quick_finish"] == 300


def test_black_threes_only_as_the_last_canasta() -> None:
    """black_three_meld_when_going_out = 7-7: seven black threes may be laid only by the player going out."""
    rules = es_rules(num_players=6)
    st = black_three_state(rules)
    scripts = black_three_scripts()
    scripts[4] = Scripted(melds={3: [meld(BLACK_THREE, 7)]})
    refused(es_table(st, scripts, 2), "black threes may be melded only by a player going out")


@pytest.mark.parametrize(("knobs", "winner"), [
    ({}, 0),  # the black-three canasta ends the game at once: team 0 wins although behind (2525 < 2950 < 5000)
    ({"max_hands": 1}, 0),
    ({"black_three_canasta_wins_game": False, "max_hands": 1}, 1),  # otherwise the higher total wins
])
def test_black_three_canasta_wins_the_game(knobs: dict[str, Any], winner: int) -> None:
    """Through simcli.players.seating.play_game (its prepare_deal replaced by the stacked deal above)."""
    rules = es_rules(num_players=6, **knobs)
    states = iter([black_three_state(rules)])
    with mock.patch.object(simcli.engine.game, "prepare_deal", lambda *a, **k: next(states)):
        result = play_game(rules, ["x"] * 6, 7, 0, strategies=players(black_three_scripts(), 6))
    assert (len(result.deals), result.totals, result.winner_team) == (1, [2525, 2950], winner)


# ============================================================================ red threes (§2.4 "R3", A-ES-13)
def test_dealt_red_threes_are_laid_before_play_from_the_first_player() -> None:
    """S2: the dealer asks for red threes starting with the player who got the first card; each is replaced from
    the stock. Seat 0 (first) gets the first stock card, seat 3 (next, CCW) the second."""
    st = es_deal_state(hands={0: "R3 4 4 5 5 6 6 8 8 9 9 10 10 J J", 3: "R3 4 4 5 5 6 6 8 8 9 9 10 10 Q Q"},
                       stock="A K")
    es_table(st)
    assert st.red_threes == [1, 1] and st.hands[0][RED_THREE] == st.hands[3][RED_THREE] == 0
    assert hand_of(st, 0).startswith("A J J") and hand_of(st, 3).startswith("K Q Q")
    assert st.hand_sizes[0] == st.hand_sizes[3] == 15


def test_red_three_in_the_pile_is_not_replaced() -> None:
    """§1.7 step 3 (Spanish): a red three found in the pile is laid without a replacement."""
    st = es_deal_state(hands={0: "K K 4 4 4 4 5 5 6 6 8 8 9 9 10"}, upcards="K", facedown="R3 A A A A A")
    es_table(st, {0: Scripted(draws={1: take("K", 2, extra=[meld("4", 4)])}, discards={1: "5"})}, 1)
    assert st.red_threes == [1, 0]
    assert st.hand_sizes[0] == 15 - 6 + 5 - 1  # the five aces, not the red three, came into the hand


@pytest.mark.parametrize(("canasta", "value"), [(True, 800), (False, -800)])
def test_all_four_red_threes(canasta: bool, value: int) -> None:
    """S2: 100 each, 'cuando se consiguen 4 tres rojos ... 800', negative without a canasta."""
    hands = {0: "R3 R3 K K K K K K K 4 5 6 8 9 10", 2: "R3 R3"}
    scripts = {0: Scripted(melds={1: [meld("K", 7)]})} if canasta else {}
    res = short_deal(hands=hands, scripts=scripts, stock="J Q 9 8 Q J 10")
    assert res.red_threes == [4, 0] and res.scores[0]["red_threes"] == value


@pytest.mark.parametrize(("threes", "canasta", "value"), [(8, False, -1000), (8, True, 1000), (3, True, 300)])
def test_red_threes_with_four_decks(threes: int, canasta: bool, value: int) -> None:
    """A-ES-13: with 6 players (4 decks) all eight red threes are worth 1000."""
    rules = es_rules(num_players=6)
    r3 = ["R3 " * min(threes, 3), "R3 " * min(max(threes - 3, 0), 3), "R3 " * max(threes - 6, 0)]
    hands = {0: r3[0] + ("K K K K K K K" if canasta else ""), 2: r3[1], 4: r3[2]}
    scripts = {0: Scripted(melds={1: [meld("K", 7)]})} if canasta else {}
    st = es_deal_state(rules, hands=hands, stock="J " * threes + "Q Q Q Q Q Q", fill_stock=False)
    res = es_table(st, scripts).finish()
    assert res.turns == 7 and res.red_threes == [threes, 0] and res.scores[0]["red_threes"] == value


# ============================================================================ end of a deal with no canasta
def test_no_canasta_black_threes_in_hand_and_negative_melds() -> None:
    """§1.12 / S2 'si ... no ha hecho ninguna canasta, todas contarán en negativo'; A-ES-17: B3 in hand -100.

    Seat 0 opens K K K + Q Q Q (60), draws a 9, discards a 4: keeps B3 B3 4 5 5 6 6 8 9 (200 + 45);
    seat 2 draws a J, discards a 4: keeps 4 5 5 6 6 8 8 9 9 10 10 J J J Q (125). Team 0: -60 - 370 = -430.
    """
    def team_0(**knobs: Any) -> dict[str, int]:
        hands = {0: "K K K Q Q Q B3 B3 4 4 5 5 6 6 8", 2: "4 4 5 5 6 6 8 8 9 9 10 10 J J Q"}
        s0 = Scripted(melds={1: [meld("K", 3), meld("Q", 3)]}, discards={1: "4"})
        return short_deal(es_rules(**knobs), hands=hands, scripts={0: s0}, stock="9 10 J").scores[0]

    assert parts(team_0()) == {"melded": -60, "hand": -370, "total": -430}
    assert team_0(black_three_in_hand_value=-5)["hand"] == -(10 + 45 + 125)
    assert team_0(meld_points_sign="ALWAYS_PLUS")["melded"] == 60
