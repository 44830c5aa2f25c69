"""The same option means the same thing on every command (issue 21, items 5 to 7):

* ``--rules FILE.toml`` and ``--rule KNOB=VALUE`` on every command that plays or shows rules (``balance`` too);
* ``--json`` and ``--format json`` on every command with JSON output; ``--strategies`` and ``--strategy`` alike;
* ``sweep --out`` refuses a non-empty folder that is not a run, ``tournament --bootstrap-seed`` needs
  ``--bootstrap``, as ``run`` and ``compare`` refuse theirs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import cli, error_line

SHORT = ("--rule", "max_hands=1")


@pytest.fixture()
def house(tmp_path: Path) -> Path:
    """A rules file of one override (a one-deal game, so that the commands play quickly)."""
    path = tmp_path / "house.toml"
    path.write_text("max_hands = 1\n")
    return path


def test_rules_show_takes_a_rules_file_and_a_rule_overrides_it(house: Path) -> None:
    shown = json.loads(cli("rules", "show", "classic", "--rules", house, "--json").stdout)
    assert shown["changed"] == ["max_hands"] and shown["knobs"]["max_hands"]["value"] == "1"
    both = json.loads(cli("rules", "show", "classic", "--rules", house, "--rule", "max_hands=2", "--json").stdout)
    assert both["knobs"]["max_hands"]["value"] == "2"


def test_a_bad_rules_file_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("max_handz = 1\n")
    for command in (["rules", "show", "classic"], ["play"], ["match", "greedy", "random"], ["bench"],
                    ["balance", "--out", tmp_path / "b"], ["tournament", "greedy,random", "--out", tmp_path / "t"],
                    ["sweep", "--rule", "going_out_bonus=100,300", "--out", tmp_path / "s"]):
        line = error_line(*command, "--rules", bad)
        assert line.startswith(f"Error: {bad}: ") and "max_handz" in line, (command, line)
        assert not (tmp_path / "b").exists() and not (tmp_path / "t").exists() and not (tmp_path / "s").exists()


def test_play_match_bench_and_tournament_read_the_rules_file(house: Path, tmp_path: Path) -> None:
    by_file = cli("play", "--seed", 3, "--rules", house).stdout
    assert by_file == cli("play", "--seed", 3, *SHORT).stdout
    match = ["match", "greedy", "random", "--games", 4, "--jobs", 1, "--format", "json"]
    assert cli(*match, "--rules", house).stdout == cli(*match, *SHORT).stdout
    bench = json.loads(cli("bench", "--hands", 3, "--rules", house, "--json").stdout)
    assert bench["games"] == bench["hands"] == 3  # one deal a game
    tour = json.loads(cli("tournament", "greedy,random", "--games", 4, "--jobs", 1, "--out", tmp_path / "t",
                          "--rules", house, "--json").stdout)
    assert tour["spec"]["rules"]["max_hands"] == "1"


def test_balance_takes_rule_and_rules(house: Path, tmp_path: Path) -> None:
    out = tmp_path / "b"
    res = cli("balance", "--variants", "classic,ponytail", "--games", 4, "--jobs", 1, "--out", out,
              "--rules", house, "--rule", "going_out_bonus=300", "--json")
    doc = json.loads(res.stdout)
    assert doc["command"].endswith(f"--rule going_out_bonus=300 --rules {house} --out {out}")
    for variant in ("classic", "ponytail"):
        manifest = json.loads((out / variant / "run.json").read_text())
        assert manifest["spec"]["rules"]["max_hands"] == "1" and manifest["spec"]["rules"]["going_out_bonus"] == "300"


def test_sweep_takes_a_rules_file(house: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    doc = json.loads(cli("sweep", "--rule", "going_out_bonus=100,300", "--games", 4, "--jobs", 1, "--out", out,
                         "--rules", house, "--json").stdout)
    assert f"--rules {house}" in doc["command"]
    manifest = json.loads((out / "going_out_bonus=300" / "run.json").read_text())
    assert manifest["spec"]["rules"]["max_hands"] == "1"


# ------------------------------------------------------------------------------------ --json, --strategy
def test_json_and_format_json_are_the_same_everywhere(tmp_path: Path) -> None:
    run = tmp_path / "r"
    cli("run", "--games", 4, "--jobs", 1, "--out", run, "-q", *SHORT)
    pairs = [(["report", run], "--json"), (["compare", run, run], "--json"), (["plan", "--effect", "0.1"], "--json"),
             (["variants"], "--json"), (["rules", "show", "spanish"], "--json"),
             (["match", "greedy", "random", "--games", 4, "--jobs", 1, *SHORT], "--json")]
    for command, flag in pairs:
        assert cli(*command, flag).stdout == cli(*command, "--format", "json").stdout, command
        json.loads(cli(*command, flag).stdout)
    assert "contradicts --format csv" in error_line("report", run, "--json", "--format", "csv")


def test_score_takes_format_json(tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "position-format.md").read_text(encoding="utf-8")
    position = tmp_path / "p.json"
    position.write_text(re.findall(r"```json\n(.*?)```", doc, re.S)[0])  # the page's first example
    assert cli("score", position, "--format", "json").stdout == cli("score", position, "--json").stdout
    assert json.loads(cli("score", position, "--format", "json").stdout)["teams"]


def test_strategy_and_strategies_are_synonyms(tmp_path: Path) -> None:
    a = json.loads(cli("bench", "--hands", 2, "--strategies", "random", "--json", *SHORT).stdout)
    b = json.loads(cli("bench", "--hands", 2, "--strategy", "random", "--json", *SHORT).stdout)
    assert a["hands"] == b["hands"] and a["games"] == b["games"]
    assert cli("play", "--strategy", "random", *SHORT).stdout == cli("play", "--strategies", "random", *SHORT).stdout
    out = tmp_path / "r"
    cli("run", "--games", 2, "--jobs", 1, "--strategy", "random", "--out", out, "-q", *SHORT)
    assert json.loads((out / "run.json").read_text())["spec"]["strategies"] == ["random"] * 4
    cli("balance", "--variants", "classic", "--games", 2, "--jobs", 1, "--strategies", "random",
        "--out", tmp_path / "b", "--rule", "max_hands=1")
    assert json.loads((tmp_path / "b" / "classic" / "run.json").read_text())["spec"]["strategies"] == ["random"] * 4


# ------------------------------------------------------------------------------------ refused as run refuses
def test_sweep_and_balance_refuse_a_folder_of_other_files(tmp_path: Path) -> None:
    out = tmp_path / "bots"
    out.mkdir()
    (out / "cautious.py").write_text("# a strategy file\n")
    line = error_line("sweep", "--rule", "going_out_bonus=100,300", "--games", 2, "--out", out)
    assert line == (f"Error: --out {out} holds files that are not this sweep's runs (cautious.py); choose an "
                    "empty or new folder")
    assert "not this balance's runs" in error_line("balance", "--games", 2, "--out", out)
    assert sorted(p.name for p in out.iterdir()) == ["cautious.py"]


def test_sweep_reuses_its_own_folder(tmp_path: Path) -> None:
    out = tmp_path / "s"
    args = ("sweep", "--rule", "going_out_bonus=100,300", "--games", 2, "--jobs", 1, "--out", out, "--set",
            "max_hands=1")
    first = cli(*args).stdout
    again = cli(*args)
    assert again.stdout == first and again.stderr.count("reused the finished run") == 2


def test_tournament_bootstrap_seed_needs_bootstrap(tmp_path: Path) -> None:
    line = error_line("tournament", "greedy,random", "--games", 4, "--bootstrap-seed", 3, "--out", tmp_path / "t")
    assert line.startswith("Error: --bootstrap-seed does nothing here")
    assert not (tmp_path / "t").exists()
