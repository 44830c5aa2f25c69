"""The compiled build: ``pip install .`` compiles the engine and built-in strategies where it can.

Everything else about the package is declared in pyproject.toml. Whether a build compiles is decided by
``_build/compile_choice.py`` (shared with the build backend): a wheel is compiled where a C compiler and the Python
headers are found and falls back to the pure-Python package otherwise (one line on stderr says why and how to get
the compiled build; a compiler that fails falls back the same way); an editable install is pure unless
``SIMCLI_COMPILE=1``; ``SIMCLI_COMPILE=0`` forces pure and ``SIMCLI_COMPILE=1`` makes a failure an error. The
modules in :data:`COMPILED` are compiled by mypyc into C extensions that sit beside the .py files and are imported
instead of them; they play the same games bit for bit (tests/test_compiled.py compares traces and run tables of
both builds). The build's choice is written into the package as ``simcli/engine/build.json``
(:mod:`simcli.engine.builds` reads it for ``simcli --version`` and ``simcli bench``).

The built-in strategies live in the repository folder ``strategies/`` but are the package ``simcli.strategies``
(pyproject.toml's package-dir), and mypyc names a module after its place on disk, so the sources are first copied
into ``build/mypyc-src/simcli/`` with the strategies at ``simcli/strategies/``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "_build"))
from compile_choice import COMPILE_ENV, Choice, choose_here  # noqa: E402

#: The record of the build's choice inside the package, read by simcli.engine.builds.
RECORD = Path("simcli", "engine", "build.json")

#: The hot path: the rules core, the game loop, the strategy view and helpers, the sampler of worlds (every
#: search decision samples), the typed rule set (compiled code then reads knobs as native attributes), and the
#: heuristic strategies. Left interpreted: strategy_base.py and strategy.py (the
#: Strategy base class is subclassed by user strategies), the CLI, runs, analysis, rules loading and the search
#: players (their time is spent in the compiled rollouts, which start in the compiled forward model,
#: simcli/players/forward.py: 2% fewer instructions in a Classic mc game once it was compiled). The learnt
#: player's features and its decisions at the table (net_features, net_match, net_play) are compiled: they are most
#: of its time a decision (issue 31); so are the candidate lists it shares with the search players (candidates).
#: Code-generation flags for GCC and Clang. mypyc's functions are global symbols of a shared library, so by default
#: every call between them goes through the PLT, an indirect jump (and may not be inlined), in case another library
#: interposes a symbol of the same name; nothing does here. With these the calls are direct: the same
#: instructions, a third fewer mispredicted indirect branches, 9-18% more hands/s for the heuristics
#: (docs/performance.md, step 15). A compiler that refuses them builds without them (BuildExt).
DIRECT_CALL_FLAGS = ["-fno-semantic-interposition", "-fvisibility=hidden"]

COMPILED = [
    "simcli/primitives/cards.py", "simcli/primitives/seed_state.py", "simcli/rules/ruleset.py",
    "simcli/engine/state.py", "simcli/engine/meld_book.py", "simcli/engine/table_layout.py", "simcli/engine/melds.py",
    "simcli/engine/scoring.py", "simcli/engine/trace_json.py", "simcli/engine/judge.py",
    "simcli/engine/discard_legality.py", "simcli/engine/meld_legality.py", "simcli/engine/core.py",
    "simcli/engine/view.py", "simcli/engine/worlds.py",
    "simcli/engine/deal.py", "simcli/engine/dealing.py", "simcli/engine/melding.py", "simcli/engine/ending.py",
    "simcli/engine/game.py", "simcli/engine/features/threes.py", "simcli/engine/features/ponies.py",
    "simcli/engine/features/wings.py", "simcli/engine/features/special.py", "simcli/engine/features/spanish_pile.py",
    "simcli/engine/features/handfoot.py",
    "simcli/players/planning.py", "simcli/players/forward.py", "simcli/strategies/heuristics/greedy.py",
    "simcli/strategies/heuristics/ponytail.py", "simcli/strategies/heuristics/americana.py",
    "simcli/strategies/heuristics/spanish.py", "simcli/strategies/heuristics/random_play.py",
    "simcli/strategies/heuristics/handfoot.py",
    "simcli/strategies/learnt/net_features.py", "simcli/strategies/learnt/net_match.py",
    "simcli/strategies/search/candidates.py",
    "simcli/strategies/learnt/net_play.py",
]


def _staged_sources() -> Path:
    """Copy simcli/ and strategies/ to build/mypyc-src/simcli/ (strategies as simcli/strategies/)."""
    stage = ROOT / "build" / "mypyc-src"
    shutil.rmtree(stage, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c")
    shutil.copytree(ROOT / "simcli", stage / "simcli", ignore=ignore)
    shutil.copytree(ROOT / "strategies", stage / "simcli" / "strategies", ignore=ignore)
    return stage


def _fall_back(choice: Choice, reason: str) -> Choice:
    """The pure build after a compiled one could not be made: an error if it was asked for, else the one line."""
    if choice.required:
        raise SystemExit(f"{COMPILE_ENV}=1 asks for the compiled build, but {reason}")
    pure = Choice(False, reason=reason)
    print(pure.fallback_line(), file=sys.stderr)
    return pure


def _choice() -> Choice:
    """This build's decision (an editable install is pure unless asked; see _build/compile_choice.py)."""
    try:
        return choose_here(editable="editable_wheel" in sys.argv)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


