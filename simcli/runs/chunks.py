"""Playing one chunk of a run in a worker: consecutive seeded games to result rows, errors and traces.

Game ``i`` depends only on the run's settings and ``i``, so a chunk is the same whichever worker or backend
plays it.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any

from simcli.engine.trace import TraceWriter, game_header
from simcli.players.seating import play_game
from simcli.primitives.errors import EngineError, StrategyError
from simcli.rules.presets import load_rules
from simcli.rules.ruleset import RuleSet
from simcli.runs.records import deal_rows, game_row
from simcli.runs.spec import RunSpec, rotated


@dataclass
class ChunkResult:
    """What a worker sends back for one chunk: rows, errors, traces and timing."""

    index: int
    games: list[dict[str, Any]] = field(default_factory=list)
    deals: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    traces: dict[str, str] = field(default_factory=dict)
    hands: int = 0
    seconds: float = 0.0
    fatal: str | None = None


@functools.lru_cache(maxsize=8)
def _chunk_rules(variant: str, knobs: tuple[tuple[str, str], ...]) -> RuleSet:
    # A worker plays many chunks of the same run: validate its (frozen) rules once, not once a chunk.
    return load_rules(variant, dict(knobs))


def chunk_games(spec: RunSpec, index: int) -> range:
    """The game indices of chunk ``index``: ``chunk_size`` consecutive games (fewer in the last chunk)."""
    start = index * spec.chunk_size
    return range(start, min(spec.games, start + spec.chunk_size))


def play_chunk(spec: RunSpec, index: int) -> ChunkResult:
    """Play the games of chunk ``index`` and return their rows (runs in a worker process)."""
    games = chunk_games(spec, index)
    return play_games(spec, index, games.start, games.stop)


def play_games(spec: RunSpec, index: int, start: int, stop: int) -> ChunkResult:
    """Play games ``start`` to ``stop - 1`` (all of chunk ``index`` or a piece of it: :mod:`simcli.runs.pieces`)
    and return their rows, as a result of chunk ``index`` (runs in a worker process)."""
    import io

    rules = _chunk_rules(spec.variant, tuple(spec.rules.items()))
    n_teams = rules.n_teams
    team_of = [s % n_teams for s in range(rules.num_players)]
    out = ChunkResult(index=index)
    t0 = time.perf_counter()
    rotations = (0, 1) if spec.rotate_seats else (0,)
    for game_index in range(start, stop):
        for rotation in rotations:
            names = rotated(spec.strategies, rotation)
            buffer = io.StringIO() if game_index < spec.trace_games else None
            writer = TraceWriter(buffer) if buffer is not None else None
            if writer is not None:
                writer.header(**game_header(rules, spec.variant, spec.seed, game_index, names, rotation=rotation))
            try:
                result = play_game(rules, names, spec.seed, game_index, emit=writer)
            except (StrategyError, EngineError) as exc:
                err = {
                    "game_index": game_index, "rotation": rotation, "seed": spec.seed,
                    "deal_index": getattr(exc, "deal_index", -1), "seat": getattr(exc, "seat", -1),
                    "strategy": getattr(exc, "strategy", ""), "turn": getattr(exc, "turn", -1),
                    "error": type(exc).__name__, "message": str(exc), "traceback": cause_traceback(exc),
                }
                out.errors.append(err)
                if spec.on_error != "skip":
                    out.fatal = str(exc)
                    out.seconds = time.perf_counter() - t0
                    return out
                continue
            out.games.append(game_row(result, rotation, n_teams))
            out.deals.extend(deal_rows(result, rotation, n_teams, team_of))
            out.hands += len(result.deals)
            if buffer is not None:
                out.traces[f"game-{game_index:06d}-r{rotation}.jsonl"] = buffer.getvalue()
    out.seconds = time.perf_counter() - t0
    return out


def cause_traceback(exc: BaseException) -> str:
    """The traceback of what a strategy raised (the error's cause: the file and line in the strategy), or of the
    error itself for an illegal decision or an engine error; kept in the errors table and shown by --debug."""
    import traceback

    return "".join(traceback.format_exception(exc.__cause__ or exc)).rstrip("\n")

