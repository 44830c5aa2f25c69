"""A match folder (``simcli match --out DIR``): the settings and every finished batch, so that a match resumes.

``match.json`` (schema ``simcli.match-run/1``) holds the settings, written first; ``batches/batch-KKKKK.json`` one
finished batch of pairs each (A's half-points per pair and the game counts, with a SHA-256 digest of them and
the settings), written atomically when the batch is done. ``simcli match --resume --out DIR`` takes the settings
from ``match.json``, reads every batch file it can verify and plays the others (naming each file it cannot use),
so that it stops where the uninterrupted match would have. Format: docs/analysis.md.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simcli import __version__
from simcli.duplicate.match import BatchCounts
from simcli.duplicate.stored_schema import BATCH, manifest_problem
from simcli.primitives.schema import problem
from simcli.runs.provenance import builds
from simcli.runs.storage import atomic_write_bytes, git_commit

MANIFEST = "match.json"
BATCH_DIR = "batches"
SCHEMA = "simcli.match-run/1"
BATCH_SCHEMA = "simcli.match-batch/1"
RESULT = "result.json"


class MatchStoreError(RuntimeError):
    """A folder that cannot hold or resume this match: another match, other settings, not a match folder."""


@dataclass(frozen=True)
class MatchSpec:
    """Everything that determines a match's pairs and where it stops (and must agree to resume it)."""

    variant: str
    rules: dict[str, str]
    a: str
    b: str
    seed: int
    pairs: int
    batch: int
    sprt: dict[str, Any] | None

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)


def batch_path(folder: Path, k: int) -> Path:
    """Where batch ``k`` (game indices ``k*batch`` ...) is stored."""
    return folder / BATCH_DIR / f"batch-{k:05d}.json"


def _digest(spec: dict[str, Any], k: int, text: str, counts: list[int]) -> str:
    payload = json.dumps({"spec": spec, "batch": k, "half_points": text, "counts": counts}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def write_batch(folder: Path, spec: MatchSpec, k: int, counts: BatchCounts) -> None:
    """Store a finished batch atomically (a reader sees the whole file or none)."""
    text = "".join(str(h) for h in counts.half_points)
    tally = [counts.wins, counts.ties, counts.losses]
    data = {"schema": BATCH_SCHEMA, "batch": k, "half_points": text, "wins": counts.wins, "ties": counts.ties,
            "losses": counts.losses, "sha256": _digest(spec.as_dict(), k, text, tally)}
    atomic_write_bytes(batch_path(folder, k), (json.dumps(data) + "\n").encode())


def batch_problem(data: Any, spec: MatchSpec, k: int) -> str | None:
    """Why a batch file's contents are not batch ``k`` of this match (None when they are)."""
    if why := problem(data, BATCH):
        return why
    if not isinstance(data, dict) or data.get("schema") != BATCH_SCHEMA or data.get("batch") != k:
        return f"not batch {k} of schema {BATCH_SCHEMA}"
    text = data.get("half_points")
    size = min(spec.batch, spec.pairs - k * spec.batch)
    if not isinstance(text, str) or len(text) != size or set(text) - set("01234"):
        return f"half_points must be {size} digits 0-4"
    try:
        tally = [int(data["wins"]), int(data["ties"]), int(data["losses"])]
    except (KeyError, TypeError, ValueError):
        return "wins, ties and losses missing"
    if sum(tally) != 2 * size or 2 * tally[0] + tally[1] != sum(int(c) for c in text):
        return "wins, ties and losses do not add up to its pairs"
    if data.get("sha256") != _digest(spec.as_dict(), k, text, tally):
        return "SHA-256 digest does not match its contents and the match's settings"
    return None


def read_batches(folder: Path, spec: MatchSpec) -> tuple[dict[int, BatchCounts], list[str]]:
    """The verified batches of the folder by index, and one line for each batch file that cannot be used (it is
    played again)."""
    good: dict[int, BatchCounts] = {}
    bad: list[str] = []
    n_batches = -(-spec.pairs // spec.batch)
    for path in sorted((folder / BATCH_DIR).glob("batch-*.json")):
        try:
            k = int(path.stem.split("-", 1)[1])
        except ValueError:
            continue
        if k >= n_batches:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            bad.append(f"replaying batch {k}: {path}: unreadable ({exc})")
            continue
        why = batch_problem(data, spec, k)
        if why is not None:
            bad.append(f"replaying batch {k}: {path}: {why}")
            continue
        good[k] = BatchCounts(tuple(int(c) for c in data["half_points"]), int(data["wins"]), int(data["ties"]),
                              int(data["losses"]))
    return good, bad


def stored_spec(folder: Path) -> dict[str, Any]:
    """The settings recorded in a match folder (for a ``--resume`` that does not repeat them)."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        raise MatchStoreError(f"nothing to resume: {folder} has no readable {MANIFEST}") from None
    why = manifest_problem(data, MANIFEST)
    if why:
        raise MatchStoreError(f"nothing to resume: {folder / MANIFEST} is not a match manifest ({why})")
    return dict(data["spec"])


def open_folder(folder: Path, spec: MatchSpec, resume: bool, command: list[str]) -> None:
    """Create the match folder and its manifest, or (``resume``) check that it holds this very match."""
    if resume:
        stored = stored_spec(folder)
        mine = spec.as_dict()
        diffs = [f"{k} (folder has {stored.get(k)!r}, now {mine[k]!r})" for k in mine if stored.get(k) != mine[k]]
        if diffs:
            raise MatchStoreError("cannot resume with different settings: " + "; ".join(diffs))
        return
    if (folder / MANIFEST).exists():
        raise MatchStoreError(f"{folder} already holds a match; add --resume to finish it, or choose another --out")
    if folder.exists() and any(folder.iterdir()):
        raise MatchStoreError(f"{folder} is not empty and holds no match: choose an empty or new --out")
    try:
        (folder / BATCH_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MatchStoreError(f"cannot create output folder {folder}: {exc.strerror}") from None
    data = {"schema": SCHEMA, "spec": spec.as_dict(), "simcli_version": __version__, "git_commit": git_commit(),
            "build": builds([spec.a, spec.b]), "command": command or sys.argv,
            "created": datetime.now(UTC).isoformat(timespec="seconds")}
    atomic_write_bytes(folder / MANIFEST, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


def write_result(folder: Path, result: dict[str, Any]) -> None:
    """The finished match's summary (the ``--format json`` object) as ``result.json``."""
    atomic_write_bytes(folder / RESULT, (json.dumps(result, indent=2) + "\n").encode())
