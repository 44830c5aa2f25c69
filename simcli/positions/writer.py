"""Writing an end-of-deal position back as the JSON that :func:`simcli.positions.reader.parse_position` reads
(docs/position-format.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.scoring import TeamPosition
from simcli.primitives.cards import NUM_RANKS, RANK_NAMES, WILD_MELD
from simcli.rules.presets import diff, load_rules
from simcli.rules.ruleset import RuleSet

__all__ = ["position_to_json"]


def _meld_text(rank: int, naturals: int, twos: int, jokers: int) -> str:
    names = [] if rank == WILD_MELD else [RANK_NAMES[rank]] * naturals
    return " ".join(names + ["2"] * twos + ["JK"] * jokers)


def _hand_names(counts: Sequence[int]) -> list[str]:
    return [RANK_NAMES[r] for r in sorted(range(NUM_RANKS), reverse=True) for _ in range(counts[r])]


def position_to_json(rules: RuleSet, teams: Sequence[TeamPosition]) -> dict[str, Any]:
    """The JSON-ready dict of a position; ``parse_position`` of it gives back equal rules and teams.

    Only the knobs that differ from the variant's preset are written under ``rules``.
    """
    base = load_rules(rules.variant)
    out_teams = []
    for team in teams:
        # The first canasta of each hidden rank is the hidden one (the order the engine and the parser keep).
        left = list(team.hidden)
        hidden, plain = [], []
        for m in team.melds:
            if m[0] in left:
                left.remove(m[0])
                hidden.append(m)
            else:
                plain.append(m)
        entry: dict[str, Any] = {
            "melds": [_meld_text(*m) for m in plain],
            "threes": ["R3"] * team.red_threes + ["B3"] * team.black_threes,
            "hands": [_hand_names(h) for h in team.hands],
            "went_out": team.went_out,
        }
        if team.concealed:
            entry["concealed"] = True
        if team.exact_cut:
            entry["exact_cut"] = True
        if team.ponies:
            entry["ponies"] = [_hand_names(p) for p in team.ponies]
        if team.pony_dealer_exact:
            entry["pony_dealer_exact"] = True
        if team.special_hand is not None:
            entry["special_hand"] = team.special_hand
        if team.hidden:
            entry["hidden_canastas"] = [_meld_text(*m) for m in hidden]
        for flag in ("exact_pick", "quick_finish", "terremoto"):
            if getattr(team, flag):
                entry[flag] = True
        out_teams.append(entry)
    changed = {name: value for name, (_, value) in diff(rules, base).items()}
    doc: dict[str, Any] = {"variant": rules.variant}
    if changed:
        doc["rules"] = changed
    doc["teams"] = out_teams
    return doc
