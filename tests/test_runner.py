"""Batch runs (``simcli run`` / :func:`simcli.runs.execute.execute_run`): determinism, resume, errors, formats, records.

Runs are small (tens of games, chunks of 5) so the file runs in seconds; a game of greedy play takes ~15 ms.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from cli_helpers import FakeTty
from click.testing import CliRunner, Result
from pandas.testing import assert_frame_equal

import simcli
import simcli.commands.run as run_cmd
import simcli.runs.execute as execute
import simcli.runs.pieces as pieces
from simcli.cli import main
from simcli.engine.scoring import SCORE_PARTS
from simcli.players.seating import play_game
from simcli.primitives.seeding import first_dealer
from simcli.rules.presets import load_rules
from simcli.runs import results
from simcli.runs.chunks import ChunkResult
from simcli.runs.spec import RunSpec
from simcli.runs.storage import done_chunks, read_manifest

TESTS_DIR = Path(__file__).resolve().parent
N = 40  # games of the reference run
SEED = 7
CHUNK = 5  # small chunks, so that interrupts and resumes have several to work with
FAIL_SEED = 1  # failing games for first_dealer(1, g, 4) == 0 among 0..19: [6, 12, 16, 19]
FAIL_N = 20


# ----------------------------------------------------------------------------- helpers
def cli(*args: Any, code: int = 0) -> Result:
    """Invoke ``simcli run ARGS``; fail with the output and traceback unless it exits with ``code``."""
    argv = [*map(str, args)]
    if "--chunk-size" not in argv and "--resume" not in argv:
        argv += ["--chunk-size", str(CHUNK)]  # the tests count on several small chunks
    res = CliRunner().invoke(main, ["run", *argv])
    if res.exit_code != code:
        tb = "".join(traceback.format_exception(*res.exc_info)) if res.exc_info else ""
        raise AssertionError(f"exit {res.exit_code}, wanted {code}\nstdout: {res.stdout}\nstderr: {res.stderr}\n{tb}")
    return res


def error_line(res: Result) -> str:
    """The CLI's error: exactly one line on stderr, no traceback."""
    assert isinstance(res.exception, SystemExit), res.exc_info
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("Error: ")
    return lines[0]


def same_results(a: Path, b: Path) -> None:
    """Two run directories hold the same games and deals (and errors)."""
    ra, rb = results.load(a), results.load(b)
    assert_frame_equal(ra.games, rb.games)
    assert_frame_equal(ra.deals, rb.deals)
    assert_frame_equal(ra.errors, rb.errors)


def markers(run_dir: Path) -> dict[str, int]:
    """Done-marker file name -> modification time (ns)."""
    return {p.name: p.stat().st_mtime_ns for p in sorted((run_dir / "chunks").glob("done-*.json"))}


def fail_games() -> list[int]:
    """The games that the failing strategies break in a FAIL_SEED run of FAIL_N games."""
    return [g for g in range(FAIL_N) if first_dealer(FAIL_SEED, g, 4) == 0]


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``failing_strategy:Class`` importable whatever pytest's import mode."""
    monkeypatch.syspath_prepend(str(TESTS_DIR))


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    """The reference run: 40 greedy games, seed 7, one job, progress bar left on (stderr is not a tty)."""
    out = tmp_path_factory.mktemp("ref") / "run"
    res = cli("--games", N, "--seed", SEED, "--jobs", 1, "--out", out)
    return out, res


def local_spec(**kw: Any) -> RunSpec:
    """The RunSpec that ``simcli run -n 40 --seed 7`` builds."""
    fields: dict[str, Any] = {"variant": "classic", "rules": load_rules("classic").formatted(),
                              "strategies": ("greedy",) * 4, "seed": SEED, "games": N,
                              "chunk_size": CHUNK}
    fields.update(kw)
    return RunSpec(**fields)


# ------------------------------------------------------------------------- determinism
def test_jobs_do_not_change_results(ref: tuple[Path, Result], tmp_path: Path) -> None:
    out = tmp_path / "j2"
    cli("--games", N, "--seed", SEED, "--jobs", 2, "--out", out)
    same_results(ref[0], out)
    for name in ("games.parquet", "deals.parquet"):
        assert (ref[0] / name).read_bytes() == (out / name).read_bytes(), name
    # Chunks finish in any order but are consolidated in game order.
    raw = pd.read_parquet(out / "games.parquet")
    assert raw["game_index"].tolist() == list(range(N))
    raw = pd.read_parquet(out / "deals.parquet")
    assert raw["game_index"].is_monotonic_increasing


