"""A run whose ``run.json`` is gone: what its done-markers and tables still say, and a new ``run.json`` from them.

The manifest holds a run's settings; the tables hold its games. Without the manifest, the markers and tables
still give the seed, the seats' strategies, the number of games (when every chunk finished), the chunk size and
whether seats were rotated, but not the variant and the rules, which no table stores. ``simcli run --resume``
rebuilds the manifest from what the files say and what the command line gives (the variant and ``--rule``),
once the two agree: every setting the files show must be the one given, and the first stored game, played again
with the given settings, must come out exactly as it is stored (games are deterministic, so a wrong variant or
rule shows in it). A finished run is then complete again without playing a game; an unfinished one resumes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simcli import __version__
from simcli.runs.errors import RunError
from simcli.runs.integrity import CHUNK_DIR, MANIFEST, TABLES, check_consolidated, file_digest
from simcli.runs.recovery import _stored_games, describe, markers, recovered_settings  # noqa: F401 - as always named
from simcli.runs.spec import RunSpec

#: Where a rebuilt manifest says it came from.
REBUILT_FROM = "done-markers and tables; variant and rules from the command line, checked by replaying a game"


def _mismatches(spec: RunSpec, found: dict[str, Any]) -> list[str]:
    given = spec.comparable()
    return [f"{key} (the files say {found[key]!r}, given {given[key]!r})" for key in
            ("seed", "games", "strategies", "rotate_seats", "chunk_size") if key in found and found[key] != given[key]]


def _replay_first(run_dir: Path, spec: RunSpec, rows: Any) -> str | None:
    """Play the first stored game again with ``spec``; why it differs from the stored row, or ``None``."""
    from simcli.runs.chunks import play_games

    stored = rows[rows["deals"].notna()].sort_values(["game_index", "rotation"]) if "deals" in rows else rows[:0]
    if stored.empty:
        return None  # every game failed: nothing to compare (the errors table is kept as it is)
    want = stored.iloc[0]
    index, rotation = int(want["game_index"]), int(want["rotation"])
    again = [r for r in play_games(spec, 0, index, index + 1).games if r["rotation"] == rotation]
    if not again:
        return f"game {index} fails when played again with the given settings"
    differ = [f"{k} {want[k]} vs {v}" for k, v in again[0].items() if k in want and str(want[k]) != str(v)]
    return f"game {index} played again differs ({', '.join(differ[:3])})" if differ else None


def rebuild_manifest(run_dir: Path, spec: RunSpec, fmt: str, *, command: list[str],
                     rules_diff: dict[str, Any] | None = None) -> None:
    """Write ``run_dir``'s lost ``run.json`` for ``spec`` (the settings the command line gives, in format ``fmt``)
    once the files agree with it (see the module doc): status ``complete`` with the finished tables' checksums when
    they hold every game the markers count, else ``interrupted`` (a resume then checks and finishes the chunks).
    Raises :class:`RunError` (one line) when the files and ``spec`` disagree."""
    found = recovered_settings(run_dir)
    if found is None:
        raise RunError(f"nothing to resume: {run_dir} has no {MANIFEST} and no finished chunk")
    settings, stored_fmt = found
    wrong = _mismatches(spec, settings)
    if stored_fmt is not None and stored_fmt != fmt:
        wrong.append(f"format (the files say {stored_fmt!r}, given {fmt!r})")
    rows, _ = _stored_games(run_dir)
    why = None if wrong else _replay_first(run_dir, spec, rows)
    if wrong or why:
        reason = "; ".join(wrong) if wrong else str(why)
        raise RunError(f"cannot rebuild {run_dir / MANIFEST}: {reason}; give the settings the run was played with "
                       "(its variant and --rule options)")
    now = datetime.now(UTC).isoformat(timespec="seconds")
    from simcli.runs.storage import git_commit, write_manifest

    # The fields execute_run writes for a new run, and a note of where they came from.
    manifest: dict[str, Any] = {
        "simcli_version": __version__, "git_commit": git_commit(), "command": command, "variant": spec.variant,
        "rules": spec.rules, "rules_diff": rules_diff or {}, "strategies": list(spec.strategies), "seed": spec.seed,
        "games": spec.games, "rotate_seats": spec.rotate_seats, "format": fmt, "spec": spec.comparable(),
        "created": now, "status": "interrupted", "rebuilt": {"at": now, "from": REBUILT_FROM},
    }
    done = markers(run_dir)
    if stored_fmt is not None:
        games, hands = sum(int(m["games"]) for m in done.values()), sum(int(m["hands"]) for m in done.values())
        errors = sum(int(m["errors"]) for m in done.values())
        complete = {**manifest, "status": "complete", "games_played": games, "hands": hands, "errors": errors,
                    "chunks": len(done), "tables": {"games": {"rows": games, "hands": hands},
                                                    "errors": {"rows": errors}}}
        problems, _ = check_consolidated(run_dir, complete)
        if problems:
            raise RunError(f"cannot rebuild {run_dir / MANIFEST}: {problems[0]}; the games are not those the "
                           f"done-markers count: play the run again into a new --out")
        # Checked: record the finished tables as execute_run does (a table without rows has no file).
        complete["tables"] = {name: {"file": path.name, "rows": _rows(path, fmt), "bytes": path.stat().st_size,
                                     "sha256": file_digest(path)}
                              for name in TABLES if (path := run_dir / f"{name}.{fmt}").exists()}
        manifest = complete
    write_manifest(run_dir, manifest)


def _rows(path: Path, fmt: str) -> int:
    """Rows of a finished table."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).metadata.num_rows if fmt == "parquet" else pacsv.read_csv(path).num_rows)


def missing_markers(run_dir: Path, manifest: dict[str, Any]) -> list[str]:
    """The done-markers a complete run lacks or cannot read (``chunks/done-00001.json``). Its tables are checked
    against ``run.json``, so it does not need them; they are what a lost ``run.json`` is rebuilt from."""
    found = markers(run_dir)
    return [f"{CHUNK_DIR}/done-{k:05d}.json" for k in range(int(manifest.get("chunks") or 0)) if k not in found]


def is_lost_manifest(run_dir: Path) -> bool:
    """Whether ``run_dir`` is a run that lost its ``run.json``: no manifest, but done-markers of its chunks."""
    return not (run_dir / MANIFEST).exists() and bool(markers(run_dir))
