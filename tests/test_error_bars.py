"""A study's figure draws an interval whose end is its estimate (issue 47, item 6): an exact paired interval of a 0/1
rate with every discordant pair one way ends at the estimate, and in floating point can end an ulp inside it, which
matplotlib's ``errorbar`` refuses ("'yerr' must not contain negative values"), losing the study after its games."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcli.reporting.figures import error_bars
from simcli.reporting.levels import levels_figure
from simcli.stats import metric


def test_error_bars_are_the_distances_to_the_interval_never_negative() -> None:
    y, lo, hi = np.array([0.001, 2.0]), np.array([-0.000684, 1.5]), np.array([0.001 - 1e-18, 2.5])
    y[0] = 0.0010000000000000002  # an ulp above its interval's upper end
    below, above = error_bars(y, lo, hi)
    assert np.all(below >= 0) and np.all(above >= 0)
    assert above[0] == 0.0 and below[0] == y[0] - lo[0]
    assert list(below[1:]) == [0.5] and list(above[1:]) == [0.5]


def test_a_levels_figure_draws_an_interval_ending_an_ulp_inside_its_estimate() -> None:
    """The rows that stopped the Ponytail exact-cut sweep: first_player_win 50 - 0 at `ponytail`."""
    effects = pd.DataFrame({
        "level": ["greedy", "ponytail"], "exact_cut_bonus": ["50", "50"], "metric": ["first_player_win"] * 2,
        "baseline": ["0", "0"], "diff": [0.0, 0.0010000000000000002], "diff_ci_low": [-0.001, -0.000684],
        "diff_ci_high": [0.001, 0.001]})
    inter = pd.DataFrame({"level": ["ponytail"], "exact_cut_bonus": ["50"], "metric": ["first_player_win"],
                          "p_holm": [1.0]})
    fig = levels_figure(effects, inter, "exact_cut_bonus", ["greedy", "ponytail"], [metric("first_player_win")],
                        "title")
    bars = fig.axes[0].containers[0]
    assert len(bars.lines[2][0].get_segments()) == 2  # both levels' intervals are drawn
