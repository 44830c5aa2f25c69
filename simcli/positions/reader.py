"""The ``score`` command's position reader: an end-of-deal position given as JSON (docs/position-format.md),
checked against its rules and turned into what :func:`simcli.engine.scoring.score_deal` scores.

A position names a variant, optional rule-knob overrides and, for each team, the melds on the table, the bonus
threes laid, the cards left in each member's hand and whether the team went out. :func:`parse_position` reads
and validates it; :func:`simcli.positions.writer.position_to_json` is the inverse. Every refusal is a one-line
:class:`~simcli.engine.position.PositionError` naming the bad item and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simcli.engine.melds import canasta_type, count_canastas, is_clean, meld_error, requirement_met
from simcli.engine.position import PositionError, check_position, team_label
from simcli.engine.scoring import TeamPosition
from simcli.primitives.cards import (
    BLACK_THREE,
    FOUR,
    IS_WILD,
    JOKER,
    RANK_NAMES,
    RED_THREE,
    TWO,
    WILD_MELD,
    CardError,
    counts_of,
    parse_rank,
)
from simcli.rules.presets import load_rules
from simcli.rules.ruleset import RuleSet

__all__ = ["PositionError", "parse_position", "parse_meld"]

TOP_KEYS = ("variant", "rules", "teams")
TEAM_KEYS = ("melds", "threes", "hands", "went_out", "concealed", "exact_cut", "ponies", "pony_dealer_exact",
             "special_hand", "hidden_canastas", "exact_pick", "quick_finish", "terremoto", "self_deal_exact")
_ALLOWED_CARDS = "A K Q J 10 9 8 7 6 5 4 2 JK R3 B3"
#: One meld: its rank (``WILD_MELD`` for wild cards only), natural cards, twos and jokers.
MeldCounts = tuple[int, int, int, int]


def parse_position(data: Any) -> tuple[Any, list[TeamPosition]]:
    """Validate a position (a dict loaded from JSON) and return ``(rules, teams)``.

    ``rules`` is the :class:`~simcli.rules.presets.RuleSet` of ``data["variant"]`` (default
    ``classic``) with ``data["rules"]`` applied; ``teams`` is one
    :class:`~simcli.engine.scoring.TeamPosition` per team, in input order. Raises
    :class:`PositionError` (or :class:`~simcli.rules.knobs.RuleError` for bad knobs).
    """
    if not isinstance(data, Mapping):
        raise PositionError(f"a position must be a JSON object with keys {', '.join(TOP_KEYS)}")
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        raise PositionError(f"unknown key {unknown[0]!r} in position; allowed: {', '.join(TOP_KEYS)}")
    variant = data.get("variant", "classic")
    if not isinstance(variant, str):
        raise PositionError(f"'variant' must be a string such as \"classic\", got {variant!r}")
    overrides = data.get("rules", {})
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise PositionError("'rules' must be an object of knob overrides like {\"going_out_bonus\": 100}")
    rules = load_rules(variant, overrides)

    teams_raw = data.get("teams")
    if not isinstance(teams_raw, list):
        raise PositionError(f"'teams' must be a list of {rules.n_teams} team objects")
    if len(teams_raw) != rules.n_teams:
        raise PositionError(
            f"{len(teams_raw)} teams given; allowed: exactly {rules.n_teams} "
            f"(num_players={rules.num_players}, team_size={rules.team_size})"
        )
    teams = [_parse_team(rules, raw, team_label(i)) for i, raw in enumerate(teams_raw)]
    check_position(rules, teams)
    return rules, teams


def _cards(value: Any, where: str) -> list[int]:
    """Parse a card list (JSON list of names, or one space-separated string) into rank indices."""
    if isinstance(value, str):
        names = value.split()
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        names = value
    else:
        raise PositionError(
            f"{where}: expected a list of card names or a string like \"K K 2\", got {value!r}"
        )
    out = []
    for name in names:
        try:
            out.append(parse_rank(name))
        except CardError:
            raise PositionError(f"{where}: unknown card {name!r}; allowed: {_ALLOWED_CARDS}") from None
    return out


def _self_deal_exact(rules: RuleSet, raw: Mapping[str, Any], label: str) -> int:
    """Members of the team who grabbed exactly hand + foot when dealing themselves (``self_deal_exact_bonus``)."""
    value = raw.get("self_deal_exact", 0)
    if type(value) is not int or not 0 <= value <= rules.team_size:
        raise PositionError(f"{label}: 'self_deal_exact' is {value!r}; allowed: an int 0..team_size={rules.team_size} "
                            "(members who grabbed exactly hand_size + pony_size cards)")
    return value


def _bool(team: Mapping[str, Any], key: str, where: str) -> bool:
    value = team.get(key, False)
    if not isinstance(value, bool):
        raise PositionError(f"{where}: '{key}' must be true or false, got {value!r}")
    return value


def parse_meld(rules: RuleSet, text: Any, where: str = "meld") -> tuple[int, int, int, int]:
    """Convert a meld string such as ``"8 8 8 8 8 2 JK"`` into ``(rank, naturals, twos, jokers)``.

    The rank is that of the meld's non-wild cards, which must all be the same; a
    meld of wild cards only goes to the ``WILD_MELD`` slot (if the rules allow wild
    melds) and a meld of black threes to the black-three slot. The meld must be
    legal as a new meld under ``rules`` (:func:`simcli.engine.melds.meld_error`).
    """
    ranks = _cards(text, where)
    shown = text if isinstance(text, str) else " ".join(text)
    if RED_THREE in ranks:
        raise PositionError(
            f"{where} {shown!r}: red threes are never melded; list them under 'threes'"
        )
    twos = ranks.count(TWO)
    jokers = ranks.count(JOKER)
    natural_ranks = sorted({r for r in ranks if not IS_WILD[r]})
    if len(natural_ranks) > 1:
        names = " ".join(RANK_NAMES[r] for r in natural_ranks)
        raise PositionError(
            f"{where} {shown!r}: mixes ranks {names}; allowed: one natural rank plus wild cards (2, JK)"
        )
    if natural_ranks:
        rank = natural_ranks[0]
        naturals = len(ranks) - twos - jokers
    else:
        if not ranks:
            raise PositionError(f"{where}: empty meld; allowed: 3 or more cards of one rank")
        rank, naturals = WILD_MELD, 0
    # A finished position may hold a canasta with the going-out 8th card (allow_8th_card_when_going_out).
    over_cap = 1 if rules.allow_8th_card_when_going_out and naturals + twos + jokers > rules.canasta_size else 0
    error = meld_error(rules, rank, naturals, twos, jokers, new=True, over_cap=over_cap)
    if error is not None:
        raise PositionError(f"{where} {shown!r} is illegal: {error}")
    return rank, naturals, twos, jokers


def _parse_team(rules: RuleSet, raw: Any, label: str) -> TeamPosition:
    """One team of the position (``label`` names it in messages), each item checked in turn."""
    if not isinstance(raw, Mapping):
        raise PositionError(f"{label}: expected an object with keys {', '.join(TEAM_KEYS)}")
    unknown = [k for k in raw if k not in TEAM_KEYS]
    if unknown:
        raise PositionError(f"{label}: unknown key {unknown[0]!r}; allowed: {', '.join(TEAM_KEYS)}")
    special_hand = _special_hand(rules, raw, label)
    if special_hand is not None and raw.get("went_out", True) is not True:
        raise PositionError(f"{label}: a special hand ends the deal for the team that laid it; "
                            "'went_out' must be true or omitted")
    went_out = special_hand is not None or _bool(raw, "went_out", label)
    concealed = _bool(raw, "concealed", label)
    exact_cut = _bool(raw, "exact_cut", label)
    pony_dealer_exact = _bool(raw, "pony_dealer_exact", label)
    ponies = _ponies(rules, raw, label)
    if concealed and not went_out:
        raise PositionError(f"{label}: 'concealed' is true but 'went_out' is false; concealed needs went_out")

    exact_pick = _bool(raw, "exact_pick", label)
    quick_finish = _bool(raw, "quick_finish", label)
    terremoto = _bool(raw, "terremoto", label)
    for flag, value in (("quick_finish", quick_finish), ("terremoto", terremoto)):
        if value and not went_out:
            raise PositionError(f"{label}: '{flag}' is true but 'went_out' is false; {flag} needs went_out")
    melds, hidden, n_plain = _melds(rules, raw, label, went_out)

    american = rules.threes_mode == "AMERICAN_COLOUR_TABLE"
    threes = _cards(raw.get("threes", []), f"{label} threes")
    bonus_threes = (RED_THREE, BLACK_THREE) if american else () if rules.threes_mode == "RED_PENALTY" else (RED_THREE,)
    bad = [r for r in threes if r not in bonus_threes]
    if bad:
        raise PositionError(
            f"{label} threes: {RANK_NAMES[bad[0]]} cannot be laid as a bonus three under "
            f"variant '{rules.variant}'; allowed: {' '.join(RANK_NAMES[r] for r in bonus_threes)}"
        )
    if special_hand is not None and melds and rules.special_hand_requires_team_unopened:
        raise PositionError(
            f"{label}: special_hand {special_hand} with melds on the table; a special hand may be laid only "
            "while the team has not opened (special_hand_requires_team_unopened): omit 'melds'"
        )
    hands = _hands(rules, raw, label, special_hand is not None, american)
    if went_out and all(sum(h) for h in hands):
        raise PositionError(f"{label}: went_out is true but no member's hand is empty; the player going out "
                            "holds no cards")

    if hidden and any(rank in hidden for rank, *_ in melds[:n_plain]):
        # Several melds of a hidden canasta's rank: scoring pays the hidden bonus to the first canasta of the
        # rank, so the hidden ones go first.
        melds = melds[n_plain:] + melds[:n_plain]
    if went_out and special_hand is None:
        _check_go_out(rules, melds, label)
    return TeamPosition(
        melds=tuple(melds),
        red_threes=threes.count(RED_THREE),
        hands=tuple(hands),
        went_out=went_out,
        concealed=concealed,
        exact_cut=exact_cut,
        ponies=tuple(ponies),
        pony_dealer_exact=pony_dealer_exact,
        black_threes=threes.count(BLACK_THREE),
        special_hand=special_hand,
        hidden=tuple(hidden),
        exact_pick=exact_pick,
        quick_finish=quick_finish,
        terremoto=terremoto,
        self_deal_exact=_self_deal_exact(rules, raw, label),
    )


def _ponies(rules: RuleSet, raw: Mapping[str, Any], label: str) -> list[tuple[int, ...]]:
    """The team's unpicked ponies (Ponytail), each of exactly ``pony_size`` cards."""
    ponies_raw = raw.get("ponies", [])
    if not isinstance(ponies_raw, list) or len(ponies_raw) > rules.team_size:
        raise PositionError(f"{label}: 'ponies' must be a list of at most team_size={rules.team_size} card lists "
                            "(the ponies of members who never picked theirs up)")
    if ponies_raw and not rules.pony_size:
        raise PositionError(f"{label}: 'ponies' given but variant '{rules.variant}' has no pony (pony_size=0)")
    ponies = []
    for j, pony_raw in enumerate(ponies_raw):
        cards = _cards(pony_raw, f"{label} pony {j + 1}")
        if len(cards) != rules.pony_size:
            raise PositionError(f"{label} pony {j + 1}: {len(cards)} cards; allowed: exactly pony_size="
                                f"{rules.pony_size} (an unpicked pony is never touched)")
        ponies.append(tuple(counts_of(cards)))
    return ponies


