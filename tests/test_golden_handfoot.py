"""Golden tests for Hand and Foot: RULES-hand-and-foot.md §5.5, the rule checks HF-R1 … HF-R13 and the scoring cases
HF1 … HF8 (RULES.md §2.5).

Every expected number is the specification's, worked out by hand there (card values §1.3, §2.5.6); nothing is
computed by the code under test. The scoring cases go through the Python API and ``simcli score --json`` (the
``scorer`` fixture); the rule checks ask the judge about hand-dealt positions (:mod:`helpers_handfoot`), or play the
turn. HF-R3 with ``wild_top_takeable`` is at the end. HF-R2, HF-R5 and HF-R6 are played in detail in
``test_handfoot_knobs.py`` too (the knobs they show).
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import Scripted, Table, cards, counts, meld, play_until, players, take
from helpers_handfoot import give_books, give_meld, hf_rules, hf_state, in_foot, set_hand, set_pile, stack_draws
from scoring_paths import breakdown, with_rules

from simcli.engine.game import game_outcome
from simcli.engine.judge import ASK_FIRST, discard_error, go_out_error, melds_error, take_error
from simcli.engine.melds import meld_error
from simcli.primitives.actions import Meld
from simcli.primitives.cards import FOUR, RED_THREE, SIX, WILD_MELD, parse_rank
from simcli.rules.knobs import RuleError

SEVEN_OF = {r: " ".join([r] * 7) for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4")}


# =========================================================================================== scoring (§5.5.1)
def hf1() -> dict[str, Any]:
    """HF1: N goes out by discarding with the full contract; W never reached the foot."""
    return {"variant": "handfoot", "teams": [
        {"melds": [SEVEN_OF["K"], SEVEN_OF["8"], "Q Q Q Q Q 2 JK", "6 6 6 6 2 2 JK", "2 2 2 2 JK JK JK", "9 9 9"],
         "threes": ["R3", "R3"], "hands": [[], ["5", "7", "B3"]], "went_out": True},
        {"melds": [SEVEN_OF["A"], "J J J J J J 2", "4 4 4 JK", "10 10 10"], "threes": ["R3"],
         "hands": [["K", "2"], ["Q", "Q", "9"]], "ponies": ["4 4 5 5 6 J J A JK R3 B3"]},
    ]}


def hf2() -> dict[str, Any]:
    """HF2: the stock ran out, nobody went out; S's unpicked foot holds a red three."""
    return {"variant": "handfoot", "teams": [
        {"melds": [SEVEN_OF["5"], "A A A A A 2 2", "10 10 10 10", "7 7 2"], "threes": ["R3"] * 3,
         "hands": [["JK", "B3", "B3"], ["9", "9", "K"]], "ponies": ["R3 4 4 5 6 8 8 Q Q 2 A"]},
        {"melds": ["2 2 2 JK JK JK JK", SEVEN_OF["J"], "9 9 9 9 JK 2 2", "K K K"], "threes": ["R3"],
         "hands": [["6", "6"], ["A", "2", "8"]]},
    ]}


def hf3() -> dict[str, Any]:
    """HF3: N goes out by melding every card (no discard); team B has no book."""
    return {"variant": "handfoot", "teams": [
        {"melds": [SEVEN_OF["K"], SEVEN_OF["Q"], SEVEN_OF["4"], "10 10 10 10 10 2 JK", "8 8 8 8 8 8 2",
                   "2 2 JK JK JK JK JK", "5 5 5"], "hands": [[], ["7", "7", "2", "JK"]], "went_out": True},
        {"melds": ["6 6 6 2", "9 9 9", "J J JK"], "threes": ["R3", "R3"],
         "hands": [["A", "A", "K", "4", "4", "B3", "7", "9"], ["Q", "Q", "5"]],
         "ponies": ["JK JK 2 A 10 10 6 5 5 B3 R3"]},
    ]}


