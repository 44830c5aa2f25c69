"""Expensive players use every core and a moving bar (issue 34, item 1): chunks are played in pieces sized by what
a game costs (simcli.runs.pieces), in runs (``run``, ``sweep``, ``balance``) and matches (``match``,
``tournament``, ``ladder``), and nothing stored or decided changes: the same tables, the same chunk files and
markers, the same batches and the same point where a sequential test stops.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import simcli.runs.pieces as pieces
from simcli.duplicate.match import SprtSettings, play_match
from simcli.rules.presets import load_rules
from simcli.runs import results
from simcli.runs.chunks import ChunkResult, play_chunk
from simcli.runs.execute import execute_run
from simcli.runs.spec import RunSpec

SLOW = str(Path(__file__).with_name("slow_strategy.py")) + ":Slow"
RULES = load_rules("classic", {"max_hands": 1})


def spec(games: int, chunk_size: int, strategies: tuple[str, ...] = ("greedy",) * 4, **kw: Any) -> RunSpec:
    return RunSpec(variant="classic", rules=RULES.formatted(), strategies=strategies, seed=7, games=games,
                   chunk_size=chunk_size, **kw)


class Flag:
    requested: int | None = None


# ------------------------------------------------------------------------------------------- sizing
def test_pieces_are_one_game_until_timed_then_about_the_target() -> None:
    s = spec(50, 20)
    p = pieces.Pieces(s, [0, 1, 2], target=0.5)
    it = iter(p)
    first = next(it)
    assert (first.chunk, first.start, first.stop) == (0, 0, 1)
    p.timed(first, ChunkResult(index=0, seconds=2.0))  # an expensive game: one a piece
    assert [next(it).games for _ in range(3)] == [1, 1, 1]
    p.timed(pieces.Piece(0, 1, 1001), ChunkResult(index=0, seconds=0.5))  # now about 2 ms a game: many a piece
    rest = list(it)
    # never across a chunk: the rest of chunk 0, then chunks 1 and 2 whole
    assert [(q.chunk, q.start, q.stop) for q in rest] == [(0, 4, 20), (1, 20, 40), (2, 40, 50)]


def test_a_stop_finishes_the_begun_chunk_and_begins_none() -> None:
    flag = Flag()
    p = pieces.Pieces(spec(60, 20), [0, 1, 2], stop=flag)
    it = iter(p)
    got = [next(it), next(it)]
    flag.requested = 2
    got += list(it)
    assert [q.chunk for q in got] == [0] * 20 and got[-1].stop == 20


def test_a_chunk_put_together_from_pieces_is_the_chunk_played_whole() -> None:
    s = spec(12, 12, rotate_seats=True, trace_games=3, strategies=("greedy", "random") * 2)
    whole = play_chunk(s, 0)
    parts = [pieces.play_piece(s, pieces.Piece(0, a, b)) for a, b in ((7, 12), (0, 1), (1, 7))]
    merged = pieces.merge(0, parts)
    for field in ("games", "deals", "errors", "traces", "hands"):
        assert getattr(merged, field) == getattr(whole, field), field


# ------------------------------------------------------------------------------------------- runs
@pytest.fixture
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setenv("SIMCLI_TEST_PIDS", str(folder))
    return folder


def test_an_expensive_run_uses_every_core_and_counts_every_game(tmp_path: Path, pids: Path) -> None:
    # 4 games of one chunk (the default size for 4 games is 20): one task before, one core and one step of the bar.
    s = spec(4, 20, strategies=(SLOW,) * 4)
    seen: list[int] = []
    execute_run(s, tmp_path / "two", jobs=2, progress=seen.append)
    assert seen == [1, 1, 1, 1]
    assert len(list(pids.iterdir())) == 2  # both workers played
    one: list[int] = []
    execute_run(s, tmp_path / "one", jobs=1, progress=one.append)
    assert one == [1, 1, 1, 1]  # one worker: the bar still moves each game
    for name in ("games", "deals"):  # the same games, the same stored chunk
        one_file, two_file = (tmp_path / d / f"{name}.parquet" for d in ("one", "two"))
        assert one_file.read_bytes() == two_file.read_bytes()
    keys = ("chunk", "games", "hands", "errors", "files")  # a marker's all but the seconds it took
    markers = [json.loads((tmp_path / d / "chunks" / "done-00000.json").read_text()) for d in ("one", "two")]
    assert [{k: m[k] for k in keys} for m in markers] == [{k: markers[0][k] for k in keys}] * 2
    assert results.load(tmp_path / "two").manifest["spec"]["chunk_size"] == 20


# ------------------------------------------------------------------------------------------- matches
def test_a_match_counts_every_pair(pids: Path) -> None:
    games: list[int] = []
    a = play_match("classic", RULES, SLOW, "greedy", 3, 3, jobs=2, batch=3, on_games=games.append)
    assert games == [2, 2, 2]  # each pair (a game and its twin) as it is played, not the batch of three at once
    assert len(list(pids.iterdir())) == 2  # both workers played
    b = play_match("classic", RULES, SLOW, "greedy", 3, 3, jobs=1, batch=3)
    assert a.state.half_points == b.state.half_points and len(a.state.half_points) == 3


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_sequential_test_stops_where_whole_batches_stop_it(monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    rules = load_rules("ponytail", {})
    sprt = SprtSettings(elo0=0, elo1=400)

    def stop_point(size: int, jobs: int) -> list[int]:
        monkeypatch.setattr(pieces.Pieces, "size", lambda self: size)
        outcome = play_match("ponytail", rules, "ponytail", "random", 5, 60, jobs=jobs, batch=4, sprt=sprt)
        assert outcome.sprt is not None and outcome.sprt["result"] == "H1"
        return outcome.state.half_points

    whole = stop_point(1 << 30, 1)  # one piece a batch: the batches played whole, as before pieces
    assert stop_point(1, jobs) == whole and len(whole) < 60
