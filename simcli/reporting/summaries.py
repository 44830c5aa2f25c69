"""The summary tables of a study (``sweep``, ``balance``): each setting's estimates with their intervals and, in a
sweep, each value's paired difference from the baseline; and a study's documents, saved as PREFIX.md, .csv, .json
and .png."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.reporting.errors import ReportError
from simcli.reporting.figures import save_figure
from simcli.reporting.formatting import (
    fmt_ci,
    fmt_count,
    fmt_diff,
    fmt_p,
    fmt_unit,
    fmt_value,
    json_document,
    text_table,
)
from simcli.reporting.runs import provenance

if TYPE_CHECKING:  # imported when a command runs, so `simcli --help` stays fast
    import pandas as pd
    from matplotlib.figure import Figure

    from simcli.runs.results import Run


@dataclass(frozen=True)
class Study:
    """A study's documents: what it saves (PREFIX.md, PREFIX.csv from ``table``, PREFIX.json, PREFIX.png from
    ``figure``) and the text it prints in the ``--format`` asked for."""

    markdown: str
    table: pd.DataFrame
    json: str
    figure: Figure
    printed: str


def save_study(prefix: Path, study: Study) -> list[Path]:
    """Write PREFIX.md, PREFIX.csv, PREFIX.json and PREFIX.png; return the paths."""
    paths = [prefix.with_name(prefix.name + ext) for ext in (".md", ".csv", ".json", ".png")]
    try:
        prefix.parent.mkdir(parents=True, exist_ok=True)
        paths[0].write_text(study.markdown, encoding="utf-8")
        paths[1].write_text(study.table.to_csv(index=False), encoding="utf-8")
        paths[2].write_text(study.json + "\n", encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write {prefix}.*: {exc.strerror or exc}") from None
    save_figure(study.figure, paths[3])
    return paths


def study_page(title: str, command: str, runs: Sequence[Run], image: str, alt: str, body: str) -> str:
    """A sweep's Markdown page: the title, the command that regenerates it, provenance, the figure and ``body``."""
    return "\n".join([f"# {title}", "", f"Regenerate: `{command}`", "", f"Made with {provenance(runs)}.", "",
                      f"![{alt}]({image})", "", body])


def has_expected(table: pd.DataFrame) -> bool:
    """Whether a summary table holds a model's expected value for some row (the exact cut or pick)."""
    return "expected" in table.columns and bool(table["expected"].notna().any())


def summary_headers(key: str, table: pd.DataFrame) -> list[str]:
    """The headers of :func:`summary_rows` (``model`` after the interval when some metric has an expected value)."""
    return [key, "metric", "n", "units", "k", "estimate", "95% CI", *(["model"] if has_expected(table) else []),
            "unit", "interval"]


def summary_rows(table: pd.DataFrame, key: str) -> list[list[str]]:
    """Rows of a :func:`simcli.stats.summary_table` for a text or Markdown table (with a ``model`` column after
    the interval when some metric has an expected value)."""
    import pandas as pd

    model = has_expected(table)
    rows = []
    for r in table.to_dict(orient="records"):
        unit = r["unit"]
        expected = [] if not model else ["" if pd.isna(r["expected"]) else fmt_value(r["expected"], unit)]
        rows.append([str(r[key]), r["metric"], fmt_count(r["n"]), fmt_count(r.get("n_units")), fmt_count(r["k"]),
                     fmt_value(r["value"], unit),
                     fmt_ci(r["ci_low"], r["ci_high"], unit), *expected, fmt_unit(unit),
                     r["method"]])
    return rows


#: A sweep's difference, named in its table header and JSON: the changed value minus the baseline, the convention
#: of ``compare`` (B - A: the second run minus the first).
SWEEP_DIFFERENCE = "value - baseline"
#: The headers of :func:`diff_rows` after the key.
DIFF_HEADERS = ["metric", "n", SWEEP_DIFFERENCE, "95% CI", "test", "p", "p (Holm)", "unit"]


def diff_rows(diffs: pd.DataFrame, key: str) -> list[list[str]]:
    """Rows of a :func:`simcli.stats.baseline_differences` table for a text or Markdown table."""
    from simcli import stats

    units: dict[str, Any] = {}
    rows = []
    for r in diffs.to_dict(orient="records"):
        unit = units.setdefault(r["metric"], stats.metric(r["metric"]).unit)
        diff, ci = fmt_diff(r["diff"], r["diff_ci_low"], r["diff_ci_high"], unit)
        rows.append([f"{r[key]} - {r['baseline']}", r["metric"], fmt_count(r["n"]), diff, ci, r["test"],
                     fmt_p(r["p"]), fmt_p(r["p_holm"]), fmt_unit(unit)])
    return rows


def render_summary(table: pd.DataFrame, key: str, fmt: str, header: Sequence[str], schema: str,
                   meta: dict[str, Any], diffs: pd.DataFrame | None = None) -> str:
    """A sweep or balance table in ``table``, ``markdown``, ``csv`` or ``json``; a sweep's ``diffs`` (each value
    against the baseline) join the CSV/JSON rows and follow as a second table in text and Markdown."""
    from simcli import stats

    long = table if diffs is None else stats.with_differences(table, diffs, key)
    if fmt == "csv":
        return long.to_csv(index=False)
    if fmt == "json":
        return json_document(schema, meta, long)
    style = "markdown" if fmt == "markdown" else "table"
    out = [*header, "", text_table(summary_headers(key, table), summary_rows(table, key), style)]
    if diffs is not None and not diffs.empty:
        base = diffs["baseline"].iloc[0]
        out += ["", f"Paired differences from the baseline {key}={base} (same deals game by game; p adjusted with "
                    f"Holm over all {len(diffs)} value-metric pairs):", "",
                text_table([key, *DIFF_HEADERS], diff_rows(diffs, key), style)]
    return "\n".join(out) + "\n"
