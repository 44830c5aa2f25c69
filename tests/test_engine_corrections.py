"""Engine corrections of issue 11 (RULES.md §1.10, §2.1-§2.3): each test failed on the engine before its fix.

Seats as in ``test_scenarios_classic``: the dealer is seat 3, so seat 0 plays first; team 0 = seats 0 and 2.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import Scripted, Table, deal_state, make_rules, meld, players, take
from helpers_americana import AmTable, Holder, am_deal_state

from simcli.cli import main
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.primitives.cards import BLACK_THREE
from simcli.primitives.errors import IllegalDecision
from simcli.rules.presets import RuleError, load_rules
from simcli.strategies.heuristics.greedy import Greedy

DEALER = 3


def setup(hands: dict[int, str], upcards: str | None = None, stock: str = "", rules: Any = None) -> Any:
    """A prepared Classic deal with seat 0 to play first."""
    return deal_state(rules or make_rules(), hands, upcards, stock, dealer=DEALER)


# ================================================================ 1. concealed going out after a pile take
@pytest.mark.parametrize("take_naturals,melds_after_take", [
    # the take lays K K + top K and A A A; the meld phase completes the K canasta and adds an ace: own melds
    (2, [meld("K", 4), meld("A", 1)]),
    # the take makes the K canasta (6 + top); the meld phase adds an ace to the ace meld laid with the take
    (6, [meld("A", 1)]),
])
def test_concealed_out_after_pile_take_adding_to_own_melds_of_the_turn(
        take_naturals: int, melds_after_take: list) -> None:
    """§1.10, §2.1: adding to melds the player laid earlier in the same turn keeps the going out concealed
    (200 in the preset); before the fix the engine counted them as partner's melds (100)."""
    st = setup({0: "K K K K K K A A A A 5", 2: "4 4 4 4 5 5 5 5 6 6 6"}, upcards="K")
    log = EventLog()
    s0 = Scripted(draws=[take("K", take_naturals, extra=[meld("A", 3)])], melds=[melds_after_take],
                  discards=["5"])
    table = Table(st, players({0: s0}), emit=log)
    res = table.finish()
    assert res.end_reason == "went_out" and res.went_out_seat == 0 and res.turns == 1
    assert res.concealed is True
    assert log.of_kind("going_out")[0]["concealed"] is True
    assert res.scores[0]["going_out"] == 200
    assert [(d["rank"], d["meld"]) for d in log.of_kind("meld")][-1] == ("A", [4, 0, 0])


