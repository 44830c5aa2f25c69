"""A sweep of a rule knob: its settings, its figure (each value with its interval, and its paired difference from
the baseline) and its documents. The sweep by skill level is in :mod:`simcli.reporting.levels`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simcli.reporting.figures import (
    axis_label,
    diff_unit,
    error_bars,
    estimates,
    is_win_share,
    new_figure,
    observation_name,
    panel_grid,
    scale_of,
    seats_text,
    short_labels,
    wrap,
)
from simcli.reporting.summaries import SWEEP_DIFFERENCE, Study, render_summary, study_page

if TYPE_CHECKING:  # imported when a command runs, so `simcli --help` stays fast
    import pandas as pd
    from matplotlib.figure import Figure

    from simcli.runs.results import Run
    from simcli.stats.metrics import Metric


@dataclass(frozen=True)
class Sweep:
    """What a sweep plays: ``knob`` (described by ``knob_help``) at each of ``values`` (the first the baseline),
    every run on the same variant, fixed overrides, N, master seed and seatings; ``command`` regenerates it."""

    variant: str
    knob: str
    knob_help: str
    values: list[str]
    fixed: tuple[str, ...]
    games: int
    seed: int
    rotate_seats: bool
    metrics: list[Metric]
    command: str

    def fixed_text(self, sep: str, label: str = "fixed ") -> str:
        """``<sep><label>K=V, ...`` when some knob is fixed (else nothing)."""
        return f"{sep}{label}{', '.join(self.fixed)}" if self.fixed else ""

    def seatings(self) -> str:
        """`` x 2 seatings`` when every game is played again with the partnerships swapped."""
        return " x 2 seatings" if self.rotate_seats else ""


def sweep_study(sweep: Sweep, runs: list[tuple[str, Run]], strategies: list[str], image: str, fmt: str) -> Study:
    """A plain sweep's documents (``runs``: one per value, played by ``strategies``; ``image``: the PNG's file
    name): the summary table with the paired differences from the baseline value, and the sweep figure."""
    from simcli import stats

    key = sweep.knob
    table = stats.summary_table(runs, sweep.metrics, key=key)
    diffs = stats.baseline_differences(runs, sweep.metrics, key=key)
    strat = seats_text(strategies)
    per_value = f"{sweep.games:,} games{sweep.seatings()} per value"
    title = (f"variant {sweep.variant}: sweep of {key} (strategies {strat}; {per_value}, seed {sweep.seed})"
             + sweep.fixed_text("\n", "fixed: "))
    meta = {"variant": sweep.variant, "knob": key, "values": sweep.values, "baseline": sweep.values[0],
            "difference": SWEEP_DIFFERENCE, "fixed": list(sweep.fixed), "games": sweep.games, "seed": sweep.seed,
            "strategies": strategies, "rotate_seats": sweep.rotate_seats, "command": sweep.command,
            "runs": {v: str(r.path) for v, r in runs}}
    header = [f"Sweep of {key} over {', '.join(sweep.values)}: variant {sweep.variant}; strategies {strat}; "
              f"{per_value}, seed {sweep.seed}" + sweep.fixed_text("; "),
              "Runs share the master seed, so game i is dealt the same cards in every run (until the rules make "
              "play differ). n = observations (games or deals); units = independent units (game indices); "
              "95% intervals."]
    md = study_page(f"{key} sweep", sweep.command, [r for _, r in runs], image, f"{key} sweep",
                    render_summary(table, key, "markdown", header, "", {}, diffs))
    fig = sweep_figure(table, diffs, key, sweep.metrics, title, f"{key}: {sweep.knob_help}", sweep.rotate_seats)
    return Study(md, stats.with_differences(table, diffs, key),
                 render_summary(table, key, "json", [], "simcli.sweep/1", meta, diffs), fig,
                 render_summary(table, key, fmt, header, "simcli.sweep/1", meta, diffs))


def sweep_figure(table: pd.DataFrame, diffs: pd.DataFrame | None, x: str, metrics: Sequence[Metric],
                 title: str, caption: str = "", rotated: bool = False) -> Figure:
    """One column per metric: its value with the 95% interval against ``table[x]`` (numeric or categorical) on
    top, and below the paired difference from the first value (the baseline) with its 95% interval.

    The axes carry the short knob name and short tick labels; the full knob description (``caption``) and any
    long values go into a wrapped caption under the panels. ``rotated``: the runs hold seat-swapped twins (the
    strategy metrics then count pairs of twins).
    """
    import numpy as np

    per_row, blocks = panel_grid(len(metrics))
    with_diffs = diffs is not None and not diffs.empty
    rows = blocks * (2 if with_diffs else 1)
    fig = new_figure(4.4 * per_row, (6.4 if with_diffs else 3.6) * blocks + 1.2)
    values = list(dict.fromkeys(table[x].astype(str)))
    legend: list[str] = []
    try:
        positions = {v: float(v) for v in values}
        numeric = True
        ticks = values
    except ValueError:
        positions = {v: float(i) for i, v in enumerate(values)}
        numeric = False
        ticks, legend = short_labels(values)
    for i, m in enumerate(metrics):
        block, col = divmod(i, 3)
        ax = fig.add_subplot(rows, per_row, (block * (2 if with_diffs else 1)) * per_row + col + 1)
        sub = table[table["metric"] == m.name]
        scale = scale_of(m)
        xs = np.array([positions[str(v)] for v in sub[x]])
        y, lo, hi = estimates(sub, scale)
        ax.errorbar(xs, y, yerr=error_bars(y, lo, hi), fmt="o-" if numeric else "o", capsize=4, linewidth=1.4)
        if "expected" in sub.columns and sub["expected"].notna().any():  # a model's value (the cut model)
            ax.plot(xs, sub["expected"].to_numpy(float) * scale, marker="x", markersize=9, linestyle="--",
                    color="tab:green", linewidth=1, label="model", zorder=3)  # on top of the estimate
            ax.legend(loc="best", fontsize="small")
        if is_win_share(m):
            ax.axhline(50, color="grey", linestyle=":", linewidth=1)
        ax.set_xticks(list(positions.values()), ticks)
        if not numeric:
            ax.set_xlim(-0.5, len(values) - 0.5)
        ax.set_ylabel(wrap(axis_label(m, summary=True), 34), fontsize="small")
        ns = sub["n"].dropna().astype(int)
        n_text = f"{ns.min():,}" if ns.nunique() <= 1 else f"{ns.min():,}-{ns.max():,}"
        obs = observation_name(m, rotated)
        ax.set_title(wrap(f"{m.label} (n={n_text} {obs} per point)", 40),
                     fontsize="medium")
        ax.grid(alpha=0.3)
        if not with_diffs:
            ax.set_xlabel(x)
            continue
        ax.tick_params(labelbottom=False)
        assert diffs is not None  # with_diffs
        dax = fig.add_subplot(rows, per_row, (block * 2 + 1) * per_row + col + 1, sharex=ax)
        d = diffs[diffs["metric"] == m.name]
        base = values[0]
        dx = np.array([positions[base], *(positions[str(v)] for v in d[x])])
        dy = np.array([0.0, *(d["diff"].to_numpy(float) * scale)])
        dlo = np.array([0.0, *(d["diff_ci_low"].to_numpy(float) * scale)])
        dhi = np.array([0.0, *(d["diff_ci_high"].to_numpy(float) * scale)])
        dax.axhline(0, color="grey", linewidth=1)
        dax.margins(y=0.15)  # room for the significance stars above the bars
        dax.errorbar(dx[1:], dy[1:], yerr=error_bars(dy[1:], dlo[1:], dhi[1:]), fmt="s", color="tab:red",
                     capsize=4)
        dax.plot(dx[:1], dy[:1], marker="s", markerfacecolor="white", color="tab:red", linestyle="none")
        for xv, top, p in zip(dx[1:], dhi[1:], d["p_holm"].to_numpy(float), strict=True):
            if p < 0.05:
                dax.annotate("*", (xv, top), ha="center", va="bottom", fontsize="large", color="tab:red")
        dax.set_ylabel(f"difference from {wrap(base, 14) if numeric else ticks[0]} ({diff_unit(m)})",
                       fontsize="small")
        dax.set_xlabel(x)
        dax.grid(alpha=0.3)
    fig.suptitle(title)
    notes = [caption] if caption else []
    if with_diffs:
        notes.append(f"Top: each value with its 95% interval. Bottom: the paired difference from the baseline "
                     f"{values[0]} (hollow square), same deals game by game, with its 95% interval; * marks a "
                     "Holm-adjusted p < 0.05 over all values and metrics.")
    if legend:
        notes.append("; ".join(legend))
    if notes:
        fig.supxlabel(wrap("\n".join(notes), int(15 * 4.4 * per_row)), fontsize="small", ha="center")
    return fig
