"""scripts/handfoot_deals.py (issue 48, item 4): contracts met, going out per deal number and the foot pickup turn by
way, checked against counts made by hand from a small synthetic deals table and on a real Hand and Foot run; and
``simcli sweep --rule hand_size+pony_size=...`` (knobs tied to one value), which the packet-size study uses."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from helpers import load_script

from simcli.cli import main

hd = load_script("handfoot_deals")


def _row(game: int, deal: int, team: int, end: str, met: int, feet: dict[int, tuple[str, int]]) -> dict[str, object]:
    row: dict[str, object] = {"game_index": game, "rotation": 0, "deal_index": deal, "team": team, "end_reason": end,
                              "required_set_turn": met, "first_meld_turn": met // 2 if met >= 0 else -1}
    for seat in range(4):
        way, turn = feet.get(seat, (None, None))
        row[f"foot_entry_seat_{seat}"] = way
        row[f"pony_pickup_turn_seat_{seat}"] = turn
    return row


def test_figures_count_what_the_rows_say() -> None:
    """Two games of one deal each (deal 1) and one second deal: every share's k and n, and the pickup turns."""
    rows = [
        _row(0, 0, 0, "went_out", 30, {0: ("running", 20), 2: ("walking", 24)}),
        _row(0, 0, 1, "went_out", -1, {1: ("never", -1), 3: ("walking", 40)}),
        _row(1, 0, 0, "stock_out", -1, {0: ("never", -1), 2: ("never", -1)}),
        _row(1, 0, 1, "stock_out", 50, {1: ("walking", 10), 3: ("never", -1)}),
        _row(1, 1, 0, "went_out", 12, {0: ("running", 8), 2: ("running", 12)}),
        _row(1, 1, 1, "went_out", -1, {1: ("never", -1), 3: ("never", -1)}),
    ]
    t = hd.figures(pd.DataFrame(rows)).set_index(["deal", "way", "metric"])
    assert (t.loc[(1, "", "went_out"), ["k", "n"]] == [1, 2]).all()
    assert (t.loc[(2, "", "went_out"), ["k", "n"]] == [1, 1]).all()
    assert (t.loc[("all", "", "went_out"), ["k", "n"]] == [2, 3]).all()
    assert (t.loc[(1, "", "contract_met"), ["k", "n"]] == [2, 4]).all()
    assert t.loc[(1, "", "contract_met_turn"), "estimate"] == pytest.approx(40.0)
    assert (t.loc[(1, "", "first_meld_turn"), ["estimate", "n"]] == [20.0, 2]).all()  # teams that never opened left out
    assert (t.loc[(1, "running", "foot_running"), ["k", "n"]] == [1, 8]).all()
    assert (t.loc[(1, "walking", "foot_walking"), ["k", "n"]] == [3, 8]).all()
    assert (t.loc[(2, "never", "foot_never"), ["k", "n"]] == [2, 4]).all()
    assert t.loc[("all", "running", "pickup_turn"), "estimate"] == pytest.approx((20 + 8 + 12) / 3)
    assert t.loc[("all", "walking", "q50"), "estimate"] == pytest.approx(24.0)
    assert t.loc[("all", "any", "pickup_turn"), "n"] == 6
    assert t.loc[("all", "", "went_out"), "units"] == 2  # clustered by game


def test_the_script_on_a_run(tmp_path: Path) -> None:
    """On a real run the shares per deal number add up to the run's totals, and the files are written."""
    run = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--variant", "handfoot", "--strategies", "handfoot", "--games", "3",
                                       "--seed", "5", "-j", "1", "--out", str(run), "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    prefix = tmp_path / "study" / "hf"
    assert hd.main([str(run), "--save", str(prefix)]) == 0
    t = pd.read_csv(prefix.with_suffix(".csv"))
    deals = pd.read_parquet(run / "deals.parquet")
    out = t[t["metric"] == "went_out"]
    assert out[out["deal"] != "all"]["k"].sum() == out[out["deal"] == "all"]["k"].iloc[0] == \
        (deals.drop_duplicates(["game_index", "deal_index"])["end_reason"] == "went_out").sum()
    ways = t[(t["section"] == "foot") & (t["deal"] == "all")]
    assert ways["k"].sum() == ways["n"].iloc[0] == 3 * 4 * 4  # games x deals x players
    assert json.loads(prefix.with_suffix(".json").read_text())["rows"]
    assert prefix.with_suffix(".png").stat().st_size > 0


def test_a_run_without_feet_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    CliRunner().invoke(main, ["run", "--variant", "ponytail", "--games", "2", "--seed", "1", "-j", "1", "--out",
                              str(run), "-q"], catch_exceptions=False)
    with pytest.raises(SystemExit, match="no foot_entry_seat_"):
        hd.main([str(run), "--save", str(tmp_path / "x")])


def test_sweep_ties_knobs_to_one_value(tmp_path: Path) -> None:
    """``--rule hand_size+pony_size=11,13``: each run has both knobs at the value; a knob named twice or also fixed
    is refused in one line."""
    out = tmp_path / "sw"
    args = ["sweep", "--variant", "handfoot", "--rule", "hand_size+pony_size=11,13", "--games", "2", "--seed", "1",
            "-j", "1", "--metric", "went_out", "--out", str(out), "-q"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for v in (11, 13):
        rules = json.loads((out / f"hand_size+pony_size={v}" / "run.json").read_text())
        rules = rules.get("rules") or rules["spec"]["rules"]
        assert (int(rules["hand_size"]), int(rules["pony_size"])) == (v, v)
    assert json.loads((out / "sweep.json").read_text())["knob"] == "hand_size+pony_size"
    twice = CliRunner().invoke(main, ["sweep", "--variant", "handfoot", "--rule", "hand_size+hand_size=11,13"])
    assert twice.exit_code != 0 and "named twice" in twice.output
    fixed = CliRunner().invoke(main, ["sweep", "--variant", "handfoot", "--rule", "hand_size+pony_size=11,13",
                                      "--set", "pony_size=9"])
    assert fixed.exit_code != 0 and "both swept (--rule) and fixed (--set)" in fixed.output
