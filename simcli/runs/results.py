"""Loading run directories into pandas: ``simcli.runs.results.load(run_dir)``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from simcli.runs.integrity import CHUNK_DIR, MANIFEST, DamagedRunError, require_intact

__all__ = ["DamagedRunError", "Run", "load"]


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
    for ext, reader in (("parquet", pd.read_parquet), ("csv", pd.read_csv)):
        path = run_dir / f"{name}.{ext}"
        if path.exists():
            return reader(path)
    folder = run_dir / CHUNK_DIR
    # An interrupted run: the chunks that finished so far (a chunk without its done-marker may be partial).
    parts = [p for p in sorted(folder.glob(f"{name}-*.parquet"))
             if (folder / f"done-{p.stem.rsplit('-', 1)[1]}.json").exists()]
    if parts:
        return pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
    return pd.DataFrame()


def load(run_dir: str | Path, *, check: bool = True) -> Run:
    """Load a run directory written by ``simcli run`` (complete, or interrupted: finished chunks only).

    The run is checked first (:func:`simcli.runs.integrity.check_run`): a damaged one raises
    :class:`DamagedRunError` (a ValueError) with one line naming the file, the reason and the fix.
    ``check=False`` skips that, for looking into a damaged run.
    """
    path = Path(run_dir)
    manifest_path = path / MANIFEST
    if not manifest_path.exists():
        raise FileNotFoundError(f"{path} is not a run directory (no {MANIFEST})")
    if check:
        require_intact(path)
    manifest = json.loads(manifest_path.read_text())
    games = _read(path, "games")
    deals = _read(path, "deals")
    errors = _read(path, "errors")
    sort_games = [c for c in ("game_index", "rotation") if c in games.columns]
    if sort_games:
        games = games.sort_values(sort_games, ignore_index=True)
    sort_deals = [c for c in ("game_index", "rotation", "deal_index", "team") if c in deals.columns]
    if sort_deals:
        deals = deals.sort_values(sort_deals, ignore_index=True)
    return Run(path=path, manifest=manifest, games=games, deals=deals, errors=errors)
