"""What the table files of a run hold, checked against what was recorded (the content checks of
:mod:`simcli.runs.integrity`): present, readable, the recorded size, checksum and rows, exactly the games expected,
each once, in ``games`` or ``errors``, the run's seed, and the deals each game lists, none twice.

The key columns are read as numpy arrays, and the deals table a batch at a time, so a check holds a few bytes a game
and a bit a deal row, however many games the run has.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from simcli.runs.run_files import (
    CHUNK_DIR,
    KEY_COLUMNS,
    REQUIRED,
    TABLES,
    Problem,
    file_digest,
    first_line,
    games_text,
)

__all__ = ["check_tables"]

#: Deals rows read at a time.
BATCH_ROWS = 1 << 16


def _columns(path: Path, fmt: str) -> list[str]:
    import pyarrow.parquet as pq

    if fmt == "parquet":
        return list(pq.read_schema(path).names)
    with open(path, encoding="utf-8") as fh:
        return fh.readline().strip().replace('"', "").split(",")


def _batches(path: Path, fmt: str, columns: list[str]) -> Iterator[dict[str, np.ndarray]]:
    """The file's ``columns`` as int64 arrays, a batch at a time."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    if fmt == "parquet":
        reader: Any = pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS, columns=columns)
    else:
        reader = pacsv.open_csv(path, convert_options=pacsv.ConvertOptions(include_columns=columns))
    for batch in reader:
        yield {c: batch.column(i).to_numpy(zero_copy_only=False).astype(np.int64) for i, c in enumerate(columns)}


def _rows(path: Path, fmt: str, columns: list[str]) -> int:
    import pyarrow.parquet as pq

    if fmt == "parquet":
        return int(pq.ParquetFile(path).metadata.num_rows)
    return sum(len(b[columns[0]]) for b in _batches(path, fmt, columns[:1]))


def _whole(path: Path, fmt: str, columns: list[str]) -> dict[str, np.ndarray]:
    parts = list(_batches(path, fmt, columns))
    return {c: np.concatenate([p[c] for p in parts]) if parts else np.zeros(0, dtype=np.int64) for c in columns}


