"""The skill ladders of several variants side by side: one table, one CSV and one picture.

Usage: ``python side_by_side.py PREFIX LADDER_DIR [LADDER_DIR ...]``: reads each ``simcli ladder`` folder's
``ratings.json`` (written by ``simcli ladder --out DIR``) and writes ``PREFIX.md`` (the tables), ``PREFIX.csv``
(one row per variant and rung) and ``PREFIX.png`` (the ratings of every variant on one Elo axis).

Per variant it reports what the ladder measured (Elo of every rung with greedy = 0, the span from random to the
best fair rung, the gap share) and two measures of luck computed here from the stored duplicate pairs of the
neighbour matches between fair rungs from greedy up (random loses nearly everything and oracle sees the cards, so
their matches say little about luck between players):

* the **upset rate**: the weaker rung's game score (wins plus half the ties), pooled over those matches' pairs;
* the **split rate**: the share of pairs that were split (each partnership won one of the two games, so the
  same cards won whoever held them): a direct reading of how often the cards decide a game between these
  players.

Both get a 95% t-interval over pairs (every pair is its own deal, so pairs are the independent units).
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

from scipy import stats

#: The roles of the rungs, in the ladder's order; a variant's heuristic is matched by position (its third rung
#: when the ladder has one besides greedy).
ROLES = ("random", "greedy", "heuristic", "mc:samples=4", "mc:samples=8", "mc", "oracle")


def roles_of(ladders: list[dict[str, Any]]) -> list[str]:
    """:data:`ROLES`, then any other rung of the ladders (in their order)."""
    out = list(ROLES)
    for d in ladders:
        h = heuristic_of(d)
        out += [role_of(r, h) for r in d["spec"]["rungs"] if role_of(r, h) not in out]
    return out


def role_of(rung: str, heuristic: str) -> str:
    """The role of a rung: its name, or ``heuristic`` for the variant's heuristic (unless that is greedy)."""
    return "heuristic" if rung == heuristic and heuristic != "greedy" else rung


def t_interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95% t-interval of ``values``, rates between 0 and 1 (NaN bounds for fewer than two)."""
    n = len(values)
    mean = sum(values) / n if n else math.nan
    if n < 2:
        return mean, math.nan, math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return mean, max(mean - half, 0.0), min(mean + half, 1.0)  # rates: clipped to [0, 1]


def luck(data: dict[str, Any]) -> dict[str, Any]:
    """Upset and split rates pooled over the neighbour matches between fair rungs from greedy up."""
    elo = {r["rung"]: r["elo"] for r in data["ratings"]}
    fair = {r["rung"] for r in data["ratings"] if r["fair"]}
    upsets: list[float] = []
    splits: list[float] = []
    used = []
    for m in data["matches"]:
        a, b = m["a"], m["b"]
        if m["kind"] != "neighbour" or "random" in (a, b) or not {a, b} <= fair:
            continue
        used.append(f"{a} vs {b}")
        weaker_is_a = elo[a] <= elo[b]
        # pentanomial[k]: pairs in which A scored k/2 points of 2 (k = 0..4); 2 points of 4 halves = a split
        # (or two shared wins, which Canasta games almost never are).
        for k, count in enumerate(m["pentanomial"]):
            points = k / 2 if weaker_is_a else 2 - k / 2
            upsets += [points / 2] * count
            splits += [1.0 if k == 2 else 0.0] * count
    return {"matches": used, "pairs": len(upsets), "upset": t_interval(upsets), "split": t_interval(splits)}


def common_matches(ladders: list[dict[str, Any]]) -> list[str]:
    """A table of the matches every ladder played (the same two players in every variant): per variant the
    weaker player's game score and the split rate, both with t-intervals over pairs."""
    keys = [{(m["a"], m["b"]): m for m in d["matches"]} for d in ladders]
    common = [k for k in keys[0] if all(k in other for other in keys[1:])]
    variants = [d["spec"]["variant"] for d in ladders]
    out = ["Matches every variant played (the same two players; the weaker's game score, then the split rate, "
           "with 95% t-intervals over pairs):", "",
           "| match | " + " | ".join(variants) + " |", "|---|" + "---|" * len(variants)]
    for a, b in common:
        cells = []
        for k in keys:
            m = k[(a, b)]
            halves = [h for h, count in enumerate(m["pentanomial"]) for _ in range(count)]
            score = t_interval([h / 4 for h in halves])
            split = t_interval([1.0 if h == 2 else 0.0 for h in halves])
            cells.append(f"{_p(score[0])} [{_p(score[1])}, {_p(score[2])}]; split {_p(split[0])} "
                         f"[{_p(split[1])}, {_p(split[2])}] ({m['pairs']} pairs)")
        out.append(f"| {a} vs {b} | " + " | ".join(cells) + " |")
    return out


