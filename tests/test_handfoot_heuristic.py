"""The ``handfoot`` heuristic (strategies/heuristics/handfoot.py) on stacked Hand and Foot deals: the contract's
books by kind, running into the foot, keeping two cards in the foot, asking to go out, and its discards."""

from __future__ import annotations

import numpy as np
from helpers_handfoot import give_books, give_meld, hf_rules, hf_state, in_foot, set_hand

from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import best_heuristic
from simcli.primitives.actions import Meld
from simcli.primitives.cards import BLACK_THREE, FIVE, JOKER, KING, NINE, QUEEN, RED_THREE, TWO, WILD_MELD
from simcli.strategies.heuristics.greedy import Greedy
from simcli.strategies.heuristics.handfoot import DIRTY_STOCK, HandAndFoot, contract_need, discard_score
from simcli.strategies.search.mc import MonteCarlo


def hf() -> HandAndFoot:
    return HandAndFoot(np.random.default_rng(0))


def opened(st: DealState, team: int = 0) -> None:
    st.opened[team] = True


def short_stock(st: DealState, left: int) -> None:
    """Leave ``left`` cards in the stock (the rest go to the bottom of the pile, out of play for these checks)."""
    extra = st.stock[: len(st.stock) - left]
    del st.stock[: len(st.stock) - left]
    st.pile[:0] = extra


def wild_cards(plan: list[Meld]) -> dict[int, int]:
    """Wild cards the plan puts on each rank (WILD_MELD: the wild meld)."""
    out: dict[int, int] = {}
    for m in plan:
        if m.twos + m.jokers:
            out[m.rank] = out.get(m.rank, 0) + m.twos + m.jokers
    return out


def test_it_is_handfoots_best_heuristic() -> None:
    assert best_heuristic("handfoot") == "handfoot"
    assert HandAndFoot.name == "handfoot"


def test_contract_need_counts_books_by_kind() -> None:
    requirement = (("NATURAL", 2), ("MIXED", 2), ("WILD", 1))
    books = {"NATURAL": 3, "MIXED": 1, "WILD": 0}
    assert [contract_need(requirement, books, k) for k in ("NATURAL", "MIXED", "WILD")] == [0, 1, 1]
    assert contract_need((("NATURAL", 1),), books, "MIXED") == 0


def test_wild_cards_build_the_wild_book_and_natural_melds_stay_clean() -> None:
    st = hf_state()
    opened(st)
    give_meld(st, 0, "K", 5)  # a clean meld two short of a clean book
    set_hand(st, 0, "2 2 JK K 9 9 9 5 6")
    plan = hf().choose_melds(PlayerView(st, 0))
    assert wild_cards(plan) == {WILD_MELD: 3}  # the three wild cards start the wild book; K and 9 stay clean
    assert st.hands[0][KING] == 1 and Meld(KING, 1, 0, 0) in plan and Meld(NINE, 3, 0, 0) in plan
    # greedy does the same with these cards; the difference is what comes late in the deal (below)
    assert wild_cards(Greedy(np.random.default_rng(0)).choose_melds(PlayerView(st, 0))) == {WILD_MELD: 3}


def test_late_in_the_deal_a_wild_card_makes_the_contracts_last_dirty_book() -> None:
    def deal(stock: int) -> list[Meld]:
        st = hf_state()
        give_books(st, 0, clean=2, dirty=1, wild=1)
        give_meld(st, 0, "Q", 6)  # six naturals: one wild card makes a dirty book
        give_meld(st, 0, "5", 4)
        set_hand(st, 0, "2 9 9 9 6 7 8")
        short_stock(st, stock)
        return hf().choose_melds(PlayerView(st, 0))

    assert wild_cards(deal(DIRTY_STOCK)) == {QUEEN: 1}  # the fewest wild cards: the six-card Q meld
    assert wild_cards(deal(DIRTY_STOCK + 40)) == {}  # earlier the two waits for the next wild book


def test_clean_melds_the_contract_needs_are_spared() -> None:
    def deal(clean: int) -> list[Meld]:
        st = hf_state()
        give_books(st, 0, clean=clean, dirty=1, wild=1)
        give_meld(st, 0, "Q", 6)  # the largest clean meld: the contract's second clean book
        give_meld(st, 0, "5", 5)
        set_hand(st, 0, "2 2 9 9 9 6 7 8")
        short_stock(st, 10)  # the deal's last turns: spare wild cards are laid
        return hf().choose_melds(PlayerView(st, 0))

    assert wild_cards(deal(1)) == {FIVE: 2}  # but not on the Q meld while the contract needs a clean book
    assert wild_cards(deal(2)) == {QUEEN: 1, FIVE: 1}  # no longer needed clean


