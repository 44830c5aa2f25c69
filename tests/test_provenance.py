"""What ran is recorded (issue 34, item 6): run.json and the match, tournament and ladder manifests say which build
played (the engine pure or compiled, and each strategy's build), and the source commit is found on an installed
package too, where there is no checkout to ask (the commit its build recorded, or pip's record of a VCS install).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli

from simcli.engine import builds as engine_builds
from simcli.players.loading import load_strategy, strategy_build
from simcli.runs import provenance

REPO = Path(__file__).resolve().parent.parent
BOT = Path(__file__).with_name("slow_strategy.py")
SHORT = ("--variant", "classic", "--rule", "max_hands=1", "--jobs", 1)


def expected(*specs: str) -> dict[str, Any]:
    return {"engine": engine_builds.engine_build(),
            "strategies": {s: strategy_build(load_strategy(s)) for s in specs}}


def test_a_run_records_the_builds_that_played(tmp_path: Path) -> None:
    cli("run", *SHORT, "--games", 2, "--strategies", "greedy,random,greedy,random", "--out", tmp_path / "r", "-q")
    manifest = json.loads((tmp_path / "r" / "run.json").read_text())
    assert manifest["build"] == expected("greedy", "random")
    assert manifest["build"]["engine"] in ("pure", "compiled")
    # a strategy file of one's own: pure, whichever build the engine is
    bot = f"{tmp_path / 'bot.py'}:Slow"
    shutil.copy(BOT, tmp_path / "bot.py")
    cli("run", *SHORT, "--games", 1, "--strategies", f"{bot},greedy,{bot},greedy", "--out", tmp_path / "b", "-q")
    build = json.loads((tmp_path / "b" / "run.json").read_text())["build"]
    assert set(build["strategies"]) == {bot, "greedy"}
    assert build["strategies"][bot] == expected(bot)["strategies"][bot]


def test_match_tournament_and_ladder_manifests_record_the_builds(tmp_path: Path) -> None:
    cli("match", "greedy", "random", *SHORT, "--games", 2, "--out", tmp_path / "m", "--quiet")
    assert json.loads((tmp_path / "m" / "match.json").read_text())["build"] == expected("greedy", "random")
    cli("tournament", "greedy,random", *SHORT, "--games", 2, "--out", tmp_path / "t", "--quiet")
    assert json.loads((tmp_path / "t" / "tournament.json").read_text())["build"] == expected("greedy", "random")


def test_the_commit_comes_from_the_installed_package_without_a_checkout(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_builds, "in_checkout", lambda: False)
    record = tmp_path / "build.json"
    monkeypatch.setattr(engine_builds, "RECORD", record)

    class Dist:
        def __init__(self, text: str | None) -> None:
            self.text = text

        def read_text(self, name: str) -> str | None:
            assert name == "direct_url.json"
            return self.text

    vcs = "c0ffee" * 6 + "c0ff"
    url = {"url": "https://example.org/simcli.git", "vcs_info": {"vcs": "git", "commit_id": vcs}}
    monkeypatch.setattr(provenance.metadata, "distribution", lambda name: Dist(json.dumps(url)))
    assert provenance.git_commit() == vcs  # pip install git+URL: pip's record
    record.write_text(json.dumps({"build": "compiled", "reason": "", "git_commit": "ab" * 20}))
    assert provenance.git_commit() == "ab" * 20  # the build's own record comes first
    record.write_text(json.dumps({"build": "pure", "reason": "no C compiler found"}))
    monkeypatch.setattr(provenance.metadata, "distribution", lambda name: Dist(json.dumps({"dir_info": {}})))
    assert provenance.git_commit() is None  # built outside git, installed from a folder: nothing says


def test_a_checkout_names_its_head() -> None:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    assert provenance.git_commit() == head


def test_an_installed_wheel_records_its_commit_in_run_json(tmp_path: Path) -> None:
    """The real thing: a wheel built from a git checkout (pure: no compiler, so it builds in seconds), unpacked
    where no checkout is, plays a run whose run.json names the checkout's commit and the pure build."""
    src = tmp_path / "src"
    for name in ("simcli", "strategies", "_build"):
        shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "build.json"))
    for name in ("pyproject.toml", "README.md", "setup.py"):
        shutil.copy(REPO / name, src / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "src"]):
        subprocess.run([*git, *args], cwd=src, check=True, capture_output=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=src, capture_output=True, text=True).stdout.strip()
    env = {**os.environ, "CC": "/nonexistent/cc"}
    env.pop("SIMCLI_COMPILE", None)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "wheels"),
                           str(src)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = (tmp_path / "wheels").glob("simcli-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as whl:
        whl.extractall(site)
    shutil.rmtree(src)  # no checkout left anywhere
    play = tmp_path / "play"
    play.mkdir()
    run_env = {**os.environ, "PYTHONPATH": str(site), "SIMCLI_NO_BUILD_HINT": "1"}
    subprocess.run([sys.executable, "-m", "simcli", "run", "--games", "1", "--rule", "max_hands=1", "--jobs", "1",
                    "--out", "r", "-q"], cwd=play, env=run_env, check=True, capture_output=True, timeout=300)
    manifest = json.loads((play / "r" / "run.json").read_text())
    assert manifest["git_commit"] == commit
    assert manifest["build"] == {"engine": "pure", "strategies": {"greedy": "pure"}}
