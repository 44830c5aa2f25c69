"""Runs in a report: opening one, what identifies it, and the documents of ``report`` (one run) and ``compare``
(two runs, metric by metric)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli import __version__
from simcli.reporting.errors import ReportError
from simcli.reporting.formatting import (
    fmt_ci,
    fmt_count,
    fmt_diff,
    fmt_num,
    fmt_p,
    fmt_share,
    fmt_unit,
    fmt_value,
    is_missing,
    json_document,
    text_table,
)
from simcli.reporting.run_dirs import missing_run
from simcli.reporting.run_summary import summary_lines

if TYPE_CHECKING:  # heavy modules are imported when a command runs, so `simcli --help` stays fast
    import pandas as pd

    from simcli.runs.results import Run, StoredRun


# ------------------------------------------------------------------------------------------- a run
def open_run(path: str | Path) -> StoredRun:
    """Open a run directory for analysis (:func:`simcli.runs.results.scan`: its tables are read as the statistics
    ask, the deals a few columns at a time); a missing one, a folder that is not a run and a run without finished
    games are a :class:`ReportError` of one line."""
    from simcli.runs.results import scan

    p = Path(path)
    if not p.exists():
        raise ReportError(missing_run(p))
    if not p.is_dir():
        raise ReportError(f"{p} is not a directory (expected a run directory from `simcli run`)")
    try:
        run = scan(p)
        empty = run.games.empty or not run.deal_rows
    except FileNotFoundError as exc:
        raise ReportError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise ReportError(f"cannot read run {p}: {exc}") from None
    if empty:
        raise ReportError(f"run {p} has no finished games yet")
    return run


def run_info(run: Run) -> dict[str, Any]:
    """What identifies a run: path, variant, strategies, seed, N, changed rules, status."""
    m = run.manifest
    return {
        "path": str(run.path), "variant": m.get("variant"), "strategies": m.get("strategies"),
        "seed": m.get("seed"), "games": m.get("games"), "games_played": int(len(run.games)),
        "rotate_seats": m.get("rotate_seats"), "rules_diff": m.get("rules_diff") or {},
        "status": m.get("status"), "errors": int(len(run.errors)),
        "simcli_version": m.get("simcli_version"), "git_commit": m.get("git_commit"),
    }


def describe_run(run: Run) -> str:
    """One line naming the run: variant, strategies, seed, N, changed rules."""
    i = run_info(run)
    strategies = i["strategies"] or []
    strat = strategies[0] if len(set(strategies)) == 1 else ",".join(strategies)
    rules = ", ".join(f"{k}={v}" for k, v in i["rules_diff"].items()) or "preset"
    extra = "" if i["status"] == "complete" else f", status {i['status']}"
    errors = f", {i['errors']} failed game(s) excluded" if i["errors"] else ""
    played = f"{i['games_played']} games"
    if i["rotate_seats"]:  # count the units: a game and its seat-swapped twin
        played = f"{run.games['game_index'].nunique()} games x 2 seatings ({i['games_played']} played)"
    return (f"{i['path']}: {i['variant']}, {strat}, seed {i['seed']}, {played}, "
            f"rules: {rules}{extra}{errors}")


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Short unique labels for runs: their folder names (with the parent folder when names repeat)."""
    names = [r.path.name or str(r.path) for r in runs]
    if len(set(names)) < len(names):
        names = [f"{r.path.parent.name}/{r.path.name}" for r in runs]
    if len(set(names)) < len(names):
        names = [str(r.path) for r in runs]
    return names


def provenance(runs: Sequence[Run]) -> str:
    """simcli version and engine commit of the runs."""
    commits = {str(r.manifest.get("git_commit") or "unknown")[:12] for r in runs}
    return f"simcli {__version__}, engine commit {', '.join(sorted(commits))}"


# -------------------------------------------------------------------------------------------- report
def _report_rows(section: pd.DataFrame) -> list[list[str]]:
    rows = []
    for r in section.to_dict(orient="records"):
        unit = r.get("unit")
        is_rate = unit == "share" and (not is_missing(r.get("k")) or is_missing(r.get("sd")))
        iqr = "-" if is_rate else f"{fmt_num(r.get('q25'))} to {fmt_num(r.get('q75'))}"
        note = r.get("method") or ""
        if not is_missing(r.get("expected")):
            note += f"; model {fmt_share(r['expected'])}"
        rows.append([
            str(r["metric"]), str(r["group"]), fmt_count(r.get("n")), fmt_count(r.get("n_units")),
            fmt_count(r.get("k")) if is_rate else "",
            fmt_value(r.get("value"), unit), fmt_ci(r.get("ci_low"), r.get("ci_high"), unit),
            "" if is_rate else fmt_num(r.get("sd")), "" if is_rate else fmt_num(r.get("median")),
            "" if is_rate else iqr, "" if is_rate else str(unit or ""), note,
        ])
    return rows


REPORT_HEADERS = ["metric", "group", "n", "units", "k", "estimate", "95% CI", "sd", "median", "IQR", "unit", "interval"]


