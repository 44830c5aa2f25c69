"""Twin-aware analysis (issue 13): units, per-strategy metrics, paired sweeps.

Known answers built by hand on small tables: a rotated run whose twins are exact copies must give the interval of
its distinct games (not of twice as many); perfectly opposite twins give a constant duplicate score; the per-unit
paired test equals ``scipy.stats.ttest_rel`` on the twin means; Holm runs over every value and metric of a sweep.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats as st

from simcli import stats
from simcli.cli import main
from simcli.reporting.figures import short_labels
from simcli.stats import estimators

G, R = "greedy", "random"


def games_table(rows: list[tuple[int, int, list[str], int, int]]) -> pd.DataFrame:
    """A games table from (game_index, rotation, strategies, winner_team, margin) rows."""
    out = []
    for gi, rot, strats, winner, margin in rows:
        s0 = 5000 + (margin if winner == 0 else 0)
        s1 = 5000 + (margin if winner == 1 else 0)
        out.append({"game_index": gi, "rotation": rot, "seed": 1, "winner_team": winner, "margin": margin,
                    "deals": 2 + gi % 3, "turns": 40, "last_deal_end": "went_out", "score_team_0": s0,
                    "score_team_1": s1, **{f"strategy_seat_{s}": name for s, name in enumerate(strats)}})
    return pd.DataFrame(out)


def deals_for(games: pd.DataFrame, cut: dict[tuple[int, int], bool] | None = None) -> pd.DataFrame:
    """Two deals per game (team rows 0 and 1); ``cut[(game, deal)]`` marks exact cuts (same in both twins)."""
    rows = []
    for g in games.itertuples():
        for d in range(2):
            for t in range(2):
                rows.append({"game_index": g.game_index, "rotation": g.rotation, "deal_index": d, "team": t,
                             "dealer": 0, "first_player": 1, "dealer_team": t == 0, "first_player_team": t == 1,
                             "end_reason": "went_out", "went_out": t == d % 2, "concealed": False,
                             "stock_out": False, "went_out_seat": d % 2, "turns": 20 + d, "first_meld_turn": 3,
                             "canastas_natural": 1, "canastas_mixed": 0, "canastas_wild": 0, "red_threes": 0,
                             "pile_takes": 1, "pile_cards_taken": 4, "pile_take_max": 4, "cut_count": 45,
                             "cut_target": 45, "cut_exact": bool((cut or {}).get((g.game_index, d), False)),
                             "score_exact_cut": 0, "score_total": 100 * (g.game_index + 1) + 10 * t})
    return pd.DataFrame(rows)


def fake_run(games: pd.DataFrame, deals: pd.DataFrame | None = None, **manifest: Any) -> SimpleNamespace:
    rotated = bool((games["rotation"] > 0).any())
    return SimpleNamespace(games=games, deals=deals_for(games) if deals is None else deals,
                           manifest={"seed": 1, "games": int(games["game_index"].nunique()),
                                     "rotate_seats": rotated, "rules": {}, **manifest})


def copies(winners: list[int], margins: list[int], strategies: list[str] | None = None) -> pd.DataFrame:
    """A rotated games table whose twin (rotation 1) repeats every result of rotation 0 exactly."""
    strats = strategies or [G, R, G, R]
    swapped = strats[1:] + strats[:1]
    return games_table([(i, rot, strats if rot == 0 else swapped, w, m)
                        for i, (w, m) in enumerate(zip(winners, margins, strict=True)) for rot in (0, 1)])


WINNERS = [0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0]
MARGINS = [100 + 37 * i % 400 for i in range(len(WINNERS))]


# ---------------------------------------------------------------------------------------- cluster_rate
def test_cluster_rate_of_exact_copies_is_the_interval_of_the_distinct_units() -> None:
    y = np.array(WINNERS) == 0
    units = len(y)
    doubled = stats.cluster_rate(np.repeat(y, 2).astype(float), np.repeat(np.arange(units), 2))
    # var = G/(G-1) sum_g (2 (y_g - p))^2 / (2G)^2 = p(1-p)/(G-1): Wilson on G-1 trials, not on 2G
    assert (doubled.n, doubled.n_units, doubled.k, doubled.method) == (2 * units, units, 2 * int(y.sum()),
                                                                       "wilson-cluster")
    p = y.mean()
    assert (doubled.ci_low, doubled.ci_high) == pytest.approx(estimators._wilson(p, units - 1, 0.95))
    naive = stats.rate(2 * int(y.sum()), 2 * units)
    single = stats.rate(int(y.sum()), units)
    assert naive.ci_high - naive.ci_low < single.ci_high - single.ci_low < doubled.ci_high - doubled.ci_low
    # the doubled interval is about sqrt(2) times the naive one (n really is halved)
    ratio = (doubled.ci_high - doubled.ci_low) / (naive.ci_high - naive.ci_low)
    assert 1.3 < ratio < 1.6


def test_cluster_rate_edge_cases_and_plain_equivalence() -> None:
    flags = [1, 0, 0, 1, 1, 0, 1]
    assert stats.cluster_rate(flags) == stats.rate(4, 7)  # 0/1 without clusters: exactly the plain Wilson rate
    # opposite twins (one win, one loss in every pair): the share is 1/2 in every unit, so [1/2, 1/2]
    opposite = stats.cluster_rate([1, 0] * 5, np.repeat(np.arange(5), 2))
    assert (opposite.rate, opposite.ci_low, opposite.ci_high) == (0.5, 0.5, 0.5)
    zero = stats.cluster_rate([0.0] * 6, [0, 0, 1, 1, 2, 2])  # no successes: Wilson(0, G units)
    assert (zero.ci_low, zero.ci_high) == pytest.approx(stats.wilson_interval(0, 3))
    one_unit = stats.cluster_rate([1, 0], [7, 7])
    assert np.isnan(one_unit.ci_low) and one_unit.n_units == 1
    with pytest.raises(stats.StatsError, match="between 0 and 1"):
        stats.cluster_rate([0.5, 2.0])
    with pytest.raises(stats.StatsError, match="unknown interval method"):
        stats.cluster_rate([1, 0], method="wald")


def test_cluster_rate_of_half_points_by_hand() -> None:
    scores = np.array([1, 0.5, 0, 1, 1, 0.5, 0, 1, 0.5, 1])
    r = stats.cluster_rate(scores)
    p, n = scores.mean(), len(scores)
    n_eff = p * (1 - p) / (scores.var(ddof=1) / n)  # the sample variance of the mean, as for a t-interval
    assert r.k is None and r.n_units == n
    assert (r.ci_low, r.ci_high) == pytest.approx(estimators._wilson(p, n_eff, 0.95))
    assert n_eff > n  # half points are less variable than wins and losses: the interval is narrower
    exact = stats.cluster_rate(scores, method="exact")
    assert exact.method == "clopper-pearson-cluster" and exact.ci_low < r.ci_low


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (37, 200)])
def test_fractional_clopper_pearson_matches_scipy_on_integers(k: int, n: int) -> None:
    assert estimators._clopper_pearson_float(k / n, n, 0.95) == pytest.approx(stats.clopper_pearson(k, n))


# ------------------------------------------------------------------------------------ rotated summaries
def test_rotated_copies_count_units_and_widen_intervals() -> None:
    run = fake_run(copies(WINNERS, MARGINS))
    plain = fake_run(games_table([(i, 0, [G, R, G, R], w, m) for i, (w, m) in enumerate(zip(WINNERS, MARGINS,
                                                                                               strict=True))]))
    win = stats.summarize(run, stats.metric("win_team_0"))
    assert (win["n"], win["n_units"], win["method"]) == (40, 20, "wilson-cluster")
    naive = stats.wilson_interval(win["k"], 40)
    assert win["ci_high"] - win["ci_low"] > naive[1] - naive[0]
    # a mean over exact twin copies: the cluster-robust interval is the t-interval of the 20 distinct games
    margin = stats.summarize(run, stats.metric("margin"))
    alone = stats.summarize(plain, stats.metric("margin"))
    assert (margin["n"], margin["n_units"], margin["method"]) == (40, 20, "t-cluster")
    assert (margin["ci_low"], margin["ci_high"]) == pytest.approx((alone["ci_low"], alone["ci_high"]))
    assert alone["n_units"] == alone["n"] == 20 and alone["method"] == "t"
    # deal means cluster by game_index: the twins' deals and the game's deals form one cluster
    score = stats.summarize(run, stats.metric("deal_score"))
    assert (score["n"], score["n_units"]) == (160, 20)
    # the report: win rates and game means in units, as summarize
    rep = stats.run_report(run)
    row = rep[(rep["metric"] == "win_rate") & (rep["group"].str.startswith("team 0"))].iloc[0]
    assert (row["n"], row["n_units"], row["method"]) == (40, 20, "wilson-cluster")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((win["ci_low"], win["ci_high"]))
    m = rep[(rep["metric"] == "margin") & (rep["group"] == "all")].iloc[0]
    assert (m["n_units"], m["ci_low"]) == (20, pytest.approx(alone["ci_low"]))


def test_exact_cuts_of_twin_deals_count_once() -> None:
    games = copies(WINNERS[:6], MARGINS[:6])
    cut = {(g, d): (g + d) % 3 == 0 for g in range(6) for d in range(2)}
    run = fake_run(games, deals_for(games, cut), rules={"exact_cut_bonus": "100", "cut_sigma": "4"})
    freq = stats.summarize(run, stats.metric("exact_cut"))
    k = sum(cut.values())
    assert (freq["n"], freq["k"], freq["method"]) == (12, k, "clopper-pearson")  # 6 games x 2 deals, not x 2 twins
    assert (freq["ci_low"], freq["ci_high"]) == pytest.approx(stats.clopper_pearson(k, 12))
    rep = stats.exact_cut_summary(run).set_index("metric")
    assert (rep.loc["exact_cut", "n"], rep.loc["exact_cut", "k"]) == (12, k)


# --------------------------------------------------------------------------------- strategy metrics
def test_strategy_win_and_score_without_rotation() -> None:
    games = games_table([
        (0, 0, [G, R, G, R], 0, 100),  # greedy (team 0) wins: 1
        (1, 0, [R, G, R, G], 0, 200),  # random (team 0) wins: greedy 0
        (2, 0, [G, R, G, R], -1, 0),   # shared win: 1/2
        (3, 0, [G, G, G, G], 1, 50),   # greedy on both teams: not a game of greedy against another strategy
    ])
    run = fake_run(games)
    win = stats.observations(run, stats.metric("strategy_win:greedy"))
    assert win["game_index"].tolist() == [0, 1, 2] and win["value"].tolist() == [1.0, 0.0, 0.5]
    score = stats.observations(run, stats.metric("strategy_score:greedy"))
    assert score["value"].tolist() == [100.0, -200.0, 0.0]
    s = stats.summarize(run, stats.metric("strategy_win:greedy"))
    assert (s["n"], s["k"], s["value"], s["method"]) == (3, None, 0.5, "wilson-cluster")
    rnd = stats.summarize(run, stats.metric("strategy_win:random"))
    assert rnd["value"] == 0.5 and rnd["n"] == 3
    with pytest.raises(stats.StatsError, match=r"strategy 'mc' is not in the run; its strategies: greedy, random"):
        stats.summarize(run, stats.metric("strategy_win:mc"))
    alone = fake_run(games_table([(0, 0, [G] * 4, 0, 10)]))
    with pytest.raises(stats.StatsError, match="sits on both teams in every game"):
        stats.summarize(alone, stats.metric("strategy_score:greedy"))
    with pytest.raises(stats.StatsError, match="expected strategy_win:NAME"):
        stats.metric("strategy_win:")


def test_strategy_win_in_a_rotated_run_is_the_duplicate_score_of_each_pair() -> None:
    # twins: greedy wins both seatings (1), greedy wins one (1/2), greedy loses both (0), a shared win + a win (3/4)
    rows = [(0, 0, 0), (0, 1, 1), (1, 0, 0), (1, 1, 0), (2, 0, 1), (2, 1, 0), (3, 0, -1), (3, 1, 1)]
    games = games_table([(gi, rot, [G, R, G, R] if rot == 0 else [R, G, R, G], w, 100) for gi, rot, w in rows])
    run = fake_run(games)
    obs = stats.observations(run, stats.metric("strategy_win:greedy"))
    assert obs["value"].tolist() == [1.0, 0.5, 0.0, 0.75]
    s = stats.summarize(run, stats.metric("strategy_win:greedy"))
    assert (s["n"], s["n_units"], s["value"]) == (4, 4, pytest.approx(2.25 / 4))
    scores = stats.observations(run, stats.metric("strategy_score:greedy"))["value"].tolist()
    assert scores == [100.0, 0.0, -100.0, 50.0]
    rep = stats.run_report(run, metrics=stats.parse_metrics("strategy_win:greedy", []))
    row = rep[rep["section"] == "metrics"].iloc[0]
    assert (row["group"], row["n"]) == ("pairs of twins", 4)


def test_metric_names_with_strategy_options() -> None:
    names = [m.name for m in stats.parse_metrics("margin,strategy_win:mc:samples=32,depth=2,strategy_score:greedy",
                                                 [])]
    assert names == ["margin", "strategy_win:mc:samples=32,depth=2", "strategy_score:greedy"]
    stats.check_strategy_metrics(stats.parse_metrics("strategy_win:greedy", []), [G, R, G, R])
    with pytest.raises(stats.StatsError, match="strategy 'ponytail' is not in the run"):
        stats.check_strategy_metrics(stats.parse_metrics("strategy_win:ponytail", []), [G, R, G, R])
    with pytest.raises(stats.StatsError, match="strategy_win:NAME, strategy_score:NAME"):
        stats.metric("strategy_wins:greedy")


# ------------------------------------------------------------------------------------ comparisons
def test_compare_of_rotated_runs_pairs_units() -> None:
    a_games = copies(WINNERS, MARGINS)
    b_games = a_games.assign(margin=a_games["margin"] + np.where(a_games["rotation"] == 0, 10, 30)
                             + a_games["game_index"] % 4)
    a, b = fake_run(a_games), fake_run(b_games)
    out = stats.compare_runs(a, b, stats.parse_metrics("margin,win_team_0,strategy_win:greedy", [])
                             ).set_index("metric")
    assert out["n"].tolist() == [20, 20, 20] and set(out["test"]) == {"paired-t"}
    unit_a = a_games.groupby("game_index")["margin"].mean()
    unit_b = b_games.groupby("game_index")["margin"].mean()
    ref = st.ttest_rel(unit_b, unit_a)
    ci = ref.confidence_interval()
    assert out.loc["margin", "diff"] == pytest.approx(20 + 1.5)
    assert (out.loc["margin", "ci_low"], out.loc["margin", "ci_high"]) == pytest.approx((ci.low, ci.high))
    assert out.loc["margin", "p"] == pytest.approx(ref.pvalue)
    assert out.loc["win_team_0", "diff"] == 0 and out.loc["win_team_0", "p"] == 1
    un = stats.compare_runs(a, b, [stats.metric("win_team_0")], paired=False)
    assert un["test"].tolist() == ["welch-t"] and un["n_a"].tolist() == [20]


def test_paired_mean_and_bootstrap_use_scipy() -> None:
    x = np.array([3.0, 5, 4, 8, 7, 6, 9, 4])
    y = np.array([2.0, 4, 5, 5, 6, 3, 7, 4])
    res = stats.paired_mean_diff(x, y)
    ref = st.ttest_rel(x, y)
    assert (res["ci_low"], res["ci_high"], res["p"]) == pytest.approx((*ref.confidence_interval(), ref.pvalue))
    boot = stats.bootstrap_mean_diff(x, y, 999, seed=3)
    ref_boot = st.bootstrap((x - y,), np.mean, n_resamples=999, method="percentile", rng=np.random.default_rng(3))
    assert (boot["ci_low"], boot["ci_high"]) == pytest.approx(tuple(ref_boot.confidence_interval))
    assert boot == stats.bootstrap_mean_diff(x, y, 999, seed=3) and 0 < boot["p"] < 0.2


def test_baseline_differences_adjust_over_values_and_metrics() -> None:
    base = copies(WINNERS, MARGINS)
    runs = [("100", fake_run(base)),
            ("200", fake_run(base.assign(margin=base["margin"] + base["game_index"] % 3))),
            ("300", fake_run(base.assign(margin=base["margin"] * 2, deals=base["deals"] + base["game_index"] % 2)))]
    metrics = stats.parse_metrics("margin,deals", [])
    diffs = stats.baseline_differences(runs, metrics, key="bonus")
    assert diffs[["bonus", "metric"]].values.tolist() == [["200", "margin"], ["200", "deals"], ["300", "margin"],
                                                          ["300", "deals"]]
    assert (diffs["baseline"] == "100").all() and (diffs["n"] == 20).all()
    assert diffs["p_holm"].tolist() == pytest.approx(stats.holm(diffs["p"].tolist()))
    one = stats.compare_runs(runs[0][1], runs[2][1], metrics)  # B - A: the value minus the baseline
    assert diffs["diff"].tolist()[2:] == pytest.approx(one["diff"].tolist())
    merged = stats.with_differences(stats.summary_table(runs, metrics, key="bonus"), diffs, "bonus")
    assert merged["diff"].isna().tolist() == [True, True, False, False, False, False]
    assert {"diff_test", "diff_ci_low", "diff_ci_high", "p_holm", "n_pairs"} <= set(merged.columns)
    assert stats.baseline_differences(runs[:1], metrics).empty


def test_short_tick_labels() -> None:
    assert short_labels(["100", "300"]) == (["100", "300"], [])
    labels, legend = short_labels(["ANY:1", "NATURAL:1,MIXED:1"])
    assert labels == ["v1", "v2"] and legend == ["v1 = ANY:1", "v2 = NATURAL:1,MIXED:1"]


# ----------------------------------------------------------------------------------------------- CLI
def invoke(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(res: Any) -> str:
    assert res.exit_code == 1 and "Traceback" not in res.output, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr
    return lines[0]


def test_rotating_one_strategy_in_every_seat_is_refused(tmp_path: Path) -> None:
    for strategies in ("greedy", "random,random,random,random"):
        line = one_error_line(invoke("run", "--games", 2, "--strategies", strategies, "--rotate-seats",
                                     "--out", tmp_path / "r", "-q"))
        assert "--rotate-seats with" in line and "exact copy" in line
    assert not (tmp_path / "r").exists()
    line = one_error_line(invoke("sweep", "--rule", "going_out_bonus=100,200", "--rotate-seats", "--games", 2,
                                 "--out", tmp_path / "s"))
    assert "exact copy" in line and not (tmp_path / "s").exists()
    line = one_error_line(invoke("sweep", "--rule", "going_out_bonus=100,200", "--metric", "strategy_win:random",
                                 "--games", 2, "--out", tmp_path / "s"))
    assert "strategy 'random' is not in the run; its strategies: greedy" in line and not (tmp_path / "s").exists()


def test_rotated_sweep_report_and_plot_of_strategy_metrics(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    res = invoke("sweep", "--rule", "going_out_bonus=100,500", "--games", 6, "--seed", 3, "--jobs", 1,
                 "--strategies", "greedy,random,greedy,random", "--rotate-seats", "--out", out,
                 "--metric", "strategy_win:greedy,deals", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["rotate_seats"] is True and "--rotate-seats" in doc["command"]
    rows = {(r["going_out_bonus"], r["metric"]): r for r in doc["rows"]}
    assert rows[("100", "strategy_win:greedy")]["n"] == 6  # pairs of twins
    assert (rows[("100", "deals")]["n"], rows[("100", "deals")]["n_units"]) == (12, 6)
    assert rows[("500", "deals")]["n_pairs"] == 6 and rows[("500", "deals")]["diff_test"] == "paired-t"
    run = out / "going_out_bonus=100"
    rep = invoke("report", run, "--metric", "strategy_win:greedy", "--format", "json")
    metric_rows = [r for r in json.loads(rep.stdout)["rows"] if r["section"] == "metrics"]
    assert [(r["metric"], r["group"], r["n"]) for r in metric_rows] == [("strategy_win:greedy", "pairs of twins", 6)]
    assert "is not in the run" in one_error_line(invoke("report", run, "--metric", "strategy_win:spanish"))
    png = tmp_path / "win.png"
    res = invoke("plot", run, out / "going_out_bonus=500", "--metric", "strategy_win:greedy", "--out", png)
    assert res.exit_code == 0 and "ci" in res.stdout and png.read_bytes()[:4] == b"\x89PNG"
    text = invoke("compare", out / "going_out_bonus=500", run, "--metric", "strategy_score:greedy").stdout
    assert "paired on game_index" in text and "x 2 seatings" in text
