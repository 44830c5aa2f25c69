"""Issue 52, items 1-3: knob combinations outside the presets.

1. ``initial_pile_faceup = 0`` with face-down initial cards (Spanish): a pile whose top is face down cannot be taken
   until a card is discarded on it, ``pile_top`` shows only face-up cards, and no answer of the view depends on
   which hidden card lies on top (RULES.md §1.7).
2. ``aces_special = false`` no longer switches ``mixed_aces_only_in_opening`` off: each knob acts alone.
3. ``threes_mode = AMERICAN_COLOUR_TABLE`` outside Americana: a black three is a bonus card wherever it enters the
   hand (dealt, drawn, in a pony, taken with the pile).
"""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import cli
from helpers import Scripted, Table, meld, take
from helpers_spanish import es_rules
from leak_twins import public_outputs, twins

from simcli.engine.dealing import new_deal
from simcli.engine.view import PlayerView
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import FOUR, NUM_RANKS
from simcli.primitives.errors import IllegalDecision

FACEDOWN = "the pile's top card is face down"


def facedown_deal(seed: int = 5) -> object:
    """A Spanish deal under ``initial_pile_faceup=0``: six face-down cards and no upcard."""
    rules = es_rules(initial_pile_faceup=0)
    deck = np.random.default_rng(seed).permutation(
        [r for r, n in enumerate(rules_pack(rules)) for _ in range(n)]).tolist()
    return new_deal(rules, deck, 0, 0, [0] * rules.n_teams, cut_count=0)


def rules_pack(rules: object) -> list[int]:
    from simcli.primitives.cards import deck_counts

    return deck_counts(rules.decks, rules.jokers_per_deck)  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------ 1. face-down top
def test_a_face_down_top_is_not_shown_and_cannot_be_taken() -> None:
    st = facedown_deal()
    view = PlayerView(st, st.first_player)
    assert view.pile_size == 6 and view.pile_top is None
    hidden_top = st.pile[-1]
    for r in range(FOUR, NUM_RANKS):  # the hidden top's rank included: the same answer for every rank
        assert FACEDOWN in (view.check_take(TakePile(Meld(r, 2))) or "")
    assert FACEDOWN in (view.check_take(TakePile(Meld(hidden_top, 2))) or "")


def test_no_answer_of_the_view_depends_on_the_hidden_top() -> None:
    st = facedown_deal()
    st.turn = 1
    seat = st.first_player
    rng = np.random.default_rng(1)
    base = public_outputs(st, seat)
    base.pop("sample_world", None)
    tops = set()
    for name, twin in twins(st, seat, rng):
        tops.add(twin.pile[-1])
        out = public_outputs(twin, seat)
        out.pop("sample_world", None)
        diff = {k for k in base if base[k] != out[k] and k != "hand"}
        assert not diff, (name, sorted(diff))
    assert len(tops) > 1  # some twin did put another card on top


def test_the_engine_refuses_a_take_of_a_face_down_top() -> None:
    st = facedown_deal()
    top = st.pile[-1]
    seat = st.first_player
    st.hands[seat][top] += 2
    st.hand_sizes[seat] += 2
    scripts = {seat: Scripted(draws=[take(top, 2)])}
    table = Table(st, [scripts.get(s, Scripted()) for s in range(st.n_players)])
    with pytest.raises(IllegalDecision) as exc:
        table.step(1)
    assert FACEDOWN in str(exc.value)


def test_after_a_discard_the_pile_is_an_ordinary_pile() -> None:
    st = facedown_deal()
    table = Table(st, [Scripted() for _ in range(st.n_players)]).step(1)
    assert st.pile and len(st.pile) == 7 and not st.top_facedown()
    view = PlayerView(st, st.next_seat(st.first_player))
    assert view.pile_top == st.pile[-1]
    assert FACEDOWN not in (view.check_take(TakePile(Meld(st.pile[-1], 2))) or "")
    assert table.st.turn == 1


def test_the_issue_game_takes_no_face_down_card() -> None:
    out = cli("play", "--variant", "spanish", "--seed", "20077", "--rule", "initial_pile_faceup=0",
              "--rule", "max_hands=2").stdout
    assert "winner:" in out and "deal  2" in out


