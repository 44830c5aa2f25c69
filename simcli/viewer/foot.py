"""Hand and Foot in words (rules where :func:`simcli.engine.features.ponies.has_foot`): the contract's progress,
the players' self-deal grabs and the way into the foot, said alike by the replay page, ``simcli play --narrate``
and a person's seat (:mod:`simcli.viewer.words` says every event; this module holds what only Hand and Foot
needs)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: A contract's canasta kinds (``go_out_requirement``) as Hand and Foot players say them.
CONTRACT_WORDS = {"NATURAL": "clean", "MIXED": "dirty", "WILD": "wild", "SEVENS": "sevens", "ACES": "aces",
                  "CLEAN": "clean", "DIRTY": "dirty", "ANY": "any"}


def contract_progress(requirement: Sequence[tuple[str, int]], canastas: Mapping[str, int],
                      clean: int) -> list[tuple[str, int, int]]:
    """A team's progress on its contract (``go_out_requirement``): ``(kind in words, books made, books needed)`` for
    each of its kinds, from the team's canastas by kind and its clean canastas (for the CLEAN and DIRTY kinds)."""
    total = sum(canastas.values())
    out = []
    for kind, need in requirement:
        have = (clean if kind == "CLEAN" else total - clean if kind == "DIRTY" else total if kind == "ANY"
                else canastas.get(kind, 0))
        out.append((CONTRACT_WORDS.get(kind, kind.lower()), have, need))
    return out


def contract_text(progress: Sequence[tuple[str, int, int]]) -> str:
    """``clean 1/2, dirty 0/2, wild 0/1`` (``, met`` once every kind is made)."""
    text = ", ".join(f"{kind} {min(have, need)}/{need}" for kind, have, need in progress)
    return text + (": met" if all(have >= need for _, have, need in progress) else "")


def self_deal_text(d: Mapping[str, Any], seat: Callable[[int], str], team: Callable[[int], str]) -> str:
    """A ``self_deal`` event: each player's grab, and who was exact (and the bonus it paid)."""
    grabs = ", ".join(f"{seat(s)} {n}" for s, n in enumerate(d["counts"]))
    text = f"Each player grabs a hand and foot ({d['target']} would be exact): {grabs}"
    exact = [seat(s) for s, on in enumerate(d["exact"]) if on]
    if exact:
        paid = [f"{b} for {team(t)}" for t, b in enumerate(d["bonus"]) if b]
        text += f"; exact: {', '.join(exact)} (" + (f"a bonus of {', '.join(paid)})" if paid
                                                    else "no bonus for it in these rules)")
    return text


def foot_pickup_text(d: Mapping[str, Any], who: str, cards: str) -> str:
    """A ``pony_pickup`` event of a foot: running or walking into it (``into_foot``), or just picked up."""
    how = d.get("into_foot")
    if how == "running":
        return f"{who} runs into the foot: the whole hand melded, picks up the foot ({cards}) and plays on"
    if how == "walking":
        return (f"{who} walks into the foot: the last card discarded, picks up the foot ({cards}) to play from it "
                "next turn")
    return f"{who} picks up the foot ({cards})"
