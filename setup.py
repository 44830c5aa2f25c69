"""Optional compiled build: ``SIMCLI_COMPILE=1 pip install .`` compiles the engine and built-in strategies.

Everything else about the package is declared in pyproject.toml. Without ``SIMCLI_COMPILE`` this adds nothing and
the package is pure Python (the default and the reference). With it, the modules in :data:`COMPILED` are compiled
by mypyc into C extensions that sit beside the .py files and are imported instead of them; they play the same
games bit for bit (tests/test_compiled.py compares traces and run tables of both builds).

The built-in strategies live in the repository folder ``strategies/`` but are the package ``simcli.strategies``
(pyproject.toml's package-dir), and mypyc names a module after its place on disk, so the sources are first copied
into ``build/mypyc-src/simcli/`` with the strategies at ``simcli/strategies/``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent

#: The hot path: the rules core, the game loop, the strategy view and helpers, the sampler of worlds (every
#: search decision samples), the typed rule set (compiled code then reads knobs as native attributes), and the
#: heuristic strategies. Left interpreted: strategy_base.py and strategy.py (the
#: Strategy base class is subclassed by user strategies), the CLI, runs, analysis, rules loading and the search
#: players (their time is spent in the compiled rollouts).
COMPILED = [
    "simcli/primitives/cards.py", "simcli/rules/ruleset.py", "simcli/engine/state.py", "simcli/engine/meld_book.py",
    "simcli/engine/table_layout.py", "simcli/engine/melds.py", "simcli/engine/scoring.py",
    "simcli/engine/trace_json.py", "simcli/engine/judge.py", "simcli/engine/meld_legality.py",
    "simcli/engine/core.py", "simcli/engine/view.py", "simcli/engine/worlds.py", "simcli/engine/deal.py",
    "simcli/engine/dealing.py", "simcli/engine/melding.py", "simcli/engine/ending.py", "simcli/engine/game.py",
    "simcli/engine/features/threes.py", "simcli/engine/features/ponies.py", "simcli/engine/features/wings.py",
    "simcli/engine/features/special.py", "simcli/engine/features/spanish_pile.py", "simcli/players/planning.py",
    "simcli/strategies/greedy.py", "simcli/strategies/ponytail.py", "simcli/strategies/americana.py",
    "simcli/strategies/spanish.py", "simcli/strategies/random_play.py",
]


def _compiling() -> bool:
    return os.environ.get("SIMCLI_COMPILE", "").strip().lower() in ("1", "true", "yes", "on")


def _staged_sources() -> Path:
    """Copy simcli/ and strategies/ to build/mypyc-src/simcli/ (strategies as simcli/strategies/)."""
    stage = ROOT / "build" / "mypyc-src"
    shutil.rmtree(stage, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c")
    shutil.copytree(ROOT / "simcli", stage / "simcli", ignore=ignore)
    shutil.copytree(ROOT / "strategies", stage / "simcli" / "strategies", ignore=ignore)
    return stage


def _extensions() -> list:
    if not _compiling():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        if "egg_info" in sys.argv:
            return []  # setuptools asking for build requirements: the backend adds mypy, the build has it
        raise SystemExit("SIMCLI_COMPILE=1 needs mypy (mypyc) in the build environment: pip install mypy") from None

    if "egg_info" in sys.argv or "dist_info" in sys.argv:
        return []  # metadata only: nothing is compiled (the wheel build itself compiles)
    stage = _staged_sources()
    cwd = os.getcwd()
    os.chdir(stage)  # mypyc derives module names from paths relative to here
    try:
        return mypycify(["--ignore-missing-imports", "--no-warn-unused-ignores", *COMPILED], opt_level="3",
                        target_dir=str(ROOT / "build" / "mypyc"))
    finally:
        os.chdir(cwd)


setup(ext_modules=_extensions())