def test_the_knob_help_says_what_a_face_down_pile_does() -> None:
    from simcli.rules.knobs import knob

    text = knob("initial_pile_faceup").help
    assert "face down" in text and "initial_pile_facedown" in text and "§1.7" in text


# ------------------------------------------------------------------------------------------ 2. aces
def test_aces_special_false_keeps_mixed_aces_only_in_opening() -> None:
    from helpers_americana import am_deal_state, am_rules

    from simcli.engine.judge import melds_error
    from simcli.primitives.cards import ACE

    for special in ("true", "false"):
        st = am_deal_state(am_rules(aces_special=special), {0: "A A A 2 4 4"})
        st.opened[0] = True
        st.add_to_meld(0, ACE, 3, 0, 0)
        st.hands[0][ACE] = 0
        st.hand_sizes[0] -= 3
        err = melds_error(st, 0, [meld("A", 0, 1)], partial=True)
        assert err is not None and "open" in err, (special, err)


def test_aces_mixed_in_the_opening_stay_legal_with_aces_special_false() -> None:
    from helpers_americana import am_deal_state, am_rules

    from simcli.engine.judge import melds_error

    st = am_deal_state(am_rules(aces_special="false"), {0: "A A A 2 K K K Q Q Q JK 9 9"})
    assert melds_error(st, 0, [meld("A", 3, 1), meld("K", 3), meld("Q", 3)]) is None


# ------------------------------------------------------------------------------------------ 3. threes
def _ponytail_colour_table() -> tuple[object, Table]:
    from helpers_ponytail import pony_deal_state, pt_rules

    rules = pt_rules(threes_mode="AMERICAN_COLOUR_TABLE")
    st = pony_deal_state(rules, {0: "8 8 9 9"}, ponies={0: "B3 R3 K K"}, upcards="5")
    return st, Table(st, [Scripted() for _ in range(st.n_players)])


def test_a_black_three_in_a_pony_is_laid_like_a_drawn_one() -> None:
    from simcli.engine.features import ponies
    from simcli.primitives.cards import BLACK_THREE, RED_THREE

    st, table = _ponytail_colour_table()
    team = st.team_of[0]
    before = (st.black_threes[team], st.red_threes[team])
    ponies.pick_up_pony(table.deal, 0)
    assert st.hands[0][BLACK_THREE] == 0 and st.hands[0][RED_THREE] == 0
    assert (st.black_threes[team], st.red_threes[team]) == (before[0] + 1, before[1] + 1)


def test_a_black_three_taken_with_the_pile_is_laid() -> None:
    from simcli.engine import melding
    from simcli.primitives.cards import BLACK_THREE, parse_rank

    st, table = _ponytail_colour_table()
    team = st.team_of[0]
    st.opened[team] = True
    st.pile[:] = [BLACK_THREE, parse_rank("6"), parse_rank("8")]
    before = st.black_threes[team]
    assert PlayerView(st, 0).check_take(take("8", 2)) is None
    melding.take_pile(table.deal, 0, take("8", 2))
    assert st.hands[0][BLACK_THREE] == 0 and st.black_threes[team] == before + 1
    assert st.hands[0][parse_rank("6")] >= 1


def test_red_bonus_black_threes_do_not_count_toward_the_one_kept_three() -> None:
    from helpers_americana import am_deal_state, am_rules

    from simcli.engine.features.threes import may_keep_three
    from simcli.primitives.cards import BLACK_THREE

    st = am_deal_state(am_rules(threes_mode="RED_BONUS"), {0: "B3 8 8 9"})
    assert st.hands[0][BLACK_THREE] == 1
    assert may_keep_three(st, 0)  # a black three is an ordinary card under RED_BONUS


def test_the_threes_knobs_say_what_they_do_outside_americana() -> None:
    from simcli.rules.knobs import knob

    hold = knob("may_hold_one_three_before_opening").help
    assert "RED_BONUS" in hold and "red three" in hold
    assert "black" in knob("threes_mode").help and "pony" in knob("threes_mode").help
    assert "AMERICAN_COLOUR_TABLE" in knob("red_three_from_pile_replaced").help
