"""Metrics and options added for the headline studies (results/studies/): the cut model's expected frequency next
to the measured one, how often the exact cut decides a game (gross and net), pony pickup timing by strategy and
by partner order, and ``balance --strategy VARIANT=NAME,...`` (each variant with its own strategy).

Known answers: in Ponytail with ``cut_sigma = 0`` every cut is exact and the cutter's team alternates over the 4
deals, so both teams get the same exact-cut points and the net metric never finds a decided game; the pony
metrics agree with the per-seat columns of the deals table computed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli, error_line

from simcli import stats
from simcli.commands.balance import parse_variant_strategies
from simcli.runs import results


@pytest.fixture(scope="module")
def cut_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("cut") / "sweep"
    res = cli("sweep", "--variant", "ponytail", "--rule", "cut_sigma=0,4", "--games", 8, "--seed", 3, "--out", out,
              "--metric", "exact_cut,exact_cut_decided_game,exact_cut_decided_net", "--jobs", 1, "--format", "json")
    return out, json.loads(res.stdout)


@pytest.fixture(scope="module")
def pony_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pony") / "run"
    cli("run", "--variant", "ponytail", "--games", 6, "--seed", 2, "--strategies", "ponytail,greedy,ponytail,greedy",
        "--rotate-seats", "--rule", "pony_unlock=OWN_FIRST_CANASTA", "--jobs", 1, "--out", out, "--quiet")
    return out


# ----------------------------------------------------------------------------------------- exact cut
def test_sweep_states_the_cut_model_next_to_the_measured_frequency(cut_sweep: tuple[Path, dict[str, Any]]) -> None:
    out, doc = cut_sweep
    rows = {(r["cut_sigma"], r["metric"]): r for r in doc["rows"]}
    assert rows[("0", "exact_cut")]["expected"] == 1.0 and rows[("0", "exact_cut")]["value"] == 1.0
    assert rows[("4", "exact_cut")]["expected"] == pytest.approx(stats.cut_exact_probability(4.0))
    assert rows[("4", "exact_cut_decided_game")]["expected"] is None
    md = (out / "sweep.md").read_text()
    assert "| 95% CI | model |" in md and "| 100.0% | [" in md
    csv = pd.read_csv(out / "sweep.csv")
    assert "expected" in csv.columns
    # a metric without a model leaves the column out of the text table
    table = cli("sweep", "--variant", "ponytail", "--rule", "cut_sigma=0,4", "--games", 8, "--seed", 3, "--out", out,
                "--metric", "deals", "--jobs", 1).stdout
    assert "model" not in table


def test_exact_cut_decided_metrics(cut_sweep: tuple[Path, dict[str, Any]]) -> None:
    out, doc = cut_sweep
    rows = {(r["cut_sigma"], r["metric"]): r for r in doc["rows"]}
    for sigma in ("0", "4"):
        run = results.load(out / f"cut_sigma={sigma}")
        report = json.loads(cli("report", out / f"cut_sigma={sigma}", "--format", "json").stdout)
        gross = next(r for r in report["rows"] if r["metric"] == "exact_cut_decided_game")
        assert (rows[(sigma, "exact_cut_decided_game")]["k"], rows[(sigma, "exact_cut_decided_game")]["n"]) == (
            gross["k"], gross["n"])
        # by hand: totals without each team's exact-cut points
        pts = run.deals.groupby(["game_index", "team"])["score_exact_cut"].sum().unstack()
        g = run.games.set_index("game_index")
        g = g[g["winner_team"] >= 0]
        without = g[["score_team_0", "score_team_1"]].to_numpy(float) - pts.loc[g.index].to_numpy(float)
        w = g["winner_team"].to_numpy()
        net = without[np.arange(len(g)), w] < without[np.arange(len(g)), 1 - w]
        assert rows[(sigma, "exact_cut_decided_net")]["k"] == int(net.sum())
    # sigma 0: every cut exact, the cutter's team alternates over the 4 deals, so the net points are 0
    assert rows[("0", "exact_cut_decided_net")]["k"] == 0
    run0 = results.load(out / "cut_sigma=0")
    assert (run0.deals.groupby(["game_index", "team"])["score_exact_cut"].sum() == 200).all()


# ----------------------------------------------------------------------------------------- pony pickup
def test_pony_metrics_by_strategy_and_partner_order(pony_run: Path) -> None:
    run = results.load(pony_run)
    seats = stats.pony_seat_deals(run)
    assert len(seats) == len(run.deals) // 2 * 4  # every deal x seat
    one = lambda name: stats.summarize(run, stats.metric(name))  # noqa: E731
    picked = seats[seats["turn"] >= 0]
    assert one("pony_pickup")["n"] == len(picked)
    assert one("pony_pickup:ponytail")["n"] + one("pony_pickup:greedy")["n"] == len(picked)
    mine = picked[picked["strategy"] == "ponytail"]
    assert one("pony_pickup:ponytail")["value"] == pytest.approx(mine["turn"].mean())
    # the seat's strategy is the one of its game (seats swap strategies in the twin)
    games = run.games.set_index(["game_index", "rotation"])
    for r in seats.sample(20, random_state=0).to_dict("records"):
        assert r["strategy"] == games.loc[(r["game_index"], r["rotation"]), f"strategy_seat_{r['seat']}"]
    never = one("pony_never")
    assert never["k"] == int((seats["turn"] < 0).sum()) and never["n"] == len(seats)
    assert never["n_units"] == 6 and never["method"] == "wilson-cluster"  # clustered by game index
    # partner order, by hand
    team = picked.groupby(["game_index", "rotation", "deal_index", "team"])["turn"]
    first, second = team.min(), team.max()[team.size() == 2]
    assert one("pony_pickup_first")["value"] == pytest.approx(first.mean())
    assert one("pony_pickup_first")["n"] == len(first)
    assert one("pony_pickup_second")["value"] == pytest.approx(second.mean())
    assert one("pony_pickup_gap")["value"] == pytest.approx((second - first.loc[second.index]).mean())
    assert one("pony_pickup_gap")["ci_low"] >= 0


def test_pony_metrics_in_report_and_errors(pony_run: Path, tmp_path: Path) -> None:
    doc = json.loads(cli("report", pony_run, "--metric", "pony_pickup:ponytail,pony_never:greedy,pony_pickup_gap",
                         "--format", "json").stdout)
    chosen = {r["metric"]: r for r in doc["rows"] if r["section"] == "metrics"}
    assert set(chosen) == {"pony_pickup:ponytail", "pony_never:greedy", "pony_pickup_gap"}
    assert "strategy 'mc' is not in the run" in error_line("report", pony_run, "--metric", "pony_pickup:mc")
    cli("plot", pony_run, "--metric", "pony_pickup:greedy", "--kind", "ecdf", "--out", tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0
    assert stats.split_metric_names("pony_pickup:mc:samples=4,depth=1,deals") == ["pony_pickup:mc:samples=4,depth=1",
                                                                               "deals"]
    classic = tmp_path / "classic"
    cli("run", "--games", 2, "--seed", 1, "--jobs", 1, "--out", classic, "--quiet")
    assert "no pony_pickup_turn_seat_* columns" in error_line("report", classic, "--metric", "pony_pickup_first")


# ----------------------------------------------------------------------------------------- balance
def test_parse_variant_strategies() -> None:
    both = ["classic", "ponytail"]
    assert parse_variant_strategies("greedy", both) == {"classic": "greedy", "ponytail": "greedy"}
    assert parse_variant_strategies("mc:samples=4,depth=1", both) == {"classic": "mc:samples=4,depth=1",
                                                                      "ponytail": "mc:samples=4,depth=1"}
    assert parse_variant_strategies("classic=mc:samples=4,depth=1,ponytail=ponytail", both) == {
        "classic": "mc:samples=4,depth=1", "ponytail": "ponytail"}
    for bad, words in [("classic=greedy", "no strategy for ponytail"),
                       ("classic=greedy,classic=random,ponytail=greedy", "names variant 'classic' twice"),
                       ("classic=greedy,spanish=spanish,ponytail=greedy", "'spanish=spanish' is not VARIANT=NAME"),
                       ("classic=greedy,depth=1,ponytail=greedy", "'depth=1' is not VARIANT=NAME"),
                       ("greedy,random", "takes one name")]:
        with pytest.raises(click.ClickException, match=words):
            parse_variant_strategies(bad, both)


def test_balance_with_a_strategy_per_variant(tmp_path: Path) -> None:
    out, save = tmp_path / "bal", tmp_path / "studies" / "four"
    res = cli("balance", "--variants", "classic,ponytail", "--strategy", "classic=greedy,ponytail=ponytail",
              "--games", 4, "--seed", 1, "--out", out, "--save", save, "--jobs", 1)
    assert "strategy" in res.stdout.splitlines()[2]
    assert (results.load(out / "classic").games["strategy_seat_0"] == "greedy").all()
    assert (results.load(out / "ponytail").games["strategy_seat_3"] == "ponytail").all()
    doc = json.loads(Path(f"{save}.json").read_text())
    assert doc["strategies"] == {"classic": "greedy", "ponytail": "ponytail"}
    assert {(r["variant"], r["strategy"]) for r in doc["rows"]} == {("classic", "greedy"), ("ponytail", "ponytail")}
    assert {r["metric"] for r in doc["rows"]} == set(stats.BALANCE_METRICS)
    went = {r["variant"]: r for r in doc["rows"] if r["metric"] == "went_out"}
    stock = {r["variant"]: r for r in doc["rows"] if r["metric"] == "stock_out"}
    for v in ("classic", "ponytail"):  # a deal ends by going out or on the stock
        assert went[v]["n"] == stock[v]["n"] and went[v]["k"] + stock[v]["k"] == went[v]["n"]
    md = Path(f"{save}.md").read_text()
    assert "each with its own strategy in every seat (classic: greedy, ponytail: ponytail)" in md
    assert ("Regenerate: `simcli balance --variants classic,ponytail --games 4 --strategy "
            "classic=greedy,ponytail=ponytail --seed 1") in md
    assert "| variant | strategy | games | deals |" in md
    assert "no strategy for ponytail" in error_line("balance", "--variants", "classic,ponytail", "--strategy",
                                                    "classic=greedy", "--out", tmp_path / "e")
