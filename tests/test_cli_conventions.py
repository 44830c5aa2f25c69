"""Command-line conventions (issue 12, item 6): --version, python -m simcli, shell completion, --json, repeated
--rule, options that would do nothing, and docs/rules.md resolving every "RULES.md §N" reference."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

import simcli
from simcli.cli import main
from simcli.rules.presets import list_variants

REPO = Path(__file__).resolve().parent.parent


def test_version() -> None:
    res = CliRunner().invoke(main, ["--version"])
    assert res.exit_code == 0
    assert res.output.startswith(f"simcli, version {simcli.__version__} (")  # and the build (test_build_choice)


def test_python_dash_m_simcli() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-m", "simcli", "--help"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Usage: simcli [OPTIONS] COMMAND")
    assert "  variants " in out.stdout


def test_shell_completion_is_documented_and_works() -> None:
    res = CliRunner().invoke(main, [], env={"_SIMCLI_COMPLETE": "bash_source"}, prog_name="simcli")
    assert res.exit_code == 0
    assert "_simcli_completion" in res.output
    res = CliRunner().invoke(main, [], env={"_SIMCLI_COMPLETE": "bash_complete", "COMP_WORDS": "simcli ru",
                                            "COMP_CWORD": "1"}, prog_name="simcli")
    assert "plain,run" in res.output and "plain,rules" in res.output
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert '_SIMCLI_COMPLETE=bash_source simcli' in readme


def test_run_json_summary(tmp_path: Path) -> None:
    out = tmp_path / "r"
    res = CliRunner().invoke(main, ["run", "-n", "3", "--seed", "4", "-q", "-j", "1", "--rule", "max_hands=2",
                                    "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    games = pd.read_parquet(out / "games.parquet")
    assert summary["games"] == len(games) == 3
    deals = pd.read_parquet(out / "deals.parquet")  # one row per deal and team
    assert summary["deals"] == len(deals.drop_duplicates(["game_index", "rotation", "deal_index"]))
    assert summary["failed_games"] == 0 and summary["status"] == "complete" and summary["seed"] == 4
    assert summary["strategies"] == ["greedy"] * 4
    assert sorted(Path(f).name for f in summary["files"]) == ["deals.parquet", "games.parquet", "run.json"]


def test_variants_json() -> None:
    res = CliRunner().invoke(main, ["variants", "--json"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert [v["name"] for v in data] == list_variants()
    assert all(v["description"] for v in data)


def test_rules_show_json() -> None:
    res = CliRunner().invoke(main, ["rules", "show", "ponytail", "--rule", "pony_size=11", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["variant"] == "ponytail" and data["changed"] == ["pony_size"]
    assert data["knobs"]["pony_size"] == {"value": "11", "preset": "13", "changed": True,
                                          "help": data["knobs"]["pony_size"]["help"]}
    assert data["knobs"]["decks"]["changed"] is False
    only = json.loads(CliRunner().invoke(main, ["rules", "show", "ponytail", "--rule", "pony_size=11", "--changed",
                                                "--json"]).stdout)
    assert list(only["knobs"]) == ["pony_size"]


def test_a_repeated_rule_is_refused_but_a_rules_file_may_be_overridden(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["play", "--rule", "max_hands=1", "--rule", "max_hands=2"])
    assert res.exit_code == 1
    assert res.stderr.strip() == "Error: rule knob max_hands given twice (1 and 2); give each knob once"
    # --rules FILE then --rule for the same knob is the documented way to override the file.
    (tmp_path / "house.toml").write_text("max_hands = 1\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["run", "-n", "2", "-q", "-j", "1", "--rules", str(tmp_path / "house.toml"),
                                    "--rule", "max_hands=2", "--out", str(tmp_path / "r"), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "r" / "run.json").read_text())["rules"]["max_hands"] == "2"


def test_options_that_would_do_nothing_are_refused() -> None:
    for args, opt in ((["--scheduler", "tcp://10.0.0.1:8786"], "--scheduler"),
                      (["--scheduler-timeout", "5"], "--scheduler-timeout"),
                      (["--name", "x", "--out", "somewhere"], "--name")):
        res = CliRunner().invoke(main, ["run", "-n", "1", *args])
        assert res.exit_code == 1
        assert res.stderr.startswith(f"Error: {opt} does nothing here: ")


#: "RULES.md §2.1", "RULES.md §1.12", "RULES.md §3" (also "[`RULES.md` §3](docs/rules.md)").
REFERENCE = re.compile(r"RULES\.md`?\]?\(?[^)\s]*\)?\s*§\s*(\d+(?:\.\d+)?)")


def test_every_rules_reference_resolves_in_docs_rules_md() -> None:
    spec = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)[. ]", spec, flags=re.M))
    assert {"1.12", "2.1", "2.4", "3", "3.1", "5.4"} <= sections
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "simcli").rglob("*.py")),
             *sorted((REPO / "simcli" / "rules" / "variants").glob("*.toml")), *sorted((REPO /
             "strategies").glob("*.py"))]
    cited = {}
    for f in files:
        if f.name == "rules.md":
            continue
        for ref in REFERENCE.findall(f.read_text(encoding="utf-8")):
            cited.setdefault(ref, f.relative_to(REPO))
    assert len(cited) >= 10
    unresolved = {ref: str(f) for ref, f in cited.items() if ref not in sections}
    assert not unresolved
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "](docs/rules.md)" in readme and "../shared/RULES.md" not in readme
    help_text = CliRunner().invoke(main, ["--help"]).output
    assert "docs/rules.md" in help_text


def test_a_reachable_scheduler_is_used(tmp_path: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        res = CliRunner().invoke(main, ["run", "-n", "2", "--seed", "3", "-q", "--rule", "max_hands=1",
                                        "--backend", "dask", "--scheduler", cluster.scheduler_address,
                                        "--scheduler-timeout", "20", "--out", str(tmp_path / "r"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert (summary["backend"], summary["games"]) == ("dask", 2)
