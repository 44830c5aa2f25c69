"""Spreading chunks over the workers in pieces sized by what a game costs, and putting the chunks back together.

A chunk (``RunSpec.chunk_size`` consecutive games) is what a run stores, one table file and done-marker each, and
what a match decides on: a batch of pairs, after which its sequential test is checked. Its size comes from N
alone, so that the files, a resume and where a test stops never depend on the machine. It is a poor unit of work,
though: a search player's game takes seconds, and 40 games of ``mc`` were two chunks of 20, a bar that moved twice,
two minutes apart, and 4 games one chunk on one core while the other idled.

So the workers play *pieces*: consecutive games of one chunk, each piece a task of its own. The first piece of
every chunk set is one game; once games have been timed, a piece holds about :data:`TARGET_SECONDS` of play, so a
search player (several seconds a game) plays one game a piece on every core and the bar moves each game, while
a heuristic one (milliseconds a game) plays pieces of dozens of games, few enough that handing them out costs
nothing next to playing them. Game ``i`` depends only on the spec and ``i``, so a chunk assembled from pieces is
the chunk played whole: rows, errors and traces in game order, its hands and seconds summed. Pieces only change
which worker plays which game and when the progress callback hears of it; what is stored and decided does not
change.

Stopping: once the stop flag is set no new chunk is begun, and the pieces of the chunks already begun are all
handed out and played, so that every begun chunk is finished and written, as when chunks were played whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass

from simcli.runs.backends import Backend, StopFlag
from simcli.runs.chunks import ChunkResult, chunk_games, play_games
from simcli.runs.spec import RunSpec

#: Seconds of play a piece aims at once a game has been timed: the bar moves about this often (each game for
#: games that take longer), and the cost of handing a piece to a worker (a millisecond or so) stays negligible.
TARGET_SECONDS = 0.5


@dataclass(frozen=True)
class Piece:
    """Games ``start`` to ``stop - 1`` of chunk ``chunk``."""

    chunk: int
    start: int
    stop: int

    @property
    def games(self) -> int:
        """The number of game indices in the piece."""
        return self.stop - self.start


def play_piece(spec: RunSpec, piece: Piece) -> tuple[Piece, ChunkResult]:
    """Play a piece's games in a worker; the piece comes back with its rows, so the parent knows where they go."""
    return piece, play_games(spec, piece.chunk, piece.start, piece.stop)


class Pieces:
    """The pieces of the chunks ``todo``, in order, sized from the games timed so far (:meth:`timed`).

    Iterated lazily by a backend, which asks for the next piece only when one has finished (and its time is
    known); a set ``stop`` flag ends the iteration once the chunk being handed out is complete.
    """

    def __init__(self, spec: RunSpec, todo: Iterable[int], stop: StopFlag | None = None,
                 target: float = TARGET_SECONDS) -> None:
        self.spec = spec
        self.todo = list(todo)
        self.stop = stop
        self.target = target
        self.seconds = 0.0
        self.games = 0

    def timed(self, piece: Piece, result: ChunkResult) -> None:
        """Count a finished piece's games and seconds into the cost of a game."""
        self.games += piece.games
        self.seconds += result.seconds

    def size(self) -> int:
        """Games in the next piece: one until a game has been timed, then about ``target`` seconds of games."""
        if self.games == 0:
            return 1
        per_game = self.seconds / self.games
        return max(1, int(self.target / per_game)) if per_game > 0 else 1 << 30

    def __iter__(self) -> Iterator[Piece]:
        for k in self.todo:
            if self.stop is not None and self.stop.requested is not None:
                return  # a begun chunk is finished below; a new one is not begun
            games = chunk_games(self.spec, k)
            start = games.start
            while start < games.stop:
                stop = min(games.stop, start + self.size())
                yield Piece(k, start, stop)
                start = stop

    def expected(self, k: int) -> int:
        """The number of game indices of chunk ``k``."""
        return len(chunk_games(self.spec, k))


def merge(index: int, parts: list[tuple[Piece, ChunkResult]]) -> ChunkResult:
    """One chunk's result from its pieces' (in any order): what playing the chunk whole returns."""
    out = ChunkResult(index=index)
    for _, part in sorted(parts, key=lambda p: p[0].start):
        out.games.extend(part.games)
        out.deals.extend(part.deals)
        out.errors.extend(part.errors)
        out.traces.update(part.traces)
        out.hands += part.hands
        out.seconds += part.seconds
    return out


def chunk_results(backend: Backend, spec: RunSpec, todo: Iterable[int], *, stop: StopFlag | None = None,
                  ordered: bool = False) -> Iterator[tuple[int, ChunkResult | None]]:
    """The chunks ``todo`` of ``spec``, played in pieces on ``backend``: ``(games, chunk)`` for every piece as it
    comes, ``games`` its game rows (and failed games), ``chunk`` the whole chunk when this piece was its last, else
    None (``ordered``: pieces, and so chunks, in the order of ``todo``, as a match needs). A piece whose game failed
    with ``on_error='stop'`` comes at once as its chunk (``fatal`` set, its last error the failure), and nothing
    after it. ``stop``: see :class:`Pieces`. Closing the generator early stops the pieces in flight (the backend's
    generator is closed with it)."""
    pieces = Pieces(spec, todo, stop)
    parts: dict[int, list[tuple[Piece, ChunkResult]]] = {}
    counted: dict[int, int] = {}
    # The backend gets no stop flag: it would drop pieces of begun chunks, which Pieces hands out to the end.
    source = backend.results(play_piece, spec, pieces, ordered=ordered)
    with closing(source):  # type: ignore[type-var]  # a generator has close()
        for piece, result in source:
            pieces.timed(piece, result)
            played = len(result.games) + len(result.errors)
            if result.fatal is not None:
                yield played, result
                return
            parts.setdefault(piece.chunk, []).append((piece, result))
            counted[piece.chunk] = counted.get(piece.chunk, 0) + piece.games
            if counted[piece.chunk] < pieces.expected(piece.chunk):
                yield played, None
                continue
            del counted[piece.chunk]
            yield played, merge(piece.chunk, parts.pop(piece.chunk))
