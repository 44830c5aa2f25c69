"""``simcli plot``: distributions of a metric for one or more runs (histogram, ECDF or box plot).

Also the figure helpers of ``sweep`` and ``balance``. Figures are drawn on matplotlib's Agg canvas
(no pyplot, no global state, no display needed) and saved as PNG or SVG.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from simcli.commands.report import open_run

if TYPE_CHECKING:  # imported when a command runs, so `simcli --help` stays fast
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure

    from simcli import stats
    from simcli.runs.results import Run

KINDS = ["hist", "ecdf", "box", "ci"]
SUFFIXES = (".png", ".svg")
OBSERVATION = {"game": "games", "deal": "deals", "team-deal": "team-deals", "seat-deal": "seat-deals"}
PLOTTABLE = ("margin", "score_diff", "deals", "turns", "deal_turns", "deal_score", "going_out_score", "canastas",
             "canastas_natural", "canastas_mixed", "canastas_wild", "red_threes", "first_meld_turn", "pile_takes",
             "pile_cards_taken", "pile_take_max", "pony_pickup")


def new_figure(width: float = 8.0, height: float = 5.0) -> Figure:
    """A figure on the Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def check_image_path(out: Path) -> None:
    """Refuse an output file that is not .png or .svg (one-line CLI error)."""
    if out.suffix.lower() not in SUFFIXES:
        raise click.ClickException(f"--out {out}: the figure must be a .png or .svg file")


def save_figure(fig: Figure, out: Path) -> None:
    """Save a figure as PNG (150 dpi) or SVG, creating the folder."""
    check_image_path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=150, metadata={"Software": None} if out.suffix.lower() == ".png" else {"Date": None})
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror or exc}") from None


def axis_label(m: stats.Metric, summary: bool = False) -> str:
    """``label (unit)`` for an axis; with ``summary`` a mean metric reads ``mean label (unit)``. A label that ends
    in a parenthesis already gets the unit inside it (``pony pickup turn (when picked up; turn)``)."""
    label = f"mean {m.label}" if summary and m.kind == "mean" else m.label
    unit = "%" if m.unit == "share" else m.unit
    return f"{label[:-1]}; {unit})" if label.endswith(")") else f"{label} ({unit})"


def seats_text(names: Sequence[str]) -> str:
    """The seats' strategies for a title: ``ponytail x4`` when one strategy plays every seat, else the seats in
    order."""
    if len(set(names)) == 1:
        return f"{names[0]} x{len(names)}"
    return ", ".join(names)


def _bins(values: np.ndarray) -> np.ndarray | int:
    import numpy as np

    lo, hi = float(np.min(values)), float(np.max(values))
    if np.all(np.mod(values, 1) == 0) and hi - lo <= 80:
        return np.arange(lo - 0.5, hi + 1.5, 1.0)
    return np.histogram_bin_edges(values, bins=40)


def observation_name(m: stats.Metric, rotated: bool = False) -> str:
    """What one observation of ``m`` is, for ``n = ...`` labels: games, deals, ...; ``pairs of twins`` for a
    per-strategy metric (``strategy_win:NAME``, ``strategy_score:NAME``) of a rotated run, whose unit is the pair."""
    from simcli import stats

    if rotated and m.name.partition(":")[0] in stats.STRATEGY_METRICS:
        return "pairs of twins"
    return OBSERVATION.get(m.level, "observations")


def distribution_figure(samples: Sequence[tuple[str, np.ndarray]], m: stats.Metric, kind: str,
                        title: str, obs: str | None = None) -> Figure:
    """Histogram (share of observations, %), ECDF or box plot of one metric for several labelled samples
    (``obs``: what an observation is, default :func:`observation_name` of the metric)."""
    import numpy as np

    fig = new_figure()
    ax = fig.add_subplot()
    obs = obs or observation_name(m)
    labels = [f"{label} (n={len(v):,} {obs})" for label, v in samples]
    if kind == "hist":
        edges: Any = _bins(np.concatenate([v for _, v in samples]))
        single = len(samples) == 1
        for (_, v), label in zip(samples, labels, strict=True):
            ax.hist(v, bins=edges, weights=np.full(len(v), 100.0 / len(v)), label=label,
                    histtype="stepfilled" if single else "step", alpha=0.75 if single else 1.0, linewidth=1.6)
        ax.set_xlabel(axis_label(m))
        ax.set_ylabel(f"share of {obs} (%)")
    elif kind == "ecdf":
        for (_, v), label in zip(samples, labels, strict=True):
            ax.ecdf(v, label=label, linewidth=1.6)
        ax.set_xlabel(axis_label(m))
        ax.set_ylabel(f"cumulative share of {obs}")
    elif kind == "box":
        ax.boxplot([v for _, v in samples], tick_labels=[lbl.replace(" (n=", "\n(n=") for lbl in labels],
                   showmeans=True)
        ax.set_ylabel(axis_label(m))
        ax.set_xlabel("run (triangle = mean, line = median, box = quartiles, whiskers = 1.5 IQR)")
    else:
        raise click.ClickException(f"unknown --kind '{kind}'; allowed: {', '.join(KINDS)}")
    if kind != "box":
        ax.legend(loc="best", fontsize="small")
    ax.grid(alpha=0.3)
    ax.set_title(title)
    return fig


