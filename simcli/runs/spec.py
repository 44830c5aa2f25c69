"""What a batch run is: its settings (:class:`RunSpec`), its chunking and its seat rotations.

A run's results depend only on its spec and the game index, so the spec is what a resume must agree on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (and must match to resume it)."""

    variant: str
    rules: dict[str, str]  # every knob, formatted as on the command line
    strategies: tuple[str, ...]
    seed: int
    games: int
    rotate_seats: bool = False
    chunk_size: int = 100
    on_error: str = "stop"
    trace_games: int = 0

    def comparable(self) -> dict[str, Any]:
        """The fields a resume must agree on."""
        d = asdict(self)
        d["strategies"] = list(self.strategies)
        return d


def default_chunk_size(games: int) -> int:
    """Chunk size from N alone (never from --jobs, so files are the same for any jobs).

    About 24 chunks per run, 20 to 500 games each: enough chunks to keep every worker busy and the
    progress bar moving, few enough that writing them costs little next to playing them.
    """
    return max(20, min(500, games // 24 or 1))


def rotated(strategies: tuple[str, ...], rotation: int) -> list[str]:
    """Seat assignment for a rotation: rotation 1 shifts every strategy one seat, swapping partnerships."""
    p = len(strategies)
    return [strategies[(s + rotation) % p] for s in range(p)]
