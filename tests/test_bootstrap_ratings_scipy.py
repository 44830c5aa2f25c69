"""Tournament bootstrap intervals come from ``scipy.stats.bootstrap`` (issue 13: scipy where it has the computation).

Known answer: the ratings' percentile intervals equal those of ``scipy.stats.bootstrap`` over the game indices
(one index draw shared by every match, refitting all ratings per resample) with the same seed; a bootstrap of a
single pair a match cannot resample anything and is refused in one line, before any game is played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as st

from simcli.cli import main
from simcli.duplicate.pairs import DuplicateError
from simcli.duplicate.ratings import MatchCount, bootstrap_ratings, fit_ratings


def sample_pairs() -> list[tuple[int, int, list[int]]]:
    rng = np.random.default_rng(3)
    return [(0, 1, rng.integers(1, 5, 40).tolist()), (0, 2, rng.integers(0, 5, 40).tolist()),
            (1, 2, rng.integers(0, 4, 40).tolist())]


def test_bootstrap_ratings_are_scipy_bootstrap_over_game_indices(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = sample_pairs()
    calls: list[dict[str, Any]] = []
    real = st.bootstrap

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(st, "bootstrap", spy)
    got = bootstrap_ratings(3, pairs, 60, seed=4)
    assert len(calls) == 1 and calls[0]["method"] == "percentile" and calls[0]["n_resamples"] == 60
    monkeypatch.undo()

    halves = [np.asarray(h, dtype=float) for _, _, h in pairs]
    fisher = fit_ratings(3, [MatchCount(a, b, h.sum() / 2, 80) for (a, b, _), h in zip(pairs, halves, strict=True)])

    def refit(idx: np.ndarray) -> np.ndarray:
        counts = [MatchCount(a, b, h[idx].sum() / 2, 80) for (a, b, _), h in zip(pairs, halves, strict=True)]
        return np.asarray(fit_ratings(3, counts).rating)

    ref = real((np.arange(40),), refit, n_resamples=60, vectorized=False, method="percentile",
               rng=np.random.default_rng(4))
    assert got.rating == pytest.approx(fisher.rating)
    assert got.ci_low == pytest.approx(ref.confidence_interval.low, abs=1e-6)
    assert got.ci_high == pytest.approx(ref.confidence_interval.high, abs=1e-6)
    assert got.se == pytest.approx(ref.bootstrap_distribution.std(axis=-1), abs=1e-6)


def test_a_bootstrap_of_one_pair_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DuplicateError, match="at least 2 pairs a match, not 1"):
        bootstrap_ratings(2, [(0, 1, [3])], 10)
    res = CliRunner().invoke(main, ["tournament", "greedy,random", "--games", "2", "--bootstrap", "20",
                                    "--jobs", "1", "--out", str(tmp_path / "t")])
    assert res.exit_code == 1 and "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert lines == ["Error: --bootstrap resamples the pairs of each match: it needs at least 2 pairs (--games 4), "
                     "not 1"]
    assert not (tmp_path / "t").exists()
