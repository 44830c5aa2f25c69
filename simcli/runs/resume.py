"""Starting or resuming a run directory: what is refused, and what a resume repairs.

A new run starts only in a new or empty folder (a user's files are never touched); a resume only with the run's
own settings. A resume checks what the earlier run left and forgets whatever is damaged: games are deterministic,
so a forgotten chunk is played again with the very same results.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from simcli.runs.errors import RunError
from simcli.runs.integrity import (
    CHUNK_DIR,
    LOCK,
    MANIFEST,
    TABLES,
    Problem,
    check_consolidated,
    check_run,
    chunk_games,
    lost_settings_hint,
    manifest_error,
)
from simcli.runs.recovery import recovered_settings
from simcli.runs.spec import RunSpec
from simcli.runs.storage import read_manifest


def check_new_out(run_dir: Path, *, set_up: bool = False) -> None:
    """Refuse to start a new run in a folder that holds a run or anything else (a user's files are never touched).

    ``set_up``: the folder has this run's own empty ``chunks/`` and lock already.
    """
    if (run_dir / MANIFEST).exists():
        raise RunError(f"{run_dir} already holds a run; use --resume to finish it or choose another --out")
    ours = {LOCK, CHUNK_DIR} if set_up else set()
    if run_dir.is_dir() and any(p.name not in ours or (p.is_dir() and any(p.iterdir())) for p in run_dir.iterdir()):
        raise RunError(f"--out {run_dir} is not empty and holds no simcli run (no {MANIFEST}); choose a new or "
                       f"empty folder (nothing was written)")


def stored_settings(out: Path, fmt: str) -> tuple[dict[str, Any], str]:
    """The run settings (``spec``) and table format a ``--resume`` of ``out`` takes from its run.json; for a run
    whose run.json is gone, those its done-markers and tables show (no variant, no rules: the command line's go,
    and the resume rebuilds run.json once a replayed game agrees, :mod:`simcli.runs.rebuild`).

    A run.json that is not there or not JSON, or that is JSON but not a run manifest, is a one-line
    :class:`RunError`.
    """
    if not (out / MANIFEST).exists() and (found := recovered_settings(out)) is not None:
        return found[0], found[1] or fmt
    try:
        manifest = read_manifest(out)
    except (OSError, ValueError):
        raise RunError(f"nothing to resume: {out} has no readable run.json") from None
    why = manifest_error(manifest)
    if why:
        raise RunError(
            f"cannot resume: {out / MANIFEST} is not a run manifest ({why}); {lost_settings_hint(out)}")
    return manifest["spec"], manifest.get("format", "parquet")


def resumed_settings(out: Path, params: Mapping[str, Any], given: Collection[str]) -> dict[str, Any]:
    """``simcli run``'s parameters for a ``--resume`` of ``out``: each of ``variant``, ``games``, ``seed``,
    ``strategies``, ``rotate_seats``, ``trace_games``, ``on_error``, ``chunk_size`` and ``fmt`` that is not
    ``given`` on the command line taken from the run (:func:`stored_settings`; ``rotate_seats`` is on if either
    says so), and ``stored_rules``, the run's rules (None when its run.json is lost: the command line's rules go).

    A run that lost its run.json before every chunk finished does not know its number of games: a
    :class:`RunError` unless ``games`` is given.
    """
    stored, stored_format = stored_settings(out, params["fmt"])
    merged = dict(params)
    if "variant" not in given:
        merged["variant"] = stored.get("variant", params["variant"])
    if "games" not in given and "games" not in stored:
        raise RunError(f"{out} has lost its run.json and not every chunk finished, so its number of games is "
                       "unknown: give --games N (and the variant and --rule options it was played with) to rebuild "
                       "run.json and finish it")
    for name in ("games", "seed"):
        if name not in given:
            merged[name] = stored[name]
    if "strategies" not in given:
        merged["strategies"] = ",".join(stored["strategies"])
    merged["rotate_seats"] = params["rotate_seats"] or stored["rotate_seats"]
    for name in ("trace_games", "on_error", "chunk_size"):
        if name not in given:
            merged[name] = stored[name]
    if "fmt" not in given:
        merged["fmt"] = stored_format
    merged["stored_rules"] = stored.get("rules")
    return merged


def check_resume(run_dir: Path, spec: RunSpec, fmt: str) -> dict[str, Any]:
    """The manifest of the run to resume in ``run_dir``, once its settings are checked to be ``spec``'s and ``fmt``.

    Raises :class:`RunError` when ``run.json`` cannot be read, or naming every setting that differs.
    """
    try:
        old = read_manifest(run_dir)
    except (OSError, ValueError, RecursionError):
        raise RunError(f"cannot resume: {run_dir / MANIFEST} cannot be read (truncated or corrupt); "
                       f"{lost_settings_hint(run_dir)}") from None
    if why := manifest_error(old):
        raise RunError(f"cannot resume: {run_dir / MANIFEST} is not a run manifest ({why}); "
                       f"{lost_settings_hint(run_dir)}")
    old_spec = old["spec"]
    mine = spec.comparable()
    differences = [_difference(k, old_spec.get(k), mine[k]) for k in mine if old_spec.get(k) != mine[k]]
    if differences:
        from simcli.runs.unplayed import unplayed_status

        way_on = ("; it finished no game, so nothing is lost: run the new settings without --resume, in the same "
                  "--out, to replace it") if unplayed_status(run_dir) else ""
        raise RunError("cannot resume with different settings: " + "; ".join(differences) + way_on)
    if fmt != old.get("format", "parquet"):
        raise RunError(f"cannot resume with different settings: format (run has {old.get('format')!r}, "
                       f"now {fmt!r})")
    return old


def _difference(key: str, was: Any, now: Any) -> str:
    """One setting a resume disagrees on; for the rules, only the knobs that differ."""
    if isinstance(was, dict) and isinstance(now, dict):
        knobs = [f"{k} (run has {was.get(k)!r}, now {now.get(k)!r})" for k in sorted(set(was) | set(now))
                 if was.get(k) != now.get(k)]
        return f"{key}: " + ", ".join(knobs)
    return f"{key} (run has {was!r}, now {now!r})"


def repair_damaged(run_dir: Path, spec: RunSpec, manifest: dict[str, Any], say: Callable[[str], None]) -> list[str]:
    """Check a run being resumed and forget whatever is damaged, so that it is played again; say what.

    Complete runs have only the consolidated tables left, so one damaged table means replaying every game.
    """
    per_game = 2 if spec.rotate_seats else 1
    notes: list[str] = []
    if manifest.get("status") == "complete":
        problems, _ = check_consolidated(run_dir, manifest)
        if not problems:
            return notes
        notes.append(f"replayed all {spec.games * per_game} games: {problems[0]}")
        say(f"replaying all {spec.games * per_game} games: {problems[0]}")
        for name in TABLES:
            (run_dir / f"{name}.{manifest.get('format', 'parquet')}").unlink(missing_ok=True)
        for p in (run_dir / CHUNK_DIR).glob("done-*.json"):
            p.unlink()
        for name in TABLES:
            for p in (run_dir / CHUNK_DIR).glob(f"{name}-*.parquet"):
                p.unlink()
        for key in ("tables", "finished", "games_played", "hands", "errors", "chunks", "hands_per_s"):
            manifest.pop(key, None)
        return notes
    first: dict[int, Problem] = {}
    for problem in check_run(run_dir).problems:
        if problem.chunk is not None:
            first.setdefault(problem.chunk, problem)
    for k, problem in sorted(first.items()):
        _drop_chunk(run_dir, k)
        if not 0 <= k < -(-spec.games // spec.chunk_size):
            continue  # a stray marker: nothing to play
        n = len(chunk_games(spec.comparable(), k)) * per_game
        notes.append(f"replayed {n} games of chunk {k}: {problem}")
        say(f"replaying {n} games of chunk {k}: {problem}")
    return notes


def _drop_chunk(run_dir: Path, k: int) -> None:
    """Forget chunk ``k``: its done-marker first (so a crash in between leaves it unfinished), then its tables."""
    folder = run_dir / CHUNK_DIR
    (folder / f"done-{k:05d}.json").unlink(missing_ok=True)
    for name in TABLES:
        (folder / f"{name}-{k:05d}.parquet").unlink(missing_ok=True)
