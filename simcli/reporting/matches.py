"""The outputs of duplicate matches: a match's report (``match``), a round robin's ratings and head-to-head matrix
(``tournament``) and a ladder's files (``ladder``), as text, JSON, CSV and figures."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.reporting.errors import ReportError
from simcli.reporting.figures import new_figure, save_figure
from simcli.reporting.formatting import finite, fmt_elo

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from simcli.duplicate.match import BatchCounts, MatchOutcome, SprtSettings
    from simcli.duplicate.match_store import MatchSpec
    from simcli.duplicate.pairs import PairSummary

#: The files a finished ladder writes beside its manifest and matches.
LADDER_FILES = ("ratings.json", "ratings.csv", "neighbours.csv", "matches.csv", "ladder.md", "ladder.png")


# ----------------------------------------------------------------------------------------------- match
#: What a match's Elo difference is: A's rating minus B's. A match scores its first side (``score`` is A's share,
#: the SPRT tests A's Elo, as chess engine tests rate the first engine), so its difference keeps A - B while
#: ``compare`` and ``sweep`` report the second run or value minus the first; both outputs name it.
MATCH_DIFFERENCE = "a - b"


def match_header(spec: MatchSpec, rule_text: str) -> str:
    """The match's first line: the sides, variant, seed, the rules (``rule_text``, when any) and the seating."""
    return (f"match {spec.a} vs {spec.b}: {spec.variant}, seed {spec.seed}"
            + (f", rules {rule_text}" if rule_text else "") + f", {spec.a} on team 0 in the first game of each pair")


def resumed_line(out: Path | None, stored: dict[int, BatchCounts], played: list[int], outcome: MatchOutcome,
                 batch: int) -> str:
    """What a resumed match says of the batches ``stored`` in ``out``: all reused, or how many reused and played."""
    if not played:
        return (f"the match in {out} was finished: its {outcome.summary.pairs:,} stored pairs are reused, "
                "none played")
    kept = sum(len(stored[k].half_points) for k in stored if k * batch < outcome.summary.pairs)
    return f"resumed {out}: {kept:,} stored pairs reused, {outcome.summary.pairs - kept:,} played"


def match_json(outcome: MatchOutcome) -> dict[str, Any]:
    """The ``--format json`` object: exactly the keys documented in docs/analysis.md."""
    s = outcome.summary
    sprt = None
    if outcome.sprt is not None:
        sprt = {"llr": outcome.sprt["llr"], "lower": outcome.sprt["lower"], "upper": outcome.sprt["upper"],
                "result": outcome.sprt["result"]}
    return {"a": outcome.a, "b": outcome.b, "games": s.games, "pairs": s.pairs, "score": finite(s.score),
            "score_ci_low": finite(s.score_ci_low), "score_ci_high": finite(s.score_ci_high), "elo": finite(s.elo),
            "elo_ci_low": finite(s.elo_ci_low), "elo_ci_high": finite(s.elo_ci_high),
            "difference": MATCH_DIFFERENCE, "sprt": sprt}


def pentanomial_lines(s: PairSummary, a: str) -> list[str]:
    """The per-pair distribution as two aligned rows."""
    head = ["pair points of " + a, "0", "0.5", "1", "1.5", "2"]
    counts = ["pairs", *(str(c) for c in s.pentanomial)]
    width = [max(len(h), len(c)) for h, c in zip(head, counts, strict=True)]
    return ["  ".join(h.rjust(w) for h, w in zip(row, width, strict=True)) for row in (head, counts)]


def match_text(outcome: MatchOutcome, header: str | None, sprt: SprtSettings | None) -> str:
    """The text report of a finished match (after ``header`` unless it is None)."""
    s = outcome.summary
    lines = [] if header is None else [header]
    lines += [f"{s.games:,} games in {s.pairs:,} pairs: {outcome.a} won {s.wins}, tied {s.ties}, lost {s.losses}",
              f"score of {outcome.a}: {s.score:.3f} [{s.score_ci_low:.3f}, {s.score_ci_high:.3f}] "
              + ("(95% Clopper-Pearson bound over pairs: a clean sweep)" if s.score in (0.0, 1.0)
                 else "(95% t-interval over pairs)"),
              f"Elo difference: {fmt_elo(s.elo)} [{fmt_elo(s.elo_ci_low)}, {fmt_elo(s.elo_ci_high)}] "
              f"({outcome.a} - {outcome.b})",
              *pentanomial_lines(s, outcome.a)]
    if sprt is not None and outcome.sprt is not None:
        st = outcome.sprt
        verdict = {"H1": f"H1 accepted: {outcome.a} is at least {sprt.elo1:g} Elo stronger",
                   "H0": f"H0 accepted: {outcome.a} is at most {sprt.elo0:g} Elo stronger",
                   "inconclusive": "inconclusive (--max-games reached)"}[st["result"]]
        lines.append(f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} ({sprt.model}), alpha {sprt.alpha:g}, beta "
                     f"{sprt.beta:g}: LLR {st['llr']:.3f} [{st['lower']:.3f}, {st['upper']:.3f}] -> {verdict}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ files of a series
