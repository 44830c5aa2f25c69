"""One sign convention (issue 34, item 3): ``compare A B`` reports B - A, the second run minus the first, as
``sweep`` reports value - baseline and a sweep by level effect and interaction (later minus first); every output
names its difference (the table header, CSV column names, a JSON field). ``match`` scores its first side and
says so: its Elo difference is A - B, named in its text and JSON.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from cli_helpers import cli

SHORT = ("--rule", "max_hands=2")


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sweep of the going-out bonus (100 the baseline, 300 the changed value): two runs on the same seed."""
    out = tmp_path_factory.mktemp("signs") / "sweep"
    cli("sweep", "--rule", "going_out_bonus=100,300", "--set", "max_hands=2", "--games", 12, "--seed", 4,
        "--jobs", 1, "--metric", "deals,deal_score", "--out", out)
    return out


def test_compare_and_sweep_give_the_same_difference(swept: Path) -> None:
    base, bonus = swept / "going_out_bonus=100", swept / "going_out_bonus=300"
    doc = json.loads(cli("compare", base, bonus, "--metric", "deals,deal_score", "--format", "json").stdout)
    assert doc["schema"] == "simcli.compare/2" and doc["difference"] == "B - A"
    compared = {r["metric"]: r for r in doc["rows"]}
    sweep = json.loads((swept / "sweep.json").read_text())
    assert sweep["difference"] == "value - baseline"
    effects = {r["metric"]: r for r in sweep["rows"] if r["going_out_bonus"] == "300"}
    for name in ("deals", "deal_score"):
        assert compared[name]["b_minus_a"] == effects[name]["diff"], name
        assert (compared[name]["ci_low"], compared[name]["ci_high"]) == (effects[name]["diff_ci_low"],
                                                                         effects[name]["diff_ci_high"])
    # A higher going-out bonus pays more per deal: positive, in both.
    assert compared["deal_score"]["b_minus_a"] > 0
    assert compared["deal_score"]["b"] - compared["deal_score"]["a"] == pytest.approx(
        compared["deal_score"]["b_minus_a"])


def test_every_compare_format_names_the_difference(swept: Path) -> None:
    base, bonus = swept / "going_out_bonus=100", swept / "going_out_bonus=300"
    text = cli("compare", base, bonus, "--metric", "deals").stdout
    assert "B - A: each metric in run B minus in run A" in text
    header = next(line for line in text.splitlines() if line.startswith("metric "))
    assert header.split()[:6] == ["metric", "n", "A", "B", "B", "-"]
    md = cli("compare", base, bonus, "--metric", "deals", "--format", "markdown").stdout
    assert "| metric | n | A | B | B - A | 95% CI |" in md
    rows = list(csv.DictReader(io.StringIO(cli("compare", base, bonus, "--format", "csv").stdout)))
    assert "b_minus_a" in rows[0] and "diff" not in rows[0]
    # The discordant pairs keep their names: a_only counts the games won in A only.
    win = next(r for r in rows if r["metric"] == "win_team_0")
    assert float(win["b_minus_a"]) == pytest.approx((int(win["b_only"]) - int(win["a_only"])) / int(win["n"]))
    unpaired = json.loads(cli("compare", base, bonus, "--unpaired", "--metric", "margin", "--json").stdout)
    row = unpaired["rows"][0]
    assert row["b_minus_a"] == pytest.approx(row["b"] - row["a"])


def test_sweep_table_header_names_value_minus_baseline(swept: Path) -> None:
    md = (swept / "sweep.md").read_text()
    assert "| going_out_bonus | metric | n | value - baseline | 95% CI |" in md


def test_match_names_whose_elo_it_reports() -> None:
    args = ("match", "greedy", "random", "--games", 8, "--jobs", 1, "--rule", "max_hands=1")
    text = cli(*args).stdout
    assert "Elo difference: " in text and text.split("Elo difference: ")[1].splitlines()[0].endswith(
        "(greedy - random)")
    data = json.loads(cli(*args, "--format", "json").stdout)
    assert data["difference"] == "a - b" and data["score"] > 0.5 and (data["elo"] is None or data["elo"] > 0)
