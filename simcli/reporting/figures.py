"""Figures: the canvas, saving, axis labels, and the figures of ``plot`` (a metric's distribution over runs, or
each run's estimate) and ``balance`` (each group's estimates with their intervals).

Figures are drawn on matplotlib's Agg canvas (no pyplot, no global state, no display needed) and saved as PNG
or SVG. The sweep's figures are in :mod:`simcli.reporting.sweeps` and :mod:`simcli.reporting.levels`, the
tournament's and the ladder's in :mod:`simcli.reporting.matches`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.reporting.errors import ReportError
from simcli.reporting.runs import run_labels

if TYPE_CHECKING:  # imported when a command runs, so `simcli --help` stays fast
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure

    from simcli import stats
    from simcli.runs.results import Run

#: What ``plot --kind`` draws: a histogram, an ECDF, a box plot, or each run's estimate with its interval.
KINDS = ["hist", "ecdf", "box", "ci"]
OBSERVATION = {"game": "games", "deal": "deals", "team-deal": "team-deals", "seat-deal": "seat-deals"}
#: Metrics drawn against a 50% line: a team's or strategy's win rate.
WIN_SHARES = ("first_player_win", "dealer_win", "win_team_0", "win_team_1")


# ---------------------------------------------------------------------------------- canvas and labels
def new_figure(width: float = 8.0, height: float = 5.0) -> Figure:
    """A figure on the Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, out: Path) -> None:
    """Save a figure as PNG (150 dpi) or SVG, creating the folder."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=150, metadata={"Software": None} if out.suffix.lower() == ".png" else {"Date": None})
    except OSError as exc:
        raise ReportError(f"cannot write {out}: {exc.strerror or exc}") from None


def panel_grid(n: int) -> tuple[int, int]:
    """Columns and rows of ``n`` panels, three to a row."""
    return min(n, 3), -(-n // 3)


def error_bars(y: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
    """matplotlib's ``yerr`` for estimates ``y`` with 95% intervals ``[lo, hi]``: the distances below and above,
    never negative. An exact interval whose end is its estimate (every discordant pair of a paired 0/1 rate one way)
    can come out an ulp inside it, which matplotlib refuses."""
    import numpy as np

    return [np.maximum(y - lo, 0.0), np.maximum(hi - y, 0.0)]


def scale_of(m: stats.Metric) -> float:
    """The factor that draws a metric in its axis unit: shares as percentages."""
    return 100.0 if m.unit == "share" else 1.0


def diff_unit(m: stats.Metric) -> str:
    """The unit of a difference of ``m``: percentage points for shares."""
    return "pp" if m.unit == "share" else m.unit


def is_win_share(m: stats.Metric) -> bool:
    """Whether ``m`` is a win rate, drawn against the 50% line."""
    return m.name in WIN_SHARES or m.name.startswith("strategy_win:")


def estimates(sub: pd.DataFrame, scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A table's ``value``, ``ci_low`` and ``ci_high`` columns as arrays in the axis unit."""
    return (sub["value"].to_numpy(float) * scale, sub["ci_low"].to_numpy(float) * scale,
            sub["ci_high"].to_numpy(float) * scale)


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


def observation_name(m: stats.Metric, rotated: bool = False) -> str:
    """What one observation of ``m`` is, for ``n = ...`` labels: games, deals, ...; ``pairs of twins`` for a
    per-strategy metric (``strategy_win:NAME``, ``strategy_score:NAME``) of a rotated run, whose unit is the pair."""
    from simcli import stats

    if rotated and m.name.partition(":")[0] in stats.STRATEGY_METRICS:
        return "pairs of twins"
    return OBSERVATION.get(m.level, "observations")


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


# ---------------------------------------------------------------------------------------- plot
def _bins(values: np.ndarray) -> np.ndarray | int:
    import numpy as np

    lo, hi = float(np.min(values)), float(np.max(values))
    if np.all(np.mod(values, 1) == 0) and hi - lo <= 80:
        return np.arange(lo - 0.5, hi + 1.5, 1.0)
    return np.histogram_bin_edges(values, bins=40)


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
        raise ReportError(f"unknown --kind '{kind}'; allowed: {', '.join(KINDS)}")
    if kind != "box":
        ax.legend(loc="best", fontsize="small")
    ax.grid(alpha=0.3)
    ax.set_title(title)
    return fig


def metric_samples(runs: Sequence[Run], m: stats.Metric, labels: Sequence[str]) -> list[tuple[str, np.ndarray]]:
    """Each run's observations of a metric (a run without any is a :class:`ReportError`)."""
    from simcli import stats

    out = []
    for run, label in zip(runs, labels, strict=True):
        try:
            v = stats.observation_values(run, m)
        except stats.StatsError as exc:
            raise ReportError(f"{run.path}: {exc}") from None
        if len(v) == 0:
            raise ReportError(f"{run.path}: no observations of {m.name}")
        out.append((label, v))
    return out


