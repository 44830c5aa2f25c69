"""What a run's done-markers and tables still say about its settings when its ``run.json`` is lost or cannot be
used (:mod:`simcli.runs.rebuild` rebuilds ``run.json`` from it; ``simcli verify`` and the one-line errors about a
damaged ``run.json`` name it, with how to repair the run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simcli.runs.run_files import CHUNK_DIR
from simcli.runs.run_schema import read_marker


def markers(run_dir: Path) -> dict[int, dict[str, Any]]:
    """The readable done-markers of ``run_dir`` by chunk index."""
    found: dict[int, dict[str, Any]] = {}
    for path in sorted((run_dir / CHUNK_DIR).glob("done-*.json")):
        marker, _ = read_marker(path)
        if marker is not None:
            found[int(marker["chunk"])] = marker
    return found


def _stored_games(run_dir: Path) -> tuple[Any, str | None]:
    """The games and errors rows the run kept (a pandas DataFrame, both tables together) and the format of its
    finished tables (``None`` while only chunk tables exist)."""
    import pandas as pd

    for fmt, read in (("parquet", pd.read_parquet), ("csv", pd.read_csv)):
        if (run_dir / f"games.{fmt}").exists() or (run_dir / f"errors.{fmt}").exists():
            parts = [read(run_dir / f"{name}.{fmt}") for name in ("games", "errors")
                     if (run_dir / f"{name}.{fmt}").exists()]
            return pd.concat(parts, ignore_index=True), fmt
    done = markers(run_dir)
    parts = [pd.read_parquet(p) for name in ("games", "errors")
             for p in sorted((run_dir / CHUNK_DIR).glob(f"{name}-*.parquet"))
             if int(p.stem.rsplit("-", 1)[1]) in done]
    return (pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()), None


def recovered_settings(run_dir: Path) -> tuple[dict[str, Any], str | None] | None:
    """What the files of a run without ``run.json`` say about its settings (the keys of a run's ``spec`` that
    they show: ``seed``, ``strategies``, ``rotate_seats``, ``chunk_size``, ``on_error``, ``trace_games`` and, when
    every chunk finished, ``games``), and the format of its finished tables; ``None`` when ``run_dir`` holds no
    done-marker (nothing of a run to rebuild)."""
    done = markers(run_dir)
    if not done:
        return None
    rows, fmt = _stored_games(run_dir)
    if rows.empty or "seed" not in rows:
        return None
    rotate = bool((rows["rotation"] == 1).any())
    per_game = 2 if rotate else 1
    first = rows.dropna(subset=["seed"]).sort_values(["game_index", "rotation"]).iloc[0]
    seats = sorted((c for c in rows.columns if c.startswith("strategy_seat_")), key=lambda c: int(c.rsplit("_", 1)[1]))
    names = [str(first[c]) for c in seats]
    # A rotation-1 row has every strategy one seat on (runs.spec.rotated): shift them back.
    names = names[-1:] + names[:-1] if int(first["rotation"]) == 1 else names
    played = {k: (int(m["games"]) + int(m["errors"])) // per_game for k, m in done.items()}
    out: dict[str, Any] = {
        "seed": int(first["seed"]), "strategies": names, "rotate_seats": rotate,
        "chunk_size": played[0] if len(played) > 1 and 0 in played else max(played.values()),
        "on_error": "skip" if "error" in rows and rows["error"].notna().any() else "stop",
        "trace_games": len({p.name.split("-")[1] for p in (run_dir / "traces").glob("game-*.jsonl")}),
    }
    if fmt is not None and sorted(played) == list(range(len(played))):
        out["games"] = sum(played.values())  # a finished run: every chunk has its marker
    return out, fmt


def describe(settings: dict[str, Any]) -> str:
    """What the files say, for a message: ``seed 2, 40 games, strategies greedy,greedy,greedy,greedy``."""
    games = f"{settings['games']:,} games" if "games" in settings else "an unknown number of games"
    rotated = ", seats rotated" if settings["rotate_seats"] else ""
    return f"seed {settings['seed']}, {games}, strategies {','.join(settings['strategies'])}{rotated}"
