"""``simcli tournament S1,S2,...``: a round robin of duplicate matches, Elo ratings by maximum likelihood."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from simcli.commands.common import (
    BackendChoice,
    backend_options,
    build_rules,
    complete_strategy,
    json_flag,
    rule_option,
    rules_file_option,
    show_traceback,
    variant_option,
)
from simcli.commands.hints import again, build_hint, on_terminal, progress_bar
from simcli.commands.match import DEFAULT_GAMES, fmt_elo, pairs_from_games, strategy_spec
from simcli.duplicate.match import MatchError, MatchState, play_match, seat_strategies
from simcli.duplicate.pairs import elo_from_score
from simcli.duplicate.tournament import (
    StoredMatch,
    TournamentError,
    TournamentSpec,
    open_folder,
    play_schedule,
    results,
    stored_spec,
)
from simcli.rules.presets import load_rules
from simcli.runs.storage import atomic_write_bytes


def split_strategies(text: str) -> list[str]:
    """Split ``S1,S2,...``; a ``key=value`` token without a colon continues the previous entry's options."""
    out: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if out and "=" in token and ":" not in token:
            out[-1] += "," + token
        else:
            out.append(token)
    return out


def head_to_head(data: dict[str, Any]) -> tuple[list[str], dict[tuple[str, str], tuple[float, float, float]]]:
    """The strategies best first and, for every two of them, the row's score against the column with its 95%
    interval (from the match between them: B's score is 1 - A's, its interval the mirror image)."""
    order = [row["strategy"] for row in data["ratings"]]
    cells: dict[tuple[str, str], tuple[float, float, float]] = {}
    for m in data["matches"]:
        cells[(m["a"], m["b"])] = (m["score"], m["score_ci_low"], m["score_ci_high"])
        cells[(m["b"], m["a"])] = (1 - m["score"], 1 - m["score_ci_high"], 1 - m["score_ci_low"])
    return order, cells


def head_to_head_lines(data: dict[str, Any]) -> list[str]:
    """The head-to-head matrix as text: each row strategy's score against each column strategy, with intervals.
    Ratings can overlap where a match's own interval excludes 0.5: this is the direct evidence."""
    order, cells = head_to_head(data)
    width = max(22, *(len(s) for s in order))
    lines = ["head to head (score of the row against the column over their match, 95% interval):",
             " " * (width + 2) + "".join(f"{s[:22]:<24}" for s in order)]
    for r in order:
        row = "".join("-".ljust(24) if r == c else
                      f"{cells[(r, c)][0]:.3f} [{cells[(r, c)][1]:.3f}, {cells[(r, c)][2]:.3f}]".ljust(24)
                      for c in order)
        lines.append(f"  {r:<{width}}{row}".rstrip())
    lines[1] = lines[1].rstrip()
    return lines


