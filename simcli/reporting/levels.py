"""A rule's effect by skill level (``sweep --levels``, ``compare`` of sweeps): each level's values, each value's
effect against the baseline value at its level, and the interaction (a value's effect at a level minus its effect
at the first level); as tables, documents and a figure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.reporting.figures import (
    axis_label,
    diff_unit,
    error_bars,
    new_figure,
    panel_grid,
    scale_of,
    short_labels,
    wrap,
)
from simcli.reporting.formatting import (
    fmt_count,
    fmt_diff,
    fmt_p,
    fmt_pp,
    fmt_unit,
    fmt_value,
    json_document,
    text_table,
)
from simcli.reporting.summaries import Study, diff_rows, study_page, summary_headers, summary_rows

if TYPE_CHECKING:  # imported when a command runs, so `simcli --help` stays fast
    import pandas as pd
    from matplotlib.figure import Figure

    from simcli.reporting.sweeps import Sweep
    from simcli.runs.results import Run
    from simcli.stats.metrics import Metric

LEVELS_SCHEMA = "simcli.sweep-levels/1"
#: One level: its label and its runs, one per value ``(value, run)``.
Level = tuple[str, list[tuple[str, "Run"]]]


def level_tables(levels: Sequence[Level], metrics: Sequence[Metric], key: str, paired: bool | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The values (every level's summary table stacked, ``level`` first), the effects and the interactions."""
    import pandas as pd

    from simcli import stats

    table = pd.concat([stats.summary_table(runs, metrics, key=key).assign(level=label) for label, runs in levels],
                      ignore_index=True)
    table = table[["level", *[c for c in table.columns if c != "level"]]]
    effects = stats.level_effects(levels, metrics, key=key)
    inter = stats.effect_interactions(levels, metrics, key=key, paired=paired)
    return table, effects, inter


def levels_long_table(table: pd.DataFrame, effects: pd.DataFrame, inter: pd.DataFrame, key: str) -> pd.DataFrame:
    """One row per (level, value, metric): the value with its interval, its effect against the baseline value
    (``diff*``, null on the baseline) and its interaction against the first level (``inter*``, null on the
    baseline and on the first level)."""
    from simcli import stats

    eff = effects.rename(columns={"test": "diff_test", "n": "n_pairs"})
    it = inter.rename(columns={c: f"inter_{c}" for c in inter.columns if c not in ("level", key, "metric")})
    it = it.drop(columns=["inter_baseline", "inter_effect"])
    on = ["level", key, "metric"]
    frames = [table.assign(**{key: table[key].astype(str)})]
    for extra in (eff, it):
        frames.append(frames[-1].merge(extra.assign(**{key: extra[key].astype(str)}), on=on, how="left"))
    return stats.integer_counts(frames[-1], ("n", "n_units", "n_pairs", "k", "inter_n"))


def interaction_rows(inter: pd.DataFrame, key: str) -> list[list[str]]:
    """Rows of a :func:`simcli.stats.effect_interactions` table for a text or Markdown table."""
    from simcli import stats

    rows = []
    for r in inter.to_dict(orient="records"):
        unit = stats.metric(r["metric"]).unit
        interaction, ci = fmt_diff(r["interaction"], r["ci_low"], r["ci_high"], unit)
        rows.append([f"{r['level']} vs {r['base_level']}", f"{r[key]} - {r['baseline']}", r["metric"],
                     fmt_count(r["n"]), fmt_pp(fmt_value(r["effect"], unit), unit),
                     fmt_pp(fmt_value(r["base_effect"], unit), unit), interaction, ci, r["test"], fmt_p(r["p"]),
                     fmt_p(r["p_holm"]), fmt_unit(unit)])
    return rows


#: The differences of a sweep by level, in its JSON (its text says them in the header): later minus first, as in
#: ``compare`` (B - A) and ``sweep`` (value - baseline).
LEVELS_DIFFERENCE = "effect = value - baseline; interaction = effect at a level - effect at the first level"
INTERACTION_HEADERS = ["levels", "value", "metric", "n", "effect", "effect (first level)", "interaction", "95% CI",
                       "test", "p", "p (Holm)", "unit"]


