"""Probe strategies (``tests/probe_strategies.py``) return malformed or out-of-range decisions from every method:
each is refused with one ``Error:`` line naming strategy, seat, game, seed and turn, in ``play``, ``run`` and
``match``, with and without traces, and a refused decision is never written to a trace as made (issue 22 item 1).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from cli_helpers import error_line
from probe_strategies import PROBES

from simcli.engine.trace import TraceWriter
from simcli.players.loading import parse_strategy_list
from simcli.players.seating import play_game
from simcli.primitives.errors import StrategyError
from simcli.rules.presets import load_rules

TESTS_DIR = Path(__file__).resolve().parent
SEED = 3
#: What a probe's method writes to a trace when its decision is accepted.
DECISION_KIND = {"choose_draw": "draw", "choose_melds": "melds", "choose_discard": "discard",
                 "hold_three": "hold_three"}
#: Probes whose decision is well formed but illegal: the error gives the rule's reason, not the value.
WELL_FORMED = {"DrawIllegalTake", "MeldsIllegal"}
WHERE = re.compile(r"at seat (\d) in game (\d+) \(seed (\d+)\), deal (\d+), turn (\d+): ")


@pytest.fixture(autouse=True)
def on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``probe_strategies:Class`` importable (also in run and match workers, which inherit the path)."""
    monkeypatch.syspath_prepend(str(TESTS_DIR))


def variant_of(probe: str) -> list[str]:
    """Americana for the hold-a-three hook (only Americana asks it), Classic for the rest."""
    return ["--variant", "americana"] if PROBES[probe][0] == "hold_three" else []


def check_line(line: str, probe: str, game: int = 0) -> tuple[int, int]:
    """The error names the probe, its seat, game, seed, deal and turn, and the bad value; returns (seat, turn)."""
    method, bad = PROBES[probe]
    assert f"strategy 'probe_strategies:{probe}'" in line, line
    where = WHERE.search(line)
    assert where is not None, line
    seat, g, seed, _, turn = map(int, where.groups())
    assert (g, seed) == (game, SEED), line
    if probe not in WELL_FORMED:  # a well-formed decision that the rules refuse is named by its reason
        assert repr(bad) in line or method in line, line
    return seat, turn


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_play_refuses_the_bad_decision_in_one_line(probe: str) -> None:
    line = error_line("play", "--seed", SEED, "--strategies", f"probe_strategies:{probe}", *variant_of(probe))
    check_line(line, probe)


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_play_with_trace_refuses_it_and_never_traces_it(probe: str, tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    line = error_line("play", "--seed", SEED, "--strategies", f"probe_strategies:{probe}", *variant_of(probe),
                      "--trace", trace)
    seat, turn = check_line(line, probe)
    assert not trace.exists() and not list(tmp_path.iterdir())  # a failed game writes no trace at all (issue 49)
    # The events the game emitted up to the refusal (what a partial trace held): the refused decision is not one.
    rules = load_rules("americana" if variant_of(probe) else "classic")
    buffer = io.StringIO()
    with pytest.raises(StrategyError):
        play_game(rules, parse_strategy_list(f"probe_strategies:{probe}", rules.num_players, rules.n_teams), SEED,
                  emit=TraceWriter(buffer))
    events = [json.loads(x) for x in buffer.getvalue().splitlines()]
    assert events
    method = PROBES[probe][0]
    deal = [e for e in events if e["event"] == "deal"][-1]["seq"]
    this_turn = [e for e in events if e["seq"] > deal and e.get("turn") == turn]
    kind = DECISION_KIND.get(method)
    if kind is not None:
        assert not [e for e in this_turn if e["event"] == "decision" and e["seat"] == seat and e["kind"] == kind]
    else:  # the ask: no ask_go_out event for a refused question or answer
        assert not [e for e in this_turn if e["event"] == "ask_go_out"]
    if method in ("choose_melds", "choose_discard"):  # the turn got that far: its draw decision is traced
        assert [e for e in this_turn if e["event"] == "decision" and e["seat"] == seat and e["kind"] == "draw"]


@pytest.mark.parametrize("trace_games", [0, 1])
@pytest.mark.parametrize("probe", sorted(PROBES))
def test_run_refuses_it_in_one_line(probe: str, trace_games: int, tmp_path: Path) -> None:
    line = error_line("run", "--games", 1, "--seed", SEED, "--jobs", 1, "-q", "--out", tmp_path / "r",
                      "--strategies", f"probe_strategies:{probe}", *variant_of(probe), "--trace-games", trace_games)
    check_line(line, probe)


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_match_refuses_it_in_one_line(probe: str) -> None:
    line = error_line("match", f"probe_strategies:{probe}", "greedy", *variant_of(probe), "--seed", SEED,
                      "--games", 2, "--jobs", 1)
    assert f"strategy 'probe_strategies:{probe}'" in line and WHERE.search(line), line
