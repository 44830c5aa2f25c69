"""``simcli.stats`` on known values and small hand-made tables (no games are played here).

Reference values: Wilson and Clopper-Pearson by hand and from scipy; Newcombe's paired and independent
intervals from the published examples (Fagerland, Lydersen & Laake, *Statistical Analysis of Contingency
Tables*, ch. 4 and 8); McNemar, Holm and t-intervals by hand.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from simcli import stats

Z = 1.959963984540054


# ------------------------------------------------------------------------------------------- intervals
@pytest.mark.parametrize(("k", "n", "low", "high"), [
    (0, 10, 0.0, Z * Z / (10 + Z * Z)),          # upper bound z^2 / (n + z^2) by hand: 0.27753
    (5, 10, 0.236593, 0.763407),
    (10, 10, 10 / (10 + Z * Z), 1.0),
])
def test_wilson_known_values(k: int, n: int, low: float, high: float) -> None:
    assert stats.wilson_interval(k, n) == pytest.approx((low, high), abs=1e-6)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (5, 10), (9, 10), (10, 10), (37, 200), (1234, 5000)])
def test_wilson_and_clopper_pearson_match_scipy(k: int, n: int) -> None:
    res = st.binomtest(k, n)
    wilson = res.proportion_ci(method="wilson")
    exact = res.proportion_ci(method="exact")
    assert stats.wilson_interval(k, n) == pytest.approx((wilson.low, wilson.high), abs=1e-9)
    assert stats.clopper_pearson(k, n) == pytest.approx((exact.low, exact.high), abs=1e-12)


def test_clopper_pearson_by_hand() -> None:
    # 0/n: upper bound 1 - (alpha/2)^(1/n); n/n: lower bound (alpha/2)^(1/n).
    assert stats.clopper_pearson(0, 10) == pytest.approx((0.0, 1 - 0.025 ** 0.1))
    assert stats.clopper_pearson(10, 10) == pytest.approx((0.025 ** 0.1, 1.0))
    lo, hi = stats.clopper_pearson(5, 10)
    assert (lo, hi) == pytest.approx((0.187086, 0.812914), abs=1e-6)


def test_interval_edge_cases() -> None:
    assert all(math.isnan(x) for x in stats.wilson_interval(0, 0))
    assert all(math.isnan(x) for x in stats.clopper_pearson(0, 0))
    with pytest.raises(stats.StatsError):
        stats.wilson_interval(11, 10)
    with pytest.raises(stats.StatsError, match="unknown interval method"):
        stats.rate(1, 2, method="wald")
    r = stats.rate(3, 12, method="exact")
    assert (r.n, r.k, r.rate, r.method) == (12, 3, 0.25, "clopper-pearson")
    assert r.as_dict()["value"] == 0.25
    assert stats.rate_of([True, False, None, True]).as_dict() | {} == stats.rate(2, 3).as_dict()


def test_mean_t_interval_by_hand() -> None:
    m = stats.mean_interval([1, 2, 3, 4, 5])
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)
    assert (m.n, m.mean, m.sd, m.method) == (5, 3.0, pytest.approx(math.sqrt(2.5)), "t")
    assert (m.ci_low, m.ci_high) == pytest.approx((3 - half, 3 + half))
    one = stats.mean_interval([7.0])
    assert one.mean == 7.0 and math.isnan(one.ci_low)
    assert stats.mean_interval([]).n == 0


def test_cluster_robust_mean_by_hand() -> None:
    y = [1, 3, 2, 4, 10, 12]
    g = ["a", "a", "b", "b", "c", "c"]
    mean = 32 / 6
    resid = [4 - 2 * mean, 6 - 2 * mean, 22 - 2 * mean]
    se = math.sqrt(3 / 2 * sum(r * r for r in resid) / 36)
    half = 4.302652729911275 * se  # t(0.975, df = G - 1 = 2)
    m = stats.mean_interval(y, clusters=g)
    assert (m.method, m.clusters) == ("t-cluster", 3)
    assert (m.ci_low, m.ci_high) == pytest.approx((mean - half, mean + half))
    # One observation per cluster: the same as the plain t-interval.
    plain = stats.mean_interval([1, 5, 2, 8])
    single = stats.mean_interval([1, 5, 2, 8], clusters=[0, 1, 2, 3])
    assert (single.ci_low, single.ci_high) == pytest.approx((plain.ci_low, plain.ci_high))


def test_quantiles_and_describe() -> None:
    q = stats.quantiles(range(101))
    assert q == {"min": 0.0, "q05": 5.0, "q25": 25.0, "median": 50.0, "q75": 75.0, "q95": 95.0, "max": 100.0}
    d = stats.describe([2, 4, 6, np.nan])
    assert d["n"] == 3 and d["mean"] == 4 and d["median"] == 4


def test_holm_known_values() -> None:
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1, monotone
    out = stats.holm([0.02, float("nan"), 0.01])
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1]) and out[2] == pytest.approx(0.02)


def test_cut_model_probability() -> None:
    assert stats.cut_exact_probability(4.0) == pytest.approx(0.099477, abs=1e-6)
    assert stats.cut_exact_probability(0.0) == 1.0


# ------------------------------------------------------------------------------------- paired tests
def test_mcnemar_exact_by_hand() -> None:
    # 6 vs 16 discordant pairs: 2 * sum_{k<=6} C(22, k) / 2^22
    by_hand = 2 * sum(math.comb(22, k) for k in range(7)) / 2 ** 22
    assert stats.mcnemar_exact(6, 16) == pytest.approx(by_hand) == pytest.approx(0.052479, abs=1e-6)
    assert stats.mcnemar_exact(16, 6) == pytest.approx(by_hand)
    assert stats.mcnemar_exact(0, 0) == 1.0


def test_newcombe_paired_published_example() -> None:
    # Cavo et al. 2012 as in Fagerland et al. ch. 8: estimate -0.0621 (95% CI -0.1186 to -0.0046).
    diff, low, high = stats.paired_proportion_diff(59, 6, 16, 80)
    assert (diff, low, high) == pytest.approx((-0.0621, -0.1186, -0.0046), abs=5e-5)


def test_newcombe_independent_published_example() -> None:
    # Perondi et al. 2004 as in Fagerland et al. ch. 4: 7/34 vs 1/34, 0.1765 (0.0189 to 0.3404).
    diff, low, high = stats.independent_proportion_diff(7, 34, 1, 34)
    assert (diff, low, high) == pytest.approx((0.1765, 0.0189, 0.3404), abs=5e-5)


def test_paired_binary_on_a_constructed_table() -> None:
    # 59 both, 6 A only, 16 B only, 80 neither.
    a = [1] * 59 + [1] * 6 + [0] * 16 + [0] * 80
    b = [1] * 59 + [0] * 6 + [1] * 16 + [0] * 80
    res = stats.paired_binary(a, b)
    assert (res["n"], res["a_only"], res["b_only"]) == (161, 6, 16)
    assert res["p"] == pytest.approx(stats.mcnemar_exact(6, 16))
    assert res["diff"] == pytest.approx(-10 / 161)
    same = stats.paired_binary(a, a)
    assert (same["diff"], same["p"], same["a_only"], same["b_only"]) == (0.0, 1.0, 0, 0)


def test_paired_mean_diff_by_hand() -> None:
    a = np.array([11.0, 22, 33, 44, 55])
    b = a - np.array([1, 2, 3, 4, 5])
    res = stats.paired_mean_diff(a, b)
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)
    assert res["diff"] == pytest.approx(3.0)
    assert (res["ci_low"], res["ci_high"]) == pytest.approx((3 - half, 3 + half))
    t = 3 / (math.sqrt(2.5) / math.sqrt(5))
    assert res["p"] == pytest.approx(2 * st.t.sf(t, 4))
    same = stats.paired_mean_diff(a, a)
    assert (same["diff"], same["ci_low"], same["ci_high"], same["p"]) == (0.0, 0.0, 0.0, 1.0)
    shifted = stats.paired_mean_diff(a + 2, a)
    assert (shifted["diff"], shifted["ci_low"], shifted["p"]) == (2.0, 2.0, 0.0)


def test_bootstrap_is_seeded_and_sensible() -> None:
    rng = np.random.default_rng(5)
    a = rng.normal(10, 3, 300)
    b = a - rng.normal(1.0, 2, 300)
    one = stats.bootstrap_mean_diff(a, b, 1000, seed=1)
    again = stats.bootstrap_mean_diff(a, b, 1000, seed=1)
    other = stats.bootstrap_mean_diff(a, b, 1000, seed=2)
    assert one == again
    assert (one["ci_low"], one["ci_high"]) != (other["ci_low"], other["ci_high"])
    t = stats.paired_mean_diff(a, b)
    assert one["ci_low"] < one["diff"] < one["ci_high"]
    assert one["ci_low"] == pytest.approx(t["ci_low"], abs=0.1) and one["ci_high"] == pytest.approx(t["ci_high"],
                                                                                                      abs=0.1)
    assert one["p"] < 0.01
    zero = stats.bootstrap_mean_diff(a, a, 200, seed=1)
    assert (zero["diff"], zero["ci_low"], zero["ci_high"], zero["p"]) == (0.0, 0.0, 0.0, 1.0)


def test_unpaired_tests() -> None:
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: two-sided p = 34/70.
    res = stats.unpaired_binary([1, 1, 1, 0], [1, 0, 0, 0])
    assert res["p"] == pytest.approx(34 / 70)
    assert (res["a"], res["b"], res["diff"]) == (0.75, 0.25, 0.5)
    x, y = [1.0, 2, 3, 4, 5, 6], [2.0, 4, 6, 8, 10, 13]
    w = stats.welch_mean_diff(x, y)
    ref = st.ttest_ind(x, y, equal_var=False)
    assert w["p"] == pytest.approx(ref.pvalue) and w["diff"] == pytest.approx(3.5 - 43 / 6)
    ci = ref.confidence_interval()
    assert (w["ci_low"], w["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert w["ci_low"] < w["diff"] < w["ci_high"]


# ------------------------------------------------------------------------------------ tables, metrics
def games_table(rows: list[tuple[list[str], int, int]]) -> pd.DataFrame:
    """A games table from (strategies, winner_team, margin) rows."""
    out = []
    for i, (strats, winner, margin) in enumerate(rows):
        row: dict[str, Any] = {"game_index": i, "rotation": 0, "seed": 1, "winner_team": winner, "margin": margin,
                               "deals": 2, "turns": 40, "last_deal_end": "went_out",
                               "score_team_0": 5000 if winner == 0 else 4000, "score_team_1": 5000 if winner == 1
                               else 4000}
        row.update({f"strategy_seat_{s}": name for s, name in enumerate(strats)})
        out.append(row)
    return pd.DataFrame(out)


G, R = "greedy", "random"
MIXED = games_table([
    ([G, R, G, R], 0, 100),  # greedy's team wins
    ([G, R, R, R], 0, 100),  # mixed team {greedy, random} wins: a win for both; random is on both sides
    ([R, G, R, G], 0, 100),  # random's team wins
    ([G, G, G, G], 1, 100),  # greedy on both sides: a win for greedy whoever wins
])


def by_group(df: pd.DataFrame, metric: str = "win_rate") -> dict[str, tuple[int, int]]:
    sub = df[df["metric"] == metric]
    return {g: (int(k), int(n)) for g, k, n in zip(sub["group"], sub["k"], sub["n"], strict=True)}


def test_win_rates_by_team_seat_strategy() -> None:
    assert by_group(stats.win_rates(MIXED, "team")) == {"team 0 (seats 0,2)": (3, 4), "team 1 (seats 1,3)": (1, 4)}
    assert by_group(stats.win_rates(MIXED, "seat")) == {"seat 0 (team 0)": (3, 4), "seat 1 (team 1)": (1, 4),
                                                         "seat 2 (team 0)": (3, 4), "seat 3 (team 1)": (1, 4)}
    strat = stats.win_rates(MIXED, "strategy")
    assert by_group(strat) == {"greedy": (3, 4), "random": (2, 3)}
    assert by_group(strat, "head_to_head_win_rate") == {"greedy": (2, 3), "random": (1, 2)}
    row = strat.iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(stats.wilson_interval(3, 4))
    with pytest.raises(stats.StatsError, match="unknown grouping"):
        stats.win_rates(MIXED, "player")


def test_shared_wins_count_for_nobody() -> None:
    games = games_table([([G] * 4, -1, 0), ([G] * 4, 0, 50), ([G, R, G, R], -1, 0)])
    out = stats.win_rates(games, "team")
    assert by_group(out) == {"team 0 (seats 0,2)": (1, 3), "team 1 (seats 1,3)": (0, 3)}
    assert by_group(out, "shared_win") == {"all": (2, 3)}
    strat = stats.win_rates(games, "strategy")
    assert by_group(strat) == {"greedy": (1, 3), "random": (0, 1)}
    assert by_group(strat, "head_to_head_win_rate") == {"greedy": (0, 1), "random": (0, 1)}


def deals_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A deals table: each dict gives a team row's non-default columns."""
    base = {"rotation": 0, "dealer": 0, "first_player": 1, "dealer_team": False, "first_player_team": False,
            "end_reason": "went_out", "went_out": False, "concealed": False, "stock_out": False, "went_out_seat": 0,
            "turns": 20, "first_meld_turn": 3, "canastas_natural": 0, "canastas_mixed": 1, "canastas_wild": 0,
            "red_threes": 0, "pile_takes": 1, "pile_cards_taken": 4, "pile_take_max": 4, "cut_count": 45,
            "cut_target": 45, "cut_exact": False, "exact_cut_bonus_team": False, "score_exact_cut": 0,
            "score_total": 300}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_first_deal_team_wins() -> None:
    games = games_table([([G] * 4, 0, 10), ([G] * 4, 0, 10)])
    deals = deals_table([
        {"game_index": 0, "deal_index": 0, "team": 0, "first_player_team": True},
        {"game_index": 0, "deal_index": 0, "team": 1, "dealer_team": True},
        {"game_index": 0, "deal_index": 1, "team": 0, "dealer_team": True},
        {"game_index": 0, "deal_index": 1, "team": 1, "first_player_team": True},
        {"game_index": 1, "deal_index": 0, "team": 0, "dealer_team": True},
        {"game_index": 1, "deal_index": 0, "team": 1, "first_player_team": True},
    ])
    assert stats.first_deal_team_wins(games, deals, "first_player_team").tolist() == [True, False]
    assert stats.first_deal_team_wins(games, deals, "dealer_team").tolist() == [False, True]


