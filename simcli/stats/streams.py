"""Reducing the deals table as it is read: each row is placed in its unit (a game: ``game_index`` and ``rotation``)
and a quantity of the rows is added up per unit (and group), with the counts of its values, which is all the
estimators of :mod:`simcli.stats.sums` need. Memory grows with the games (a sum and a count per game and quantity),
not with the deals table's rows or width.

A :class:`DealSource` reads a run opened by :func:`simcli.runs.results.scan` a few columns at a time (its
``deal_batches``), or a deals DataFrame in memory (a run from :func:`simcli.results.load`, a table built by hand) in
slices; the results are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.sums import ValueCounter, ValueCounts
from simcli.stats.tables import DEAL_KEYS, KEYS, RunLike

__all__ = ["SLICE_ROWS", "PASS_BYTES", "DealSource", "deal_source", "as_source", "Quantity", "Grouping",
           "team_grouping", "Reduced", "reduce_deals", "reduce_in_passes", "quantity_values",
           "team_sums", "select_rows"]

#: Bytes of per-game sums and counts one pass over the deals may hold: :func:`reduce_in_passes` adds up as many
#: quantities at once as fit (all of a report's on a small run, one at a time on a run of millions of games, where
#: reading a column again costs less than holding twelve bytes a game and group for each).
PASS_BYTES = 64 << 20

#: Rows of a slice of an in-memory deals table (the batches of a stored run are its reader's).
SLICE_ROWS = 1 << 17


def _frame_units(deals: pd.DataFrame, games: pd.DataFrame | None = None) -> pd.DataFrame:
    """The units of an in-memory deals table (and of ``games``): game_index, rotation and the deals of each."""
    keys = deals[KEYS].drop_duplicates()
    if games is not None and len(games):
        keys = pd.concat([keys, games[KEYS]], ignore_index=True).drop_duplicates()
    units = keys.astype(np.int64).sort_values(KEYS, ignore_index=True)
    if "deal_index" in deals.columns and len(deals):
        most = deals.groupby(KEYS, sort=False)["deal_index"].max().rename("deals") + 1
        units = units.merge(most.reset_index().astype(np.int64), on=KEYS, how="left")
        units["deals"] = units["deals"].fillna(0).astype(np.int64)
    else:
        units["deals"] = 0
    return units


class DealSource:
    """A deals table read in batches of chosen columns, each row placed in its unit.

    ``units`` holds ``game_index``, ``rotation`` and ``deals`` (how many deals the game has) of every unit, sorted;
    a row whose game is not among them is left out (a stored run is checked: every deal's game is in ``games``).
    """

    def __init__(self, units: pd.DataFrame, columns: Sequence[str],
                 batches: Callable[[list[str]], Iterator[pd.DataFrame]]) -> None:
        self.units = units.reset_index(drop=True)
        self.columns = list(columns)
        self._batches = batches
        gi = self.units["game_index"].to_numpy(np.int64)
        rot = self.units["rotation"].to_numpy(np.int64)
        self.width = int(rot.max()) + 1 if len(rot) else 1
        self._lookup = np.full((int(gi.max()) + 1) * self.width if len(gi) else 0, -1, dtype=np.int64)
        self._lookup[gi * self.width + rot] = np.arange(len(gi))
        #: how many deals each unit has
        self.deals = self.units["deals"].to_numpy(np.int64)
        #: where each unit's deals start among all deals (a deal's slot: its unit's start plus its deal_index)
        self.deal_starts = np.concatenate([[0], np.cumsum(self.units["deals"].to_numpy(np.int64))]).astype(np.int64)

    @property
    def n_units(self) -> int:
        """How many units."""
        return len(self.units)

    def positions(self, frame: pd.DataFrame) -> np.ndarray:
        """Each row's unit (its position in :attr:`units`), -1 for a game that is not there."""
        gi = frame["game_index"].to_numpy(np.int64)
        rot = frame["rotation"].to_numpy(np.int64)
        key = gi * self.width + rot
        inside = (gi >= 0) & (rot >= 0) & (rot < self.width) & (key < len(self._lookup))
        out = np.full(len(key), -1, dtype=np.int64)
        out[inside] = self._lookup[key[inside]]
        return out

    def batches(self, columns: Sequence[str]) -> Iterator[tuple[pd.DataFrame, np.ndarray]]:
        """Batches of ``columns`` (and the keys) with each row's unit; a missing column raises ``KeyError`` (as a
        table in memory would)."""
        wanted = list(dict.fromkeys([*KEYS, *columns]))
        missing = [c for c in wanted if c not in self.columns]
        if missing:
            raise KeyError(missing[0])
        for frame in self._batches(wanted):
            yield frame, self.positions(frame)


def _slices(deals: pd.DataFrame) -> Callable[[list[str]], Iterator[pd.DataFrame]]:
    def batches(columns: list[str]) -> Iterator[pd.DataFrame]:
        for start in range(0, len(deals), SLICE_ROWS):
            yield deals.iloc[start:start + SLICE_ROWS][columns]
    return batches


def deal_source(data: RunLike | pd.DataFrame) -> DealSource:
    """The deals of a run (streamed from its files when it was opened by :func:`simcli.runs.results.scan`, else
    its in-memory table) or of a deals DataFrame, as a :class:`DealSource`."""
    if isinstance(data, pd.DataFrame):
        return DealSource(_frame_units(data), data.columns, _slices(data))
    stream = getattr(data, "deal_batches", None)
    if stream is not None:
        games = data.games
        units = pd.DataFrame({c: games[c].to_numpy(np.int64) for c in (*KEYS, "deals")})
        return DealSource(units, getattr(data, "deal_columns"), stream)  # noqa: B009 - not in RunLike
    return DealSource(_frame_units(data.deals, data.games), data.deals.columns, _slices(data.deals))


def as_source(deals: pd.DataFrame | DealSource) -> DealSource:
    """A deals DataFrame as a :class:`DealSource` (a source as it is)."""
    return deals if isinstance(deals, DealSource) else deal_source(deals)


@dataclass(frozen=True)
class Quantity:
    """A quantity of the deals table to add up per unit.

    ``value(frame)`` gives each row's value and ``where(frame)`` (optional) the rows that count. ``per`` says
    what one observation is: ``row`` (a team-deal), ``deal`` (the team-0 row of each deal, one per deal) or
    ``any`` (a deal, whose value is 1 when ``value`` is true on any of its rows that count; deals without such a
    row are left out). ``twins``: the value is the same in both seat-swapped twins of a deal (the cards and cuts),
    so a rotated run counts each (game_index, deal_index) once, from rotation 0 when it has the deal, as one
    independent unit per game index (rotation 0).
    """

    columns: tuple[str, ...]
    value: Callable[[pd.DataFrame], Any]
    where: Callable[[pd.DataFrame], Any] | None = None
    per: str = "row"
    twins: bool = False


@dataclass(frozen=True)
class Grouping:
    """Groups of team-deal rows: ``labels`` and ``codes(frame, units)``, each row's group (-1: none)."""

    labels: list[str]
    codes: Callable[[pd.DataFrame, np.ndarray], np.ndarray]
    columns: tuple[str, ...] = ("team",)


def team_grouping(teams: int, labels: Sequence[str] | None = None) -> Grouping:
    """Team-deal rows grouped by their team (``labels``: the teams' names, default ``0``, ``1``, ...)."""
    def codes(frame: pd.DataFrame, pos: np.ndarray) -> np.ndarray:
        team = frame["team"].to_numpy(np.int64)
        return np.where((team >= 0) & (team < teams), team, -1)
    return Grouping([str(t) for t in range(teams)] if labels is None else list(labels), codes)


@dataclass
class Reduced:
    """A quantity added up per unit and group: ``sums`` and ``counts`` (units x groups), each group's value
    counts, and the units' ``game_index`` (the cluster) and ``rotation``."""

    game_index: np.ndarray
    rotation: np.ndarray
    sums: np.ndarray
    counts: np.ndarray
    values: list[ValueCounts]
    labels: list[str] = field(default_factory=lambda: ["all"])
    #: the last group holds rows that have none (they count only in the total of every group)
    ungrouped: bool = False

    @property
    def rotated(self) -> bool:
        """Whether an observation comes from a twin (rotation 1): its units are then clustered by game index."""
        return bool((self.counts[self.rotation != 0] > 0).any())

    def group(self, i: int | None = None) -> tuple[np.ndarray, np.ndarray, ValueCounts]:
        """The sums, counts and value counts of group ``i``, or of every group together (``None``)."""
        if i is not None:
            return self.sums[:, i], self.counts[:, i], self.values[i]
        return self.sums.sum(axis=1), self.counts.sum(axis=1), self.values[0].merge(*self.values[1:])

    def per_unit(self, i: int | None = None) -> pd.Series:
        """The mean of each unit with an observation, indexed by (game_index, rotation) in order."""
        sums, counts, _ = self.group(i)
        seen = counts > 0
        index = pd.MultiIndex.from_arrays([self.game_index[seen], self.rotation[seen]], names=KEYS)
        out = pd.Series(sums[seen] / counts[seen], index=index, name="value")
        return out if out.index.is_monotonic_increasing else out.sort_index()


def _add(acc: np.ndarray, idx: np.ndarray, weights: np.ndarray | None) -> None:
    """``acc[idx] += weights`` (or 1) for indices that lie close together (a batch covers a few games)."""
    if not len(idx):
        return
    low = int(idx.min())
    part = np.bincount(idx - low, weights=weights)
    acc[low:low + len(part)] += part


class _Target:
    """Where one quantity's observations go: units (or pairs of twins) x groups, with value counts per group."""

    def __init__(self, q: Quantity, source: DealSource, groups: int) -> None:
        self.q = q
        units = source.units
        self.pairs = q.twins and source.width > 1
        if self.pairs:
            self.game_index = np.unique(units["game_index"].to_numpy(np.int64))
            self.rotation = np.zeros(len(self.game_index), dtype=np.int64)
            # a deal of rotation 1 counts when rotation 0 of its game has no such deal
            first = units[units["rotation"] == 0]
            self.r0_deals = np.zeros(int(self.game_index.max()) + 1 if len(self.game_index) else 0, dtype=np.int64)
            self.r0_deals[first["game_index"].to_numpy(np.int64)] = first["deals"].to_numpy(np.int64)
        else:
            self.game_index = units["game_index"].to_numpy(np.int64)
            self.rotation = units["rotation"].to_numpy(np.int64)
        self.groups = groups
        size = len(self.game_index) * groups
        # Sums of whole numbers stay int32 (exact) while they fit, counts always (a game has a few hundred
        # observations at most): eight bytes a game and group. Rows without a group are rare (a deal of a game the
        # games table lacks): kept aside, and a column of their own only when there are any.
        self.sums: np.ndarray = np.zeros(size, dtype=np.int32)
        self.counts = np.zeros(size, dtype=np.int32)
        self.loose: list[tuple[np.ndarray, np.ndarray]] = []
        self.counter = ValueCounter(groups + 1)
        if q.per == "any":
            self.hit = np.zeros(int(source.deal_starts[-1]), dtype=bool)
            self.seen = np.zeros(int(source.deal_starts[-1]), dtype=bool)

    def add(self, frame: pd.DataFrame, pos: np.ndarray, source: DealSource, grouping: Grouping | None) -> None:
        q = self.q
        keep = pos >= 0
        if q.where is not None:
            keep &= np.asarray(q.where(frame), dtype=bool)
        if q.per == "deal":
            keep &= frame["team"].to_numpy() == 0
        if q.per == "any":
            deal = frame["deal_index"].to_numpy(np.int64)
            keep &= (deal >= 0) & (deal < source.deals[np.maximum(pos, 0)])
            slot = source.deal_starts[pos[keep]] + deal[keep]
            self.seen[slot] = True
            self.hit[slot[np.asarray(q.value(frame), dtype=bool)[keep]]] = True
            return
        target = pos
        if self.pairs:
            gi = frame["game_index"].to_numpy(np.int64)
            rot, deal = frame["rotation"].to_numpy(np.int64), frame["deal_index"].to_numpy(np.int64)
            keep &= (rot == 0) | (deal >= self.r0_deals[np.minimum(gi, len(self.r0_deals) - 1)])
            target = np.searchsorted(self.game_index, gi)
        y = np.asarray(q.value(frame), dtype=float)[keep]
        target = target[keep]
        if grouping is None:
            code = np.zeros(len(y), dtype=np.int64)
        else:  # rows without a group count in the total of every group
            code = grouping.codes(frame, pos)[keep]
            code = np.where((code >= 0) & (code < self.groups), code, self.groups)
            loose = code == self.groups
            if loose.any():
                self.loose.append((target[loose], y[loose]))
        self.counter.add(y, code)
        grouped = code < self.groups
        idx = target[grouped] * self.groups + code[grouped]
        self._add_sums(idx, y[grouped])
        _add(self.counts, idx, None)

    def _add_sums(self, idx: np.ndarray, y: np.ndarray) -> None:
        """Add ``y`` into the sums, as int32 while every sum is a whole number that fits, else as float64."""
        if not len(idx):
            return
        low = int(idx.min())
        part = np.bincount(idx - low, weights=y)
        window = slice(low, low + len(part))
        if self.sums.dtype == np.int32:
            total = self.sums[window] + part
            if np.array_equal(y, np.floor(y)) and float(np.abs(total).max()) < 2 ** 31 - 1:
                self.sums[window] = total
                return
            self.sums = self.sums.astype(float)
        self.sums[window] += part

    def result(self, source: DealSource, labels: list[str]) -> Reduced:
        if self.q.per == "any":
            starts = source.deal_starts

            def per_unit(flags: np.ndarray) -> np.ndarray:
                cum = np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])
                return (cum[starts[1:]] - cum[starts[:-1]]).astype(float)
            sums, counts = per_unit(self.hit), per_unit(self.seen)
            k, n = int(sums.sum()), int(counts.sum())
            values = ValueCounts(np.array([0.0, 1.0]), np.array([n - k, k], dtype=np.int64))
            nz = values.counts > 0
            return Reduced(self.game_index, self.rotation, sums[:, None], counts[:, None],
                           [ValueCounts(values.values[nz], values.counts[nz])], labels)
        shape = (len(self.game_index), self.groups)
        sums, counts = self.sums.reshape(shape), self.counts.reshape(shape)
        counted = [self.counter.total(g) for g in range(self.groups)]
        if not self.loose:
            return Reduced(self.game_index, self.rotation, sums, counts, counted, labels)
        where = np.concatenate([t for t, _ in self.loose])
        y = np.concatenate([v for _, v in self.loose])
        n = len(self.game_index)
        return Reduced(self.game_index, self.rotation,
                       np.column_stack([sums, np.bincount(where, weights=y, minlength=n)]),
                       np.column_stack([counts, np.bincount(where, minlength=n)]),
                       [*counted, self.counter.total(self.groups)], [*labels, ""], ungrouped=True)


