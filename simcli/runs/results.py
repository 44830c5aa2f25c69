"""Loading run directories into pandas: ``simcli.runs.results.load(run_dir)`` reads a run's tables whole;
``scan(run_dir)`` opens it for an analysis that reads only what it needs (the games table, and the deals table a
few columns at a time)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simcli.runs.integrity import MANIFEST, DamagedRunError, require_intact
from simcli.runs.tables import arrow_batches, read_frame, table_columns, table_files, table_rows

__all__ = ["DamagedRunError", "Run", "StoredRun", "load", "scan"]

GAME_KEYS = ("game_index", "rotation")
DEAL_KEYS = ("game_index", "rotation", "deal_index", "team")


@dataclass
class Run:
    """A loaded run: ``games`` and ``deals`` DataFrames, ``errors`` (maybe empty) and the ``manifest``."""

    path: Path
    manifest: dict[str, Any]
    games: pd.DataFrame
    deals: pd.DataFrame
    errors: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def complete(self) -> bool:
        """Whether the run finished (every game played or recorded as an error)."""
        return self.manifest.get("status") == "complete"


def _read(run_dir: Path, name: str) -> pd.DataFrame:
    files, fmt = table_files(run_dir, name)
    reader = pd.read_csv if fmt == "csv" else pd.read_parquet
    if not files:
        return pd.DataFrame()
    if len(files) == 1:
        return reader(files[0])
    return pd.concat([reader(p) for p in files], ignore_index=True)


def _sorted(df: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    by = [c for c in keys if c in df.columns]
    return df.sort_values(by, ignore_index=True) if by else df


def _opened(run_dir: str | Path, check: bool) -> tuple[Path, dict[str, Any]]:
    path = Path(run_dir)
    manifest_path = path / MANIFEST
    if not manifest_path.exists():
        raise FileNotFoundError(f"{path} is not a run directory (no {MANIFEST})")
    if check:
        require_intact(path)
    return path, json.loads(manifest_path.read_text())


def load(run_dir: str | Path, *, check: bool = True) -> Run:
    """Load a run directory written by ``simcli run`` (complete, or interrupted: finished chunks only).

    The run is checked first (:func:`simcli.runs.integrity.check_run`): a damaged one raises
    :class:`DamagedRunError` (a ValueError) with one line naming the file, the reason and the fix.
    ``check=False`` skips that, for looking into a damaged run.
    """
    path, manifest = _opened(run_dir, check)
    games = _sorted(_read(path, "games"), GAME_KEYS)
    deals = _sorted(_read(path, "deals"), DEAL_KEYS)
    return Run(path=path, manifest=manifest, games=games, deals=deals, errors=_read(path, "errors"))


class StoredRun(Run):
    """A run opened by :func:`scan`: its manifest and errors, its ``games`` table (read on first use, with compact
    types), and its deals table read a few columns at a time by :meth:`deal_batches`, which the statistics use to
    reduce deals to per-game sums as they read (:mod:`simcli.stats.streams`). ``deals`` reads the whole deals table
    as :func:`load` does (on first use), for code that wants every column at once. A :class:`Run` everywhere one is
    expected.
    """

    def __init__(self, path: Path, manifest: dict[str, Any], errors: pd.DataFrame) -> None:
        self.path = path
        self.manifest = manifest
        self.errors = errors
        self._games: pd.DataFrame | None = None
        self._deals: pd.DataFrame | None = None

    def __repr__(self) -> str:
        return f"StoredRun({str(self.path)!r})"

    def __eq__(self, other: object) -> bool:
        # identity: comparing the tables field by field (the dataclass's way) would read the whole deals table
        return self is other

    __hash__ = object.__hash__

    @property
    def games(self) -> pd.DataFrame:
        """The games table, sorted by game and rotation, integers as ``int32`` and strategies as categoricals."""
        if self._games is None:
            games = read_frame(self.path, "games")
            keys = [c for c in GAME_KEYS if c in games.columns]
            if keys and len(games) and not _in_order(games, keys):
                games = games.sort_values(keys, ignore_index=True)
            self._games = games
        return self._games

    @games.setter
    def games(self, value: pd.DataFrame) -> None:
        self._games = value

    @property
    def deals(self) -> pd.DataFrame:
        """The whole deals table, sorted by game, rotation, deal and team (as :func:`load` reads it)."""
        if self._deals is None:
            self._deals = _sorted(_read(self.path, "deals"), DEAL_KEYS)
        return self._deals

    @deals.setter
    def deals(self, value: pd.DataFrame) -> None:
        self._deals = value

    @cached_property
    def deal_columns(self) -> list[str]:
        """The columns of the deals table."""
        return table_columns(self.path, "deals")

    @cached_property
    def deal_rows(self) -> int:
        """How many rows the deals table has (from the file footers)."""
        return table_rows(self.path, "deals")

    @cached_property
    def _offsets(self) -> np.ndarray | None:
        """Where each game's deal rows start in the deals file (games in table order, one more entry for the end),
        when the file holds exactly the rows of the games table in order (game, rotation, deal, team), as
        ``simcli run`` writes it; None otherwise. With them the key columns need not be read, they are known."""
        games = self.games
        teams = sum(1 for c in games.columns if c.startswith("score_team_"))
        if not len(games) or teams == 0 or "deals" not in games.columns:
            return None
        offsets = np.zeros(len(games) + 1, dtype=np.int64)
        np.cumsum(games["deals"].to_numpy(np.int64) * teams, out=offsets[1:])
        start = 0
        for batch in arrow_batches(self.path, "deals", DEAL_KEYS):
            stop = start + batch.num_rows
            if stop > offsets[-1]:
                return None
            expected = self._keys(offsets, teams, start, stop)
            if any(not np.array_equal(batch.column(i).to_numpy(zero_copy_only=False), expected[name])
                   for i, name in enumerate(DEAL_KEYS)):
                return None
            start = stop
        return offsets if start == offsets[-1] else None

    def _keys(self, offsets: np.ndarray, teams: int, start: int, stop: int) -> dict[str, np.ndarray]:
        """The key columns of rows ``start:stop`` of a deals file in the order of :attr:`_offsets`."""
        first = int(np.searchsorted(offsets, start, side="right")) - 1
        last = int(np.searchsorted(offsets, stop - 1, side="right")) - 1
        bounds = np.clip(offsets[first:last + 2], start, stop)
        row_game = np.repeat(np.arange(first, last + 1), np.diff(bounds))
        within = np.arange(start, stop) - offsets[row_game]
        index, rotation = self._game_keys
        return {"game_index": index[row_game], "rotation": rotation[row_game], "deal_index": within // teams,
                "team": within % teams}

    @cached_property
    def _game_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """The games' ``game_index`` and ``rotation`` as arrays, in table order."""
        return self.games["game_index"].to_numpy(np.int64), self.games["rotation"].to_numpy(np.int64)

    def deal_batches(self, columns: Sequence[str]) -> Iterator[pd.DataFrame]:
        """The deals table's ``columns`` in batches of rows (file order), with compact types.

        Key columns (game, rotation, deal, team) of a file in ``simcli run``'s order are computed from the games
        table rather than read. A column the table lacks raises ``KeyError``.
        """
        wanted = list(dict.fromkeys(columns))
        keys = [c for c in wanted if c in DEAL_KEYS]
        offsets = self._offsets if keys else None
        read = [c for c in wanted if offsets is None or c not in DEAL_KEYS]
        teams = sum(1 for c in self.games.columns if c.startswith("score_team_")) if offsets is not None else 0
        files, fmt = table_files(self.path, "deals")
        if not read and fmt == "csv":
            read = ["team"]  # a CSV block is counted by reading a column
        start = 0
        for batch in arrow_batches(self.path, "deals", read):
            # a batch is let go at once: its integers stay 64-bit (casting costs more than it saves here)
            frame = (batch.to_pandas(strings_to_categorical=True) if read
                     else pd.DataFrame(index=pd.RangeIndex(batch.num_rows)))
            if offsets is not None:
                known = self._keys(offsets, teams, start, start + batch.num_rows)
                for name in keys:
                    frame[name] = known[name]
            start += batch.num_rows
            yield frame[wanted]


def _in_order(df: pd.DataFrame, keys: Sequence[str]) -> bool:
    """Whether ``df`` is sorted by ``keys`` (lexicographically), without sorting it."""
    arrays = [df[k].to_numpy(np.int64) for k in keys]
    if len(arrays) == 1:
        return bool(np.all(np.diff(arrays[0]) >= 0))
    a, b = arrays[0], arrays[1]
    da, db = np.diff(a), np.diff(b)
    return bool(np.all((da > 0) | ((da == 0) & (db >= 0))))


def scan(run_dir: str | Path, *, check: bool = True) -> StoredRun:
    """Open a run directory for analysis without reading its tables yet (see :class:`StoredRun`); checked as
    :func:`load` checks it (``check=False`` skips the check)."""
    path, manifest = _opened(run_dir, check)
    return StoredRun(path, manifest, _read(path, "errors"))