def hf4() -> dict[str, Any]:
    """HF4: house knob self_deal_exact_bonus=100; N and E each grabbed exactly 22 cards."""
    return {"variant": "handfoot", "rules": {"self_deal_exact_bonus": 100}, "teams": [
        {"melds": [SEVEN_OF["9"], SEVEN_OF["J"], "5 5 5 5 2 2 JK", "A A A A A A JK", "JK JK JK 2 2 2 2"],
         "threes": ["R3"], "hands": [[], ["4"]], "went_out": True, "self_deal_exact": 1},
        {"melds": [SEVEN_OF["7"], "Q Q Q Q Q 2 2", "8 8 8"], "hands": [["K", "K", "JK"], ["6", "B3"]],
         "self_deal_exact": 1},
    ]}


def hf5() -> dict[str, Any]:
    """HF5: six players, two teams of three; A1 goes out by discarding, B2 never reached the foot."""
    return {"variant": "handfoot", "rules": {"num_players": 6}, "teams": [
        {"melds": [SEVEN_OF["K"], SEVEN_OF["10"], SEVEN_OF["6"], "9 9 9 9 9 JK 2", "4 4 4 4 2 2 2",
                   "2 2 2 2 2 2 2", "Q Q Q JK"], "threes": ["R3"] * 3,
         "hands": [[], ["8", "8", "A"], ["JK"]], "went_out": True},
        {"melds": [SEVEN_OF["A"], "7 7 7 7 7 2 JK", "5 5 5", "J J 2"], "threes": ["R3"],
         "hands": [["9", "9", "4"], ["K", "Q", "B3"], ["7"]], "ponies": ["8 8 8 5 5 10 J A 2 R3 R3"]},
    ]}


def hf7() -> dict[str, Any]:
    """HF7: team B never opened (2 red threes laid, never negative); both its feet unpicked."""
    return {"variant": "handfoot", "teams": [
        {"melds": [SEVEN_OF["8"], SEVEN_OF["Q"], "K K K K K 2 2", "4 4 4 4 4 JK 2", "JK JK 2 2 2 2 2"],
         "hands": [[], ["9", "5", "4"]], "went_out": True},
        {"melds": [], "threes": ["R3", "R3"],
         "hands": [["JK", "JK", "A", "K", "K", "7", "6", "4", "B3"], ["A", "A", "Q", "6", "6", "5"]],
         "ponies": ["2 2 A Q J 10 9 8 5 4 B3", "JK 2 K K 9 8 7 7 4 R3 B3"]},
    ]}


def hf8() -> dict[str, Any]:
    """HF8: Simpson-style house rules, two players alone, red threes held at -500 each."""
    return {"variant": "handfoot", "rules": {
        "num_players": 2, "canasta_bonus.natural": 300, "canasta_bonus.mixed": 100, "wild_melds_allowed": False,
        "go_out_requirement": "NATURAL:1,MIXED:1", "threes_mode": "RED_PENALTY", "red_three_in_hand_value": -500},
        "teams": [
            {"melds": [SEVEN_OF["Q"], "9 9 9 9 9 2 JK", "6 6 6"], "hands": [[]], "went_out": True},
            {"melds": [SEVEN_OF["A"], "10 10 10 2"], "hands": [["R3", "R3", "4"]]},
        ]}