def csv_bytes(rows: list[dict[str, Any]]) -> bytes:
    """Rows as CSV (header from the first row; a list value as its space-separated items)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (" ".join(map(str, v)) if isinstance(v, list) else v) for k, v in row.items()})
    return buffer.getvalue().encode()


def write_files(out: Path, files: dict[str, bytes]) -> None:
    """Write each file into ``out`` atomically (an interrupted write leaves the old file or none); a folder that
    cannot be written is a :class:`ReportError`."""
    from simcli.runs.storage import atomic_write_bytes

    try:
        for name, data in files.items():
            atomic_write_bytes(out / name, data)
    except OSError as exc:
        raise ReportError(f"cannot write to {out}: {exc.strerror or exc}") from None


def json_bytes(data: dict[str, Any]) -> bytes:
    """A results document as the JSON file a series writes (what ``--format json`` prints, and a newline)."""
    return (json.dumps(data, indent=2) + "\n").encode()


def rating_panel(ax: Axes, y: list[int], ratings: list[float], low: list[float], high: list[float],
                 labels: list[str], xlabel: str, title: str) -> None:
    """Ratings on a horizontal axis, each with its interval (``low``, ``high``: the distances to its ends), at
    heights ``y`` with ``labels``, against the dotted line of rating 0."""
    ax.errorbar(ratings, y, xerr=[low, high], fmt="o", color="C0", ecolor="C0", capsize=4)
    ax.axvline(0, color="0.6", linestyle=":", linewidth=1)
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(y) - 0.3)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)


# ------------------------------------------------------------------------------------------ tournament
def head_to_head(data: dict[str, Any]) -> tuple[list[str], dict[tuple[str, str], tuple[float, float, float]]]:
    """The strategies best first and, for every two of them, the row's score against the column with its 95%
    interval (from the match between them: B's score is 1 - A's, its interval the mirror image)."""
    order = [row["strategy"] for row in data["ratings"]]
    cells: dict[tuple[str, str], tuple[float, float, float]] = {}
    for m in data["matches"]:
        cells[(m["a"], m["b"])] = (m["score"], m["score_ci_low"], m["score_ci_high"])
        cells[(m["b"], m["a"])] = (1 - m["score"], 1 - m["score_ci_high"], 1 - m["score_ci_low"])
    return order, cells


def head_to_head_lines(data: dict[str, Any]) -> list[str]:
    """The head-to-head matrix as text: each row strategy's score against each column strategy, with intervals.
    Ratings can overlap where a match's own interval excludes 0.5: this is the direct evidence."""
    order, cells = head_to_head(data)
    width = max(22, *(len(s) for s in order))
    lines = ["head to head (score of the row against the column over their match, 95% interval):",
             " " * (width + 2) + "".join(f"{s[:22]:<24}" for s in order)]
    for r in order:
        row = "".join("-".ljust(24) if r == c else
                      f"{cells[(r, c)][0]:.3f} [{cells[(r, c)][1]:.3f}, {cells[(r, c)][2]:.3f}]".ljust(24)
                      for c in order)
        lines.append(f"  {r:<{width}}{row}".rstrip())
    lines[1] = lines[1].rstrip()
    return lines


def ratings_figure(data: dict[str, Any]) -> Figure:
    """The ratings as a horizontal interval plot (best on top) beside the head-to-head matrix (the row's score
    against the column, with its interval)."""
    rows = data["ratings"]
    spec = data["spec"]
    fig = new_figure(7.5 + 1.6 * len(rows), 1.6 + 0.6 * len(rows))
    rating_panel(fig.add_subplot(1, 2, 1), list(range(len(rows)))[::-1], [row["rating"] for row in rows],
                 [row["rating"] - row["ci_low"] for row in rows], [row["ci_high"] - row["rating"] for row in rows],
                 [row["strategy"] for row in rows], "Elo rating (logistic scale, mean 0), 95% interval",
                 "Elo ratings, 95% interval")
    matrix_panel(fig.add_subplot(1, 2, 2), data)
    fig.suptitle(f"variant {spec['variant']}: round robin of duplicate matches, {2 * spec['pairs']:,} games per "
                 f"match, seed {spec['seed']} ({data['method']})", fontsize=10)
    return fig


def matrix_panel(ax: Axes, data: dict[str, Any]) -> None:
    """The head-to-head matrix as a colour map of scores, each cell annotated with its score and interval."""
    import numpy as np

    order, cells = head_to_head(data)
    k = len(order)
    grid = np.full((k, k), np.nan)
    for i, r in enumerate(order):
        for j, c in enumerate(order):
            if r != c:
                grid[i, j] = cells[(r, c)][0]
    ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, r in enumerate(order):
        for j, c in enumerate(order):
            if r != c:
                score, low, high = cells[(r, c)]
                ax.text(j, i, f"{score:.3f}\n[{low:.3f}, {high:.3f}]", ha="center", va="center", fontsize=7,
                        color="white" if abs(score - 0.5) > 0.3 else "black")  # readable on the dark ends
    ax.set_xticks(range(k), order, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(k), order, fontsize=8)
    ax.set_title("head to head: score of the row against the column", fontsize=9)


