"""Following a game (issue 33): the replay of a trace, its events in words, the page, `simcli replay`, `play --narrate`
and `play --html`.

The replay is checked on every golden playthrough (every variant, 2 to 6 players): at every step all the cards of the
pack are somewhere on the table, and the end of each deal shows the hands the trace's ``deal_scored`` lists. A trace
corrupted in one place is refused with the line named, never drawn.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simcli.cli import main
from simcli.viewer.page import page_data, page_html
from simcli.viewer.replay import ReplayError, parse_trace, read_trace, replay
from simcli.viewer.words import SUMMARY_LEGEND, Words, team_name

DATA = Path(__file__).parent / "data"
PLAYTHROUGHS = sorted(DATA.glob("playthrough-*.jsonl"))


def _pack(rules: Any) -> int:
    return rules.decks * (52 + rules.jokers_per_deck)


@pytest.mark.parametrize("path", PLAYTHROUGHS, ids=[p.stem.removeprefix("playthrough-") for p in PLAYTHROUGHS])
def test_every_playthrough_replays_with_every_card_on_the_table(path: Path) -> None:
    events = read_trace(path)
    game = replay(events)
    assert game.totals == events[-1]["totals"] and game.winner_team == events[-1]["winner_team"]
    assert [f.kind for f in game.frames].count("deal") == events[-1]["deals"]
    by_seq = {ev["seq"]: ev for ev in events}
    pack = _pack(game.rules)
    for f in game.frames:
        s = f.state
        on_table = (sum(s["sizes"]) + s["pile"]["size"] + s["stock"] + sum(s["r3"]) + sum(s.get("b3", []))
                    + sum(m["n"] + m["t"] + m["j"] for team in s["melds"] for m in team)
                    + sum(s.get("ponies", [])) + sum(s.get("wings", [])) + sum(s.get("wingPending", []))
                    + s.get("wingsVoid", 0))
        assert on_table == pack, f"seq {f.seq} ({f.kind}): {on_table} cards of {pack}"
        assert s["sizes"] == [len(h.split()) for h in s["hands"]]
        if f.kind == "deal_scored":
            ev = by_seq[f.seq]
            for t, team in enumerate(ev["teams"]):
                for k, hand in enumerate(team["hands"]):
                    assert sorted(s["hands"][t + k * ev_teams(events)].split()) == sorted(hand.split())
            assert f.deal_scores == [team["total"] for team in ev["teams"]] and f.score


def ev_teams(events: list[dict[str, Any]]) -> int:
    return int(events[0]["n_teams"])


# ---------------------------------------------------------------------------------------------- refused traces
def _first(events: list[dict[str, Any]], event: str, **match: Any) -> dict[str, Any]:
    return next(e for e in events if e["event"] == event and all(e.get(k) == v for k, v in match.items()))


def _score(events: list[dict[str, Any]]) -> None:
    team = _first(events, "deal_scored")["teams"][0]
    team["breakdown"]["melded"] += 5
    team["total"] += 5


def _drawn(events: list[dict[str, Any]]) -> None:
    draw = next(e for e in events if e["event"] == "draw" and e["cards"])
    draw["cards"][0] = "K" if draw["cards"][0] != "K" else "Q"


def _final_hand(events: list[dict[str, Any]]) -> None:
    team = _first(events, "deal_scored")["teams"][1]
    team["hands"][0] = (team["hands"][0] + " 4").strip()


def _discard(events: list[dict[str, Any]]) -> None:  # a decision the rules refuse: a card not in the hand
    decision = _first(events, "decision", kind="discard")
    decision["value"] = "R3"


def _totals(events: list[dict[str, Any]]) -> None:
    _first(events, "totals")["totals"][0] += 100


def _pile(events: list[dict[str, Any]]) -> None:
    _first(events, "discard")["pile_size"] += 1


def _cut_short(events: list[dict[str, Any]]) -> None:
    del events[-1]


def _deck(events: list[dict[str, Any]]) -> None:
    deck = _first(events, "deal")["deck"]
    i = next(i for i in range(1, len(deck)) if deck[i] != deck[0])
    deck[0], deck[i] = deck[i], deck[0]


MUTATIONS = {"score": _score, "drawn": _drawn, "final_hand": _final_hand, "discard": _discard, "totals": _totals,
             "pile": _pile, "cut_short": _cut_short, "deck": _deck}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_a_trace_that_disagrees_with_itself_is_refused(mutation: str) -> None:
    events = read_trace(DATA / "playthrough-spanish-trios.jsonl")
    replay(events)  # the good trace replays
    MUTATIONS[mutation](events)
    with pytest.raises(ReplayError) as info:
        replay(events)
    print(mutation, "->", info.value)
    assert "trace" in str(info.value)


def test_unreadable_traces_are_refused(tmp_path: Path) -> None:
    header = (DATA / "playthrough-classic-greedy.jsonl").read_text("utf-8").splitlines()[0]
    with pytest.raises(ReplayError, match="line 2: not JSON"):
        parse_trace([header, "{oops"])
    with pytest.raises(ReplayError, match="line 1: a trace_header line: no key 'variant'"):
        parse_trace(['{"event":"trace_header","trace_version":2,"seq":0}'])
    with pytest.raises(ReplayError, match="trace_header"):
        parse_trace(['{"event":"game_start"}'])
    with pytest.raises(ReplayError, match="version 1"):
        parse_trace(['{"event":"trace_header","trace_version":1}'])
    with pytest.raises(ReplayError, match="cannot read"):
        read_trace(tmp_path / "missing.jsonl")


# ---------------------------------------------------------------------------------------------- words
def test_the_events_in_words() -> None:
    w = Words(4, 2)
    w.describe("discard", {"seat": 3, "card": "K", "pile_size": 12, "frozen": False})
    take = {"seat": 0, "team": 0, "top": "K", "size": 12, "meld": {"rank": "K", "naturals": 2, "twos": 0, "jokers": 0},
            "extra": []}
    assert w.describe("take_pile", take) == ("North takes the pile of 12 cards with K K on the K discard",) * 2
    draw = w.describe("draw", {"seat": 1, "cards": ["7", "JK"], "stock_left": 40})
    assert draw is not None and draw.text.startswith("East draws a 7 and a joker") and "7" not in draw.public.split()
    assert draw.public.startswith("East draws 2 cards")
    assert team_name(0, 6, 2) == "Seats 0+2+4" and team_name(1, 3, 3) == "Seat 1" and team_name(1, 4, 2) == "East-West"
    six = Words(6, 3)
    cases = {
        ("canasta", (("seat", 3), ("team", 0), ("rank", "9"), ("kind", "NATURAL"), ("upgraded_from", None),
                     ("hidden", True))): "Seat 3 lays a hidden natural canasta of 9 from the hand",
        ("special_hand", (("seat", 2), ("team", 2), ("kind", "STRAIGHT"), ("turn", 1),
                          ("cards", "JK 2 B3 4 5 6 7 8 9 10 J Q K A"))): "Seat 2 lays a special hand, a straight",
        ("wing", (("seat", 4), ("team", 1), ("cards", 4), ("turn", 3))): "Seat 4 opens first for the team and wins the "
                                                                         "4-card wing",
        ("pony_pickup", (("seat", 5), ("team", 2), ("turn", 9), ("cards", 13))): "Seat 5 picks up the pony (13 cards)",
        ("going_out", (("seat", 1), ("team", 1), ("concealed", True), ("turn", 2), ("terremoto", True))):
            "Seat 1 goes out (concealed, a terremoto)",
        ("pile_pick", (("dealer", 0), ("count", 7), ("target", 7), ("exact", True), ("bonus_team", 0),
                       ("premiado", True))): "Seat 0 picks 7 cards for the initial pile: exact! A bonus for Seats 0+3",
        ("cut", (("cutter", 2), ("count", 91), ("target", 91), ("exact", True), ("bonus_team", None))):
            "Seat 2 cuts 91 cards: exact!",
    }
    for (kind, data), start in cases.items():
        line = six.describe(kind, dict(data))
        assert line is not None and line.text.startswith(start), (kind, line)


@pytest.mark.parametrize("path", PLAYTHROUGHS[::3],
                         ids=[p.stem.removeprefix("playthrough-") for p in PLAYTHROUGHS[::3]])
def test_every_event_is_said(path: Path) -> None:
    events = read_trace(path)
    words = Words.from_header(events[0])
    for ev in events[1:]:
        line = words.describe(ev["event"], {k: v for k, v in ev.items() if k not in ("seq", "event")})
        if ev["event"] in ("game_start", "decision"):
            continue
        assert line is not None and line.text and "{" not in line.text and "None" not in line.text, ev
        if ev["event"] == "draw" and ev["cards"]:
            assert re.search(r"draws (a card|\d+ cards) ", line.public), line.public  # counted, never named


# ---------------------------------------------------------------------------------------------- the page
def test_the_page_is_self_contained() -> None:
    game = replay(read_trace(DATA / "playthrough-americana-draw2.jsonl"))
    page = page_html(game)
    assert not re.search(r"https?://|<link rel=\"stylesheet\"|<script src|@import|url\(", page)
    data = json.loads(page.split('<script type="application/json" id="game-data">')[1].split("</script>")[0])
    assert data == json.loads(json.dumps(page_data(game)))
    assert len(data["frames"]) == len(game.frames) and data["final"]["totals"] == game.totals
    assert any("candidates" in note for note in data["notes"])


def test_replay_command_and_play_html_write_the_same_page(tmp_path: Path) -> None:
    trace, a, b = tmp_path / "t.jsonl", tmp_path / "a.html", tmp_path / "b.html"
    args = ["play", "--variant", "ponytail", "--seed", "5", "--rule", "max_hands=1"]
    result = CliRunner().invoke(main, [*args, "--trace", str(trace), "--html", str(a)])
    assert result.exit_code == 0, result.output
    assert f"replay page written to {a}" in result.output
    result = CliRunner().invoke(main, ["replay", str(trace), "--out", str(b)])
    assert result.exit_code == 0 and "wrote" in result.output, result.output
    assert a.read_bytes() == b.read_bytes()


def test_replay_command_refuses_a_bad_trace(tmp_path: Path) -> None:
    events = read_trace(DATA / "playthrough-classic-mc.jsonl")
    _score(events)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(bad), "--out", str(tmp_path / "x.html")])
    assert result.exit_code == 1 and "disagrees with its replay at trace line" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "x.html").exists()


# ---------------------------------------------------------------------------------------------- the play-by-play
@pytest.mark.parametrize(("args", "says"), [
    (["--variant", "ponytail", "--seed", "3"], ["West cuts 53 cards (61 would have been exact)",
                                                 "grabs 52 cards for the ponies: exact!", "picks up the pony",
                                                 "lays a red three (found in the pony)", "sevens canasta"]),
    (["--variant", "americana", "--seed", "5"], ["wins the 4-card wing", "lays a black three (from the deal)"]),
    (["--variant", "spanish", "--seed", "1"], ["picks 7 cards for the initial pile: exact!", "a tapa, ",
                                               "a stop card"]),
    (["--variant", "classic", "--seed", "1"], ["-- turn 1, ", "takes the pile of ", "Deal 1 ends after "]),
])
def test_narrate_says_each_variants_own_events(args: list[str], says: list[str]) -> None:
    result = CliRunner().invoke(main, ["play", *args, "--rule", "max_hands=1", "--narrate"])
    assert result.exit_code == 0, result.output
    for text in says:
        assert text in result.output, text
    scored = result.output.split("Deal 1 ends after ")[1].splitlines()
    assert scored[1].startswith("   ") and "cards melded" in scored[1]  # the deal's score breakdown


def test_play_help_explains_the_per_deal_line() -> None:
    result = CliRunner().invoke(main, ["play", "--help"])
    text = " ".join(result.output.split())
    for abbreviation, meaning in SUMMARY_LEGEND:
        assert abbreviation in text and " ".join(meaning.split())[:30] in text, abbreviation
    readme = " ".join((Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8").split())
    for key in ("1n/2m", "R3 2", "B3 1", "n natural, m mixed, w wild, s sevens, a aces"):
        assert key in readme, key


HOLDER = """
from simcli.players.loading import load_strategy


class Holder(load_strategy("americana")):
    name = "holder"

    def hold_three(self, view, rank):
        return True
"""


@pytest.mark.parametrize(("args", "kind", "says"), [
    (["--variant", "classic", "--seed", "3", "--strategies", "probe_strategies:AskWhenOut", "--rule",
      "ask_partner_permission=REQUIRED"], "ask_go_out", '"may I go out?"'),
    (["--variant", "americana", "--seed", "2", "--strategies", "{holder}:Holder"], "decision", "keeps a "),
])
def test_asking_partner_and_a_kept_three_replay(tmp_path: Path, args: list[str], kind: str, says: str) -> None:
    holder = tmp_path / "holder.py"
    holder.write_text(HOLDER, encoding="utf-8")
    trace = tmp_path / "t.jsonl"
    args = [a.format(holder=holder) for a in args]
    result = CliRunner().invoke(main, ["play", *args, "--rule", "max_hands=1", "--trace", str(trace)])
    assert result.exit_code == 0, result.output
    game = replay(read_trace(trace))
    assert any(f.kind == kind and says in f.text for f in game.frames)
