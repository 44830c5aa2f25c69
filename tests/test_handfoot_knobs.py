"""The knobs Hand and Foot brought (RULES-hand-and-foot.md §3.8.3): each one's validation, and a hand-dealt
position where each changes the outcome. Walking and running into the foot (§2.5.2). Seats as in
:mod:`helpers_handfoot`: N = 0 plays first, team A = N + S (0, 2), team B = E + W (1, 3)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import Scripted, Table, cards, counts, meld, play_until, players, take
from helpers_handfoot import give_books, give_meld, hf_rules, hf_state, in_foot, set_hand, set_pile, stack_draws

from simcli.engine.features.handfoot import deal_draws
from simcli.engine.game import prepare_deal, target_reached
from simcli.engine.judge import ASK_FIRST, go_out_error, melds_error, take_error
from simcli.engine.melds import wild_ratio_ok
from simcli.primitives.cards import RED_THREE, deck_cards, parse_rank
from simcli.primitives.seeding import deal_rng
from simcli.rules.knobs import RuleError
from simcli.rules.presets import load_rules


# ---------------------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(("knob", "value", "needle"), [
    ("pile_take_count", "0", "pile_take_count"),
    ("pile_take_count", "51", "pile_take_count"),
    ("pile_take_count", "seven", "pile_take_count"),
    ("pile_take_requires_team_opened", "maybe", "pile_take_requires_team_opened"),
    ("go_out_partners_in_pony", "ALWAYS", "PICKED_UP"),
    ("wild_top_takeable", "sometimes", "wild_top_takeable"),
    ("wild_rule", "TWICE", "DOUBLE_NATURALS"),
])
def test_bad_values_fail_with_one_line_naming_value_and_allowed(knob: str, value: str, needle: str) -> None:
    with pytest.raises(RuleError) as info:
        load_rules("handfoot", {knob: value})
    message = str(info.value)
    assert "\n" not in message and needle in message and value in message


def test_game_target_null_needs_max_hands() -> None:
    assert load_rules("handfoot").game_target is None
    with pytest.raises(RuleError, match="game_target=null with max_hands=null"):
        load_rules("handfoot", {"max_hands": "null"})


def test_pile_take_count_refuses_a_face_down_pile() -> None:
    with pytest.raises(RuleError, match="pile_take_count=7 with a face-down initial pile"):
        load_rules("handfoot", {"initial_pile_facedown": 2})


def test_other_presets_keep_the_old_behaviour() -> None:
    for variant in ("classic", "ponytail", "americana", "spanish"):
        r = load_rules(variant)
        assert r.pile_take_count is None and not r.pile_take_requires_team_opened
        assert r.go_out_partners_in_pony == "OFF" and r.game_target is not None


# ---------------------------------------------------------------------------------------------- game target
def test_no_target_never_ends_the_game_early() -> None:
    assert not target_reached(hf_rules(), 10**9)
    assert target_reached(hf_rules(game_target=5000), 5000)


# ---------------------------------------------------------------------------------------------- pile_take_count
HAND_N = "K K 4 4 5 5 6 6 8 8 9"
PILE12 = "4 5 6 7 8 9 10 J Q A 5 K"  # bottom first: the top K, then 5 A Q J 10 9 (6 cards); 4 5 6 7 8 stay


def _take_kings(**knobs: Any) -> Any:
    st = hf_state(hf_rules(**knobs), {0: HAND_N})
    give_meld(st, 0, "A", 3)
    set_pile(st, PILE12)
    s0 = Scripted(draws=[take("K", 2)], discards=["4"])
    play_until(st, players({0: s0}), 1)
    return st


def test_pile_take_count_takes_the_top_seven() -> None:
    """HF-R2: K-K-K melded, the next 6 cards into the hand, 5 stay; the 8th card from the old top (8) is the new
    top until N's discard covers it."""
    st = _take_kings()
    assert st.melds[0][parse_rank("K")] == [3, 0, 0]
    assert st.pile == cards("4 5 6 7 8 4")
    assert st.hands[0] == counts("4 5 5 6 6 8 8 9 9 10 J Q A 5")
    assert st.take_sizes[0] == [7]


