"""Checking a run directory against what it claims to hold: ``simcli verify``, verified resume, safe loading.

A run's files are trusted only after a check: every finished chunk (its done-marker, and its table files:
present, readable, the checksum and row counts the marker recorded, exactly the games of the chunk, each
once, deals matching the games) and, once the run is complete, the consolidated tables (the checksums,
row counts, hands and errors recorded in ``run.json``, every game of the run exactly once). Games are
deterministic, so whatever fails a check can be played again: :func:`simcli.runs.execute.execute_run` replays
the damaged chunks (or the whole run when a consolidated table is damaged, since the chunk copies are
gone by then), and the analysis commands refuse a damaged run with one line naming the file and the fix.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


class DamagedRunError(ValueError):
    """A run directory whose files do not hold what its manifest and done-markers say (one-line message)."""


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


@dataclass
class RunCheck:
    """What :func:`check_run` found: the manifest (when readable), the status, the problems, the games kept."""

    run_dir: Path
    manifest: dict[str, Any] | None
    problems: list[Problem] = field(default_factory=list)
    good_chunks: dict[int, dict[str, Any]] = field(default_factory=dict)
    games_kept: int = 0

    @property
    def status(self) -> str:
        """The manifest's status (``unknown`` when it cannot be read)."""
        return str((self.manifest or {}).get("status", "unknown"))

    @property
    def ok(self) -> bool:
        """No problem found (the run may still be unfinished: see :attr:`status`)."""
        return not self.problems

    def fix_hint(self) -> str:
        """How to repair the run, for the one-line errors."""
        if any(not p.fixable for p in self.problems):
            return "its settings are lost: play it again into a new --out"
        return f"repair it with: simcli run --resume --out {self.run_dir}"

    def one_line(self) -> str:
        """The first problem, how many more, and the fix: the message of a refused damaged run."""
        first = self.problems[0]
        more = f" (and {len(self.problems) - 1} more problem(s))" if len(self.problems) > 1 else ""
        return f"{first}{more}; {self.fix_hint()}"


# ---------------------------------------------------------------------------------------------- helpers
def file_digest(path: Path) -> str:
    """SHA-256 of a file, read in blocks (the consolidated tables can be large)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def chunk_games(spec: dict[str, Any], k: int) -> range:
    """The game indices of chunk ``k``."""
    size = int(spec["chunk_size"])
    return range(k * size, min(int(spec["games"]), (k + 1) * size))


def n_chunks(spec: dict[str, Any]) -> int:
    """How many chunks the run has."""
    return -(-int(spec["games"]) // int(spec["chunk_size"]))


def expected_keys(spec: dict[str, Any], games: range) -> set[tuple[int, int]]:
    """(game_index, rotation) of every game of ``games`` (each played twice with --rotate-seats)."""
    rotations = (0, 1) if spec.get("rotate_seats") else (0,)
    return {(g, r) for g in games for r in rotations}


def _games_text(keys: list[tuple[int, int]]) -> str:
    shown = ", ".join(str(g) if r == 0 else f"{g} (rotation {r})" for g, r in keys[:3])
    return shown + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else type(exc).__name__


def _read(path: Path, name: str, fmt: str) -> tuple[Any, str | None]:
    """The key columns of a table file (a pyarrow Table), or the reason it cannot be used."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    try:
        if fmt == "parquet":
            columns = pq.read_schema(path).names
        else:
            with open(path, encoding="utf-8") as fh:
                columns = fh.readline().strip().replace('"', "").split(",")
    except Exception as exc:  # noqa: BLE001 - any failure to read the file is the finding
        return None, f"cannot be read (truncated or not a {fmt} file: {_first_line(exc)})"
    missing = [c for c in REQUIRED[name] if c not in columns]
    if missing:
        return None, f"lacks the column(s) {', '.join(missing)} of a {name} table (docs/results-format.md)"
    wanted = list(KEY_COLUMNS[name]) + (["seed"] if name == "games" else [])
    try:
        if fmt == "parquet":
            return pq.read_table(path, columns=wanted), None
        return pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(include_columns=wanted)), None
    except Exception as exc:  # noqa: BLE001
        return None, f"cannot be read (truncated or not a {fmt} file: {_first_line(exc)})"


def _n_teams(path: Path, fmt: str) -> int:
    import pyarrow.parquet as pq

    if fmt == "parquet":
        names = pq.read_schema(path).names
    else:
        with open(path, encoding="utf-8") as fh:
            names = fh.readline().strip().replace('"', "").split(",")
    return sum(1 for c in names if c.startswith("score_team_"))


