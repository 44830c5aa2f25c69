"""Strategy specs: ``NAME:key=value,...`` options, file paths, ``module:Class`` from the working directory,
the old ``strategies.X:Class`` names, and strategies whose ``__init__`` raises."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from simcli.cli import main
from simcli.players.loading import load_strategy, parse_strategy_list, strategy_options
from simcli.players.seating import make_strategies, play_game
from simcli.players.specs import StrategyLookupError, split_strategy_list
from simcli.primitives.errors import StrategyError
from simcli.rules.presets import load_rules

REPO = Path(__file__).resolve().parent.parent

#: A strategy with options: ``high`` discards the most valuable legal card instead of the cheapest, which changes
#: how games go; the other options only check the parsing.
OPTIONED = textwrap.dedent('''
    from simcli.primitives.cards import CARD_VALUES
    from simcli.strategy import Strategy

    class Optioned(Strategy):
        name = "optioned"

        def __init__(self, rng, *, high: bool = False, samples: int = 32, temp: float = 1.0, label: str = "x"):
            super().__init__(rng)
            self.high, self.samples, self.temp, self.label = high, samples, temp, label

        def choose_discard(self, view):
            legal = view.legal_discards()
            if self.high:
                return max(legal, key=lambda r: (CARD_VALUES[r], r))
            return super().choose_discard(view)
''')

BOOM = textwrap.dedent('''
    from simcli.strategy import Strategy

    class Boom(Strategy):
        def __init__(self, rng):
            raise ValueError("no table for me")
''')


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh working directory; sys.path is restored afterwards (loading from the cwd may extend it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return tmp_path


def unique_file(folder: Path, text: str) -> Path:
    """A strategy file with a name no other test uses (lookups are cached by name)."""
    path = folder / f"strat_{uuid.uuid4().hex[:8]}.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_list_splitting_keeps_options_with_their_strategy() -> None:
    assert split_strategy_list("mc:samples=32,depth=2,greedy") == ["mc:samples=32,depth=2", "greedy"]
    assert split_strategy_list("greedy, mod:Cls ,x.py:a=1") == ["greedy", "mod:Cls", "x.py:a=1"]
    # run.json stores the per-seat specs; --resume joins them with commas and must get the same seats back.
    seats = ["mc:samples=32,depth=2", "greedy", "mc:samples=32,depth=2", "x.py:Cls"]
    assert split_strategy_list(",".join(seats)) == seats
    with pytest.raises(StrategyLookupError, match="'samples=3' after 'greedy' belongs to no strategy"):
        split_strategy_list("greedy,samples=3")
    with pytest.raises(StrategyLookupError, match="belongs to no strategy; write NAME:samples=3"):
        split_strategy_list("samples=3")


def test_options_are_typed_and_passed_as_keywords(workdir: Path) -> None:
    path = unique_file(workdir, OPTIONED)
    spec = f"{path.name}:high=true,samples=3,temp=2,label=7"
    assert strategy_options(spec) == {"high": True, "samples": 3, "temp": 2.0, "label": "7"}
    # One spec fills every seat; the spec as given is each instance's name (errors) and the results' name.
    names = parse_strategy_list(spec, 4)
    assert names == [spec] * 4
    players = make_strategies(names, 1, 0)
    assert [(p.high, p.samples, p.temp, p.label, p.name) for p in players] == [(True, 3, 2.0, "7", spec)] * 4
    result = play_game(load_rules("classic", {"max_hands": 1}), names, 1, 0)
    assert result.strategies == names


def test_an_option_changes_the_games(workdir: Path) -> None:
    path = unique_file(workdir, OPTIONED)
    rules = load_rules("classic", {"max_hands": 2})
    low = [play_game(rules, [path.name] * 4, 3, g).totals for g in range(3)]
    high = [play_game(rules, [f"{path.name}:high=true"] * 4, 3, g).totals for g in range(3)]
    assert low != high


@pytest.mark.parametrize(("option", "message"), [
    ("samples=many", "bad value 'many' for option 'samples' of strategy '{spec}': expected an integer (default 32)"),
    ("high=1", "bad value '1' for option 'high' of strategy '{spec}': expected true or false (default False)"),
    ("temp=warm", "bad value 'warm' for option 'temp' of strategy '{spec}': expected a number (default 1.0)"),
    ("depth=2", "unknown option 'depth' for strategy '{name}' in '{spec}'; allowed: high=False, samples=32, "
                "temp=1.0, label='x'"),
    ("samples=1,samples=2", "option 'samples' given twice in strategy '{spec}'"),
])
def test_bad_options_are_one_line_errors_naming_strategy_and_option(workdir: Path, option: str,
                                                                      message: str) -> None:
    path = unique_file(workdir, OPTIONED)
    spec = f"{path.name}:{option}"
    with pytest.raises(StrategyLookupError) as info:
        parse_strategy_list(spec, 4)
    assert str(info.value) == message.format(spec=spec, name=path.name)


def test_a_strategy_without_options_says_so() -> None:
    with pytest.raises(StrategyLookupError, match="unknown option 'x' for strategy 'greedy' .*it takes no options"):
        parse_strategy_list("greedy:x=1", 4)


def test_file_paths_relative_and_absolute_through_the_cli(workdir: Path) -> None:
    sub = workdir / "bots"
    sub.mkdir()
    path = unique_file(sub, OPTIONED)
    rel = f"bots/{path.name}"
    for spec in (rel, str(path), f"{rel}:Optioned", f"{path}:high=true"):
        res = CliRunner().invoke(main, ["play", "--seed", "2", "--strategies",
                                        f"{spec},greedy,{spec},greedy", "--rule", "max_hands=1"])
        assert res.exit_code == 0, res.output
        assert f"0:{spec}(team 0)" in res.output


def test_a_run_names_the_strategy_by_its_spec(workdir: Path) -> None:
    path = unique_file(workdir, OPTIONED)
    spec = f"{path.name}:high=true,samples=4"
    res = CliRunner().invoke(main, ["run", "-n", "4", "-j", "2", "--seed", "1", "-q", "--rule", "max_hands=1",
                                    "--strategies", f"{spec},greedy,{spec},greedy", "--out", "r"])
    assert res.exit_code == 0, res.output
    games = pd.read_parquet(workdir / "r" / "games.parquet")
    assert games["strategy_seat_0"].tolist() == [spec] * 4
    assert games["strategy_seat_1"].tolist() == ["greedy"] * 4


def test_module_class_from_the_working_directory_without_pythonpath(tmp_path: Path) -> None:
    # Like the installed `simcli` script, the launcher does not put the working directory on sys.path.
    module = f"mybot_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(OPTIONED, encoding="utf-8")
    launcher = tmp_path / "bin" / "simcli_launcher.py"
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom simcli.cli import main\nsys.exit(main())\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # only the code under test, not the strategy's folder
    out = subprocess.run([sys.executable, str(launcher), "play", "--strategies", f"{module}:Optioned:high=true",
                          "--rule", "max_hands=1"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"0:{module}:Optioned:high=true(team 0)" in out.stdout


def test_a_builtin_by_its_module_path_is_the_same_class() -> None:
    # One name for the built-ins (issue 46): simcli.strategies.KIND.MODULE, in a checkout as installed.
    assert load_strategy("simcli.strategies.heuristics.greedy:Greedy") is load_strategy("greedy")
    assert load_strategy("simcli.strategies.search.oracle:Oracle") is load_strategy("oracle")
    assert load_strategy("ponytail").__name__ == "Ponytail"
    bare = ".".join(("strategies", "greedy"))  # the folder's own name is no package (spelt so that
    with pytest.raises(StrategyLookupError, match=f"no module named '{bare}'"):  # test_packaging's scan passes)
        load_strategy(f"{bare}:Greedy")


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: "missing_bot.py", "strategy file 'missing_bot.py' not found (relative to {cwd})"),
    (lambda d: unique_file(d, "X = 1\n").name, "cannot load strategy '{spec}': {spec} defines no strategy; "
                                              "define a subclass of simcli.strategy.Strategy or set STRATEGY"),
    (lambda d: unique_file(d, "X = 1\n").stem + ":Bot", "cannot load strategy '{spec}': {mod} has no 'Bot' "
                                                        "(it defines no strategy)"),
    (lambda d: "no_such_module_xyz:Bot", "cannot load strategy '{spec}': no module named 'no_such_module_xyz'"),
    (lambda d: unique_file(d, "raise ImportError('needs torch')\n").name,
     "cannot load strategy '{spec}': running {spec} raised ImportError: needs torch"),
])
def test_strategies_that_cannot_be_found(workdir: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    spec = make(workdir)
    with pytest.raises(StrategyLookupError) as info:
        parse_strategy_list(spec, 4)
    assert str(info.value).startswith(message.format(spec=spec, cwd=workdir, mod=spec.partition(":")[0]))


def test_a_strategy_whose_init_raises_is_named_like_other_strategy_errors(workdir: Path) -> None:
    path = unique_file(workdir, BOOM)
    with pytest.raises(StrategyError) as info:
        play_game(load_rules("classic"), ["greedy", path.name, "greedy", "greedy"], 42, 7)
    e = info.value
    assert (e.strategy, e.seat, e.game_index, e.seed) == (path.name, 1, 7, 42)
    assert str(e) == (f"strategy '{path.name}' at seat 1 raised ValueError: no table for me when built for game 7 "
                      "(seed 42)")