def render_report(run: Run, rep: pd.DataFrame, by: str, fmt: str) -> str:
    """The report in ``table``, ``markdown``, ``csv`` or ``json`` (see docs/analysis.md for the schema)."""
    from simcli import stats

    if fmt == "csv":
        return rep.to_csv(index=False)
    if fmt == "json":
        return json_document("simcli.report/1", {"run": run_info(run), "by": by}, rep)
    md = fmt == "markdown"
    out = [("# " if md else "") + f"Report: {describe_run(run)}", ""]
    short = summary_lines(rep)  # who won how often and how long games last, before the full tables
    if short:
        out += [*short, ""]
    out.append("n = observations (games, deals or team-deals); units = independent units behind the interval "
               "(games; with --rotate-seats a game and its seat-swapped twin are one unit); k = successes for "
               "rates; 95% intervals: Wilson for rates (Clopper-Pearson for exact cuts; wilson-cluster: on the "
               "design-effect sample size of the units), t for means over games, cluster-robust t (by unit) for "
               "means over deals and over the twins of a rotated run.")
    for name, title in stats.SECTION_TITLES.items():
        section = rep[rep["section"] == name]
        if section.empty:
            continue
        if name == "win_rates":
            title = f"{title} by {by} (n = games)"
        out += ["", ("## " if md else "== ") + title + ("" if md else " =="), ""]
        out.append(text_table(REPORT_HEADERS, _report_rows(section), "markdown" if md else "table"))
    return "\n".join(out) + "\n"


def report_documents(run_dirs: Sequence[Path], by: str, chosen: Sequence[Any], fmt: str) -> str:
    """The report of each run (:func:`render_report`), in order: one after the other, a JSON list for several in
    ``json``; a run that cannot be read or summarized is a :class:`ReportError` naming it."""
    from simcli import stats

    texts = []
    for run_dir in run_dirs:
        run = open_run(run_dir)
        try:
            rep = stats.run_report(run, by, list(chosen))
        except stats.StatsError as exc:
            raise ReportError(f"{run_dir}: {exc}") from None
        texts.append(render_report(run, rep, by, fmt))
    if fmt == "json" and len(texts) > 1:
        return "[\n" + ",\n".join(t.rstrip("\n") for t in texts) + "\n]\n"
    return "\n".join(texts)


# ------------------------------------------------------------------------------------------- compare
def run_differences(a: Run, b: Run) -> list[str]:
    """What differs between two runs' settings: variant, strategies and rule knobs (``knob: A -> B``)."""
    ma, mb = a.manifest, b.manifest
    out = []
    if ma.get("variant") != mb.get("variant"):
        out.append(f"variant: {ma.get('variant')} -> {mb.get('variant')}")
    if ma.get("strategies") != mb.get("strategies"):
        out.append(f"strategies: {','.join(ma.get('strategies') or [])} -> {','.join(mb.get('strategies') or [])}")
    ra, rb = ma.get("rules") or {}, mb.get("rules") or {}
    out += [f"{k}: {ra.get(k, '(not in A)')} -> {rb.get(k, '(not in B)')}" for k in sorted(set(ra) | set(rb))
            if ra.get(k) != rb.get(k)]
    return out


def _compare_rows(table: pd.DataFrame) -> list[list[str]]:
    rows = []
    for r in table.to_dict(orient="records"):
        unit = r["unit"]
        diff, ci = fmt_diff(r["diff"], r["ci_low"], r["ci_high"], unit)
        n = f"{fmt_count(r['n_a'])}/{fmt_count(r['n_b'])}" if not is_missing(r.get("n_a")) else fmt_count(r["n"])
        rows.append([r["metric"], n, fmt_value(r["a"], unit), fmt_value(r["b"], unit), diff, ci, r["test"],
                     fmt_p(r["p"]), fmt_p(r["p_holm"]), fmt_unit(unit)])
    return rows


#: The one sign convention of compare, sweep and sweeps by level: the second (or changed) minus the first (or
#: baseline). Compare's CSV and JSON name the difference by it (``b_minus_a``), so that a reader of the earlier
#: ``diff`` (A - B, schema simcli.compare/1) fails on the missing column instead of reading a flipped sign.
DIFFERENCE = "B - A"
COMPARE_HEADERS = ["metric", "n", "A", "B", DIFFERENCE, "95% CI", "test", "p", "p (Holm)", "unit"]


def render_compare(a: Run, b: Run, table: pd.DataFrame, paired: bool, fmt: str) -> str:
    """The comparison in ``table``, ``markdown``, ``csv`` or ``json``; every format names the difference B - A."""
    if fmt in ("csv", "json"):
        named = table.rename(columns={"diff": "b_minus_a"})
        if fmt == "csv":
            return named.to_csv(index=False)
        return json_document("simcli.compare/2", {"a": run_info(a), "b": run_info(b), "paired": paired,
                                                  "difference": DIFFERENCE,
                                                  "differences": run_differences(a, b)}, named)
    md = fmt == "markdown"
    diffs = run_differences(a, b)
    twins = bool(a.manifest.get("rotate_seats")) or bool(b.manifest.get("rotate_seats"))
    if paired:
        how = ("paired on game_index (a game and its seat-swapped twin form one unit); n = pairs of units" if twins
               else "paired on (game_index, rotation); n = pairs")
    else:
        how = ("unpaired (two independent samples); n = units (game indices) in A/B" if twins
               else "unpaired (two independent samples); n = games in A/B")
    lines = [("# " if md else "") + "Comparison", "",
             f"A: {describe_run(a)}", f"B: {describe_run(b)}",
             "differences: " + ("; ".join(diffs) if diffs else "none (same settings)"),
             f"{DIFFERENCE}: each metric in run B minus in run A (the second minus the first, as sweep's value - "
             "baseline)",
             f"{how}; p-values adjusted with Holm over the {len(table)} metric(s) compared", ""]
    lines.append(text_table(COMPARE_HEADERS, _compare_rows(table), "markdown" if md else "table"))
    return "\n".join(lines) + "\n"
