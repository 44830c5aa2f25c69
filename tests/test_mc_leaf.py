"""``mc``'s leaf evaluator (issue 31, item 5): a model of absolute values (``simcli train fit --target absolute``)
scores a rollout cut at its horizon (``mc:horizon=N,leaf=MODEL``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from leak_twins import twins

from simcli.cli import main
from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules
from simcli.strategies.heuristics.greedy import Greedy
from simcli.strategies.learnt.model import ModelError, load_model
from simcli.strategies.learnt.net_features import decision_features
from simcli.strategies.search.mc import MonteCarlo
from simcli.strategies.search.mc_leaf import leaf_option
from simcli.strategies.search.oracle import Oracle
from simcli.strategy import Strategy
from simcli.training.data import read_data
from simcli.training.fit import FitSettings, fit, relative_targets

TINY = ["--strategies", "mc:samples=2,greedy,mc:samples=2,greedy", "-n", "10", "--chunk", "5", "--seed", "3", "-q"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A tiny data folder (ten games) and the absolute and relative models fitted to it."""
    root = tmp_path_factory.mktemp("leaf")
    data = root / "data"
    result = CliRunner().invoke(main, ["train", "data", str(data), *TINY])
    assert result.exit_code == 0, result.output
    models = []
    for target in ("absolute", "relative"):
        model = root / f"{target}.npz"
        result = CliRunner().invoke(main, ["train", "fit", str(data), str(model), "--epochs", "6", "-q",
                                           "--hidden", "16", "--target", target])
        assert result.exit_code == 0, result.output
        models.append(model)
    assert "the mean:" in CliRunner().invoke(main, ["train", "fit", str(data), str(root / "x.npz"), "--epochs", "1",
                                                    "-q", "--hidden", "4", "--target", "absolute"]).output
    return data, models[0], models[1]


def test_absolute_fit_rates_positions_not_only_candidates(tiny: tuple[Path, Path, Path]) -> None:
    data, absolute, relative = tiny
    _, frame, x = read_data(data)
    target = np.asarray(frame["mean"], dtype=np.float64)
    a, r = load_model(absolute), load_model(relative)
    assert a.meta["target"] == "absolute" and r.meta["target"] == "relative"
    assert "rmse_mean_baseline" in a.meta["held_out"] and "rmse_mean_baseline" not in r.meta["held_out"]
    va, vr = a.values(x.astype(np.float64)), r.values(x.astype(np.float64))
    # the absolute model's level is the data's (the centring went back into its output bias); the relative one's is 0
    assert abs(va.mean() - target.mean()) < 0.25 * abs(target.mean())
    assert abs(vr.mean()) < 0.25 * abs(target.mean())
    # it beats a constant on the rows it was fitted to (the absolute values, not only their differences)
    assert np.mean((va - target) ** 2) < np.mean((target - target.mean()) ** 2)
    # the relative target is unchanged: a candidate's mean minus its decision's
    sums = pd.Series(relative_targets(frame)).groupby(np.asarray(frame["decision"])).sum()
    assert np.allclose(sums, 0.0)


def test_absolute_fit_is_reproducible(tiny: tuple[Path, Path, Path], tmp_path: Path) -> None:
    data, _, _ = tiny
    settings = FitSettings(hidden=4, epochs=1, seed=5, target="absolute")
    fit(data, tmp_path / "a.npz", settings)
    fit(data, tmp_path / "b.npz", settings)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def _game(spec: str, seed: int = 4) -> Any:
    return play_game(load_rules("classic"), [spec, "greedy", spec, "greedy"], seed, 0)


def _search_values(options: dict[str, Any], seed: int = 2) -> list[list[float | None]]:
    """The values ``mc`` gave the candidates at the searched decisions of the first deal's first turns."""
    out: list[list[float | None]] = []
    for st, seat, phase in _states(seed)[:6]:
        player = MonteCarlo(np.random.default_rng(1), **options)
        getattr(player, f"choose_{phase}")(PlayerView(st.clone(), seat))
        out.append(player.last_search.means)
    return out


_STATES: dict[int, list[tuple[DealState, int, str]]] = {}


class _Collect(Strategy):
    """Greedy, keeping a copy of the state at each of its draw and discard decisions."""

    def __init__(self, rng: np.random.Generator, states: list[tuple[DealState, int, str]]):
        super().__init__(rng)
        self.greedy = Greedy(rng)
        self.states = states

    def choose_draw(self, view: PlayerView) -> Any:
        self.states.append((view._st.clone(), view.seat, "draw"))
        return self.greedy.choose_draw(view)

    def choose_melds(self, view: PlayerView) -> Any:
        return self.greedy.choose_melds(view)

    def choose_discard(self, view: PlayerView) -> Any:
        self.states.append((view._st.clone(), view.seat, "discard"))
        return self.greedy.choose_discard(view)


