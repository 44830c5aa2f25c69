"""``simcli plot`` of a rotated run names the unit of a per-strategy metric: the pair of twins (issue 13).

``strategy_win:NAME`` and ``strategy_score:NAME`` of a run with ``--rotate-seats`` have one observation per pair of
twins (the duplicate score over both seatings), so n counts pairs, not games; other metrics still count games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simcli.cli import main
from simcli.commands import plot as plot_mod

GAMES = 4


def cli(*args: Any) -> Any:
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res


@pytest.fixture(scope="module")
def rotated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plot_twins") / "run"
    cli("run", "--games", GAMES, "--seed", 5, "--strategies", "greedy,random,greedy,random", "--rotate-seats",
        "--rule", "max_hands=1", "--jobs", 1, "--out", out, "--quiet")
    return out


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the plot command saves."""
    saved: list[Any] = []
    real = plot_mod.save_figure

    def keep(fig: Any, out: Path) -> None:
        saved.append(fig)
        real(fig, out)

    monkeypatch.setattr(plot_mod, "save_figure", keep)
    return saved


def texts(fig: Any) -> str:
    ax = fig.axes[0]
    legend = ax.get_legend()
    parts = [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.get_yticklabels())]
    if legend is not None:
        parts += [t.get_text() for t in legend.get_texts()]
    return "\n".join(parts)


def test_strategy_win_of_a_rotated_run_counts_pairs_of_twins(rotated: Path, tmp_path: Path,
                                                             figures: list[Any]) -> None:
    res = cli("plot", rotated, "--metric", "strategy_win:greedy", "--out", tmp_path / "w.png")
    assert f"run: n={GAMES} pairs of twins" in res.stdout
    assert "n = pairs of twins" in texts(figures[-1]) and "n = games" not in texts(figures[-1])


def test_strategy_score_histogram_of_a_rotated_run_counts_pairs_of_twins(rotated: Path, tmp_path: Path,
                                                                        figures: list[Any]) -> None:
    res = cli("plot", rotated, "--metric", "strategy_score:greedy", "--out", tmp_path / "s.png")
    assert f"run: n={GAMES} pairs of twins" in res.stdout
    text = texts(figures[-1])
    assert f"(n={GAMES} pairs of twins)" in text and "share of pairs of twins (%)" in text


def test_game_metrics_of_a_rotated_run_still_count_games(rotated: Path, tmp_path: Path, figures: list[Any]) -> None:
    res = cli("plot", rotated, "--metric", "margin", "--out", tmp_path / "m.png")
    assert f"run: n={2 * GAMES} games" in res.stdout
    assert f"(n={2 * GAMES} games)" in texts(figures[-1])