def test_exact_cut_decided_by_hand() -> None:
    games = games_table([([G] * 4, 0, 50), ([G] * 4, 0, 150), ([G] * 4, 1, 30)])
    deals = deals_table([
        {"game_index": 0, "deal_index": 0, "team": 0, "score_exact_cut": 100},  # margin 50 < 100: decided
        {"game_index": 0, "deal_index": 0, "team": 1},
        {"game_index": 1, "deal_index": 0, "team": 0, "score_exact_cut": 100},  # margin 150 >= 100
        {"game_index": 1, "deal_index": 0, "team": 1},
        {"game_index": 2, "deal_index": 0, "team": 0, "score_exact_cut": 100},  # the loser got it
        {"game_index": 2, "deal_index": 0, "team": 1},
    ])
    r = stats.exact_cut_decided(games, deals)
    assert (r.k, r.n) == (1, 3)


def test_exact_cut_summary_only_with_a_bonus() -> None:
    games = games_table([([G] * 4, 0, 50)])
    deals = deals_table([{"game_index": 0, "deal_index": d, "team": t, "cut_exact": d == 0}
                         for d in range(4) for t in range(2)])
    run = SimpleNamespace(games=games, deals=deals, manifest={"rules": {"exact_cut_bonus": "0", "cut_sigma": "4"}})
    assert stats.exact_cut_summary(run).empty
    run.manifest["rules"]["exact_cut_bonus"] = "100"
    out = stats.exact_cut_summary(run).set_index("metric")
    freq = out.loc["exact_cut"]
    assert (freq["k"], freq["n"], freq["method"]) == (1, 4, "clopper-pearson")  # one observation per deal
    assert (freq["ci_low"], freq["ci_high"]) == pytest.approx(stats.clopper_pearson(1, 4))
    assert freq["expected"] == pytest.approx(stats.cut_exact_probability(4.0))


