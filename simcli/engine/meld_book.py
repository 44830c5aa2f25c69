"""The team melds of a deal and their bookkeeping: the base class of :class:`simcli.engine.state.DealState`.

Laying cards on a meld changes more than the meld: the team's canasta counts by type, its clean canastas, the
turn of its first clean one, the cached snapshots strategies read, and (``new_meld_after_closed_canasta``) the
closed canastas set aside. These methods keep all of it in step; :class:`~simcli.engine.state.DealState` declares and
copies the attributes (this class only names the ones it reads and writes, for the type checker).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from simcli.engine.melds import canasta_kind, is_clean_kind
from simcli.engine.table_layout import TableLayout
from simcli.primitives.cards import FOUR, WILD_MELD
from simcli.rules.ruleset import RuleSet


class MeldBook:
    """The meld bookkeeping of a :class:`~simcli.engine.state.DealState` (which holds every attribute named here)."""

    #: Empty: the attributes are DealState's slots. mypy then refuses an assignment to one of them here (it does
    #: not see the subclass), hence the ``type: ignore[misc]`` where a method sets a plain int or bool slot.
    __slots__ = ()
    rules: RuleSet
    layout: TableLayout
    turn: int
    melds: list[list[list[int] | None]]
    canastas: list[dict[str, int]]
    clean_canastas: list[int]
    first_clean_turn: list[int | None]
    new_canasta: bool
    canasta_changes: int
    closed: list[list[tuple[int, int, int, int]]]
    hidden_open: list[int]
    _meld_tables: list[tuple[tuple[int, int, int] | None, ...] | None]
    _meld_dicts: list[Mapping[int, tuple[int, int, int]] | None]

    def rank_has_canasta(self, rank: int) -> bool:
        """Whether any team has a canasta of ``rank`` (for closed-rank knobs)."""
        size = self.rules.canasta_size
        for team_melds in self.melds:
            m = team_melds[rank]
            if m is not None and m[0] + m[1] + m[2] >= size:
                return True
        return any(c[0] == rank for closed in self.closed for c in closed)

    def team_melds(self, team: int) -> list[tuple[int, int, int, int]]:
        """Every meld of a team as ``(rank, naturals, twos, jokers)``: closed canastas set aside first, then the
        melds in the rank slots (by rank). Hidden canastas of a rank come before its other melds, the order
        scoring relies on when it pays the hidden bonus (``TeamPosition.hidden`` names ranks only)."""
        slots = [(rank, m[0], m[1], m[2]) for rank, m in enumerate(self.melds[team]) if m is not None]
        if not self.closed[team]:
            return slots
        hidden = self.hidden_open[team]
        return ([x for x in slots if hidden >> x[0] & 1] + self.closed[team]
                + [x for x in slots if not hidden >> x[0] & 1])

    def meld_table(self, team: int) -> tuple[tuple[int, int, int] | None, ...]:
        """An immutable snapshot of a team's melds, by rank (cached until the melds change)."""
        table = self._meld_tables[team]
        if table is None:
            table = self._meld_tables[team] = tuple(
                None if m is None else (m[0], m[1], m[2]) for m in self.melds[team])
        return table

    def meld_dict(self, team: int) -> Mapping[int, tuple[int, int, int]]:
        """A read-only ``{rank: (naturals, twos, jokers)}`` of a team's melds (cached)."""
        d = self._meld_dicts[team]
        if d is None:
            d = self._meld_dicts[team] = MappingProxyType(
                {r: m for r, m in enumerate(self.meld_table(team)) if m is not None})
        return d

    def add_to_meld(self, team: int, rank: int, naturals: int, twos: int, jokers: int, hidden: bool = False) -> tuple[
            str | None, str | None]:
        """Add cards to a team meld; return its canasta type before and after.

        ``hidden`` marks a meld laid complete from the hand (Spanish hidden canasta). Under
        ``new_meld_after_closed_canasta`` a meld that reaches ``meld_max_size`` is a closed canasta: it moves
        from the rank's slot to :attr:`closed`, so that a new meld of the rank may start.
        """
        melds = self.melds[team]
        m = melds[rank]
        size = self.rules.canasta_size
        if m is None:
            m = melds[rank] = [naturals, twos, jokers]
            before = None
            was_clean = False
        else:
            before = canasta_kind(self.rules, rank, m[0], m[1], m[2]) if m[0] + m[1] + m[2] >= size else None
            was_clean = before is not None and is_clean_kind(rank, m[1], m[2])
            # Not +=: the compiled build adds list items natively only as ``x[i] = x[i] + n``.
            m[0] = m[0] + naturals
            m[1] = m[1] + twos
            m[2] = m[2] + jokers
        table = self._meld_tables[team]
        if table is not None:  # patch the snapshot in place of rebuilding it on the next read
            patched = list(table)
            patched[rank] = (m[0], m[1], m[2])
            self._meld_tables[team] = tuple(patched)
        self._meld_dicts[team] = None
        after = canasta_kind(self.rules, rank, m[0], m[1], m[2]) if m[0] + m[1] + m[2] >= size else None
        if before != after:
            self.canasta_changes += 1  # type: ignore[misc]  # a DealState slot (see __slots__)
            counts = self.canastas[team]
            if before is not None:
                counts[before] -= 1
            if after is not None:
                counts[after] += 1
                if before is None:
                    self.new_canasta = True  # type: ignore[misc]  # a DealState slot
        if after is not None:
            # Cleanliness can change without the type changing (a wild canasta gaining a joker).
            now_clean = is_clean_kind(rank, m[1], m[2])
            if now_clean != was_clean:
                self.clean_canastas[team] += 1 if now_clean else -1
                self.canasta_changes += 1  # type: ignore[misc]  # a DealState slot (see __slots__)
            if now_clean and self.first_clean_turn[team] is None:
                self.first_clean_turn[team] = self.turn
            close_at = self.layout.close_at
            if close_at is not None:
                if m[0] + m[1] + m[2] >= close_at and (rank >= FOUR or rank == WILD_MELD):
                    self._close(team, rank, hidden)
                elif hidden:
                    self.hidden_open[team] |= 1 << rank
        return before, after

    def _close(self, team: int, rank: int, hidden: bool) -> None:
        """Set a closed canasta aside (``new_meld_after_closed_canasta``): the rank's slot becomes free."""
        m = self.melds[team][rank]
        assert m is not None
        entry = (rank, m[0], m[1], m[2])
        bit = 1 << rank
        if hidden or self.hidden_open[team] & bit:
            self.hidden_open[team] &= ~bit
            # Hidden canastas go first, so that scoring (which pays the hidden bonus to the first canasta of a
            # hidden rank) pays it to this one and not to an earlier, ordinary canasta of the same rank.
            self.closed[team].insert(0, entry)
        else:
            self.closed[team].append(entry)
        self.melds[team][rank] = None
        table = self._meld_tables[team]
        if table is not None:
            patched = list(table)
            patched[rank] = None
            self._meld_tables[team] = tuple(patched)
