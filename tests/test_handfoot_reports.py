"""Hand and Foot in the run records and reports (issue 48, item 3): the deals table's ``foot_entry_seat_*`` columns
agree with the trace of the same games, ``simcli report`` has its Hand and Foot section (contracts met, running and
walking into the foot) only for such runs, and ``simcli balance`` and ``report`` work at 2, 3, 5 and 6 players, in
teams of 1, 2 and 3, for a game without a target (``game_target = null``: the game lasts ``max_hands`` deals)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from simcli.cli import main


def _ok(args: list[str]) -> str:
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hf") / "run"
    _ok(["run", "--variant", "handfoot", "--games", "4", "--seed", "3", "-j", "1", "--out", str(out), "-q"])
    return out


def test_foot_entries_agree_with_the_trace(run: Path, tmp_path: Path) -> None:
    """Each seat's foot entry (on its team's rows; null on the others) is the trace's ``into_foot`` of its
    ``pony_pickup``, ``never`` exactly when the pickup turn is -1; the contract met is ``required_set_turn`` >= 0."""
    deals = pd.read_parquet(run / "deals.parquet")
    game = deals[(deals["game_index"] == 0) & (deals["rotation"] == 0)]
    trace = tmp_path / "g0.jsonl"
    _ok(["play", "--variant", "handfoot", "--seed", "3", "--game-index", "0", "--trace", str(trace)])
    events = [json.loads(line) for line in trace.read_text("utf-8").splitlines()]
    deal = -1
    expected: dict[tuple[int, int], str] = {}
    for ev in events:
        if ev["event"] == "deal":
            deal = ev["deal_index"]
        elif ev["event"] == "pony_pickup":
            expected[(deal, ev["seat"])] = ev["into_foot"]
    seen = set()
    for _, row in game.iterrows():
        for seat in range(4):
            value = row[f"foot_entry_seat_{seat}"]
            if seat % 2 != row["team"]:
                assert value is None or pd.isna(value)
                continue
            want = expected.get((row["deal_index"], seat), "never")
            assert value == want, (row["deal_index"], seat)
            assert (value == "never") == (row[f"pony_pickup_turn_seat_{seat}"] == -1)
            seen.add(value)
    assert {"walking", "never"} <= seen
    scored = [ev for ev in events if ev["event"] == "deal_scored"]
    assert len(scored) == game["deal_index"].nunique() == 4  # no target: max_hands deals


def test_the_report_has_a_hand_and_foot_section(run: Path, tmp_path: Path) -> None:
    text = _ok(["report", str(run), "--format", "csv"])
    rows = pd.read_csv(io.StringIO(text))
    hf = rows[rows["section"] == "handfoot"]
    assert set(hf["metric"]) == {"contract_met", "contract_met_turn", "ran_into_foot", "walked_into_foot"}
    deals = pd.read_parquet(run / "deals.parquet")
    met = hf[(hf["metric"] == "contract_met") & (hf["group"] == "all")].iloc[0]
    assert (met["n"], met["k"]) == (len(deals), int((deals["required_set_turn"] >= 0).sum()))
    other = tmp_path / "pony"
    _ok(["run", "--variant", "ponytail", "--games", "2", "--seed", "3", "-j", "1", "--out", str(other), "-q"])
    assert "handfoot" not in set(pd.read_csv(io.StringIO(
        _ok(["report", str(other), "--format", "csv"])))["section"])
    assert not [c for c in pd.read_parquet(other / "deals.parquet").columns if c.startswith("foot_entry")]


@pytest.mark.parametrize("rules", [["num_players=2"], ["num_players=3"], ["num_players=5"], ["num_players=6"],
                                   ["num_players=6", "team_size=2"]])
def test_balance_and_report_at_every_table_size(rules: list[str], tmp_path: Path) -> None:
    """Balance and the seat report at 2, 3 and 5 players alone, 6 in two teams of 3 and three teams of 2."""
    args = [x for r in rules for x in ("--rule", r)]
    out = _ok(["balance", "--variants", "handfoot", "-n", "4", "--seed", "1", "-j", "1", "--out", str(tmp_path),
               "-q", "--format", "csv", *args])
    table = pd.read_csv(io.StringIO(out))
    n = dict(zip(table["metric"], table["n"], strict=True))
    assert n["first_player_win"] == 4 and n["stock_out"] == n["went_out"] == 16  # 4 deals a game
    assert not [m for m in table["metric"] if "target" in m]
    run = tmp_path / "handfoot"
    report = pd.read_csv(io.StringIO(_ok(["report", str(run), "--format", "csv", "--by", "seat"])))
    players = {"num_players=2": 2, "num_players=3": 3, "num_players=5": 5}.get(rules[0], 6)
    pony = report[(report["section"] == "pony") & (report["metric"] == "pony_never_picked_up")]
    assert len(pony) == players + 1  # each seat and all seats
    assert "contract_met" in set(report["metric"])
