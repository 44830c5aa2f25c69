"""Golden playthroughs: seeded games whose every decision and event is pinned byte for byte in tests/data/.

Each playthrough is the ``simcli play --trace`` JSON-lines file of one seeded game (every variant; 2, 3, 4 and 6
players; random, heuristic and ``mc`` seats; several house-rule knobs), and each run playthrough is the CSV tables
of a small ``simcli run``. ``tests/test_playthroughs.py`` replays them and fails on the first byte that differs, so
a refactor of the engine or the strategies that is meant to change nothing is checked to change nothing (the
OpenSpiel "playthrough" idea).

    python scripts/playthroughs.py            # check every playthrough against tests/data (exit 1 on a difference)
    python scripts/playthroughs.py --update   # rewrite them (only when a change of the games is intended)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

#: name -> the ``simcli play`` arguments of one game (the trace file is added).
GAMES: dict[str, list[str]] = {
    "classic-greedy": ["--variant", "classic", "--seed", "1", "--strategies", "greedy"],
    "classic-random-greedy": ["--variant", "classic", "--seed", "2", "--strategies", "random,greedy,random,greedy"],
    "classic-2p": ["--variant", "classic", "--seed", "3", "--rule", "num_players=2", "--rule", "team_size=1"],
    "classic-3p": ["--variant", "classic", "--seed", "4", "--rule", "num_players=3", "--rule", "team_size=1"],
    "classic-6p": ["--variant", "classic", "--seed", "5", "--rule", "num_players=6"],
    "classic-6p-pairs": ["--variant", "classic", "--seed", "6", "--rule", "num_players=6", "--rule", "team_size=2"],
    "classic-knobs": ["--variant", "classic", "--seed", "7", "--strategies", "greedy,random,greedy,random",
                      "--rule", "going_out_bonus=300", "--rule", "draw_count=2",
                      "--rule", "partial_draw_allowed=false", "--rule", "ask_partner_permission=REQUIRED"],
    "classic-mc": ["--variant", "classic", "--seed", "8", "--strategies", "mc:samples=2,greedy,mc:samples=2,greedy",
                   "--rule", "max_hands=1"],
    "ponytail-ponytail-greedy": ["--variant", "ponytail", "--seed", "9", "--strategies",
                                 "ponytail,greedy,ponytail,greedy"],
    "ponytail-hand-empty": ["--variant", "ponytail", "--seed", "10", "--strategies", "ponytail",
                            "--rule", "pony_unlock=HAND_EMPTY", "--rule", "new_meld_after_closed_canasta=false"],
    "ponytail-6p": ["--variant", "ponytail", "--seed", "11", "--strategies", "ponytail", "--rule", "num_players=6"],
    "americana-random": ["--variant", "americana", "--seed", "12", "--strategies",
                         "americana,random,americana,random", "--rule", "max_hands=3"],
    "americana-draw2": ["--variant", "americana", "--seed", "13", "--strategies", "americana",
                        "--rule", "draw_count=2", "--rule", "max_hands=3"],
    "americana-no-dead-card": ["--variant", "americana", "--seed", "8852", "--strategies", "americana",
                               "--rule", "empty_pile_no_dead_card=true", "--rule", "max_hands=2"],
    "americana-mc": ["--variant", "americana", "--seed", "14", "--strategies",
                     "mc:samples=2,americana,mc:samples=2,americana", "--rule", "max_hands=1"],
    "spanish-pairs": ["--variant", "spanish", "--seed", "15", "--strategies", "spanish"],
    "spanish-trios": ["--variant", "spanish", "--seed", "16", "--strategies", "spanish", "--rule", "num_players=6"],
    "spanish-individual-3p": ["--variant", "spanish", "--seed", "17", "--strategies", "spanish",
                              "--rule", "num_players=3", "--rule", "team_size=1"],
    "spanish-random": ["--variant", "spanish", "--seed", "18", "--strategies", "random,spanish,random,spanish",
                       "--rule", "max_hands=2"],
    "spanish-mc": ["--variant", "spanish", "--seed", "19", "--strategies", "mc:samples=2,spanish,mc:samples=2,spanish",
                   "--rule", "max_hands=1"],
    "handfoot-greedy": ["--variant", "handfoot", "--seed", "24", "--strategies", "greedy,random,greedy,random",
                        "--rule", "max_hands=2"],
    "handfoot-2p": ["--variant", "handfoot", "--seed", "25", "--strategies", "greedy",
                    "--rule", "num_players=2", "--rule", "max_hands=2"],
    "handfoot-heuristic": ["--variant", "handfoot", "--seed", "26", "--strategies", "handfoot,greedy",
                           "--rule", "max_hands=2"],
    "handfoot-6p-red-penalty": ["--variant", "handfoot", "--seed", "27", "--strategies", "handfoot",
                                "--rule", "num_players=6", "--rule", "threes_mode=RED_PENALTY",
                                "--rule", "red_three_in_hand_value=-500", "--rule", "max_hands=1"],
    "handfoot-mc": ["--variant", "handfoot", "--seed", "28", "--strategies", "mc:samples=2,handfoot",
                    "--rule", "max_hands=1"],
}

#: name -> the ``simcli run`` arguments of a small run (``--format csv`` and the folder are added).
RUNS: dict[str, list[str]] = {
    "run-classic": ["--variant", "classic", "--games", "12", "--seed", "20", "--jobs", "2"],
    "run-ponytail-rotated": ["--variant", "ponytail", "--games", "6", "--seed", "21", "--jobs", "2",
                             "--strategies", "ponytail,greedy,ponytail,greedy", "--rotate-seats"],
    "run-americana": ["--variant", "americana", "--games", "6", "--seed", "22", "--jobs", "1",
                      "--strategies", "americana"],
    "run-spanish": ["--variant", "spanish", "--games", "8", "--seed", "23", "--jobs", "2", "--strategies", "spanish"],
}

#: The tables of a run playthrough (CSV, as ``--format csv`` writes them).
RUN_TABLES = ("games.csv", "deals.csv")


def simcli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run ``python -m simcli ARGS`` (this interpreter; ``env`` may put a compiled build first on the path)."""
    done = subprocess.run([sys.executable, "-m", "simcli", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"simcli {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")


def produce(name: str, work: Path, env: dict[str, str] | None = None) -> dict[str, bytes]:
    """Play playthrough ``name`` in ``work`` and return its files (golden file name -> bytes)."""
    if name in GAMES:
        trace = work / f"{name}.jsonl"
        simcli(["play", *GAMES[name], "--trace", str(trace)], work, env)
        return {f"playthrough-{name}.jsonl": trace.read_bytes()}
    out = work / name
    simcli(["run", *RUNS[name], "--format", "csv", "--out", str(out), "--quiet"], work, env)
    return {f"playthrough-{name}-{table}": (out / table).read_bytes() for table in RUN_TABLES}


def first_difference(expected: bytes, got: bytes) -> str:
    """Where two files first differ: the line number and both lines, shortened."""
    for i, (a, b) in enumerate(zip(expected.splitlines(), got.splitlines(), strict=False), start=1):
        if a != b:
            return f"line {i}: golden {a[:160]!r}, now {b[:160]!r}"
    return f"lengths differ: golden {len(expected)} bytes, now {len(got)} bytes"


def main() -> int:
    """Check or update every playthrough; print one line per difference."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the golden files")
    parser.add_argument("names", nargs="*", help="playthroughs to check (default: all)")
    args = parser.parse_args()
    names = args.names or [*GAMES, *RUNS]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            work = Path(tmp) / name
            work.mkdir()
            for file, data in produce(name, work).items():
                golden = DATA / file
                if args.update:
                    golden.write_bytes(data)
                elif not golden.exists() or golden.read_bytes() != data:
                    bad += 1
                    why = first_difference(golden.read_bytes(), data) if golden.exists() else "no golden file"
                    print(f"{golden.relative_to(ROOT)}: {why}")
    print(f"{'wrote' if args.update else 'checked'} {len(names)} playthroughs; {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