def short_labels(values: Sequence[str], width: int = 10) -> tuple[list[str], list[str]]:
    """Tick labels for categorical values: the values when all are short, else ``v1``, ``v2``, ... with the
    lines ``v1 = full value`` for a caption (so long values never overlap on an axis)."""
    if all(len(v) <= width for v in values):
        return list(values), []
    labels = [f"v{i + 1}" for i in range(len(values))]
    return labels, [f"{label} = {v}" for label, v in zip(labels, values, strict=True)]


def wrap(text: str, width: int) -> str:
    """``text`` wrapped to lines of at most ``width`` characters (existing line breaks kept)."""
    import textwrap

    return "\n".join(textwrap.fill(line, width) if line else "" for line in text.split("\n"))


def sweep_figure(table: pd.DataFrame, diffs: pd.DataFrame | None, x: str, metrics: Sequence[stats.Metric],
                 title: str, caption: str = "", rotated: bool = False) -> Figure:
    """One column per metric: its value with the 95% interval against ``table[x]`` (numeric or categorical) on
    top, and below the paired difference from the first value (the baseline) with its 95% interval.

    The axes carry the short knob name and short tick labels; the full knob description (``caption``) and any
    long values go into a wrapped caption under the panels. ``rotated``: the runs hold seat-swapped twins (the
    strategy metrics then count pairs of twins).
    """
    import numpy as np

    per_row = min(len(metrics), 3)
    blocks = -(-len(metrics) // 3)
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
        scale = 100.0 if m.unit == "share" else 1.0
        xs = np.array([positions[str(v)] for v in sub[x]])
        y = sub["value"].to_numpy(float) * scale
        lo = sub["ci_low"].to_numpy(float) * scale
        hi = sub["ci_high"].to_numpy(float) * scale
        ax.errorbar(xs, y, yerr=[y - lo, hi - y], fmt="o-" if numeric else "o", capsize=4, linewidth=1.4)
        if "expected" in sub.columns and sub["expected"].notna().any():  # a model's value (the cut model)
            ax.plot(xs, sub["expected"].to_numpy(float) * scale, marker="x", markersize=9, linestyle="--",
                    color="tab:green", linewidth=1, label="model", zorder=3)  # on top of the estimate
            ax.legend(loc="best", fontsize="small")
        if m.name in ("first_player_win", "dealer_win", "win_team_0", "win_team_1") or m.name.startswith(
                "strategy_win:"):
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
        dax.errorbar(dx[1:], dy[1:], yerr=[dy[1:] - dlo[1:], dhi[1:] - dy[1:]], fmt="s", color="tab:red",
                     capsize=4)
        dax.plot(dx[:1], dy[:1], marker="s", markerfacecolor="white", color="tab:red", linestyle="none")
        for xv, top, p in zip(dx[1:], dhi[1:], d["p_holm"].to_numpy(float), strict=True):
            if p < 0.05:
                dax.annotate("*", (xv, top), ha="center", va="bottom", fontsize="large", color="tab:red")
        unit = "pp" if m.unit == "share" else m.unit
        dax.set_ylabel(f"difference from {wrap(base, 14) if numeric else ticks[0]} ({unit})", fontsize="small")
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


def forest_figure(table: pd.DataFrame, group: str, metrics: Sequence[stats.Metric], title: str,
                  panel_width: float = 4.2, rotated: bool = False, panel_labels: bool = True) -> Figure:
    """One panel per metric: each group's value with its 95% interval as a horizontal bar (``rotated``: the runs
    hold seat-swapped twins, so the per-strategy metrics count pairs of twins)."""
    import numpy as np

    groups = list(dict.fromkeys(table[group].astype(str)))
    cols = min(len(metrics), 3)
    rows = -(-len(metrics) // 3)
    fig = new_figure(panel_width * cols, max(2.4, 0.5 * len(groups) + 1.8) * rows)
    for i, m in enumerate(metrics):
        ax = fig.add_subplot(rows, cols, i + 1)
        sub = table[table["metric"] == m.name].set_index(table[table["metric"] == m.name][group].astype(str))
        sub = sub.reindex(groups)
        scale = 100.0 if m.unit == "share" else 1.0
        y = np.arange(len(groups))
        v = sub["value"].to_numpy(float) * scale
        lo = sub["ci_low"].to_numpy(float) * scale
        hi = sub["ci_high"].to_numpy(float) * scale
        ax.errorbar(v, y, xerr=[v - lo, hi - v], fmt="o", capsize=4)
        if m.name in ("first_player_win", "dealer_win", "win_team_0", "win_team_1") or m.name.startswith(
                "strategy_win:"):
            ax.axvline(50, color="grey", linestyle=":", linewidth=1)
        ax.set_yticks(y, [f"{g}\n(n={int(n):,})" for g, n in zip(groups, sub["n"].fillna(0), strict=True)])
        ax.set_ylim(-0.8, len(groups) - 0.2)
        ax.invert_yaxis()
        ax.set_xlabel(axis_label(m, summary=True))
        # Without panel_labels the figure title names the one metric already: say only what the bars are.
        head = f"{m.label}\n" if panel_labels else ""
        ax.set_title(f"{head}(95% CI; n = {observation_name(m, rotated)})", fontsize="medium")
        ax.grid(alpha=0.3, axis="x")
    fig.suptitle(title)
    return fig


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Short unique labels for runs: their folder names (with the parent folder when names repeat)."""
    names = [r.path.name or str(r.path) for r in runs]
    if len(set(names)) < len(names):
        names = [f"{r.path.parent.name}/{r.path.name}" for r in runs]
    if len(set(names)) < len(names):
        names = [str(r.path) for r in runs]
    return names


def metric_samples(runs: Sequence[Run], m: stats.Metric, labels: Sequence[str]) -> list[tuple[str, np.ndarray]]:
    """Each run's observations of a metric (a run without any fails with one line)."""
    from simcli import stats

    out = []
    for run, label in zip(runs, labels, strict=True):
        try:
            v = stats.observations(run, m)["value"].to_numpy(float)
        except stats.StatsError as exc:
            raise click.ClickException(f"{run.path}: {exc}") from None
        if len(v) == 0:
            raise click.ClickException(f"{run.path}: no observations of {m.name}")
        out.append((label, v))
    return out


def default_title(runs: Sequence[Run], m: stats.Metric) -> str:
    """A title naming the metric and, for one run, its variant, strategies and N."""
    if len(runs) == 1:
        mf = runs[0].manifest
        strategies: list[Any] = mf.get("strategies") or []
        rules = ", ".join(f"{k}={v}" for k, v in (mf.get("rules_diff") or {}).items())
        return (f"{m.label}: variant {mf.get('variant')}; strategies {seats_text([str(s) for s in strategies])}; "
                f"{len(runs[0].games):,} games, seed {mf.get('seed')}" + (f"\n{rules}" if rules else ""))
    return f"{m.label}: {len(runs)} runs"


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--metric", "metric_name", required=True, metavar="NAME",
              help=f"what to plot; one of {', '.join(PLOTTABLE)}, strategy_score:NAME; a share such as "
                   "strategy_win:NAME with --kind ci")
@click.option("--kind", type=click.Choice(KINDS), default=None,
              help="hist, ecdf or box: the distribution (default hist); ci: each run's estimate with its 95% "
                   "interval (the default for shares such as strategy_win:NAME)")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="FILE.png or FILE.svg")
