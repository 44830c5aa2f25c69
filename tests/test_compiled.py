"""The compiled (mypyc) build plays exactly the games of the pure-Python package: traces and run tables byte for byte.

Run with ``pytest -m compiled`` after ``python scripts/compiled.py build`` (CI does both); the folder of the
compiled build comes from ``SIMCLI_COMPILED_PATH`` (default ``build/compiled``). Each side runs in its own
interpreter from a scratch directory, so that the repository's sources cannot shadow the compiled modules.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.compiled

#: (variant, strategies, extra options): every variant with its heuristic and random play, and a search player.
GAMES = [
    ("classic", "greedy", []),
    ("classic", "random,greedy,random,greedy", ["--rule", "num_players=4"]),
    ("classic", "greedy", ["--rule", "num_players=6"]),
    ("ponytail", "ponytail,greedy,ponytail,greedy", []),
    ("ponytail", "ponytail", ["--rule", "new_meld_after_closed_canasta=false"]),
    ("americana", "americana,random,americana,random", ["--rule", "max_hands=3"]),
    ("americana", "americana", ["--rule", "draw_count=2"]),
    ("spanish", "spanish", []),
    ("spanish", "spanish", ["--rule", "num_players=6"]),
    ("classic", "mc:samples=2,greedy,mc:samples=2,greedy", ["--rule", "max_hands=1"]),
    ("handfoot", "handfoot,greedy", ["--rule", "max_hands=2"]),
    ("handfoot", "handfoot", ["--rule", "num_players=6", "--rule", "threes_mode=RED_PENALTY", "--rule", "max_hands=1"]),
    ("handfoot", "mc:samples=2,handfoot", ["--rule", "max_hands=1"]),
]


def compiled_path() -> Path:
    """The compiled build's folder; a clear failure (not a skip) when it was not built."""
    # Absolute: the builds run from scratch directories, where a relative PYTHONPATH would find nothing.
    path = Path(os.environ.get("SIMCLI_COMPILED_PATH", ROOT / "build" / "compiled")).resolve()
    if not (path / "simcli").is_dir():
        pytest.fail(f"no compiled build in {path}: run 'python scripts/compiled.py build' first "
                    "(or set SIMCLI_COMPILED_PATH)")
    return path


def simcli(args: list[str], cwd: Path, compiled: bool) -> subprocess.CompletedProcess[str]:
    """Run ``python -m simcli ARGS`` in ``cwd`` with the pure package or, first on the path, the compiled build."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if compiled:
        env["PYTHONPATH"] = str(compiled_path())
    return subprocess.run([sys.executable, "-m", "simcli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False, timeout=600)


def where(module: str, cwd: Path, compiled: bool) -> str:
    """The file a module is imported from on one side."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if compiled:
        env["PYTHONPATH"] = str(compiled_path())
    out = subprocess.run([sys.executable, "-c", f"import {module} as m; print(m.__file__)"], cwd=cwd, env=env,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.parametrize("module", ["simcli.engine.deal", "simcli.engine.judge", "simcli.engine.view",
                                    "simcli.rules.ruleset", "simcli.engine.worlds",
                                    "simcli.strategies.heuristics.greedy", "simcli.primitives.seed_state"])
def test_compiled_build_is_compiled(module: str, tmp_path: Path) -> None:
    compiled, pure = where(module, tmp_path, True), where(module, tmp_path, False)
    assert compiled.endswith(".so") and compiled.startswith(str(compiled_path())), compiled
    assert pure.endswith(".py"), pure


def test_compiled_functions_call_each_other_directly() -> None:
    """setup.py's DIRECT_CALL_FLAGS reached the compiler: the compiled functions are not exported from the shared
    library (every call between them would go through the PLT), only the modules' init functions are."""
    libraries = list(compiled_path().glob("*__mypyc*.so"))
    assert libraries, f"no mypyc library in {compiled_path()}"
    for library in libraries:
        exported = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True,
                                  check=True).stdout
        assert "PyInit_" in exported, exported[:500]
        assert "CPyDef_" not in exported, [line for line in exported.splitlines() if "CPyDef_" in line][:5]


