"""Playing duplicate matches: strategy A against B on the same deal streams with the teams swapped.

A match is a run with ``--rotate-seats`` under the hood: seats of team 0 play A and seats of team 1 play B, and
:func:`simcli.runs.chunks.play_chunk` plays every game index twice (rotation 1 shifts every strategy one seat, which
swaps the two teams), so game ``i`` of seed ``S`` is dealt from the same streams in both seatings, exactly as
in ``simcli run --rotate-seats``. Chunks are played in parallel (local processes or Dask, :mod:`simcli.runs.backends`),
in pieces sized by what a game costs (:mod:`simcli.runs.pieces`: every core plays a search player's batch, a game
each), but consumed in index order, whole, so where a sequential test stops depends on the seed and the batch size
alone, never on ``--jobs``, the backend, the pieces or timing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from simcli.duplicate.pairs import DuplicateError, PairSummary, summarize_pairs
from simcli.duplicate.sprt import sprt_bounds, sprt_decision, sprt_llr
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import Backend, BackendError, ClusterLost, use_backend
from simcli.runs.chunks import ChunkResult
from simcli.runs.pieces import chunk_results
from simcli.runs.preflight import CannotPlay, check_strategies
from simcli.runs.spec import RunSpec


class MatchError(RuntimeError):
    """A match that cannot be played: a mode without two sides, a failed game (with its strategy's traceback)."""

    def __init__(self, message: str, traceback: str = "") -> None:
        super().__init__(message)
        self.traceback = traceback


def seat_strategies(a: str, b: str, num_players: int, n_teams: int, variant: str) -> tuple[str, ...]:
    """Seats for the first game of a pair: A in every seat of team 0, B in every seat of team 1.

    Seat ``s`` belongs to team ``s % n_teams``. Duplicate needs exactly two sides (pairs, trios, or two players
    heads-up); with three or more teams or players there is no single swap of sides, so it is refused.
    """
    if n_teams != 2:
        raise MatchError(f"a duplicate match needs two sides, but {variant} with num_players={num_players} has "
                         f"{n_teams} teams/players; use a two-team (or two-player) mode")
    return tuple(a if s % 2 == 0 else b for s in range(num_players))


def check_sides(specs: Sequence[str], rules: RuleSet, variant: str) -> None:
    """Refuse before any game, as a :class:`MatchError`, what cannot be played: a mode without two sides
    (:func:`seat_strategies`), or a strategy of ``specs`` (two sides, or every player of a tournament or ladder) that
    says it cannot play ``rules`` (:func:`simcli.runs.preflight.check_strategies`, e.g. ``net`` without a model)."""
    seat_strategies(specs[0], specs[1], rules.num_players, rules.n_teams, variant)
    try:
        check_strategies([rules], specs)  # what the rules tell of each, before any game
    except CannotPlay as exc:
        raise MatchError(str(exc)) from None


@dataclass(frozen=True)
class BatchCounts:
    """One batch of pairs (a chunk of the match): A's half-points per pair in game-index order, and its games won,
    tied and lost (over both games of each pair)."""

    half_points: tuple[int, ...]
    wins: int
    ties: int
    losses: int


def batch_counts(chunk: ChunkResult) -> BatchCounts:
    """A finished chunk's pairs (both rotations of each game index) as A's half-points and game counts."""
    by_index: dict[int, dict[int, int]] = {}
    for row in chunk.games:
        by_index.setdefault(int(row["game_index"]), {})[int(row["rotation"])] = int(row["winner_team"])
    half_points: list[int] = []
    wins = ties = losses = 0
    for index in sorted(by_index):
        twins = by_index[index]
        half = 0
        for rotation in (0, 1):
            # A sits on team 0 in rotation 0 and on team 1 in rotation 1.
            winner = twins[rotation]
            if winner == rotation:
                half += 2
                wins += 1
            elif winner == -1:
                half += 1
                ties += 1
            else:
                losses += 1
        half_points.append(half)
    return BatchCounts(tuple(half_points), wins, ties, losses)


@dataclass
class MatchState:
    """Pairs played so far: A's half-points per pair (in game-index order) and its wins, ties and losses."""

    half_points: list[int] = field(default_factory=list)
    wins: int = 0
    ties: int = 0
    losses: int = 0

    def add(self, counts: BatchCounts) -> None:
        """Add a batch's pairs (batches in index order)."""
        self.half_points.extend(counts.half_points)
        self.wins += counts.wins
        self.ties += counts.ties
        self.losses += counts.losses

    def add_chunk(self, chunk: ChunkResult) -> None:
        """Add a finished chunk's games (both rotations of each game index, in order)."""
        self.add(batch_counts(chunk))

    def summary(self) -> PairSummary:
        """Score, Elo and pentanomial over the pairs so far."""
        return summarize_pairs(self.half_points, wins=self.wins, ties=self.ties, losses=self.losses)


def _chunks(backend: Backend, spec: RunSpec, skip: Collection[int] = (),
            on_games: Callable[[int], None] | None = None) -> Iterator[tuple[int, ChunkResult | None]]:
    """``(k, chunk)`` for every chunk of ``spec`` in index order, played on ``backend`` a few pieces ahead; the
    chunks in ``skip`` (stored by an earlier, interrupted match) are not played and come as ``None``. Closing the
    generator (the test has decided) stops the pieces in flight. ``on_games(n)`` hears of the ``n`` games of each
    piece as it is taken (in order)."""
    n_chunks = -(-spec.games // spec.chunk_size)
    played = chunk_results(backend, spec, [k for k in range(n_chunks) if k not in skip], ordered=True)
    with closing(played):  # type: ignore[type-var]  # a generator has close()
        for k in range(n_chunks):
            if k in skip:
                yield k, None
                continue
            while True:  # the pieces of batch k, in order, the last one with the whole batch
                games, chunk = next(played)
                if on_games is not None:
                    on_games(games)
                if chunk is not None:
                    yield k, chunk
                    break


@dataclass
class SprtSettings:
    """A sequential test: H0 elo0 against H1 elo1 on the ``model`` Elo scale with error rates alpha, beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def bounds(self) -> tuple[float, float]:
        """The (lower, upper) LLR bounds."""
        return sprt_bounds(self.alpha, self.beta)


@dataclass
class MatchOutcome:
    """A finished match: the pairs, their summary and (with a SPRT) the last LLR and decision."""

    a: str
    b: str
    state: MatchState
    summary: PairSummary
    sprt: dict[str, Any] | None = None


def play_match(variant: str, rules: RuleSet, a: str, b: str, seed: int, pairs: int, *, jobs: int = 1, batch: int = 50,
               sprt: SprtSettings | None = None,
               progress: Callable[[MatchState, dict[str, Any] | None], None] | None = None,
               stored: Mapping[int, BatchCounts] | None = None,
               on_batch: Callable[[int, BatchCounts], None] | None = None, backend: str | Backend = "local",
               scheduler: str | None = None, on_games: Callable[[int], None] | None = None) -> MatchOutcome:
    """Play A against B in up to ``pairs`` duplicate pairs (game indices 0..pairs-1 of ``seed``).

    ``rules`` is a loaded rule set. Games are played in batches of ``batch`` pairs; after each batch
    ``progress(state, sprt_status)`` is called, and with ``sprt`` the match stops as soon as the LLR of the
    pairs so far leaves the bounds (H0 or H1) or ``pairs`` are played (inconclusive). Batches in ``stored`` (by
    batch index, from an interrupted match with the same settings) are taken as they are instead of played, and
    ``on_batch(k, counts)`` is called for each batch played here (to store it), so a resumed match stops where
    an uninterrupted one would. ``backend`` plays the batches: an open :class:`~simcli.runs.backends.Backend` (a
    command's, shared by all its matches), or ``local`` or ``dask`` (with ``scheduler``), opened for this match with
    ``jobs`` workers; batches are consumed in index order whatever plays them, so the results and where the test
    stops are the same on any backend. ``on_games(n)`` is called as each piece of a batch is played (``n`` games:
    one pair, two games, at a time for a search player), so that a bar can move between batches. Raises
    :class:`MatchError` for a failed game or a backend that cannot play.
    """
    seats = seat_strategies(a, b, rules.num_players, rules.n_teams, variant)
    spec = RunSpec(variant=variant, rules=rules.formatted(), strategies=seats, seed=seed, games=pairs,
                   rotate_seats=True, chunk_size=batch, on_error="stop")
    stored = stored or {}
    bounds = sprt.bounds() if sprt is not None else None
    state = MatchState()
    status: dict[str, Any] | None = None
    try:
        with use_backend(backend, jobs, scheduler) as pool:
            chunks = _chunks(pool, spec, skip=set(stored), on_games=on_games)
            with closing(chunks):  # type: ignore[type-var]  # a generator has close()
                for k, chunk in chunks:
                    status = _take(k, chunk, state, stored, seed=seed, sprt=sprt, bounds=bounds, status=status,
                                   on_batch=on_batch)
                    if progress is not None:
                        progress(state, status)
                    if status is not None and status["result"] != "inconclusive":
                        break
    except ClusterLost:
        raise  # the command says what its store keeps
    except BackendError as exc:
        raise MatchError(str(exc)) from None
    return MatchOutcome(a=a, b=b, state=state, summary=state.summary(), sprt=status)


def _take(k: int, chunk: ChunkResult | None, state: MatchState, stored: Mapping[int, BatchCounts], *, seed: int,
          sprt: SprtSettings | None, bounds: tuple[float, float] | None, status: dict[str, Any] | None,
          on_batch: Callable[[int, BatchCounts], None] | None) -> dict[str, Any] | None:
    """Add batch ``k`` (played, or stored when ``chunk`` is None) to ``state``; the SPRT status after it."""
    if chunk is None:
        counts = stored[k]
    else:
        if chunk.fatal is not None:
            err = chunk.errors[-1]
            raise MatchError(f"game {err['game_index']} (seed {seed}, rotation {err['rotation']}) failed at "
                             f"seat {err['seat']}, deal {err['deal_index']}, turn {err['turn']}: {chunk.fatal}",
                             traceback=str(err.get("traceback") or ""))
        counts = batch_counts(chunk)
        if on_batch is not None:
            on_batch(k, counts)
    state.add(counts)
    if sprt is not None and bounds is not None:
        try:
            llr = sprt_llr(state.summary().pentanomial, sprt.elo0, sprt.elo1, sprt.model)
        except DuplicateError as exc:
            raise MatchError(str(exc)) from None
        status = {"llr": llr, "lower": bounds[0], "upper": bounds[1],
                  "result": sprt_decision(llr, *bounds)}
    return status
