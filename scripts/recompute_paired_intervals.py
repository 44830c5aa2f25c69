"""Recompute the paired-rate intervals of a saved sweep without playing its games again (issue 34, item 4).

A sweep's 0/1 game rates (``first_player_win``, ``exact_cut_decided_net``, ...) are compared with McNemar's exact
test; their interval was Newcombe's square-and-add interval and is now the exact conditional interval matched to
that test (:func:`simcli.stats.mcnemar_exact_interval`), which needs only ``b`` and ``c``, the pairs won by one
side alone, and ``n``. A saved sweep (``PREFIX.json``) does not store ``b`` and ``c``, but it stores what they are
read from: the row's ``n`` pairs, its difference ``(b - c) / n``, McNemar's ``p`` (which fixes ``b + c`` for a
given ``b - c``) and Newcombe's interval (which also depends on the pairs both sides won: for rows whose p does not
tell ``b + c`` apart, ``p = 1``). Each ``mcnemar-exact`` row's ``(b, c)`` is the one table that gives exactly
the stored p and interval, with the stored rates as margins where every game is a pair; the script stops with the
row named when no table or two tables with different answers fit.

Then the study is rendered again with the project's own renderers (:func:`simcli.reporting.sweeps.sweep_study`,
:func:`simcli.reporting.levels.levels_study`, :func:`simcli.reporting.summaries.save_study`), fed with the saved
tables in place of the runs' statistics: only the recomputed interval cells differ. Before changing anything the
saved tables are rendered as they are and must give the saved CSV byte for byte and the saved JSON's rows, so a
table that the renderers would not have written stops the script.

    python scripts/recompute_paired_intervals.py results/studies/NAME [--out DIR] [--commit C ...]
        # writes DIR/NAME.md, .csv, .json, .png (default DIR: a new folder under /tmp); --commit: the engine
        # commit(s) the "Made with" line names (default: those the page PREFIX.md names)
    python scripts/recompute_paired_intervals.py results/studies/NAME --page
        # also writes PREFIX.md again: its generated part (the tables after the figure) replaced, its own words kept

Run a sweep's own command instead where playing it again is cheap: it gives the same files (a cheap study checks
this script against it, byte for byte).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pandas as pd

from simcli import stats
from simcli.reporting import levels as levels_reporting
from simcli.reporting.levels import levels_study
from simcli.reporting.summaries import Study, save_study
from simcli.reporting.sweeps import Sweep, sweep_study
from simcli.rules.knobs import knob
from simcli.stats.comparisons import DIFF_COLUMNS, SUMMARY_COLUMNS
from simcli.stats.interactions import INTERACTION_COLUMNS

TEST = "mcnemar-exact"
#: How closely a candidate table must give the stored p and interval (they were computed by the same code).
TOLERANCE = 1e-9


class RecomputeError(RuntimeError):
    """A saved sweep whose paired tables cannot be told, or that the renderers would not have written."""


# ---------------------------------------------------------------------------------------------- the 2x2 tables
def _close(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=TOLERANCE, abs_tol=1e-12)


def discordant_pairs(n: int, diff: float, p: float, low: float, high: float,
                     margins: tuple[int, int] | None = None) -> tuple[int, int]:
    """``(b, c)`` of the paired 2x2 table behind a stored ``mcnemar-exact`` row: ``n`` pairs, difference ``diff``,
    McNemar's ``p`` and Newcombe's ``[low, high]`` (``margins``: A's and B's successes over the pairs, when known).
    Every table giving exactly those numbers is tried; all must have the same ``b`` and ``c``."""
    m = round(diff * n)
    found: set[tuple[int, int]] = set()
    for d in range(abs(m), n + 1, 2):
        b, c = (d + m) // 2, (d - m) // 2
        if not _close(stats.mcnemar_exact(b, c), p):
            continue
        if margins is not None:
            both_range: Sequence[int] = [margins[0] - b] if margins[0] - b == margins[1] - c else []
        else:
            both_range = range(0, n - d + 1)
        for both in both_range:
            if both < 0 or both > n - d:
                continue
            got = stats.paired_proportion_diff(both, b, c, n - d - both)
            if _close(got[0], diff) and _close(got[1], low) and _close(got[2], high):
                found.add((b, c))
                break
    if len(found) != 1:
        raise RecomputeError(f"{len(found)} tables of {n} pairs give difference {diff}, p {p} and interval "
                             f"[{low}, {high}]: {sorted(found)[:4]}")
    return found.pop()


# ---------------------------------------------------------------------------------------------- a saved sweep
@dataclass
class StoredRun:
    """What the renderers read of a run besides its statistics: where it was and the commit that played it."""

    path: Path
    manifest: dict[str, Any]


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    return stats.integer_counts(pd.DataFrame([{c: r.get(c) for c in columns} for r in rows], columns=list(columns)))


def _margins(rows: list[dict[str, Any]], key: str, row: dict[str, Any], level: str | None) -> tuple[int, int] | None:
    """A's and B's successes over the pairs when every game of both runs is a pair (else None: search)."""
    def same(r: dict[str, Any]) -> bool:
        return r["metric"] == row["metric"] and (level is None or r.get("level") == level)
    base = next(r for r in rows if same(r) and r[key] == row["baseline"])
    if row["n_pairs"] == row["n"] == base["n"] and row["k"] is not None and base["k"] is not None:
        return int(row["k"]), int(base["k"])
    return None


def _tables(doc: dict[str, Any], exact: bool) -> dict[str, Any]:
    """The saved tables as the statistics functions return them; with ``exact`` the ``mcnemar-exact`` rows get the
    exact conditional interval (from their 2x2 table), else they keep the saved one."""
    rows, key = doc["rows"], doc["knob"]
    level_key = "level" if doc["schema"] == "simcli.sweep-levels/1" else None
    diffs = []
    for r in rows:
        if r.get("diff_test") is None:
            continue
        d = {key: r[key], "baseline": r["baseline"], "metric": r["metric"], "test": r["diff_test"],
             "n": r["n_pairs"], "diff": r["diff"], "diff_ci_low": r["diff_ci_low"],
             "diff_ci_high": r["diff_ci_high"], "p": r["p"], "p_holm": r["p_holm"]}
        if level_key:
            d["level"] = r["level"]
        if exact and r["diff_test"] == TEST:
            b, c = discordant_pairs(int(r["n_pairs"]), r["diff"], r["p"], r["diff_ci_low"], r["diff_ci_high"],
                                    _margins(rows, key, r, r.get("level")))
            d["diff_ci_low"], d["diff_ci_high"] = stats.mcnemar_exact_interval(b, c, int(r["n_pairs"]),
                                                                               doc["confidence"])
            d["b_c"] = (b, c)
        diffs.append(d)
    if not level_key:
        return {"table": _frame(rows, [key, *SUMMARY_COLUMNS]), "diffs": _frame(diffs, [key, *DIFF_COLUMNS]),
                "pairs": [d.get("b_c") for d in diffs]}
    inter = [{"level": r["level"], "base_level": r["inter_base_level"], key: r[key], "baseline": r["baseline"],
              "metric": r["metric"], "test": r["inter_test"], "n": r["inter_n"], "effect": r["inter_a"],
              "base_effect": r["inter_b"], "interaction": r["inter_interaction"], "ci_low": r["inter_ci_low"],
              "ci_high": r["inter_ci_high"], "p": r["inter_p"], "p_holm": r["inter_p_holm"], "a": r["inter_a"],
              "b": r["inter_b"], "diff": r["inter_diff"]} for r in rows if r.get("inter_test") is not None]
    return {"table": _frame(rows, ["level", key, *SUMMARY_COLUMNS]),
            "effects": _frame(diffs, ["level", key, *DIFF_COLUMNS]),
            "inter": _frame(inter, ["level", "base_level", key, *INTERACTION_COLUMNS[2:], "a", "b", "diff"]),
            "pairs": [d.get("b_c") for d in diffs]}


def _commits(page: Path) -> list[str]:
    """The engine commits the page's "Made with" line names."""
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    found = re.search(r"Made with simcli [^,]+, engine commit ([0-9a-f]{7,40}(?:, [0-9a-f]{7,40})*)", text)
    return found.group(1).split(", ") if found else []


