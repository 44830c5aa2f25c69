"""Strategy strength (all slow): the variant's own strategy beats ``greedy`` in its variant.

Each test plays 2,000 seeded games with ``--rotate-seats`` (4,000 games: every deck is played once with each
partnership) through :func:`simcli.runs.execute.execute_run` with 2 jobs, and asserts that the Wilson 95% lower bound of
the strategy's win rate is above 0.5. Shared wins (possible in Ponytail after its 4 deals) count as not won.
Run with ``pytest -m slow -s tests/test_strategy_strength.py`` to see the rates.

With ``strategies = (S, greedy, S, greedy)`` rotation 0 seats S at 0 and 2 (team 0) and rotation 1 shifts every
strategy one seat (S at 1 and 3: team 1), so S's team is the rotation number.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest

from simcli.rules.presets import load_rules
from simcli.runs.execute import execute_run
from simcli.runs.spec import RunSpec, default_chunk_size
from simcli.stats import wilson_interval

GAMES = 2000


def win_rate(variant: str, strategy: str, run_dir: Path, seed: int = 2025) -> tuple[int, int, int, float]:
    """Play the run; return (wins of ``strategy``, games, shared wins, seconds)."""
    rules = load_rules(variant)
    spec = RunSpec(variant=variant, rules=rules.formatted(), strategies=(strategy, "greedy", strategy, "greedy"),
                   seed=seed, games=GAMES, rotate_seats=True, chunk_size=default_chunk_size(GAMES))
    t0 = time.perf_counter()
    outcome = execute_run(spec, run_dir, jobs=2)
    seconds = time.perf_counter() - t0
    assert outcome.status == "complete" and outcome.errors == 0
    games = pd.read_parquet(run_dir / "games.parquet")
    assert len(games) == 2 * GAMES and set(games["rotation"]) == {0, 1}
    # The seats really are rotated: S sits at seat 0 in rotation 0 and at seat 1 in rotation 1.
    assert (games.loc[games["rotation"] == 0, "strategy_seat_0"] == strategy).all()
    assert (games.loc[games["rotation"] == 1, "strategy_seat_1"] == strategy).all()
    wins = int((games["winner_team"] == games["rotation"]).sum())
    shared = int((games["winner_team"] == -1).sum())
    return wins, len(games), shared, seconds


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "strategy"), [("americana", "americana"), ("ponytail", "ponytail"),
                                                 ("spanish", "spanish"), ("handfoot", "handfoot")])
def test_strategy_beats_greedy(variant: str, strategy: str, tmp_path: Path) -> None:
    wins, n, shared, seconds = win_rate(variant, strategy, tmp_path / "run")
    low, high = wilson_interval(wins, n)
    print(f"\n{variant}: {strategy} beats greedy in {wins}/{n} games = {wins / n:.3f} "
          f"(Wilson 95% [{low:.3f}, {high:.3f}]; {shared} shared wins; {seconds:.1f}s with 2 jobs)")
    assert low > 0.5, f"{strategy} vs greedy in {variant}: {wins}/{n}, Wilson 95% [{low:.3f}, {high:.3f}]"