def test_chunk_size_does_not_change_results(ref: tuple[Path, Result], tmp_path: Path) -> None:
    out = tmp_path / "c7"
    cli("--games", N, "--seed", SEED, "--jobs", 2, "--chunk-size", 7, "--out", out)
    same_results(ref[0], out)
    assert len(markers(out)) == 6  # 40 games in chunks of 7: the last one short


def test_another_seed_gives_other_results(ref: tuple[Path, Result], tmp_path: Path) -> None:
    # Guards the determinism tests against comparing things that never change.
    out = tmp_path / "s8"
    cli("--games", N, "--seed", SEED + 1, "--jobs", 1, "--out", out)
    a, b = results.load(ref[0]).games, results.load(out).games
    assert not a[["deals", "turns", "score_team_0"]].equals(b[["deals", "turns", "score_team_0"]])


def test_dask_backend_matches_local(ref: tuple[Path, Result], tmp_path: Path) -> None:
    out = tmp_path / "dask"
    res = cli("--games", N, "--seed", SEED, "--backend", "dask", "--jobs", 2, "--out", out, "-q")
    same_results(ref[0], out)
    assert (ref[0] / "games.parquet").read_bytes() == (out / "games.parquet").read_bytes()
    assert results.load(out).manifest["backend"] == "dask"
    assert "2 dask job(s)" in res.stdout


