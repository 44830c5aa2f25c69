"""What a ``--resume`` of a match, tournament or ladder folder takes from it: each setting the command line does not
give, from the spec the folder recorded (``match.json``, ``tournament.json``, ``ladder.json``).

Each function takes the command's parameters (``params``, by name) and the names of those given on the command
line (``given``), and returns the parameters to play with, plus ``stored_rules``: the folder's rules when neither
``--rule`` nor ``--rules`` is given (``params["rules"]`` is whether one is), else None (the command line's rules
go, and the folder refuses them if they differ).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from simcli.duplicate.ladder import MANIFEST as LADDER_MANIFEST
from simcli.duplicate.match_store import stored_spec as stored_match
from simcli.duplicate.tournament import stored_spec


def match_settings(out: Path, params: Mapping[str, Any], given: Collection[str]) -> dict[str, Any]:
    """``simcli match``'s parameters for a ``--resume`` of ``out`` (its match.json): the strategies A and B, the
    variant, seed and batch, the SPRT, the pairs (as ``games``, or ``max_games`` with an SPRT) and the rules.
    Raises :class:`~simcli.duplicate.match_store.MatchStoreError` for a folder without a readable match.json."""
    stored = stored_match(out)
    merged = dict(params)
    for name in ("variant", "seed", "batch"):
        if name not in given:
            merged[name] = stored[name]
    merged["a"] = params["a"] or stored["a"]
    merged["b"] = params["b"] or stored["b"]
    sprt = stored.get("sprt")
    if "sprt_text" not in given and sprt is not None:
        merged["sprt_text"] = f"elo0={sprt['elo0']:g},elo1={sprt['elo1']:g}"
        for name in ("alpha", "beta"):
            merged[name] = params[name] if name in given else sprt[name]
        merged["elo_model"] = params["elo_model"] if "elo_model" in given else sprt["model"]
    key = "max_games" if merged["sprt_text"] is not None else "games"
    if "games" not in given and "max_games" not in given:
        merged[key] = 2 * int(stored["pairs"])
    merged["stored_rules"] = None if params["rules"] else stored["rules"]
    return merged


def tournament_settings(out: Path, params: Mapping[str, Any], given: Collection[str]) -> dict[str, Any]:
    """``simcli tournament``'s parameters for a ``--resume`` of ``out`` (its tournament.json): the variant, seed,
    games, strategies and rules. Raises :class:`~simcli.duplicate.tournament.TournamentError` for a folder without
    a readable tournament.json, and KeyError, TypeError or ValueError for one that lacks a setting."""
    stored = stored_spec(out)
    merged = dict(params)
    merged["variant"] = params["variant"] if "variant" in given else stored["variant"]
    merged["seed"] = params["seed"] if "seed" in given else stored["seed"]
    merged["games"] = params["games"] if "games" in given else 2 * int(stored["pairs"])
    merged["strategies"] = params["strategies"] if params["strategies"] else ",".join(stored["strategies"])
    merged["stored_rules"] = None if params["rules"] else stored["rules"]
    return merged


def ladder_settings(out: Path, params: Mapping[str, Any], given: Collection[str]) -> dict[str, Any]:
    """``simcli ladder``'s parameters for a ``--resume`` of ``out`` (its ladder.json): the variant, seed, pairs,
    jump pairs, bootstrap and its seed, the rungs (as ``rungs_text``) and the rules. Raises
    :class:`~simcli.duplicate.tournament.TournamentError` for a folder without a readable ladder.json, and
    KeyError, TypeError or ValueError for one that lacks a setting."""
    stored = stored_spec(out, LADDER_MANIFEST)
    merged = dict(params)
    merged["variant"] = params["variant"] if "variant" in given else stored["variant"]
    for name in ("seed", "pairs", "jump_pairs", "bootstrap", "bootstrap_seed"):
        merged[name] = params[name] if name in given else int(stored[name])
    merged["rungs_text"] = params["rungs_text"] if params["rungs_text"] else ",".join(stored["rungs"])
    merged["stored_rules"] = None if params["rules"] else stored["rules"]
    return merged
