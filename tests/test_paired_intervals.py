"""The interval of a paired rate difference agrees with its test: the exact conditional interval of McNemar's exact
test (issue 34, item 4).

Reference values: the Clopper-Pearson closed forms at x = 0 and x = n; the exact McNemar p of the airway data of
Bentur et al. (2009) as worked by Fagerland, Lydersen & Laake (2013), "The McNemar test for binary matched-pairs
data: mid-p and asymptotic are better than exact conditional", BMC Med Res Methodol 13:91 (b = 1, c = 7:
p = 2 x 9/256 = 0.0703); the Ponytail exact-cut study's net row at cut_sigma 4 (5 - 0 of 1,998 pairs).
"""

from __future__ import annotations

import math

import pytest

from simcli import stats


@pytest.mark.parametrize("confidence", [0.95, 0.90])
@pytest.mark.parametrize("n", [80, 1998])
def test_interval_excludes_zero_exactly_when_the_test_rejects(confidence: float, n: int) -> None:
    alpha = 1 - confidence
    disagree = []
    for b in range(41):
        for c in range(41):
            low, high = stats.mcnemar_exact_interval(b, c, n, confidence)
            p = stats.mcnemar_exact(b, c)
            assert low <= (b - c) / n <= high
            if (low > 0 or high < 0) != (p < alpha):
                disagree.append((b, c, low, high, p))
    assert not disagree


def test_paired_binary_reports_the_matched_interval() -> None:
    # 5 pairs decided by A alone, none by B alone, 1,998 pairs: the study's exact_cut_decided_net 4 - 0.
    a = [1] * 5 + [0] * 1993
    b = [0] * 1998
    res = stats.paired_binary(a, b)
    assert res["p"] == pytest.approx(0.0625)
    assert res["ci_low"] < 0 < res["ci_high"]
    # [-0.011 pp, 0.250 pp]
    assert (round(res["ci_low"] * 100, 3), round(res["ci_high"] * 100, 3)) == (-0.011, 0.250)
    assert res["diff"] == pytest.approx(5 / 1998)


def test_clopper_pearson_closed_forms() -> None:
    alpha = 0.05
    for x in range(1, 30):
        # x of x: the lower bound is (alpha/2)^(1/x), the upper 1; 0 of x mirrors it.
        assert stats.mcnemar_exact_interval(x, 0, x) == pytest.approx((2 * (alpha / 2) ** (1 / x) - 1, 1.0))
        low, high = stats.mcnemar_exact_interval(0, x, x)
        assert (low, high) == pytest.approx((-1.0, 2 * (1 - (alpha / 2) ** (1 / x)) - 1))
    # 5 of 5: lower bound 0.4782 (published tables), so the difference's lower end is (2 x 0.4782 - 1) x 5 / n.
    assert (0.025 ** (1 / 5)) == pytest.approx(0.4782, abs=5e-5)
    low, high = stats.mcnemar_exact_interval(5, 0, 10)
    assert low == pytest.approx((2 * 0.4782 - 1) * 5 / 10, abs=1e-4) and high == pytest.approx(0.5)


def test_bentur_airway_data_exact_mcnemar() -> None:
    # Fagerland, Lydersen & Laake (2013), Table 1: 21 children, AHR before and after stem cell transplantation;
    # b = 1 (yes then no), c = 7 (no then yes): exact conditional p = 2 x 9/256 = 0.0703.
    assert stats.mcnemar_exact(1, 7) == pytest.approx(2 * 9 / 256) == pytest.approx(0.0703, abs=5e-5)
    low, high = stats.mcnemar_exact_interval(1, 7, 21)
    assert low < 0 < high  # p > 0.05: the interval contains 0
    # At 90% the test rejects (p < 0.10), and the interval excludes 0.
    assert stats.mcnemar_exact_interval(1, 7, 21, 0.90)[1] < 0


def test_no_discordant_pairs_is_known_exactly() -> None:
    assert stats.mcnemar_exact_interval(0, 0, 100) == (0.0, 0.0)
    res = stats.paired_binary([1, 0, 1], [1, 0, 1])
    assert (res["diff"], res["ci_low"], res["ci_high"], res["p"]) == (0.0, 0.0, 0.0, 1.0)
    assert all(math.isnan(v) for v in stats.mcnemar_exact_interval(0, 0, 0))