#: name -> (position, expected (total, breakdown) per team), as RULES-hand-and-foot.md §5.5.1 prints them.
GOLDEN = {
    "HF1": (hf1, [(4015, breakdown(going_out=100, canasta_natural=1000, canasta_mixed=600, canasta_wild=1500,
                                   red_threes=200, melded=630, hand=-15)),
                  (935, breakdown(canasta_natural=500, canasta_mixed=300, red_threes=100, melded=315, hand=-60,
                                  pony=-220))]),
    "HF2": (hf2, [(1055, breakdown(canasta_natural=500, canasta_mixed=300, red_threes=300, melded=245, hand=-90,
                                   pony=-200)),
                  (2830, breakdown(canasta_natural=500, canasta_mixed=300, canasta_wild=1500, red_threes=100,
                                   melded=490, hand=-60))]),
    "HF3": (hf3, [(4300, breakdown(going_out=100, canasta_natural=1500, canasta_mixed=600, canasta_wild=1500,
                                   melded=680, hand=-80)),
                  (-50, breakdown(red_threes=200, melded=135, hand=-105, pony=-280))]),
    "HF4": (hf4, [(4045, breakdown(going_out=100, canasta_natural=1000, canasta_mixed=600, canasta_wild=1500,
                                   red_threes=100, exact_cut=100, melded=650, hand=-5)),
                  (975, breakdown(canasta_natural=500, canasta_mixed=300, exact_cut=100, melded=155, hand=-80))]),
    "HF4_default_bonus_0": (lambda: with_rules(hf4(), self_deal_exact_bonus=0), [
        (3945, breakdown(going_out=100, canasta_natural=1000, canasta_mixed=600, canasta_wild=1500,
                         red_threes=100, melded=650, hand=-5)),
        (875, breakdown(canasta_natural=500, canasta_mixed=300, melded=155, hand=-80))]),
    "HF5": (hf5, [(4505, breakdown(going_out=100, canasta_natural=1500, canasta_mixed=600, canasta_wild=1500,
                                   red_threes=300, melded=595, hand=-90)),
                  (835, breakdown(canasta_natural=500, canasta_mixed=300, red_threes=100, melded=290, hand=-55,
                                  pony=-300))]),
    "HF7": (hf7, [(3705, breakdown(going_out=100, canasta_natural=1000, canasta_mixed=600, canasta_wild=1500,
                                   melded=525, hand=-20)),
                  (-380, breakdown(red_threes=200, hand=-225, pony=-355))]),
    "HF8": (hf8, [(705, breakdown(going_out=100, canasta_natural=300, canasta_mixed=100, melded=205)),
                  (-515, breakdown(canasta_natural=300, melded=190, hand=-1005))]),
}


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_golden_scoring(case: str, scorer: Any) -> None:
    make, expected = GOLDEN[case]
    assert scorer(make()) == expected


def test_hf6_four_deals_no_target_shared_win() -> None:
    """HF6: totals 9170 each after deal 4 -> shared win; a lead after deal 3 (9370 to 3715) does not end the game,
    and no total ever does (no game_target)."""
    rules = hf_rules()
    a, b = [4015, 1055, 4300, -200], [935, 2830, -50, 5455]
    totals = [(sum(a[:n]), sum(b[:n])) for n in range(1, 5)]
    assert totals[-1] == (9170, 9170)
    for n, t in enumerate(totals[:3], start=1):
        assert game_outcome(rules, list(t), n) == (False, -1)
    assert game_outcome(rules, [9170, 9170], 4) == (True, -1)
    assert game_outcome(rules, [10**7, 0], 2) == (False, -1)


@pytest.mark.parametrize(("deal_index", "minimum"), [(0, 50), (1, 90), (2, 120), (3, 150), (4, 150)])
def test_hf6_minimum_by_deal_whatever_the_scores(deal_index: int, minimum: int) -> None:
    for scores in ([0, 0], [-2000, 9000]):
        st = hf_state(deal_index=deal_index, team_scores=scores)
        assert st.minimum == [minimum, minimum]


# =========================================================================================== rule checks (§5.5.0)
def opened(hand: str, **knobs: Any) -> Any:
    """Team A has opened (A-A-A on the table); N holds ``hand``."""
    st = hf_state(hf_rules(**knobs))
    give_meld(st, 0, "A", 3)
    set_hand(st, 0, hand)
    return st


