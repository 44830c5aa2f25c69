"""``simcli report / compare / sweep / plot / balance`` on real small runs, and known answers of the statistics.

The runs are made once per module with :func:`simcli.runs.execute.execute_run` (a few hundred greedy games each,
~10 s in all on 2 cores). Known answers: with one strategy in every seat the teams' win rates fall in each
other's intervals; greedy beats random; a run compared with itself shows no difference; going_out_bonus
100 vs 1000 is detected; a knob that cannot matter in Classic (``canasta_bonus.wild`` without wild melds)
gives identical games; the exact-cut frequency agrees with the cut model 2 Phi(0.5/sigma) - 1.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli, error_line
from pandas.testing import assert_frame_equal

from simcli import stats
from simcli.rules.presets import load_rules
from simcli.runs import results
from simcli.runs.execute import execute_run
from simcli.runs.spec import RunSpec, default_chunk_size

N = 240
SEED = 11
JOBS = min(2, os.cpu_count() or 1)


# ----------------------------------------------------------------------------------------- helpers
def make_run(root: Path, name: str, games: int = N, seed: int = SEED, strategies: str = "greedy",
             rotate: bool = False, **rules: Any) -> Path:
    """Play a run with ``execute_run`` into ``root/name`` and return its folder."""
    rs = load_rules("classic", rules)
    names = strategies.split(",") * (4 if "," not in strategies else 1)
    spec = RunSpec(variant="classic", rules=rs.formatted(), strategies=tuple(names), seed=seed, games=games,
                   rotate_seats=rotate, chunk_size=default_chunk_size(games))
    out = root / name
    execute_run(spec, out, jobs=JOBS, rules_diff={k: str(v) for k, v in rules.items()})
    return out


def report_json(run_dir: Path, by: str = "team") -> dict[str, Any]:
    return json.loads(cli("report", run_dir, "--format", "json", "--by", by).stdout)


def rows(doc: dict[str, Any], metric: str) -> dict[str, dict[str, Any]]:
    """Report/compare rows of one metric, by group (or by metric for compare)."""
    return {r.get("group", r["metric"]): r for r in doc["rows"] if r["metric"] == metric}


def compare_json(a: Path, b: Path, *extra: Any) -> dict[str, dict[str, Any]]:
    doc = json.loads(cli("compare", a, b, "--format", "json", *extra).stdout)
    return {r["metric"]: r for r in doc["rows"]}


def assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


# ------------------------------------------------------------------------------------------- runs
@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("analysis-runs")
    return {
        "base": make_run(root, "base"),
        "wild": make_run(root, "wild", **{"canasta_bonus.wild": 500}),
        "gob1000": make_run(root, "gob1000", going_out_bonus=1000),
        "cut": make_run(root, "cut", exact_cut_bonus=100),
        "cut0": make_run(root, "cut0", games=20, exact_cut_bonus=100, cut_sigma=0),
        "mixed": make_run(root, "mixed", games=30, strategies="greedy,random,greedy,random", rotate=True),
    }


# ------------------------------------------------------------------------------------ known answers
def test_same_strategy_teams_are_within_each_others_intervals(runs: dict[str, Path]) -> None:
    doc = report_json(runs["base"])
    t0, t1 = rows(doc, "win_rate")["team 0 (seats 0,2)"], rows(doc, "win_rate")["team 1 (seats 1,3)"]
    games = results.load(runs["base"]).games
    assert t0["n"] == t1["n"] == N
    assert (t0["k"], t1["k"]) == ((games["winner_team"] == 0).sum(), (games["winner_team"] == 1).sum())
    assert t0["k"] + t1["k"] == N  # no shared wins in Classic
    # The two rates add up to 1, so "each inside the other's interval" would ask |p - 1/2| < half a
    # half-width (a 1-sigma test that fails a third of fair seeds); the fair statement is that each
    # team's 95% interval holds the even split.
    assert t0["ci_low"] <= 0.5 <= t0["ci_high"]
    assert t1["ci_low"] <= 0.5 <= t1["ci_high"]


def test_greedy_beats_random_head_to_head(runs: dict[str, Path]) -> None:
    doc = report_json(runs["mixed"], by="strategy")
    h2h = rows(doc, "head_to_head_win_rate")
    assert h2h["greedy"]["n"] == h2h["random"]["n"] == 60  # 30 games x 2 rotations
    assert h2h["greedy"]["k"] + h2h["random"]["k"] == 60
    assert h2h["greedy"]["ci_low"] > 0.5 > h2h["random"]["ci_high"]
    # Per-team deal figures are split by the team's strategies.
    scores = rows(doc, "deal_score")
    assert set(scores) == {"all", "greedy", "random"} and scores["greedy"]["value"] > scores["random"]["value"]


def test_compare_of_a_run_with_itself_shows_no_difference(runs: dict[str, Path]) -> None:
    metrics = "win_team_0,first_player_win,dealer_win,margin,deals,turns,deal_score,stock_out,red_threes"
    table = compare_json(runs["base"], runs["base"], "--metric", metrics)
    assert len(table) == 9
    for r in table.values():
        assert (r["b_minus_a"], r["p"], r["p_holm"], r["n"]) == (0, 1, 1, N), r
        assert r["ci_low"] <= 0 <= r["ci_high"]
    assert (table["margin"]["ci_low"], table["margin"]["ci_high"]) == (0, 0)
    assert (table["win_team_0"]["a_only"], table["win_team_0"]["b_only"]) == (0, 0)


def test_compare_detects_going_out_bonus(runs: dict[str, Path]) -> None:
    # B - A: the run with the higher bonus second (issue 34: compare reports B - A, as sweep value - baseline).
    table = compare_json(runs["base"], runs["gob1000"], "--metric", "going_out_score,deals,win_team_0")
    gos = table["going_out_score"]
    assert gos["test"] == "paired-t" and gos["n"] == N
    assert gos["p_holm"] < 0.01 and gos["ci_low"] > 0
    assert 700 < gos["b_minus_a"] < 1100  # the bonus alone adds 900 to every going-out score
    assert table["deals"]["b_minus_a"] < 0 and table["deals"]["p_holm"] < 0.01  # a higher bonus ends games sooner
    ps = [r["p"] for r in table.values()]
    assert [r["p_holm"] for r in table.values()] == pytest.approx(stats.holm(ps))


def test_knob_that_cannot_matter_gives_identical_games(runs: dict[str, Path]) -> None:
    a, b = results.load(runs["base"]), results.load(runs["wild"])
    assert a.manifest["rules"]["canasta_bonus.wild"] != b.manifest["rules"]["canasta_bonus.wild"]
    assert a.manifest["rules"]["wild_melds_allowed"] == "false"
    assert_frame_equal(a.games, b.games)
    assert_frame_equal(a.deals, b.deals)
    table = compare_json(runs["base"], runs["wild"], "--metric", ",".join(stats.DEFAULT_COMPARE) + ",stock_out")
    assert all(r["b_minus_a"] == 0 and r["p"] == 1 for r in table.values())
    text = cli("compare", runs["base"], runs["wild"]).stdout
    assert "differences: canasta_bonus.wild: 0 -> 500" in text


def test_exact_cut_frequency_agrees_with_the_cut_model(runs: dict[str, Path]) -> None:
    doc = report_json(runs["cut"])
    cut = rows(doc, "exact_cut")["all deals"]
    deals = results.load(runs["cut"]).deals
    n_deals = len(deals[deals["team"] == 0])
    expected = stats.cut_exact_probability(4.0)
    assert (cut["n"], cut["method"]) == (n_deals, "clopper-pearson")
    assert cut["k"] == int(deals[deals["team"] == 0]["cut_exact"].sum())
    assert cut["expected"] == pytest.approx(0.0995, abs=1e-4)
    assert cut["ci_low"] <= expected <= cut["ci_high"]
    decided = rows(doc, "exact_cut_decided_game")["games with a winner"]
    assert decided["n"] == N and 0 <= decided["k"] < N


def test_exact_cut_with_sigma_zero_is_always_exact(runs: dict[str, Path]) -> None:
    cut = rows(report_json(runs["cut0"]), "exact_cut")["all deals"]
    assert cut["k"] == cut["n"] > 0 and cut["value"] == 1.0 and cut["expected"] == 1.0


def test_no_exact_cut_section_without_a_bonus(runs: dict[str, Path]) -> None:
    doc = report_json(runs["base"])
    assert not [r for r in doc["rows"] if r["section"] == "exact_cut"]
    assert "Exact cut" not in cli("report", runs["base"]).stdout


# ------------------------------------------------------------------------------------------ report
def test_report_formats(runs: dict[str, Path], tmp_path: Path) -> None:
    text = cli("report", runs["base"]).stdout
    for title in ("Win rates by team (n = games)", "Final margins and game length", "How deals end",
                  "Per team and deal"):
        assert title in text
    assert "95% CI" in text and f"{N}" in text
    md = cli("report", runs["base"], "--format", "markdown").stdout
    assert "## Win rates by team" in md and "| metric | group | n | units | k |" in md
    out = tmp_path / "sub" / "report.csv"
    cli("report", runs["base"], "--format", "csv", "--out", out)
    df = pd.read_csv(out)
    assert list(df.columns) == stats.REPORT_COLUMNS
    doc = report_json(runs["base"])
    assert doc["schema"] == "simcli.report/1" and doc["run"]["games_played"] == N and doc["by"] == "team"
    assert len(doc["rows"]) == len(df)


def test_every_report_row_has_n_and_an_interval(runs: dict[str, Path]) -> None:
    for r in report_json(runs["mixed"], by="strategy")["rows"]:
        assert r["n"] > 0, r
        assert r["ci_low"] is not None and r["ci_high"] is not None, r
        assert r["ci_low"] - 1e-9 <= r["value"] <= r["ci_high"] + 1e-9, r
        if r["unit"] == "share":
            assert r["k"] is not None and r["value"] == pytest.approx(r["k"] / r["n"]), r


def test_report_counts_match_the_tables(runs: dict[str, Path]) -> None:
    run = results.load(runs["base"])
    doc = report_json(runs["base"])
    n_deals = len(run.deals) // 2
    assert rows(doc, "stock_out")["all deals"]["n"] == n_deals
    assert rows(doc, "stock_out")["all deals"]["k"] == int(run.deals[run.deals["team"] == 0]["stock_out"].sum())
    assert rows(doc, "deal_score")["all"]["n"] == len(run.deals)
    assert rows(doc, "deal_score")["all"]["value"] == pytest.approx(run.deals["score_total"].mean())
    assert rows(doc, "margin")["all"]["value"] == pytest.approx(run.games["margin"].mean())
    assert rows(doc, "canastas_mixed")["team 1"]["n"] == n_deals
    seat = report_json(runs["base"], by="seat")
    assert rows(seat, "win_rate")["seat 2 (team 0)"]["k"] == int((run.games["winner_team"] == 0).sum())


def test_report_pony_pickup_columns(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = tmp_path / "pony"
    shutil.copytree(runs["base"], run_dir)
    deals = pd.read_parquet(run_dir / "deals.parquet")
    rng = np.random.default_rng(0)
    keys = deals[["game_index", "rotation", "deal_index"]].drop_duplicates()
    for seat in range(4):  # as the Ponytail records write them: on the seat's team's row, NaN on the other
        values = np.where(rng.random(len(keys)) < 0.25, -1, rng.integers(1, 40, len(keys)))
        col = f"pony_pickup_turn_seat_{seat}"
        deals = deals.merge(keys.assign(**{col: values}), how="left")
        deals.loc[deals["team"] != seat % 2, col] = np.nan
    deals.to_parquet(run_dir / "deals.parquet")
    manifest = json.loads((run_dir / "run.json").read_text())
    del manifest["tables"]  # the table was rewritten on purpose: drop its checksum, or report refuses the run
    (run_dir / "run.json").write_text(json.dumps(manifest))
    doc = report_json(run_dir)
    never = rows(doc, "pony_never_picked_up")
    first = deals.groupby(["game_index", "rotation", "deal_index"]).first()
    assert never["seat 0"]["n"] == len(keys) and never["seat 0"]["k"] == int((first["pony_pickup_turn_seat_0"] < 0)
                                                                               .sum())
    assert never["all seats"]["n"] == 4 * len(keys)
    assert rows(doc, "pony_pickup_turn")["seat 3"]["median"] == first.loc[first["pony_pickup_turn_seat_3"] >= 0,
                                                                          "pony_pickup_turn_seat_3"].median()
    assert "Pony pickup" in cli("report", run_dir).stdout
    cli("plot", run_dir, "--metric", "pony_pickup", "--out", tmp_path / "pony.png")
    assert_png(tmp_path / "pony.png")


def test_report_errors(runs: dict[str, Path], tmp_path: Path) -> None:
    # ... and the runs that exist beside it, or in results/runs (tests/test_second_hour.py)
    assert error_line("report", tmp_path / "missing").startswith(f"Error: no run directory at {tmp_path / 'missing'}")
    (tmp_path / "empty").mkdir()
    assert "is not a run directory" in error_line("report", tmp_path / "empty")
    assert "'player' is not one of" in cli("report", runs["base"], "--by", "player", code=2).stderr


# ----------------------------------------------------------------------------------------- compare
def test_compare_table_and_refusals(runs: dict[str, Path], tmp_path: Path) -> None:
    text = cli("compare", runs["gob1000"], runs["base"]).stdout
    assert "paired on (game_index, rotation)" in text and "going_out_bonus: 1000 -> 100" in text
    assert "p (Holm)" in text and "mcnemar-exact" in text
    other = tmp_path / "other-seed"
    shutil.copytree(runs["base"], other)
    manifest = json.loads((other / "run.json").read_text())
    (other / "run.json").write_text(json.dumps({**manifest, "seed": 99}))
    line = error_line("compare", runs["base"], other)
    assert "master seed (11 vs 99)" in line and "--unpaired" in line and "N (games)" not in line
    fewer = tmp_path / "fewer"
    shutil.copytree(runs["base"], fewer)
    (fewer / "run.json").write_text(json.dumps({**manifest, "games": 100}))
    line = error_line("compare", runs["base"], fewer)
    assert "N (games) (240 vs 100)" in line and "master seed" not in line
    unpaired = compare_json(runs["base"], other, "--unpaired")
    assert unpaired["win_team_0"]["test"] == "fisher-exact" and unpaired["margin"]["test"] == "welch-t"
    assert unpaired["margin"]["n_a"] == unpaired["margin"]["n_b"] == N


def test_compare_bootstrap_and_errors(runs: dict[str, Path], tmp_path: Path) -> None:
    args = (runs["base"], runs["gob1000"], "--metric", "margin,deals", "--bootstrap", 400)  # B - A: gob1000 - base
    one = compare_json(*args, "--bootstrap-seed", 3)
    assert one == compare_json(*args, "--bootstrap-seed", 3)
    assert one["deals"]["test"] == "paired-bootstrap" and one["deals"]["ci_high"] < 0
    assert "unknown metric 'nope'; allowed:" in error_line("compare", runs["base"], runs["base"], "--metric", "nope")
    assert "--bootstrap is for paired" in error_line("compare", runs["base"], runs["base"], "--unpaired",
                                                     "--bootstrap", 10)
    assert "no run directory" in error_line("compare", runs["base"], tmp_path / "gone")


# -------------------------------------------------------------------------------------------- plot
@pytest.mark.parametrize("kind", ["hist", "ecdf", "box"])
def test_plot_kinds_overlay_runs(runs: dict[str, Path], tmp_path: Path, kind: str) -> None:
    out = tmp_path / f"margin-{kind}.png"
    res = cli("plot", runs["base"], runs["gob1000"], "--metric", "margin", "--kind", kind, "--out", out)
    assert_png(out)
    assert f"base: n={N}" in res.stdout and f"gob1000: n={N}" in res.stdout


def test_plot_svg_and_deal_level_metrics(runs: dict[str, Path], tmp_path: Path) -> None:
    for metric in ("deal_score", "turns", "deals", "first_meld_turn", "pile_take_max"):
        out = tmp_path / f"{metric}.svg"
        cli("plot", runs["base"], "--metric", metric, "--out", out)
        text = out.read_text()
        assert text.startswith("<?xml") and "<svg" in text
    assert "n=2," in cli("plot", runs["base"], "--metric", "deal_score", "--out", tmp_path / "d.png").stdout


def test_plot_errors(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "x.png"
    assert "unknown metric 'bogus'" in error_line("plot", runs["base"], "--metric", "bogus", "--out", out)
    assert "is a share" in error_line("plot", runs["base"], "--metric", "win_team_0", "--kind", "hist", "--out", out)
    assert "must be a .png or .svg" in error_line("plot", runs["base"], "--metric", "margin", "--out",
                                                  tmp_path / "x.jpg")
    assert "no run directory" in error_line("plot", tmp_path / "none", "--metric", "margin", "--out", out)
    assert "no pony_pickup_turn_seat_" in error_line("plot", runs["base"], "--metric", "pony_pickup", "--out", out)
    assert not out.exists()


# ------------------------------------------------------------------------------------------- sweep
def test_sweep_runs_tables_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ("sweep", "--rule", "going_out_bonus=100,1000", "--games", 24, "--seed", 5, "--out", out,
            "--metric", "going_out_score,deals", "--jobs", JOBS)
    res = cli(*args, "--format", "json")
    doc = json.loads(res.stdout)
    assert doc["schema"] == "simcli.sweep/1" and doc["knob"] == "going_out_bonus" and doc["values"] == ["100", "1000"]
    table = {(r["going_out_bonus"], r["metric"]): r for r in doc["rows"]}
    assert set(table) == {("100", "going_out_score"), ("100", "deals"), ("1000", "going_out_score"),
                          ("1000", "deals")}
    assert table[("1000", "going_out_score")]["ci_low"] > table[("100", "going_out_score")]["ci_high"]
    assert table[("100", "deals")]["n"] == 24
    # each value against the baseline (the first), paired game by game, Holm over values and metrics
    assert doc["baseline"] == "100" and table[("100", "deals")]["diff"] is None
    gain = table[("1000", "going_out_score")]
    assert gain["diff_test"] == "paired-t" and gain["n_pairs"] == 24 and gain["diff_ci_low"] > 0
    later = [table[("1000", m)] for m in ("going_out_score", "deals")]
    assert [r["p_holm"] for r in later] == pytest.approx(stats.holm([r["p"] for r in later]))
    for ext in ("md", "csv", "json"):
        assert (out / f"sweep.{ext}").stat().st_size > 0
    assert_png(out / "sweep.png")
    md = (out / "sweep.md").read_text()
    assert "Regenerate: `simcli sweep --variant classic --rule going_out_bonus=100,1000" in md
    assert "![going_out_bonus sweep](sweep.png)" in md
    a, b = results.load(out / "going_out_bonus=100"), results.load(out / "going_out_bonus=1000")
    assert a.manifest["seed"] == b.manifest["seed"] == 5 and a.manifest["rules"]["going_out_bonus"] == "100"
    assert "paired on" in cli("compare", out / "going_out_bonus=1000", out / "going_out_bonus=100").stdout
    again = cli(*args)  # the finished runs are reused
    assert again.stderr.count("reused the finished run") == 2
    assert "going_out_bonus" in again.stdout and "95% CI" in again.stdout


def test_sweep_fixed_rules_and_errors(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    res = cli("sweep", "--rule", "exact_cut_bonus=0;100", "--set", "cut_sigma=0", "--games", 6, "--seed", 2,
              "--out", out, "--metric", "exact_cut", "--save", tmp_path / "study" / "cut", "--jobs", 1,
              "--format", "csv")
    df = pd.read_csv(pd.io.common.StringIO(res.stdout))
    assert df["value"].tolist() == [1.0, 1.0] and df["method"].tolist() == ["clopper-pearson"] * 2
    assert_png(tmp_path / "study" / "cut.png")
    assert "unknown rule knob 'going_out_bonu'" in error_line("sweep", "--rule", "going_out_bonu=1,2", "--out",
                                                              tmp_path / "e1")
    line = error_line("sweep", "--rule", "going_out_bonus=100,abc", "--games", 4, "--out", tmp_path / "e2")
    assert "bad value 'abc' for rule knob 'going_out_bonus'" in line
    assert not (tmp_path / "e2").exists()  # every value is checked before any game is played
    assert "expected KNOB=V1,V2" in error_line("sweep", "--rule", "going_out_bonus", "--out", tmp_path / "e3")
    assert "unknown metric" in error_line("sweep", "--rule", "going_out_bonus=1,2", "--metric", "x",
                                          "--out", tmp_path / "e4")
    assert "both swept" in error_line("sweep", "--rule", "going_out_bonus=1,2", "--set", "going_out_bonus=3",
                                      "--out", tmp_path / "e5")
    assert "repeated values" in error_line("sweep", "--rule", "going_out_bonus=1,1", "--out", tmp_path / "e6")


def test_sweep_refuses_a_folder_holding_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    cli("sweep", "--rule", "going_out_bonus=100,200", "--games", 5, "--seed", 1, "--out", out, "--jobs", 1)
    line = error_line("sweep", "--rule", "going_out_bonus=100,200", "--games", 6, "--seed", 1, "--out", out)
    assert "going_out_bonus=100" in line and "cannot resume with different settings" in line


# ----------------------------------------------------------------------------------------- balance
def test_balance_table_study_and_plot(tmp_path: Path) -> None:
    out, save = tmp_path / "bal", tmp_path / "studies" / "seat-balance"
    res = cli("balance", "--variants", "classic", "--games", 30, "--seed", 4, "--out", out, "--save", save,
              "--jobs", JOBS)
    assert "first-player team win rate" in res.stdout and "dealer team win rate" in res.stdout
    doc = json.loads(Path(f"{save}.json").read_text())
    assert doc["schema"] == "simcli.balance/1" and doc["variants"] == ["classic"]
    by_metric = {r["metric"]: r for r in doc["rows"]}
    assert set(by_metric) == set(stats.BALANCE_METRICS)
    run = results.load(out / "classic")
    assert (run.games["strategy_seat_0"] == "greedy").all() and run.manifest["seed"] == 4
    fp = by_metric["first_player_win"]
    expected = stats.first_deal_team_wins(run.games, run.deals, "first_player_team")
    assert (fp["n"], fp["k"]) == (30, int(expected.sum()))
    assert by_metric["dealer_win"]["n"] == 30 and by_metric["stock_out"]["n"] == len(run.deals) // 2
    for r in doc["rows"]:
        assert r["ci_low"] <= r["value"] <= r["ci_high"]
    md = Path(f"{save}.md").read_text()
    assert "Regenerate: `simcli balance --variants classic --games 30 --strategy greedy --seed 4" in md
    assert "![seat balance](seat-balance.png)" in md
    assert_png(Path(f"{save}.png"))


def test_balance_errors(tmp_path: Path) -> None:
    assert "unknown variant 'nope'" in error_line("balance", "--variants", "nope", "--out", tmp_path / "b")
    assert "repeats a variant" in error_line("balance", "--variants", "classic,classic", "--out", tmp_path / "b")
    assert "takes one name" in error_line("balance", "--strategy", "greedy,random", "--out", tmp_path / "b")
    assert "unknown strategy" in error_line("balance", "--strategy", "nosuch", "--out", tmp_path / "b").lower()


@pytest.mark.slow
@pytest.mark.parametrize("sigma", [2.0, 8.0])
def test_exact_cut_frequency_follows_the_model_for_other_sigmas(tmp_path: Path, sigma: float) -> None:
    run_dir = make_run(tmp_path, f"cut-{sigma}", games=800, seed=21, exact_cut_bonus=50, cut_sigma=sigma)
    cut = rows(report_json(run_dir), "exact_cut")["all deals"]
    expected = stats.cut_exact_probability(sigma)  # 0.1974 for sigma 2, 0.0498 for sigma 8
    assert cut["expected"] == pytest.approx(expected) and cut["n"] > 3000
    assert cut["ci_low"] <= expected <= cut["ci_high"]


def test_report_spanish_section(tmp_path: Path, runs: dict[str, Path]) -> None:
    """A Spanish run's report has a Spanish section whose counts are those of the deals table; Classic has none."""
    rs = load_rules("spanish")
    spec = RunSpec(variant="spanish", rules=rs.formatted(), strategies=("spanish", "greedy") * 2, seed=SEED,
                   games=60, chunk_size=default_chunk_size(60))
    run_dir = tmp_path / "spanish"
    execute_run(spec, run_dir, jobs=JOBS)
    deals = pd.read_parquet(run_dir / "deals.parquet")
    per_deal = deals.drop_duplicates(["game_index", "rotation", "deal_index"])
    doc = report_json(run_dir)
    hidden = rows(doc, "hidden_canastas")
    assert hidden["all"]["n"] == len(deals) and hidden["all"]["value"] == pytest.approx(deals["hidden_canastas"].mean())
    assert hidden["team 0"]["value"] > hidden["team 1"]["value"]  # the spanish strategy (team 0) plays for them
    premiado = rows(doc, "pile_premiado")["all deals"]
    assert (premiado["n"], premiado["k"]) == (len(per_deal), int(per_deal["pile_premiado"].sum()))
    pick = rows(doc, "exact_pick")["all deals"]
    assert pick["k"] == int(per_deal["pick_exact"].sum()) and pick["expected"] == pytest.approx(0.0995, abs=1e-3)
    crossed = rows(doc, "crossed_piles")["all deals"]
    assert crossed["value"] == pytest.approx(per_deal["crossed_piles"].mean())
    five = rows(doc, "five_canasta_bonus")["all"]
    assert five["k"] == int((deals["score_canasta_count"] > 0).sum())
    assert "Spanish: hidden canastas" in cli("report", run_dir).stdout
    run = results.load(run_dir)
    assert stats.summarize(run, stats.metric("hidden_canastas"))["value"] == pytest.approx(
        deals["hidden_canastas"].mean())
    picks = stats.summarize(run, stats.metric("exact_pick"))
    assert (picks["n"], picks["k"]) == (len(per_deal), int(per_deal["pick_exact"].sum()))
    assert stats.summarize(run, stats.metric("exact_pick_score"))["value"] == pytest.approx(
        deals["score_exact_pick"].mean())
    with pytest.raises(stats.StatsError, match="no column"):
        stats.summarize(SimpleNamespace(games=run.games, deals=run.deals.drop(columns="crossed_piles"),
                                        manifest=run.manifest), stats.metric("crossed_piles"))
    assert not [r for r in report_json(runs["base"])["rows"] if r["section"] == "spanish"]