def test_whole_pile_without_pile_take_count() -> None:
    st = _take_kings(pile_take_count="null")
    assert st.pile == cards("4") and st.hand_sizes[0] == 11 - 2 + 11 - 1


def test_short_pile_is_taken_whole() -> None:
    """HF-R2 with a 4-card pile: K-K-K + 3 cards to the hand, the pile is empty until the discard."""
    st = hf_state(hf_rules(), {0: HAND_N})
    give_meld(st, 0, "A", 3)
    set_pile(st, "9 10 J K")
    play_until(st, players({0: Scripted(draws=[take("K", 2)], discards=["4"])}), 1)
    assert st.pile == cards("4") and st.hand_sizes[0] == 11 - 2 + 3 - 1


def test_judge_counts_only_the_taken_cards_toward_keeping_a_card() -> None:
    """The judge's hand_bonus is min(k, pile) - 1: N, in the foot, takes with K-K and melds 4-4-4 too. Taking 3
    cards brings J and Q into the hand (one to discard, one to keep); taking 2 leaves the Q only, and discarding it
    would go out without the contract (refused)."""
    st = hf_state(hf_rules(pile_take_count=3), {0: HAND_N})
    give_meld(st, 0, "A", 3)
    in_foot(st, 0)
    set_hand(st, 0, "K K 4 4 4")
    set_pile(st, "9 10 J Q K")
    go_all = take("K", 2, extra=[meld("4", 3)])
    err = take_error(st, 0, go_all)
    assert err is None
    st2 = hf_state(hf_rules(pile_take_count=2), {0: HAND_N})
    give_meld(st2, 0, "A", 3)
    in_foot(st2, 0)
    set_hand(st2, 0, "K K 4 4 4")
    set_pile(st2, "9 10 J Q K")
    assert "cannot go out" in (take_error(st2, 0, go_all) or "")


# ---------------------------------------------------------------------------------------------- opened gate
def test_pile_take_requires_team_opened() -> None:
    """A 13 house rule: by default an unopened team may open by the pile (K-K-K + A-A-A = 90 >= 50)."""
    for knob, legal in ((False, True), (True, False)):
        st = hf_state(hf_rules(pile_take_requires_team_opened=knob), {0: "K K A A A 4 5 6 8 9 10"})
        set_pile(st, "9 K")
        err = take_error(st, 0, take("K", 2, extra=[meld("A", 3)]))
        assert (err is None) is legal, err
        if not legal:
            assert "pile_take_requires_team_opened" in str(err)


# ---------------------------------------------------------------------------------------------- partners in foot
def _ready_to_go_out(mode: str) -> Any:
    st = hf_state(hf_rules(go_out_partners_in_pony=mode))
    give_books(st, 0, clean=2, dirty=2, wild=1)
    in_foot(st, 0)
    return st


@pytest.mark.parametrize(("mode", "partner", "allowed"), [
    ("OFF", "hand", True), ("PICKED_UP", "hand", False), ("PLAYED_FROM", "hand", False),
    ("PICKED_UP", "walked", True), ("PLAYED_FROM", "walked", False),
    ("PICKED_UP", "played", True), ("PLAYED_FROM", "played", True),
])
def test_go_out_partners_in_pony(mode: str, partner: str, allowed: bool) -> None:
    """HF-R6: N may go out only when S is in the foot (PICKED_UP), and under PLAYED_FROM has played from it;
    the one refusal left when allowed is asking partner (REQUIRED)."""
    st = _ready_to_go_out(mode)
    if partner != "hand":
        in_foot(st, 2, played=partner == "played")
    err = go_out_error(st, 0, st.canastas[0])
    assert (err == ASK_FIRST) is allowed, err
    if not allowed:
        assert "go_out_partners_in_pony" in str(err)


def test_partners_rule_is_vacuous_alone() -> None:
    st = hf_state(hf_rules(num_players=2, ask_partner_permission="OFF"))
    give_books(st, 0, clean=1, dirty=1)
    in_foot(st, 0)
    assert go_out_error(st, 0, st.canastas[0]) is None