#: Engine test files whose tests call the engine directly (no mock.patch of engine internals, which cannot reach
#: into compiled callers): hand-dealt scenarios, golden cases, knobs, determinism, traces, strategy loading.
ENGINE_TESTS = [
    "test_scenarios_classic.py", "test_scenarios_ponytail.py", "test_scenarios_americana.py",
    "test_scenarios_spanish.py", "test_golden_classic.py", "test_golden_spanish.py", "test_engine_corrections.py",
    "test_new_meld_after_closed_canasta.py", "test_wing_after_pile_opening.py", "test_knobs_americana_extra.py",
    "test_determinism.py", "test_determinism_americana.py", "test_determinism_spanish.py", "test_trace_replay.py",
    "test_trace_format_doc.py", "test_strategy_base.py", "test_strategy_specs.py",
    "test_wild_upcard_freeze.py", "test_no_leak.py", "test_ruleset.py", "test_seeding.py",
]
#: The few tests of those files that replace engine internals, which compiled callers do not see:
# simcli.engine.game.Deal
#: or prepare_deal (mock.patch), and the compiled sampler's hidden places (the forgetful-sampler test, whose point,
#: that the twins catch a sampler that forgets a place, does not depend on the build; it runs on the pure one).
MOCKING_TESTS = ["test_game_target_8500", "test_black_three_canasta_wins_the_game",
                 "test_a_forgotten_hidden_place_is_caught"]