@click.option("--title", help="figure title [default: metric, variant, strategies, N]")
def plot(run_dirs: tuple[Path, ...], metric_name: str, kind: str | None, out: Path, title: str | None) -> None:
    """Plot the distribution of a metric for one or more runs (several runs overlay, with a legend), or with
    ``--kind ci`` each run's estimate and 95% interval."""
    from simcli import stats

    check_image_path(out)
    try:
        m = stats.metric(metric_name)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    kind = kind or ("ci" if m.kind == "rate" else "hist")
    if m.kind != "mean" and kind != "ci":
        raise click.ClickException(f"metric '{m.name}' is a share: --kind {kind} shows a distribution, so use "
                                   f"--kind ci (its estimate and interval), or one of: {', '.join(PLOTTABLE)}")
    runs = [open_run(p) for p in run_dirs]
    labels = run_labels(runs)
    obs = observation_name(m, any(stats.is_rotated(r.games) for r in runs))
    if kind == "ci":
        try:
            table = stats.summary_table(list(zip(labels, runs, strict=True)), [m])
        except stats.StatsError as exc:
            raise click.ClickException(str(exc)) from None
        fig = forest_figure(table, "run", [m], title or default_title(runs, m), panel_width=8.0,
                            rotated=obs == "pairs of twins", panel_labels=False)
        save_figure(fig, out)
        click.echo(f"wrote {out} ({m.name}, ci, " + ", ".join(
            f"{lbl}: n={int(n):,} {obs}" for lbl, n in zip(table["run"], table["n"], strict=True)) + ")")
        return
    samples = metric_samples(runs, m, labels)
    fig = distribution_figure(samples, m, kind, title or default_title(runs, m), obs)
    save_figure(fig, out)
    click.echo(f"wrote {out} ({m.name}, {kind}, " + ", ".join(f"{lbl}: n={len(v):,} {obs}" for lbl, v in samples)
               + ")")
