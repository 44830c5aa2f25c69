"""What ``simcli play`` adds to follow a game: the play-by-play, the replay page, a person at one seat.

:class:`Following` holds the listeners (a :class:`~simcli.viewer.narrate.Narrator`, and the game's trace kept in
memory for the page) and writes the page once the game is over, through the same replay as ``simcli replay``
(:mod:`simcli.viewer.replay`), so both pages are made alike. :func:`seat_person` puts a
:class:`~simcli.viewer.human.HumanPlayer` at a seat among strategies built from their names.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from simcli.engine.core import Emit
from simcli.engine.strategy_base import Strategy
from simcli.engine.trace import TraceWriter
from simcli.players.seating import make_strategies
from simcli.primitives.seeding import seat_rng
from simcli.viewer.human import HumanPlayer
from simcli.viewer.narrate import Narrator, tee
from simcli.viewer.page import write_page
from simcli.viewer.replay import GameReplay, parse_trace, replay
from simcli.viewer.words import COMPASS, Words


class Following:
    """The listeners that follow one game. ``header`` holds what a trace's ``trace_header`` line holds."""

    def __init__(self, header: dict[str, Any], *, narrate: bool, page: bool, seat: int | None,
                 write: Callable[[str], None]) -> None:
        self.words = Words.from_header(header)
        self.memory: io.StringIO | None = None
        writer = None
        if page:
            self.memory = io.StringIO()
            writer = TraceWriter(self.memory)
            writer.header(**header)
        narrator = Narrator(Words.from_header(header), write, seat) if narrate or seat is not None else None
        self.emit: Emit | None = tee(writer, narrator)

    def page(self, path: Path) -> GameReplay:
        """Replay the game kept in memory and write its page to ``path``."""
        assert self.memory is not None, "Following(page=True) keeps the game for a page"
        game = replay(parse_trace(self.memory.getvalue().splitlines()))
        write_page(game, path)
        return game


def parse_seat(text: str, num_players: int) -> int:
    """A seat given on the command line: its number (from 0) or, at four players, North/East/South/West."""
    names = [n.lower() for n in COMPASS] if num_players == 4 else []
    if text.strip().lower() in names:
        return names.index(text.strip().lower())
    try:
        seat = int(text)
    except ValueError:
        seat = -1
    if not 0 <= seat < num_players:
        allowed = f"0 to {num_players - 1}" + (" or North, East, South, West" if names else "")
        raise ValueError(f"bad seat '{text}': allowed is {allowed}")
    return seat


def seat_person(names: Sequence[str], seed: int, game_index: int, seat: int, stdin: IO[str], stdout: IO[str],
                words: Words, hint_worlds: int) -> list[Strategy]:
    """The seats' strategies built from ``names`` (each with its own random stream), a person at ``seat``."""
    others = [n if s != seat else "random" for s, n in enumerate(names)]
    players = make_strategies(others, seed, game_index)
    players[seat] = HumanPlayer(seat_rng(seed, game_index, seat), stdin=stdin, stdout=stdout, words=words,
                                hint_worlds=hint_worlds)
    return players