def _melds(rules: RuleSet, raw: Mapping[str, Any], label: str,
           went_out: bool) -> tuple[list[MeldCounts], list[int], int]:
    """The team's melds (``melds`` then ``hidden_canastas``), the ranks of its hidden canastas, and how many of
    the melds were given under ``melds``."""
    melds_raw = raw.get("melds", [])
    if not isinstance(melds_raw, list):
        raise PositionError(f"{label}: 'melds' must be a list of meld strings like \"K K K 2\"")
    hidden_raw = raw.get("hidden_canastas", [])
    if not isinstance(hidden_raw, list):
        raise PositionError(f"{label}: 'hidden_canastas' must be a list of meld strings like \"6 6 6 6 6 6 6\"")
    if hidden_raw and rules.hidden_canasta_bonus is None:
        raise PositionError(f"{label}: 'hidden_canastas' given but variant '{rules.variant}' has no hidden "
                            "canastas (hidden_canasta_bonus=null)")
    melds: list[MeldCounts] = []
    hidden: list[int] = []
    seen: dict[int, str] = {}
    # new_meld_after_closed_canasta (A-PT-18): a rank may have several melds, all but one closed canastas.
    close_at = rules.meld_max_size if rules.new_meld_after_closed_canasta else None
    for i, text in enumerate([*melds_raw, *hidden_raw]):
        is_hidden = i >= len(melds_raw)
        where = f"{label} hidden canasta {i - len(melds_raw) + 1}" if is_hidden else f"{label} meld {i + 1}"
        rank, naturals, twos, jokers = parse_meld(rules, text, where)
        shown = text if isinstance(text, str) else " ".join(text)
        closed = close_at is not None and naturals + twos + jokers >= close_at and (
            rank == WILD_MELD or rank >= FOUR)
        if rank in seen and not closed:
            what = "wild cards" if rank == WILD_MELD else RANK_NAMES[rank]
            allowed = "one meld per rank per team, merge them" if close_at is None else (
                f"one meld per rank per team besides closed canastas of meld_max_size={close_at} cards "
                "(new_meld_after_closed_canasta)")
            raise PositionError(
                f"{where} {shown!r}: second meld of {what} in one team (first: {seen[rank]!r}); allowed: {allowed}"
            )
        if not closed:
            seen[rank] = shown
        if is_hidden:
            if rank in (WILD_MELD, BLACK_THREE) or canasta_type(rules, rank, (naturals, twos, jokers)) is None:
                raise PositionError(f"{where} {shown!r}: a hidden canasta is a complete canasta of one natural "
                                    f"rank ({rules.canasta_size} cards, wild cards allowed by the wild rule)")
            hidden.append(rank)
        if rank == BLACK_THREE and not went_out:
            raise PositionError(
                f"{where} {shown!r}: black threes may be melded only by a team that went out "
                "(set went_out: true)"
            )
        melds.append((rank, naturals, twos, jokers))
    return melds, hidden, len(melds_raw)


