"""The schemas of a run's own files (docs/results-format.md): ``run.json`` and the chunks' done-markers (issue 50).

:data:`RUN_JSON` is every field ``run.json`` documents, with what it must hold (those a run has from its first
write are required, those written later or by newer simcli are optional); :data:`SPEC` is its ``spec``, the settings
a resume takes from it; :data:`MARKER` a done-marker. :func:`manifest_problem` and :func:`marker_problem` give the
first mismatch as one line (``key 'spec.games': found "ten" (a string), allowed a positive integer``), which
``simcli verify``, ``report``, ``compare``, ``plot`` and ``run --resume`` print instead of failing on it later.
``tests/test_file_schemas.py`` checks these fields against the doc's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from simcli.primitives.schema import (
    ANY,
    BOOL,
    NAT,
    NUMBER,
    POS,
    STR,
    TEXT,
    ListOf,
    MapOf,
    OneOf,
    Record,
    opt,
    problem,
)
from simcli.runs.run_files import first_line

RULES = MapOf(STR)
STRATEGIES = ListOf(TEXT, 1)
FILE_RECORD = Record("a table's record", {}, optional={"file": TEXT, "rows": NAT, "bytes": NAT, "sha256": STR,
                                                      "hands": NAT})
BUILD = Record("a build record", {}, optional={"engine": STR, "strategies": MapOf(STR)})

#: The run settings in ``run.json``'s ``spec`` (what a resume must match): settings are never guessed from a
#: damaged manifest (a truthy ``rotate_seats: "yes"`` would double the run).
SPEC = Record("a 'spec' table of run settings", {
    "variant": TEXT, "games": POS, "seed": NAT, "strategies": STRATEGIES, "rotate_seats": BOOL,
    "trace_games": NAT, "on_error": OneOf(("stop", "skip")), "chunk_size": POS, "rules": RULES})

STATUSES = ("running", "complete", "interrupted", "failed", "incomplete")

#: ``run.json``: every field docs/results-format.md lists.
RUN_JSON = Record("a run manifest (a JSON object)", {"spec": SPEC}, optional={
    "simcli_version": STR, "git_commit": opt(STR), "command": ListOf(STR), "variant": TEXT, "rules": RULES,
    "rules_diff": RULES, "strategies": STRATEGIES, "seed": NAT, "games": POS, "rotate_seats": BOOL,
    "format": OneOf(("parquet", "csv")), "created": STR, "finished": opt(STR), "status": OneOf(STATUSES),
    "error": ANY, "jobs": opt(POS), "backend": opt(STR), "wall_seconds": opt(NUMBER), "hands": opt(NAT),
    "hands_per_s": opt(NUMBER), "games_played": opt(NAT), "errors": opt(NAT), "chunks": opt(NAT),
    "tables": MapOf(FILE_RECORD), "repairs": ListOf(Record("a repair", {"at": STR, "what": STR})), "build": BUILD,
    "rebuilt": Record("a rebuilt record", {}, optional={"at": STR, "from": STR})})

#: A chunk's done-marker, ``chunks/done-KKKKK.json``.
MARKER = Record("a done-marker (a JSON object)", {"chunk": NAT, "games": NAT, "hands": NAT, "errors": NAT},
                optional={"seconds": opt(NUMBER), "files": MapOf(FILE_RECORD)})


def manifest_problem(manifest: Any) -> str | None:
    """Why a parsed ``run.json`` is not a run manifest whose settings and records can be used, or None."""
    return problem(manifest, RUN_JSON)


def marker_problem(marker: Any) -> str | None:
    """Why a parsed done-marker cannot be trusted, or None."""
    return problem(marker, MARKER)


def read_marker(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A done-marker's content, or why it cannot be trusted."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        index = int(path.stem.rsplit("-", 1)[1])
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"cannot be read (truncated or corrupt: {first_line(exc)})"
    why = marker_problem(info)
    if why:
        return None, f"is not a done-marker ({why})"
    if info["chunk"] != index:
        return None, "names another chunk"
    return info, None
