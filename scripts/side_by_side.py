"""Pure Python against the compiled build, side by side in one run: heuristic hands/s and ``mc`` CPU s a game.

    python scripts/compiled.py build                 # the compiled build in build/compiled
    python scripts/side_by_side.py [--compiled DIR] [--runs N] [--mc-games G]

Each workload runs on the pure package and on the compiled build alternately (pure, compiled, pure, ...; ``--runs``
each), so that the machine's load weighs on both alike, and the table gives each side's median and the ratio of the
medians. Heuristics: ``simcli bench --json`` hands/s (bench's own clock, scripts/bench_compare.py). Search:
scripts/mc_speed.py's CPU seconds a game of ``mc`` (default options) in two seats against the variant's best
heuristic, games 0.. of seed 1 (``--mc-games`` of them a run). The load average (``os.getloadavg``) is printed
before and after, as the figures depend on it.
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

#: (variant, strategy, hands per bench run)
HEURISTICS = [("classic", "greedy", 2000), ("ponytail", "ponytail", 400), ("americana", "americana", 600),
              ("spanish", "spanish", 600)]
#: Variants of the mc workload.
SEARCH = ["classic", "ponytail", "americana", "spanish"]


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


def row(name: str, pure: list[float], compiled: list[float], unit: str, higher_is_faster: bool) -> str:
    """One markdown table row: both medians (and every run) and the compiled build's speed-up."""
    p, c = statistics.median(pure), statistics.median(compiled)
    ratio = c / p if higher_is_faster else p / c
    runs = "; ".join(", ".join(f"{x:,.2f}" if x < 100 else f"{x:,.0f}" for x in side) for side in (pure, compiled))
    fmt = (lambda x: f"{x:,.0f}") if higher_is_faster else (lambda x: f"{x:.2f}")
    return f"| {name} | {fmt(p)} {unit} | {fmt(c)} {unit} | **{ratio:.2f}x** | {runs} |"


def load() -> str:
    """The 1-, 5- and 15-minute load averages."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiled", default=str(ROOT / "build" / "compiled"), help="the compiled build's folder")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side per workload (default 3)")
    parser.add_argument("--mc-games", type=int, default=1, help="mc games per run (default 1)")
    args = parser.parse_args(argv)
    compiled = str(Path(args.compiled).resolve())
    if not (Path(compiled) / "simcli").is_dir():
        parser.error(f"no compiled build in {compiled}: run 'python scripts/compiled.py build' first")
    print(f"load average before: {load()} ({os.cpu_count()} CPUs)")
    rows = []
    for variant, strategy, hands in HEURISTICS:
        bench = ["--variant", variant, "--strategy", strategy, "--hands", str(hands), "--seed", "1"]
        sides: dict[str, list[float]] = {"pure": [], "compiled": []}
        for _ in range(args.runs):
            sides["pure"].append(bench_once(sys.executable, "PYTHONPATH=", bench)["hands_per_s"])
            out = bench_once(sys.executable, f"PYTHONPATH={compiled}", bench)
            if (out["build"], out["strategies_build"]) != ("compiled", "compiled"):
                raise SystemExit(f"the compiled side ran {out['build']} / {out['strategies_build']}")
            sides["compiled"].append(out["hands_per_s"])
        rows.append(row(f"{variant.capitalize()}, `{strategy}` in every seat, {hands:,} hands", sides["pure"],
                        sides["compiled"], "hands/s", True))
    for variant in SEARCH:
        sides = {"pure": [], "compiled": []}
        for _ in range(args.runs):
            sides["pure"].append(mc_seconds(variant, args.mc_games, str(ROOT)))
            sides["compiled"].append(mc_seconds(variant, args.mc_games, f"{compiled}{os.pathsep}{ROOT}"))
        rows.append(row(f"{variant.capitalize()}, `mc` in two seats, CPU s a game ({args.mc_games} a run)",
                        sides["pure"], sides["compiled"], "s", False))
    print("| workload | pure | compiled | compiled speed-up | runs: pure; compiled |")
    print("|---|---:|---:|---:|---|")
    print("\n".join(rows))
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