# ---------------------------------------------------------------------------------------------- walking and running
def _n_about_to_empty(foot: str = "R3 4 4 5 5 6 6 8 8 9 9") -> Any:
    """HF-R5: N (not in the foot; team opened with 7-7-7) holds K K after the deal and draws K 7."""
    st = hf_state(hf_rules(), feet={0: foot})
    give_meld(st, 0, "7", 3)
    set_hand(st, 0, "K K")
    stack_draws(st, "K 7 Q")  # Q: the replacement of the foot's red three
    return st


def test_running_into_the_foot() -> None:
    """HF-R5 (a): K-K-K and 7 on the 7s empty the hand: the foot comes at once (its R3 laid and replaced by the Q),
    N is asked for melds again (lays none) and discards from the foot; no going out."""
    st = _n_about_to_empty()
    s0 = Scripted(melds=[[meld("K", 3), meld("7", 1)], []], discards=["4"])
    play_until(st, players({0: s0}), 1)
    assert st.end_reason is None and st.pony_picked[0] and st.pony_turn[0] == 1
    assert st.red_threes[0] == 1 and st.pony_ready[0] == 1  # played from it in the same turn
    assert st.hands[0] == counts("4 5 5 6 6 8 8 9 9 Q")
    assert [k for _, k, _ in s0.log] == ["draw", "melds", "melds", "discard"]


def test_walking_into_the_foot() -> None:
    """HF-R5 (b): K-K-K, then the 7 discarded empties the hand: the foot is picked up at the end of the turn and
    first played next turn (PLAYED_FROM not yet met); not a going out."""
    st = _n_about_to_empty()
    s0 = Scripted(melds=[[meld("K", 3)]], discards=["7"])
    play_until(st, players({0: s0}), 1)
    assert st.end_reason is None and st.pony_picked[0] and st.pile[-1] == parse_rank("7")
    assert st.red_threes[0] == 1 and st.pony_ready[0] == 2
    assert st.hands[0] == counts("4 4 5 5 6 6 8 8 9 9 Q")
    assert [k for _, k, _ in s0.log] == ["draw", "melds", "discard"]


def test_emptying_the_hand_into_the_foot_needs_no_contract() -> None:
    st = _n_about_to_empty()
    assert st.canastas[0]["NATURAL"] == 0
    Table(st, players({0: Scripted(melds=[[meld("K", 3), meld("7", 1)], []])})).step(1)
    assert st.end_reason is None and st.went_out_seat is None


# ---------------------------------------------------------------------------------------------- DOUBLE_NATURALS
@pytest.mark.parametrize(("naturals", "wilds", "strict", "double"), [
    (2, 1, True, True), (2, 2, False, False), (3, 2, True, False), (4, 2, True, True),
    (4, 3, True, False), (5, 2, True, True), (3, 1, True, True),
])
def test_double_naturals(naturals: int, wilds: int, strict: bool, double: bool) -> None:
    """HF-R8's shapes under STRICT_MAJORITY (the preset) and DOUBLE_NATURALS (pagat, A-HF-4)."""
    assert wild_ratio_ok("STRICT_MAJORITY", naturals, wilds) is strict
    assert wild_ratio_ok("DOUBLE_NATURALS", naturals, wilds) is double


def test_double_naturals_changes_a_legal_meld() -> None:
    for rule, legal in (("STRICT_MAJORITY", True), ("DOUBLE_NATURALS", False)):
        st = hf_state(hf_rules(wild_rule=rule), {0: "6 6 6 2 2 K K K 4 4 4"})
        err = melds_error(st, 0, [meld("6", 3, twos=2), meld("K", 3)])
        assert (err is None) is legal, err


