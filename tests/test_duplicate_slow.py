"""Slow known answer of the SPRT: a strategy against itself accepts H1 at a rate no higher than alpha.

``random`` against ``ShiftedRandom`` (the same policy on another random stream) is a true null: the score is
1/2 exactly. Over many seeds the share of matches whose SPRT (elo0=0, elo1=100, alpha = beta = 0.05) accepts
H1 must be consistent with a rate of at most alpha (one-sided binomial test at the 1% level). One-deal games
keep each match near a second; about 4 minutes in all on one core.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy import stats as st

from simcli.duplicate.match import SprtSettings, play_match
from simcli.rules.presets import load_rules

SEEDS = 120


@pytest.mark.slow
@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_self_play_accepts_h1_no_more_often_than_alpha(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    rs = load_rules("classic", {"max_hands": 1})
    sprt = SprtSettings(elo0=0, elo1=100, alpha=0.05, beta=0.05, model=model)
    results = [play_match("classic", rs, "random", "duplicate_strategies:ShiftedRandom", seed, 400, batch=10,
                          sprt=sprt).sprt["result"] for seed in range(SEEDS)]
    h1 = results.count("H1")
    assert st.binomtest(h1, SEEDS, 0.05, alternative="greater").pvalue > 0.01, (h1, results)
    # The test does decide: most matches end in H0 well before the cap.
    assert results.count("H0") >= SEEDS * 0.8
