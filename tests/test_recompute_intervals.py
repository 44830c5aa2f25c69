"""scripts/recompute_paired_intervals.py (issue 34, item 4): a sweep saved with the old interval of its paired 0/1
rates (Newcombe's) is rendered again with the exact conditional interval, from its own saved table, exactly as the
sweep played again writes it: page, CSV, JSON and figure byte for byte (a plain sweep and a sweep by level)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_helpers import cli
from helpers import load_script

import simcli.stats.comparisons as comparisons
from simcli import stats

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "recompute_paired_intervals.py"
recompute = load_script("recompute_paired_intervals")

SWEEPS = {
    "plain": ("--strategies", "greedy"),
    "levels": ("--levels", "random,greedy"),
}


def newcombe_paired_binary(a: Any, b: Any, confidence: float = stats.CONFIDENCE) -> dict[str, Any]:
    """paired_binary as it was before issue 34: McNemar's exact p with Newcombe's interval."""
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    n11, n10 = int((x & y).sum()), int((x & ~y).sum())
    n01, n00 = int((~x & y).sum()), int((~x & ~y).sum())
    diff, low, high = stats.paired_proportion_diff(n11, n10, n01, n00, confidence)
    return {"test": "mcnemar-exact", "n": len(x), "a": x.mean(), "b": y.mean(), "diff": diff, "ci_low": low,
            "ci_high": high, "p": stats.mcnemar_exact(n10, n01), "a_only": n10, "b_only": n01}


def sweep(how: tuple[str, ...]) -> None:
    """A small sweep into ./runs, saved as ./study/s (the same command line wherever it is run)."""
    cli("sweep", "--variant", "classic", "--rule", "going_out_bonus=100,500", "--set", "max_hands=2", "--games", 40,
        "--seed", 3, *how, "--metric", "first_player_win,win_team_0,deals", "--jobs", 1, "--out", "runs",
        "--save", "study/s")


@pytest.mark.parametrize("kind", sorted(SWEEPS))
def test_a_saved_sweep_is_recomputed_as_it_is_played_again(kind: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for folder in (old, new):
        folder.mkdir()
    monkeypatch.chdir(old)
    with monkeypatch.context() as m:
        m.setattr(comparisons, "paired_binary", newcombe_paired_binary)
        sweep(SWEEPS[kind])
    monkeypatch.chdir(new)
    sweep(SWEEPS[kind])
    commits = recompute._commits(new / "study" / "s.md")
    monkeypatch.chdir(old)
    out = tmp_path / "recomputed"
    study, changes = recompute.recompute(Path("study/s"), out, commits)
    assert changes and all("b = " in line for line in changes)
    for ext in (".md", ".csv", ".json", ".png"):
        assert (out / f"s{ext}").read_bytes() == (new / "study" / f"s{ext}").read_bytes(), ext
    assert (old / "study" / "s.csv").read_bytes() != (new / "study" / "s.csv").read_bytes()  # there was a change


def test_the_discordant_pairs_are_read_back_from_the_saved_numbers() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(5, 120))
        cells = rng.multinomial(n, rng.dirichlet([1, 1, 1, 1]))
        n11, n10, n01, n00 = (int(c) for c in cells)
        diff, low, high = stats.paired_proportion_diff(n11, n10, n01, n00)
        p = stats.mcnemar_exact(n10, n01)
        # with the margins (every game a pair) and without them (a search over the concordant pairs)
        for margins in ((n11 + n10, n11 + n01), None):
            if math.isnan(diff):
                continue
            assert recompute.discordant_pairs(n, diff, p, low, high, margins) == (n10, n01)


def test_a_page_keeps_its_own_words() -> None:
    page = "# Title\n\nMade with ...\n\n![fig](x.png)\n\nSweep of old\n| old |\n\n## Findings\n\nwords\n"
    assert recompute.replace_body(page, "Sweep of new\n| new |\n") == (
        "# Title\n\nMade with ...\n\n![fig](x.png)\n\nSweep of new\n| new |\n\n## Findings\n\nwords\n")
    assert recompute.replace_body("intro\n\nSweep of old\n| old |\n", "Sweep of new\n") == "intro\n\nSweep of new\n"