def reduce_deals(source: DealSource, quantities: Sequence[Quantity], grouping: Grouping | None = None
                 ) -> list[Reduced]:
    """Add up each quantity per unit (and group of ``grouping``, for ``row`` quantities) in one pass over the
    columns they need."""
    columns: list[str] = []
    for q in quantities:
        columns += [*q.columns, *(["team"] if q.per == "deal" else []),
                    *(["deal_index"] if q.per == "any" or q.twins else [])]
    if grouping is not None:
        columns += list(grouping.columns)
    labels = ["all"] if grouping is None else list(grouping.labels)
    targets = [_Target(q, source, 1 if grouping is None or q.per != "row" else len(labels)) for q in quantities]
    for frame, pos in source.batches(columns):
        for t in targets:
            t.add(frame, pos, source, grouping if t.q.per == "row" else None)
    return [t.result(source, labels if t.q.per == "row" else ["all"]) for t in targets]


def reduce_in_passes(source: DealSource, quantities: Sequence[Quantity], grouping: Grouping | None = None
                     ) -> Iterator[Reduced]:
    """:func:`reduce_deals` over as many quantities at a time as :data:`PASS_BYTES` holds (at least one), yielding
    each quantity's reduction in order as its pass ends (a caller that lets each go holds one pass's sums)."""
    groups = 1 if grouping is None else len(grouping.labels)
    step = max(1, PASS_BYTES // max(1, 8 * groups * source.n_units))
    for i in range(0, len(quantities), step):
        yield from reduce_deals(source, quantities[i:i + step], grouping)


def quantity_values(source: DealSource, q: Quantity) -> np.ndarray:
    """The observations of a ``row`` or ``deal`` quantity (not ``twins``) in the order of the deals table: the values
    alone, eight bytes each, for a figure of their distribution."""
    if q.per not in ("row", "deal") or q.twins:
        raise ValueError(f"quantity_values: a {q.per} quantity{' of twins' if q.twins else ''} has no row order")
    parts = []
    for frame, pos in source.batches([*q.columns, *(["team"] if q.per == "deal" else [])]):
        keep = pos >= 0
        if q.where is not None:
            keep &= np.asarray(q.where(frame), dtype=bool)
        if q.per == "deal":
            keep &= frame["team"].to_numpy() == 0
        parts.append(np.asarray(q.value(frame), dtype=float)[keep])
    return np.concatenate(parts) if parts else np.zeros(0)


def team_sums(source: DealSource, column: str, teams: int) -> pd.DataFrame:
    """Per game, each team's total of ``column`` over the deals: ``game_index``, ``rotation`` and one column per
    team (``0``, ``1``, ...), for every unit of ``source`` (0 where a team has no rows)."""
    (red,) = reduce_deals(source, [Quantity((column,), lambda d: d[column])], team_grouping(teams))
    out = pd.DataFrame({"game_index": red.game_index, "rotation": red.rotation})
    for t in range(teams):
        out[t] = red.sums[:, t]
    return out


def select_rows(source: DealSource, columns: Sequence[str], where: Callable[[pd.DataFrame], Any]) -> pd.DataFrame:
    """The rows for which ``where`` holds, with ``columns`` (and the keys), gathered from every batch (for
    selections of about a row per game, such as the first deal's first player)."""
    parts = [frame[np.asarray(where(frame), dtype=bool)] for frame, _ in source.batches([*DEAL_KEYS, *columns])]
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=list(dict.fromkeys([*DEAL_KEYS, *columns])))
    return pd.concat(parts, ignore_index=True)