def render_levels(table: pd.DataFrame, effects: pd.DataFrame, inter: pd.DataFrame, long: pd.DataFrame, key: str,
                  fmt: str, header: Sequence[str], meta: dict[str, Any], schema: str = LEVELS_SCHEMA) -> str:
    """A levels sweep in ``table``, ``markdown``, ``csv`` (the long table) or ``json`` (``schema``, meta and the
    long rows)."""
    if fmt == "csv":
        return long.to_csv(index=False)
    if fmt == "json":
        return json_document(schema, meta, long)
    style = "markdown" if fmt == "markdown" else "table"
    value_rows = [[lvl, *row] for lvl, row in zip(table["level"], summary_rows(table, key), strict=True)]
    effect_rows = [[lvl, *row] for lvl, row in zip(effects["level"], diff_rows(effects, key), strict=True)]
    return "\n".join([
        *header, "", "Values:", "",
        text_table(["level", *summary_headers(key, table)], value_rows, style), "",
        f"Effects: each value against the baseline {key}={effects['baseline'].iloc[0]} at its level (p Holm over "
        f"all {len(effects)} level-value-metric rows):", "",
        text_table(["level", key, "metric", "n", "effect", "95% CI", "test", "p", "p (Holm)", "unit"],
                   effect_rows, style), "",
        f"Interactions: a value's effect at a level minus its effect at {inter['base_level'].iloc[0]} (does the "
        f"effect depend on the level? p Holm over all {len(inter)} rows):", "",
        text_table(INTERACTION_HEADERS, interaction_rows(inter, key), style)]) + "\n"


def levels_study(sweep: Sweep, levels: list[Level], strategies: dict[str, list[str]], image: str, fmt: str
                 ) -> Study:
    """A sweep by level's documents (``levels``: each level's runs, one per value, played by its ``strategies``;
    ``image``: the PNG's file name): values, effects and interactions, and the effects figure."""
    key, values = sweep.knob, sweep.values
    labels = [label for label, _ in levels]
    table, effects, inter = level_tables(levels, sweep.metrics, key)
    per_value = f"{sweep.games:,} games{sweep.seatings()} per level and value"
    header = [f"Sweep of {key} over {', '.join(values)} at levels {', '.join(labels)}: variant {sweep.variant}; "
              f"{per_value}, seed {sweep.seed}" + sweep.fixed_text("; "),
              "Every level and value shares the master seed, so game i is dealt the same cards in every run. "
              f"effect = value - baseline {key}={values[0]} at a level (paired on the game index); interaction "
              f"= effect at a level - effect at the first level {labels[0]} (paired on the game index: the "
              "mean of d_i(level) - d_i(first)); 95% intervals, p adjusted with Holm within each table."]
    meta = {"variant": sweep.variant, "knob": key, "values": values, "baseline": values[0], "levels": labels,
            "base_level": labels[0], "difference": LEVELS_DIFFERENCE, "level_strategies": strategies,
            "metrics": [m.name for m in sweep.metrics],
            "fixed": list(sweep.fixed), "games": sweep.games, "seed": sweep.seed,
            "rotate_seats": sweep.rotate_seats, "command": sweep.command,
            "runs": {s: {v: str(r.path) for v, r in runs} for s, runs in levels}}
    long = levels_long_table(table, effects, inter, key)
    title = f"variant {sweep.variant}: effect of {key} by level ({per_value}, seed {sweep.seed})"
    md = study_page(f"{key} sweep by level", sweep.command, [r for _, runs in levels for _, r in runs], image,
                    f"{key} effect by level", render_levels(table, effects, inter, long, key, "markdown", header, meta))
    fig = levels_figure(effects, inter, key, labels, sweep.metrics, title, f"{key}: {sweep.knob_help}")
    return Study(md, long, render_levels(table, effects, inter, long, key, "json", [], meta), fig,
                 render_levels(table, effects, inter, long, key, fmt, header, meta))


