"""The schema of a training data folder (``simcli train data``): its ``data.json`` and done-markers (issue 50).

:data:`DATA_JSON` and :data:`MARKER` are the fields :mod:`simcli.training.data` writes; :func:`folder_problems`
reads both kinds of file and names, one line each, a file that is not JSON or whose fields do not fit, before
``train fit``, ``train eval`` or a resumed ``train data`` uses them (the chunks are then checked against their
markers' SHA-256 as before).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from simcli.primitives.schema import ANY, INT, NAT, NUMBER, POS, STR, TEXT, ListOf, MapOf, Record, problem

SETTINGS = "data.json"
DATA_SPEC = Record("the data's settings", {
    "variant": TEXT, "rules": ListOf(ListOf(STR, 2)), "strategies": ListOf(TEXT, 1), "seed": INT, "games": POS,
    "chunk": POS}, optional={"catalogue": STR})
#: ``data.json``.
DATA_JSON = Record("a data folder's settings (a JSON object)", {
    "spec": DATA_SPEC, "variant": TEXT, "rules": MapOf(STR), "rules_digest": STR, "feature_version": INT,
    "command": ListOf(STR)}, optional={"simcli_version": STR, "catalogue": MapOf(ANY)})
#: ``done-KKKKK.json``, written after its chunk's Parquet file.
MARKER = Record("a done-marker (a JSON object)", {"rows": NAT, "games": NAT, "cpu_seconds": NUMBER, "sha256": STR})


def _read(path: Path) -> tuple[Any, str | None]:
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"{path.name}: cannot be read (truncated or corrupt: {str(exc).splitlines()[0]})"


def folder_problems(folder: Path) -> list[str]:
    """What is wrong with a data folder's ``data.json`` and done-markers, one line each (empty: nothing)."""
    out: list[str] = []
    paths = [folder / SETTINGS] if (folder / SETTINGS).exists() else []
    for path in [*paths, *sorted(folder.glob("done-*.json"))]:
        data, why = _read(path)
        if why is None:
            spec = DATA_JSON if path.name == SETTINGS else MARKER
            bad = problem(data, spec)
            why = f"{path.name}: {bad}" if bad else None
        if why is None and path.name != SETTINGS and not path.stem.split("-")[1].isdigit():
            why = f"{path.name}: not a done-KKKKK.json name"
        if why:
            out.append(why)
    return out
