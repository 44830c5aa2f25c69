"""What a rule set fixes about the table for every deal (seating, teams, bonus threes, which features a turn must
consult), computed once per rule set: a search player starts thousands of deals (rollouts) with the same rules."""

from __future__ import annotations

from simcli.primitives.cards import BLACK_THREE, IS_WILD, NUM_RANKS, RED_THREE, SEVEN
from simcli.rules.ruleset import RuleSet


class TableLayout:
    """What a rule set fixes about the table for every deal: seating, teams, bonus threes (computed once)."""

    __slots__ = ("rules", "n_players", "n_teams", "team_of", "step", "members", "is_bonus_three", "close_at",
                 "permission", "permission_required", "turn_start_hooks", "discard_rules", "lifts", "discard_freezes",
                 "hidden_canastas", "finish_bonuses")

    def __init__(self, rules: RuleSet):
        self.rules = rules
        p = self.n_players = rules.num_players
        t = self.n_teams = p // rules.team_size
        self.team_of: tuple[int, ...] = tuple(s % t for s in range(p))
        self.step = 1 if rules.play_direction == "CW" else -1
        self.members: tuple[tuple[int, ...], ...] = tuple(
            tuple(s for s in range(p) if s % t == team) for team in range(t))
        self.is_bonus_three: tuple[bool, ...] = tuple(
            (r == RED_THREE and rules.threes_mode != "RED_PENALTY")  # RED_PENALTY: red threes stay in hand
            or (r == BLACK_THREE and rules.threes_mode == "AMERICAN_COLOUR_TABLE")
            for r in range(NUM_RANKS))
        #: Size at which a meld is a closed canasta set aside, freeing its slot for a new meld of the rank
        #: (``new_meld_after_closed_canasta``, RULES.md A-PT-18); None: one meld per rank for the whole deal.
        self.close_at: int | None = (
            rules.meld_max_size if rules.new_meld_after_closed_canasta and rules.meld_max_size else None)
        self._init_turn_flags(rules)

    def _init_turn_flags(self, rules: RuleSet) -> None:
        """The "is this feature on" flags a deal's turns test (simcli.engine.deal.Deal, simcli.engine.core.Engine)."""
        r = rules
        #: Whether "may I go out?" is part of the rules (a partner to ask), and whether it must be asked.
        self.permission = r.ask_partner_permission != "OFF" and r.team_size > 1
        self.permission_required = r.ask_partner_permission == "REQUIRED"
        #: Whether turns need the start-of-turn step at all (Classic does not).
        self.turn_start_hooks = bool(
            r.go_out_not_same_turn_as_required_canasta or r.dealt_threes_laid == "FIRST_TURN" or r.pony_size
            or r.wing_sizes or r.may_hold_one_three_before_opening)
        self.discard_rules = bool(r.discard_restrictions or r.empty_pile_no_dead_card)
        #: Whether a bar can leave no discard, so that bars lift (simcli.engine.judge.DISCARD_LIFTS): the dead-rank
        #: bar on an empty pile (A-AM-4d), and the three bar for a hand of threes only (black threes kept under
        #: threes_mode=RED_BONUS, or a held three; docs/rules.md, the simcli note below §3.6). No other bar can.
        self.lifts = bool(r.empty_pile_no_dead_card or "NO_THREE_UNLESS_OUT" in r.discard_restrictions)
        #: Whether a discard of each rank freezes the pile.
        self.discard_freezes: tuple[bool, ...] = tuple(
            (IS_WILD[c] and r.freeze_on_wild_discard) or (c == SEVEN and r.seven_freezes_pile == "UPCARD_AND_DISCARD")
            for c in range(NUM_RANKS))
        self.hidden_canastas = r.hidden_canasta_bonus is not None
        # Corte rápido and terremoto are Spanish: recorded (state, results, trace) only in the Spanish game or
        # in a rule set that pays either bonus, so that no other variant shows the flags.
        self.finish_bonuses = r.variant == "spanish" or bool(r.quick_finish_bonus or r.terremoto_bonus)


_LAYOUTS: dict[int, TableLayout] = {}


def table_layout(rules: RuleSet) -> TableLayout:
    """The (cached) :class:`TableLayout` of a rule set."""
    layout = _LAYOUTS.get(id(rules))
    if layout is None or layout.rules is not rules:
        if len(_LAYOUTS) > 64:
            _LAYOUTS.clear()
        layout = _LAYOUTS[id(rules)] = TableLayout(rules)
    return layout