def default_title(runs: Sequence[Run], m: stats.Metric) -> str:
    """A title naming the metric and, for one run, its variant, strategies and N; for several runs, the settings
    that differ between them (variant, strategies, N, seed or a rule knob) and then those they share."""
    if len(runs) == 1:
        mf = runs[0].manifest
        strategies: list[Any] = mf.get("strategies") or []
        rules = ", ".join(f"{k}={v}" for k, v in (mf.get("rules_diff") or {}).items())
        return (f"{m.label}: variant {mf.get('variant')}; strategies {seats_text([str(s) for s in strategies])}; "
                f"{len(runs[0].games):,} games, seed {mf.get('seed')}" + (f"\n{rules}" if rules else ""))
    differ, shared = runs_settings(runs)
    head = "; ".join(differ) if differ else f"{len(runs)} runs of the same settings"
    return f"{m.label}: {head}" + (f"\n{'; '.join(shared)}" if shared else "")


def runs_settings(runs: Sequence[Run]) -> tuple[list[str], list[str]]:
    """What differs between runs (``going_out_bonus 100 vs 300``, ``seed 1 vs 2``: each setting with its values in
    the runs' order) and what they share (``variant classic``, ``strategies greedy x4``, ``1,000 games``,
    ``seed 2``), for the title of a figure of several runs."""
    manifests = [r.manifest for r in runs]
    settings: dict[str, list[str]] = {
        "variant": [str(mf.get("variant")) for mf in manifests],
        "strategies": [seats_text([str(s) for s in mf.get("strategies") or []]) for mf in manifests],
        "games": [f"{len(r.games):,}" for r in runs],
        "seed": [str(mf.get("seed")) for mf in manifests],
    }
    # Every knob whose value differs between the runs (the full rule sets, so a knob one run changed and another
    # left at its preset value is named too).
    rules = [mf.get("rules") or {} for mf in manifests]
    for knob in dict.fromkeys(k for r in rules for k in r):
        values = [str(r.get(knob, "-")) for r in rules]
        if len(set(values)) > 1:
            settings[knob] = values
    differ, shared = [], []
    for name, values in settings.items():
        if len(set(values)) > 1:
            differ.append(f"{name} {' vs '.join(values)}")
        else:
            shared.append(f"{values[0]} games" if name == "games" else f"{name} {values[0]}")
    return differ, shared


def metric_figure(runs: Sequence[Run], m: stats.Metric, kind: str, title: str | None = None) -> tuple[Figure, str]:
    """``plot``'s figure of ``m`` over ``runs`` (labelled by :func:`run_labels`): the distribution (``kind`` hist,
    ecdf or box) or each run's estimate with its interval (``ci``); and what it shows, ``(metric, kind, label:
    n=N observations, ...)``."""
    from simcli import stats

    labels = run_labels(runs)
    obs = observation_name(m, any(stats.is_rotated(r.games) for r in runs))
    if kind == "ci":
        try:
            table = stats.summary_table(list(zip(labels, runs, strict=True)), [m])
        except stats.StatsError as exc:
            raise ReportError(str(exc)) from None
        fig = forest_figure(table, "run", [m], title or default_title(runs, m), panel_width=8.0,
                            rotated=obs == "pairs of twins", panel_labels=False)
        return fig, f"({m.name}, ci, " + ", ".join(
            f"{lbl}: n={int(n):,} {obs}" for lbl, n in zip(table["run"], table["n"], strict=True)) + ")"
    samples = metric_samples(runs, m, labels)
    fig = distribution_figure(samples, m, kind, title or default_title(runs, m), obs)
    return fig, f"({m.name}, {kind}, " + ", ".join(f"{lbl}: n={len(v):,} {obs}" for lbl, v in samples) + ")"


# -------------------------------------------------------------------------------------- intervals
def forest_figure(table: pd.DataFrame, group: str, metrics: Sequence[stats.Metric], title: str,
                  panel_width: float = 4.2, rotated: bool = False, panel_labels: bool = True) -> Figure:
    """One panel per metric: each group's value with its 95% interval as a horizontal bar (``rotated``: the runs
    hold seat-swapped twins, so the per-strategy metrics count pairs of twins)."""
    import numpy as np

    groups = list(dict.fromkeys(table[group].astype(str)))
    cols, rows = panel_grid(len(metrics))
    fig = new_figure(panel_width * cols, max(2.4, 0.5 * len(groups) + 1.8) * rows)
    for i, m in enumerate(metrics):
        ax = fig.add_subplot(rows, cols, i + 1)
        sub = table[table["metric"] == m.name].set_index(table[table["metric"] == m.name][group].astype(str))
        sub = sub.reindex(groups)
        y = np.arange(len(groups))
        v, lo, hi = estimates(sub, scale_of(m))
        ax.errorbar(v, y, xerr=[v - lo, hi - v], fmt="o", capsize=4)
        if is_win_share(m):
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
