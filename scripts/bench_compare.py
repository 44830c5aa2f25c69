"""Hands/s of two simcli builds in one sitting: ``simcli bench --json`` run alternately, medians and their ratio.

    python scripts/bench_compare.py --ref "PYTHONPATH=" --new "PYTHONPATH=build/compiled" -- --variant classic
    python scripts/bench_compare.py --ref-python /path/to/old-venv/bin/python -- --strategy greedy --hands 5000

Each side is a Python interpreter (``--ref-python`` / ``--new-python``, default: this one) with optional
environment settings (``--ref`` / ``--new``, ``NAME=VALUE`` words; ``PYTHONPATH=build/compiled`` puts the compiled
build first). The arguments after ``--`` go to ``simcli bench`` on both sides. Runs alternate ref, new, ref, new,
... (``--runs`` each), so a machine that speeds up or slows down affects both alike; the ratio of the medians of
``hands_per_s`` (bench's own clock: whole games, no interpreter start-up) is printed with every run's figure.
docs/performance.md records the figures measured this way.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

_ENTRY = "import sys; from simcli.cli import main; sys.argv[0] = 'simcli'; sys.exit(main())"


def bench_env(env_words: str) -> dict[str, str]:
    """This process's environment with ``NAME=VALUE`` words applied (``NAME=`` removes NAME)."""
    env = dict(os.environ)
    for word in shlex.split(env_words):
        name, _, value = word.partition("=")
        if value:
            env[name] = value
        else:
            env.pop(name, None)
    return env


def bench_once(python: str, env_words: str, bench_args: list[str]) -> dict[str, float]:
    """One ``simcli bench --json`` run; its JSON line as a dict."""
    env = bench_env(env_words)
    with tempfile.TemporaryDirectory() as cwd:  # no repository sources on the path
        # simcli.cli:main (the console script's entry point) rather than -m simcli, which older commits lack.
        out = subprocess.run([python, "-c", _ENTRY, "bench", "--json", *bench_args], cwd=cwd, env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref-python", default=sys.executable)
    parser.add_argument("--new-python", default=sys.executable)
    parser.add_argument("--ref", default="", help="environment words for the reference, e.g. 'PYTHONPATH='")
    parser.add_argument("--new", default="", help="environment words for the new build")
    parser.add_argument("--runs", type=int, default=5, help="runs of each side (default 5)")
    parser.add_argument("bench_args", nargs="*", help="arguments for simcli bench (after --)")
    args = parser.parse_args(argv)
    figures: dict[str, list[float]] = {"ref": [], "new": []}
    for _ in range(args.runs):
        for side, python, words in (("ref", args.ref_python, args.ref), ("new", args.new_python, args.new)):
            figures[side].append(bench_once(python, words, args.bench_args)["hands_per_s"])
    ref, new = statistics.median(figures["ref"]), statistics.median(figures["new"])
    for side in ("ref", "new"):
        runs = ", ".join(f"{x:,.0f}" for x in figures[side])
        print(f"{side}: median {statistics.median(figures[side]):,.0f} hands/s "
              f"(min {min(figures[side]):,.0f}, max {max(figures[side]):,.0f}; runs: {runs})")
    pairs = sorted(n / r for n, r in zip(figures["new"], figures["ref"], strict=True))
    print(f"new/ref: {new / ref:.2f}x (ratio of medians; pair by pair {pairs[0]:.2f}-{pairs[-1]:.2f}, "
          f"median {statistics.median(pairs):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
