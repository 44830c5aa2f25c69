"""Instructions per hand of ``simcli bench`` builds, counted by valgrind (steadier than timings on a busy machine).

    python scripts/bench_instructions.py --side pure "PYTHONPATH=" --side compiled "PYTHONPATH=build/compiled" \\
        -- --variant classic --strategy greedy --seed 1

Each side is a name and ``NAME=VALUE`` environment words (as in scripts/bench_compare.py). For each side,
``simcli bench --json`` runs twice under ``valgrind --tool=callgrind``, with ``--hands`` ``--small`` and ``--large``
(default 200 and 700): the difference of the instruction counts over the difference of the hands played is the
cost of a hand with interpreter start-up, imports and the first game's set-up taken out. Both runs play the same
seeded games, so the figure is the same on a quiet and on a loaded machine.

    python scripts/bench_instructions.py --side compiled "PYTHONPATH=build/compiled" --mc classic

``--mc VARIANT`` counts a game of ``mc`` instead (scripts/mc_speed.py's workload: game 0 of seed 1, default ``mc``
in seats 0 and 2, the variant's best heuristic in the others): the instructions of importing and playing it minus
those of importing alone.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile

from bench_compare import bench_env

_ENTRY = "import sys; from simcli.cli import main; sys.argv[0] = 'simcli'; sys.exit(main())"
#: Game 0 of seed 1 with mc in seats 0 and 2 (scripts/mc_speed.py), played when argv[1] is "1"; imports alone else.
_MC_ENTRY = """
import sys
from simcli.players.loading import load_strategy
from simcli.players.seating import play_game
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.players.best_heuristic import BEST_HEURISTIC
from simcli.strategies.search.mc import MonteCarlo
rules = load_rules(sys.argv[2])
heuristic = load_strategy(BEST_HEURISTIC[sys.argv[2]])
if sys.argv[1] == "1":
    table = [MonteCarlo(seat_rng(1, 0, s)) if s % 2 == 0 else heuristic(seat_rng(1, 0, s))
             for s in range(rules.num_players)]
    play_game(rules, ["x"] * rules.num_players, 1, 0, strategies=table)
"""


def _callgrind(argv: list[str], env_words: str) -> tuple[int, str]:
    """(instructions, stdout) of ``python ARGV`` under callgrind, run from an empty folder."""
    with tempfile.TemporaryDirectory() as cwd:  # no repository sources on the path
        out = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cwd}/callgrind.out",
                              sys.executable, *argv], cwd=cwd, env=bench_env(env_words), capture_output=True,
                             text=True, check=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output: {out.stderr[-500:]}")
    return int(found.group(1)), out.stdout


def counted(env_words: str, bench_args: list[str], hands: int) -> tuple[int, int]:
    """(instructions, hands played) of one ``simcli bench --json --hands HANDS`` under callgrind."""
    count, stdout = _callgrind(["-c", _ENTRY, "bench", "--json", "--hands", str(hands), *bench_args], env_words)
    return count, json.loads(stdout.strip().splitlines()[-1])["hands"]


def mc_game(env_words: str, variant: str) -> int:
    """Instructions of game 0 of seed 1 with ``mc`` in seats 0 and 2: played minus imports alone."""
    return _callgrind(["-c", _MC_ENTRY, "1", variant], env_words)[0] - _callgrind(["-c", _MC_ENTRY, "0", variant],
                                                                                   env_words)[0]


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", nargs=2, action="append", metavar=("NAME", "ENV"), required=True,
                        help="a build to count: its name and environment words, e.g. compiled 'PYTHONPATH=...'")
    parser.add_argument("--small", type=int, default=200, help="hands of the shorter run (default 200)")
    parser.add_argument("--large", type=int, default=700, help="hands of the longer run (default 700)")
    parser.add_argument("--mc", metavar="VARIANT", help="count a game of mc in this variant instead of bench")
    parser.add_argument("bench_args", nargs="*", help="arguments for simcli bench (after --)")
    args = parser.parse_args(argv)
    if args.mc:
        games = {name: mc_game(words, args.mc) for name, words in args.side}
        for name, value in games.items():
            print(f"{name}: {value / 1e6:,.1f} million instructions for game 0 of seed 1, {args.mc}, mc in seats 0 "
                  f"and 2 ({value / games[args.side[0][0]]:.3f}x {args.side[0][0]})")
        return 0
    if not 0 < args.small < args.large:
        parser.error(f"--small ({args.small}) must be positive and below --large ({args.large})")
    per_hand = {}
    for name, words in args.side:
        (i0, h0), (i1, h1) = (counted(words, args.bench_args, n) for n in (args.small, args.large))
        per_hand[name] = (i1 - i0) / (h1 - h0)
        print(f"{name}: {per_hand[name] / 1e6:.3f} million instructions a hand ({h1 - h0} hands: "
              f"{h0} and {h1} played)")
    first = args.side[0][0]
    for name, value in per_hand.items():
        if name != first:
            print(f"{name}/{first}: {value / per_hand[first]:.3f}x the instructions a hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
