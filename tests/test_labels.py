"""Headers and plot titles say which name is the variant and which the strategies; default sweep metrics fit the
variant; a CI plot names its metric once; an axis label does not repeat its parenthesis (issue 21, item 8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli

from simcli import stats
from simcli.commands import plot as plot_cmd
from simcli.reporting.figures import axis_label, seats_text


def test_sweep_header_labels_variant_and_strategies(tmp_path: Path) -> None:
    res = cli("sweep", "--variant", "ponytail", "--rule", "pony_size=11,13", "--games", 2, "--jobs", 1, "--out",
              tmp_path / "s", "--strategies", "ponytail", "--set", "max_hands=1")
    first = res.stdout.splitlines()[0]
    assert first == "Sweep of pony_size over 11, 13: variant ponytail; strategies ponytail x4; 2 games per value, " \
                    "seed 0; fixed max_hands=1"


def test_ponytail_sweep_defaults_to_turns_not_the_constant_deal_count(tmp_path: Path) -> None:
    doc = json.loads(cli("sweep", "--variant", "ponytail", "--rule", "pony_size=11,13", "--games", 2, "--jobs", 1,
                         "--out", tmp_path / "p", "--json").stdout)
    assert {r["metric"] for r in doc["rows"]} == {"first_player_win", "margin", "deal_turns", "deal_score"}
    doc = json.loads(cli("sweep", "--rule", "going_out_bonus=100,300", "--games", 2, "--jobs", 1, "--out",
                         tmp_path / "c", "--json", "--set", "max_hands=null").stdout)
    assert {r["metric"] for r in doc["rows"]} == {"first_player_win", "margin", "deals", "deal_score"}


def test_axis_labels_and_seat_text() -> None:
    assert axis_label(stats.metric("pony_pickup")) == "pony pickup turn (when picked up; turn)"
    assert axis_label(stats.metric("deals"), summary=True) == "mean deals per game (deals)"
    assert axis_label(stats.metric("first_player_win")) == "first-player team win rate (%)"
    assert seats_text(["ponytail"] * 4) == "ponytail x4"
    assert seats_text(["ponytail", "greedy", "ponytail", "greedy"]) == "ponytail, greedy, ponytail, greedy"


def test_ci_plot_names_its_metric_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "r"
    cli("run", "--games", 4, "--jobs", 1, "--out", run, "-q", "--rule", "max_hands=1")
    figures: list[Any] = []
    monkeypatch.setattr(plot_cmd, "save_figure", lambda fig, out: figures.append(fig))
    cli("plot", run, "--metric", "first_player_win", "--kind", "ci", "--out", tmp_path / "ci.png")
    fig = figures[0]
    label = stats.metric("first_player_win").label
    assert fig.get_suptitle().startswith(f"{label}: variant classic; strategies greedy x4; 4 games")
    assert label not in fig.axes[0].get_title()