CHOICE = _choice()


def _extensions() -> list:
    """The mypyc extensions when this build compiles (none for metadata only: the wheel build compiles)."""
    global CHOICE
    if "egg_info" in sys.argv or "dist_info" in sys.argv:
        return []  # metadata only: nothing is built, nothing to say
    if not CHOICE.compile:
        if CHOICE.fallback_line():
            print(CHOICE.fallback_line(), file=sys.stderr)
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        CHOICE = _fall_back(CHOICE, "mypy (mypyc) is not in the build environment: pip install mypy")
        return []
    stage = _staged_sources()
    cwd = os.getcwd()
    os.chdir(stage)  # mypyc derives module names from paths relative to here
    try:
        extensions = mypycify(["--ignore-missing-imports", "--no-warn-unused-ignores", *COMPILED], opt_level="3",
                              target_dir=str(ROOT / "build" / "mypyc"))
        if os.name == "posix":  # GCC and Clang; MSVC takes other flags
            for ext in extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, *DIRECT_CALL_FLAGS]
        return extensions
    finally:
        os.chdir(cwd)


def _source_commit() -> str | None:
    """The git commit of the tree being built, when it is a git checkout of its own (an sdist unpacked inside some
    other repository is not): an installed package has no checkout to ask, so the build records it."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = top.stdout.split()
    if top.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != ROOT:
        return None
    return lines[1]


def _record(build_lib: str) -> None:
    """Write the build's choice and the source commit into the package being built (simcli --version and bench read
    the choice; run.json and the match manifests the commit: simcli.runs.provenance)."""
    path = Path(build_lib) / RECORD
    if path.parent.is_dir():
        record = {"build": "compiled" if CHOICE.compile else "pure", "reason": CHOICE.reason}
        commit = _source_commit()
        if commit:  # a build outside git records no commit (run.json's git_commit is then null)
            record["git_commit"] = commit
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")


class BuildPy(build_py):
    """build_py that records the build's choice in the package."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:  # an editable install reads the sources: no record (simcli says it is pure)
            _record(self.build_lib)


class BuildExt(build_ext):
    """build_ext that falls back to the pure package when the C compiler fails (unless SIMCLI_COMPILE=1)."""

    def run(self) -> None:
        global CHOICE
        failure = self._build()
        if failure is not None and self._without_direct_calls():  # a compiler that refuses the flags: once more
            print(f"simcli: building again without {' '.join(DIRECT_CALL_FLAGS)} (the C compiler refused them)",
                  file=sys.stderr)
            failure = self._build()
        if failure is not None:  # distutils' CompileError, LinkError, a missing compiler, ...: all fall back
            CHOICE = _fall_back(CHOICE, f"the C compiler failed: {failure}")
            for ext in self.extensions:  # the extensions built before the failure: none may shadow the sources
                built = Path(self.get_ext_fullpath(ext.name))
                built.unlink(missing_ok=True)
            self.extensions = []
            if not self.inplace:
                _record(self.build_lib)

    def _build(self) -> str | None:
        """Build the extensions; what went wrong, in a line, or None."""
        try:
            super().run()
        except Exception as exc:
            return f"{type(exc).__name__}: {str(exc)[:200]}"
        return None

    def _without_direct_calls(self) -> bool:
        """Drop DIRECT_CALL_FLAGS from the extensions; whether any had them."""
        had = False
        for ext in self.extensions:
            kept = [a for a in ext.extra_compile_args if a not in DIRECT_CALL_FLAGS]
            had = had or len(kept) != len(ext.extra_compile_args)
            ext.extra_compile_args = kept
        return had


setup(ext_modules=_extensions(), cmdclass={"build_py": BuildPy, "build_ext": BuildExt})