def test_engine_tests_pass_on_the_compiled_build() -> None:
    """The hand-dealt scenarios, golden cases and determinism tests, run again with the compiled engine first on
    the path (conftest.py refuses to start unless simcli.engine.deal is the compiled module)."""
    env = {**os.environ, "SIMCLI_EXPECT_COMPILED": "1"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
         "-o", f"pythonpath={compiled_path()} .",
         "-m", "not slow and not compiled", "-k", " and ".join(f"not {t}" for t in MOCKING_TESTS),
         *(f"tests/{f}" for f in ENGINE_TESTS)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert re.match(r"\d+ passed", summary) and int(summary.split()[0]) > 500, summary


def test_bench_names_the_build(tmp_path: Path) -> None:
    builds = []
    for compiled in (False, True):
        done = simcli(["bench", "--hands", "20", "--json", "--strategy", "greedy,mc:samples=1,greedy,random"],
                      tmp_path, compiled)
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        builds.append((out["build"], out["strategies_build"]))
    # mc is interpreted on both builds (its time goes to rollouts of the compiled heuristics)
    assert builds == [("pure", "pure"), ("compiled", "mixed")]


#: The console script's entry (``simcli``): unlike ``python -m``, it does not put the working directory first on the
#: path, so that from the repository root the checkout's ``simcli/`` does not shadow the installed one.
SCRIPT = "import sys; del sys.path[0]; from simcli.cli import main; sys.argv[0] = 'simcli'; sys.exit(main())"


@pytest.mark.parametrize("cwd", ["root", "scratch"])
def test_builtins_come_from_the_installed_build_in_the_repository_root(cwd: str, tmp_path: Path) -> None:
    """Run from the repository root, with the checkout on the path after the compiled build, the built-in names still
    resolve to the compiled ``simcli.strategies``: bench names both builds, and ``play`` gives the
    same trace as from a scratch directory."""
    env = {**os.environ, "PYTHONPATH": f"{compiled_path()}{os.pathsep}{ROOT}"}  # the checkout on the path too
    where = ROOT if cwd == "root" else tmp_path
    done = subprocess.run([sys.executable, "-c", SCRIPT, "bench", "--hands", "20", "--json", "--strategy",
                           "greedy,ponytail,americana,spanish"], cwd=where, env=env, capture_output=True,
                          text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["build"], out["strategies_build"]) == ("compiled", "compiled")
    check = ("from simcli.players.loading import load_strategy, strategy_build; import sys; "
             "print(*[sys.modules[load_strategy(n).__module__].__file__ for n in sys.argv[1:]])")
    done = subprocess.run([sys.executable, "-c", "import sys; del sys.path[0]; " + check, "greedy", "random",
                           "simcli.strategies.heuristics.greedy:Greedy"], cwd=where, env=env, capture_output=True,
                          text=True, check=True)
    files = done.stdout.split()
    assert all(f.startswith(str(compiled_path())) and f.endswith(".so") for f in files), files


@pytest.mark.parametrize(("variant", "strategies", "extra"), GAMES,
                         ids=[f"{v}-{s.split(',')[0].split(':')[0]}-{i}" for i, (v, s, _) in enumerate(GAMES)])
def test_same_trace(variant: str, strategies: str, extra: list[str], tmp_path: Path) -> None:
    traces = []
    for compiled in (False, True):
        trace = tmp_path / f"trace-{compiled}.jsonl"
        done = simcli(["play", "--variant", variant, "--seed", "11", "--strategies", strategies, *extra,
                       "--trace", str(trace)], tmp_path, compiled)
        assert done.returncode == 0, done.stderr
        traces.append(trace.read_bytes())
    assert len(traces[0]) > 10_000
    assert traces[0] == traces[1]


def test_playthroughs_on_the_compiled_build(tmp_path: Path) -> None:
    """Every golden playthrough (tests/test_playthroughs.py) replays byte for byte on the compiled build too."""
    from test_playthroughs import NAMES, check

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(compiled_path())
    for name in NAMES:
        work = tmp_path / name
        work.mkdir()
        check(name, work, env)


@pytest.mark.parametrize("variant", ["classic", "ponytail"])
def test_same_run_tables(variant: str, tmp_path: Path) -> None:
    strategy = "ponytail" if variant == "ponytail" else "greedy"
    out = {}
    for compiled in (False, True):
        folder = tmp_path / f"run-{compiled}"
        done = simcli(["run", "--variant", variant, "--games", "30", "--seed", "4", "--strategies", strategy,
                       "--jobs", "2", "--quiet", "--out", str(folder)], tmp_path, compiled)
        assert done.returncode == 0, done.stderr
        out[compiled] = folder
    for name in ("games.parquet", "deals.parquet"):
        assert (out[False] / name).read_bytes() == (out[True] / name).read_bytes(), name
    manifests = [json.loads((out[c] / "run.json").read_text()) for c in (False, True)]
    assert manifests[0]["games"] == manifests[1]["games"] == 30


@pytest.mark.parametrize("cls", ["FailOnTurnFive", "IllegalDiscard"])
def test_same_errors(cls: str, tmp_path: Path) -> None:
    """A strategy subclassing a compiled built-in works, and its failure reads the same in both builds (seat,
    game, seed and turn). The failing strategy plays every seat: it breaks on turn 5 of the games seat 0 dealt."""
    bad = f"{ROOT / 'tests' / 'failing_strategy.py'}:{cls}"
    lines = []
    for compiled in (False, True):
        done = simcli(["run", "--games", "8", "--seed", "1", "--strategies", bad,
                       "--quiet", "--jobs", "1", "--out", str(tmp_path / "err")], tmp_path, compiled)
        assert done.returncode != 0
        shutil.rmtree(tmp_path / "err")  # the same folder for both builds: the error line names it
        lines.append(done.stderr.strip().splitlines()[-1])
    assert "Traceback" not in "".join(lines)
    assert lines[0] == lines[1]
    assert "turn 5" in lines[0] and "cannot load" not in lines[0], lines[0]  # the game failed, not the loading


#: Each built-in heuristic on its variant, for the subclass tests.
HEURISTICS = [("classic", "greedy"), ("classic", "random"), ("ponytail", "ponytail"), ("americana", "americana"),
              ("spanish", "spanish"), ("handfoot", "handfoot")]

#: A user strategy file subclassing a built-in as the README shows: ``Plain`` adds nothing, ``Hoarder`` overrides
#: greedy's ``_avoid`` hook, which the compiled ``choose_draw`` and ``choose_melds`` call: as if every natural rank
#: cost a penalty, it starts a meld only as a whole canasta.
SUBCLASSES = '''
from simcli.players.loading import load_strategy

Base = load_strategy("{name}")


class Plain(Base):
    name = "plain"


class Hoarder(Base):
    name = "hoarder"

    def _avoid(self, rules):
        return frozenset(range(4, 15))
'''


@pytest.mark.parametrize(("variant", "name"), HEURISTICS, ids=[n for _, n in HEURISTICS])
def test_user_subclasses_of_every_builtin_play_alike(variant: str, name: str, tmp_path: Path) -> None:
    """A subclass of each built-in loads and plays on both builds, the same game byte for byte; one that adds
    nothing plays the built-in's own game, and an overridden hook that the built-in's compiled code calls is
    honoured on the compiled build too."""
    mine = tmp_path / "mine.py"
    mine.write_text(SUBCLASSES.format(name=name))
    traces: dict[tuple[str, bool], bytes] = {}
    for cls in ("Plain", "Hoarder", None):
        seat0 = f"{mine}:{cls}" if cls else name
        for compiled in (False, True):
            trace = tmp_path / f"trace-{cls}-{compiled}.jsonl"
            done = simcli(["play", "--variant", variant, "--seed", "5", "--rule", "max_hands=2", "--strategies",
                           f"{seat0},{name},{name},{name}", "--trace", str(trace)], tmp_path, compiled)
            assert done.returncode == 0, done.stderr
            traces[(str(cls), compiled)] = trace.read_bytes()
    for cls in ("Plain", "Hoarder", "None"):
        assert traces[(cls, False)] == traces[(cls, True)], cls
    decisions = {cls: [line for line in traces[(cls, False)].splitlines() if b'"decision"' in line]
                 for cls in ("Plain", "Hoarder", "None")}
    assert decisions["Plain"] == decisions["None"]
    if name != "random":  # random play has no _avoid hook
        assert decisions["Hoarder"] != decisions["None"]
