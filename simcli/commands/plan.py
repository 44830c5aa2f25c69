"""``simcli plan``: games needed to detect a change of a strategy's win share (normal approximation)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from simcli.commands.common import json_flag
from simcli.commands.output import reported
from simcli.duplicate.pairs import DuplicateError
from simcli.duplicate.power import discordance, games_unpaired, pairs_paired, twin_differences
from simcli.reporting.plans import levels_plan, levels_plan_text, match_plan_text

METRICS = ("strategy_win",)


def parse_metric(text: str) -> str | None:
    """``strategy_win`` or ``strategy_win:NAME``; returns NAME (or None)."""
    name, sep, who = text.partition(":")
    if name not in METRICS or (sep and not who):
        raise click.ClickException(f"unknown --metric '{text}': allowed is strategy_win or strategy_win:NAME")
    return who or None


def pilot_discordance(folder: Path, who: str | None) -> dict[str, Any]:
    """The discordance of the twin games of a pilot run (one with --rotate-seats), with its provenance."""
    from simcli.runs.results import scan

    try:
        run = scan(folder)  # the games table is all a pilot's discordance needs
        run.games  # noqa: B018 - read here, where a damaged table is the pilot's one-line error
    except (FileNotFoundError, OSError, ValueError) as exc:
        raise click.ClickException(f"cannot read pilot {folder}: {str(exc).splitlines()[0]}") from None
    manifest = run.manifest
    if not manifest.get("rotate_seats"):
        raise click.ClickException(f"pilot {folder} was played without --rotate-seats: it has no twin games to "
                                   f"estimate the discordance from")
    names = list(manifest.get("strategies") or [])
    if not names or run.games.empty or "winner_team" not in run.games.columns:
        raise click.ClickException(f"pilot {folder} has no games")
    if any(c.startswith("score_team_") and c != "score_team_0" and c != "score_team_1" for c in run.games.columns):
        raise click.ClickException(f"pilot {folder} has more than two teams: twins swap two sides only")
    sides = [sorted(set(names[0::2])), sorted(set(names[1::2]))]
    if sides[0] == sides[1]:
        raise click.ClickException(f"pilot {folder} plays {', '.join(sides[0])} on both teams: its twin games are "
                                   f"copies, with no discordance to measure")
    if who is not None and sum(who in side for side in sides) != 1:
        raise click.ClickException(f"strategy '{who}' does not play on exactly one team of pilot {folder} "
                                   f"(team 0: {', '.join(sides[0])}; team 1: {', '.join(sides[1])})")
    d = twin_differences(run.games)
    try:
        psi = discordance(d.tolist())
    except DuplicateError as exc:
        raise click.ClickException(f"pilot {folder}: {exc}") from None
    # d is team 0's points minus its twin's: the pair points of the team-0 strategy minus 1.
    share0 = 0.5 + float(d.mean()) / 2
    side = 0 if who is None or who in sides[0] else 1
    return {"path": str(folder), "pairs": int(d.size), "discordance": psi,
            "strategy": who or "/".join(sides[0]),
            "observed_win_share": share0 if side == 0 else 1 - share0}


def plan_levels(pilots: tuple[Path, ...], docs: list[Path], metric: str | None, effect: float, power: float,
                alpha: float, fmt: str) -> None:
    """Games per level (and value) to detect a rule's effect of size ``effect`` on ``metric``, and the games per
    level and value to detect an interaction of that size, from the per-unit spreads of a levels-sweep pilot."""
    from simcli import stats
    from simcli.reporting.sweep_files import gather_levels, sweep_metrics

    doc, level_runs = gather_levels(list(pilots), docs, None)
    allowed = ", ".join(sweep_metrics(doc))
    if metric is None:
        raise click.ClickException(f"--metric: a levels pilot needs the one metric --effect is measured in, e.g. "
                                   f"one of the pilot's: {allowed}")
    try:
        chosen = stats.parse_metrics(metric, [])
        if len(chosen) != 1:
            raise stats.StatsError(f"--metric '{metric}' names {len(chosen)} metrics; --effect is in the units of "
                                   f"one (the pilot's: {allowed})")
        out = levels_plan(pilots, doc, level_runs, chosen[0], effect, alpha, power)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(out, indent=2) if fmt == "json" else levels_plan_text(out, chosen[0]))


@click.command()
@json_flag
@click.option("--metric", default=None,
              help="strategy_win or strategy_win:NAME [default: strategy_win]; with a sweep --pilot, the sweep "
                   "metric --effect is in")
@click.option("--effect", type=float, required=True, help="change of the win share to detect (0.02 = 2 points)")
@click.option("--paired", is_flag=True, help="also plan a duplicate match (pairs of twin games)")
@click.option("--power", type=float, default=0.8, show_default=True)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="two-sided significance level")
@click.option("--base", type=float, default=0.5, show_default=True, help="win share under the null (unpaired)")
@click.option("--pilot", "pilots", multiple=True, type=click.Path(path_type=Path),
              help="run directory played with --rotate-seats: estimates the discordance for --paired; or a levels "
                   "sweep (or one sweep per level, repeated): plans the games per level and for the interaction")
@click.option("--discordance", "psi", type=float, help="discordance for --paired, instead of --pilot")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@reported
def plan(metric: str | None, effect: float, paired: bool, power: float, alpha: float, base: float,
         pilots: tuple[Path, ...], psi: float | None, fmt: str) -> None:
    """Print the games needed to detect a change of a strategy's win share, unpaired and (--paired) duplicate;
    or, from a levels-sweep pilot, the games per level to detect a rule's effect and its interaction with the
    level."""
    from simcli.reporting.sweep_files import sweep_file

    docs = [sweep_file(p) for p in pilots]
    if docs and all(d is not None for d in docs):
        ctx = click.get_current_context()
        given = [f"--{n}" for n in ("paired", "base", "discordance")
                 if ctx.get_parameter_source("psi" if n == "discordance" else n) is not ParameterSource.DEFAULT]
        if given:
            raise click.ClickException(f"{', '.join(given)} plan a duplicate match; a sweep --pilot plans paired "
                                       f"rule effects by level: drop {', '.join(given)}")
        return plan_levels(pilots, [d for d in docs if d is not None], metric, effect, power, alpha, fmt)
    if len(pilots) > 1:  # sweeps only were planned above
        raise click.ClickException("give one run --pilot (a run played with --rotate-seats), or sweeps only")
    pilot = pilots[0] if pilots else None
    metric = metric or "strategy_win"
    who = parse_metric(metric)
    if (pilot is not None or psi is not None) and not paired:
        raise click.ClickException("--pilot and --discordance go with --paired")
    if paired and (pilot is None) == (psi is None):
        raise click.ClickException("--paired needs the discordance of twin games: give --pilot RUN_DIR (a run with "
                                   "--rotate-seats) or --discordance D")
    if paired and base != 0.5:
        raise click.ClickException("--paired tests a win share against 1/2 (the two seatings are symmetric); "
                                   "drop --base")
    try:
        unpaired = games_unpaired(base, effect, alpha, power)
        out: dict[str, Any] = {"metric": metric, "effect": effect, "alpha": alpha, "power": power, "base": base,
                               "unpaired_games": unpaired, "paired": None}
        if paired:
            source: dict[str, Any] = (pilot_discordance(pilot, who) if pilot is not None
                                      else {"discordance": psi})
            n_pairs = pairs_paired(float(source["discordance"]), effect, alpha, power)
            out["paired"] = {**source, "needed_pairs": n_pairs, "needed_games": 2 * n_pairs}
    except DuplicateError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(out, indent=2) if fmt == "json" else match_plan_text(out, who))
