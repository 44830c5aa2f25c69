"""What a rule set fixes about the table for every deal (seating, teams, bonus threes), computed once per rule set."""

from __future__ import annotations

from simcli.primitives.cards import BLACK_THREE, NUM_RANKS, RED_THREE
from simcli.rules.ruleset import RuleSet


class TableLayout:
    """What a rule set fixes about the table for every deal: seating, teams, bonus threes (computed once)."""

    __slots__ = ("rules", "n_players", "n_teams", "team_of", "step", "members", "is_bonus_three", "close_at")

    def __init__(self, rules: RuleSet):
        self.rules = rules
        p = self.n_players = rules.num_players
        t = self.n_teams = p // rules.team_size
        self.team_of: tuple[int, ...] = tuple(s % t for s in range(p))
        self.step = 1 if rules.play_direction == "CW" else -1
        self.members: tuple[tuple[int, ...], ...] = tuple(
            tuple(s for s in range(p) if s % t == team) for team in range(t))
        self.is_bonus_three: tuple[bool, ...] = tuple(
            r == RED_THREE or (r == BLACK_THREE and rules.threes_mode == "AMERICAN_COLOUR_TABLE")
            for r in range(NUM_RANKS))
        #: Size at which a meld is a closed canasta set aside, freeing its slot for a new meld of the rank
        #: (``new_meld_after_closed_canasta``, RULES.md A-PT-18); None: one meld per rank for the whole deal.
        self.close_at: int | None = (
            rules.meld_max_size if rules.new_meld_after_closed_canasta and rules.meld_max_size else None)


_LAYOUTS: dict[int, TableLayout] = {}


def table_layout(rules: RuleSet) -> TableLayout:
    """The (cached) :class:`TableLayout` of a rule set."""
    layout = _LAYOUTS.get(id(rules))
    if layout is None or layout.rules is not rules:
        if len(_LAYOUTS) > 64:
            _LAYOUTS.clear()
        layout = _LAYOUTS[id(rules)] = TableLayout(rules)
    return layout
