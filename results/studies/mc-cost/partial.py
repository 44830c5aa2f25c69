"""The score so far of an unfinished ``simcli match --out DIR``: its verified batches from the first on.

Usage: ``python partial.py DIR``. Reads the folder's manifest and batch files as ``--resume`` does (a batch whose
digest does not match the match's settings is left out), keeps the batches 0, 1, ... up to the first missing one
(so the pairs are game indices 0.. of the seed, a prefix of the full match) and prints the same score and Elo line
as ``simcli match``, with the pairs it covers.
"""

from __future__ import annotations

import sys
from pathlib import Path

from simcli.duplicate.match import MatchState
from simcli.duplicate.match_store import MatchSpec, read_batches, stored_spec


def main(argv: list[str]) -> None:
    """Print the partial score of the match folder ``argv[0]``."""
    folder = Path(argv[0])
    spec = MatchSpec(**stored_spec(folder))
    good, bad = read_batches(folder, spec)
    for line in bad:
        print(line, file=sys.stderr)
    state = MatchState()
    k = 0
    while k in good:
        state.add(good[k])
        k += 1
    if not state.half_points:
        raise SystemExit(f"{folder}: no finished batch yet")
    s = state.summary()
    print(f"{spec.a} vs {spec.b}, {spec.variant}, seed {spec.seed}: {s.games:,} of {2 * spec.pairs:,} games "
          f"({s.pairs:,} pairs, game indices 0-{s.pairs - 1}): {spec.a} won {s.wins}, tied {s.ties}, lost {s.losses}")
    print(f"score of {spec.a}: {s.score:.3f} [{s.score_ci_low:.3f}, {s.score_ci_high:.3f}]; "
          f"Elo difference: {s.elo:+.0f} [{s.elo_ci_low:+.0f}, {s.elo_ci_high:+.0f}]")


if __name__ == "__main__":
    main(sys.argv[1:])
