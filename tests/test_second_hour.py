"""A new user's second hour (issue 49, items 4 and 6): the words of a draw and of a special hand, a misspelled
variant, a missing run folder, ``report`` with no run or several, and a report that opens with a short summary."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_helpers import cli, error_line

from simcli.viewer.summary import deal_ending
from simcli.viewer.words import Words, cards_words


def test_one_card_drawn_reads_as_one_card() -> None:
    assert cards_words(["5"]) == "a 5" and cards_words(["8"]) == "an 8" and cards_words(["A"]) == "an A"
    assert cards_words(["7", "JK"]) == "a 7 and a joker" and cards_words(["5", "K", "A"]) == "a 5, a K and an A"
    line = Words(4, 2).describe("draw", {"seat": 1, "cards": ["5"], "stock_left": 40})
    assert line is not None
    assert line.text == "East draws a 5 from the stock (40 left in the stock)"
    assert line.public == "East draws a card from the stock (40 left in the stock)"


def test_plays_summary_says_the_special_hand_as_the_page_does() -> None:
    deal = SimpleNamespace(special_hand="PAIRS_WITH_2_7_A", went_out_seat=2, end_reason="went_out", concealed=False,
                           black_three_canasta_team=None)
    assert deal_ending(deal, False) == "seat 2: seven pairs with twos, sevens and aces"  # type: ignore[arg-type]


@pytest.mark.parametrize("command", [("run", "--variant", "clasic"), ("rules", "show", "ponytial"),
                                     ("play", "--variant", "Spanish")])
def test_a_misspelled_variant_gets_a_did_you_mean(command: tuple[str, ...]) -> None:
    line = error_line(*command)
    assert "(did you mean " in line and "allowed: americana, classic, handfoot, ponytail, spanish" in line, line


@pytest.fixture
def two_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    monkeypatch.chdir(tmp_path)
    runs = [Path("results/runs/classic-a"), Path("results/runs/classic-b")]
    for i, run in enumerate(runs):
        cli("run", "-n", 20, "--seed", i, "-q", "-j", 1, "--rule", "max_hands=2", "--out", run)
        os.utime(run / "run.json", (time.time() + i, time.time() + i))  # b is the newer
    return runs


def test_a_missing_run_folder_names_the_runs_there(two_runs: list[Path]) -> None:
    line = error_line("report", "results/runs/classic-c")
    assert line == ("Error: no run directory at results/runs/classic-c; the runs there are results/runs/classic-a, "
                    "results/runs/classic-b (newest last)")


def test_report_without_a_run_reports_the_latest_and_several_each(two_runs: list[Path]) -> None:
    res = cli("report")
    assert "reporting on the latest run, results/runs/classic-b" in res.stderr
    assert res.stdout.startswith("Report: results/runs/classic-b: ")
    both = cli("report", *two_runs).stdout  # what `simcli report results/runs/classic-*` passes
    assert both.count("Report: ") == 2 and both.index("classic-a") < both.index("Report: results/runs/classic-b")


def test_a_report_opens_with_a_short_summary(two_runs: list[Path]) -> None:
    lines = cli("report", two_runs[0]).stdout.splitlines()
    assert lines[2].startswith("In short, over 20 games: team 0 (seats 0,2) won ")
    assert "%, [" not in lines[2] and "% [" in lines[2]  # each rate with its interval
    assert lines[3].startswith("A game lasts ") and " deals [" in lines[3] and " turns [" in lines[3]
    assert lines[5].startswith("n = observations")  # then the full tables, as before


# ---------------------------------------------------------------------------------------------- the README
REPO = Path(__file__).resolve().parent.parent


def _quick_start() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]


def test_the_readme_commands_leave_the_quick_starts_build_alone() -> None:
    quick = _quick_start()
    blocks = [b.split("```", 1)[0].strip() for b in quick.split("```bash\n")[1:]]
    install, _, tests = blocks
    assert install.startswith("python3 -m venv .venv && .venv/bin/pip install -q . ")
    assert tests == 'python3 -m venv .venv-test && .venv-test/bin/pip install -q -e ".[test]" && .venv-test/bin/pytest'
    assert "`.venv` keeps its compiled build" in " ".join(quick.split())  # says which build each leaves
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert f"# The README's test command, verbatim:\n{tests}\n" in ci
    assert ".venv/" not in ci.replace(".venv-test/", "")  # CI checks with the environment the tests made
    assert ".venv-test/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_the_quick_start_fits_one_screen_and_speaks_of_the_project() -> None:
    quick = _quick_start()
    assert len(quick.strip().splitlines()) <= 40
    assert "simcli report results/runs/classic-*" not in quick  # several runs after a second quick start
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "sessions" not in readme
