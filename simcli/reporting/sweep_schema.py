"""The schemas of a sweep's table (``sweep.json`` or ``--save PREFIX.json``, docs/analysis.md), as ``compare`` and
``plan`` read it back (issue 50): :data:`SWEEPS` by the file's ``schema``. A table that does not fit is refused in
one line naming the file and the key (:func:`sweep_problem`); the runs it names are then opened and checked as runs.
"""

from __future__ import annotations

from typing import Any

from simcli.primitives.schema import ANY, BOOL, INT, NUMBER, POS, STR, TEXT, ListOf, MapOf, OneOf, Record, Spec, problem

VALUES = ListOf(STR, 1)
ROWS = ListOf(Record("a row of the table", {"metric": TEXT}))
#: What ``compare`` and ``plan`` read (required), and the rest of the table (older sweeps lack some of it).
NEEDED: dict[str, Spec] = {"knob": TEXT, "values": VALUES}
REST: dict[str, Spec] = {
    "variant": TEXT, "baseline": STR, "difference": STR, "fixed": ListOf(STR), "games": POS, "seed": INT,
    "rotate_seats": BOOL, "command": STR, "confidence": NUMBER, "rows": ROWS}
#: A sweep's table, by its ``schema``.
SWEEPS: dict[str, Record] = {
    "simcli.sweep/1": Record("a sweep's table (a JSON object)", {
        "schema": OneOf(("simcli.sweep/1",)), **NEEDED, "runs": MapOf(STR)},
        optional={**REST, "strategies": ListOf(STR)}),
    "simcli.sweep-levels/1": Record("a levels sweep's table (a JSON object)", {
        "schema": OneOf(("simcli.sweep-levels/1",)), **NEEDED, "levels": ListOf(TEXT, 1), "runs": MapOf(MapOf(STR))},
        optional={**REST, "base_level": STR, "level_strategies": ANY, "metrics": ListOf(STR)}),
}


def sweep_problem(doc: Any) -> str | None:
    """What is wrong with a parsed sweep table, or None: its ``schema`` first, then the fields of that schema."""
    kind = doc.get("schema") if isinstance(doc, dict) else None
    if not isinstance(kind, str) or kind not in SWEEPS:
        return f"key 'schema': found {kind!r}, allowed one of {', '.join(SWEEPS)}"
    return problem(doc, SWEEPS[kind])