def load(folder: Path) -> dict[str, Any]:
    """A ladder folder's ratings.json, with a clear error when it is missing."""
    path = folder / "ratings.json"
    if not path.is_file():
        raise SystemExit(f"{path}: not found (run `simcli ladder --out {folder}` first)")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def heuristic_of(data: dict[str, Any]) -> str:
    """The variant's heuristic rung: the rung after greedy when it is not a search player (else none)."""
    rungs = data["spec"]["rungs"]
    i = rungs.index("greedy") + 1
    return rungs[i] if i < len(rungs) and rungs[i].split(":")[0] not in ("mc", "ismcts", "oracle") else "greedy"


def _e(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:+.0f}"


def _p(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{x:.3f}"


def main(argv: list[str]) -> int:
    """Read the ladders, write the three outputs."""
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    prefix = Path(argv[0])
    ladders = [load(Path(d)) for d in argv[1:]]
    variants = [d["spec"]["variant"] for d in ladders]
    rows: list[dict[str, Any]] = []
    roles = roles_of(ladders)
    table: dict[str, dict[str, str]] = {role: {} for role in roles}
    for d in ladders:
        v, h = d["spec"]["variant"], heuristic_of(d)
        for r in d["ratings"]:
            role = role_of(r["rung"], h)
            rows.append({"variant": v, "role": role, "rung": r["rung"], "elo": r["elo"], "ci_low": r["ci_low"],
                         "ci_high": r["ci_high"], "games": r["games"], "fair": r["fair"]})
            table.setdefault(role, {})[v] = f"{_e(r['elo'])} [{_e(r['ci_low'])}, {_e(r['ci_high'])}]"
        if h == "greedy":
            table["heuristic"][v] = "(greedy)"
    lines = ["| rung | " + " | ".join(variants) + " |", "|---|" + "---|" * len(variants)]
    for role in roles:
        if table.get(role):
            lines.append(f"| {role} | " + " | ".join(table[role].get(v, "not played") for v in variants) + " |")
    lines += ["", "| variant | pairs a neighbour match | span: random -> best fair rung | gap share "
              "(heuristic -> oracle closed by the best search player) | upset rate | split rate | pairs | "
              "matches pooled |", "|---|---:|---|---|---|---|---:|---|"]
    for d in ladders:
        v, span, gap, lk = d["spec"]["variant"], d["span"], d["gap"], luck(d)
        span_s = (f"{span['low']} -> {span['high']}: {_e(span['elo'])} [{_e(span['ci_low'])}, "
                  f"{_e(span['ci_high'])}]" if span else "-")
        gap_s = (f"{gap['search']}: {gap['share']:.2f} [{gap['ci_low']:.2f}, {gap['ci_high']:.2f}] of "
                 f"{_e(gap['gap_elo'])} Elo" if gap and gap["share"] is not None and gap["ci_low"] is not None
                 else "-")
        up, sp = lk["upset"], lk["split"]
        lines.append(f"| {v} | {d['spec']['pairs']} | {span_s} | {gap_s} | {_p(up[0])} [{_p(up[1])}, {_p(up[2])}] | "
                     f"{_p(sp[0])} [{_p(sp[1])}, {_p(sp[2])}] | {lk['pairs']} | {'; '.join(lk['matches'])} |")
    lines += ["", *common_matches(ladders)]
    prefix.parent.mkdir(parents=True, exist_ok=True)
    prefix.with_suffix(".md").write_text("\n".join(lines) + "\n")
    with prefix.with_suffix(".csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    figure(ladders, prefix.with_suffix(".png"))
    print("\n".join(lines))
    print(f"saved {prefix}.md, .csv, .png")
    return 0


def figure(ladders: list[dict[str, Any]], out: Path) -> None:
    """Every variant's ratings on one Elo axis, rungs by role on the y axis."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.5, 4.8), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    roles = roles_of(ladders)
    for k, d in enumerate(ladders):
        h = heuristic_of(d)
        ys, xs, lo, hi = [], [], [], []
        for r in d["ratings"]:
            ys.append(roles.index(role_of(r["rung"], h)) + (k - (len(ladders) - 1) / 2) * 0.15)
            xs.append(r["elo"])
            lo.append(r["elo"] - r["ci_low"])
            hi.append(r["ci_high"] - r["elo"])
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o-", capsize=3, label=d["spec"]["variant"], color=f"C{k}",
                    linewidth=0.8, markersize=4)
    ax.axvline(0, color="0.6", linestyle=":", linewidth=1)
    names = {"heuristic": "the variant's heuristic", "mc": "mc (16 worlds)", "oracle": "oracle (sees the cards)"}
    ax.set_yticks(range(len(roles)), [names.get(r, r) for r in roles])
    ax.set_xlabel("Elo (greedy = 0), 95% bootstrap interval")
    ax.legend(fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("skill ladders of the four variants (duplicate matches of neighbouring rungs and jumps of two)",
                 fontsize=9)
    fig.savefig(out, dpi=150, metadata={"Software": None})


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
