"""Trace consumer: writes every event of a game as JSON lines (see ``docs/trace-format.md``).

The engine knows nothing about files; a :class:`TraceWriter` is just an ``emit``
callback. Keys are written sorted and without spaces so a seed's trace is
byte-identical from run to run.
"""

from __future__ import annotations

import json
from typing import IO, Any

from simcli.rules.presets import rules_diff
from simcli.rules.ruleset import RuleSet

TRACE_VERSION = 2


def game_header(rules: RuleSet, variant: str, seed: int, game_index: int, strategies: list[str],
                **extra: Any) -> dict[str, Any]:
    """What a trace header says about a game besides the trace version: the variant, seed, game index, seats, the
    rules in full and as changed from the preset, and the table's size; ``extra`` (a run's ``rotation``) after
    the game index."""
    return {"variant": variant, "seed": seed, "game_index": game_index, **extra, "strategies": strategies,
            "rules": rules.formatted(), "rules_diff": rules_diff(rules), "num_players": rules.num_players,
            "n_teams": rules.n_teams}


class TraceWriter:
    """An ``emit(kind, data)`` callback that writes ``{"seq", "event", ...data}`` lines to a text stream."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.seq = 0

    def header(self, **info: Any) -> None:
        """Write the first line: trace version, variant, rules and seating."""
        self("trace_header", {"trace_version": TRACE_VERSION, **info})

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        record = {"seq": self.seq, "event": kind, **data}
        self.seq += 1
        self.stream.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")


class EventLog:
    """An ``emit`` callback that keeps ``(kind, data)`` pairs in memory (tests, notebooks)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append((kind, data))

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        """The data of every event of ``kind``, in order."""
        return [d for k, d in self.events if k == kind]
