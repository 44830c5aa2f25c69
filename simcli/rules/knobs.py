"""The rule knobs of RULES.md §3: names, types, allowed values and one-line help (the value kinds: knob_values).

Every knob is declared once, here. Presets (``simcli/rules/variants/*.toml``) and command
line overrides (``--rule key=value``) are parsed and validated against this table,
so a typo or an out-of-range value fails with one line naming the knob and what
it accepts.
"""

from __future__ import annotations

from typing import Any

# The knob record and its value kinds live in simcli.rules.knob_values; these names are simcli.rules.knobs' API too.
from simcli.rules.knob_values import BY_DEAL_TABLES as BY_DEAL_TABLES
from simcli.rules.knob_values import CANASTA_TYPE_ALIASES as CANASTA_TYPE_ALIASES
from simcli.rules.knob_values import CANASTA_TYPES as CANASTA_TYPES
from simcli.rules.knob_values import MELD_TABLES as MELD_TABLES
from simcli.rules.knob_values import Knob, RuleError


def _k(name: str, kind: str, help: str, **kw: Any) -> Knob:
    return Knob(name=name, kind=kind, help=help, **kw)


#: Every knob the engine implements, in RULES.md §3 order.
KNOBS: tuple[Knob, ...] = (
    # 3.1 table setup and deal
    _k("num_players", "int", "players at the table", lo=2, hi=6),
    _k("team_size", "int", "players per team (partners sit alternately)", lo=1, hi=3),
    _k("table_modes", "modes", "the (players x team size) modes the variant is played in (null = any that makes "
       "equal teams)", nullable=True),
    _k("decks", "int", "54-card decks shuffled together", lo=1, hi=12),
    _k("jokers_per_deck", "int", "jokers in each deck", lo=0, hi=4),
    _k("hand_size", "int", "cards dealt to each player", lo=1, hi=30),
    _k("initial_pile_facedown", "int", "cards placed face down in the pile at the start (under the upcard; with "
       "initial_pile_faceup=0 the top card is face down: see that knob)", lo=0, hi=20),
    _k("initial_pile_faceup", "int", "upcards turned at the start (0 = no upcard: the pile starts empty, or with "
       "initial_pile_facedown > 0 its top card is face down, so it shows no top card and cannot be taken until a "
       "card is discarded on it, RULES.md §1.7)", lo=0, hi=1),
    _k("upcard_cover_ranks", "ranks", "an upcard of these ranks is covered by turning another"),
    _k("upcard_reject_mode", "enum", "what happens to an upcard of upcard_cover_ranks: COVER leaves it in the pile "
       "under the next upcard (upcard_cover_effect applies); BURY puts it back into the stock at a random place and "
       "turns the next card (Hand and Foot after pagat, RULES.md A-HF-9; the place is drawn from the deal's stream "
       "after the shuffle, so the deal's cards stay)", allowed=("COVER", "BURY")),
    _k("upcard_cover_facedown", "int", "cards put face down before each new upcard when an upcard of "
       "upcard_cover_ranks is covered (hidden until the pile is taken; needs initial_pile_faceup=1)", lo=0, hi=5),
    _k("upcard_cover_effect", "enum", "what a covered upcard does to the pile (PREMIADO: frozen like FREEZE, "
       "recorded as a premiado pile)", allowed=("FREEZE", "PREMIADO", "NONE")),
    _k("upcard_freeze_ranks", "ranks",
       "covered upcards of these ranks freeze the pile (upcard_cover_effect FREEZE or PREMIADO)"),
    _k("pony_size", "int", "cards in each player's pony, a second hand picked up later (0 = no pony)", lo=0, hi=30),
    _k("pony_unlock", "enum", "what lets a player pick up the pony (only with pony_size > 0)",
       allowed=("TEAM_FIRST_CANASTA", "OWN_FIRST_CANASTA", "HAND_EMPTY")),
    _k("pony_partner_pickup", "enum", "when partners pick up a pony unlocked by a teammate",
       allowed=("NEXT_TURN_START", "IMMEDIATE_OUT_OF_TURN")),
    _k("must_pick_pony_before_going_out", "bool", "a player must have picked up the pony before going out"),
    _k("unpicked_pony_counts_against", "bool", "cards of ponies never picked up count against their owner"),
    _k("pony_dealer_exact_bonus", "int", "bonus when the pony dealer grabs exactly pony_size * players cards",
       lo=0, hi=100000),
    _k("self_deal_exact_bonus", "int", "bonus to a player's team for each player who grabs exactly hand_size + "
       "pony_size cards when the players deal themselves (Hand and Foot house rule, RULES.md A-HF-21; grab model of "
       "the cut, cut_sigma; scored in the exact_cut part; the grab does not change the cards dealt)",
       lo=0, hi=100000),
    _k("play_direction", "enum", "direction of play", allowed=("CW", "CCW")),
    _k("draw_count", "int", "cards drawn from the stock per turn", lo=1, hi=5),
    _k("partial_draw_allowed", "bool", "take what is left when the stock has fewer than draw_count cards "
       "(false: that draw ends the deal by stock exhaustion, RULES.md A-X-5)"),
    _k("exact_cut_bonus", "int", "bonus for an exact cut (0 = none)", lo=0, hi=100000),
    _k("exact_cut_target", "int", "cards the cutter aims at (null = by exact_cut_target_formula)", lo=1,
       hi=1000, nullable=True),
    _k("exact_cut_target_formula", "enum", "the cut target when exact_cut_target is null: hand_size * players "
       "(+ 1)", allowed=("HAND_X_PLAYERS_PLUS_1", "HAND_X_PLAYERS")),
    _k("cut_by", "enum", "who cuts the deck", allowed=("PLAYER_BEFORE_DEALER", "DEALER")),
    _k("exact_cut_beneficiary", "enum", "team that receives the exact-cut bonus",
       allowed=("CUTTER_TEAM", "DEALER_TEAM")),
    _k("exact_cut_requires_canasta", "enum", "exact-cut bonus without a canasta: kept, void or negated",
       allowed=("NO", "VOID", "NEGATE")),
    _k("cut_sigma", "float", "std. dev. in cards of the human cut model (0 = always exact)", lo=0, hi=100),
    _k("exact_pile_pick_bonus", "int", "bonus to the dealer's team when the dealer picks exactly the initial pile "
       "(facedown + faceup cards; same grab model as the cut)", lo=0, hi=100000),
    # 3.2 melds and canastas
    _k("meld_min_size", "int", "smallest meld", lo=2, hi=7),
    _k("meld_max_size", "int", "largest meld (null = no cap; with a cap canastas are closed)", lo=3,
       hi=30, nullable=True),
    _k("allow_8th_card_when_going_out", "bool", "the player going out may lay one card more than meld_max_size "
       "on a team canasta, also of a closed rank (WP-US house option); needs a meld_max_size and "
       "new_meld_after_closed_canasta=false (otherwise refused on load)"),
    _k("wild_rule", "enum", "naturals/wilds ratio in a meld (DOUBLE_NATURALS: naturals at least twice the wilds, "
       "Hand and Foot after pagat, RULES.md A-HF-4; wild melds ignore the ratio)",
       allowed=("PAGAT", "WIKI", "STRICT_MAJORITY", "AMERICAN", "DOUBLE_NATURALS")),
    _k("max_wilds_per_meld", "int", "most wild cards in one natural-rank meld", lo=0, hi=7),
    _k("min_naturals_before_adding_wild", "int", "naturals a meld must hold before a wild joins it",
       lo=0, hi=7),
    _k("wild_melds_allowed", "bool", "melds of wild cards only"),
    _k("wild_meld_min_start", "int", "wild cards needed to start a wild meld", lo=3, hi=7),
    _k("sevens_wilds_allowed", "bool", "wild cards may join a meld of sevens"),
    _k("black_three_meld_when_going_out", "range", "black-three meld sizes allowed to the player going out",
       lo=3, nullable=True),
    _k("canasta_size", "int", "cards in a canasta", lo=3, hi=15),
    _k("closed_rank_dead_for_all", "bool", "once a canasta of a rank exists, nobody melds that rank"),
    _k("closed_rank_blocks_pile", "bool", "a top card whose rank has a canasta cannot be taken"),
    _k("new_meld_after_closed_canasta", "bool", "a closed canasta (meld_max_size cards) frees its rank for a new "
       "meld (no effect without a meld_max_size; refused with closed_rank_dead_for_all=true)"),
    _k("hidden_canasta_bonus", "int", "bonus for a hidden canasta: a complete canasta laid from the hand at once "
       "as a new meld (null = no hidden canastas)", lo=0, hi=100000, nullable=True),
    _k("hidden_canasta_mode", "enum", "the hidden-canasta bonus replaces or adds to the natural/mixed bonus",
       allowed=("REPLACE", "ADD")),
    _k("black_three_canasta_wins_game", "bool", "a canasta of black threes (melded going out) wins the game"),
    _k("canasta_bonus.natural", "int", "natural canasta bonus", lo=0, hi=100000),
    _k("canasta_bonus.mixed", "int", "mixed canasta bonus", lo=0, hi=100000),
    _k("canasta_bonus.wild", "int", "wild canasta bonus (needs wild_melds_allowed)", lo=0, hi=100000),
    _k("canasta_bonus.sevens", "int", "sevens canasta bonus (null = sevens are ordinary natural/mixed canastas)",
       lo=0, hi=100000, nullable=True),
    _k("canasta_bonus.wild_pure", "int", "wild canasta of one kind only, 7 twos or 7 jokers (null = as wild)",
       lo=0, hi=100000, nullable=True),
    _k("canasta_bonus.wild_all_jokers", "int", "wild canasta holding every joker of the pack (null = as wild)",
       lo=0, hi=100000, nullable=True),
    _k("canasta_bonus.natural_aces", "int", "natural aces canasta (needs aces_special)", lo=0, hi=100000),
    _k("aces_special", "bool", "aces canastas are special: pure aces score canasta_bonus.natural_aces and a pure "
       "aces meld short of a canasta costs incomplete_penalty.pure_aces (false: aces are an ordinary rank for "
       "scoring; mixed_aces_only_in_opening still applies on its own)"),
    _k("mixed_aces_only_in_opening", "bool", "wild cards may join aces only in the team's opening, whatever "
       "aces_special says (a mixed aces meld then scores as an ordinary mixed meld)"),
    _k("incomplete_penalty.pure_aces", "int", "penalty for a pure aces meld short of a canasta", lo=-100000, hi=0),
    _k("incomplete_penalty.sevens", "int", "penalty for a sevens meld short of a canasta (needs canasta_bonus.sevens)",
       lo=-100000, hi=0),
    _k("incomplete_penalty.wild", "int", "penalty for a wild meld short of a canasta", lo=-100000, hi=0),
    _k("hand_rank_penalty.aces", "int", "per player holding 3 or more aces at the end", lo=-100000, hi=0),
    _k("hand_rank_penalty.sevens", "int", "per player holding 3 or more sevens at the end", lo=-100000, hi=0),
    # 3.3 discard pile
    _k("pile_always_frozen", "bool", "the pile is always frozen (natural pair only)"),
    _k("freeze_on_wild_discard", "bool", "a wild card in the pile (discarded, or turned up at the start) freezes it"),
    _k("frozen_until_team_opens", "bool", "the pile is frozen for a team that has not opened"),
    _k("seven_freezes_pile", "enum", "whether sevens freeze the pile",
       allowed=("NONE", "UPCARD_ONLY", "UPCARD_AND_DISCARD")),
    _k("take_methods_unfrozen", "enumset", "ways to take an unfrozen pile",
       allowed=("PAIR", "NAT_WILD", "LAYOFF")),
    _k("first_take_pair_only", "enum", "the first take needs a natural pair",
       allowed=("NONE", "PER_DEAL", "PER_TEAM")),
    _k("castigado_requirement", "enum", "a pile crossed by a wild discard needs a natural pair (PAIR) or three "
       "naturals from the hand (THREE_FROM_HAND)", allowed=("PAIR", "THREE_FROM_HAND")),
    _k("forbid_single_card_pile_with_single_card_hand", "bool",
       "a player holding one card may not take a one-card pile"),
    _k("first_round_pile_restriction", "bool", "in the first round only the first player may take the pile"),
    _k("must_take_pile_after_stock_empty_if_matches", "bool",
       "with the stock empty a player must take an unfrozen pile that matches a team meld"),
    _k("pile_take_count", "int", "cards a take gets from the top of the pile: the top card to the meld, the rest "
       "into the hand; the cards under them stay as the pile (null = the whole pile; Hand and Foot: 7, RULES.md "
       "A-HF-2). Touches the judge's opening count and what the take leaves on the table", lo=1, hi=50,
       nullable=True),
    _k("wild_top_takeable", "bool", "a two or joker on top of the pile may be taken with two more of the same wild "
       "from the hand (twos for a two, jokers for a joker): the three go onto the team's wild meld or start one "
       "(pagat/Whitnack, RULES.md A-HF-8; needs wild_melds_allowed). Touches the judge of a take only"),
    _k("pile_take_requires_team_opened", "bool", "only a team that has opened (melded before) may take the pile "
       "(Hand and Foot house rule, RULES.md A-HF-13); touches the judge of a take"),
    # 3.4 opening
    _k("initial_meld_basis", "enum", "what the initial_meld_table is keyed by (DEAL_NUMBER needs a by-deal "
       "table: HF_BY_DEAL, BY_DEAL_NUMBER or bands from deal 1, else refused on load; RULES.md A-X-6)",
       allowed=("TEAM_SCORE", "DEAL_NUMBER")),
    _k("initial_meld_table", "table", "initial-meld minimum by band"),
    _k("concealed_out_waives_minimum", "bool", "concealed going out after a stock draw needs no minimum"),
    _k("hidden_canasta_satisfies_opening", "bool", "opening melds that include a hidden canasta need no minimum"),
    # 3.5 threes
    _k("threes_mode", "enum", "how threes play and score. RED_BONUS: red threes are bonus cards, laid and replaced "
       "(red_three_* knobs); black threes are ordinary cards kept in hand (black_three_in_hand_value, melded only "
       "going out: black_three_meld_when_going_out). AMERICAN_COLOUR_TABLE: both colours are bonus cards, laid "
       "wherever they enter the hand (dealt, drawn, in a pony or a wing, taken with the pile) and scored by "
       "american_threes_table/sign. may_hold_one_three_before_opening keeps one bonus three (under RED_BONUS a red "
       "one). Under discard_restrictions NO_THREE_UNLESS_OUT a hand of threes only may discard a three "
       "(docs/rules.md, note below §3.6). RED_PENALTY (Hand and Foot house family, RULES.md A-HF-5): red threes are "
       "never laid nor replaced; they stay in hand, are never melded, may be discarded (a red three on top stops the "
       "pile) and each left in a hand or an unpicked pony scores red_three_in_hand_value",
       allowed=("RED_BONUS", "AMERICAN_COLOUR_TABLE", "RED_PENALTY")),
    _k("american_threes_table", "table", "bonus by count of one colour, e.g. '1:100,2:300,3:500,4:1000'"),
    _k("american_threes_sign", "signs", "sign of the threes table with 0, 1 and 2+ canastas (S1: -1,0,1)"),
    _k("may_hold_one_three_before_opening", "bool", "a player may keep one bonus three, dealt or drawn, until the "
       "team opens; it is laid (and replaced) at the player's first turn start after the team opened, or when a wing "
       "arrives; threes from a pony, a wing or the pile are always laid. Outside Americana (threes_mode=RED_BONUS) "
       "only red threes are bonus cards: the one kept is a red three, black threes do not count toward it, and a "
       "red three still held at the deal's end counts 0 in hand"),
    _k("dealt_threes_laid", "enum", "when dealt red threes are laid and replaced",
       allowed=("AFTER_DEAL", "FIRST_TURN")),
    _k("red_three_value", "int", "bonus per red three", lo=0, hi=10000),
    _k("all_red_threes_total", "int", "bonus when one team has every red three (null = no special value)",
       lo=0, hi=100000, nullable=True),
    _k("red_three_totals", "table", "total red-three bonus from a count up, e.g. '5:1000,6:1200' (null = none; "
       "before all_red_threes_total; RULES.md A-CL-4)", nullable=True),
    _k("red_three_negative_if", "enum", "when red threes count against the team",
       allowed=("NEVER", "NO_MELD", "NO_CANASTA")),
    _k("red_three_from_pile_replaced", "bool", "a red three taken with the pile is replaced from the stock (it is "
       "laid either way; under threes_mode=AMERICAN_COLOUR_TABLE a black three taken with the pile too)"),
    _k("red_three_in_hand_value", "int", "value of a red three left in a hand or an unpicked pony under "
       "threes_mode=RED_PENALTY (negative = penalty; Hand and Foot house rules: -500, -300); scoring only",
       lo=-10000, hi=0),
    _k("black_three_in_hand_value", "int", "value of a black three left in hand (negative = penalty; under "
       "threes_mode=AMERICAN_COLOUR_TABLE of any three left in hand)",
       lo=-10000, hi=10000),
    # 3.6 going out
    _k("go_out_requirement", "requirement", "canastas a team needs before it may go out"),
    _k("going_out_requires_discard", "bool", "going out must end with a discard"),
    _k("going_out_bonus", "int", "bonus for going out", lo=0, hi=100000),
    _k("concealed_out_total_bonus", "int", "total going-out bonus when concealed (null = no concealed bonus)",
       lo=0, hi=100000, nullable=True),
    _k("go_out_not_same_turn_as_required_canasta", "bool",
       "no going out in the turn of the event named by go_out_wait_event"),
    _k("go_out_wait_event", "enum", "the event after which going out must wait a turn: the team first meeting "
       "go_out_requirement, or completing its first clean canasta", allowed=("REQUIREMENT", "FIRST_CLEAN")),
    _k("ask_partner_permission", "enum", "asking 'partner, may I go out?': the answer binds (after a yes every "
       "move that cannot go out this turn is refused); REQUIRED: no going out without a yes",
       allowed=("OFF", "OPTIONAL", "REQUIRED")),
    _k("go_out_partners_in_pony", "enum", "every partner must be in their pony (Hand and Foot: the foot) before "
       "a player goes out: PICKED_UP (picked it up), PLAYED_FROM (also started a turn since, or ran into it by "
       "melding: pagat, RULES.md A-HF-7), OFF; touches the going-out check only (no effect with team_size=1)",
       allowed=("OFF", "PICKED_UP", "PLAYED_FROM")),
    _k("canasta_count_bonus", "table", "bonus by number of canastas, e.g. '5:500,7:2000' ('none' = no bonus)",
       nullable=True),
    _k("canasta_count_bonus_cumulative", "bool", "canasta-count bonuses add up (7 canastas: 500 + 2000)"),
    _k("quick_finish_bonus", "int", "bonus for going out on the player's first turn of the deal", lo=0, hi=100000),
    _k("terremoto_bonus", "int", "bonus for going out in one turn, after a stock draw, with no earlier melds of "
       "the player", lo=0, hi=100000),
    _k("discard_restrictions", "enumset", "discards that are not allowed: NO_THREE_UNLESS_OUT a three but as the "
       "going-out discard, NO_WILD_UNLESS_OUT_OR_ONLY_WILDS a wild card while a natural is held (not going out), "
       "EMPTY_PILE_NO_A7_UNLESS_ONLY an ace or seven on an empty pile while another natural is held. Where no card "
       "is left discardable the bars lift in order: empty_pile_no_dead_card's, the A/7 bar (RULES.md A-AM-4d), then "
       "the three bar for a hand of threes only (black threes kept under threes_mode=RED_BONUS; docs/rules.md, note "
       "below §3.6)",
       allowed=("NO_THREE_UNLESS_OUT", "NO_WILD_UNLESS_OUT_OR_ONLY_WILDS", "EMPTY_PILE_NO_A7_UNLESS_ONLY")),
    _k("wing_sizes", "intlist", "wings (talons) set aside at the deal, taken by the first to open ('' = none)"),
    _k("wing_timing", "enum", "when a wing reaches the hand", allowed=("NEXT_TURN", "IMMEDIATE")),
    _k("wing_denied_if_opened_via_pile", "bool", "no wing for a team that opened by taking the pile"),
    _k("wing_after_pile_opening", "enum", "after a pile opening that gets no wing (wing_denied_if_opened_via_pile) "
       "the other team's opener takes the 3 (THREE: the 4 is not given) or the 4 (FOUR)", allowed=("THREE", "FOUR")),
    _k("wing_cutoff_stock_remaining", "int", "no wing once the stock is down to this many cards (null = never)",
       lo=0, hi=1000, nullable=True),
    _k("special_hands", "enumset", "special 14-card hands allowed (scores in special_hand_value.*)",
       allowed=("STRAIGHT", "PAIRS_NATURAL", "PAIRS_WITH_2_7_A", "GARBAGE")),
    _k("special_hand_value.straight", "int", "straight A..K + joker", lo=0, hi=100000),
    _k("special_hand_value.pairs_natural", "int", "seven natural pairs", lo=0, hi=100000),
    _k("special_hand_value.pairs_with_2_7_a", "int", "seven pairs with a pair of 2s, 7s and aces", lo=0, hi=100000),
    _k("special_hand_value.garbage", "int", "two fours and two threes of a kind", lo=0, hi=100000),
    _k("special_hand_requires_team_unopened", "bool", "special hands only while the team has not opened"),
    _k("special_hand_waives_minimum", "bool", "a special hand (of special_hands) needs no initial-meld minimum"),
    _k("special_hand_overrides_team_score", "bool", "a team that went out with a special hand scores its value "
       "only (false: the value is added to the team's normal score: going out, threes, hands)"),
    _k("pairs_wild_pair_ranks", "ranks", "wild ranks whose pair makes PAIRS_WITH_2_7_A (S1: 2; alt. 2,JK)"),
    _k("empty_pile_no_dead_card", "bool", "on an empty pile a card of a dead rank may not be discarded (when then no "
       "card may be, this bar lifts, then the A/7 bar of discard_restrictions: RULES.md A-AM-4d)"),
    # 3.7 end of deal and game
    _k("stock_exhaustion_rule", "enum", "what happens when the stock runs out",
       allowed=("CLASSIC_CONTINUATION", "END_ON_EMPTY_DRAW")),
    _k("last_card_red_three_ends_deal", "bool", "drawing a red three as the last stock card ends the deal (no "
       "discard); when false the deal still ends so if the player is left with one card it may not discard "
       "(A-AM-4c)"),
    _k("meld_points_sign", "enum", "sign of melded card points",
       allowed=("ALWAYS_PLUS", "PLUS_IF_CANASTA_ELSE_MINUS")),
    _k("bonuses_require_canasta", "enum", "red-three and cut bonuses without a canasta",
       allowed=("NO", "NEGATE")),
    _k("game_target", "int", "cumulative score that ends the game (null = no target: the game lasts max_hands "
       "deals, Hand and Foot, RULES.md A-HF-19; needs a max_hands)", lo=1, hi=10**7, nullable=True),
    _k("target_comparison", "enum", "reaching the target: >= (GE) or > (GT)", allowed=("GE", "GT")),
    _k("max_hands", "int", "deals after which the game ends (null = no cap)", lo=1, hi=1000,
       nullable=True),
    _k("tie_policy", "enum", "a tie at the end of the game",
       allowed=("PLAY_ANOTHER_DEAL", "SHARED_WIN")),
)

