"""Compiled by default (issue 35): which build an install makes, and what simcli says about the build it runs.

The decision (``_build/compile_choice.py``, shared by the build backend and setup.py): a wheel compiles where a C
compiler and the Python headers are found and falls back to pure Python with one line otherwise; an editable
install is pure unless ``SIMCLI_COMPILE=1``; ``SIMCLI_COMPILE=0`` forces pure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import simcli
from simcli.cli import main
from simcli.engine import builds

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "_build"))
import backend  # noqa: E402
import compile_choice  # noqa: E402
from compile_choice import Choice, choose  # noqa: E402

CC, HEADERS = "/usr/bin/cc", "/usr/include/python3.11/Python.h"


@pytest.mark.parametrize("setting", [None, "", "auto", " AUTO "])
def test_a_wheel_compiles_by_default_where_it_can(setting: str | None) -> None:
    assert choose(setting, False, CC, HEADERS) == Choice(True)


def test_without_a_compiler_or_headers_a_wheel_falls_back_to_pure_with_one_line() -> None:
    for compiler, headers, why in ((None, HEADERS, "no C compiler found"),
                                   (CC, None, "the Python headers (Python.h) are not installed")):
        choice = choose(None, False, compiler, headers)
        assert choice == Choice(False, reason=why)
        line = choice.fallback_line()
        assert "\n" not in line and line.startswith(f"simcli: building the pure-Python package ({why})")
        assert "apt install gcc python3-dev" in line and "pip install --force-reinstall --no-deps ." in line


def test_an_editable_install_is_pure_unless_asked() -> None:
    assert not choose(None, True, CC, HEADERS).compile
    assert "editable" in choose("auto", True, CC, HEADERS).reason
    assert choose("1", True, CC, HEADERS) == Choice(True, required=True)


@pytest.mark.parametrize("setting", ["0", "false", "no", "OFF"])
def test_simcli_compile_0_forces_pure_quietly(setting: str) -> None:
    choice = choose(setting, False, CC, HEADERS)
    assert not choice.compile and choice.reason == f"SIMCLI_COMPILE={setting}"
    assert choice.fallback_line() == ""  # asked for: nothing to warn about


@pytest.mark.parametrize("setting", ["1", "true", "yes", "on"])
def test_simcli_compile_1_requires_the_compiled_build(setting: str) -> None:
    # Required even without a compiler: the build then fails instead of falling back.
    assert choose(setting, False, None, None) == Choice(True, required=True)


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="SIMCLI_COMPILE='maybe': use 1"):
        choose("maybe", False, CC, HEADERS)


def test_the_compiler_is_looked_up_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent/cc -O2")
    assert compile_choice.c_compiler() is None
    monkeypatch.setenv("CC", f"{shutil.which('true')} -O2")
    assert compile_choice.c_compiler() == shutil.which("true")


def test_the_backend_asks_for_mypy_exactly_when_it_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    # setuptools' own requirements come from running setup.py; here only the backend's extra is tested.
    monkeypatch.setattr(backend._setuptools, "get_requires_for_build_wheel", lambda _settings=None: [])
    monkeypatch.setattr(backend._setuptools, "get_requires_for_build_editable", lambda _settings=None: [])
    monkeypatch.setattr(compile_choice, "python_headers", lambda: HEADERS)
    monkeypatch.delenv("SIMCLI_COMPILE", raising=False)
    monkeypatch.setenv("CC", shutil.which("true") or "true")
    assert backend.get_requires_for_build_wheel() == [backend.MYPYC_REQUIREMENT]
    assert backend.get_requires_for_build_editable() == []
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert backend.get_requires_for_build_wheel() == []
    monkeypatch.setenv("SIMCLI_COMPILE", "0")
    monkeypatch.setenv("CC", shutil.which("true") or "true")
    assert backend.get_requires_for_build_wheel() == []
    monkeypatch.setenv("SIMCLI_COMPILE", "1")
    assert backend.get_requires_for_build_editable() == [backend.MYPYC_REQUIREMENT]


def test_a_wheel_built_without_a_compiler_is_pure_and_says_why(tmp_path: Path) -> None:
    """The real build (setup.py through the backend, in pip's isolated build environment: setuptools only, as
    nothing compiles): no compiler, so a pure wheel, the one line, and the reason recorded in the package."""
    src = tmp_path / "src"
    for name in ("simcli", "strategies", "_build"):
        shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "build.json"))
    for name in ("pyproject.toml", "README.md", "setup.py"):
        shutil.copy(REPO / name, src / name)
    env = {**os.environ, "CC": "/nonexistent/cc"}
    env.pop("SIMCLI_COMPILE", None)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w",
                           str(tmp_path / "wheels"), str(src)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "simcli: building the pure-Python" in line]
    assert lines and "(no C compiler found)" in lines[0]
    (wheel,) = (tmp_path / "wheels").glob("simcli-*.whl")
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        record = json.loads(whl.read("simcli/engine/build.json"))
    assert not [n for n in names if n.endswith(".so")]
    assert record == {"build": "pure", "reason": "no C compiler found"}


def test_version_says_which_build_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["--version"])
    assert res.exit_code == 0
    assert res.output.startswith(f"simcli, version {simcli.__version__} (pure-Python build")  # the tests run .py
    record = tmp_path / "build.json"
    monkeypatch.setattr(builds, "RECORD", record)
    monkeypatch.setattr(builds, "CHECKOUT", tmp_path)  # not a checkout: an installed package
    record.write_text(json.dumps({"build": "pure", "reason": "no C compiler found"}))
    assert builds.describe() == f"pure-Python build (no C compiler found); for the compiled build: " \
                                f"{builds.HOW_TO_COMPILE}"
    record.write_text(json.dumps({"build": "pure", "reason": "SIMCLI_COMPILE=0"}))
    assert builds.describe() == "pure-Python build (SIMCLI_COMPILE=0)"
    monkeypatch.setattr(builds, "engine_build", lambda: "compiled")
    assert builds.describe() == "compiled build"


def test_stale_compiled_modules_of_a_checkout_are_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An in-place compiled build (SIMCLI_COMPILE=1 pip install -e .) edited afterwards: the edited sources are
    shadowed by older compiled modules, which --version names."""
    (tmp_path / "setup.py").touch()
    (tmp_path / "pyproject.toml").touch()
    engine = tmp_path / "simcli" / "engine"
    engine.mkdir(parents=True)
    (tmp_path / "strategies").mkdir()
    for name in ("deal", "judge"):
        (engine / f"{name}.cpython-311-x86_64-linux-gnu.so").touch()
        (engine / f"{name}.py").touch()
    os.utime(engine / "deal.cpython-311-x86_64-linux-gnu.so", (1, 1))  # built long before deal.py's edit
    # judge's build is newer than its source; set, not left to two touches in a row (a clock tick between them on a
    # busy machine made the source newer).
    os.utime(engine / "judge.py", (2, 2))
    os.utime(engine / "judge.cpython-311-x86_64-linux-gnu.so", (3, 3))
    monkeypatch.setattr(builds, "PACKAGE", tmp_path / "simcli")
    monkeypatch.setattr(builds, "CHECKOUT", tmp_path)
    monkeypatch.setattr(builds, "engine_build", lambda: "compiled")
    assert builds.stale_modules() == ["simcli/engine/deal.py"]
    assert builds.describe().startswith("compiled build, STALE: 1 edited source(s) shadowed by older compiled "
                                        "modules (simcli/engine/deal.py); rebuild with SIMCLI_COMPILE=1")


