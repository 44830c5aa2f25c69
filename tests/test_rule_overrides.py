"""Rule overrides are validated together, whatever their order, and a rule error anywhere is one line (issue 51,
item 3): ``simcli play --variant ponytail --rule num_players=2 --rule team_size=1`` printed a traceback, because
:func:`simcli.rules.presets.diff` reloaded (and validated) the preset with ``num_players`` alone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from simcli.cli import main
from simcli.rules import diff, load_rules

TWO_HANDED = ["--rule", "num_players=2", "--rule", "team_size=1"]
TEAMS_OF_TWO_ERROR = "num_players=2 with team_size=2 does not make two or more equal teams"


def invoke(args: list[str]) -> Result:
    """Run the CLI in process (as the ``simcli`` script would)."""
    return CliRunner().invoke(main, args)


def one_error_line(res: Result) -> str:
    """The run failed with exactly one ``Error: ...`` line on stderr and no traceback."""
    assert res.exit_code != 0, res.output
    assert "Traceback" not in res.output and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr
    return lines[0]


def test_diff_against_a_preset_that_is_no_table_alone() -> None:
    rules = load_rules("ponytail", {"num_players": 2, "team_size": 1})
    assert diff(rules)["team_size"] == ("2", "1")
    assert diff(load_rules("ponytail", {"team_size": 1, "num_players": 2})) == diff(rules)


@pytest.mark.parametrize("order", [TWO_HANDED, ["--rule", "team_size=1", "--rule", "num_players=2"]],
                         ids=["num_players-first", "team_size-first"])
def test_play_with_overrides_valid_together(tmp_path: Path, order: list[str]) -> None:
    trace = tmp_path / "game.jsonl"
    res = invoke(["play", "--variant", "ponytail", "--seed", "3", *order, "--rule", "max_hands=1",
                  "--trace", str(trace)])
    assert res.exit_code == 0, res.output
    header = json.loads(trace.read_text(encoding="utf-8").splitlines()[0])
    assert header["num_players"] == 2 and header["rules_diff"]["team_size"] == "1"


def test_rules_file_then_rule_are_validated_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "solo.toml").write_text("team_size = 1\n", encoding="utf-8")
    res = invoke(["play", "--variant", "ponytail", "--seed", "3", "--rules", "solo.toml", "--rule", "num_players=2",
                  "--rule", "max_hands=1"])
    assert res.exit_code == 0, res.output


def test_run_and_match_with_overrides_valid_together(tmp_path: Path) -> None:
    res = invoke(["run", "--variant", "ponytail", "-n", "2", "--seed", "3", "-j", "1", "-q", *TWO_HANDED,
                  "--rule", "max_hands=1", "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    res = invoke(["match", "greedy", "ponytail", "--variant", "ponytail", "-n", "2", "--seed", "3", "-j", "1",
                  *TWO_HANDED, "--rule", "max_hands=1"])
    assert res.exit_code == 0, res.output


def test_sweep_arm_with_overrides_valid_together(tmp_path: Path) -> None:
    res = invoke(["sweep", "--variant", "ponytail", "--rule", "num_players=2,4", "--set", "team_size=1",
                  "--set", "max_hands=1", "-n", "2", "--seed", "3", "-j", "1", "--out", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output


POSITION = {"teams": [{"melds": ["K K K K K K K"], "hands": [[]], "went_out": False},
                      {"melds": ["Q Q Q"], "hands": [["A"]], "went_out": False}]}


@pytest.mark.parametrize(("args", "needs"), [
    (["play", "--variant", "ponytail", "--seed", "3", "--rule", "num_players=2"], [TEAMS_OF_TWO_ERROR]),
    (["run", "--variant", "ponytail", "-n", "2", "--seed", "3", "-q", "--rule", "num_players=2"],
     [TEAMS_OF_TWO_ERROR]),
    (["rules", "show", "ponytail", "--rule", "num_players=2"], [TEAMS_OF_TWO_ERROR]),
    (["match", "greedy", "ponytail", "--variant", "ponytail", "-n", "2", "--rule", "num_players=2"],
     [TEAMS_OF_TWO_ERROR]),
    (["sweep", "--variant", "ponytail", "--rule", "num_players=2,4", "-n", "2", "--seed", "3"],
     [TEAMS_OF_TWO_ERROR]),
    (["sweep", "--variant", "ponytail", "--rule", "team_size=1,2", "--set", "num_players=2", "-n", "2",
      "--seed", "3"], [TEAMS_OF_TWO_ERROR]),
    (["score", "position.json"], [TEAMS_OF_TWO_ERROR]),
    (["replay", "bad-header.jsonl", "--out", "x.html"], ["the trace's rules cannot be loaded", TEAMS_OF_TWO_ERROR]),
], ids=["play", "run", "rules-show", "match", "sweep-arm", "sweep-arm-team-size", "position", "trace-header"])
def test_a_rule_error_anywhere_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str],
                                           needs: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    position = {"variant": "ponytail", "rules": {"num_players": 2}, **POSITION}
    (tmp_path / "position.json").write_text(json.dumps(position), encoding="utf-8")
    trace = tmp_path / "good.jsonl"
    assert invoke(["play", "--variant", "ponytail", "--seed", "3", *TWO_HANDED, "--rule", "max_hands=1",
                   "--trace", str(trace)]).exit_code == 0
    lines = trace.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["rules"]["team_size"] = "2"
    (tmp_path / "bad-header.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    line = one_error_line(invoke(args))
    for part in needs:
        assert part in line, line