KNOB_BY_NAME: dict[str, Knob] = {k.name: k for k in KNOBS}
for _knob in KNOBS:
    KNOB_BY_NAME.setdefault(_knob.field, _knob)


#: Knobs added after the shipped learnt models and recorded results were made (issue 48, Hand and Foot), each with the
#: value under which the games are played as before it existed (every preset but handfoot has it). A rule set's
#: digest (``simcli.strategies.learnt.model.rules_digest``) leaves a knob of this table out while it has that value, so
#: that models and records made before the knob existed keep matching the rules they were made under.
LATER_KNOBS: dict[str, str] = {
    "upcard_reject_mode": "COVER", "self_deal_exact_bonus": "0", "pile_take_count": "null",
    "wild_top_takeable": "false", "pile_take_requires_team_opened": "false", "red_three_in_hand_value": "0",
    "go_out_partners_in_pony": "OFF",
}


#: Knobs of RULES.md §3 that are not settable because the engine fixes the behaviour another way: name -> (the
#: value it always has, why). ``simcli rules show`` prints these; ``--rule NAME=...`` is refused with the reason.
FIXED_KNOBS: dict[str, tuple[str, str]] = {
    "black_three_stop": (
        "true", "a black three on top always stops the pile for one turn, in every variant: the pile is never "
        "taken with a three on top (RULES.md §1.7's top-card gate), and once a card covers it nothing is left to "
        "stop; a 'false' would contradict that gate, so there is nothing to set"),
    "scoring_unit": (
        "TEAM", "scores, opening minimums and the game target are kept per team; the cut-throat play that RULES.md "
        "A-PT-10 keeps PLAYER for is individual play, team_size=1, where each player is a team and scores alone "
        "(Classic with 2 or 3 players, Spanish individual; e.g. --rule team_size=1 --rule num_players=3)"),
}


def knob(name: str) -> Knob:
    """Look a knob up by its RULES.md name (``canasta_bonus.natural``) or field name."""
    found = KNOB_BY_NAME.get(name.strip())
    if found is None and name.strip() in FIXED_KNOBS:
        value, why = FIXED_KNOBS[name.strip()]
        raise RuleError(f"rule knob '{name.strip()}' is fixed by the engine at {value}: {why}")
    if found is None:
        import difflib

        close = difflib.get_close_matches(name, [k.name for k in KNOBS], n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise RuleError(f"unknown rule knob '{name}'{hint}; `simcli rules show VARIANT` lists them")
    return found
