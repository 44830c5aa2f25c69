"""Training data from the search (``simcli train data``): seeded games in which a search player's every weighed
decision is written down, each candidate with the search's value for it.

A data folder holds ``data.json`` (the settings, the command, the rule set and its digest, the feature version) and
one Parquet file per chunk of consecutive games, ``chunk-00012.parquet``, with a done-marker ``done-00012.json``
(its rows, games, CPU seconds and SHA-256) written after it, both atomically (:func:`simcli.runs.storage.
atomic_write_bytes`). Running the command again on the folder plays only the chunks without a marker (the folder
resumes); :func:`check_data` reads every chunk against its marker. Chunks are played on the run backends (local
processes or Dask, :mod:`simcli.runs.backends`); chunk ``k`` is the same games whoever plays it, since game ``i``
depends on the seed and ``i`` alone (:mod:`simcli.primitives.seeding`).

A row is one candidate of one searched decision: the game, seat, deal, turn and kind, the candidate's index (0: the
heuristic's own choice), whether the search chose it, the worlds it was played in, its mean deal margin and that
mean's standard error, and its features (:func:`simcli.strategies.learnt.net_features.decision_features`, from the
seat's ``PlayerView`` alone). The search is read from outside: a recording seat (:mod:`simcli.players.seats`) hands
every call to the search player unchanged and reads its search record (:class:`~simcli.players.search_record.Weighed`)
after each decision, so the games are the search player's own.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simcli import __version__
from simcli.engine.game import play_seated_game
from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import best_heuristic
from simcli.players.search_record import Weighed
from simcli.players.seating import make_strategies
from simcli.players.seats import recording_seats
from simcli.rules.presets import load_rules
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import Backend, ClusterLost, use_backend
from simcli.runs.storage import atomic_write_bytes
from simcli.strategies.learnt.catalogue import Catalogue
from simcli.strategies.learnt.model import rules_digest
from simcli.strategies.learnt.net_features import FEATURE_VERSION, decision_features
from simcli.training.data_schema import folder_problems

#: The data folder's settings file.
SETTINGS = "data.json"

#: Catalogues read from a spec's JSON text, once a process.
_CATALOGUES: dict[str, Catalogue] = {}


def catalogue_of(text: str) -> Catalogue:
    """The catalogue of a spec's JSON text (read once a process)."""
    found = _CATALOGUES.get(text)
    if found is None:
        found = _CATALOGUES[text] = Catalogue.from_dict(json.loads(text))
    return found


def catalogue_text(name: str, variant: str, base: dict[str, str]) -> str:
    """A catalogue (a shipped one's name or a TOML file) as a spec's JSON text, with the data's ``--rule``
    settings as its base; a one-line :class:`DataError` for a bad catalogue or one of another variant."""
    from simcli.strategies.learnt.catalogue import CatalogueError, load_catalogue

    try:
        cat = load_catalogue(name)
    except CatalogueError as exc:
        raise DataError(str(exc)) from None
    if cat.variant != variant:
        raise DataError(f"catalogue {name} is of variant {cat.variant}, not {variant}: use --variant {cat.variant} "
                        "or another catalogue")
    return json.dumps({**cat.to_dict(), **({"base": base} if base else {})})


class _DealLimit(BaseException):
    """Raised from the recording seat to leave a game at its catalogue's deal limit (a BaseException: the engine
    wraps a strategy's Exception as an error of the game)."""


class DataError(ValueError):
    """A data folder that cannot be used: other settings than asked, a damaged chunk, no rows."""


