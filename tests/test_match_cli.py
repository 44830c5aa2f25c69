"""``simcli match``, ``tournament`` and ``plan`` on small real games (a few seconds in all).

Known answers: the pairs are the runner's twin games (game i of the seed with the teams swapped); greedy
against random accepts H1 within a few batches; a strategy against itself gives every pair one point; the
results do not depend on --jobs; a tournament resumes by replaying exactly the missing match and refuses a
damaged match file; plan prints the normal-approximation sample sizes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_helpers import cli, error_line

from simcli.duplicate.match import play_match
from simcli.duplicate.pairs import pentanomial
from simcli.duplicate.power import pairs_paired
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules

JOBS = min(2, os.cpu_count() or 1)
SHORT = ("--rule", "max_hands=1")  # one deal a game: the tests need pairs, not long games
KEYS = {"a", "b", "games", "pairs", "score", "score_ci_low", "score_ci_high", "elo", "elo_ci_low", "elo_ci_high",
        "difference", "sprt"}


# ------------------------------------------------------------------------------------------------ match
def test_pairs_are_the_twin_games_of_the_seed() -> None:
    rs = load_rules("classic", {})
    out = play_match("classic", rs, "greedy", "random", 5, 6, batch=4)
    want = []
    for i in range(6):
        first = play_game(rs, ["greedy", "random", "greedy", "random"], 5, i).winner_team
        second = play_game(rs, ["random", "greedy", "random", "greedy"], 5, i).winner_team
        want.append({0: 2, -1: 1, 1: 0}[first] + {1: 2, -1: 1, 0: 0}[second])
    assert out.state.half_points == want
    assert out.state.wins + out.state.ties + out.state.losses == 12


def test_strategy_against_random_accepts_h1_quickly() -> None:
    res = cli("match", "greedy", "random", "--sprt", "elo0=0,elo1=50", "--batch", 10, "--max-games", 400,
              "--seed", 2, "--jobs", JOBS, "--format", "json", *SHORT)
    data = json.loads(res.stdout)
    assert set(data) == KEYS and set(data["sprt"]) == {"llr", "lower", "upper", "result"}
    assert data["sprt"]["result"] == "H1" and data["sprt"]["llr"] >= data["sprt"]["upper"]
    assert data["games"] <= 200 and data["games"] == 2 * data["pairs"]
    assert data["score"] > 0.8 and data["elo"] > 200
    # The LLR printed as it goes (on stderr with --format json): one line per batch of 10 pairs.
    progress = [line for line in res.stderr.splitlines() if "LLR" in line]
    assert len(progress) == data["pairs"] // 10
    assert progress[-1].endswith(f"LLR {data['sprt']['llr']:+.3f} [-2.944, 2.944]")


def test_a_strategy_against_itself_scores_one_point_per_pair() -> None:
    # The same class in the same seat replays its twin move for move: every pair is a win and a loss.
    res = cli("match", "greedy", "greedy", "--games", 30, "--seed", 1, "--jobs", 1, *SHORT)
    assert "score of greedy: 0.500 [0.500, 0.500]" in res.stdout
    assert res.stdout.splitlines()[-1].split()[1:] == ["0", "0", "15", "0", "0"]


def test_results_do_not_depend_on_jobs(tmp_path: Path) -> None:
    args = ("match", "greedy", "random", "--games", 40, "--seed", 4, "--batch", 7, "--format", "json", *SHORT)
    one = cli(*args, "--jobs", 1).stdout
    assert cli(*args, "--jobs", 2).stdout == one
    data = json.loads(one)
    assert data["sprt"] is None and data["pairs"] == 20


def test_two_player_heads_up_is_duplicate_and_three_players_refused() -> None:
    data = json.loads(cli("match", "greedy", "random", "--rule", "num_players=2", "--rule", "team_size=1",
                          "--games", 20, "--seed", 1, "--jobs", 1, "--format", "json").stdout)
    assert data["pairs"] == 10
    line = error_line("match", "greedy", "random", "--rule", "num_players=3", "--rule", "team_size=1")
    assert "needs two sides" in line and "3 teams" in line


@pytest.mark.parametrize("args, fragment", [
    (("--games", 11), "--games must be an even number"),
    (("--sprt", "elo0=0,elo1=5", "--games", 10), "with --sprt use --max-games"),
    (("--max-games", 10), "--max-games goes with --sprt"),
    (("--sprt", "elo0=5,elo1=0"), "elo0 must be smaller"),
    (("--sprt", "elo0=0,elo1=5", "--alpha", 0.7, "--beta", 0.5), "alpha=0.7"),
    (("--rule", "hand_size=x"), "hand_size"),
])
def test_match_refuses_bad_options(args: tuple[Any, ...], fragment: str) -> None:
    assert fragment in error_line("match", "greedy", "random", *args)


def test_match_refuses_unknown_strategy() -> None:
    assert "nosuch" in error_line("match", "greedy", "nosuch")


def test_a_failing_strategy_stops_the_match_with_one_line() -> None:
    line = error_line("match", "failing_strategy:AlwaysFail", "greedy", "--games", 4, "--jobs", 1)
    assert "game 0 (seed 0, rotation 0) failed" in line and "boom on turn 5" in line


# ------------------------------------------------------------------------------------------- tournament
def test_tournament_outputs_resume_and_verification(tmp_path: Path) -> None:
    out = tmp_path / "t"
    res = cli("tournament", "greedy,random,duplicate_strategies:ShiftedRandom", "--games", 12, "--seed", 3,
              "--jobs", 1, "--out", out, *SHORT)
    assert "ratings (fisher intervals, 95%)" in res.stdout
    for name in ("tournament.json", "ratings.json", "ratings.csv", "matches.csv", "ratings.png"):
        assert (out / name).exists(), name
    data = json.loads((out / "ratings.json").read_text())
    assert [r["strategy"] for r in data["ratings"]][0] == "greedy"
    assert len(data["matches"]) == 3 and all(m["games"] == 12 for m in data["matches"])
    assert sum(r["rating"] for r in data["ratings"]) == pytest.approx(0, abs=1e-6)
    assert (out / "ratings.png").read_bytes()[:4] == b"\x89PNG"

    # Resume replays exactly the missing match, and the results come out the same.
    kept = (out / "matches" / "match-00-02.json").read_bytes()
    (out / "matches" / "match-00-02.json").unlink()
    res = cli("tournament", "--resume", "--out", out)
    assert "match 1/3: greedy vs random: stored, verified" in res.stdout
    assert "match 2/3: greedy vs duplicate_strategies:ShiftedRandom: score of greedy" in res.stdout
    assert (out / "matches" / "match-00-02.json").read_bytes() == kept
    assert json.loads((out / "ratings.json").read_text())["ratings"] == data["ratings"]

    # A tampered file is refused with one line naming it; other settings are refused too.
    path = out / "matches" / "match-00-01.json"
    stored = json.loads(path.read_text())
    stored["wins"], stored["losses"] = stored["wins"] - 1, stored["losses"] + 1
    # One game of a pair turned from A's win into its loss: counts consistent, only the digest catches it.
    text = stored["half_points"]
    at = next(i for i, c in enumerate(text) if c >= "2")
    stored["half_points"] = text[:at] + str(int(text[at]) - 2) + text[at + 1:]
    stored["pentanomial"] = pentanomial([int(c) for c in stored["half_points"]])
    path.write_text(json.dumps(stored))
    line = error_line("tournament", "--resume", "--out", out)
    assert "match-00-01.json" in line and "SHA-256" in line
    assert "seed (folder has 3, now 4)" in error_line("tournament", "--resume", "--out", out, "--seed", 4)
    assert "already holds a tournament" in error_line("tournament", "greedy,random", "--out", out)


@pytest.fixture(autouse=True)
def _tests_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``duplicate_strategies:Class`` importable whatever pytest's import mode."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))


@pytest.mark.parametrize("args, fragment", [
    (("greedy",), "at least two strategies"),
    (("greedy,greedy",), "must be different"),
    (("greedy,random", "--games", 3), "--games must be an even number"),
    (("--resume",), "--resume needs --out"),
])
def test_tournament_refuses(args: tuple[Any, ...], fragment: str) -> None:
    assert fragment in error_line("tournament", *args)


def test_tournament_bootstrap_intervals(tmp_path: Path) -> None:
    res = cli("tournament", "greedy,random", "--games", 20, "--seed", 1, "--jobs", 1, "--out", tmp_path / "t",
              "--bootstrap", 50, *SHORT, "--format", "json")
    data = json.loads(res.stdout)
    assert data["method"] == "bootstrap-50"
    assert all(r["ci_low"] <= r["rating"] <= r["ci_high"] for r in data["ratings"])


# ------------------------------------------------------------------------------------------------- plan
def test_plan_unpaired_and_paired_from_a_pilot(tmp_path: Path) -> None:
    res = cli("plan", "--metric", "strategy_win", "--effect", 0.02)
    assert "4,904 games" in res.stdout
    data = json.loads(cli("plan", "--effect", 0.02, "--paired", "--discordance", 0.4, "--format", "json").stdout)
    assert data["unpaired_games"] == 4904 and data["paired"]["needed_pairs"] == 1960
    assert data["paired"]["needed_games"] == 3920

    pilot = tmp_path / "pilot"
    cli("run", "--games", 30, "--seed", 2, "--strategies", "greedy,duplicate_strategies:ShiftedRandom,greedy,"
        "duplicate_strategies:ShiftedRandom", "--rotate-seats", "--jobs", 1, "--out", pilot, "--quiet", *SHORT)
    from simcli.runs.results import load

    games = load(pilot).games
    w = games.pivot(index="game_index", columns="rotation", values="winner_team")
    pts = {0: 1.0, -1: 0.5, 1: 0.0}
    d = np.array([pts[a] - pts[b] for a, b in zip(w[0], w[1], strict=True)])
    psi = float(np.mean(d * d))
    data = json.loads(cli("plan", "--metric", "strategy_win:greedy", "--effect", 0.05, "--paired", "--pilot", pilot,
                          "--format", "json").stdout)
    assert data["paired"]["discordance"] == pytest.approx(psi)
    assert data["paired"]["pairs"] == 30
    assert data["paired"]["needed_pairs"] == pairs_paired(psi, 0.05)


def test_plan_refuses(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    cli("run", "--games", 4, "--seed", 1, "--jobs", 1, "--out", plain, "--quiet")
    assert "without --rotate-seats" in error_line("plan", "--effect", 0.02, "--paired", "--pilot", plain)
    assert "--paired needs" in error_line("plan", "--effect", 0.02, "--paired")
    assert "go with --paired" in error_line("plan", "--effect", 0.02, "--discordance", 0.3)
    assert "unknown --metric" in error_line("plan", "--effect", 0.02, "--metric", "margin")
    assert "cannot read pilot" in error_line("plan", "--effect", 0.02, "--paired", "--pilot", tmp_path / "none")
    assert "strictly between 0 and 1" in error_line("plan", "--effect", 0.6)
