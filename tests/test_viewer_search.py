"""What search players weighed (issue 33): ``simcli play --search-values`` and the ``search`` trace event.

A short ``mc`` game with the option: every search the ``mc`` seats made has its ``search`` line right after its
decision, choosing that decision; the game is the same as without the option, and the trace without it is the golden
one byte for byte. The replay checks the lines, the page shows the candidates best first with the chosen one marked,
``--narrate`` says them. ``ismcts`` is recorded too, and a recording seat is asked exactly what its strategy is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from simcli.cli import main
from simcli.engine.strategy_base import Strategy
from simcli.engine.trace import EventLog
from simcli.engine.view import PlayerView
from simcli.players.seating import make_strategies, play_game
from simcli.players.seats import Recording, RecordingAsker
from simcli.rules.presets import load_rules
from simcli.viewer.page import page_data
from simcli.viewer.replay import ReplayError, parse_trace, replay
from simcli.viewer.weighed import SearchRecorder, best_first, candidate_words, search_line

DATA = Path(__file__).parent / "data"
#: The golden playthrough classic-mc (scripts/playthroughs.py) without its --trace.
MC_GAME = ["--variant", "classic", "--seed", "8", "--strategies", "mc:samples=2,greedy,mc:samples=2,greedy",
           "--rule", "max_hands=1"]
NAMES = ["mc:samples=2", "greedy", "mc:samples=2", "greedy"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _play(tmp_path: Path, *extra: str) -> list[dict[str, Any]]:
    trace = tmp_path / f"t{len(list(tmp_path.iterdir()))}.jsonl"
    result = CliRunner().invoke(main, ["play", *MC_GAME, "--trace", str(trace), *extra])
    assert result.exit_code == 0, result.output
    return _lines(trace)


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return _play(tmp_path_factory.mktemp("search"), "--search-values")


def test_each_search_follows_its_decision_and_chooses_it(traced: list[dict[str, Any]]) -> None:
    searches = [i for i, ev in enumerate(traced) if ev["event"] == "search"]
    assert len(searches) > 10
    assert [ev["seq"] for ev in traced] == list(range(len(traced)))  # numbered by the writer, in file order
    for i in searches:
        ev, decision = traced[i], traced[i - 1]
        assert decision["event"] == "decision" and decision["seat"] in (0, 2)  # the mc seats
        assert (ev["seat"], ev["turn"], ev["kind"]) == (decision["seat"], decision["turn"], decision["kind"])
        chosen = [c for c in ev["candidates"] if c["chosen"]]
        assert len(chosen) == 1 and chosen[0]["value"] == decision["value"]
        assert len(ev["candidates"]) > 1 and ev["worlds"] == 2
        first = ev["candidates"][0]
        assert first["gain"] == 0.0 and first["gain_se"] is None  # the heuristic's choice, the yardstick
        for c in ev["candidates"]:
            assert c["worlds"] == 2 and isinstance(c["mean"], float) and isinstance(c["se"], float)
            if c is not first:  # gain is the mean over the same worlds of (its margin - the first's)
                assert c["gain"] == pytest.approx(c["mean"] - first["mean"], abs=0.011)


def test_every_search_is_recorded() -> None:
    """As many search lines as the mc seats made searches (``MonteCarlo.searches``), each after a decision."""
    rules = load_rules("classic", {"max_hands": "1"})
    players = make_strategies(NAMES, 8, 0)
    log = EventLog()
    recorder = SearchRecorder(log)
    seated = recorder.seat(players)
    assert [type(p) for p in seated] == [Recording, type(players[1]), Recording, type(players[3])]
    play_game(rules, NAMES, 8, 0, emit=recorder, strategies=seated)
    kinds = [k for k, _ in log.events]
    searched: Any = [p for p in players if hasattr(p, "searches")]
    assert kinds.count("search") == sum(p.searches for p in searched) > 0
    assert all(kinds[i - 1] == "decision" for i, k in enumerate(kinds) if k == "search")


def test_the_game_is_the_same_with_and_without(tmp_path: Path, traced: list[dict[str, Any]]) -> None:
    plain = _play(tmp_path)
    golden = DATA / "playthrough-classic-mc.jsonl"
    assert (tmp_path / "t0.jsonl").read_bytes() == golden.read_bytes()
    assert not any(ev["event"] == "search" for ev in plain)
    def strip(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in ev.items() if k != "seq"} for ev in events if ev["event"] != "search"]
    assert strip(traced) == strip(plain)  # every decision, every event, the totals


def test_the_page_shows_the_candidates_best_first(traced: list[dict[str, Any]]) -> None:
    game = replay(traced)
    data = page_data(game)
    frames = [f for f in data["frames"] if "search" in f]
    searches = [ev for ev in traced if ev["event"] == "search"]
    assert len(frames) == len(searches)
    for frame, ev in zip(frames, searches, strict=True):
        rows = frame["search"]["rows"]
        assert frame["kind"] == "search" and frame["seat"] == ev["seat"] and frame["search"]["worlds"] == 2
        assert sorted(float(r[1]) for r in rows) == sorted(float(f"{c['mean']:.0f}") for c in ev["candidates"])
        assert [float(r[1]) for r in rows] == sorted((float(r[1]) for r in rows), reverse=True)  # best first
        assert [r[6] for r in rows].count(True) == 1 and [r[7] for r in rows].count(True) == 1
        assert frame["text"] == search_line(game.words.seat, ev).text and "(chosen" in frame["text"]
        heuristic = next(r for r in rows if r[7])[0]
        assert heuristic == candidate_words(ev["kind"], ev["candidates"][0]["value"])
    discard = next(f for f in frames if f["search"]["kind"] == "discard")
    assert all(re.fullmatch(r"discard \S+", r[0]) for r in discard["search"]["rows"])
    assert any("--search-values" not in n and "best first" in n for n in data["notes"])
    assert any("--search-values" in n for n in page_data(replay(_strip_searches(traced)))["notes"])


def _strip_searches(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [ev for ev in events if ev["event"] != "search"]


def test_the_replay_refuses_a_search_line_that_is_not_its_decisions(traced: list[dict[str, Any]]) -> None:
    i = next(i for i, ev in enumerate(traced) if ev["event"] == "search" and ev["kind"] == "discard")
    wrong = json.loads(json.dumps(traced))
    other = next(c for c in wrong[i]["candidates"] if not c["chosen"])
    for c in wrong[i]["candidates"]:
        c["chosen"] = c is other
    with pytest.raises(ReplayError, match=rf"trace line {i + 1} .*chosen candidate .* is not the decision"):
        replay(wrong)
    moved = json.loads(json.dumps(traced))
    moved.insert(i + 2, moved.pop(i))  # after the discard event, no longer after its decision
    with pytest.raises(ReplayError, match="must follow the decision it weighed"):
        replay(moved)
    with pytest.raises(ReplayError, match="without a readable 'mean'"):
        replay(parse_trace([json.dumps({k: v if k != "candidates" else [{"value": "4", "chosen": True}]
                                        for k, v in ev.items()}) for ev in traced]))


def test_narrate_says_what_was_weighed() -> None:
    result = CliRunner().invoke(main, ["play", *MC_GAME, "--narrate", "--search-values"])
    assert result.exit_code == 0, result.output
    lines = [x for x in result.output.splitlines() if " weighed " in x]
    assert lines and all(re.match(r"(North|South) weighed \d+ (draws|meld plans|discards) in 2 worlds", x)
                         for x in lines)
    assert all("(chosen" in x for x in lines)
    plain = CliRunner().invoke(main, ["play", *MC_GAME, "--narrate"])
    assert " weighed " not in plain.output
    alone = CliRunner().invoke(main, ["play", *MC_GAME, "--search-values"])
    assert alone.exit_code == 2 and "--trace, --html or --narrate" in alone.output


def test_search_line_is_brief_and_names_the_chosen_one() -> None:
    cands = [{"value": v, "chosen": v == "Q", "worlds": 4, "mean": m, "se": 5.0, "gain": m - 10.0, "gain_se": 1.0}
             for v, m in (("4", 35.0), ("5", 40.0), ("6", 30.0), ("7", 20.0), ("Q", -5.0))]
    data = {"seat": 1, "turn": 3, "kind": "discard", "worlds": 4, "candidates": cands}
    line = search_line(lambda s: f"Seat {s}", data)
    assert line.text == ("Seat 1 weighed 5 discards in 4 worlds (mean deal margin ± standard error): discard 5 +40 ±5;"
                         " discard 4 +35 ±5 (the heuristic's); discard 6 +30 ±5; discard Q -5 ±5 (chosen); 1 more")
    assert line.public == "Seat 1 weighed 5 discards in 4 worlds"  # the candidates would show the hand
    assert search_line(lambda s: f"Seat {s}", {**data, "candidates": best_first(data)}) != line  # order matters
    dropped = dict(cands[1], worlds=2, mean=99.0)  # a race dropped it: it goes last
    assert [c["value"] for c in best_first({**data, "candidates": [cands[0], dropped]})] == ["4", "5"]


def test_ismcts_is_recorded(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    result = CliRunner().invoke(main, ["play", "--seed", "3", "--strategies", "ismcts:iterations=6,greedy",
                                       "--rule", "max_hands=1", "--trace", str(trace), "--search-values"])
    assert result.exit_code == 0, result.output
    events = _lines(trace)
    searches = [ev for ev in events if ev["event"] == "search"]
    assert searches and replay(events).totals == events[-1]["totals"]
    for ev in searches:
        assert ev["worlds"] == 6 and sum(c["worlds"] for c in ev["candidates"]) == 6  # one rollout an iteration
        assert all(c["gain"] is None for c in ev["candidates"])


class _Asker(Strategy):
    name = "asker"

    def ask_to_go_out(self, view: PlayerView) -> bool:
        return True


class _Searcher(_Asker):
    last_search = None


def test_a_recording_seat_is_asked_what_its_strategy_is() -> None:
    """The engine asks "may I go out?" only of a strategy that overrides the hook: so does the recording seat."""
    rng = np.random.default_rng(0)
    plain = type("Plain", (Strategy,), {"last_search": None})(rng)
    seated = SearchRecorder(None).seat([_Searcher(rng), plain, _Asker(rng)])
    assert type(seated[0]) is RecordingAsker and type(seated[1]) is Recording and type(seated[2]) is _Asker
    assert type(seated[1]).ask_to_go_out is Strategy.ask_to_go_out
    assert seated[0].name == "asker" and seated[0].ask_to_go_out(None) is True  # type: ignore[arg-type]