@dataclass(frozen=True)
class DataSpec:
    """What a data folder holds: the rule set (variant and ``--rule`` overrides), the seat strategies, the seed, the
    games and the chunk size. Picklable, so the backends can hand it to their workers."""

    variant: str
    rules: tuple[tuple[str, str], ...]
    strategies: tuple[str, ...]
    seed: int
    games: int
    chunk: int
    #: A catalogue of house rules to draw each game's rules from (issue 47: its table as JSON text, so that the
    #: spec is whole in a worker), or ``""``: every game under :meth:`ruleset`.
    catalogue: str = ""
    #: A strategy whose decisions the recorded seats play while the search weighs each (``simcli train data
    #: --play``: data from the states that player's play reaches), or ``""``: the search's own.
    play: str = ""

    def ruleset(self) -> RuleSet:
        """The rule set the games are played under (with a catalogue: the base its draws change)."""
        return load_rules(self.variant, dict(self.rules))

    def house_rules(self, game: int) -> dict[str, str]:
        """The knobs game ``game`` changes from :meth:`ruleset` (``{}`` without a catalogue): drawn from the game's
        own stream (strategies/learnt/catalogue.py), so the same game has the same rules whoever plays it."""
        if not self.catalogue:
            return {}
        return catalogue_of(self.catalogue).draw(self.seed, game, dict(self.rules))

    @property
    def chunks(self) -> int:
        """Chunks of consecutive games."""
        return -(-self.games // self.chunk)


def default_strategies(rules: RuleSet, search: str = "mc") -> tuple[str, ...]:
    """The search player in the even seats, the variant's heuristic in the odd ones."""
    heuristic = best_heuristic(rules.variant)
    return tuple(search if s % 2 == 0 else heuristic for s in range(rules.num_players))


@dataclass
class ChunkRows:
    """One chunk's rows as columns (``x``: one feature row per candidate), with its games and CPU seconds."""

    index: int
    columns: dict[str, list[Any]]
    x: list[np.ndarray]
    games: int
    cpu: float


COLUMNS = ("game", "seat", "deal", "turn", "kind", "decision", "candidate", "chosen", "worlds", "mean", "se",
           "rules")


def play_chunk(spec: DataSpec, index: int) -> ChunkRows:
    """Play chunk ``index``'s games and return the rows of every searched decision in them."""
    start = time.process_time()
    base = spec.ruleset()
    by_changes: dict[str, RuleSet] = {"{}": base}
    cols: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    xs: list[np.ndarray] = []
    games = range(index * spec.chunk, min((index + 1) * spec.chunk, spec.games))
    limit = catalogue_of(spec.catalogue).deal_limit if spec.catalogue else 0
    decision = 0
    for g in games:
        changes = spec.house_rules(g)
        drawn = json.dumps(changes, sort_keys=True)
        if drawn not in by_changes:
            by_changes[drawn] = load_rules(spec.variant, {**dict(spec.rules), **changes})
        rules = by_changes[drawn]

        def keep(view: PlayerView, kind: str, weighed: Weighed, g: int = g, drawn: str = drawn) -> None:
            nonlocal decision
            if limit and view.deal_index >= limit:
                raise _DealLimit  # a game no team wins under these rules: the deals so far are kept
            x = decision_features(view, kind, weighed.candidates)
            for i in range(len(weighed.candidates)):
                if weighed.means[i] is None:
                    continue  # a challenger the search never played (racing): no value to learn from
                for c, v in zip(COLUMNS, (g, view.seat, view.deal_index, view.turn, kind, decision, i,
                                          i == weighed.chosen, weighed.worlds[i], weighed.means[i],
                                          weighed.errors[i], drawn), strict=True):
                    cols[c].append(v)
                xs.append(x[i])
            decision += 1

        players = make_strategies(spec.strategies, spec.seed, g)
        # the followers get the seats' own streams: a player that draws no random numbers (net) plays as ever
        followers = make_strategies((spec.play,) * len(players), spec.seed, g) if spec.play else None
        seated = recording_seats(players, lambda seat: keep, followers)
        # a game stopped at the catalogue's deal limit keeps the rows of its deals so far
        with contextlib.suppress(_DealLimit):
            play_seated_game(rules, seated, spec.strategies, spec.seed, g)
    return ChunkRows(index, cols, xs, len(games), time.process_time() - start)


def _chunk_bytes(rows: ChunkRows) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    width = rows.x[0].size if rows.x else 0
    flat = np.asarray(np.concatenate(rows.x) if rows.x else np.zeros(0), dtype=np.float32)
    arrays = {c: pa.array(v) for c, v in rows.columns.items()}
    arrays["x"] = pa.FixedSizeListArray.from_arrays(pa.array(flat), width) if width else pa.array([], pa.null())
    buf = io.BytesIO()
    pq.write_table(pa.table(arrays), buf)
    return buf.getvalue()


def write_chunk(folder: Path, rows: ChunkRows) -> None:
    """Write a chunk's Parquet file, then its done-marker (rows, games, CPU seconds, SHA-256 of the file)."""
    data = _chunk_bytes(rows)
    atomic_write_bytes(folder / f"chunk-{rows.index:05d}.parquet", data)
    marker = {"rows": len(rows.x), "games": rows.games, "cpu_seconds": round(rows.cpu, 3),
              "sha256": hashlib.sha256(data).hexdigest()}
    atomic_write_bytes(folder / f"done-{rows.index:05d}.json", json.dumps(marker).encode())


def settings(spec: DataSpec, command: Sequence[str]) -> dict[str, Any]:
    """The data folder's ``data.json``: the spec, the rule set and its digest, the feature version, the command."""
    rules = spec.ruleset()
    out = {"spec": asdict(spec), "variant": rules.variant, "rules": rules.formatted(),
           "rules_digest": rules_digest(rules), "feature_version": FEATURE_VERSION, "command": list(command),
           "simcli_version": __version__}
    if spec.catalogue:
        out["catalogue"] = json.loads(spec.catalogue)
    return out


def _open_folder(folder: Path, spec: DataSpec, command: Sequence[str]) -> None:
    path = folder / SETTINGS
    if path.exists():
        if bad := folder_problems(folder):
            raise DataError(f"{folder}: " + "; ".join(bad))
        old = json.loads(path.read_text())
        new = json.loads(json.dumps(asdict(spec)))
        was = old.get("spec", {})
        if isinstance(was, dict):
            was = {"play": "", **was}  # folders written before --play
        # More games on the same folder extend it (issue 47: data grows while it is fitted): chunk k is the same
        # games whatever the total, as long as the old total filled its last chunk.
        grows = (isinstance(was, dict) and {**was, "games": new["games"]} == new and new["games"] > was["games"]
                 and was["games"] % new["chunk"] == 0)
        if (was != new and not grows) or old.get("feature_version") != FEATURE_VERSION:
            raise DataError(f"{folder} holds data of other settings ({old.get('spec')}, feature version "
                            f"{old.get('feature_version')}): use another folder or the same settings (a larger -n "
                            f"extends a folder whose games fill their chunks)")
        if grows:
            old["spec"] = new
            old["command"] = list(command)
            atomic_write_bytes(path, (json.dumps(old, indent=2) + "\n").encode())
        return
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (json.dumps(settings(spec, command), indent=2) + "\n").encode())