def _runs(paths: list[str], commits: list[str]) -> list[StoredRun]:
    """Stand-ins for the runs, each with a commit, so that together they name ``commits`` (in the page's order)."""
    commits = commits or ["unknown"]
    return [StoredRun(Path(p), {"git_commit": commits[min(i, len(commits) - 1)]}) for i, p in enumerate(paths)]


@contextmanager
def _saved_statistics(tables: dict[str, Any]) -> Iterator[None]:
    """The statistics the renderers ask of the runs, answered from the saved tables."""
    if "inter" in tables:
        with mock.patch.object(levels_reporting, "level_tables",
                               lambda *a, **k: (tables["table"], tables["effects"], tables["inter"])):
            yield
        return
    with mock.patch.object(stats, "summary_table", lambda *a, **k: tables["table"]), \
            mock.patch.object(stats, "baseline_differences", lambda *a, **k: tables["diffs"]):
        yield


def render(doc: dict[str, Any], tables: dict[str, Any], image: str, commits: list[str]) -> Study:
    """The study's documents from the saved settings and ``tables``, as ``simcli sweep`` renders them."""
    metrics = [stats.metric(m) for m in (doc.get("metrics") or dict.fromkeys(r["metric"] for r in doc["rows"]))]
    sweep = Sweep(doc["variant"], doc["knob"], knob(doc["knob"]).help, list(doc["values"]), tuple(doc["fixed"]),
                  doc["games"], doc["seed"], doc["rotate_seats"], metrics, doc["command"])
    with _saved_statistics(tables):
        if "inter" in tables:
            paths = [doc["runs"][lv][v] for lv in doc["levels"] for v in doc["values"]]
            runs = iter(_runs(paths, commits))
            levels = [(lv, [(v, next(runs)) for v in doc["values"]]) for lv in doc["levels"]]
            return levels_study(sweep, levels, doc["level_strategies"], image, "table")  # type: ignore[arg-type]
        stored = _runs([doc["runs"][v] for v in doc["values"]], commits)
        return sweep_study(sweep, list(zip(doc["values"], stored, strict=True)),  # type: ignore[arg-type]
                           doc["strategies"], image, "table")


