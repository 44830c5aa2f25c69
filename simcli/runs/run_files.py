"""A run directory's files and what a check finds in them: the file names, the columns each table must have, a
:class:`Problem` (a file and why it cannot be trusted) and the helpers that name them, shared by the checks of
:mod:`simcli.runs.integrity` and :mod:`simcli.runs.table_checks`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MANIFEST", "CHUNK_DIR", "LOCK", "TABLES", "REQUIRED", "KEY_COLUMNS", "Problem", "file_digest", "games_text",
           "first_line"]

MANIFEST = "run.json"
CHUNK_DIR = "chunks"
LOCK = "run.lock"
TABLES = ("games", "deals", "errors")
# Columns a table must have for the checks (and any analysis) to make sense of it.
REQUIRED = {
    "games": ("game_index", "rotation", "seed", "deals", "winner_team", "score_team_0", "score_team_1"),
    "deals": ("game_index", "rotation", "deal_index", "team", "score_total"),
    "errors": ("game_index", "rotation"),
}
KEY_COLUMNS = {"games": ("game_index", "rotation", "deals"), "deals": ("game_index", "rotation", "deal_index",
                                                                        "team"), "errors": ("game_index", "rotation")}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a run: the file (relative to the run directory) and why.

    ``chunk`` is the chunk whose games must be played again; ``None`` for the consolidated tables, which
    (the chunk copies being gone) need the whole run played again, or for the manifest, which nothing fixes.
    """

    path: str
    reason: str
    chunk: int | None = None
    fixable: bool = True

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def file_digest(path: Path) -> str:
    """SHA-256 of a file, read in blocks (the consolidated tables can be large)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def games_text(keys: list[tuple[int, int]], total: int | None = None) -> str:
    """The first three of sorted (game, rotation) ``keys`` and how many more (of ``total``, default all given)."""
    total = len(keys) if total is None else total
    shown = ", ".join(str(g) if r == 0 else f"{g} (rotation {r})" for g, r in keys[:3])
    return shown + (f" and {total - 3} more" if total > 3 else "")


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (at most 160 characters), or its type."""
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else type(exc).__name__