def test_spare_wild_cards_run_into_the_foot() -> None:
    st = hf_state()
    opened(st)
    give_meld(st, 0, "9", 3)
    set_hand(st, 0, "K K K 2")
    view = PlayerView(st, 0)
    plan = hf().choose_melds(view)
    assert sum(m.naturals + m.twos + m.jokers for m in plan) == 4 and view.check_melds(plan) is None  # hand empty
    greedy = Greedy(np.random.default_rng(0)).choose_melds(PlayerView(st, 0))
    assert sum(m.naturals + m.twos + m.jokers for m in greedy) == 3  # greedy keeps the two and stays in the hand


def test_in_the_foot_it_keeps_two_cards_without_a_yes() -> None:
    st = hf_state()
    give_books(st, 0, clean=2, dirty=2, wild=1)
    in_foot(st, 0)
    in_foot(st, 2)
    set_hand(st, 0, "K K K 9")
    view = PlayerView(st, 0)
    player = hf()
    plan = player.choose_melds(view)
    assert view.hand_size - sum(m.naturals for m in plan) >= 2  # not asked: no going out
    assert player.ask_to_go_out(view) is True  # the contract is met and partner is in the foot: it asks
    st.asked, st.permission = True, True
    plan = player.choose_melds(PlayerView(st, 0))
    assert sum(m.naturals + m.twos + m.jokers for m in plan) >= 3  # after the yes it melds down to go out


def test_it_does_not_ask_while_partner_is_in_the_hand() -> None:
    st = hf_state()
    give_books(st, 0, clean=2, dirty=2, wild=1)
    in_foot(st, 0)
    set_hand(st, 0, "K K K 9")
    assert hf().ask_to_go_out(PlayerView(st, 0)) is False


def test_discards_the_rank_opponents_have_melded_first() -> None:
    st = hf_state()
    opened(st)
    give_meld(st, 1, "K", 4)  # the opponents' open K meld: they hold no K pair
    set_hand(st, 0, "K 5 9 Q Q")
    assert hf().choose_discard(PlayerView(st, 0)) == KING
    assert Greedy(np.random.default_rng(0)).choose_discard(PlayerView(st, 0)) == FIVE  # greedy keeps the K
    own: tuple = (None,) * 20
    others = [tuple((1, 0, 0) if r == KING else None for r in range(20))]
    assert discard_score(KING, 1, own, others) < discard_score(FIVE, 1, own, [own])


def test_threes_go_first_red_ones_under_red_penalty() -> None:
    st = hf_state(hf_rules(threes_mode="RED_PENALTY", red_three_in_hand_value=-500))
    set_hand(st, 0, "R3 B3 5 9")
    assert hf().choose_discard(PlayerView(st, 0)) == RED_THREE
    assert Greedy(np.random.default_rng(0)).choose_discard(PlayerView(st, 0)) == BLACK_THREE
    st = hf_state()
    set_hand(st, 0, "B3 5 9")
    assert hf().choose_discard(PlayerView(st, 0)) == BLACK_THREE


def test_wild_cards_are_discarded_only_when_nothing_else_is_left() -> None:
    st = hf_state()
    set_hand(st, 0, "2 JK")
    assert hf().choose_discard(PlayerView(st, 0)) in (TWO, JOKER)


def test_mc_asks_as_its_heuristic_and_goes_out_after_the_yes() -> None:
    """``mc`` (its rollout policy and ask hook: the handfoot heuristic) asks when the contract is met and partner is
    in the foot, and after the yes its search weighs only plans that go out."""
    st = hf_state()
    give_books(st, 0, clean=2, dirty=2, wild=1)
    in_foot(st, 0)
    in_foot(st, 2)
    set_hand(st, 0, "K K K 9")
    mc = MonteCarlo(np.random.default_rng(0), samples=2)
    assert type(mc._policy(PlayerView(st, 0))[0]) is HandAndFoot
    assert mc.ask_to_go_out(PlayerView(st, 0)) is True
    st.asked, st.permission = True, True
    view = PlayerView(st, 0)
    plan = mc.choose_melds(view)
    assert view.check_melds(plan) is None and view.hand_size - sum(m.naturals for m in plan) <= 1
