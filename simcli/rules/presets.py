"""The frozen :class:`RuleSet`: a variant preset (TOML) plus validated overrides.

A preset lives in ``simcli/rules/variants/<name>.toml``. Its top-level keys are knobs
(nested tables such as ``[canasta_bonus]`` give dotted names); a ``[players.N]``
table holds the values that change with the number of players (Classic with 2
players deals 15 cards and draws 2) and applies unless the user overrides the
same knob.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from simcli.rules.knobs import BY_DEAL_TABLES, KNOBS, MELD_TABLES, Knob, RuleError, knob
from simcli.rules.ruleset import RuleSet

__all__ = [
    "RuleError", "RuleSet", "load_rules", "list_variants", "parse_overrides", "preset_values", "read_rules_file",
    "replace_knobs",
]

#: Preset tables whose keys become dotted knob names (``[canasta_bonus] natural = 500``).
DOTTED_TABLES = ("canasta_bonus", "incomplete_penalty", "hand_rank_penalty", "special_hand_value")


def _explicit(rules: RuleSet) -> dict[str, Any]:
    return {k.name: getattr(rules, k.field) for k in KNOBS}


def replace_knobs(rules: RuleSet, **overrides: Any) -> RuleSet:
    """``rules`` with some knobs changed (by name or field name), every other knob kept, validated as
    :func:`load_rules` validates. (It was the method ``RuleSet.replace``; it lives here, not on the class, because
    building a rule set needs the presets and :func:`load_rules`, which import the class.)"""
    return load_rules(rules.variant, {**_explicit(rules), **overrides})


def list_variants() -> list[str]:
    """Names of the variant presets shipped with simcli."""
    folder = resources.files("simcli.rules") / "variants"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def unknown_variant(variant: str) -> str:
    """The error for a variant that is no preset: the closest names first (``did you mean classic?``), then all."""
    import difflib

    names = list_variants()
    close = difflib.get_close_matches(variant.lower(), names, n=2, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"unknown variant '{variant}'{hint}; allowed: {', '.join(names)}"


def _read_preset(variant: str) -> dict[str, Any]:
    names = list_variants()
    if variant not in names:
        raise RuleError(unknown_variant(variant))
    text = (resources.files("simcli.rules") / "variants" / f"{variant}.toml").read_text("utf-8")
    return tomllib.loads(text)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name in DOTTED_TABLES:
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def preset_values(variant: str, num_players: int | None = None, team_size: int | None = None) -> dict[str, Any]:
    """The preset's parsed knob values, with its ``[players.N]`` and ``[players.NxT]`` sections applied.

    ``[players.N]`` holds the values for N players, ``[players.NxT]`` those for N players in teams of T (T is
    ``team_size`` if given, else the value after ``[players.N]``), e.g. Classic's ``[players.6x2]``.
    """
    raw = _read_preset(variant)
    raw.pop("players", None)
    raw.pop("description", None)
    flat = _flatten(raw)
    values = {knob(name).name: knob(name).parse(v) for name, v in flat.items()}
    n: int = values["num_players"] if num_players is None else num_players
    values.update(player_values(variant, n, team_size))
    missing = [k.name for k in KNOBS if k.name not in values]
    if missing:
        raise RuleError(f"preset '{variant}' does not set knob(s): {', '.join(missing)}")
    return values


def player_values(variant: str, num_players: int, team_size: int | None = None) -> dict[str, Any]:
    """The knob values a preset sets for ``num_players`` (its ``[players.N]`` section) and, for teams of
    ``team_size`` (default: the section's or the preset's), its ``[players.NxT]`` section, parsed."""
    raw = _read_preset(variant)
    sections = raw.get("players", {})
    out = {knob(name).name: knob(name).parse(v) for name, v in _flatten(sections.get(str(num_players), {})).items()}
    size = team_size if team_size is not None else out.get("team_size", knob("team_size").parse(raw["team_size"]))
    for name, v in _flatten(sections.get(f"{num_players}x{size}", {})).items():
        out[knob(name).name] = knob(name).parse(v)
    return out


def preset_description(variant: str) -> str:
    """The one-line description at the top of a preset."""
    return str(_read_preset(variant).get("description", ""))


def parse_overrides(pairs: Iterable[str]) -> dict[str, Any]:
    """Parse ``["key=value", ...]`` from ``--rule`` options into knob values."""
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise RuleError(f"bad --rule '{pair}': expected KNOB=VALUE")
        k = knob(name.strip())
        if k.name in out:  # the last one would silently win: almost always a typo
            raise RuleError(f"rule knob {k.name} given twice ({given[k.name]} and {value}); give each knob once")
        out[k.name] = k.parse(value)
        given[k.name] = value
    return out


def read_rules_file(path: Path) -> dict[str, Any]:
    """The knob overrides of a ``--rules`` TOML file (tables flatten to ``table.key``), each knob and value
    checked; a file that cannot be read or is not UTF-8 TOML, and a bad knob or value, are a :class:`RuleError`
    naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RuleError(
            f"cannot read rules file {path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise RuleError(f"cannot read rules file {path}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"cannot read rules file {path}: {exc}") from None
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                flat[f"{key}.{sub}"] = v
        else:
            flat[key] = value
    try:
        return {knob(k).name: knob(k).parse(v) for k, v in flat.items()}
    except RuleError as exc:
        raise RuleError(f"{path}: {exc}") from None