def _states(seed: int) -> list[tuple[DealState, int, str]]:
    """States of decisions of seat 0 in a greedy game of Classic (from the fifth turn on: pile takes are possible)."""
    if seed not in _STATES:
        states: list[tuple[DealState, int, str]] = []
        rng = np.random.default_rng(0)
        players = [_Collect(rng, states), Greedy(rng), Greedy(rng), Greedy(rng)]
        play_game(load_rules("classic"), ["greedy"] * 4, seed, strategies=players)
        _STATES[seed] = [s for s in states if s[0].turn >= 5 and s[0].deal_index == 0][:40]
    return _STATES[seed]


def test_leaf_values_are_the_models(tiny: tuple[Path, Path, Path]) -> None:
    """The leaf's fast pass (rows as counts, plus the output bias) gives Model.values of the float rows, signed by
    team."""
    _, absolute, _ = tiny
    leaf = leaf_option(str(absolute), 2)
    assert leaf is not None
    for st, seat, _ in _states(2)[:10]:
        view = PlayerView(st.clone(), seat)
        draw = Greedy(np.random.default_rng(0)).choose_draw(view)
        expected = float(leaf.model.values(decision_features(view, "draw", [draw]))[0])
        assert leaf.rate(view, draw, view.team) == pytest.approx(expected, abs=1e-6)
        assert leaf.rate(view, draw, 1 - view.team) == pytest.approx(-expected, abs=1e-6)


def test_leaf_changes_the_search_values(tiny: tuple[Path, Path, Path]) -> None:
    _, absolute, _ = tiny
    cut = _search_values({"samples": 2, "horizon": 2})
    leaf = _search_values({"samples": 2, "horizon": 2, "leaf": str(absolute)})
    assert len(cut) == len(leaf) and any(len(v) > 1 for v in cut)
    assert cut != leaf
    # and the games: the same seed, other decisions
    assert _game("mc:samples=2,horizon=2").totals != _game(f"mc:samples=2,horizon=2,leaf={absolute}").totals


def test_leaf_games_repeat(tiny: tuple[Path, Path, Path]) -> None:
    _, absolute, _ = tiny
    spec = f"mc:samples=2,horizon=3,leaf={absolute}"
    first, again = _game(spec, 6), _game(spec, 6)
    assert first.totals == again.totals and first.decisions == again.decisions


@pytest.mark.parametrize(("options", "message"), [
    ({"leaf": "LEAF"}, "set horizon to a number of turns >= 1"),
    ({"leaf": "true", "horizon": 4}, "leaf must be the path of a model file of absolute values"),
    ({"leaf": 3, "horizon": 4}, "leaf must be the path of a model file of absolute values"),
    ({"leaf": "/nonexistent/leaf.npz", "horizon": 4}, "not found"),
    ({"leaf": "RELATIVE", "horizon": 4}, "fitted to relative values"),
])
def test_bad_leaf_options_are_refused(tiny: tuple[Path, Path, Path], options: dict[str, Any], message: str) -> None:
    _, absolute, relative = tiny
    options = {k: {"LEAF": str(absolute), "RELATIVE": str(relative)}.get(v, v) if isinstance(v, str) else v
               for k, v in options.items()}
    with pytest.raises((ValueError, ModelError), match=message) as caught:
        MonteCarlo(np.random.default_rng(0), **options)
    assert "\n" not in str(caught.value)


def test_leaf_refuses_games_of_three_teams(tiny: tuple[Path, Path, Path]) -> None:
    _, absolute, _ = tiny
    rules = load_rules("classic", {"num_players": 3, "team_size": 1})
    with pytest.raises(Exception, match="two teams"):
        play_game(rules, [f"mc:samples=2,horizon=2,leaf={absolute}", "greedy", "greedy"], 1, 0)


def test_leaf_reads_no_hidden_card(tiny: tuple[Path, Path, Path]) -> None:
    """The twins of tests/test_no_leak.py: every hidden card dealt anew (and each hidden place's cards swapped), the
    leaf search decides the same with the same values; the oracle with a leaf (it searches the true state) tells
    the twins apart, so the check can fail."""
    _, absolute, _ = tiny
    options = {"samples": 2, "horizon": 2, "leaf": str(absolute)}
    rng = np.random.default_rng(7)
    compared = apart = 0
    for st, seat, phase in _states(3)[::4]:
        seed = int(rng.integers(1 << 30))

        def decide(cls: type[MonteCarlo], state: DealState, seed: int = seed, seat: int = seat,
                   phase: str = phase) -> Any:
            player = cls(np.random.default_rng(seed), **options)
            decision = getattr(player, f"choose_{phase}")(PlayerView(state.clone(), seat))
            return decision, player.last_search.means

        mine, oracle = decide(MonteCarlo, st), decide(Oracle, st)
        for name, twin in twins(st, seat, rng):
            assert decide(MonteCarlo, twin) == mine, name
            compared += 1
            apart += name == "all" and decide(Oracle, twin) != oracle
    assert compared >= 10 and apart >= 1