def ratings_figure(data: dict[str, Any], out: Path) -> None:
    """The ratings as a horizontal interval plot (best on top) beside the head-to-head matrix (the row's score
    against the column, with its interval), saved as PNG or SVG."""
    from simcli.commands.plot import new_figure, save_figure

    rows = data["ratings"]
    spec = data["spec"]
    fig = new_figure(7.5 + 1.6 * len(rows), 1.6 + 0.6 * len(rows))
    ax = fig.add_subplot(1, 2, 1)
    y = list(range(len(rows)))[::-1]
    r = [row["rating"] for row in rows]
    low = [row["rating"] - row["ci_low"] for row in rows]
    high = [row["ci_high"] - row["rating"] for row in rows]
    ax.errorbar(r, y, xerr=[low, high], fmt="o", color="C0", ecolor="C0", capsize=4)
    ax.axvline(0, color="0.6", linestyle=":", linewidth=1)
    ax.set_yticks(y, [row["strategy"] for row in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("Elo rating (logistic scale, mean 0), 95% interval")
    ax.set_title("Elo ratings, 95% interval", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    matrix_panel(fig.add_subplot(1, 2, 2), data)
    fig.suptitle(f"variant {spec['variant']}: round robin of duplicate matches, {2 * spec['pairs']:,} games per "
                 f"match, seed {spec['seed']} ({data['method']})", fontsize=10)
    save_figure(fig, out)


def matrix_panel(ax: Any, data: dict[str, Any]) -> None:
    """The head-to-head matrix as a colour map of scores, each cell annotated with its score and interval."""
    import numpy as np

    order, cells = head_to_head(data)
    k = len(order)
    grid = np.full((k, k), np.nan)
    for i, r in enumerate(order):
        for j, c in enumerate(order):
            if r != c:
                grid[i, j] = cells[(r, c)][0]
    ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, r in enumerate(order):
        for j, c in enumerate(order):
            if r != c:
                score, low, high = cells[(r, c)]
                ax.text(j, i, f"{score:.3f}\n[{low:.3f}, {high:.3f}]", ha="center", va="center", fontsize=7,
                        color="white" if abs(score - 0.5) > 0.3 else "black")  # readable on the dark ends
    ax.set_xticks(range(k), order, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(k), order, fontsize=8)
    ax.set_title("head to head: score of the row against the column", fontsize=9)


def csv_bytes(rows: list[dict[str, Any]]) -> bytes:
    """Rows as CSV (header from the first row; a list value as its space-separated items)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (" ".join(map(str, v)) if isinstance(v, list) else v) for k, v in row.items()})
    return buffer.getvalue().encode()


def text_report(data: dict[str, Any], folder: Path) -> str:
    """Ratings table and match table as text."""
    lines = [f"ratings ({data['method']} intervals, 95%):",
             f"{'rank':>4}  {'strategy':<24} {'Elo':>6}  {'interval':<16} {'score':>6}  {'games':>6}"]
    for n, row in enumerate(data["ratings"], 1):
        interval = f"[{row['ci_low']:+.0f}, {row['ci_high']:+.0f}]"
        lines.append(f"{n:>4}  {row['strategy']:<24} {row['rating']:+6.0f}  {interval:<16} {row['score']:6.3f}  "
                     f"{row['games']:>6,}")
    lines += ["", "matches (score and Elo of A; pairs with A's points 0/0.5/1/1.5/2):"]
    for m in data["matches"]:
        # From the scores: the JSON has null for the infinite Elo of a clean sweep.
        elo, lo, hi = (elo_from_score(m[k]) for k in ("score", "score_ci_low", "score_ci_high"))
        lines.append(f"  {m['a']} vs {m['b']}: {m['score']:.3f} [{m['score_ci_low']:.3f}, {m['score_ci_high']:.3f}]"
                     f"  Elo {fmt_elo(elo)} [{fmt_elo(lo)}, {fmt_elo(hi)}]  pairs "
                     + "/".join(str(c) for c in m["pentanomial"]))
    lines += ["", *head_to_head_lines(data)]
    lines += ["", f"Saved: {folder}/ratings.json, ratings.csv, matches.csv, ratings.png"]
    return "\n".join(lines)


@contextmanager
def series_errors(bar: Any, out: Path, resume: Sequence[str]) -> Iterator[None]:
    """How a series of matches (``tournament``, ``ladder``) ends early: a failed match or a damaged folder is one
    line (with the strategy's traceback under ``--debug``), an unwritable folder names it, and Ctrl-C keeps every
    finished match, prints ``resume`` (the command that continues) and exits 130."""
    try:
        yield
    except (TournamentError, MatchError) as exc:
        bar.close()
        show_traceback(getattr(exc, "traceback", ""))
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write to {out}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        bar.close()
        click.echo(f"\ninterrupted: finished matches are saved in {out}; finish with:\n  {again(resume)}", err=True)
        sys.exit(130)


def advance(bar: Any, start: int) -> Callable[[MatchState, Any], None]:
    """A match's progress callback moving the tournament's bar to ``start`` plus the match's games so far."""
    def update(state: MatchState, _status: Any) -> None:
        bar.update(start + 2 * len(state.half_points) - bar.n)
    return update


@click.command()
@json_flag
@click.argument("strategies", required=False, shell_complete=complete_strategy)
@variant_option
@rule_option
@rules_file_option
@click.option("--seed", type=int, default=0, show_default=True, help="master seed (the same deals in every match)")
@click.option("--games", "-n", type=int, default=DEFAULT_GAMES, show_default=True,
              help="games per match (even: pairs of two)")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@backend_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="tournament folder [default: results/runs/tournament-<variant>-<time>]")
@click.option("--resume", is_flag=True, help="play only the matches missing in --out (verifying the others)")
@click.option("--bootstrap", type=click.IntRange(min=0), default=0, show_default=True,
              help="rating intervals from B resamples of the pairs (0: Fisher information)")
@click.option("--bootstrap-seed", type=int, default=0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="no progress lines")
@click.pass_context
def tournament(ctx: click.Context, strategies: str | None, variant: str, rules: tuple[str, ...],
               rules_file: Path | None, seed: int,
               games: int, jobs: int | None, backend: BackendChoice, out: Path | None, resume: bool, bootstrap: int,
               bootstrap_seed: int, fmt: str, quiet: bool) -> None:
    """Round robin of duplicate matches between the strategies S1,S2,...; Elo ratings with intervals."""
    def given(param: str) -> bool:
        return ctx.get_parameter_source(param) == ParameterSource.COMMANDLINE

    try:
        if resume:
            if out is None:
                raise click.ClickException("--resume needs --out DIR")
            stored = stored_spec(out)
            variant = variant if given("variant") else stored["variant"]
            seed = seed if given("seed") else stored["seed"]
            games = games if given("games") else 2 * int(stored["pairs"])
            strategies = strategies if strategies else ",".join(stored["strategies"])
            rs = (build_rules(variant, rules, rules_file) if rules or rules_file
                  else load_rules(variant, stored["rules"]))
        else:
            if not strategies:
                raise click.ClickException("give the strategies as S1,S2,... (at least two)")
            rs = build_rules(variant, rules, rules_file)
    except (TournamentError, KeyError, TypeError, ValueError) as exc:
        raise click.ClickException(str(exc).splitlines()[0] if str(exc) else "unreadable tournament") from None
    names = [strategy_spec(s) for s in split_strategies(strategies)]
    if len(names) < 2:
        raise click.ClickException(f"a tournament needs at least two strategies: got {strategies!r}")
    if len(set(names)) != len(names):
        raise click.ClickException(f"strategies must be different: got {', '.join(names)}")
    try:
        seat_strategies(names[0], names[1], rs.num_players, rs.n_teams, variant)
    except MatchError as exc:
        raise click.ClickException(str(exc)) from None
    if bootstrap == 0 and ctx.get_parameter_source("bootstrap_seed") == ParameterSource.COMMANDLINE:
        raise click.ClickException("--bootstrap-seed does nothing here: it seeds the resampling of --bootstrap B, "
                                   "which is not given")
    pairs = pairs_from_games(games, "--games")
    if bootstrap and pairs < 2:
        raise click.ClickException(f"--bootstrap resamples the pairs of each match: it needs at least 2 pairs "
                                   f"(--games 4), not {pairs}")
    spec = TournamentSpec(variant=variant, rules=rs.formatted(), strategies=tuple(names), seed=seed, pairs=pairs)
    if out is None:
        out = Path("results") / "runs" / f"tournament-{variant}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    jobs = jobs or os.cpu_count() or 1
    pool = backend.open(jobs)  # one backend for every match (one Dask cluster or client, not one per match)
    say = (lambda line: click.echo(line, err=True)) if fmt == "json" else click.echo
    schedule = spec.schedule()
    bar = progress_bar(2 * pairs * len(schedule), f"{variant} round robin", quiet=quiet)
    build_hint(2 * pairs * len(schedule), names, shown=on_terminal(quiet))
    if not bar.disable:
        say = bar.write  # lines above the bar, not through it
    with series_errors(bar, out, ['tournament', '--resume', '--out', str(out), *backend.words()]):
        open_folder(out, spec, resume, command=["simcli", *sys.argv[1:]])

        def play(i: int, j: int) -> MatchState:
            return play_match(variant, rs, names[i], names[j], seed, pairs, jobs=jobs, batch=min(pairs, 100),
                              progress=advance(bar, bar.n), backend=pool).state

        def settled(n: int, m: StoredMatch, reused: bool) -> None:
            a, b = names[m.i], names[m.j]
            if reused:
                bar.update(2 * pairs)
            if quiet:
                return
            if reused:
                say(f"match {n}/{len(schedule)}: {a} vs {b}: stored, verified (reused)")
            else:
                say(f"match {n}/{len(schedule)}: {a} vs {b}: score of {a} {sum(m.half_points) / (4 * pairs):.3f} "
                    f"over {2 * pairs:,} games")

        finished = play_schedule(out, spec, schedule, play, settled)
    bar.close()
    data = results(spec, finished, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)
    data["command"] = ["simcli", *sys.argv[1:]]
    try:
        atomic_write_bytes(out / "ratings.json", (json.dumps(data, indent=2) + "\n").encode())
        atomic_write_bytes(out / "ratings.csv", csv_bytes(data["ratings"]))
        atomic_write_bytes(out / "matches.csv", csv_bytes(data["matches"]))
    except OSError as exc:
        raise click.ClickException(f"cannot write to {out}: {exc.strerror or exc}") from None
    ratings_figure(data, out / "ratings.png")
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(text_report(data, out))
