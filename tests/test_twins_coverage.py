"""Known answer (slow): the 95% interval of a 50% rate covers 50% about 95% of the time, with and without rotation.

Team 0's win rate with the same strategy in every seat is 1/2 by symmetry (the first dealer is drawn per game),
less half the shared wins. Many small seeded runs are made by cutting one run into blocks of consecutive game
indices (game ``i`` depends on the master seed and ``i`` alone, so a block is exactly a run of those games).

The rotated case is the worst one for a naive analysis: ``greedy`` and ``simcli.strategies.heuristics.greedy:Greedy``
are the same player under two names (a run may rotate them), so every seat-swapped twin repeats its game exactly and n
is doubled for nothing. Counting the twins as independent covers far less than 95%; counting the unit (``game_index``)
brings it back.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from simcli import stats
from simcli.rules.presets import load_rules
from simcli.runs import results
from simcli.runs.execute import execute_run
from simcli.runs.spec import RunSpec, default_chunk_size

BLOCKS = 250
UNITS = 30  # games (pairs of twins with rotation) per small run


def coverage(run_dir: Path) -> tuple[float, float, int]:
    """Share of blocks whose 95% interval of team 0's win rate holds the true rate, twin-aware and naive."""
    run = results.load(run_dir)
    games, deals = run.games, run.deals
    truth = (1 - (games["winner_team"] < 0).mean()) / 2  # shared wins are a win for nobody
    hits = naive_hits = 0
    for b in range(BLOCKS):
        keep = games["game_index"] // UNITS == b
        sub = SimpleNamespace(games=games[keep], deals=deals[deals["game_index"] // UNITS == b],
                              manifest=run.manifest)
        s = stats.summarize(sub, stats.metric("win_team_0"))
        hits += s["ci_low"] <= truth <= s["ci_high"]
        low, high = stats.wilson_interval(int(s["k"]), int(s["n"]))  # every row as an independent game
        naive_hits += low <= truth <= high
    return hits / BLOCKS, naive_hits / BLOCKS, int(s["n_units"])


def play(tmp_path: Path, strategies: tuple[str, ...], rotate: bool, seed: int) -> Path:
    out = tmp_path / ("rotated" if rotate else "plain")
    games = BLOCKS * UNITS
    spec = RunSpec(variant="classic", rules=load_rules("classic").formatted(), strategies=strategies, seed=seed,
                   games=games, rotate_seats=rotate, chunk_size=default_chunk_size(games))
    execute_run(spec, out, jobs=min(2, os.cpu_count() or 1))
    return out


@pytest.mark.slow
def test_coverage_of_a_fifty_percent_rate_without_rotation(tmp_path: Path) -> None:
    cov, naive, units = coverage(play(tmp_path, ("greedy",) * 4, rotate=False, seed=101))
    print(f"\nwithout rotation: coverage {cov:.3f} over {BLOCKS} runs of {units} games (naive {naive:.3f})")
    assert units == UNITS and cov == naive  # without twins nothing changes
    assert 0.92 <= cov <= 0.98


@pytest.mark.slow
def test_coverage_of_a_fifty_percent_rate_with_rotation(tmp_path: Path) -> None:
    alias = "simcli.strategies.heuristics.greedy:Greedy"
    cov, naive, units = coverage(play(tmp_path, ("greedy", alias, "greedy", alias), rotate=True, seed=202))
    print(f"\nwith rotation: coverage {cov:.3f} over {BLOCKS} runs of {units} pairs of twins (naive {naive:.3f})")
    assert units == UNITS
    assert 0.92 <= cov <= 0.98
    assert naive < 0.90  # the twins really are copies: counting them as independent games undercovers
