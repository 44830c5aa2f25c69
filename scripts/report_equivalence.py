"""Check that the analysis commands give the same numbers as another simcli source tree on the same runs.

    python scripts/report_equivalence.py --reference OLD_TREE RUN [RUN ...] [--pair RUN_A RUN_B ...]

OLD_TREE is a folder holding a ``simcli`` package (e.g. ``git worktree add /tmp/old COMMIT``); the commands run in
a fresh interpreter with it first on ``PYTHONPATH``, and again with this checkout's. For every run: ``report`` by
team, seat and strategy with every metric the run has (``--metric``), as a table and as CSV; for every pair:
``compare`` (paired when the runs pair, with a bootstrap too, and unpaired) of every metric both runs have; and the
``plot`` figures of a few metrics. Text and figures must be identical byte for byte; CSV cells identical or, for
numbers, equal to a relative (and absolute) 1e-9 (issue 36: means and intervals from per-game sums are added up in
another order than from the observations, which moves the last digits). Prints what was compared and the largest
difference; exits 1 when anything differs beyond that.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 1e-9


@dataclass
class Tally:
    """What was compared: files, numbers (identical or within the tolerance), the largest relative difference."""

    files: int = 0
    numbers: int = 0
    identical: int = 0
    largest: float = 0.0
    problems: list[str] = field(default_factory=list)


def simcli(tree: Path, args: list[str], workdir: Path) -> bytes:
    """``python -m simcli ARGS`` with ``tree`` first on the path; its stdout (raises with its stderr on failure)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-m", "simcli", *args], cwd=workdir, env=env, capture_output=True,
                         check=False)
    if out.returncode != 0:
        raise RuntimeError(f"simcli {' '.join(args)} ({tree}): {out.stderr.decode(errors='replace').strip()}")
    return out.stdout


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def compare_csv(old: bytes, new: bytes, what: str, tally: Tally) -> None:
    """Cell by cell: equal strings, or numbers within :data:`TOLERANCE`."""
    a = [row for row in csv.reader(io.StringIO(old.decode())) if row]
    b = [row for row in csv.reader(io.StringIO(new.decode())) if row]
    tally.files += 1
    if len(a) != len(b) or (a and a[0] != b[0]):
        tally.problems.append(f"{what}: {len(a)} rows {a[:1]} against {len(b)} rows {b[:1]}")
        return
    for i, (ra, rb) in enumerate(zip(a[1:], b[1:], strict=True), 2):
        if len(ra) != len(rb):
            tally.problems.append(f"{what}: line {i} has {len(ra)} cells against {len(rb)}")
            continue
        for col, x, y in zip(a[0], ra, rb, strict=False):
            fx, fy = _number(x), _number(y)
            if fx is not None and fy is not None and not (math.isnan(fx) and math.isnan(fy)):
                tally.numbers += 1
                tally.identical += x == y
                rel = abs(fx - fy) / max(abs(fx), abs(fy), 1e-300) if fx != fy else 0.0
                tally.largest = max(tally.largest, rel if abs(fx - fy) > 1e-300 else 0.0)
                if not math.isclose(fx, fy, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
                    tally.problems.append(f"{what}: line {i} {col}: {x} against {y}")
            elif x != y:
                tally.problems.append(f"{what}: line {i} {col}: {x!r} against {y!r}")


def compare_bytes(old: bytes, new: bytes, what: str, tally: Tally) -> None:
    """Byte for byte (a text table, a figure)."""
    tally.files += 1
    if old != new:
        at = next((i for i, (x, y) in enumerate(zip(old, new, strict=False)) if x != y), min(len(old), len(new)))
        tally.problems.append(f"{what}: differs from byte {at}")


def run_metrics(path: Path) -> list[str]:
    """Every metric the run has: the built-in ones that summarise on it, and the strategy ones of its strategies."""
    from simcli import stats
    from simcli.runs.results import scan

    run = scan(path)
    names = list(stats.METRICS)
    for who in stats.run_strategies(run.games):
        names += [f"{kind}:{who}" for kind in stats.QUALIFIED_METRICS]
    found = []
    for name in names:
        try:
            stats.summarize(run, stats.metric(name))
        except stats.StatsError:
            continue
        found.append(name)
    return found


def check_run(reference: Path, path: Path, tally: Tally, work: Path) -> list[str]:
    """``report`` of one run, both trees; the run's metrics."""
    metrics = run_metrics(path)
    for by in ("team", "seat", "strategy"):
        args = ["report", str(path), "--by", by, "--metric", ",".join(metrics)]
        for fmt, how in (("csv", compare_csv), ("table", compare_bytes)):
            what = f"report {path.name} --by {by} ({fmt})"
            how(simcli(reference, [*args, "--format", fmt], work), simcli(ROOT, [*args, "--format", fmt], work),
                what, tally)
    for name in [m for m in ("deal_score", "deal_turns", "pony_pickup", "margin") if m in metrics][:2]:
        for kind in ("hist", "box"):
            figures = []
            for i, tree in enumerate((reference, ROOT)):
                out = work / f"{i}.png"
                simcli(tree, ["plot", str(path), "--metric", name, "--kind", kind, "--out", str(out)], work)
                figures.append(out.read_bytes())
            compare_bytes(figures[0], figures[1], f"plot {path.name} {name} --kind {kind}", tally)
    return metrics


def check_pair(reference: Path, a: Path, b: Path, metrics: list[str], tally: Tally, work: Path) -> None:
    """``compare`` of two runs, both trees: paired (and with a bootstrap) when they pair, and unpaired."""
    from simcli import stats
    from simcli.runs.results import scan

    paired = not stats.pairing_differences(scan(a).manifest, scan(b).manifest)
    base = ["compare", str(a), str(b), "--metric", ",".join(metrics), "--format", "csv"]
    variants = [["--unpaired"]] + ([[], ["--bootstrap", "200", "--bootstrap-seed", "3"]] if paired else [])
    for extra in variants:
        what = f"compare {a.name} {b.name} {' '.join(extra)}".strip()
        compare_csv(simcli(reference, [*base, *extra], work), simcli(ROOT, [*base, *extra], work), what, tally)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, required=True, help="a folder holding the other simcli package")
    parser.add_argument("runs", nargs="*", type=Path, help="runs to report on")
    parser.add_argument("--pair", nargs=2, type=Path, action="append", default=[], metavar=("A", "B"),
                        help="two runs to compare (repeatable)")
    args = parser.parse_args(argv)
    tally = Tally()
    metrics: dict[Path, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="equivalence-") as tmp:
        work = Path(tmp)
        for path in [*args.runs, *(p for pair in args.pair for p in pair)]:
            if path.resolve() not in metrics:
                metrics[path.resolve()] = check_run(args.reference, path.resolve(), tally, work)
                print(f"{path}: report and plots compared ({len(metrics[path.resolve()])} metrics)", flush=True)
        for a, b in args.pair:
            both = [m for m in metrics[a.resolve()] if m in metrics[b.resolve()]]
            check_pair(args.reference, a.resolve(), b.resolve(), both, tally, work)
            print(f"{a} against {b}: compared ({len(both)} metrics)", flush=True)
    print(f"{tally.files} outputs, {tally.numbers:,} numbers: {tally.identical:,} identical, "
          f"{tally.numbers - tally.identical:,} within {TOLERANCE:g} (largest relative difference "
          f"{tally.largest:.2g}); {len(tally.problems)} difference(s) beyond it")
    for line in tally.problems[:40]:
        print("  " + line)
    return 1 if tally.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