def test_deal_end_shares_one_observation_per_deal() -> None:
    deals = deals_table([
        {"game_index": 0, "deal_index": 0, "team": 0, "went_out": True, "concealed": True},
        {"game_index": 0, "deal_index": 0, "team": 1},
        {"game_index": 0, "deal_index": 1, "team": 0, "end_reason": "stock_out", "stock_out": True},
        {"game_index": 0, "deal_index": 1, "team": 1, "end_reason": "stock_out", "stock_out": True},
    ])
    out = stats.deal_end_shares(deals).set_index("metric")
    assert (out.loc["went_out", "k"], out.loc["went_out", "n"]) == (1, 2)
    assert (out.loc["concealed", "k"], out.loc["stock_out", "k"]) == (1, 1)


@pytest.mark.parametrize("layout", ["own team row", "every row"])
def test_pony_summary_and_distribution(layout: str) -> None:
    deals = deals_table([{"game_index": g, "deal_index": 0, "team": t} for g in range(4) for t in range(2)])
    values = {0: [3, -1, 5, 7], 1: [-1, -1, 2, 4]}
    for seat, vals in values.items():
        # The Ponytail records fill a seat's column on its own team's row only (NaN on the other team's row).
        deals[f"pony_pickup_turn_seat_{seat}"] = [v if layout == "every row" or t == seat % 2 else np.nan
                                                  for v in vals for t in range(2)]
    out = stats.pony_summary(deals)
    never = out[out["metric"] == "pony_never_picked_up"].set_index("group")
    assert (never.loc["seat 0", "k"], never.loc["seat 0", "n"]) == (1, 4)
    assert (never.loc["seat 1", "k"], never.loc["all seats", "k"], never.loc["all seats", "n"]) == (2, 3, 8)
    turns = out[out["metric"] == "pony_pickup_turn"].set_index("group")
    assert turns.loc["seat 0", "median"] == 5 and turns.loc["all seats", "n"] == 5
    dist = stats.pony_distribution(deals)
    assert dist.set_index("turn")["count"].to_dict() == {-1: 3, 2: 1, 3: 1, 4: 1, 5: 1, 7: 1}
    assert dist["share"].sum() == pytest.approx(1.0)
    assert stats.pony_summary(deals.drop(columns=stats.pony_columns(deals))).empty


