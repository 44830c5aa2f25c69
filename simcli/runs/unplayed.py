"""A run that failed before finishing any game: nothing in it is worth keeping, so its folder may take a new run.

A run whose first games fail (a strategy that cannot play these rules, a typo in an option that only the game
reads) keeps nothing: ``--resume`` would only fail again with the same settings, and ``--on-error skip`` would skip
every game. So a new run given the same ``--out`` replaces it (:func:`clear_unplayed`, with a line saying so), and
the failure's message says so (:func:`failed_way_on`), suggesting ``--on-error skip`` only where some games
succeeded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from simcli.runs.integrity import CHUNK_DIR, LOCK, MANIFEST
from simcli.runs.storage import read_manifest

#: What a run writes in its folder before its first chunk finishes (a failed game's ``errors`` table is written
#: only with its chunk).
_OWN = {MANIFEST, CHUNK_DIR, LOCK, "traces"}

#: The states of a run that is over and did not complete.
_OVER = ("failed", "interrupted", "incomplete")


def unplayed_status(run_dir: Path) -> str | None:
    """The status of the run in ``run_dir`` (``failed``, ...) when it is over, finished no chunk and the folder
    holds nothing but what the run wrote; else None."""
    try:
        manifest = read_manifest(run_dir)
    except (OSError, ValueError):
        return None
    status = manifest.get("status") if isinstance(manifest, dict) else None
    if status not in _OVER:
        return None
    if any(p.name not in _OWN for p in run_dir.iterdir()):
        return None
    chunks = run_dir / CHUNK_DIR
    if chunks.is_dir() and any(p.name.startswith("done-") for p in chunks.iterdir()):
        return None
    return str(status)


def clear_unplayed(run_dir: Path) -> str | None:
    """Empty ``run_dir`` when it holds only a run that finished no game (:func:`unplayed_status`), so that a new
    run may start there; the line that says so, or None (nothing done)."""
    if not (run_dir / MANIFEST).is_file():
        return None
    status = unplayed_status(run_dir)
    if status is None:
        return None
    for p in run_dir.iterdir():
        if p.is_dir():
            shutil.rmtree(p)
        elif p.name != LOCK:
            p.unlink()
    return f"{run_dir} held a run that {status} before finishing any game: it is replaced by this one"


def failed_way_on(run_dir: Path, *, some_played: bool) -> str:
    """The way on after a failed game: with games played, keep them (``--on-error skip``); with none, run again
    with other settings in the same folder."""
    if some_played:
        return f"Finished chunks are kept in {run_dir}; rerun with --on-error skip to record and go on"
    return (f"No game finished, so nothing is kept: fix the strategy or rules and run again with the same --out "
            f"{run_dir} (the failed run is replaced)")