def test_hf_r1_natural_pair_only() -> None:
    st = opened("9 2 4 5")
    set_pile(st, "5 9")
    assert take_error(st, 0, take("9", 1, twos=1)) is not None  # (a) natural + wild
    give_meld(st, 0, "9", 4)
    assert take_error(st, 0, take("9", 1)) is not None  # (b) no lay-off take
    assert take_error(st, 0, take("9", 0)) is not None
    st = opened("9 9 4 5")
    set_pile(st, "5 9")
    assert take_error(st, 0, take("9", 2)) is None  # (c)


def test_hf_r2_seven_cards_taken() -> None:
    st = opened("K K 4 4 5 5 6 6 8 8 9")
    set_pile(st, "4 5 6 7 8 9 10 J Q A 5 K")
    play_until(st, players({0: Scripted(draws=[take("K", 2)], discards=["4"])}), 1)
    assert st.melds[0][parse_rank("K")] == [3, 0, 0] and st.pile[:5] == cards("4 5 6 7 8")
    assert st.hand_sizes[0] == 11 - 2 + 6 - 1


@pytest.mark.parametrize(("top", "hand"), [("B3", "B3 B3 4"), ("2", "2 2 4"), ("JK", "JK JK 4")])
def test_hf_r3_three_or_wild_on_top_not_takeable(top: str, hand: str) -> None:
    st = opened(hand)
    set_pile(st, f"9 {top}")
    assert take_error(st, 0, take(top, 2)) is not None


@pytest.mark.parametrize(("clean", "dirty", "wild", "requirement", "may"), [
    (2, 2, 0, None, False), (3, 1, 1, None, False), (2, 3, 1, None, True),
    (3, 1, 1, "NATURAL:2,ANY:2,WILD:1", True),
])
def test_hf_r4_contract(clean: int, dirty: int, wild: int, requirement: str | None, may: bool) -> None:
    knobs = {"go_out_requirement": requirement} if requirement else {}
    st = hf_state(hf_rules(**knobs))
    give_books(st, 0, clean, dirty, wild)
    in_foot(st, 0)
    in_foot(st, 2)
    err = go_out_error(st, 0, st.canastas[0])
    assert (err == ASK_FIRST) is may, err


def _hf_r5() -> Any:
    st = hf_state(feet={0: "R3 4 4 5 5 6 6 8 8 9 9"})
    give_meld(st, 0, "7", 3)
    set_hand(st, 0, "K K")
    stack_draws(st, "K 7 Q")
    return st


def test_hf_r5_running_and_walking() -> None:
    run = _hf_r5()
    play_until(run, players({0: Scripted(melds=[[meld("K", 3), meld("7", 1)], []], discards=["4"])}), 1)
    assert run.pony_picked[0] and run.red_threes[0] == 1 and run.hand_sizes[0] == 10 and run.end_reason is None
    walk = _hf_r5()
    play_until(walk, players({0: Scripted(melds=[[meld("K", 3)]], discards=["7"])}), 1)
    assert walk.pony_picked[0] and walk.hand_sizes[0] == 11 and walk.end_reason is None
    assert walk.pony_ready[0] > walk.seat_turns[0] >= run.pony_ready[0]


@pytest.mark.parametrize(("mode", "s_state", "may"), [
    ("PICKED_UP", "hand", False), ("PICKED_UP", "walked", True), ("PLAYED_FROM", "walked", False),
    ("PLAYED_FROM", "played", True),
])
def test_hf_r6_partner_in_foot(mode: str, s_state: str, may: bool) -> None:
    st = hf_state(hf_rules(go_out_partners_in_pony=mode))
    give_books(st, 0, 2, 2, 1)
    in_foot(st, 0)
    if s_state != "hand":
        in_foot(st, 2, played=s_state == "played")
    err = go_out_error(st, 0, st.canastas[0])
    assert (err == ASK_FIRST) is may, err  # when allowed, asking partner is still needed (REQUIRED)


