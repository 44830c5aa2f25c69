"""Round-robin tournaments of duplicate matches, stored match by match so they can be resumed.

A tournament folder holds ``tournament.json`` (the settings, written first) and one file per finished match,
``matches/match-I-J.json`` (strategies I < J by their position in the list), written atomically. A resume plays
only the matches without a file, after checking that every file it reads belongs to this tournament and is
intact (its settings, its pairs, their counts and a SHA-256 digest of them). Formats: docs/analysis.md.

The storage (:func:`open_folder`, :func:`write_match`, :func:`read_match`, :func:`stored_spec`) and the resumable
loop over a schedule (:func:`play_schedule`) serve any series of matches described by a :class:`SeriesSpec`: the
round robin here and the ladder of :mod:`simcli.duplicate.ladder` store and verify their matches the same way.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol

from simcli import __version__
from simcli.duplicate.match import MatchState
from simcli.duplicate.pairs import pentanomial, summarize_pairs
from simcli.duplicate.ratings import PRIOR_DRAWS, MatchCount, Ratings, bootstrap_ratings, fit_ratings
from simcli.duplicate.stored_schema import STORED_MATCH, manifest_problem
from simcli.primitives.schema import problem
from simcli.runs.provenance import builds
from simcli.runs.storage import atomic_write_bytes, git_commit
from simcli.stats.confidence import CONFIDENCE

MANIFEST = "tournament.json"
MATCH_DIR = "matches"
SCHEMA = "simcli.tournament/1"
MATCH_SCHEMA = "simcli.match/1"


class TournamentError(RuntimeError):
    """A tournament folder that cannot be used: another tournament, a damaged match file, bad settings."""


class SeriesSpec(Protocol):
    """A series of stored matches (a tournament, a ladder): what its folder is called and what each match is."""

    #: What the series is called in messages ("tournament", "ladder").
    kind: ClassVar[str]
    #: Its manifest file in the folder and that file's schema.
    manifest: ClassVar[str]
    schema: ClassVar[str]

    def as_dict(self) -> dict[str, Any]:
        """JSON form of the settings (the manifest's ``spec``; a resume must agree with it)."""
        ...

    def match_spec(self, i: int, j: int) -> dict[str, Any]:
        """The settings of the match between players ``i`` and ``j`` (as stored in its file)."""
        ...

    def match_pairs(self, i: int, j: int) -> int:
        """The pairs of the match between players ``i`` and ``j``."""
        ...


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that determines a tournament's results (and must match to resume it)."""

    kind: ClassVar[str] = "tournament"
    manifest: ClassVar[str] = MANIFEST
    schema: ClassVar[str] = SCHEMA

    variant: str
    rules: dict[str, str]
    strategies: tuple[str, ...]
    seed: int
    pairs: int

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        d = asdict(self)
        d["strategies"] = list(self.strategies)
        return d

    def match_spec(self, i: int, j: int) -> dict[str, Any]:
        """The settings of the match between strategies ``i`` and ``j`` (as stored in its file)."""
        return {"variant": self.variant, "rules": self.rules, "seed": self.seed, "pairs": self.pairs,
                "a": self.strategies[i], "b": self.strategies[j], "i": i, "j": j}

    def match_pairs(self, i: int, j: int) -> int:
        """Every match of a round robin has the same pairs."""
        return self.pairs

    def schedule(self) -> list[tuple[int, int]]:
        """Every pair of strategies once: (0, 1), (0, 2), ..., (k-2, k-1)."""
        k = len(self.strategies)
        return [(i, j) for i in range(k) for j in range(i + 1, k)]


def match_path(folder: Path, i: int, j: int) -> Path:
    """Where the match between strategies ``i`` and ``j`` is stored."""
    return folder / MATCH_DIR / f"match-{i:02d}-{j:02d}.json"


def _digest(spec: dict[str, Any], half_points: str, counts: list[int]) -> str:
    payload = json.dumps({"spec": spec, "half_points": half_points, "counts": counts}, sort_keys=True).encode()
    return hashlib.sha256(payload).hexdigest()


@dataclass
class StoredMatch:
    """One finished match as stored: A's half-points per pair (game index order) and its game counts."""

    i: int
    j: int
    half_points: list[int]
    wins: int
    ties: int
    losses: int


def write_match(folder: Path, spec: SeriesSpec, m: StoredMatch) -> None:
    """Store a finished match atomically (a reader sees the whole file or none)."""
    ms = spec.match_spec(m.i, m.j)
    text = "".join(str(h) for h in m.half_points)
    data = {"schema": MATCH_SCHEMA, "spec": ms, "half_points": text, "pentanomial": pentanomial(m.half_points),
            "wins": m.wins, "ties": m.ties, "losses": m.losses,
            "sha256": _digest(ms, text, [m.wins, m.ties, m.losses])}
    atomic_write_bytes(match_path(folder, m.i, m.j), (json.dumps(data, indent=1) + "\n").encode())


def read_match(folder: Path, spec: SeriesSpec, i: int, j: int) -> StoredMatch:
    """Read and verify a stored match; a :class:`TournamentError` naming the file says what is wrong."""
    path = match_path(folder, i, j)

    def bad(why: str) -> TournamentError:
        return TournamentError(f"{path} is not a valid match of this {spec.kind} ({why}); delete it and run "
                               f"again with --resume to replay that match")

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise bad(f"unreadable: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != MATCH_SCHEMA:
        raise bad(f"schema is not {MATCH_SCHEMA}")
    if why := problem(data, STORED_MATCH):
        raise bad(why)
    want = spec.match_spec(i, j)
    if data.get("spec") != want:
        found = data.get("spec")
        got = found if isinstance(found, dict) else {}
        keys = sorted(k for k in want if got.get(k) != want[k])
        raise bad("other settings: " + ", ".join(f"{k} {got.get(k)!r} instead of {want[k]!r}" for k in keys))
    pairs = spec.match_pairs(i, j)
    text = data.get("half_points")
    if not isinstance(text, str) or len(text) != pairs or set(text) - set("01234"):
        raise bad(f"half_points must be {pairs} digits 0-4")
    half = [int(c) for c in text]
    if data.get("pentanomial") != pentanomial(half):
        raise bad("pentanomial counts do not match its pairs")
    try:
        wins, ties, losses = int(data["wins"]), int(data["ties"]), int(data["losses"])
    except (KeyError, TypeError, ValueError):
        raise bad("wins, ties and losses missing") from None
    if wins + ties + losses != 2 * pairs or wins * 2 + ties != sum(half):
        raise bad("wins, ties and losses do not add up to its pairs")
    if data.get("sha256") != _digest(want, text, [wins, ties, losses]):
        raise bad("SHA-256 digest does not match its contents")
    return StoredMatch(i=i, j=j, half_points=half, wins=wins, ties=ties, losses=losses)


def open_folder(folder: Path, spec: SeriesSpec, resume: bool, command: list[str] | None = None) -> None:
    """Create the series' folder and its manifest, or (``resume``) check that it holds this very series."""
    manifest = folder / spec.manifest
    if resume:
        if not manifest.exists():
            raise TournamentError(f"nothing to resume: {folder} has no {spec.manifest}")
        stored = stored_spec(folder, spec.manifest)
        mine = spec.as_dict()
        diffs = [f"{k} (folder has {stored.get(k)!r}, now {mine[k]!r})" for k in mine if stored.get(k) != mine[k]]
        if diffs:
            raise TournamentError("cannot resume with different settings: " + "; ".join(diffs))
        return
    if manifest.exists() or (folder / MATCH_DIR).exists():
        raise TournamentError(f"{folder} already holds a {spec.kind}; use --resume to finish it or choose another "
                              f"--out")
    try:
        (folder / MATCH_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"cannot create output folder {folder}: {exc.strerror}") from None
    settings = spec.as_dict()
    players = settings.get("strategies") or settings.get("rungs") or []  # a tournament's strategies, a ladder's rungs
    data = {"schema": spec.schema, "spec": settings, "simcli_version": __version__, "git_commit": git_commit(),
            "build": builds(players), "command": command or sys.argv,
            "created": datetime.now(UTC).isoformat(timespec="seconds")}
    atomic_write_bytes(manifest, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


def stored_spec(folder: Path, manifest: str = MANIFEST) -> dict[str, Any]:
    """The settings recorded in a series' folder (for a resume that does not repeat them); ``manifest`` names the
    file (a tournament's by default)."""
    try:
        data = json.loads((folder / manifest).read_text())
    except (OSError, ValueError, RecursionError):
        raise TournamentError(f"nothing to resume: {folder} has no readable {manifest}") from None
    why = manifest_problem(data, manifest)
    if why:
        raise TournamentError(f"nothing to resume: {folder / manifest} is not a {manifest.split('.')[0]} manifest "
                              f"({why})")
    return dict(data["spec"])


#: Plays the match between players ``i`` and ``j`` (the schedule's order) and returns its pairs.
PlayOne = Callable[[int, int], MatchState]
#: Told about each match as it is settled: its number (from 1), the match, and whether it was stored already.
OnMatch = Callable[[int, StoredMatch, bool], None]


def play_schedule(folder: Path, spec: SeriesSpec, schedule: Sequence[tuple[int, int]], play: PlayOne,
                  on_match: OnMatch) -> list[StoredMatch]:
    """Every match of ``schedule`` in order: a stored one is read and verified (:func:`read_match`), a missing one
    played by ``play(i, j)`` and stored at once (:func:`write_match`), so an interrupted series keeps every
    finished match and a resume plays only the others. ``on_match`` is called after each."""
    finished: list[StoredMatch] = []
    for n, (i, j) in enumerate(schedule, 1):
        reused = match_path(folder, i, j).exists()
        if reused:
            m = read_match(folder, spec, i, j)
        else:
            state = play(i, j)
            m = StoredMatch(i=i, j=j, half_points=list(state.half_points), wins=state.wins, ties=state.ties,
                            losses=state.losses)
            write_match(folder, spec, m)
        finished.append(m)
        on_match(n, m, reused)
    return finished


def results(spec: TournamentSpec, matches: list[StoredMatch], bootstrap: int = 0,
            bootstrap_seed: int = 0) -> dict[str, Any]:
    """Ratings and the per-match table as one JSON-ready object (the ``ratings.json`` contents)."""
    k = len(spec.strategies)
    counts = [MatchCount(m.i, m.j, sum(m.half_points) / 2, 2 * len(m.half_points)) for m in matches]
    ratings: Ratings = (bootstrap_ratings(k, [(m.i, m.j, m.half_points) for m in matches], bootstrap,
                                          bootstrap_seed) if bootstrap else fit_ratings(k, counts))
    points = [0.0] * k
    games = [0] * k
    rows = []
    for m, c in zip(matches, counts, strict=True):
        points[m.i] += c.points
        points[m.j] += c.games - c.points
        games[m.i] += c.games
        games[m.j] += c.games
        s = summarize_pairs(m.half_points, wins=m.wins, ties=m.ties, losses=m.losses)
        rows.append({"a": spec.strategies[m.i], "b": spec.strategies[m.j], "games": s.games, "pairs": s.pairs,
                     "wins": m.wins, "ties": m.ties, "losses": m.losses, "score": s.score,
                     "score_ci_low": s.score_ci_low, "score_ci_high": s.score_ci_high, "elo": _finite(s.elo),
                     "elo_ci_low": _finite(s.elo_ci_low), "elo_ci_high": _finite(s.elo_ci_high),
                     "pentanomial": s.pentanomial})
    table: list[dict[str, Any]] = [{"strategy": name, "rating": ratings.rating[n], "ci_low": ratings.ci_low[n],
              "ci_high": ratings.ci_high[n], "se": ratings.se[n],
              "score": points[n] / games[n] if games[n] else None, "games": games[n]}
             for n, name in enumerate(spec.strategies)]
    table.sort(key=lambda r: -r["rating"])
    return {"schema": SCHEMA, "spec": spec.as_dict(), "method": ratings.method, "confidence": CONFIDENCE,
            "prior_draws": PRIOR_DRAWS, "ratings": table, "matches": rows}


def _finite(x: float) -> float | None:
    return None if math.isnan(x) or math.isinf(x) else float(x)
