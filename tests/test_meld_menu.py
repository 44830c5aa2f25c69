"""The human seat's meld menu (issue 49, item 5): each action names the meld it goes to, and the turn's melds are
offered with what they still lack ("needs 10 more to open") rather than offered and then refused."""

from __future__ import annotations

import contextlib
import io

import numpy as np
from helpers import deal_state, make_rules

from simcli.engine.view import PlayerView
from simcli.primitives.actions import Meld
from simcli.primitives.cards import KING, NINE, QUEEN
from simcli.viewer import choices, meld_menu
from simcli.viewer.human import HumanPlayer, LeftTable
from simcli.viewer.words import Words


def opened_view() -> PlayerView:
    """Seat 1 (first to play): its team has opened with K K K and Q Q Q; it holds 9 9 9 2 2 K 5 5."""
    st = deal_state(make_rules(hand_size=8), {1: "9 9 9 2 2 K 5 5"}, stock="4")
    st.add_to_meld(1, KING, 3, 0, 0)
    st.add_to_meld(1, QUEEN, 3, 0, 0)
    st.opened[1] = True
    return PlayerView(st, 1)


def test_each_wild_card_action_names_its_meld() -> None:
    view = opened_view()
    actions = choices.meld_options(view, [])
    labels = [meld_menu.action_label(view, [], m) for m in actions]
    assert "add 2 to K K K" in labels and "add 2 to Q Q Q" in labels  # not "add 2" twice
    assert "add K to K K K" in labels and "lay 9 9 9 (a new meld)" in labels
    assert len(set(labels)) == len(labels)
    plan = [Meld(NINE, 3)]
    assert "add 2 to 9 9 9 (planned)" in [meld_menu.action_label(view, plan, m) for m in
                                          choices.meld_options(view, plan)]
    assert meld_menu.plan_words(view, [Meld(KING, 0, 1, 0), Meld(NINE, 3)]) == "add 2 to K K K; lay 9 9 9 (a new meld)"


def test_a_plan_that_cannot_open_says_what_it_lacks() -> None:
    st = deal_state(make_rules(hand_size=8), {1: "9 9 2 K 7 6 5 4"}, stock="4")
    view = PlayerView(st, 1)
    assert not view.has_opened and view.minimum == 50
    plan = [Meld(NINE, 2, 1, 0)]  # 9 9 2: 10 + 10 + 20 = 40
    assert view.check_melds(plan) == "opening melds count 40, below the minimum 50"
    assert meld_menu.done_label(view, plan) == "lay 9 9 2: not yet, needs 10 more to open (these count 40 of 50)"
    assert meld_menu.opening_note(view, []) == "your team has not opened: its first melds must count 50 or more"
    assert meld_menu.done_label(view, []) == "meld nothing (go on)"
    opened = opened_view()
    assert meld_menu.done_label(opened, [Meld(KING, 0, 1, 0)]) == "lay 2"


def test_the_menu_the_person_sees() -> None:
    view = opened_view()
    out = io.StringIO()
    player = HumanPlayer(np.random.default_rng(0), stdin=io.StringIO("2\n"), stdout=out, words=Words(4, 2))
    with contextlib.suppress(LeftTable):  # the scripted input ends after the menu is shown: the player leaves
        player.choose_melds(view)
    text = out.getvalue()
    assert "add 2 to K K K" in text and "melds planned: add " in text