def load_rules(variant: str = "classic", overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """Build a validated, frozen :class:`RuleSet` for ``variant`` with ``overrides`` applied.

    Override values may be raw strings (as from the command line) or already parsed.
    """
    parsed: dict[str, Any] = {}
    for name, value in (overrides or {}).items():
        k = knob(name)
        parsed[k.name] = k.parse(value) if isinstance(value, str) else _reparse(k, value)
    values = preset_values(variant, parsed.get("num_players"), parsed.get("team_size"))
    values.update(parsed)
    rules = RuleSet(variant=variant, **{knob(n).field: v for n, v in values.items()})
    validate(rules)
    return rules


def _reparse(k: Knob, value: Any) -> Any:
    # Already-canonical values (tuples from another RuleSet) pass through the parser
    # in their formatted form so that every path is validated the same way.
    if isinstance(value, tuple):
        return k.parse(k.format(value))
    return k.parse(value)


def scores_concealed(rules: RuleSet) -> bool:
    """Whether these rules define concealed going out (RULES.md §1.10, Classic only): they pay a concealed total
    (``concealed_out_total_bonus``) or waive the opening minimum for it (``concealed_out_waives_minimum``).

    The engine's ``concealed`` flag (traces, deal tables) records the §1.10 conditions in every variant; only
    under rules like these does it change the deal, so only then do summaries call a going out concealed.
    """
    return rules.concealed_out_total_bonus is not None or bool(rules.concealed_out_waives_minimum)


def cut_target(rules: RuleSet) -> int:
    """The number of cards an exact cut must grab: ``exact_cut_target`` or its formula (RULES.md §1.14)."""
    if rules.exact_cut_target is not None:
        return int(rules.exact_cut_target)
    base = rules.hand_size * rules.num_players
    return base + 1 if rules.exact_cut_target_formula == "HAND_X_PLAYERS_PLUS_1" else base


def pick_target(rules: RuleSet) -> int:
    """The number of cards an exact pick of the initial pile must grab (its face-down and face-up cards)."""
    return rules.initial_pile_facedown + rules.initial_pile_faceup


def _check_card_supply(rules: RuleSet) -> None:
    """Refuse rules whose deal needs more cards than the decks hold: hands, ponies, wings, the initial pile
    (face down and up) and at least one card left in the stock."""
    p = rules.num_players
    per_deck = 52 + rules.jokers_per_deck
    pack = rules.decks * per_deck
    parts = [("hands", p * rules.hand_size, f"{p}x{rules.hand_size}"),
             ("ponies", p * rules.pony_size, f"{p}x{rules.pony_size}"),
             ("wings", sum(rules.wing_sizes), "+".join(map(str, rules.wing_sizes))),
             ("initial pile", rules.initial_pile_facedown + rules.initial_pile_faceup, ""),
             ("stock", 1, "")]
    needed = sum(n for _, n, _ in parts)
    if needed <= pack:
        return
    what = ", ".join(f"{name} {how + '=' if how else ''}{n}" for name, n, how in parts if n)
    other = needed - p * rules.hand_size
    max_hand = (pack - other) // p
    hand_hint = f" or hand_size <= {max_hand}" if max_hand >= 1 else ""
    raise RuleError(
        f"the deal needs {needed} cards ({what}) but decks={rules.decks} hold {pack}; "
        f"allowed: decks >= {-(-needed // per_deck)}{hand_hint}"
    )


def _check_meld_basis(rules: RuleSet) -> None:
    """RULES.md A-X-6: ``initial_meld_basis=DEAL_NUMBER`` needs a table keyed by deal number.

    A table banded by team score (CLASSIC, PENNIES, AM_*) looked up by deal number gives its lowest band in every
    deal. A table of bands is keyed by deal number when every band starts at a deal (1 or more) or is the first,
    open band.
    """
    if rules.initial_meld_basis != "DEAL_NUMBER":
        return
    table = rules.initial_meld_table
    if all(threshold is None or threshold >= 1 for threshold, _ in table) and (
            table in [MELD_TABLES[name] for name in BY_DEAL_TABLES] or not _named_table(table)):
        return
    name = _named_table(table) or knob("initial_meld_table").format(table)
    raise RuleError(
        f"initial_meld_basis=DEAL_NUMBER with initial_meld_table={name}, a table banded by team score (its "
        f"bands would be read as deal numbers); allowed: initial_meld_table={' or '.join(BY_DEAL_TABLES)} or "
        "bands by deal number like '1:50,2:90,3:120,4:150', or initial_meld_basis=TEAM_SCORE")


def _named_table(table: Any) -> str | None:
    """The name of a table of :data:`~simcli.rules.knobs.MELD_TABLES`, or None for bands given by hand."""
    return next((name for name, bands in MELD_TABLES.items() if bands == table), None)


def validate(rules: RuleSet) -> None:
    """Check combinations of knobs that are fine one by one but impossible together."""
    p, t = rules.num_players, rules.team_size
    if rules.table_modes is not None and (p, t) not in rules.table_modes:
        modes = "; ".join(f"num_players={a} team_size={b}" for a, b in rules.table_modes)
        raise RuleError(
            f"num_players={p} with team_size={t} is not a mode of variant '{rules.variant}'; allowed: {modes}")
    if p % t or p // t < 2:
        raise RuleError(
            f"num_players={p} with team_size={t} does not make two or more equal teams; "
            "allowed: team_size dividing num_players with at least 2 teams"
        )
    _check_card_supply(rules)
    if rules.meld_max_size is not None and rules.meld_max_size < rules.canasta_size:
        raise RuleError(
            f"meld_max_size={rules.meld_max_size} is below canasta_size={rules.canasta_size}; "
            "allowed: null or >= canasta_size"
        )
    if rules.new_meld_after_closed_canasta and rules.closed_rank_dead_for_all:
        raise RuleError(
            "new_meld_after_closed_canasta=true contradicts closed_rank_dead_for_all=true (a closed rank is dead "
            "for everyone); allowed: set one of them to false"
        )
    _check_meld_basis(rules)
    if rules.allow_8th_card_when_going_out and (rules.meld_max_size is None or rules.new_meld_after_closed_canasta):
        raise RuleError(
            "allow_8th_card_when_going_out=true needs a capped meld (meld_max_size) that stays in place: with "
            f"meld_max_size={knob('meld_max_size').format(rules.meld_max_size)} and new_meld_after_closed_canasta="
            f"{knob('new_meld_after_closed_canasta').format(rules.new_meld_after_closed_canasta)} there is no 8th "
            "card; allowed: a meld_max_size and new_meld_after_closed_canasta=false")
    if rules.meld_min_size > rules.canasta_size:
        raise RuleError(f"meld_min_size={rules.meld_min_size} exceeds canasta_size={rules.canasta_size}")
    _check_handfoot(rules)
    needed = dict(rules.go_out_requirement)
    if needed.get("WILD") and not rules.wild_melds_allowed:
        raise RuleError("go_out_requirement needs a WILD canasta but wild_melds_allowed=false; "
                        "allowed: set wild_melds_allowed=true or drop WILD")
    if needed.get("SEVENS") and rules.canasta_bonus_sevens is None:
        raise RuleError("go_out_requirement needs a SEVENS canasta but canasta_bonus.sevens is null; "
                        "allowed: give canasta_bonus.sevens a value or drop SEVENS")


def _check_handfoot(rules: RuleSet) -> None:
    """The knobs Hand and Foot brought (RULES-hand-and-foot.md §3.8.3) against the others."""
    if rules.game_target is None and rules.max_hands is None:
        raise RuleError("game_target=null with max_hands=null: the game would never end; allowed: a game_target "
                        "or a max_hands")
    if rules.wild_top_takeable and not rules.wild_melds_allowed:
        raise RuleError("wild_top_takeable=true needs wild_melds_allowed=true (the taken wild cards make a wild meld); "
                        "allowed: wild_top_takeable=false or wild_melds_allowed=true")
    if rules.pile_take_count is not None and (rules.initial_pile_facedown or rules.upcard_cover_facedown):
        raise RuleError(f"pile_take_count={rules.pile_take_count} with a face-down initial pile (initial_pile_"
                        "facedown or upcard_cover_facedown > 0); allowed: pile_take_count=null, or no face-down cards")


def diff(rules: RuleSet, base: RuleSet | None = None) -> dict[str, tuple[str, str]]:
    """Knobs whose value differs from ``base`` (default: the variant's preset for the same player count).

    Returns ``{knob: (preset_value, value)}`` with values formatted as on the command line.
    """
    table: dict[str, Any] = {}
    if base is None:
        # The preset for this player count, not validated: alone it may be no table (the preset's team size
        # need not divide num_players, e.g. Ponytail's 2 with num_players=2), and ``rules``, checked as a whole
        # when it was loaded, is what is played; the base is only compared with it.
        values = preset_values(rules.variant, rules.num_players, None)
        values["num_players"] = rules.num_players
        base = RuleSet(variant=rules.variant, **{knob(n).field: v for n, v in values.items()})
        # A value the preset sets for this table's team size ([players.NxT]) follows from team_size: not a change.
        table = player_values(rules.variant, rules.num_players, rules.team_size)
    out: dict[str, tuple[str, str]] = {}
    for k in KNOBS:
        a, b = getattr(base, k.field), getattr(rules, k.field)
        if a != b and not (k.name in table and table[k.name] == b):
            out[k.name] = (k.format(a), k.format(b))
    return out


def rules_diff(rules: RuleSet) -> dict[str, str]:
    """The knobs whose value differs from the variant's preset, each with its value as on the command line (the
    ``rules_diff`` of a run's manifest and of a trace header)."""
    return {k: v[1] for k, v in diff(rules).items()}