def fake_run(games_df: pd.DataFrame, deals_df: pd.DataFrame, **manifest: Any) -> SimpleNamespace:
    return SimpleNamespace(games=games_df, deals=deals_df, manifest={"seed": 1, "games": len(games_df),
                                                                     "rotate_seats": False, **manifest})


def test_compare_runs_pairing_and_self() -> None:
    games = games_table([([G] * 4, g % 2, 100 + 10 * g) for g in range(6)])
    deals = deals_table([{"game_index": g, "deal_index": 0, "team": t, "went_out": t == 0,
                          "first_player_team": t == 0, "score_total": 500 + g} for g in range(6) for t in range(2)])
    a = fake_run(games, deals)
    out = stats.compare_runs(a, a, stats.parse_metrics("win_team_0,margin,going_out_score,first_player_win", []))
    assert out["diff"].tolist() == [0, 0, 0, 0] and out["p"].tolist() == [1, 1, 1, 1]
    assert out["test"].tolist() == ["mcnemar-exact", "paired-t", "paired-t", "mcnemar-exact"]
    with pytest.raises(stats.StatsError, match=r"master seed \(1 vs 2\); use --unpaired"):
        stats.compare_runs(a, fake_run(games, deals, seed=2))
    with pytest.raises(stats.StatsError, match=r"differ in N \(games\) \(6 vs 7\);"):
        stats.compare_runs(a, fake_run(games, deals, games=7))
    shifted = fake_run(games.assign(margin=games["margin"] * 2, turns=games["turns"] + np.arange(6)), deals)
    several = stats.compare_runs(shifted, a, stats.parse_metrics("margin,turns,win_team_0", []))
    assert several["p_holm"].tolist() == pytest.approx(stats.holm(several["p"].tolist()))
    assert (several["p_holm"] > several["p"]).any()
    b = fake_run(games.assign(margin=games["margin"] + 50), deals, seed=9)
    un = stats.compare_runs(a, b, [stats.metric("margin")], paired=False)
    assert un["test"].tolist() == ["welch-t"] and un["diff"].iloc[0] == pytest.approx(50)  # B - A


