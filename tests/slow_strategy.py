"""A strategy whose games are expensive, as a search player's are, for the tests of pieces (simcli.runs.pieces).

:class:`Slow` plays as greedy (the same games) but sleeps :data:`SECONDS` when it is seated, once per seat and
game, so a game of four seats takes over a second, longer than a piece aims at; and, when the environment names a
folder in ``SIMCLI_TEST_PIDS``, leaves a file there named after the process that seated it (which worker played
the game).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from simcli.players.loading import load_strategy

# The built-in as the CLI loads it (on the compiled build, the compiled class).
Greedy = load_strategy("greedy")

#: Seconds each seat adds to a game.
SECONDS = 0.3


class Slow(Greedy):
    """Greedy, seated slowly."""

    name = "slow"

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        time.sleep(SECONDS)
        folder = os.environ.get("SIMCLI_TEST_PIDS")
        if folder:
            (Path(folder) / str(os.getpid())).touch()
