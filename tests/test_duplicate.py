"""Known answers of the duplicate-match statistics (simcli.duplicate: pairs, sprt, ratings, power): SPRT, pair
scores, ratings, planning."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as st

from simcli.duplicate.pairs import DuplicateError, elo_from_score, score_from_elo, summarize_pairs
from simcli.duplicate.power import discordance, games_unpaired, pairs_paired, twin_differences
from simcli.duplicate.ratings import ELO_SCALE, MatchCount, bootstrap_ratings, fit_ratings
from simcli.duplicate.sprt import NELO_PER_T, mle_with_mean, parse_sprt, sprt_bounds, sprt_decision, sprt_llr

PENTA = [10, 20, 80, 25, 15]


# ----------------------------------------------------------------------------------------------- SPRT
def test_sprt_bounds_are_walds() -> None:
    assert sprt_bounds(0.05, 0.05) == pytest.approx((-math.log(19), math.log(19)))
    assert sprt_bounds(0.05, 0.10) == pytest.approx((math.log(0.10 / 0.95), math.log(0.90 / 0.05)))
    with pytest.raises(DuplicateError, match="alpha"):
        sprt_bounds(0.6, 0.5)


def test_llr_matches_fishtest_values() -> None:
    # Values of Fishtest's LLR_logistic / LLR_normalized (server/fishtest/stats/LLRcalc.py) on these counts.
    assert sprt_llr(PENTA, 0, 10) == pytest.approx(0.638608918245846, rel=1e-9)
    assert sprt_llr(PENTA, 0, 5) == pytest.approx(0.3831417301898712, rel=1e-9)
    assert sprt_llr(PENTA, 0, 10, "normalized") == pytest.approx(0.49723154028155, rel=1e-7)
    # Empty cells are regularized with 1e-3 pairs, as Fishtest does.
    assert sprt_llr([3, 0, 40, 0, 57], 0, 10) == pytest.approx(2.5435712063060234, rel=1e-9)
    assert sprt_llr([3, 0, 40, 0, 57], 0, 10, "normalized") == pytest.approx(2.7611883564183737, rel=1e-7)


def _constrained_loglik(counts: list[int], constraint: str, target: float) -> float:
    """max sum n_i log q_i over the simplex under a constraint, by SLSQP (independent of simcli's solver)."""
    c = np.where(np.asarray(counts, float) == 0, 1e-3, np.asarray(counts, float))
    v = np.linspace(0, 1, c.size)

    def mean_var(q: np.ndarray) -> tuple[float, float]:
        mu = float(q @ v)
        return mu, float(q @ (v - mu) ** 2)

    cons = [{"type": "eq", "fun": lambda q: q.sum() - 1}]
    if constraint == "mean":
        cons.append({"type": "eq", "fun": lambda q: mean_var(q)[0] - target})
    else:
        cons.append({"type": "eq", "fun": lambda q: (mean_var(q)[0] - 0.5) / math.sqrt(mean_var(q)[1]) - target})
    res = optimize.minimize(lambda q: -float(c @ np.log(q)), c / c.sum(), method="SLSQP", constraints=cons,
                            bounds=[(1e-9, 1)] * c.size, options={"ftol": 1e-14, "maxiter": 500})
    return -float(res.fun)


@pytest.mark.parametrize("counts", [PENTA, [5, 3, 60, 9, 23], [0, 2, 30, 1, 12]])
def test_llr_equals_the_ratio_of_constrained_maximum_likelihoods(counts: list[int]) -> None:
    s0, s1 = score_from_elo(-5), score_from_elo(15)
    want = _constrained_loglik(counts, "mean", s1) - _constrained_loglik(counts, "mean", s0)
    assert sprt_llr(counts, -5, 15) == pytest.approx(want, abs=1e-5)
    t0, t1 = [e / NELO_PER_T * math.sqrt(2) for e in (0, 20)]
    want = _constrained_loglik(counts, "t", t1) - _constrained_loglik(counts, "t", t0)
    assert sprt_llr(counts, 0, 20, "normalized") == pytest.approx(want, abs=1e-5)


def test_two_point_mle_is_the_binomial() -> None:
    # With two outcomes the constrained MLE is (1 - s, s) whatever was observed.
    q = mle_with_mean(np.array([0.0, 1.0]), np.array([0.3, 0.7]), 0.55)
    assert q == pytest.approx([0.45, 0.55])


def test_llr_sign_and_decision() -> None:
    strong = [0, 0, 20, 0, 80]
    assert sprt_llr(strong, 0, 10) > 0 > sprt_llr([80, 0, 20, 0, 0], 0, 10)
    assert sprt_decision(3.0, -2.94, 2.94) == "H1"
    assert sprt_decision(-3.0, -2.94, 2.94) == "H0"
    assert sprt_decision(0.0, -2.94, 2.94) == "inconclusive"
    with pytest.raises(DuplicateError, match="unknown Elo model"):
        sprt_llr(strong, 0, 10, "bayes")


@pytest.mark.parametrize("text, message", [("elo0=0", "expected elo0=E0,elo1=E1"), ("elo0=0,elo1=x", "'x'"),
                                           ("elo0=10,elo1=0", "smaller"), ("e0=1,e1=2", "expected")])
def test_parse_sprt_refuses(text: str, message: str) -> None:
    with pytest.raises(DuplicateError, match=message):
        parse_sprt(text)
    assert parse_sprt("elo0=-1.5, elo1=3") == (-1.5, 3.0)


# ------------------------------------------------------------------------------------------ pair scores
def test_summary_is_a_t_interval_over_pairs() -> None:
    half = [0] * 10 + [2] * 20 + [4] * 15 + [3] * 5
    s = summarize_pairs(half)
    x = np.array(half) / 4
    h = st.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    assert (s.pairs, s.games, s.pentanomial) == (50, 100, [10, 0, 20, 5, 15])
    assert (s.score, s.score_ci_low, s.score_ci_high) == pytest.approx((x.mean(), x.mean() - h, x.mean() + h))
    assert s.elo == pytest.approx(-400 * math.log10(1 / x.mean() - 1))
    assert s.elo_ci_low == pytest.approx(elo_from_score(x.mean() - h))


def test_elo_curve_corners() -> None:
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert score_from_elo(elo_from_score(0.3)) == pytest.approx(0.3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert str(elo_from_score(0.5)) == "0.0"
    s = summarize_pairs([2, 2, 2])
    assert (s.score_ci_low, s.score_ci_high, s.elo) == (0.5, 0.5, 0.0)


# ---------------------------------------------------------------------------------------------- ratings
def test_two_player_rating_is_the_match_elo() -> None:
    # 70 points out of 100 games plus the one virtual draw: p = 70.5 / 101.
    r = fit_ratings(2, [MatchCount(0, 1, 70.0, 100)])
    p = 70.5 / 101
    diff = r.rating[0] - r.rating[1]
    assert diff == pytest.approx(elo_from_score(p), abs=1e-4)
    assert r.rating[0] == pytest.approx(-r.rating[1])
    se_diff = 1 / math.sqrt(ELO_SCALE ** 2 * 101 * p * (1 - p))
    assert r.se[0] == pytest.approx(se_diff / 2, rel=1e-4)
    assert r.ci_high[0] - r.rating[0] == pytest.approx(1.959964 * se_diff / 2, rel=1e-4)


def test_ratings_follow_the_results_and_a_clean_sweep_stays_finite() -> None:
    m = [MatchCount(0, 1, 60, 100), MatchCount(1, 2, 60, 100), MatchCount(0, 2, 100, 100)]
    r = fit_ratings(3, m)
    assert r.rating[0] > r.rating[1] > r.rating[2]
    assert sum(r.rating) == pytest.approx(0, abs=1e-6)
    assert all(math.isfinite(x) for x in r.ci_low + r.ci_high)


def test_bootstrap_ratings_resample_pairs_reproducibly() -> None:
    rng = np.random.default_rng(3)
    pairs = [(0, 1, rng.integers(1, 5, 60).tolist()), (0, 2, rng.integers(0, 5, 60).tolist()),
             (1, 2, rng.integers(0, 4, 60).tolist())]
    a = bootstrap_ratings(3, pairs, 100, seed=1)
    b = bootstrap_ratings(3, pairs, 100, seed=1)
    assert a == b and a.method == "bootstrap-100"
    assert all(lo <= x <= hi for lo, x, hi in zip(a.ci_low, a.rating, a.ci_high, strict=True))
    fisher = fit_ratings(3, [MatchCount(i, j, sum(h) / 2, 120) for i, j, h in pairs])
    assert a.rating == pytest.approx(fisher.rating)


# --------------------------------------------------------------------------------------------- planning
def test_unpaired_games_textbook() -> None:
    # One-sample test of a proportion, p0 = 0.5, p1 = 0.52, two-sided 5%, power 80%, by hand:
    # (1.959964 * 0.5 + 0.841621 * sqrt(0.52 * 0.48))^2 / 0.02^2 = 4903.2 -> 4904.
    assert games_unpaired(0.5, 0.02) == 4904
    # p0 = 0.3, p1 = 0.25, alpha 0.01, power 0.9: (2.575829*0.458258 + 1.281552*0.433013)^2 / 0.0025 = 1204.5
    assert games_unpaired(0.3, -0.05, alpha=0.01, power=0.9) == 1205


def test_paired_pairs_connor() -> None:
    # Connor (1987): psi = 0.4, delta = 0.04: (1.959964 * sqrt(0.4) + 0.841621 * sqrt(0.3984))^2 / 0.0016 = 1959.9
    assert pairs_paired(0.4, 0.02) == 1960
    with pytest.raises(DuplicateError, match="cannot occur"):
        pairs_paired(0.01, 0.1)
    with pytest.raises(DuplicateError, match="power"):
        games_unpaired(0.5, 0.02, power=1.2)


def test_twin_differences_and_discordance() -> None:
    games = pd.DataFrame({"game_index": [0, 0, 1, 1, 2, 2, 3], "rotation": [0, 1, 0, 1, 1, 0, 0],
                          "winner_team": [0, 1, 0, 0, -1, 0, 1]})
    d = twin_differences(games)
    # pair 0: team 0 won then lost (+1); pair 1: won both (0); pair 2: won, then shared (+1/2); 3 has no twin.
    assert d.tolist() == [1.0, 0.0, 0.5]
    assert discordance(d) == pytest.approx((1 + 0 + 0.25) / 3)