def _rows(text: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(text)["rows"]
    return rows


def recompute(prefix: Path, out: Path, commits: list[str] | None = None) -> tuple[Study, list[str]]:
    """Write ``out/NAME.md, .csv, .json, .png`` for the saved sweep ``prefix`` with exact conditional intervals;
    the changes, one line per recomputed row."""
    doc = json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))
    commits = commits if commits else _commits(prefix.with_suffix(".md"))
    image = prefix.name + ".png"
    as_saved = render(doc, _tables(doc, exact=False), image, commits)
    saved_csv = prefix.with_suffix(".csv").read_text(encoding="utf-8")
    if as_saved.table.to_csv(index=False) != saved_csv or _rows(as_saved.json) != doc["rows"]:
        raise RecomputeError(f"{prefix}: the saved tables rendered again do not give the saved CSV and JSON rows; "
                             "run the sweep's own command instead")
    tables = _tables(doc, exact=True)
    study = render(doc, tables, image, commits)
    save_study(out / prefix.name, study)
    old = _tables(doc, exact=False)
    key = "effects" if "inter" in tables else "diffs"
    changes = []
    for (_, before), (_, after), pair in zip(old[key].iterrows(), tables[key].iterrows(), tables["pairs"],
                                             strict=True):
        if pair is not None:
            where = f"{after['level']} " if "level" in after else ""
            changes.append(f"{where}{after[doc['knob']]} - {after['baseline']} {after['metric']}: b = {pair[0]}, "
                           f"c = {pair[1]}, n = {after['n']}: [{before['diff_ci_low']:.6g}, "
                           f"{before['diff_ci_high']:.6g}] -> [{after['diff_ci_low']:.6g}, "
                           f"{after['diff_ci_high']:.6g}]")
    return study, changes


def generated_body(markdown: str) -> str:
    """What a sweep's page holds after its figure line: the tables (the part a page's own words are put around)."""
    lines = markdown.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("!["))
    return "".join(lines[at + 2:])


def replace_body(page: str, new_body: str) -> str:
    """``page`` with its generated tables (from the line ``Sweep of ...`` up to its next ``## `` heading, or the end)
    replaced by ``new_body``: the words a page puts around them (title, provenance, findings) are kept."""
    lines = page.splitlines(keepends=True)
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("Sweep of "))
    except StopIteration:
        raise RecomputeError("the page holds no generated tables (no line 'Sweep of ...')") from None
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = "\n" if end < len(lines) else ""
    return "".join(lines[:start]) + new_body.rstrip("\n") + "\n" + tail + "".join(lines[end:])


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("prefix", type=Path, help="the saved sweep: PREFIX.json, .csv and .md (results/studies/NAME)")
    ap.add_argument("--out", type=Path, help="folder for the recomputed files (default: a new one under /tmp)")
    ap.add_argument("--commit", action="append", help="engine commit(s) the 'Made with' line names")
    ap.add_argument("--page", action="store_true", help="also write PREFIX.md, its generated tables replaced")
    args = ap.parse_args(argv)
    prefix = args.prefix.with_suffix("") if args.prefix.suffix in (".json", ".md", ".csv") else args.prefix
    out = args.out or Path(tempfile.mkdtemp(prefix="recomputed-"))
    try:
        study, changes = recompute(prefix, out, args.commit)
        if args.page:
            page = replace_body(prefix.with_suffix(".md").read_text(encoding="utf-8"), generated_body(study.markdown))
            prefix.with_suffix(".md").write_text(page, encoding="utf-8")
            for ext in (".csv", ".json", ".png"):
                prefix.with_suffix(ext).write_bytes((out / (prefix.name + ext)).read_bytes())
    except RecomputeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out_io = io.StringIO()
    print(f"{prefix}: {len(changes)} interval(s) recomputed, files in {out}", file=out_io)
    for line in changes:
        print(f"  {line}", file=out_io)
    print(out_io.getvalue(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
