"""Builds side by side in one run: heuristic hands/s, ``mc`` CPU s a game, and the lean reference loop.

    python scripts/compiled.py build                 # the compiled build in build/compiled
    python scripts/side_by_side.py [--compiled DIR] [--runs N] [--mc-games G]
    python scripts/side_by_side.py --side pure= --side before=/tmp/old-build --side after=build/compiled \\
        --lean ../shared/bench/bench.py --runs 5

Each workload runs on every side in turn (one run of each, then the next round; ``--runs`` rounds), so that the
machine's load weighs on all alike, and the table gives each side's median and the ratio of the medians to the
first side's. A side is ``NAME=DIR``: DIR is put first on PYTHONPATH (empty: the pure-Python package this
interpreter imports, with the checkout). The default sides are ``pure`` and ``compiled`` (``--compiled DIR``).
Heuristics: ``simcli bench --json`` hands/s (bench's own clock, scripts/bench_compare.py; a side named with
"compiled", "before" or "after" must run compiled strategies). Search: scripts/mc_speed.py's CPU seconds a game of
``mc`` (default options) in two seats against the variant's best heuristic, games 0.. of seed 1 (``--mc-games`` of
them a run). ``--lean FILE`` also runs that lean count-vector loop of Classic deals (``python FILE HANDS``, its
hands/s) in every round, and gives each side's Classic greedy hands/s as a fraction of it. The load average
(``os.getloadavg``) is printed before and after, as the figures depend on it.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_compare import bench_once

ROOT = Path(__file__).resolve().parent.parent

#: (variant, strategy, hands per bench run); Hand and Foot with Ponytail's heuristic too, the bar of its own (issue 48)
HEURISTICS = [("classic", "greedy", 2000), ("ponytail", "ponytail", 400), ("americana", "americana", 600),
              ("spanish", "spanish", 600), ("handfoot", "handfoot", 400), ("handfoot", "ponytail", 400)]
#: Variants of the mc workload.
SEARCH = ["classic", "ponytail", "americana", "spanish", "handfoot"]
#: Hands a run of the lean loop plays.
LEAN_HANDS = 20000


def mc_seconds(variant: str, games: int, pythonpath: str) -> float:
    """CPU seconds a game of ``mc`` in two seats (scripts/mc_speed.py), with ``pythonpath`` first on the path."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run([sys.executable, str(ROOT / "scripts" / "mc_speed.py"), variant, str(games)], cwd=cwd,
                             env=env, capture_output=True, text=True, check=True)
    found = re.search(r"([\d.]+) CPU s/game", out.stdout)
    if found is None:
        raise SystemExit(f"unexpected mc_speed output: {out.stdout!r}")
    return float(found.group(1))


def lean_hands_per_s(script: str) -> float:
    """Hands/s of one run of the lean reference loop (``python SCRIPT HANDS``)."""
    path = Path(script).resolve()  # absolute: the loop runs in its own folder (it imports its module from there)
    out = subprocess.run([sys.executable, str(path), str(LEAN_HANDS)], capture_output=True, text=True, check=True,
                         cwd=str(path.parent))
    found = re.search(r"= ([\d,]+) hands/s", out.stdout)
    if found is None:
        raise SystemExit(f"unexpected output of the lean loop: {out.stdout!r}")
    return float(found.group(1).replace(",", ""))


def fmt(x: float) -> str:
    """A figure as the table prints it: thousands separated above 100, two decimals below."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.2f}"


def row(name: str, sides: dict[str, list[float]], unit: str, higher_is_faster: bool) -> str:
    """One markdown table row: each side's median, each later side's speed-up over the first, and every run."""
    medians = {k: statistics.median(v) for k, v in sides.items()}
    first = next(iter(medians.values()))
    cells = [f"{fmt(m)} {unit}" for m in medians.values()]
    ups = [f"**{(m / first if higher_is_faster else first / m):.2f}x**" for m in list(medians.values())[1:]]
    runs = "; ".join(", ".join(fmt(x) for x in v) for v in sides.values())
    return f"| {name} | {' | '.join(cells)} | {' | '.join(ups)} | {runs} |"


def load() -> str:
    """The 1-, 5- and 15-minute load averages."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def parse_sides(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, str]:
    """The sides to compare, name -> PYTHONPATH (absolute; empty for the pure package of the checkout)."""
    raw = args.side or ["pure=", f"compiled={args.compiled}"]
    sides: dict[str, str] = {}
    for spec in raw:
        name, sep, folder = spec.partition("=")
        if not sep or not name:
            parser.error(f"--side {spec!r}: expected NAME=DIR (DIR empty for the pure package)")
        if folder:
            path = Path(folder).resolve()
            if not (path / "simcli").is_dir():
                parser.error(f"no build in {path}: run 'python scripts/compiled.py build {folder}' first")
            folder = str(path)
        sides[name] = folder
    return sides


def compiled_name(name: str) -> bool:
    """Whether a side's name says it is a compiled build (its bench must then run compiled strategies)."""
    return any(word in name for word in ("compiled", "before", "after"))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiled", default=str(ROOT / "build" / "compiled"), help="the compiled build's folder")
    parser.add_argument("--side", action="append", metavar="NAME=DIR", help="a build to run (repeat; see above)")
    parser.add_argument("--lean", metavar="FILE", help="the lean reference loop's script, run in every round")
    parser.add_argument("--runs", type=int, default=3, help="rounds (runs of each side per workload; default 3)")
    parser.add_argument("--mc-games", type=int, default=1, help="mc games per run (default 1; 0: no mc rows)")
    args = parser.parse_args(argv)
    sides = parse_sides(args, parser)
    print(f"load average before: {load()} ({os.cpu_count()} CPUs)")
    rows = []
    lean: list[float] = []
    classic: dict[str, list[float]] = {}
    for variant, strategy, hands in HEURISTICS:
        bench = ["--variant", variant, "--strategy", strategy, "--hands", str(hands), "--seed", "1"]
        runs: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, folder in sides.items():
                out = bench_once(sys.executable, f"PYTHONPATH={folder}", bench)
                if compiled_name(name) and (out["build"], out["strategies_build"]) != ("compiled", "compiled"):
                    raise SystemExit(f"side {name} ran {out['build']} / {out['strategies_build']}")
                runs[name].append(out["hands_per_s"])
            if args.lean and variant == "classic":
                lean.append(lean_hands_per_s(args.lean))
        if variant == "classic":
            classic = runs
        rows.append(row(f"{variant.capitalize()}, `{strategy}` in every seat, {hands:,} hands", runs, "hands/s",
                        True))
    for variant in SEARCH if args.mc_games else []:
        runs = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, folder in sides.items():
                runs[name].append(mc_seconds(variant, args.mc_games,
                                             f"{folder}{os.pathsep}{ROOT}" if folder else str(ROOT)))
        rows.append(row(f"{variant.capitalize()}, `mc` in two seats, CPU s a game ({args.mc_games} a run)", runs,
                        "s", False))
    names = list(sides)
    print(f"| workload | {' | '.join(names)} | {' | '.join(f'{n} / {names[0]}' for n in names[1:])} | runs: "
          f"{'; '.join(names)} |")
    print("|---|" + "---:|" * (2 * len(names) - 1) + "---|")
    print("\n".join(rows))
    if lean:
        med = statistics.median(lean)
        print(f"\nlean count-vector loop (Classic): median {med:,.0f} hands/s (runs: "
              f"{', '.join(f'{x:,.0f}' for x in lean)})")
        for name, values in classic.items():
            print(f"{name}: Classic greedy at {statistics.median(values) / med:.2f} of the lean loop's hands/s")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