def _hands(rules: RuleSet, raw: Mapping[str, Any], label: str, special: bool,
           american: bool) -> list[tuple[int, ...]]:
    """The cards left in each member's hand (none for a team that laid a special hand and gave no hands)."""
    hands_raw = raw.get("hands")
    if hands_raw is None and special:
        hands_raw = [[] for _ in range(rules.team_size)]  # the special hand's team scores no cards
    if not isinstance(hands_raw, list):
        raise PositionError(
            f"{label}: 'hands' must be a list of {rules.team_size} card lists (one per team member)"
        )
    if len(hands_raw) != rules.team_size:
        raise PositionError(
            f"{label}: {len(hands_raw)} hands given; allowed: exactly team_size={rules.team_size} "
            "(one per team member, [] for an empty hand)"
        )
    hands = []
    for j, hand_raw in enumerate(hands_raw):
        where = f"{label} hand {j + 1}"
        ranks = _cards(hand_raw, where)
        if RED_THREE in ranks and not american and rules.threes_mode != "RED_PENALTY":
            raise PositionError(
                f"{where}: holds a red three; allowed: red threes are laid at once, list them under 'threes'"
            )
        hands.append(tuple(counts_of(ranks)))
    return hands


def _check_go_out(rules: RuleSet, melds: list[MeldCounts], label: str) -> None:
    """Refuse a team that went out without the canastas ``go_out_requirement`` asks for."""
    canastas = count_canastas(rules, ())  # every kind at 0, in the usual order
    clean = 0
    for rank, naturals, twos, jokers in melds:
        kind = canasta_type(rules, rank, (naturals, twos, jokers))
        if kind is not None:
            canastas[kind] += 1
            clean += is_clean(rank, (naturals, twos, jokers))
    if not requirement_met(rules.go_out_requirement, canastas, clean):
        need = ",".join(f"{t}:{n}" for t, n in rules.go_out_requirement)
        have = ",".join(f"{t}:{n}" for t, n in canastas.items() if n) or "none"
        raise PositionError(
            f"{label}: went out without meeting go_out_requirement={need} (canastas: {have})"
        )


def _special_hand(rules: RuleSet, raw: Mapping[str, Any], label: str) -> str | None:
    """The team's ``special_hand`` (Americana), validated against ``rules.special_hands``."""
    value = raw.get("special_hand")
    if value is None:
        return None
    allowed = ", ".join(rules.special_hands) or f"none in variant '{rules.variant}'"
    if not isinstance(value, str) or value.strip().upper() not in rules.special_hands:
        raise PositionError(f"{label}: bad special_hand {value!r}; allowed: {allowed}")
    return value.strip().upper()