# ---------------------------------------------------------------------------------------------- upcard_reject_mode
@pytest.mark.parametrize("mode", ["COVER", "BURY"])
def test_upcard_reject_mode(mode: str) -> None:
    """A-HF-9: JK, 2 and R3 upcards are buried in the stock (BURY, the preset) or stay under the 9 (COVER)."""
    st = hf_state(hf_rules(upcard_reject_mode=mode), upcards="JK 2 R3 9")
    if mode == "BURY":
        assert st.pile == cards("9") and st.upcards == cards("9") and not st.pile_frozen
        assert st.stock[-1] != cards("R3")[0]  # never buried on top
    else:
        assert st.pile == cards("JK 2 R3 9")
    assert len(st.stock) + len(st.pile) == 270 - 4 * 22


def test_bury_draws_leave_the_deal_and_other_variants_alone() -> None:
    """The places of buried upcards and the grabs come after the shuffle: the deck is the same with either knob;
    without them (other presets) nothing is drawn."""
    rules = hf_rules()
    pack = deck_cards(rules.decks, rules.jokers_per_deck)
    a = prepare_deal(rules, list(pack), deal_rng(3, 0), 0, 3, [0, 0])
    b = prepare_deal(hf_rules(upcard_reject_mode="COVER"), list(pack), deal_rng(3, 0), 0, 3, [0, 0])
    assert a.deck == b.deck
    assert b.self_deal_grabs == () and len(a.self_deal_grabs) == 4
    assert deal_draws(load_rules("ponytail"), deal_rng(3, 0), 300) is None


# ---------------------------------------------------------------------------------------------- self_deal_exact_bonus
@pytest.mark.parametrize("bonus", [0, 100])
def test_self_deal_exact_bonus_in_play(bonus: int) -> None:
    """A-HF-21: with cut_sigma=0 every grab is exact: each team scores 2 x the bonus in its exact_cut part."""
    rules = hf_rules(self_deal_exact_bonus=bonus, cut_sigma=0)
    pack = deck_cards(rules.decks, rules.jokers_per_deck)
    st = prepare_deal(rules, list(pack), deal_rng(4, 0), 0, 3, [0, 0])
    assert st.self_deal_grabs == (22,) * 4
    res = Table(st, players()).finish()
    assert [s["exact_cut"] for s in res.scores] == [2 * bonus, 2 * bonus]


# ---------------------------------------------------------------------------------------------- RED_PENALTY
def test_red_penalty_keeps_red_threes_in_hand() -> None:
    """A-HF-5 house family: a dealt red three is not laid at the first turn, may not be melded, may be discarded
    and then stops the pile; left in hand it scores red_three_in_hand_value."""
    rules = hf_rules(threes_mode="RED_PENALTY", red_three_in_hand_value=-500)
    st = hf_state(rules, {0: "R3 R3 K K K 4 5 6 8 9 10", 1: "R3 Q Q 4 5 6 8 9 10 J J"})
    assert "cannot meld R3" in str(melds_error(st, 0, [meld("R3", 2)]))
    s0 = Scripted(discards=["R3"])
    play_until(st, players({0: s0}), 1)
    assert st.red_threes[0] == 0 and st.hands[0][RED_THREE] == 1 and st.pile[-1] == RED_THREE
    assert take_error(st, 1, take("R3", 1)) is not None
    res = Table(st, players()).finish()
    assert res.scores[0]["red_threes"] == 0


def test_red_bonus_lays_them_instead() -> None:
    st = hf_state(hf_rules(), {0: "R3 R3 K K K 4 5 6 8 9 10"})
    play_until(st, players(), 1)
    assert st.red_threes[0] == 2 and st.hands[0][RED_THREE] == 0


@pytest.mark.parametrize(("knob", "value", "needle"), [
    ("upcard_reject_mode", "SHUFFLE", "BURY"),
    ("self_deal_exact_bonus", "-1", "self_deal_exact_bonus"),
    ("threes_mode", "RED_MINUS", "RED_PENALTY"),
    ("red_three_in_hand_value", "100", "red_three_in_hand_value"),
])
def test_more_bad_values(knob: str, value: str, needle: str) -> None:
    with pytest.raises(RuleError) as info:
        load_rules("handfoot", {knob: value})
    assert "\n" not in str(info.value) and needle in str(info.value) and value in str(info.value)
