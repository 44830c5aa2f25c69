"""Packaging (issue 12, item 5): the wheel installs the built-in strategies as simcli.strategies, never as a
top-level "strategies" package, and file and module strategies work from any directory without PYTHONPATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

BOT = '''
from simcli.strategy import load_strategy


class Careful(load_strategy("greedy")):
    name = "careful"
'''


def test_pyproject_installs_strategies_under_simcli() -> None:
    conf = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    packages = set(conf["packages"])
    assert conf["package-dir"] == {"simcli.strategies": "strategies"}
    assert not any(p == "strategies" or p.startswith("strategies.") for p in packages)
    # Every sub-package of simcli/ is listed (an explicit list is needed for the mapping), and strategies/ with its
    # sub-packages (heuristics, search, learnt) as simcli.strategies.*.
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "simcli").rglob("__init__.py")}
    kinds = {".".join(("simcli", *p.parent.relative_to(REPO).parts))
             for p in (REPO / "strategies").rglob("__init__.py")}
    assert {"simcli.strategies", "simcli.strategies.heuristics", "simcli.strategies.search",
            "simcli.strategies.learnt"} <= kinds
    assert found | kinds == packages


def test_one_name_for_the_strategies() -> None:
    # The built-ins are simcli.strategies.* everywhere: no import of a top-level "strategies" package in the repository
    # (tests, scripts, notebooks and the strategies themselves), and no root-on-path setting that would allow one.
    pattern = re.compile(r"^\s*(from|import)\s+strategies\b|[\"']strategies\.[a-z_]+[:\"']", re.M)
    files = [p for folder in ("simcli", "strategies", "tests", "scripts", "notebooks", "results")
             for p in (REPO / folder).rglob("*") if p.suffix in (".py", ".ipynb") and p != Path(__file__)]
    assert [str(p.relative_to(REPO)) for p in files if pattern.search(p.read_text(encoding="utf-8"))] == []
    assert "pythonpath" not in tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
        "ini_options"]


@pytest.mark.slow
def test_installed_wheel_from_another_directory(tmp_path: Path) -> None:
    # Build from a copy, so that the build leaves nothing in the repository.
    src = tmp_path / "src"
    src.mkdir()
    # The packages, the in-tree build backend (build-system.backend-path) and setup.py when there is one.
    backend = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    for name in ("simcli", "strategies", *backend.get("backend-path", [])):
        shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "setup.py"):
        if (REPO / name).is_file():
            shutil.copy(REPO / name, src / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(src)], check=True, timeout=600,
                   capture_output=True)
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # The dependencies (numpy, click, ...) come from the environment running the tests, after the wheel's simcli.
    (site / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = sorted(p.name for p in site.iterdir())
    assert "strategies" not in installed
    assert (site / "simcli" / "strategies" / "heuristics" / "greedy.py").is_file()
    # The learnt player's models ship in the wheel (package data), each beside its README of commands.
    models = site / "simcli" / "strategies" / "learnt" / "models"
    shipped = {p.name for p in models.glob("*.npz")}  # the presets' and the by-level studies' house-rule models
    assert shipped == {p.name for p in (REPO / "strategies" / "learnt" / "models").glob("*.npz")}
    assert {f"{v}.npz" for v in ("classic", "ponytail", "americana", "spanish", "handfoot")} <= shipped
    assert (models / "opponents.json").is_file()
    assert (models / "README.md").is_file()
    record = next(site.glob("simcli-*.dist-info")) / "RECORD"
    assert not [line for line in record.read_text().splitlines() if line.startswith("strategies/")]

    work = tmp_path / "elsewhere"
    (work / "bots").mkdir(parents=True)
    (work / "bots" / "careful.py").write_text(BOT, encoding="utf-8")
    (work / "mybots.py").write_text(BOT, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    simcli = str(venv / "bin" / "simcli")

    def run(*args: str) -> str:
        out = subprocess.run([simcli, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout

    assert run("--version").startswith("simcli, version")
    where = subprocess.run([str(py), "-c", "import simcli.players.loading as s; "
                            "print(s.__file__, s.load_strategy('greedy').__module__, "
                            "s.load_strategy('simcli.strategies.heuristics.greedy:Greedy').__module__)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert where == [str(site / "simcli" / "players" / "loading.py"), *["simcli.strategies.heuristics.greedy"] * 2]
    seats = "bots/careful.py,mybots:Careful," + str(work / "bots" / "careful.py") + ",ponytail"
    out = run("play", "--variant", "ponytail", "--strategies", seats, "--rule", "max_hands=1")
    assert "0:bots/careful.py(team 0), 1:mybots:Careful(team 1)" in out
    assert "0:net(team 0)" in run("play", "--variant", "spanish", "--strategies", "net,spanish")  # its shipped model
    summary = run("run", "-n", "4", "-j", "2", "-q", "--strategies", "bots/careful.py,greedy,mybots:Careful,greedy",
                  "--rule", "max_hands=1", "--out", "r", "--json")
    assert '"games": 4' in summary
    py_m = subprocess.run([str(py), "-m", "simcli", "variants"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=120)
    assert py_m.returncode == 0 and "ponytail" in py_m.stdout
