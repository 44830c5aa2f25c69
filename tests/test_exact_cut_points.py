"""Ponytail's exact cut in points (issue 34, item 5): the ``exact_cut_score`` metric (as Spanish's
``exact_pick_score``), and ``report`` showing the net measure ``exact_cut_decided_net`` next to
``exact_cut_decided_game`` (which counts the winner's points only, and overcounts when both teams are paid).

Known answer: with ``cut_sigma = 0`` every cut is exact and the cutter's team alternates over Ponytail's 4 deals,
so each team gets 200 points a game: 50 per team and deal, and the net measure finds no game decided.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_helpers import cli

from simcli import stats
from simcli.runs import results


@pytest.fixture(scope="module")
def cut_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cut-points")
    out = {}
    for name, rules in (("preset", []), ("sigma0", ["--rule", "cut_sigma=0"]), ("rotated", ["--rotate-seats"])):
        strategies = "ponytail,greedy" if name == "rotated" else "ponytail"
        out[name] = root / name
        cli("run", "--variant", "ponytail", "--games", 12, "--seed", 5, "--strategies", strategies, *rules,
            "--jobs", 1, "--quiet", "--out", out[name])
    return out


def _report(run_dir: Path, *args: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(cli("report", run_dir, "--format", "json", *args).stdout)["rows"]
    return rows


def test_exact_cut_score_is_the_mean_of_the_exact_cut_points(cut_runs: dict[str, Path]) -> None:
    for name in ("preset", "sigma0"):
        run = results.load(cut_runs[name])
        s = stats.summarize(run, stats.metric("exact_cut_score"))
        assert (s["n"], s["unit"]) == (len(run.deals), "points")
        assert s["value"] == pytest.approx(run.deals["score_exact_cut"].mean())
    assert stats.summarize(results.load(cut_runs["sigma0"]), stats.metric("exact_cut_score"))["value"] == 50
    # the command line knows it: report --metric and sweep --metric
    row = next(r for r in _report(cut_runs["preset"], "--metric", "exact_cut_score") if r["section"] == "metrics")
    assert row["metric"] == "exact_cut_score"
    assert row["value"] == pytest.approx(results.load(cut_runs["preset"]).deals["score_exact_cut"].mean())


@pytest.mark.parametrize("name", ["preset", "sigma0", "rotated"])
def test_report_shows_the_net_measure_next_to_the_game_one(cut_runs: dict[str, Path], name: str) -> None:
    run = results.load(cut_runs[name])
    rows = [r for r in _report(cut_runs[name]) if r["section"] == "exact_cut"]
    assert [r["metric"] for r in rows] == ["exact_cut", "exact_cut_decided_game", "exact_cut_decided_net"]
    net = rows[2]
    metric = stats.summarize(run, stats.metric("exact_cut_decided_net"))
    assert (net["n"], net["k"], net["method"]) == (metric["n"], metric["k"], metric["method"])
    assert (net["ci_low"], net["ci_high"]) == pytest.approx((metric["ci_low"], metric["ci_high"]))
    # by hand, two teams: the winner's total without its cut points below the loser's without theirs
    pts = run.deals.groupby(["game_index", "rotation", "team"])["score_exact_cut"].sum().unstack()
    g = run.games.set_index(["game_index", "rotation"])
    g = g[g["winner_team"] >= 0]
    without = g[["score_team_0", "score_team_1"]].to_numpy(float) - pts.loc[g.index].to_numpy(float)
    w = g["winner_team"].to_numpy()
    assert net["k"] == int((without[np.arange(len(g)), w] < without[np.arange(len(g)), 1 - w]).sum())
    if name == "sigma0":
        assert net["k"] == 0
    if name == "rotated":
        assert net["method"] == "wilson-cluster" and net["n_units"] == 12
    text = cli("report", cut_runs[name]).stdout
    assert "exact_cut_decided_game" in text and "exact_cut_decided_net" in text