def _check_tables(paths: dict[str, Path], fmt: str, expected: set[tuple[int, int]], seed: int,
                  recorded: dict[str, dict[str, Any]], label: str, chunk: int | None) -> tuple[list[Problem], int]:
    """Check one set of games/deals/errors files (a chunk's, or the consolidated ones) against ``expected``.

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

    tables: dict[str, Any] = {}
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
        table, why = _read(path, name, fmt)
        if why:
            bad(name, why)
            continue
        if rec.get("sha256") and file_digest(path) != rec["sha256"]:
            bad(name, f"does not match the checksum {label} recorded (changed or damaged since it was written)")
            continue
        if rows is not None and table.num_rows != rows:
            bad(name, f"holds {table.num_rows} rows, {label} recorded {rows}")
            continue
        tables[name] = table
    if problems:
        return problems, 0

    def keys(table: Any) -> list[tuple[int, int]]:
        return list(zip(table.column("game_index").to_pylist(), table.column("rotation").to_pylist(), strict=True))

    games = keys(tables["games"]) if "games" in tables else []
    failed = keys(tables["errors"]) if "errors" in tables else []
    for name, ks in (("games", games), ("errors", failed)):
        twice = sorted(k for k, n in Counter(ks).items() if n > 1)
        if twice:
            bad(name, f"holds game {_games_text(twice)} more than once")
        alien = sorted(set(ks) - expected)
        if alien:
            bad(name, f"holds game {_games_text(alien)}, which {label} does not cover")
    both = sorted(set(games) & set(failed))
    if both:
        bad("games", f"game {_games_text(both)} is also in the errors table")
    lost = sorted(expected - set(games) - set(failed))
    if lost:
        bad("games", f"lacks game {_games_text(lost)} (in neither the games nor the errors table)")
    if "games" in tables:
        seeds = set(tables["games"].column("seed").to_pylist())
        if seeds - {seed}:
            bad("games", f"holds games of seed {sorted(seeds - {seed})[0]}, the run's seed is {seed}")
        n_teams = _n_teams(paths["games"], fmt)
        deals_of = dict(zip(games, tables["games"].column("deals").to_pylist(), strict=True))
        hands = sum(deals_of.values())
        want_hands = recorded.get("games", {}).get("hands")
        if want_hands is not None and hands != want_hands:
            bad("games", f"holds {hands} deals in all, {label} recorded {want_hands}")
        if "deals" not in tables:
            if games:
                bad("deals", "missing")
        else:
            import numpy as np

            # A run has millions of deal rows: count them with numpy, not Python tuples.
            d = {c: tables["deals"].column(c).to_numpy().astype(np.int64)
                 for c in ("game_index", "rotation", "deal_index", "team")}
            game_key = d["game_index"] * 2 + d["rotation"]
            row_key = (game_key * 4096 + d["deal_index"]) * 8 + d["team"]
            if len(np.unique(row_key)) != len(row_key):
                bad("deals", "holds a (game, rotation, deal, team) row more than once")
            keys_seen, counts = np.unique(game_key, return_counts=True)
            per_game = {(int(k) // 2, int(k) % 2): int(n) for k, n in zip(keys_seen, counts, strict=True)}
            short = sorted(k for k in set(per_game) | set(deals_of)
                           if per_game.get(k, 0) != deals_of.get(k, 0) * n_teams)
            if short:
                bad("deals", f"does not hold the deals of game {_games_text(short)} that the games table lists")
    elif "deals" in tables and tables["deals"].num_rows:
        bad("deals", f"holds deals although {label} recorded no games")
    return problems, len(games)


# ------------------------------------------------------------------------------------------------ checks
def _is_int(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


#: The run settings in run.json's ``spec`` (what a resume takes from it), and what each must be.
SPEC_FIELDS: dict[str, tuple[str, Any]] = {
    "variant": ("a variant name", lambda v: isinstance(v, str) and bool(v)),
    "games": ("a positive integer", lambda v: _is_int(v, 1)),
    "seed": ("an integer from 0", lambda v: _is_int(v, 0)),
    "strategies": ("a list of strategy names", lambda v: isinstance(v, list) and bool(v)
                   and all(isinstance(s, str) for s in v)),
    "rotate_seats": ("true or false", lambda v: isinstance(v, bool)),
    "trace_games": ("an integer from 0", lambda v: _is_int(v, 0)),
    "on_error": ("stop or skip", lambda v: v in ("stop", "skip")),
    "chunk_size": ("a positive integer", lambda v: _is_int(v, 1)),
    "rules": ("a table of rule knobs", lambda v: isinstance(v, dict)),
}


def manifest_error(manifest: Any) -> str | None:
    """Why ``manifest`` (a parsed run.json) is not a run manifest whose settings can be used, or ``None``.

    Settings are never guessed from a damaged manifest (a truthy ``rotate_seats: "yes"`` would double the run).
    """
    spec = manifest.get("spec") if isinstance(manifest, dict) else None
    if not isinstance(spec, dict):
        return "no 'spec' table of run settings"
    wrong = [f"'{key}' is not {what}" if key in spec else f"no '{key}'"
             for key, (what, ok) in SPEC_FIELDS.items() if key not in spec or not ok(spec[key])]
    if manifest.get("format", "parquet") not in ("parquet", "csv"):
        wrong.append("'format' is not parquet or csv")
    return ", ".join(wrong) or None


def read_marker(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A done-marker's content, or why it cannot be trusted."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        index = int(path.stem.rsplit("-", 1)[1])
        if not isinstance(info, dict) or int(info["chunk"]) != index:
            return None, "names another chunk" if isinstance(info, dict) else "is not a done-marker"
        for key in ("games", "hands", "errors"):
            if int(info[key]) < 0:
                return None, f"has a negative {key} count"
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        return None, f"cannot be read (truncated or corrupt: {_first_line(exc)})"
    return info, None


def check_chunk(run_dir: Path, spec: dict[str, Any], k: int, marker: dict[str, Any]) -> tuple[list[Problem], int]:
    """Check the table files of finished chunk ``k`` against its done-marker; return problems and games kept."""
    folder = run_dir / CHUNK_DIR
    files = marker.get("files") or {}
    recorded: dict[str, dict[str, Any]] = {}
    for name in TABLES:
        rec = dict(files.get(name) or {})
        if name == "games":
            rec.update(rows=int(marker["games"]), hands=int(marker["hands"]))
        elif name == "errors":
            rec["rows"] = int(marker["errors"])
        recorded[name] = rec
    paths = {name: folder / f"{name}-{k:05d}.parquet" for name in TABLES}
    return _check_tables(paths, "parquet", expected_keys(spec, chunk_games(spec, k)), int(spec["seed"]),
                         recorded, f"chunks/done-{k:05d}.json", k)


def check_consolidated(run_dir: Path, manifest: dict[str, Any]) -> tuple[list[Problem], int]:
    """Check the final tables of a complete run against ``run.json``."""
    spec, fmt = manifest["spec"], manifest.get("format", "parquet")
    tables = manifest.get("tables") or {}
    recorded: dict[str, dict[str, Any]] = {name: dict(tables.get(name) or {}) for name in TABLES}
    # Runs written before checksums were recorded still have their counts in the manifest.
    recorded["games"].setdefault("rows", manifest.get("games_played"))
    recorded["games"].setdefault("hands", manifest.get("hands"))
    recorded["errors"].setdefault("rows", manifest.get("errors"))
    for rec in recorded.values():
        if rec.get("rows") is None:
            rec.pop("rows", None)
    paths = {name: run_dir / f"{name}.{fmt}" for name in TABLES}
    return _check_tables(paths, fmt, expected_keys(spec, range(int(spec["games"]))), int(spec["seed"]),
                         recorded, MANIFEST, None)


def check_run(run_dir: str | Path) -> RunCheck:
    """Check a run directory: manifest, done-markers, chunk files, consolidated tables (see the module doc)."""
    run_dir = Path(run_dir)
    try:
        manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return RunCheck(run_dir, None, [Problem(MANIFEST, f"cannot be read (truncated or corrupt: "
                                                          f"{_first_line(exc)})", fixable=False)])
    why = manifest_error(manifest)
    if why:
        return RunCheck(run_dir, None, [Problem(MANIFEST, f"is not a run manifest ({why})", fixable=False)])
    spec = manifest["spec"]
    check = RunCheck(run_dir, manifest)
    if manifest.get("status") == "complete":
        problems, kept = check_consolidated(run_dir, manifest)
        check.problems.extend(problems)
        check.games_kept = 0 if problems else kept
        return check
    total = n_chunks(spec)
    for path in sorted((run_dir / CHUNK_DIR).glob("done-*.json")):
        marker, why = read_marker(path)
        try:
            k = int(path.stem.rsplit("-", 1)[1])
        except ValueError:
            k = -1
        rel = f"{CHUNK_DIR}/{path.name}"
        if not 0 <= k < total:
            check.problems.append(Problem(rel, f"names a chunk the run does not have (it has {total})", k))
            continue
        if marker is None:
            check.problems.append(Problem(rel, why or "unreadable", k))
            continue
        problems, kept = check_chunk(run_dir, spec, k, marker)
        if problems:
            check.problems.extend(problems)
        else:
            check.good_chunks[k] = marker
            check.games_kept += kept
    return check


def require_intact(run_dir: str | Path) -> RunCheck:
    """Check a run and raise :class:`DamagedRunError` (one line: the file, the reason, the fix) if damaged."""
    check = check_run(run_dir)
    if not check.ok:
        raise DamagedRunError(check.one_line())
    return check