def test_metric_lookup_and_values() -> None:
    with pytest.raises(stats.StatsError, match="unknown metric 'bogus'; allowed: win_team_0"):
        stats.metric("bogus")
    assert [m.name for m in stats.parse_metrics(["margin,deals", "margin"], ["turns"])] == ["margin", "deals"]
    assert [m.name for m in stats.parse_metrics(None, ["turns"])] == ["turns"]
    assert stats.split_values("100, 300,1000") == ["100", "300", "1000"]
    assert stats.split_values("NATURAL:1,MIXED:1;ANY:2") == ["NATURAL:1,MIXED:1", "ANY:2"]


def test_summarize_uses_the_right_unit_of_observation() -> None:
    games = games_table([([G] * 4, 0, 100), ([G] * 4, 1, 300)])
    deals = deals_table([{"game_index": g, "deal_index": d, "team": t, "stock_out": d == 1,
                          "end_reason": "stock_out" if d == 1 else "went_out"}
                         for g in range(2) for d in range(3) for t in range(2)])
    run = fake_run(games, deals)
    margin = stats.summarize(run, stats.metric("margin"))
    assert (margin["n"], margin["value"], margin["method"]) == (2, 200, "t")
    stock = stats.summarize(run, stats.metric("stock_out"))
    assert (stock["n"], stock["k"]) == (6, 2)  # deals, not team-deals
    score = stats.summarize(run, stats.metric("deal_score"))
    assert (score["n"], score["method"], score["clusters"]) == (12, "t-cluster", 2)