# ========================================================= 2. "partner, may I go out?" only when a "no" can be obeyed
class Asker(Scripted):
    """Asks "may I go out?" on every turn and records whether the view said it may."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.may_ask_seen: list[bool] = []

    def ask_to_go_out(self, view: Any) -> bool:
        self.may_ask_seen.append(getattr(view, "may_ask", None))  # (None: an engine without it)
        return True


class Answers(Scripted):
    """Answers "may I go out?" with the given answer."""

    def __init__(self, answer: bool):
        super().__init__()
        self.answer = answer

    def answer_go_out(self, view: Any) -> bool:
        return self.answer


def test_no_ask_holding_one_card_after_the_draw() -> None:
    """§1.10: seat 0 takes the pile and keeps one card (a legal going out). Asking then is refused: a "no"
    could not be obeyed. Before the fix the ask was accepted and a "no" left no legal move (the only discard
    goes out), while ``legal_discards()`` still offered the card."""
    st = setup({0: "K K K K K K A A A A 5", 2: "4 4 4 4 5 5 5 5 6 6 6"}, upcards="K")
    asker = Asker(draws=[take("K", 6, extra=[meld("A", 4)])], discards=["5"])
    with pytest.raises(IllegalDecision, match="holding 1 card may not ask 'may I go out\\?'"):
        Table(st, players({0: asker, 2: Answers(False)})).finish()
    assert asker.may_ask_seen == [False] and st.hand_sizes[0] == 1


@pytest.mark.parametrize("answer", [False, True])
def test_ask_with_two_cards_binds_either_way(answer: bool) -> None:
    """With two cards after the take the player may ask; a "no" is obeyed by discarding and keeping one card,
    a "yes" by going out (melding one card, discarding the other)."""
    st = setup({0: "K K K K K K A A A 5 A", 2: "4 4 4 4 5 5 5 5 6 6 6"}, upcards="K")
    asker = Asker(draws=[take("K", 6, extra=[meld("A", 3)])],
                  melds=[[meld("A", 1)] if answer else []], discards=["5"])
    log = EventLog()
    table = Table(st, players({0: asker, 2: Answers(answer)}), emit=log)
    table.step(1)
    assert asker.may_ask_seen == [True]
    assert log.of_kind("ask_go_out") == [{"seat": 0, "partner": 2, "answer": answer}]
    if answer:
        assert st.end_reason == "went_out" and st.went_out_seat == 0
    else:
        assert st.end_reason is None and st.hand_sizes[0] == 1


def test_legal_discards_follow_the_answer() -> None:
    """After a "yes" with more than one card no discard is legal (the player must go out)."""
    st = setup({0: "K K K K K K A A A 5 6", 2: "4 4 4 4 5 5 5 5 6 6 6"}, upcards="K")
    seen: list[list[int]] = []

    class Looks(Asker):
        def choose_discard(self, view: Any) -> int | None:
            seen.append(view.legal_discards())
            return super().choose_discard(view)

    asker = Looks(draws=[take("K", 6, extra=[meld("A", 3)])], discards=["5"])
    with pytest.raises(IllegalDecision, match="partner answered yes"):
        Table(st, players({0: asker, 2: Answers(True)})).step(1)
    assert seen == [[]]


class RandomAsker(Greedy):
    """Greedy play that asks "may I go out?" at random when the rules let it ask and it can go out, and answers
    its partner at random. It records every decision point at which it found no legal move."""

    name = "random_asker"

    def __init__(self, rng: np.random.Generator, stats: Counter[str]):
        super().__init__(rng)
        self.stats = stats

    def ask_to_go_out(self, view: PlayerView) -> bool:
        if not getattr(view, "may_ask", True):  # (an engine without ``may_ask`` lets everyone ask)
            self.stats["may_not_ask"] += 1
            return False
        plan = Greedy.choose_melds(self, view)
        left = view.hand_size - sum(m.naturals + m.twos + m.jokers for m in plan)
        can_go_out = left <= 1 and (not plan or view.check_melds(plan) is None)
        if can_go_out and self.rng.random() < 0.5:  # a "yes" binds: ask only when able to go out
            self.stats["asks"] += 1
            return True
        return False

    def answer_go_out(self, view: PlayerView) -> bool:
        answer = bool(self.rng.random() < 0.5)
        self.stats["yes" if answer else "no"] += 1
        return answer

    def choose_discard(self, view: PlayerView) -> int | None:
        legal = view.legal_discards()
        if not legal:
            self.stats["stuck"] += 1
        if view.partner_permission is False:
            self.stats["discards_after_no"] += 1
        card = super().choose_discard(view)
        if card not in legal:
            self.stats["discard_not_in_legal_discards"] += 1
        return card


@pytest.mark.parametrize("num_players,games", [(4, 40), (6, 10)])
def test_random_asks_and_answers_never_leave_a_player_without_a_legal_move(num_players: int, games: int) -> None:
    """Invariant (§1.10): over many seeded deals with random asks and answers, the player to move always has a
    legal move: every game ends normally, and at every discard ``legal_discards()`` offers the card played."""
    rules = load_rules("classic", {"num_players": num_players})
    assert rules.ask_partner_permission == "OPTIONAL"
    stats: Counter[str] = Counter()
    deals = 0
    for game in range(games):
        rngs = np.random.SeedSequence([11, game]).spawn(num_players)
        strategies = [RandomAsker(np.random.default_rng(s), stats) for s in rngs]
        result = play_game(rules, [x.name for x in strategies], 11, game, strategies=strategies)
        deals += len(result.deals)
    print(f"\n{num_players} players, {deals} deals: {dict(stats)}")
    assert stats["stuck"] == 0 and stats["discard_not_in_legal_discards"] == 0, dict(stats)
    # the test exercised what it is about: asks answered both ways, "no"s obeyed, and refused asks
    assert deals >= 3 * games and stats["asks"] >= 20 and stats["no"] >= 5 and stats["yes"] >= 5, dict(stats)
    assert stats["discards_after_no"] >= 5, dict(stats)
    if num_players == 4:  # holding one card after a pile take, where a "no" could not be obeyed
        assert stats["may_not_ask"] >= 2, dict(stats)


# ================================================================ 3. Americana: a held three laid when the wing arrives
def test_a_held_three_laid_with_the_wing_is_written_held() -> None:
    """§1.9, §2.3: seat 0 keeps its dealt B3, opens on turn 1 and gets the 4-card wing (with a R3 in it). At the
    start of turn 5 the wing reaches the hand and both threes are laid: the R3 came with the wing (``wing``), the
    B3 was kept before opening (``held``; the engine wrote ``wing`` before the fix)."""
    st = am_deal_state(hands={0: "B3 K K K Q Q Q 4"}, wings=["R3"])
    log = EventLog()
    table = AmTable(st, players({0: Holder(hold=True, melds={1: [meld("K", 3), meld("Q", 3)]}, discards={1: "4"})}),
                    emit=log)
    table.step(4)
    assert st.opened[0] and st.hands[0][BLACK_THREE] == 1 and st.wing_pending[0] is not None
    table.step(1)
    threes = [(k, d["seat"], d["source"]) for k, d in log.events if k in ("red_three", "black_three")]
    assert threes == [("red_three", 0, "wing"), ("black_three", 0, "held")]
    assert st.hands[0][BLACK_THREE] == 0 and st.black_threes == [1, 0] and st.red_threes == [1, 0]


# ========================================================= 4. the card supply counts ponies, wings and the initial pile
@pytest.mark.parametrize("variant,overrides,message", [
    ("ponytail", {"decks": 1, "hand_size": 13},
     "the deal needs 106 cards (hands 4x13=52, ponies 4x13=52, initial pile 1, stock 1) but decks=1 hold 54; "
     "allowed: decks >= 2"),
    ("ponytail", {"decks": 2},
     "the deal needs 114 cards (hands 4x15=60, ponies 4x13=52, initial pile 1, stock 1) but decks=2 hold 108; "
     "allowed: decks >= 3 or hand_size <= 13"),
    ("americana", {"decks": 1},
     "the deal needs 60 cards (hands 4x13=52, wings 4+3=7, stock 1) but decks=1 hold 54; "
     "allowed: decks >= 2 or hand_size <= 11"),
    ("spanish", {"decks": 1},
     "the deal needs 68 cards (hands 4x15=60, initial pile 7, stock 1) but decks=1 hold 54; "
     "allowed: decks >= 2 or hand_size <= 11"),
])
def test_card_supply_counts_everything_dealt(variant: str, overrides: dict[str, int], message: str) -> None:
    """Before the fix the ponytail and americana rules passed validation and the deal crashed (pop from an empty
    stock) while setting out the ponies or wings."""
    with pytest.raises(RuleError) as err:
        load_rules(variant, overrides)
    assert str(err.value) == message


def test_card_supply_just_enough_deals_and_plays() -> None:
    """106 of 108 cards dealt (hands, ponies, upcard, one stock card): the game plays to its end."""
    rules = load_rules("ponytail", {"decks": 2, "hand_size": 13})
    result = play_game(rules, ["greedy"] * 4, 3, 0)
    assert result.deals and all(d.end_reason in ("went_out", "stock_out") for d in result.deals)


def test_card_supply_error_is_one_line_on_the_command_line() -> None:
    res = CliRunner().invoke(main, ["run", "--variant", "ponytail", "--rule", "decks=1", "--rule", "hand_size=13",
                                   "--games", "1", "--seed", "1", "--quiet"])
    assert res.exit_code != 0 and isinstance(res.exception, SystemExit)
    assert res.output.strip().splitlines() == [
        "Error: the deal needs 106 cards (hands 4x13=52, ponies 4x13=52, initial pile 1, stock 1) but decks=1 "
        "hold 54; allowed: decks >= 2"]


# ========================================================= 7. A-AM-4c: stuck at the end of the stock (deliberate)
def stuck_at_the_end_of_the_stock(log: Any = None) -> Any:
    """Americana, a five-card stock: seat 0 opens on turn 1 with K x6 + Q x6 (no wing: the stock is below the
    cutoff), discards and keeps one card (J). On turn 5 it draws the last stock card, a R3, which cannot be
    replaced: it holds one card it may not discard (no canasta, going out not allowed)."""
    st = am_deal_state(hands={0: "K K K K K K Q Q Q Q Q Q J"}, stock="5 6 8 9 R3", fill_stock=False)
    s0 = Scripted(melds={1: [meld("K", 6), meld("Q", 6)]}, discards={1: "5"})
    return AmTable(st, players({0: s0}), emit=log).finish()


def test_a_player_stuck_at_the_end_of_the_stock_ends_the_deal() -> None:
    """RULES.md A-AM-4c: the deal ends by stock exhaustion at once (no discard, no going-out bonus), even though
    ``last_card_red_three_ends_deal`` is false in Americana."""
    log = EventLog()
    res = stuck_at_the_end_of_the_stock(log)
    assert load_rules("americana").last_card_red_three_ends_deal is False
    assert res.end_reason == "stock_out" and res.turns == 5 and res.went_out_seat is None
    assert log.of_kind("stock_out") == [{"seat": 0, "turn": 5, "last_card_red_three": True}]
    assert [d["value"] for d in log.of_kind("decision") if d["turn"] == 5] == ["stock", []]  # no discard decision
    assert res.red_threes == [1, 0] and res.scores[0]["going_out"] == 0
