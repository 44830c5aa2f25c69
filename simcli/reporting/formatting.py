"""Numbers, intervals and p-values as text, aligned text and Markdown tables, and JSON documents.

What every command's output is made of: ``report``, ``compare``, ``sweep``, ``balance``, ``plan``, ``match``,
``tournament`` and ``ladder`` write their values with these functions, so a share, an interval or a p-value
reads the same everywhere.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported when a command runs, so `simcli --help` stays fast
    import pandas as pd

#: The formats of a report's ``--format``: an aligned text table, Markdown, CSV or JSON.
FORMATS = ["table", "markdown", "csv", "json"]


# ------------------------------------------------------------------------------------------- values
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


def fmt_pp(text: str, unit: str | None) -> str:
    """A difference of shares (written by :func:`fmt_value` or :func:`fmt_ci`) in percentage points: ``5.0 pp``
    for ``5.0%``; other units unchanged."""
    return text.replace("%", " pp") if unit == "share" else text


def fmt_diff(diff: Any, low: Any, high: Any, unit: str | None) -> tuple[str, str]:
    """A difference and its interval as text (:func:`fmt_pp`: shares in percentage points)."""
    return fmt_pp(fmt_value(diff, unit), unit), fmt_pp(fmt_ci(low, high, unit), unit)


def fmt_unit(unit: str | None) -> str:
    """A table's unit column: empty for shares (their values carry ``%`` or ``pp``)."""
    return "" if unit == "share" else str(unit)


def fmt_p(p: Any) -> str:
    """A p-value: 4 significant digits, '<1e-300' for underflow."""
    if is_missing(p):
        return "-"
    return "<1e-300" if p == 0 else (f"{p:.4f}" if p >= 0.001 else f"{p:.2e}")


def fmt_count(x: Any) -> str:
    """An integer count ('' when missing)."""
    return "" if is_missing(x) else f"{int(x)}"


def finite(x: float) -> float | None:
    """A float for JSON: None for NaN and +-inf (an Elo of a score of 0 or 1 is infinite)."""
    return None if x is None or math.isnan(x) or math.isinf(x) else float(x)


def fmt_elo(x: float) -> str:
    """An Elo difference with its sign (``+inf`` for a clean sweep, ``-`` for no value)."""
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.0f}"


# ------------------------------------------------------------------------------------------- tables
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


# -------------------------------------------------------------------------------------------- JSON
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


def json_document(schema: str, meta: dict[str, Any], table: pd.DataFrame) -> str:
    """A table as a JSON document: its ``schema``, ``meta``, the confidence level and the table's rows."""
    from simcli import stats

    return dump_json({"schema": schema, **meta, "confidence": stats.CONFIDENCE, "rows": records(table)})
