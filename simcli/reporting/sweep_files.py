"""Stored sweeps: the table a sweep saved (``sweep.json`` or a ``--save PREFIX.json``) and the runs of its levels,
read again by ``compare`` (a rule's effect between levels) and ``plan`` (a levels sweep as a pilot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.reporting.errors import ReportError
from simcli.reporting.runs import open_run
from simcli.reporting.sweep_schema import sweep_problem

if TYPE_CHECKING:
    from simcli.reporting.levels import Level
    from simcli.runs.results import Run

SWEEP_SCHEMAS = ("simcli.sweep/1", "simcli.sweep-levels/1")


def sweep_file(path: Path) -> Path | None:
    """The sweep table (``sweep.json`` or a ``--save PREFIX.json``) that ``path`` names, or None for a run."""
    from simcli.runs.integrity import MANIFEST

    if path.is_file() and path.suffix == ".json":
        return path
    if path.is_dir() and not (path / MANIFEST).exists() and (path / "sweep.json").is_file():
        return path / "sweep.json"
    return None


def open_sweep(path: Path, doc_path: Path) -> tuple[dict[str, Any], list[Level]]:
    """A stored sweep's JSON and its levels ``(label, [(value, run), ...])``: a plain sweep is one level (named
    by its strategies), a levels sweep has one per level. Each run is looked up where the sweep writes it beside
    its table (``DIR/KNOB=VALUE``, ``DIR/LEVEL/KNOB=VALUE``: the stored path's last one or two folders), else at
    the path the table stores."""
    try:
        doc = json.loads(doc_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportError(f"cannot read sweep {path}: {str(exc).splitlines()[0]}") from None
    if not isinstance(doc, dict) or doc.get("schema") not in SWEEP_SCHEMAS:
        raise ReportError(f"{path} is neither a run nor a sweep's table (schema {', '.join(SWEEP_SCHEMAS)})")
    if why := sweep_problem(doc):
        raise ReportError(f"sweep {doc_path}: {why} (docs/analysis.md)")

    def run_at(stored: str, depth: int) -> Run:
        beside = doc_path.parent.joinpath(*Path(stored).parts[-depth:])
        return open_run(beside if beside.is_dir() else Path(stored))

    try:
        if doc["schema"] == "simcli.sweep/1":
            names = list(dict.fromkeys(doc.get("strategies") or []))
            label = ",".join(names) if len(names) != 1 else names[0]
            return doc, [(label, [(v, run_at(doc["runs"][v], 1)) for v in doc["values"]])]
        return doc, [(lv, [(v, run_at(doc["runs"][lv][v], 2)) for v in doc["values"]]) for lv in doc["levels"]]
    except (KeyError, TypeError) as exc:
        raise ReportError(f"sweep {path}: its table lacks {exc} (not written by simcli sweep?)") from None


def gather_levels(paths: list[Path], docs: list[Path], levels: str | None) -> tuple[dict[str, Any], list[Level]]:
    """The first sweep's JSON and the levels of the stored sweeps ``paths`` (their tables ``docs``), in order, or
    those ``levels`` (``L1,L2,...``, split as ``--strategies``) picks; refuses other knobs or fewer than 2 levels."""
    from simcli.players.specs import StrategyLookupError, split_strategy_list

    opened = [open_sweep(p, d) for p, d in zip(paths, docs, strict=True)]
    knobs = {doc["knob"] for doc, _ in opened}
    if len(knobs) > 1:
        raise ReportError(f"the sweeps sweep different knobs ({', '.join(sorted(knobs))}): an interaction compares "
                          f"one knob's effects")
    found: dict[str, list[tuple[str, Run]]] = {}
    for (_, lvls), p in zip(opened, paths, strict=True):
        for label, runs in lvls:
            found[label if label not in found else f"{label} ({p})"] = runs
    if levels is not None:
        try:
            wanted = split_strategy_list(levels)
        except StrategyLookupError as exc:
            raise ReportError(f"bad --levels '{levels}': {exc}") from None
        missing = [w for w in wanted if w not in found]
        if missing or len(wanted) < 2:
            raise ReportError(f"--levels '{levels}': " + (f"no level '{missing[0]}' in the sweeps" if missing
                                                          else "give at least two levels") +
                              f"; the sweeps have {', '.join(found)}")
        found = {w: found[w] for w in wanted}
    if len(found) < 2:
        raise ReportError(f"{paths[0]} has one level ({', '.join(found)}): give a second sweep, or a sweep played "
                          f"with --levels")
    return opened[0][0], list(found.items())


def sweep_metrics(doc: dict[str, Any]) -> list[str]:
    """The metrics a stored sweep tabulated (its ``metrics``, else the metrics of its rows, in order)."""
    return list(doc.get("metrics") or dict.fromkeys(r["metric"] for r in doc.get("rows", [])))