def save_tournament(out: Path, data: dict[str, Any]) -> None:
    """A tournament's ratings.json, ratings.csv, matches.csv and ratings.png."""
    write_files(out, {"ratings.json": json_bytes(data), "ratings.csv": csv_bytes(data["ratings"]),
                      "matches.csv": csv_bytes(data["matches"])})
    save_figure(ratings_figure(data), out / "ratings.png")


def tournament_text(data: dict[str, Any], folder: Path) -> str:
    """Ratings table and match table as text."""
    from simcli.duplicate.pairs import elo_from_score

    lines = [f"ratings ({data['method']} intervals, 95%):",
             f"{'rank':>4}  {'strategy':<24} {'Elo':>6}  {'interval':<16} {'score':>6}  {'games':>6}"]
    for n, row in enumerate(data["ratings"], 1):
        interval = f"[{row['ci_low']:+.0f}, {row['ci_high']:+.0f}]"
        lines.append(f"{n:>4}  {row['strategy']:<24} {row['rating']:+6.0f}  {interval:<16} {row['score']:6.3f}  "
                     f"{row['games']:>6,}")
    lines += ["", "matches (score and Elo of A; pairs with A's points 0/0.5/1/1.5/2):"]
    for m in data["matches"]:
        # From the scores: the JSON has null for the infinite Elo of a clean sweep.
        elo, lo, hi = (elo_from_score(m[k]) for k in ("score", "score_ci_low", "score_ci_high"))
        lines.append(f"  {m['a']} vs {m['b']}: {m['score']:.3f} [{m['score_ci_low']:.3f}, {m['score_ci_high']:.3f}]"
                     f"  Elo {fmt_elo(elo)} [{fmt_elo(lo)}, {fmt_elo(hi)}]  pairs "
                     + "/".join(str(c) for c in m["pentanomial"]))
    lines += ["", *head_to_head_lines(data)]
    lines += ["", f"Saved: {folder}/ratings.json, ratings.csv, matches.csv, ratings.png"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- ladder
def ladder_figure(data: dict[str, Any]) -> Figure:
    """The rungs on the Elo axis with their intervals (weakest at the bottom, greedy = 0 marked) beside each
    neighbour match's upset rate with its interval."""
    rows = data["ratings"]
    spec = data["spec"]
    fig = new_figure(11.0, max(3.8, 1.8 + 0.5 * len(rows)))
    ax = fig.add_subplot(1, 2, 1)
    rating_panel(ax, list(range(len(rows))), [row["elo"] for row in rows],
                 [row["elo"] - row["ci_low"] for row in rows], [row["ci_high"] - row["elo"] for row in rows],
                 [row["rung"] + ("" if row["fair"] else " (cheats)") for row in rows],
                 f"Elo ({data['anchor']} = 0), 95% bootstrap interval", "ratings")
    for n, row in enumerate(rows):
        ax.annotate(f"{row['elo']:+.0f}", (row["elo"], n), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=7)
    ax2 = fig.add_subplot(1, 2, 2)
    ups = data["neighbours"]
    x = list(range(len(ups)))
    share = [u["share"] for u in ups]
    ax2.errorbar(x, share, yerr=[[u["share"] - u["ci_low"] for u in ups], [u["ci_high"] - u["share"] for u in ups]],
                 fmt="o", color="C3", ecolor="C3", capsize=4)
    ax2.axhline(0.5, color="0.6", linestyle=":", linewidth=1)
    ax2.set_xticks(x, [f"{u['weaker']}\nvs {u['stronger']}" for u in ups], fontsize=7)
    ax2.set_xlim(-0.5, len(ups) - 0.5)
    ax2.set_ylim(0, max(0.6, *(u["ci_high"] + 0.05 for u in ups)))
    ax2.set_ylabel("weaker rung's score (ties half), 95%")
    ax2.set_title("neighbour upsets: how often the weaker rung wins a game", fontsize=9)
    ax2.grid(axis="y", alpha=0.3)
    fig.suptitle(f"ladder, variant {spec['variant']}: {', '.join(spec['rungs'])}; {2 * spec['pairs']:,} games a "
                 f"neighbour match, {2 * spec['jump_pairs']:,} a jump, seed {spec['seed']}", fontsize=9)
    return fig


def save_ladder(out: Path, data: dict[str, Any]) -> None:
    """The ladder's results files (:data:`LADDER_FILES`), each written atomically."""
    from simcli.duplicate.ladder_results import markdown_report

    write_files(out, {"ratings.json": json_bytes(data), "ratings.csv": csv_bytes(data["ratings"]),
                      "neighbours.csv": csv_bytes(data["neighbours"]), "matches.csv": csv_bytes(data["matches"]),
                      "ladder.md": markdown_report(data).encode()})
    save_figure(ladder_figure(data), out / "ladder.png")


def ladder_text(data: dict[str, Any], out: Path) -> str:
    """The ladder's report as printed: its Markdown and the files saved."""
    from simcli.duplicate.ladder_results import markdown_report

    return markdown_report(data) + f"\nSaved: {out}/" + ", ".join(LADDER_FILES)
