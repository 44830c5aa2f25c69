"""The plans of ``plan``: the games an unpaired comparison or a duplicate match needs to detect a change of a
strategy's win share, and the games a levels sweep needs per level and value to detect a rule's effect and its
interaction with the level (from the per-unit spreads of a pilot sweep); as JSON-ready documents and text."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.reporting.formatting import fmt_count, text_table

if TYPE_CHECKING:
    from simcli.reporting.levels import Level
    from simcli.stats.metrics import Metric


def levels_plan(pilots: Sequence[Path], doc: dict[str, Any], levels: list[Level], m: Metric, effect: float,
                alpha: float, power: float) -> dict[str, Any]:
    """The games per level and value to detect an effect (and an interaction) of size ``effect`` on ``m`` at
    two-sided ``alpha`` and ``power``, from the pilot sweeps ``pilots`` (``doc``: the first one's table; ``levels``:
    their levels' runs). A :class:`~simcli.stats.StatsError` when the pilot cannot give the spreads."""
    from simcli import stats

    spreads = stats.effect_spreads(levels, [m], key="value")
    rows = []
    for r in spreads.to_dict(orient="records"):
        units = stats.units_needed(r["sd"], effect, alpha, power)
        rows.append({**r, "baseline": doc["values"][0], "needed_units": units,
                     "needed_games": units * (2 if doc.get("rotate_seats") else 1)})
    base_level = levels[0][0]
    return {"metric": m.name, "effect": effect, "alpha": alpha, "power": power, "pilot": [str(p) for p in pilots],
            "knob": doc["knob"], "levels": [lv for lv, _ in levels], "base_level": base_level,
            "rows": [{**r, "base_level": base_level if r["kind"] == "interaction" else None} for r in rows]}


def levels_plan_text(plan: dict[str, Any], m: Metric) -> str:
    """A :func:`levels_plan` as text: what it detects, how the games are counted, and one row per effect and
    interaction."""
    unit = "as a proportion, 0.05 = 5 points" if m.unit == "share" else m.unit
    table = [[r["kind"], r["level"] if r["kind"] == "effect" else f"{r['level']} vs {plan['base_level']}",
              f"{r['value']} - {r['baseline']}", fmt_count(r["n"]), f"{r['mean']:.4g}", f"{r['sd']:.4g}",
              fmt_count(r["needed_units"]), fmt_count(r["needed_games"])] for r in plan["rows"]]
    return "\n".join([
        f"plan for {m.name} ({unit}) from pilot {', '.join(plan['pilot'])}: detect a difference of "
        f"{plan['effect']:g} in the effect of {plan['knob']}, two-sided alpha {plan['alpha']:g}, power "
        f"{plan['power']:g}",
        "paired on the game index (normal approximation): units = ((z_{1-alpha/2} + z_power) * sd / effect)^2, "
        "sd of the pilot's per-unit differences; games = games per level and value (both seatings with "
        "--rotate-seats)", "",
        text_table(["kind", "level", "value", "pilot n", "pilot mean", "sd", "units", "games"], table, "table")])


def match_plan_text(plan: dict[str, Any], who: str | None) -> str:
    """The plan of a change of a strategy's win share (``who``: the strategy of ``strategy_win:NAME``, or None) as
    text: the games unpaired and, when planned, the pairs of a duplicate match."""
    base, effect = plan["base"], plan["effect"]
    label = f"{plan['metric']}" + ("" if who else " (the share of games a strategy wins, ties half)")
    lines = [f"plan for {label}: detect {base + effect:.3f} against {base:.3f} (effect {effect:+g}), "
             f"two-sided alpha {plan['alpha']:g}, power {plan['power']:g}",
             f"unpaired (independent games, normal approximation): {plan['unpaired_games']:,} games"]
    if plan["paired"] is not None:
        p = plan["paired"]
        where = (f" from pilot {p['path']} ({p['pairs']:,} pairs; observed win share of {p['strategy']} "
                 f"{p['observed_win_share']:.3f})") if "path" in p else " (given)"
        lines.append(f"paired (duplicate pairs, McNemar normal approximation): discordance {p['discordance']:.3f}"
                     f"{where}: {p['needed_pairs']:,} pairs = {p['needed_games']:,} games")
    return "\n".join(lines)
