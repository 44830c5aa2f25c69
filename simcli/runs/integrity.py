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

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcli.runs.run_files import (  # noqa: F401 - the run's files and findings, as this module always named them
    CHUNK_DIR,
    KEY_COLUMNS,
    LOCK,
    MANIFEST,
    REQUIRED,
    TABLES,
    Problem,
    file_digest,
    first_line,
    games_text,
)
from simcli.runs.run_schema import manifest_problem, read_marker  # noqa: F401 - read_marker: as always named


class DamagedRunError(ValueError):
    """A run directory whose files do not hold what its manifest and done-markers say (one-line message)."""


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
            return lost_settings_hint(self.run_dir)
        return f"repair it with: simcli run --resume --out {self.run_dir}"

    def one_line(self) -> str:
        """The first problem, how many more, and the fix: the message of a refused damaged run."""
        first = self.problems[0]
        more = f" (and {len(self.problems) - 1} more problem(s))" if len(self.problems) > 1 else ""
        return f"{first}{more}; {self.fix_hint()}"


def lost_settings_hint(run_dir: Path) -> str:
    """How to repair a run whose ``run.json`` cannot be used: play it again, or, when its done-markers and tables
    are there (they may be intact when run.json is not), rebuild run.json from them (:mod:`simcli.runs.rebuild`)."""
    from simcli.runs.recovery import describe, recovered_settings

    try:
        found = recovered_settings(run_dir)
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        found = None
    hint = "its settings are lost: play it again into a new --out"
    if found is None:
        return hint
    return (f"{hint}; or, as its done-markers and tables are there ({describe(found[0])}), move {MANIFEST} aside "
            f"and rebuild it with: simcli run --resume --out {run_dir} and the --variant and --rule options it was "
            "played with")


# ---------------------------------------------------------------------------------------------- helpers
def chunk_games(spec: dict[str, Any], k: int) -> range:
    """The game indices of chunk ``k``."""
    size = int(spec["chunk_size"])
    return range(k * size, min(int(spec["games"]), (k + 1) * size))


def n_chunks(spec: dict[str, Any]) -> int:
    """How many chunks the run has."""
    return -(-int(spec["games"]) // int(spec["chunk_size"]))


def expected_keys(spec: dict[str, Any], games: range) -> set[tuple[int, int]]:
    """(game_index, rotation) of every game of ``games`` (each played twice with --rotate-seats)."""
    return {(g, r) for g in games for r in rotations_of(spec)}


def rotations_of(spec: dict[str, Any]) -> tuple[int, ...]:
    """The rotations every game is played in: (0,), or (0, 1) with --rotate-seats."""
    return (0, 1) if spec.get("rotate_seats") else (0,)


# ------------------------------------------------------------------------------------------------ checks
def manifest_error(manifest: Any) -> str | None:
    """Why ``manifest`` (a parsed run.json) is not a run manifest whose settings can be used, or ``None``: the first
    field that does not fit :data:`simcli.runs.run_schema.RUN_JSON` (settings are never guessed from a damaged
    manifest: a truthy ``rotate_seats: "yes"`` would double the run)."""
    return manifest_problem(manifest)


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
    from simcli.runs.table_checks import check_tables

    paths = {name: folder / f"{name}-{k:05d}.parquet" for name in TABLES}
    return check_tables(paths, "parquet", chunk_games(spec, k), rotations_of(spec), int(spec["seed"]),
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
    from simcli.runs.table_checks import check_tables

    paths = {name: run_dir / f"{name}.{fmt}" for name in TABLES}
    return check_tables(paths, fmt, range(int(spec["games"])), rotations_of(spec), int(spec["seed"]),
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
                                                          f"{first_line(exc)})", fixable=False)])
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
