"""``simcli report``: every summary of a run with its sample size and 95% interval; shared output helpers."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from simcli.commands.common import json_flag

if TYPE_CHECKING:  # heavy modules are imported when a command runs, so `simcli --help` stays fast
    import pandas as pd

    from simcli.runs.results import Run

FORMATS = ["table", "markdown", "csv", "json"]


# ------------------------------------------------------------------------------------------- loading
def open_run(path: str | Path) -> Run:
    """Load a run directory, failing with one line when it is missing, not a run, or empty."""
    from simcli.runs.results import load

    p = Path(path)
    if not p.exists():
        raise click.ClickException(f"no run directory at {p}")
    if not p.is_dir():
        raise click.ClickException(f"{p} is not a directory (expected a run directory from `simcli run`)")
    try:
        run = load(p)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot read run {p}: {exc}") from None
    if run.games.empty or run.deals.empty:
        raise click.ClickException(f"run {p} has no finished games yet")
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


# ---------------------------------------------------------------------------------------- formatting
def _plain(x: Any) -> Any:
    """A numpy scalar as the Python value, pandas' NA as None (other values unchanged)."""
    if type(x).__name__ in ("NAType", "NaTType"):
        return None
    return x.item() if hasattr(x, "item") and hasattr(x, "dtype") and getattr(x, "ndim", 1) == 0 else x


def is_missing(x: Any) -> bool:
    """True for None and NaN."""
    x = _plain(x)
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt_num(x: Any) -> str:
    """A number with a precision that suits its size ('-' when missing)."""
    if is_missing(x):
        return "-"
    x = float(x)
    ax = abs(x)
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.1f}"
    if ax >= 10:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_share(x: Any) -> str:
    """A proportion as a percentage."""
    if is_missing(x):
        return "-"
    pct = 100 * float(x)
    return f"{pct:.2f}%" if 0 < abs(pct) < 1 else f"{pct:.1f}%"


def fmt_value(x: Any, unit: str | None) -> str:
    """A value in its unit: shares as percentages, everything else as numbers."""
    return fmt_share(x) if unit == "share" else fmt_num(x)


def fmt_ci(low: Any, high: Any, unit: str | None) -> str:
    """An interval as ``[low, high]``."""
    if is_missing(low) or is_missing(high):
        return "-"
    return f"[{fmt_value(low, unit)}, {fmt_value(high, unit)}]"


def fmt_p(p: Any) -> str:
    """A p-value: 4 significant digits, '<1e-300' for underflow."""
    if is_missing(p):
        return "-"
    return "<1e-300" if p == 0 else (f"{p:.4f}" if p >= 0.001 else f"{p:.2e}")


def fmt_count(x: Any) -> str:
    """An integer count ('' when missing)."""
    return "" if is_missing(x) else f"{int(x)}"


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], fmt: str = "table") -> str:
    """Rows of strings as an aligned text table or a Markdown table (numbers right-aligned)."""
    def numeric(col: int) -> bool:
        vals = [r[col] for r in rows if r[col] not in ("", "-")]
        return bool(vals) and all(v[:1].isdigit() or v[:1] in "-+[" for v in vals)

    right = [numeric(i) for i in range(len(headers))]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join("---:" if r else "---" for r in right) + "|"]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(str(r[i])) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(c).rjust(w) if r else str(c).ljust(w) for c, w, r in zip(cells, widths, right,
                                                                                     strict=True)).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def to_jsonable(x: Any) -> Any:
    """Plain JSON values: NaN to null, numpy scalars to Python, recursively."""
    if isinstance(x, dict):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [to_jsonable(v) for v in x]
    x = _plain(x)
    if isinstance(x, float):
        return None if math.isnan(x) else x
    return x


COUNT_FIELDS = ("n", "n_units", "n_pairs", "k", "n_a", "n_b", "a_only", "b_only", "clusters")


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """A DataFrame as JSON-ready records (counts as integers, NaN as null)."""
    out = []
    for r in df.to_dict(orient="records"):
        r = to_jsonable(r)
        for f in COUNT_FIELDS:
            if f in r and r[f] is not None:
                r[f] = int(r[f])
        out.append(r)
    return out


def dump_json(obj: Any) -> str:
    """JSON text (NaN as null), indented."""
    return json.dumps(to_jsonable(obj), indent=2, allow_nan=False)


def emit(text: str, out: Path | None) -> None:
    """Write ``text`` to ``out`` (creating its folder) or to stdout."""
    if out is None:
        click.echo(text)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror or exc}") from None
    click.echo(f"wrote {out}", err=True)


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
        return dump_json({"schema": "simcli.report/1", "run": run_info(run), "by": by,
                          "confidence": stats.CONFIDENCE, "rows": records(rep)})
    md = fmt == "markdown"
    out = [("# " if md else "") + f"Report: {describe_run(run)}", ""]
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


@click.command()
@json_flag
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--by", type=click.Choice(["strategy", "seat", "team"]), default="team", show_default=True,
              help="group win rates (and per-team deal figures) by team, seat or strategy")
@click.option("--metric", "metrics", multiple=True, metavar="NAME[,NAME...]",
              help="also summarize these metrics (e.g. strategy_win:greedy,strategy_score:greedy); "
                   "docs/analysis.md lists them")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write to FILE instead of stdout")
def report(run_dir: Path, by: str, metrics: tuple[str, ...], fmt: str, out: Path | None) -> None:
    """Summarize a run: win rates, margins, game length, deal endings, canastas, red threes, first melds,
    pile takes, exact cuts (when paid) and pony pickups (when recorded), each with n and a 95% interval."""
    from simcli import stats

    try:
        chosen = stats.parse_metrics(metrics, [])
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    run = open_run(run_dir)
    try:
        rep = stats.run_report(run, by, chosen)
    except stats.StatsError as exc:
        raise click.ClickException(f"{run_dir}: {exc}") from None
    emit(render_report(run, rep, by, fmt), out)
