"""Hand and Foot at the table (issue 48, item 3): the human seat's prompts (the foot, the contract, the 7-card take,
asking to go out under REQUIRED, red threes under RED_PENALTY, a hint), the play-by-play's words for the new events.

The human seat is driven by scripted input on text streams: a whole deal in process, and a prepared deal (the
stacked decks of :mod:`helpers_handfoot`) where a human asks "may I go out?" and the other human, the partner,
answers.
"""

from __future__ import annotations

import copy
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import Table, players
from helpers_handfoot import give_books, hf_rules, hf_state, in_foot, set_hand, stack_draws

from simcli.cli import main
from simcli.engine.game import play_seated_game
from simcli.engine.trace import EventLog
from simcli.players.seating import make_strategies
from simcli.primitives.cards import RED_THREE
from simcli.rules.presets import load_rules
from simcli.viewer.foot import contract_progress, contract_text
from simcli.viewer.human import HumanPlayer
from simcli.viewer.narrate import Narrator
from simcli.viewer.replay import ReplayError, replay
from simcli.viewer.words import Words


def _human(rules, answers: str) -> tuple[HumanPlayer, io.StringIO]:
    out = io.StringIO()
    return HumanPlayer(np.random.default_rng(0), stdin=io.StringIO(answers), stdout=out,
                       words=Words.for_rules(rules), hint_worlds=2), out


def test_a_whole_deal_at_a_human_seat() -> None:
    """South plays a whole deal of the preset by always answering 1 (and asks for a hint once): every prompt shows
    the contract per team and each seat's foot, and a take offers the top 7 cards of the pile."""
    rules = hf_rules(max_hands="1")
    names = ["greedy"] * 4
    seats = make_strategies(names, 2, 0)
    seats[2], out = _human(rules, "?\n" + "1\n" * 3000)
    result = play_seated_game(rules, seats, names, 2, 0)
    assert len(result.deals) == 1
    text = out.getvalue()
    assert ("   North-South (you): not opened; red threes 0; contract: clean 0/2, dirty 0/2, wild 0/1; melds: none"
            in text)
    assert "cards in hand: North 11 (foot face down), East 5 (foot face down), West 11 (foot face down)" in text
    assert "   your foot: 11 cards face down, yours once your hand is empty" in text
    assert re.search(r"  \d+: take the pile with .* \(you get its top 7 of \d+ cards; the rest stays\)", text)
    assert re.search(r"East-West: opened; .*contract: clean 2/2, dirty 0/2, wild [01]/1", text)
    assert "(in the foot)" in text  # another seat walked into its foot, and the table says so
    assert "hint: " in text  # the mc search's hint works under these rules


def _contract_met_table(rules: Any) -> Any:
    """North-South have met the contract and both are in the foot; North holds K K K 5 5 and will draw 5 9."""
    st = hf_state(rules)
    give_books(st, 0, 2, 2, 1)
    in_foot(st, 0)
    in_foot(st, 2)
    set_hand(st, 0, "K K K 5 5")
    stack_draws(st, "5 9")
    return st


def test_a_human_asks_and_the_human_partner_answers() -> None:
    """North (a person) has met the contract with South in the foot: the table says to ask first; North asks, South
    (a person too) is asked and says yes, and North goes out by melding and discarding."""
    rules = hf_rules()
    st = _contract_met_table(rules)
    north, said = _human(rules, "1\n2\nK K K\n5 5 5\n1\n1\n")  # draw, ask, two melds, done, discard the 9
    south, heard = _human(rules, "1\n")
    log = EventLog()
    Table(st, players({0: north, 2: south}), emit=log).step(1)
    text, partner = said.getvalue(), heard.getvalue()
    assert "your team's contract is met: to go out, ask partner 'may I go out?' first" in text
    assert "contract: clean 2/2, dirty 2/2, wild 1/1: met" in text
    assert "your foot: picked up: you are in the foot" in text
    assert 'your team could go out: ask partner "may I go out?"' in text
    assert 'your partner asks "may I go out?"' in partner
    assert log.of_kind("ask_go_out") == [{"seat": 0, "partner": 2, "answer": True}]
    assert st.went_out_seat == 0 and log.of_kind("going_out")[0]["seat"] == 0


def test_a_partner_says_no_and_the_human_may_not_go_out() -> None:
    """The same table, South says no: North's going out is refused with the rule's reason, North keeps a card."""
    rules = hf_rules()
    st = _contract_met_table(rules)
    # draw, ask; after the no: two melds, done (refused), start again, meld nothing, discard the K
    north, said = _human(rules, "1\n2\nK K K\n5 5 5\n1\n2\n1\n1\n")
    south, _ = _human(rules, "2\n")
    log = EventLog()
    Table(st, players({0: north, 2: south}), emit=log).step(1)
    assert log.of_kind("ask_go_out") == [{"seat": 0, "partner": 2, "answer": False}]
    assert "refused: cannot go out: partner answered no" in said.getvalue()
    assert st.went_out_seat is None and st.hand_sizes[0] == 6


def test_red_threes_stay_in_a_human_hand_under_red_penalty() -> None:
    """Under RED_PENALTY a red three is held: the table says what it will cost and that it may be discarded."""
    rules = hf_rules(threes_mode="RED_PENALTY", red_three_in_hand_value="-500")
    st = hf_state(rules)
    set_hand(st, 0, "R3 K K K 5 5 6 7 8 9 10")
    north, said = _human(rules, "1\n1\nR3\n")
    Table(st, players({0: north})).step(1)
    text = said.getvalue()
    assert "red threes stay in hand under these rules: each left at the deal's end scores -500" in text
    assert "R3" in text.split("your hand (")[1].splitlines()[0]
    assert st.pile[-1] == RED_THREE and st.red_threes == [0, 0]  # discarded, never laid