# ------------------------------------------------------------------------------ resume
def test_interrupted_run_resumes_with_only_missing_games(ref: tuple[Path, Result], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    seen: list[int] = []

    def interrupt_after_three_chunks(n: int) -> None:
        # Progress comes per piece; the piece that ends a chunk is counted once the chunk is written.
        seen.append(n)
        if sum(seen) == 3 * CHUNK:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute.execute_run(local_spec(), out, jobs=1, progress=interrupt_after_three_chunks)
    assert sum(seen) == 3 * CHUNK and seen[0] == 1  # the first piece is one game (not yet timed)
    assert read_manifest(out)["status"] == "interrupted"
    assert sorted(done_chunks(out)) == [0, 1, 2]
    assert not (out / "games.parquet").exists()
    partial = results.load(out)  # an interrupted run loads its finished chunks
    assert not partial.complete
    assert_frame_equal(partial.games, results.load(ref[0]).games.iloc[:15])
    # As if it had been stopped while writing chunk 2: its tables are there, its done-marker is not.
    (out / "chunks" / "done-00002.json").unlink()
    assert (out / "chunks" / "games-00002.parquet").exists()
    assert results.load(out).games["game_index"].tolist() == list(range(10))  # only finished chunks
    before = markers(out)

    played: list[int] = []
    real_play_piece = pieces.play_piece

    def counting_play_piece(spec: RunSpec, piece: pieces.Piece) -> tuple[pieces.Piece, ChunkResult]:
        if piece.start == piece.chunk * spec.chunk_size:  # a chunk is played in pieces: counted at its first
            played.append(piece.chunk)
        return real_play_piece(spec, piece)

    monkeypatch.setattr(pieces, "play_piece", counting_play_piece)
    res = cli("--resume", "--out", out, "--jobs", 1)
    assert played == [2, 3, 4, 5, 6, 7]
    after = markers(out)
    assert {k: after[k] for k in before} == before  # finished chunks were not played or written again
    assert len(after) == N // CHUNK
    same_results(ref[0], out)
    run = results.load(out)
    assert run.complete and run.games["game_index"].is_unique
    assert not run.deals.duplicated(["game_index", "rotation", "deal_index", "team"]).any()
    assert run.manifest["games_played"] == N
    # The two finished chunks are kept, the six others played (their speed alone is the hands/s).
    assert f"Kept 10 games an earlier run had finished and played {N - 10} more, {N} games in all" in res.stdout

    # Resuming a complete run plays nothing and keeps its results.
    played.clear()
    res = cli("--resume", "--out", out, "--jobs", 1)
    assert played == []
    assert "nothing left to play" in res.stdout
    same_results(ref[0], out)
    assert results.load(out).complete


def test_ctrl_c_then_resume(tmp_path: Path) -> None:
    """The real thing: SIGINT to a 2-job ``simcli run``, then ``--resume`` equals an uninterrupted run."""
    n = 200
    out = tmp_path / "run"
    args = ["run", "--games", str(n), "--seed", "3", "--jobs", "2", "--chunk-size", "5", "--out", str(out)]
    # A child inherits an ignored SIGINT (and simcli rightly keeps ignoring it, as a background job must): the
    # test process may have it ignored (a test runner's worker), so the child starts with the default, as a
    # program started from a terminal does.
    proc = subprocess.Popen([sys.executable, "-c", "from simcli.cli import main; main()", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not list((out / "chunks").glob("done-*.json")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no chunk finished in 60 s"
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "stopping after the chunks in flight..." in err
    assert f"simcli run --resume --out {out}" in err
    manifest = read_manifest(out)
    assert manifest["status"] == "interrupted"
    assert manifest["command"] == ["simcli", *args]
    before = markers(out)
    assert 0 < len(before) < n // 5
    kept = results.load(out).games
    assert len(kept) == 5 * len(before)

    cli("--resume", "--out", out, "--jobs", 2, "-q")
    after = markers(out)
    assert {k: after[k] for k in before} == before
    assert len(after) == n // 5
    whole = tmp_path / "whole"
    cli(*args[1:-2], "--out", whole, "-q")
    same_results(whole, out)
    assert (whole / "games.parquet").read_bytes() == (out / "games.parquet").read_bytes()
    assert results.load(out).games["game_index"].tolist() == list(range(n))


@pytest.fixture
def small_run(tmp_path: Path) -> Path:
    out = tmp_path / "small"
    cli("--games", 10, "--seed", 2, "--jobs", 1, "--out", out, "-q")
    return out


@pytest.mark.parametrize(("change", "named"), [
    (["--games", "12"], "games (run has 10, now 12)"),
    (["--seed", "3"], "seed (run has 2, now 3)"),
    (["--rule", "going_out_bonus=200"], "rules: going_out_bonus (run has '100', now '200')"),
    (["--strategies", "greedy,random,greedy,random"], "strategies (run has ['greedy', 'greedy', 'greedy', 'greedy']"),
    (["--rotate-seats"], "rotate_seats (run has False, now True)"),
    (["--format", "csv"], "format (run has 'parquet', now 'csv')"),
])
def test_resume_with_other_settings_is_refused(small_run: Path, change: list[str], named: str) -> None:
    files = {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()}
    line = error_line(cli("--resume", "--out", small_run, "--jobs", 1, *change, code=1))
    assert "cannot resume with different settings" in line
    assert named in line
    assert len(line) < 300  # names the difference, does not dump every knob
    assert {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()} == files


def test_new_run_into_existing_run_dir_is_refused(small_run: Path) -> None:
    files = {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()}
    line = error_line(cli("--games", 10, "--seed", 2, "--jobs", 1, "--out", small_run, code=1))
    assert "already holds a run" in line and "--resume" in line
    assert {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()} == files


def test_resume_needs_a_run(tmp_path: Path) -> None:
    line = error_line(cli("--resume", "--out", tmp_path / "nothing", code=1))
    assert "nothing to resume" in line


# ------------------------------------------------------------------------------ errors
def turn_five_seat(game_index: int) -> int:
    """Who plays turn 5 of the first deal of a FAIL_SEED game: four turns a round, so the first player."""
    return play_game(load_rules("classic"), ["greedy"] * 4, FAIL_SEED, game_index).deals[0].first_player


def test_failing_strategy_stops_the_run(on_path: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = fail_games()[0]
    assert first >= CHUNK  # so that at least one chunk finishes before the failure
    res = cli("--games", FAIL_N, "--seed", FAIL_SEED, "--jobs", 1, "--chunk-size", CHUNK,
              "--strategies", "failing_strategy:FailOnTurnFive", "--out", out, code=1)
    line = error_line(res)
    assert re.search(rf"\bgame {first}\b", line), line
    assert f"seed {FAIL_SEED}" in line
    assert f"seat {turn_five_seat(first)}" in line
    assert "turn 5" in line
    assert "boom on turn 5" in line and "RuntimeError" in line
    finished = first // CHUNK
    assert sorted(done_chunks(out)) == list(range(finished))
    run = results.load(out)
    assert run.manifest["status"] == "failed"
    assert run.manifest["error"]["game_index"] == first
    assert run.games["game_index"].tolist() == list(range(finished * CHUNK))
    assert set(run.deals["game_index"]) == set(range(finished * CHUNK))


def test_failing_strategy_stops_a_parallel_run(on_path: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    line = error_line(cli("--games", FAIL_N, "--seed", FAIL_SEED, "--jobs", 2, "--chunk-size", CHUNK,
                          "--strategies", "failing_strategy:AlwaysFail", "--out", out, code=1))
    game = int(re.search(r"\bgame (\d+) ", line).group(1))
    # Every game fails, so the error names the first game of whichever piece of a chunk reported first (chunks
    # are played in pieces sized by a game's cost, simcli.runs.pieces): a game of the run, not only a chunk's first.
    assert 0 <= game < int(FAIL_N)
    assert f"seed {FAIL_SEED}" in line and "turn 5" in line
    assert done_chunks(out) == {}
    assert read_manifest(out)["status"] == "failed"


def test_on_error_skip_records_failed_games(on_path: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    failing = fail_games()
    res = cli("--games", FAIL_N, "--seed", FAIL_SEED, "--jobs", 2, "--chunk-size", CHUNK, "--on-error", "skip",
              "--strategies", "failing_strategy:FailOnTurnFive", "--out", out)
    assert f"{len(failing)} failed game(s) in errors.parquet" in res.stdout
    assert (out / "errors.parquet").exists()
    run = results.load(out)
    assert run.complete
    errors = run.errors.sort_values("game_index", ignore_index=True)
    assert {"game_index", "seed", "seat", "turn", "message"} <= set(errors.columns)
    assert errors["game_index"].tolist() == failing
    assert (errors["seed"] == FAIL_SEED).all()
    assert (errors["turn"] == 5).all()
    assert errors["seat"].tolist() == [turn_five_seat(g) for g in failing]
    assert errors["message"].str.contains("boom on turn 5").all()
    assert run.games["game_index"].tolist() == [g for g in range(FAIL_N) if g not in failing]
    assert run.manifest["errors"] == len(failing)

    # The other games are exactly the games greedy plays (the strategy is greedy until it fails).
    plain = tmp_path / "greedy"
    cli("--games", FAIL_N, "--seed", FAIL_SEED, "--jobs", 1, "--out", plain, "-q")
    expected = results.load(plain).games
    expected = expected[~expected["game_index"].isin(failing)].reset_index(drop=True)
    seats = [f"strategy_seat_{s}" for s in range(4)]
    assert (run.games[seats] == "failing_strategy:FailOnTurnFive").all().all()
    assert_frame_equal(run.games.drop(columns=seats), expected.drop(columns=seats))


def test_illegal_move_stops_the_run(on_path: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = fail_games()[0]
    line = error_line(cli("--games", FAIL_N, "--seed", FAIL_SEED, "--jobs", 1, "--chunk-size", CHUNK,
                          "--strategies", "failing_strategy:IllegalDiscard", "--out", out, code=1))
    assert re.search(rf"\bgame {first}\b", line), line
    assert f"seed {FAIL_SEED}" in line and f"seat {turn_five_seat(first)}" in line and "turn 5" in line
    assert "illegal move" in line and "not a card in hand" in line
    assert sorted(done_chunks(out)) == list(range(first // CHUNK))


def test_illegal_move_is_skipped_on_request(on_path: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    cli("--games", FAIL_N, "--seed", FAIL_SEED, "--jobs", 1, "--on-error", "skip",
        "--strategies", "failing_strategy:IllegalDiscard", "--out", out, "-q")
    errors = results.load(out).errors.sort_values("game_index")
    assert errors["game_index"].tolist() == fail_games()
    assert (errors["error"] == "IllegalDecision").all()
    assert errors["message"].str.contains("not a card in hand").all()


@pytest.mark.parametrize(("where", "code", "says"), [
    ("file.txt/run", 1, "cannot create output folder"),
    ("file.txt/deeper/run", 1, "cannot create output folder"),
    ("file.txt", 2, "is a file"),
])
def test_unusable_out_is_a_one_line_error(tmp_path: Path, where: str, code: int, says: str) -> None:
    (tmp_path / "file.txt").write_text("not a folder\n")
    res = cli("--games", 5, "--jobs", 1, "--out", tmp_path / where, code=code)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    assert "Traceback" not in res.output
    assert says in res.stderr
    if code == 1:
        error_line(res)
    assert (tmp_path / "file.txt").read_text() == "not a folder\n"


# --------------------------------------------------------------------------------- CSV
def test_csv_has_the_same_content_as_parquet(ref: tuple[Path, Result], tmp_path: Path) -> None:
    out = tmp_path / "csv"
    res = cli("--games", N, "--seed", SEED, "--jobs", 2, "--format", "csv", "--out", out)
    assert (out / "games.csv").exists() and (out / "deals.csv").exists()
    assert not list(out.glob("*.parquet"))
    assert f"{out}/games.csv" in res.stdout
    same_results(ref[0], out)
    assert results.load(out).manifest["format"] == "csv"


def test_csv_errors_table(on_path: None, tmp_path: Path) -> None:
    args = ["--games", FAIL_N, "--seed", FAIL_SEED, "--jobs", 1, "--on-error", "skip",
            "--strategies", "failing_strategy:FailOnTurnFive", "-q"]
    cli(*args, "--out", tmp_path / "pq")
    cli(*args, "--format", "csv", "--out", tmp_path / "csv")
    assert (tmp_path / "csv" / "errors.csv").exists()
    same_results(tmp_path / "pq", tmp_path / "csv")


# ------------------------------------------------------------------------------ seats
def test_rotate_seats(tmp_path: Path) -> None:
    n = 10
    names = "greedy,random,greedy,random"
    cli("--games", n, "--seed", 5, "--jobs", 1, "--strategies", names, "--rotate-seats", "--out", tmp_path / "rot",
        "-q")
    cli("--games", n, "--seed", 5, "--jobs", 1, "--strategies", names, "--out", tmp_path / "plain", "-q")
    run = results.load(tmp_path / "rot")
    games = run.games
    assert len(games) == 2 * n
    assert games.groupby("game_index")["rotation"].apply(sorted).tolist() == [[0, 1]] * n
    r0 = games[games["rotation"] == 0].reset_index(drop=True)
    r1 = games[games["rotation"] == 1].reset_index(drop=True)
    assert (r0["game_index"] == r1["game_index"]).all() and (r0["seed"] == r1["seed"]).all()
    for s in range(4):
        assert (r0[f"strategy_seat_{s}"] == names.split(",")[s]).all()
        assert (r1[f"strategy_seat_{s}"] == r0[f"strategy_seat_{(s + 1) % 4}"]).all()
    assert (r1["strategy_seat_0"] == "random").all()
    assert (r0["first_dealer"] == r1["first_dealer"]).all()  # same game seed, same dealer
    assert set(run.deals.groupby("game_index")["rotation"].unique().map(sorted).map(tuple)) == {(0, 1)}
    # Rotation 0 is the unrotated game.
    plain = results.load(tmp_path / "plain")
    assert_frame_equal(r0, plain.games)
    d0 = run.deals[run.deals["rotation"] == 0].reset_index(drop=True)
    assert_frame_equal(d0, plain.deals)
    assert run.manifest["rotate_seats"] is True


# ----------------------------------------------------------------------------- records
GAME_COLUMNS = ["game_index", "seed", "winner_team", "deals", "turns", "score_team_0", "score_team_1",
                "strategy_seat_0", "strategy_seat_1", "strategy_seat_2", "strategy_seat_3", "last_deal_end"]


def test_games_rows(ref: tuple[Path, Result]) -> None:
    run = results.load(ref[0])
    games, deals = run.games, run.deals
    assert set(GAME_COLUMNS) <= set(games.columns)
    assert games["game_index"].tolist() == list(range(N))
    assert (games["seed"] == SEED).all() and (games["rotation"] == 0).all()
    for s in range(4):
        assert (games[f"strategy_seat_{s}"] == "greedy").all()
    per_game = deals[deals["team"] == 0].groupby("game_index")
    assert games["deals"].tolist() == per_game.size().tolist()
    assert games["turns"].tolist() == per_game["turns"].sum().tolist()
    assert games["last_deal_end"].tolist() == per_game["end_reason"].last().tolist()
    scores = games[["score_team_0", "score_team_1"]].to_numpy()
    for (s0, s1), winner in zip(scores, games["winner_team"], strict=True):
        assert winner == (0 if s0 > s1 else 1 if s1 > s0 else -1)
    assert (games["margin"] == abs(games["score_team_0"] - games["score_team_1"])).all()
    assert (games[["score_team_0", "score_team_1"]].max(axis=1) >= 5000).all()  # classic plays to 5000


def test_deals_rows(ref: tuple[Path, Result]) -> None:
    run = results.load(ref[0])
    games, deals = run.games, run.deals
    key = ["game_index", "rotation", "deal_index", "team"]
    assert not deals.duplicated(key).any()
    assert len(deals) == 2 * games["deals"].sum()
    assert sorted(deals["team"].unique()) == [0, 1]
    parts = deals[[f"score_{p}" for p in SCORE_PARTS]].sum(axis=1)
    assert (parts == deals["score_total"]).all()
    cum = deals.groupby(["game_index", "team"])["score_total"].cumsum()
    assert (cum == deals["cumulative"]).all()
    final = deals.groupby(["game_index", "team"])["cumulative"].last().unstack("team")
    assert final[0].tolist() == games["score_team_0"].tolist()
    assert final[1].tolist() == games["score_team_1"].tolist()
    for _, g in deals.groupby("game_index"):
        assert sorted(set(g["deal_index"])) == list(range(g["deal_index"].max() + 1))
    # Exactly one team went out of a deal that ended by going out, none of any other deal.
    went = deals.groupby(["game_index", "deal_index"]).agg(went=("went_out", "sum"), end=("end_reason", "first"))
    assert (went["went"] == (went["end"] == "went_out").astype(int)).all()
    assert (deals[deals["went_out"]]["score_going_out"] > 0).all()


def test_manifest(ref: tuple[Path, Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = results.load(ref[0]).manifest
    assert m["simcli_version"] == simcli.__version__
    assert m["command"][0] == "simcli"  # the rest is sys.argv: pytest's here (see test_ctrl_c_then_resume)
    assert m["rules"] == load_rules("classic").formatted()
    assert m["rules_diff"] == {}
    assert m["strategies"] == ["greedy"] * 4
    assert (m["seed"], m["games"], m["status"], m["format"]) == (SEED, N, "complete", "parquet")
    assert m["wall_seconds"] > 0 and m["hands_per_s"] > 0
    assert m["hands"] == results.load(ref[0]).games["deals"].sum()
    assert m["games_played"] == N and m["errors"] == 0 and m["chunks"] == N // CHUNK
    assert json.loads((ref[0] / "run.json").read_text()) == m

    out = tmp_path / "rule"
    args = ["--games", "5", "--jobs", "1", "--rule", "going_out_bonus=200", "--out", str(out), "-q"]
    monkeypatch.setattr(sys, "argv", ["/usr/bin/simcli", "run", *args])
    cli(*args)
    m = results.load(out).manifest
    assert m["command"] == ["simcli", "run", *args]
    assert m["rules_diff"] == {"going_out_bonus": "200"}
    assert m["rules"]["going_out_bonus"] == "200"
    assert m["spec"]["rules"]["going_out_bonus"] == "200"


def test_rule_override_is_used_and_kept_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rules = load_rules("classic", {"going_out_bonus": "200"}).formatted()
    spec = local_spec(games=10, rules=rules, chunk_size=5)

    def stop(n: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute.execute_run(spec, out, jobs=1, progress=stop)
    cli("--resume", "--out", out, "--jobs", 1, "-q")  # no --rule: the stored rules are used
    deals = results.load(out).deals
    went_out = deals[deals["went_out"]]
    assert len(went_out) and (went_out["score_going_out"] >= 200).all()
    assert set(deals["game_index"]) == set(range(10))


# ---------------------------------------------------------------------------- progress
def test_no_bar_without_a_tty_and_a_summary(ref: tuple[Path, Result]) -> None:
    out, res = ref
    assert res.stderr == ""
    assert f"Played {N} games" in res.stdout
    assert str(out) in res.stdout


@pytest.mark.parametrize("quiet", [False, True])
def test_bar_on_a_tty_unless_quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quiet: bool) -> None:
    monkeypatch.setattr(run_cmd, "sys", FakeTty())
    res = cli("--games", 10, "--jobs", 1, "--out", tmp_path / "run", *(["--quiet"] if quiet else []))
    if quiet:
        assert res.stderr == ""
    else:
        assert "10/10" in res.stderr
    assert "Played 10 games" in res.stdout


@pytest.mark.slow
def test_larger_parallel_run_is_deterministic(tmp_path: Path) -> None:
    args = ["--games", 1000, "--seed", 11, "--strategies", "greedy,random,random,greedy", "--rotate-seats", "-q"]
    cli(*args, "--jobs", 1, "--out", tmp_path / "a")
    cli(*args, "--jobs", os.cpu_count() or 2, "--chunk-size", 37, "--out", tmp_path / "b")
    same_results(tmp_path / "a", tmp_path / "b")
    shutil.rmtree(tmp_path / "b" / "chunks")
    assert len(pd.read_parquet(tmp_path / "b" / "games.parquet")) == 2000