def levels_comparison(paths: Sequence[Path], doc: dict[str, Any], levels: list[Level], metrics: Sequence[Metric],
                      paired: bool, fmt: str) -> str:
    """``compare`` of stored sweeps (``paths``; ``doc``: the first one's table) in ``fmt``: every value's effect
    at each level and the interaction against the first level, ``paired`` on the game index or not."""
    key = doc["knob"]
    table, effects, inter = level_tables(levels, metrics, key, paired)
    labels = [label for label, _ in levels]
    header = [f"Effect of {key} by level: {', '.join(labels)} (sweeps {', '.join(map(str, paths))})",
              f"effect = value - baseline {key}={effects['baseline'].iloc[0]} within a level (paired on the game "
              f"index); interaction = effect at a level - effect at {labels[0]}, "
              + ("paired on the game index (the mean of d_i(level) - d_i(first))" if paired else
                 "unpaired (Welch on the per-unit effects)") + "; 95% intervals"]
    meta = {"sweeps": [str(p) for p in paths], "knob": key, "values": [v for v, _ in levels[0][1]],
            "levels": labels, "base_level": labels[0], "difference": LEVELS_DIFFERENCE, "paired": paired,
            "metrics": [m.name for m in metrics]}
    long = levels_long_table(table, effects, inter, key)
    return render_levels(table, effects, inter, long, key, fmt, header, meta, "simcli.compare-levels/1")


def levels_figure(effects: pd.DataFrame, inter: pd.DataFrame, key: str, level_specs: Sequence[str],
                  metrics: Sequence[Metric], title: str, caption: str = "") -> Figure:
    """One panel per metric: each value's effect (against the baseline value) at each level, with its 95%
    interval; ``*`` over a level marks an interaction with Holm-adjusted p < 0.05 (its effect differs from the
    first level's)."""
    import numpy as np

    per_row, blocks = panel_grid(len(metrics))
    fig = new_figure(4.4 * per_row, 3.8 * blocks + 1.4)
    ticks, legend = short_labels(list(level_specs), 12)
    values = list(dict.fromkeys(effects[key].astype(str)))
    width = 0.6 / max(1, len(values))
    for i, m in enumerate(metrics):
        ax = fig.add_subplot(blocks, per_row, i + 1)
        scale = scale_of(m)
        for j, v in enumerate(values):
            sub = effects[(effects["metric"] == m.name) & (effects[key].astype(str) == v)]
            pos = {s: n for n, s in enumerate(level_specs)}
            xs = np.array([pos[s] for s in sub["level"]], dtype=float) + (j - (len(values) - 1) / 2) * width
            y = sub["diff"].to_numpy(float) * scale
            lo, hi = sub["diff_ci_low"].to_numpy(float) * scale, sub["diff_ci_high"].to_numpy(float) * scale
            ax.errorbar(xs, y, yerr=error_bars(y, lo, hi), fmt="o", capsize=4, label=f"{key}={v}")
            marks = inter[(inter["metric"] == m.name) & (inter[key].astype(str) == v)]
            for x, top, p in zip(xs[1:], hi[1:], marks["p_holm"].to_numpy(float), strict=False):
                if p < 0.05:
                    ax.annotate("*", (x, top), ha="center", va="bottom", fontsize="large")
        ax.axhline(0, color="grey", linewidth=1)
        ax.margins(y=0.15)
        ax.set_xticks(range(len(level_specs)), ticks)
        ax.set_xlim(-0.5, len(level_specs) - 0.5)
        ax.set_ylabel(wrap(f"effect on {axis_label(m, summary=True)}".replace(f"({m.unit})", f"({diff_unit(m)})")
                           .replace("(%)", "(pp)"), 34), fontsize="small")
        ax.set_xlabel("level")
        ax.set_title(wrap(m.label, 40), fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize="small")
    fig.suptitle(title)
    baseline = effects["baseline"].iloc[0]
    notes = [caption, f"Each value's paired effect against {key}={baseline} at each level, with its 95% interval; "
                      f"* marks an interaction (effect at the level minus effect at {level_specs[0]}, paired on "
                      "the game index) with Holm-adjusted p < 0.05.", *(["; ".join(legend)] if legend else [])]
    fig.supxlabel(wrap("\n".join(n for n in notes if n), int(15 * 4.4 * per_row)), fontsize="small", ha="center")
    return fig
