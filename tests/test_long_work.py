"""Long work that is neither silent nor lost: ``match --out/--resume``, Ctrl-C in every command that plays games
(exit 130 and the exact command that continues), progress bars on a terminal, the compiled-build hint, and
messages that name the program as it was started (``.venv/bin/simcli`` when the venv is not activated).

Games are short (one deal, ``max_hands=1``) and played in-process; an interrupt is a KeyboardInterrupt raised
where a real Ctrl-C would land (the runner turns SIGINT into one), so the tests need no timing.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import FakeTty, cli, error_line

from simcli.commands import balance as balance_cmd
from simcli.commands import hints
from simcli.commands import match as match_cmd
from simcli.commands import sweep as sweep_cmd
from simcli.duplicate.match_store import BATCH_DIR, MANIFEST, RESULT, batch_path
from simcli.reporting import studies

SHORT = ("--rule", "max_hands=1")
MATCH = ("match", "greedy", "random", "--games", 40, "--batch", 5, "--seed", 3, "--jobs", 1, *SHORT)


def interrupt_on_batch(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """Ctrl-C as batch ``k`` of a match finishes (before it is stored)."""
    real = match_cmd.write_batch

    def write(folder: Path, spec: Any, index: int, counts: Any) -> None:
        if index == k:
            raise KeyboardInterrupt
        real(folder, spec, index, counts)

    monkeypatch.setattr(match_cmd, "write_batch", write)


# ------------------------------------------------------------------------------------------- match --out
def test_interrupted_match_keeps_its_batches_and_resumes_to_the_same_result(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    whole = cli(*MATCH).stdout
    out = tmp_path / "m"
    interrupt_on_batch(monkeypatch, 3)
    res = cli(*MATCH, "--out", out, code=130)
    assert f"simcli match --resume --out {out}" in res.stderr
    assert sorted(p.name for p in (out / BATCH_DIR).iterdir()) == [f"batch-{k:05d}.json" for k in range(3)]
    monkeypatch.undo()
    again = cli("match", "--resume", "--out", out)
    assert again.stdout == whole
    assert f"resumed {out}: 15 stored pairs reused, 5 played" in again.stderr
    assert json.loads((out / RESULT).read_text())["pairs"] == 20


def test_resuming_a_finished_match_says_it_is_reused(tmp_path: Path) -> None:
    out = tmp_path / "m"
    first = cli(*MATCH, "--out", out).stdout
    again = cli("match", "--resume", "--out", out)
    assert again.stdout == first
    assert f"the match in {out} was finished: its 20 stored pairs are reused, none played" in again.stderr


def test_a_damaged_batch_is_named_and_played_again(tmp_path: Path) -> None:
    out = tmp_path / "m"
    first = cli(*MATCH, "--out", out).stdout
    path = batch_path(out, 2)
    data = json.loads(path.read_text())
    data["half_points"] = "44444"
    path.write_text(json.dumps(data))
    again = cli("match", "--resume", "--out", out)
    assert again.stdout == first
    assert f"replaying batch 2: {path}: wins, ties and losses do not add up to its pairs" in again.stderr
    assert json.loads(path.read_text())["half_points"] != "44444"


def test_sprt_match_resumes_and_stops_where_the_whole_one_does(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    args = ("match", "greedy", "random", "--sprt", "elo0=0,elo1=50", "--batch", 4, "--max-games", 400, "--seed",
            2, "--jobs", 1, "--format", "json", *SHORT)
    whole = json.loads(cli(*args).stdout)
    assert 8 < whole["pairs"] < 200  # decided after a few batches: an interrupt at batch 1 leaves work to do
    out = tmp_path / "m"
    interrupt_on_batch(monkeypatch, 1)
    cli(*args, "--out", out, code=130)
    monkeypatch.undo()
    assert json.loads(cli("match", "--resume", "--out", out, "--format", "json").stdout) == whole


def test_match_out_refuses_other_folders_and_other_settings(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("x")
    assert "is not empty and holds no match" in error_line(*MATCH, "--out", tmp_path / "notes")
    out = tmp_path / "m"
    cli(*MATCH, "--out", out)
    assert "already holds a match; add --resume" in error_line(*MATCH, "--out", out)
    assert error_line("match", "--resume", "--out", out, "--seed", 4) == (
        "Error: cannot resume with different settings: seed (folder has 3, now 4)")
    assert "nothing to resume" in error_line("match", "--resume", "--out", tmp_path / "notes")
    assert (out / MANIFEST).exists()


def test_match_says_it_takes_one_strategy_per_side() -> None:
    assert error_line("match", "ponytail,greedy", "greedy") == (
        "Error: match takes one strategy per side (A against B): A is 'ponytail,greedy'; to rate several "
        "strategies against each other use `simcli tournament ponytail,greedy,...`")


def test_match_without_out_says_how_to_keep_the_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    def stop(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(match_cmd, "play_match", stop)
    res = cli(*MATCH, code=130)
    assert "without --out the pairs played are not kept" in res.stderr
    assert "--out results/runs/match-greedy-vs-random" in res.stderr


def test_match_shows_a_progress_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hints, "sys", FakeTty())
    assert "40/40" in cli(*MATCH).stderr
    assert cli(*MATCH, "--quiet").stderr == ""


def test_tournament_shows_a_progress_bar_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hints, "sys", FakeTty())
    res = cli("tournament", "greedy,random", "--games", 10, "--jobs", 1, "--out", tmp_path / "t", *SHORT)
    assert "10/10" in res.stderr


# ------------------------------------------------------------------------------------------- Ctrl-C
def stop_on_second_run(monkeypatch: pytest.MonkeyPatch) -> None:
    real = studies.play_or_reuse
    calls: list[int] = []

    def play(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(studies, "play_or_reuse", play)


def test_interrupted_sweep_exits_130_with_the_command_that_continues(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "sw"
    stop_on_second_run(monkeypatch)
    res = cli("sweep", "--rule", "going_out_bonus=100,300", "--games", 6, "--jobs", 1, "--out", out, "--set",
              "max_hands=1", code=130)
    assert "interrupted: 1 finished run(s)" in res.stderr
    command = res.stderr.strip().splitlines()[-1].strip()
    assert command.startswith("simcli sweep ") and f"--out {out}" in command
    monkeypatch.undo()
    again = cli(*command.split()[1:])
    assert "going_out_bonus=100: reused the finished run (nothing played)" in again.stderr
    assert "going_out_bonus=300: played 6 games" in again.stderr


def test_interrupted_balance_exits_130_with_the_command_that_continues(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "b"
    stop_on_second_run(monkeypatch)
    res = cli("balance", "--variants", "classic,ponytail", "--games", 2, "--jobs", 1, "--out", out, code=130)
    assert res.stderr.strip().splitlines()[-1].strip() == (
        f"simcli balance --variants classic,ponytail --games 2 --strategy greedy --seed 0 --out {out}")
    assert balance_cmd.play_all is sweep_cmd.play_all is studies.play_all


# ------------------------------------------------------------------------------------------- hints
def test_messages_name_the_program_as_it_was_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    program = venv / "simcli"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [".venv/bin/simcli", "run"])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # not activated: `simcli` is not found
    assert hints.prog() == ".venv/bin/simcli"
    assert hints.again(["report", "results/runs/x y"]) == ".venv/bin/simcli report 'results/runs/x y'"
    monkeypatch.setenv("PATH", f"{venv}{os.pathsep}/usr/bin")  # activated: the same program under its name
    assert hints.prog() == "simcli"
    monkeypatch.setattr(sys, "argv", [str(Path("simcli") / "__main__.py")])
    assert hints.prog() == "python -m simcli"
    monkeypatch.setattr(sys, "argv", [str(Path("pytest") / "__main__.py")])  # python -m pytest: not simcli's
    assert hints.prog() == "simcli"


def test_run_summary_names_the_program_as_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/nowhere/bin/simcli"])
    res = cli("run", "--games", 2, "--jobs", 1, "--out", tmp_path / "r", "--rule", "max_hands=1")
    assert f"Report on them with: /nowhere/bin/simcli report {tmp_path / 'r'}" in res.stdout


def test_build_hint_once_for_long_pure_runs_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(hints, "_hinted", False)
    monkeypatch.delenv(hints.NO_HINT_ENV, raising=False)
    hints.build_hint(10, ["greedy"], shown=True)  # short: no hint
    hints.build_hint(5000, ["greedy"], shown=False)  # not on a terminal: no hint
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(hints, "pure_build", lambda: False)
    hints.build_hint(5000, ["greedy"], shown=True)  # compiled: no hint
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(hints, "pure_build", lambda: True)
    hints.build_hint(4, ["mc:samples=4", "greedy"], shown=True)  # a search player is long at any N
    hints.build_hint(5000, ["greedy"], shown=True)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiled build plays the same games 2-4x faster" in err


# ------------------------------------------------------------------------------------------- clean sweeps
def test_a_clean_sweep_has_an_honest_interval() -> None:
    from simcli.duplicate.pairs import summarize_pairs

    won = summarize_pairs([4] * 100)
    assert won.score == 1.0 and won.score_ci_high == 1.0
    assert won.score_ci_low == pytest.approx(0.025 ** (1 / 100))  # Clopper-Pearson: all 100 pairs won
    assert 560 < won.elo_ci_low < 580 and won.elo_ci_high == float("inf")
    lost = summarize_pairs([0] * 400)
    assert lost.score_ci_low == 0.0 and lost.score_ci_high == pytest.approx(1 - 0.025 ** (1 / 400))
    assert summarize_pairs([4] * 400).score_ci_low > won.score_ci_low  # narrower with more pairs
    even = summarize_pairs([2] * 30)  # every pair split: no spread, the documented zero-width interval
    assert (even.score_ci_low, even.score_ci_high) == (0.5, 0.5)


def test_tournament_prints_the_head_to_head_matrix(tmp_path: Path) -> None:
    res = cli("tournament", "greedy,random", "--games", 20, "--seed", 1, "--jobs", 1, "--out", tmp_path / "t",
              *SHORT)
    data = json.loads((tmp_path / "t" / "ratings.json").read_text())
    m = data["matches"][0]
    lines = res.stdout.splitlines()
    at = lines.index("head to head (score of the row against the column over their match, 95% interval):")
    rows = {line.split()[0]: line for line in lines[at + 2: at + 4]}
    assert f"{m['score']:.3f} [{m['score_ci_low']:.3f}, {m['score_ci_high']:.3f}]" in rows["greedy"]
    assert f"{1 - m['score']:.3f} [{1 - m['score_ci_high']:.3f}, {1 - m['score_ci_low']:.3f}]" in rows["random"]


@pytest.mark.parametrize("command", [["play", "--seed", 4], ["bench", "--hands", 5]])
def test_play_and_bench_exit_130_on_ctrl_c(monkeypatch: pytest.MonkeyPatch, command: list[Any]) -> None:
    from simcli.commands import bench as bench_cmd
    from simcli.commands import play as play_cmd

    def stop(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(play_cmd, "play_game", stop)
    monkeypatch.setattr(bench_cmd, "play_game", stop)
    res = cli(*command, code=130)
    assert "keeps nothing; do it again with:" in res.stderr


def test_match_names_the_clean_sweep_interval() -> None:
    res = cli("match", "greedy", "random", "--games", 4, "--seed", 3, "--jobs", 1, *SHORT)  # 2 pairs, both won
    line = next(x for x in res.stdout.splitlines() if x.startswith("score of greedy"))
    assert line.startswith("score of greedy: 1.000 [0.158, 1.000] (95% Clopper-Pearson bound over pairs")


def test_every_built_in_search_player_makes_a_job_long() -> None:
    # A search player's game costs seconds, so even a few of them earn the compiled-build hint; a heuristic's not.
    from simcli.players.loading import BUILTIN_STRATEGIES, load_strategy

    search = load_strategy("mc")  # as the loader resolves it (the installed package's module, like the others)
    searchers = {name for name in BUILTIN_STRATEGIES if issubclass(load_strategy(name), search)}
    assert {"mc", "oracle", "ismcts"} <= searchers
    for name in searchers:
        assert hints.is_long(2, ["greedy", f"{name}:samples=2" if name != "ismcts" else name]), name
    assert not hints.is_long(2, ["greedy", "random"])