def test_a_compiler_that_refuses_the_direct_call_flags_builds_without_them(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """setup.py's BuildExt builds once more without DIRECT_CALL_FLAGS when the compiler fails with them (a compiler
    that does not know them), and falls back to pure only when that fails too."""
    import runpy

    import setuptools
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: None)
    monkeypatch.setattr(sys, "argv", ["setup.py", "egg_info"])  # metadata only: setup.py compiles nothing
    monkeypatch.setenv("SIMCLI_COMPILE", "auto")
    names = runpy.run_path(str(REPO / "setup.py"))
    flags = names["DIRECT_CALL_FLAGS"]
    tried: list[list[str]] = []

    def compile_refusing(refused: list[str]) -> object:
        def run(self: build_ext) -> None:
            args = list(self.extensions[0].extra_compile_args)
            tried.append(args)
            if any(a in refused for a in args):
                raise RuntimeError(f"cc: error: unrecognized command-line option {args[-1]!r}")
        return run

    def build_ext_command() -> build_ext:
        ext = Extension("x", ["x.c"], extra_compile_args=["-O3", *flags])
        command = names["BuildExt"](Distribution({"ext_modules": [ext]}))
        command.ensure_finalized()
        return command

    monkeypatch.setattr(build_ext, "run", compile_refusing(flags))
    build_ext_command().run()
    assert tried == [["-O3", *flags], ["-O3"]]
    err = capsys.readouterr().err
    assert "building again without " + " ".join(flags) in err and "pure-Python" not in err

    tried.clear()
    monkeypatch.setattr(build_ext, "run", compile_refusing([*flags, "-O3"]))
    command = build_ext_command()
    command.run()
    assert tried == [["-O3", *flags], ["-O3"]] and command.extensions == []
    assert "building the pure-Python package" in capsys.readouterr().err
