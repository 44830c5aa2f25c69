"""A sweep by level's check that its learnt level stayed strong under every value (issue 47, item 5).

``simcli sweep --levels ...,net,...`` plays, for each value of the swept knob and each learnt level (a ``net`` spec),
a small duplicate match of that level against the variant's heuristic under the value's rules (``--strength-games``,
default :data:`DEFAULT_GAMES`; 0: none), on the sweep's seed, and adds the scores and Elo to the study: a reader of
any study sees whether the strong level stayed strong under every value, and under which it did not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from simcli.duplicate.match import play_match
from simcli.players.best_heuristic import best_heuristic
from simcli.reporting.summaries import Study
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import Backend

#: Games of each strength match (50 duplicate pairs: a few seconds of `net` and its heuristic a value).
DEFAULT_GAMES = 100


def is_learnt(spec: str) -> bool:
    """Whether a level is the learnt player (``net``, ``net:model=...``)."""
    return spec.split(":", 1)[0].strip() == "net"


def strengths(variant: str, levels: Sequence[str], rules: Sequence[tuple[str, RuleSet]], games: int, seed: int,
              jobs: int, backend: Backend | str) -> list[dict[str, Any]]:
    """Each learnt level's duplicate match against the heuristic under each value's rules (``rules``: the value's
    label and rule set): games, A's score and Elo with their 95% intervals."""
    heuristic = best_heuristic(variant)
    out: list[dict[str, Any]] = []
    for level in levels:
        if not is_learnt(level) or games <= 0:
            continue
        for label, ruleset in rules:
            s = play_match(variant, ruleset, level, heuristic, seed, max(1, games // 2), jobs=jobs,
                           backend=backend).summary
            out.append({"level": level, "value": label, "against": heuristic, "games": s.games,
                        "score": round(s.score, 4), "score_ci": [round(s.score_ci_low, 4), round(s.score_ci_high, 4)],
                        "elo": round(s.elo, 1), "elo_ci": [round(s.elo_ci_low, 1), round(s.elo_ci_high, 1)]})
    return out


def strength_text(rows: Sequence[dict[str, Any]], seed: int) -> str:
    """The strength matches as a Markdown section (also the text printed)."""
    lines = ["", "## The learnt level under each value", "",
             f"Each learnt level against the variant's heuristic under each value's rules: a duplicate match on seed "
             f"{seed} (`simcli match LEVEL HEURISTIC --rule VALUE -n GAMES --seed {seed}`, --strength-games), score "
             "and Elo with 95% intervals.", "",
             "| level | value | against | games | score [95%] | Elo [95%] |", "|---|---|---|---:|---|---|"]
    for r in rows:
        lo, hi = r["score_ci"]
        elo_lo, elo_hi = r["elo_ci"]
        lines.append(f"| {r['level']} | {r['value']} | {r['against']} | {r['games']:,} | {r['score']:.3f} "
                     f"[{lo:.3f}, {hi:.3f}] | {r['elo']:+.0f} [{elo_lo:+.0f}, {elo_hi:+.0f}] |")
    return "\n".join(lines) + "\n"


def with_strengths(study: Study, rows: Sequence[dict[str, Any]], seed: int, fmt: str) -> Study:
    """The study with the strength matches: a section of its page and of its printed text, and a
    ``learnt_strength`` list in its JSON."""
    if not rows:
        return study
    text = strength_text(rows, seed)
    doc = json.loads(study.json)
    doc["learnt_strength"] = list(rows)
    printed = study.printed
    if fmt == "json":
        shown = json.loads(printed)
        shown["learnt_strength"] = list(rows)
        printed = json.dumps(shown, indent=2)
    else:
        printed = printed.rstrip("\n") + "\n" + text
    return replace(study, markdown=study.markdown.rstrip("\n") + "\n" + text, json=json.dumps(doc, indent=2),
                   printed=printed)