def done(folder: Path) -> dict[int, dict[str, Any]]:
    """The done-markers of a data folder by chunk index."""
    return {int(p.stem.split("-")[1]): json.loads(p.read_text()) for p in sorted(folder.glob("done-*.json"))}


def generate(folder: str | Path, spec: DataSpec, *, jobs: int = 1, backend: str | Backend = "local",
             command: Sequence[str] = (), progress: Callable[[int], None] | None = None,
             limit: int | None = None, resumed: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play the chunks of ``spec`` that ``folder`` lacks and write them; return a summary of the whole folder.

    ``resumed`` is told the games the folder already has, then ``progress`` the games of each chunk as it is
    written (a progress bar in the command, whose rate and estimate are then this call's); ``limit`` plays at most
    that many chunks in this call (the rest on a later one: the folder resumes).
    """
    out = Path(folder)
    _open_folder(out, spec, command)
    have = done(out)
    todo = [k for k in range(spec.chunks) if k not in have][:limit]
    already = sum(m["games"] for m in have.values())
    if resumed is not None:
        resumed(already)
    elif progress is not None:
        progress(already)
    try:
        with use_backend(backend, jobs) as pool:
            for rows in pool.results(play_chunk, spec, todo):
                write_chunk(out, rows)
                if progress is not None:
                    progress(rows.games)
    except ClusterLost as exc:  # the same command plays what the folder lacks
        raise exc.keep(f"{summary(out)['chunks']} finished chunk(s) are kept in {out}", list(command)[1:]) from None
    return summary(out)


def summary(folder: str | Path) -> dict[str, Any]:
    """A data folder's games, chunks, rows and CPU seconds so far."""
    marks = done(Path(folder))
    return {"chunks": len(marks), "games": sum(m["games"] for m in marks.values()),
            "rows": sum(m["rows"] for m in marks.values()),
            "cpu_seconds": round(sum(m["cpu_seconds"] for m in marks.values()), 1)}


def check_data(folder: str | Path) -> list[str]:
    """What is wrong with a data folder (empty: nothing): its settings, each chunk against its marker."""
    out = Path(folder)
    if not (out / SETTINGS).exists():
        return [f"{out}: no {SETTINGS} (not a data folder)"]
    if problems := folder_problems(out):
        return problems
    for k, marker in done(out).items():
        path = out / f"chunk-{k:05d}.parquet"
        if not path.exists():
            problems.append(f"{path.name}: missing (its done-marker says {marker['rows']} rows)")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != marker.get("sha256"):
            problems.append(f"{path.name}: its SHA-256 differs from its done-marker's (damaged)")
    return problems


def read_data(folder: str | Path) -> tuple[dict[str, Any], Any, np.ndarray]:
    """A checked data folder's settings, its rows (a pandas frame without the features) and the feature matrix."""
    import pyarrow.parquet as pq

    out = Path(folder)
    problems = check_data(out)
    if problems:
        raise DataError(f"{out}: " + "; ".join(problems))
    meta = json.loads((out / SETTINGS).read_text())
    frames, xs = [], []
    for k in sorted(done(out)):
        table = pq.read_table(out / f"chunk-{k:05d}.parquet")
        if table.num_rows == 0:
            continue
        x = table.column("x").combine_chunks()
        xs.append(np.asarray(x.flatten().to_numpy(), dtype=np.float32).reshape(table.num_rows, -1))
        frame = table.drop(["x"]).to_pandas()
        if "rules" not in frame:  # a folder of one rule set
            frame["rules"] = "{}"
        frame["decision"] = frame["decision"] + 1_000_000 * k  # decisions are numbered within a chunk
        frames.append(frame)
    if not frames:
        raise DataError(f"{out}: no searched decisions recorded yet")
    import pandas as pd

    return meta, pd.concat(frames, ignore_index=True), np.concatenate(xs)
