"""The variant -> best-heuristic table, once: the heuristic whose choice is every search candidate list's first
(:mod:`simcli.strategies.search.candidates`), ``mc``'s default rollout policy (``rollout=auto``), ``net``'s
fallback, the opponents of the learnt player's training games (:mod:`simcli.training.data`) and a ladder's rung
(:mod:`simcli.duplicate.ladder`). Greedy for a variant the table does not name."""

from __future__ import annotations

from typing import Final

__all__ = ["BEST_HEURISTIC", "FALLBACK", "best_heuristic"]

#: The best heuristic of each preset variant, by strategy name.
BEST_HEURISTIC: Final[dict[str, str]] = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana",
                                         "spanish": "spanish", "handfoot": "handfoot"}
#: The heuristic of a variant the table does not name.
FALLBACK: Final = "greedy"


def best_heuristic(variant: str) -> str:
    """The strategy name of ``variant``'s best heuristic (:data:`FALLBACK` for a variant not in the table)."""
    return BEST_HEURISTIC.get(variant, FALLBACK)
