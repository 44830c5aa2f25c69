"""Issue 22's invariant campaign: every variant's invariant checker (the oracles of ``tests/test_invariants*.py`` on
the shared harness of ``tests/invariant_harness.py``) over many games of each knob value issue 22 added or changed.
Run from the repository root:

    .venv/bin/python tests/issue22_invariants.py [SCALE]

``SCALE`` (default 1.0) multiplies the sample sizes. Prints, per knob value, what was played and what the
checker saw (its move counters), and exits non-zero on the first broken invariant (the checker raises).
Not collected by pytest (the name does not start with ``test_``): the default suite keeps its short samples.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import test_invariants as classic  # noqa: E402
import test_invariants_americana as americana  # noqa: E402
import test_invariants_ponytail as ponytail  # noqa: E402
import test_invariants_spanish as spanish  # noqa: E402

from simcli.rules.presets import load_rules  # noqa: E402

ASK = "probe_strategies:AskWhenOut"

#: (variant, knobs, games or deals) per campaign; Americana's harness plays single deals of fresh games.
CAMPAIGNS: list[tuple[str, dict[str, Any], int]] = [
    ("classic", {"num_players": 6}, 1000),
    ("classic", {"num_players": 6, "team_size": 2}, 1000),
    ("classic", {"draw_count": 2, "partial_draw_allowed": False}, 2000),
    ("classic", {"initial_meld_basis": "DEAL_NUMBER", "initial_meld_table": "HF_BY_DEAL"}, 2000),
    ("classic", {"ask_partner_permission": "REQUIRED"}, 2000),
    ("americana", {"empty_pile_no_dead_card": True}, 3000),
    ("americana", {"american_threes_sign": "-1,1,1"}, 3000),
    ("americana", {"special_hand_overrides_team_score": False}, 3000),
    ("americana", {"allow_8th_card_when_going_out": True}, 3000),
    ("ponytail", {"partial_draw_allowed": False}, 300),
    ("ponytail", {"initial_meld_basis": "DEAL_NUMBER", "initial_meld_table": "HF_BY_DEAL"}, 300),
    ("spanish", {"initial_meld_basis": "DEAL_NUMBER", "initial_meld_table": "BY_DEAL_NUMBER"}, 4000),
]


def run(variant: str, knobs: dict[str, Any], n: int, stats: Counter[str]) -> str:
    """Play ``n`` checked games (Americana: deals) of ``variant`` with ``knobs``; return what was played."""
    # The Spanish harness checks games capped at its MAX_HANDS deals (random play never reaches 5000).
    rules = spanish.spanish("4x2", **knobs) if variant == "spanish" else load_rules(variant, knobs)
    if variant == "classic":
        mixes = [[ASK] * rules.num_players] if knobs.get("ask_partner_permission") else [
            classic._names(rules, m) for m in range(3)]
        deals = sum(classic.play_checked(rules, mixes[g % len(mixes)], 2200 + g % len(mixes), [g], stats)
                    for g in range(n))
        return f"{n} games, {deals} deals"
    if variant == "americana":
        americana.play_checked(rules, [americana.R4, *americana.MIXED_SEATS], 2200, n, stats)
        return f"{n} deals"
    if variant == "ponytail":
        deals = 0
        for g in range(n):
            deals += ponytail.play_checked(rules, 2200 + g, 1, stats, mixes=(g % 3,))
        return f"{n} games, {deals} deals"
    deals = spanish.play_checked(rules, 2200, n, stats, mixes=(0, 1, 2))
    return f"{stats['games'] or '?'} games, {deals} deals"


def main(scale: float) -> None:
    for variant, knobs, n in CAMPAIGNS:
        stats: Counter[str] = Counter()
        t0 = time.perf_counter()
        played = run(variant, knobs, max(1, round(n * scale)), stats)
        knob_text = " ".join(f"{k}={v}" for k, v in knobs.items())
        seen = {k: v for k, v in sorted(stats.items()) if k not in ("events",)}
        print(f"{variant} {knob_text}: {played}, {stats['events']} events checked, "
              f"{time.perf_counter() - t0:.0f}s; {seen}", flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