def test_hf_r7_opening_minimum_by_deal() -> None:
    st = hf_state(deal_index=1)
    set_hand(st, 0, "K K K Q Q Q A A 2 4 5")
    assert "below the minimum 90" in str(melds_error(st, 0, [meld("K", 3), meld("Q", 3)]))
    assert melds_error(st, 0, [meld("K", 3), meld("A", 2, twos=1)]) is None
    st = hf_state(deal_index=1)
    set_hand(st, 0, "K K A A A 4 5")
    set_pile(st, "JK JK 4 4 5 5 K")  # the 6 other pile cards (100 in jokers) never count
    assert take_error(st, 0, take("K", 2, extra=[meld("A", 3)])) is None
    assert "below the minimum 90" in str(take_error(st, 0, take("K", 2)))
    st = hf_state(deal_index=3, team_scores=[-2000, 0])
    set_hand(st, 0, "JK A A 2 K K 8 8 8 4 5")
    assert "below the minimum 150" in str(melds_error(st, 0, [meld("A", 2, jokers=1), meld("K", 2, twos=1)]))
    assert melds_error(st, 0, [meld("A", 2, jokers=1), meld("K", 2, twos=1), meld("8", 3)]) is None


def test_hf_r8_meld_shapes() -> None:
    r = hf_rules()
    assert meld_error(r, SIX, 2, 2, 0, new=True) is not None
    assert meld_error(r, SIX, 3, 2, 0, new=True) is None
    assert meld_error(r, SIX, 4, 2, 1, new=True) is None
    d = hf_rules(wild_rule="DOUBLE_NATURALS")
    assert meld_error(d, SIX, 3, 2, 0, new=True) is not None
    assert meld_error(d, 5, 4, 2, 0, new=True) is None
    assert meld_error(d, SIX, 4, 2, 1, new=True) is not None
    assert meld_error(d, FOUR, 4, 3, 0, new=True) is not None
    st = opened("6 6 6 6 4 5 8")
    give_meld(st, 0, "6", 7)  # a closed book: nothing more on it, a new meld of 6s may start
    assert melds_error(st, 0, [meld("6", 1)]) is not None
    assert melds_error(st, 0, [meld("6", 3)]) is None
    st = opened("6 6 6 6 4 5 8")
    give_meld(st, 0, "6", 4)  # an open meld of 6s: a second 6-6-6 merges into it, and 8 cards are too many
    assert melds_error(st, 0, [meld("6", 3)]) is None
    assert melds_error(st, 0, [meld("6", 4)]) is not None


def test_hf_r9_threes() -> None:
    st = opened("B3 B3 B3 4 5")
    in_foot(st, 0)
    assert melds_error(st, 0, [meld("B3", 3)]) is not None
    set_pile(st, "9 B3")
    set_hand(st, 1, "B3 B3 4")
    assert take_error(st, 1, take("B3", 2)) is not None
    st = opened("4 5 6")
    stack_draws(st, "R3 K Q")
    play_until(st, players(), 1)
    assert st.red_threes[0] == 1 and st.hands[0][RED_THREE] == 0 and st.hand_sizes[0] == 3 + 2 - 1


def test_hf_r9_unpicked_foot_red_three_scores_minus_100(scorer: Any) -> None:
    position = {"variant": "handfoot", "teams": [
        {"melds": ["9 9 9"], "hands": [["4"], ["4"]], "ponies": ["R3 4 4 4 4 4 4 4 4 4 4"]},
        {"melds": ["8 8 8"], "hands": [["4"], ["4"]]}]}
    assert scorer(position)[0][1]["pony"] == -(100 + 10 * 5)


def test_hf_r10_keep_a_card_in_the_foot() -> None:
    st = opened("9 9 9 4")
    in_foot(st, 0)
    in_foot(st, 2)
    assert "cannot go out" in str(melds_error(st, 0, [meld("9", 3)]))
    assert discard_error(st, 0, FOUR) is None  # discard one card, keep 3
    give_meld(st, 0, "9", 5)
    assert melds_error(st, 0, [meld("9", 2)]) is None  # 9-9 on the 5 (a book), keep 9 and 4