def test_contract_words() -> None:
    progress = contract_progress((("NATURAL", 2), ("MIXED", 2), ("WILD", 1)), {"NATURAL": 3, "WILD": 1}, 3)
    assert progress == [("clean", 3, 2), ("dirty", 0, 2), ("wild", 1, 1)]
    assert contract_text(progress) == "clean 2/2, dirty 0/2, wild 1/1"
    assert contract_text(contract_progress((("NATURAL", 1), ("MIXED", 1)), {"NATURAL": 1, "MIXED": 2}, 1)) == (
        "clean 1/1, dirty 1/1: met")
    assert contract_progress((("CLEAN", 1), ("DIRTY", 1), ("ANY", 3)), {"NATURAL": 1, "MIXED": 1}, 1) == [
        ("clean", 1, 1), ("dirty", 1, 1), ("any", 2, 3)]


def test_the_play_by_play_says_the_foot_the_grabs_and_the_contract() -> None:
    """``--narrate`` words: the deal's feet, the grabs, a buried upcard, walking and running into the foot and the
    contract's books; a Ponytail game keeps its pony words."""
    rules = hf_rules(self_deal_exact_bonus="100")
    words = Words.for_rules(rules)
    lines: list[str] = []
    say = Narrator(words, lines.append)
    say("deal", {"deal_index": 0, "dealer": 3, "first_player": 0, "deck": [], "hands": ["4 5"] * 4,
                 "upcards": ["K"], "pile_frozen": False, "minimum": [50, 50]})
    say("self_deal", {"counts": [22, 20, 25, 22], "target": 22, "exact": [True, False, False, True],
                      "bonus": [100, 100]})
    say("upcard_buried", {"card": "JK"})
    say("canasta", {"seat": 0, "team": 0, "rank": "K", "kind": "NATURAL", "upgraded_from": None})
    say("canasta", {"seat": 0, "team": 0, "rank": "K", "kind": "MIXED", "upgraded_from": "NATURAL"})
    say("pony_pickup", {"seat": 0, "team": 0, "turn": 9, "cards": 11, "into_foot": "running"})
    say("pony_pickup", {"seat": 1, "team": 1, "turn": 10, "cards": 11, "into_foot": "walking"})
    assert lines[1].startswith("Deal 1: West deals 2 cards each and a foot of 11 face down and North plays first")
    assert lines[2] == ("Each player grabs a hand and foot (22 would be exact): North 22, East 20, South 25, West 22; "
                        "exact: North, West (a bonus of 100 for North-South, 100 for East-West)")
    assert lines[3] == ("The upcard is a joker, which may not start the pile: it goes back into the stock and the "
                        "next card is turned")
    assert lines[4] == "North-South complete a natural canasta of K (contract: clean 1/2, dirty 0/2, wild 0/1)"
    assert lines[5].endswith("(contract: clean 0/2, dirty 1/2, wild 0/1)")
    assert lines[6] == "North runs into the foot: the whole hand melded, picks up the foot (11 cards) and plays on"
    assert lines[7] == ("East walks into the foot: the last card discarded, picks up the foot (11 cards) to play "
                        "from it next turn")
    pony = Words.for_rules(load_rules("ponytail", {}))
    assert pony.describe("pony_pickup", {"seat": 0, "team": 0, "turn": 3, "cards": 13}).text == (
        "North picks up the pony (13 cards)")
    assert pony.describe("canasta", {"seat": 0, "team": 0, "rank": "K", "kind": "NATURAL",
                                     "upgraded_from": None}).text == "North-South complete a natural canasta of K"


def test_the_replay_checks_the_new_lines(tmp_path: Path) -> None:
    """A Hand and Foot trace replays (its grabs and buried upcard are steps); a buried card the rules do not reject,
    grabs whose exactness disagrees with their counts, or a pickup without its walking/running are refused in one
    line naming the trace line."""
    trace = tmp_path / "hf.jsonl"
    result = CliRunner().invoke(main, ["play", "--variant", "handfoot", "--seed", "26", "--rule", "max_hands=1",
                                       "--trace", str(trace)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in trace.read_text("utf-8").splitlines()]
    game = replay(events)
    kinds = [f.kind for f in game.frames]
    assert kinds.count("self_deal") == 1 and kinds.count("upcard_buried") == 1

    def refused(change: Callable[[dict[str, Any]], bool]) -> str:
        evs = copy.deepcopy(events)
        assert any(change(ev) for ev in evs)
        with pytest.raises(ReplayError) as err:
            replay(evs)
        return str(err.value)

    def bury_k(ev: dict[str, Any]) -> bool:
        if ev["event"] == "upcard_buried":
            ev["card"] = "K"
            return True
        return False

    def exact_all(ev: dict[str, Any]) -> bool:
        if ev["event"] == "self_deal":
            ev["counts"] = [22] * 4
            return True
        return False

    def no_way(ev: dict[str, Any]) -> bool:
        return ev["event"] == "pony_pickup" and ev.pop("into_foot", None) is not None

    assert "buries a K upcard, which the rules do not reject" in refused(bury_k)
    assert "its self_deal line: exact[0]: the trace says false, the rules give true" in refused(exact_all)
    assert "its pony_pickup line: into_foot: the trace says null" in refused(no_way)