def _pairs(codes: np.ndarray) -> list[tuple[int, int]]:
    """Key codes (``2 * game_index + rotation``) as sorted (game_index, rotation) pairs."""
    codes = np.sort(codes)
    return [(int(c) // 2, int(c) % 2) for c in codes]


def _text(codes: np.ndarray) -> str:
    """:func:`games_text` of key codes (decoding only the three it shows)."""
    codes = np.sort(codes)
    return games_text(_pairs(codes[:3]), len(codes))


def check_tables(paths: dict[str, Path], fmt: str, games: range, rotations: tuple[int, ...], seed: int,
                 recorded: dict[str, dict[str, Any]], label: str, chunk: int | None) -> tuple[list[Problem], int]:
    """Check one set of games/deals/errors files (a chunk's, or the consolidated ones) against the ``games`` indices
    played in ``rotations``.

    ``recorded`` maps a table to what was recorded when it was written (``rows``, ``sha256``, ``hands``
    for games); a table with ``rows == 0`` must not exist. Returns the problems and the games kept.
    """
    problems: list[Problem] = []
    if recorded.get("games", {}).get("rows") == 0:
        recorded.setdefault("deals", {})["rows"] = 0  # no games, no deals
    where = {name: str(Path(p.parent.name, p.name)) if p.parent.name == CHUNK_DIR else p.name
             for name, p in paths.items()}

    def bad(name: str, reason: str) -> None:
        problems.append(Problem(where[name], reason, chunk))

    usable: dict[str, Path] = {}
    for name in TABLES:
        path, rec = paths[name], recorded.get(name, {})
        rows = rec.get("rows")
        if rows == 0:
            if path.exists():
                bad(name, f"should not exist ({label} recorded no {name} rows)")
            continue
        if not path.exists():
            if rows is not None or name != "errors":
                bad(name, "missing")
            continue
        size = path.stat().st_size
        if rec.get("bytes") is not None and size != rec["bytes"]:
            cut = "truncated: " if size < rec["bytes"] else ""
            bad(name, f"{cut}{size:,} bytes, {label} recorded {rec['bytes']:,}")
            continue
        try:
            columns = _columns(path, fmt)
            missing = [c for c in REQUIRED[name] if c not in columns]
            held = None if missing else _rows(path, fmt, list(KEY_COLUMNS[name]))
        except Exception as exc:  # noqa: BLE001 - any failure to read the file is the finding
            bad(name, f"cannot be read (truncated or not a {fmt} file: {first_line(exc)})")
            continue
        if missing:
            bad(name, f"lacks the column(s) {', '.join(missing)} of a {name} table (docs/results-format.md)")
            continue
        if rec.get("sha256") and file_digest(path) != rec["sha256"]:
            bad(name, f"does not match the checksum {label} recorded (changed or damaged since it was written)")
            continue
        if rows is not None and held != rows:
            bad(name, f"holds {held} rows, {label} recorded {rows}")
            continue
        usable[name] = path
    if problems:
        return problems, 0
    try:
        return _check_content(usable, fmt, games, rotations, seed, recorded, label, bad, problems)
    except Exception as exc:  # noqa: BLE001 - a file that fails half-way through is unreadable
        name = next((n for n in TABLES if n in usable), "games")
        bad(name, f"cannot be read (truncated or not a {fmt} file: {first_line(exc)})")
        return problems, 0


def _check_content(usable: dict[str, Path], fmt: str, games: range, rotations: tuple[int, ...], seed: int,
                   recorded: dict[str, dict[str, Any]], label: str, bad: Any,
                   problems: list[Problem]) -> tuple[list[Problem], int]:
    """The checks of what the readable tables hold (see :func:`check_tables`)."""
    played = _whole(usable["games"], fmt, ["game_index", "rotation", "deals", "seed"]) if "games" in usable else {}
    failed = _whole(usable["errors"], fmt, ["game_index", "rotation"]) if "errors" in usable else {}
    codes = {name: t["game_index"] * 2 + t["rotation"] for name, t in (("games", played), ("errors", failed)) if t}
    empty = np.zeros(0, dtype=np.int64)
    for name in ("games", "errors"):
        c = codes.get(name, empty)
        uniq, counts = np.unique(c, return_counts=True)
        if (counts > 1).any():
            bad(name, f"holds game {_text(uniq[counts > 1])} more than once")
        table = played if name == "games" else failed
        if len(c):
            inside = ((table["game_index"] >= games.start) & (table["game_index"] < games.stop)
                      & np.isin(table["rotation"], rotations))
            if not inside.all():
                bad(name, f"holds game {_text(np.unique(c[~inside]))}, which {label} does not cover")
    both = np.intersect1d(codes.get("games", empty), codes.get("errors", empty))
    if len(both):
        bad("games", f"game {_text(both)} is also in the errors table")
    # every game of the range, in each rotation: a flag each (not a set of keys), marked by both tables
    width = max(rotations) + 1 if rotations else 1
    seen = np.zeros(len(games) * width, dtype=bool)
    for table in (played, failed):
        if table:
            gi, rot = table["game_index"], table["rotation"]
            inside = (gi >= games.start) & (gi < games.stop) & (rot >= 0) & (rot < width)
            seen[(gi[inside] - games.start) * width + rot[inside]] = True
    wanted = np.zeros(width, dtype=bool)
    wanted[list(rotations)] = True
    lost = np.flatnonzero(~seen & np.tile(wanted, len(games)))
    if len(lost):
        bad("games", f"lacks game {_text((lost // width + games.start) * 2 + lost % width)} (in neither the games "
                     f"nor the errors table)")
    del seen
    if "games" not in usable:
        if "deals" in usable and _rows(usable["deals"], fmt, ["game_index"]):
            bad("deals", f"holds deals although {label} recorded no games")
        return problems, 0
    other = played["seed"][played["seed"] != seed]
    if len(other):
        bad("games", f"holds games of seed {int(other.min())}, the run's seed is {seed}")
    _, once = np.unique(codes["games"], return_index=True)  # a game listed twice counts once
    hands = int(played["deals"][once].sum())
    want_hands = recorded.get("games", {}).get("hands")
    if want_hands is not None and hands != want_hands:
        bad("games", f"holds {hands} deals in all, {label} recorded {want_hands}")
    if "deals" not in usable:
        if len(codes["games"]):
            bad("deals", "missing")
        return problems, len(codes["games"])
    teams = sum(1 for c in _columns(usable["games"], fmt) if c.startswith("score_team_"))
    _check_deals(usable["deals"], fmt, codes["games"], played["deals"], teams, bad)
    return problems, len(codes["games"])


def _distinct(slot: np.ndarray) -> bool:
    """Whether no value repeats: at once when they increase (rows in order), else by counting them."""
    if len(slot) < 2 or bool((np.diff(slot) > 0).all()):
        return True
    low = int(slot.min())
    return bool(np.bincount(slot - low).max() <= 1)


def _check_deals(path: Path, fmt: str, game_codes: np.ndarray, deals: np.ndarray, teams: int, bad: Any) -> None:
    """Every game's deals, ``deals x teams`` rows (each deal and team once), and no row of a game not played."""
    keys, first = np.unique(game_codes, return_index=True)  # a game listed twice is reported as such already
    listed = deals[first]
    wanted = listed * teams
    starts = np.concatenate([[0], np.cumsum(wanted)])
    held = np.zeros(len(keys), dtype=np.int64)  # rows per game
    placed = np.zeros(int(starts[-1]), dtype=bool)  # each expected row, once seen
    misfit = np.zeros(len(keys), dtype=bool)  # a game with a row that none of its deals can hold
    twice = False
    strays: list[np.ndarray] = []  # key codes of rows of games the games table does not list
    for b in _batches(path, fmt, list(KEY_COLUMNS["deals"])):
        code = b["game_index"] * 2 + b["rotation"]
        if len(keys):
            pos = np.minimum(np.searchsorted(keys, code), len(keys) - 1)
            known = (keys[pos] == code) & (b["rotation"] >= 0) & (b["rotation"] < 2)
        else:
            pos, known = np.zeros(len(code), dtype=np.int64), np.zeros(len(code), dtype=bool)
        strays.append(np.unique(code[~known]))
        pos, deal, team = pos[known], b["deal_index"][known], b["team"][known]
        if len(pos):  # a batch covers a few consecutive games: count them in a window
            low = int(pos.min())
            counts = np.bincount(pos - low)
            held[low:low + len(counts)] += counts
        fits = (deal >= 0) & (deal < listed[pos]) & (team >= 0) & (team < teams)
        misfit[pos[~fits]] = True
        slot = starts[pos[fits]] + deal[fits] * teams + team[fits]
        if placed[slot].any() or not _distinct(slot):
            twice = True
        placed[slot] = True
    if twice:
        bad("deals", "holds a (game, rotation, deal, team) row more than once")
    other = np.unique(np.concatenate(strays)) if strays else np.zeros(0, dtype=np.int64)
    short = np.union1d(keys[(held != wanted) | misfit], other)
    if len(short):
        bad("deals", f"does not hold the deals of game {_text(short)} that the games table lists")
