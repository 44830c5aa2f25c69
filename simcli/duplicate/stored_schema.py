"""The schemas of duplicate play's stored files (docs/analysis.md): ``match.json`` and its batches,
``tournament.json``, ``ladder.json`` and their ``matches/match-I-J.json`` (issue 50).

Each is a :class:`~simcli.primitives.schema.Record` of the fields the doc's table lists; :func:`manifest_problem`
checks a manifest read for a ``--resume`` (its schema name, its fields, and that its rules are rules this simcli
can load), so a damaged one is refused in one line naming the file and the key instead of failing later.
``tests/test_file_schemas.py`` checks these fields against the doc.
"""

from __future__ import annotations

from typing import Any

from simcli.primitives.schema import (
    ANY,
    INT,
    NAT,
    NUMBER,
    POS,
    STR,
    TEXT,
    ListOf,
    MapOf,
    OneOf,
    Record,
    Spec,
    opt,
    problem,
)
from simcli.rules.knob_values import RuleError
from simcli.rules.presets import load_rules

RULES = MapOf(STR)
HALF_POINTS = STR
BUILD = Record("a build record", {}, optional={"engine": STR, "strategies": MapOf(STR)})
#: What every manifest records beside its ``spec``.
PROVENANCE: dict[str, Spec] = {"simcli_version": STR, "git_commit": opt(STR), "build": BUILD,
                               "command": ListOf(STR), "created": STR}

SPRT = Record("SPRT settings", {"elo0": NUMBER, "elo1": NUMBER, "alpha": NUMBER, "beta": NUMBER, "model": TEXT})
MATCH_JSON = Record("a match manifest (a JSON object)", {
    "schema": OneOf(("simcli.match-run/1",)),
    "spec": Record("a match's settings", {"variant": TEXT, "rules": RULES, "a": TEXT, "b": TEXT, "seed": INT,
                                          "pairs": POS, "batch": POS, "sprt": opt(SPRT)})}, optional=PROVENANCE)
BATCH = Record("a batch (a JSON object)", {"schema": OneOf(("simcli.match-batch/1",)), "batch": NAT,
                                           "half_points": HALF_POINTS, "wins": NAT, "ties": NAT, "losses": NAT,
                                           "sha256": STR})
TOURNAMENT_JSON = Record("a tournament manifest (a JSON object)", {
    "schema": OneOf(("simcli.tournament/1",)),
    "spec": Record("a tournament's settings", {"variant": TEXT, "rules": RULES, "strategies": ListOf(TEXT, 2),
                                               "seed": INT, "pairs": POS})}, optional=PROVENANCE)
LADDER_JSON = Record("a ladder manifest (a JSON object)", {
    "schema": OneOf(("simcli.ladder/1",)),
    "spec": Record("a ladder's settings", {"variant": TEXT, "rules": RULES, "rungs": ListOf(TEXT, 2), "seed": INT,
                                           "pairs": POS, "jump_pairs": NAT, "bootstrap": NAT,
                                           "bootstrap_seed": INT})}, optional=PROVENANCE)
#: A stored match of a tournament or a ladder (its spec is compared with the series' own, key by key).
STORED_MATCH = Record("a stored match (a JSON object)", {
    "schema": OneOf(("simcli.match/1",)), "spec": MapOf(ANY), "half_points": HALF_POINTS,
    "pentanomial": ListOf(NAT), "wins": NAT, "ties": NAT, "losses": NAT, "sha256": STR})

MANIFESTS = {"match.json": MATCH_JSON, "tournament.json": TOURNAMENT_JSON, "ladder.json": LADDER_JSON}


def manifest_problem(data: Any, name: str) -> str | None:
    """What is wrong with a parsed manifest ``name`` (``match.json``, ``tournament.json``, ``ladder.json``): a
    field that does not fit its schema, or rules this simcli cannot load; else None."""
    why = problem(data, MANIFESTS[name])
    if why:
        return why
    spec = data["spec"]
    try:
        load_rules(spec["variant"], dict(spec["rules"]))
    except RuleError as exc:
        return f"key 'spec.rules': {exc}"
    return None