def test_hf_r11_wild_melds(scorer: Any) -> None:
    r = hf_rules()
    assert meld_error(r, WILD_MELD, 0, 2, 1, new=True) is None
    assert meld_error(r, WILD_MELD, 0, 1, 1, new=True) is not None
    for book in ("2 2 JK JK JK JK JK", "2 2 2 2 2 2 2"):
        position = {"variant": "handfoot", "teams": [{"melds": [book], "hands": [["4"], ["4"]]},
                                                     {"melds": ["8 8 8"], "hands": [["4"], ["4"]]}]}
        assert scorer(position)[0][1]["canasta_wild"] == 1500


def test_hf_r12_stock_empty() -> None:
    st = opened("9 9 4 5")
    set_pile(st, "5 9")
    st.stock[:] = []
    assert take_error(st, 0, take("9", 2)) is None  # taking stays legal
    res = Table(st, players()).finish()  # N draws: the deal ends at once
    assert res.end_reason == "stock_out" and res.turns == 1
    assert [s["going_out"] for s in res.scores] == [0, 0]


@pytest.mark.parametrize(("open_size", "legal"), [(6, False), (4, True)])
def test_hf_r13_take_onto_an_open_meld(open_size: int, legal: bool) -> None:
    st = opened("9 9 4 5")
    give_meld(st, 0, "9", open_size)
    set_pile(st, "5 9")
    assert (take_error(st, 0, take("9", 2)) is None) is legal
    if legal:
        play_until(st, players({0: Scripted(draws=[take("9", 2)])}), 1)
        assert st.canastas[0]["NATURAL"] == 1  # a 7-card clean book (+500 at the end)


@pytest.mark.parametrize(("top", "hand", "meld_", "legal"), [
    ("2", "2 2 4 5", Meld(WILD_MELD, 0, 2, 0), True),
    ("JK", "JK JK 4 5", Meld(WILD_MELD, 0, 0, 2), True),
    ("2", "JK JK 4 5", Meld(WILD_MELD, 0, 0, 2), False),  # twos for a two, jokers for a joker
    ("2", "2 2 2 4 5", Meld(WILD_MELD, 0, 3, 0), False),  # a pair, no more
])
def test_hf_r3_wild_top_takeable(top: str, hand: str, meld_: Meld, legal: bool) -> None:
    st = opened(hand, wild_top_takeable=True)
    set_pile(st, f"9 8 {top}")
    err = take_error(st, 0, take(WILD_MELD, 0, meld_.twos, meld_.jokers))
    assert (err is None) is legal, err


@pytest.mark.parametrize("existing", [0, 4, 5])
def test_hf_r3_wild_take_starts_or_extends_the_wild_meld(existing: int) -> None:
    """2-2-2 starts the team's wild meld, or extends an open one (to a 7-card wild book from 4); 5 + 3 > 7."""
    st = opened("2 2 4 5", wild_top_takeable=True)
    if existing:
        give_meld(st, 0, "WILD", 0, 0, existing)
    set_pile(st, "9 8 2")
    wild_take = take(WILD_MELD, 0, 2, 0)
    if existing == 5:
        assert take_error(st, 0, wild_take) is not None
        return
    play_until(st, players({0: Scripted(draws=[wild_take], discards=["4"])}), 1)
    assert st.hands[0] == counts("5 8 9") and st.pile == cards("4")
    if existing == 4:
        assert st.canastas[0]["WILD"] == 1 and st.melds[0][WILD_MELD] is None
    else:
        assert st.melds[0][WILD_MELD] == [0, 3, 0]


def test_wild_top_takeable_needs_wild_melds() -> None:
    with pytest.raises(RuleError, match="wild_top_takeable=true needs wild_melds_allowed=true"):
        hf_rules(wild_top_takeable=True, wild_melds_allowed=False, go_out_requirement="NATURAL:2,MIXED:2")
