"""``simcli plan``: games needed to detect a change of a strategy's win share (normal approximation)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import json_flag
from simcli.duplicate import DuplicateError, discordance, games_unpaired, pairs_paired, twin_differences

METRICS = ("strategy_win",)


def parse_metric(text: str) -> str | None:
    """``strategy_win`` or ``strategy_win:NAME``; returns NAME (or None)."""
    name, sep, who = text.partition(":")
    if name not in METRICS or (sep and not who):
        raise click.ClickException(f"unknown --metric '{text}': allowed is strategy_win or strategy_win:NAME")
    return who or None


def pilot_discordance(folder: Path, who: str | None) -> dict[str, Any]:
    """The discordance of the twin games of a pilot run (one with --rotate-seats), with its provenance."""
    from simcli.results import load

    try:
        run = load(folder)
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


@click.command()
@json_flag
@click.option("--metric", default="strategy_win", show_default=True, help="strategy_win or strategy_win:NAME")
@click.option("--effect", type=float, required=True, help="change of the win share to detect (0.02 = 2 points)")
@click.option("--paired", is_flag=True, help="also plan a duplicate match (pairs of twin games)")
@click.option("--power", type=float, default=0.8, show_default=True)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="two-sided significance level")
@click.option("--base", type=float, default=0.5, show_default=True, help="win share under the null (unpaired)")
@click.option("--pilot", type=click.Path(file_okay=False, path_type=Path),
              help="run directory played with --rotate-seats: estimates the discordance for --paired")
@click.option("--discordance", "psi", type=float, help="discordance for --paired, instead of --pilot")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def plan(metric: str, effect: float, paired: bool, power: float, alpha: float, base: float, pilot: Path | None,
         psi: float | None, fmt: str) -> None:
    """Print the games needed to detect a change of a strategy's win share, unpaired and (--paired) duplicate."""
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
    if fmt == "json":
        click.echo(json.dumps(out, indent=2))
        return
    label = f"{metric}" + ("" if who else " (the share of games a strategy wins, ties half)")
    lines = [f"plan for {label}: detect {base + effect:.3f} against {base:.3f} (effect {effect:+g}), "
             f"two-sided alpha {alpha:g}, power {power:g}",
             f"unpaired (independent games, normal approximation): {unpaired:,} games"]
    if out["paired"] is not None:
        p = out["paired"]
        where = (f" from pilot {p['path']} ({p['pairs']:,} pairs; observed win share of {p['strategy']} "
                 f"{p['observed_win_share']:.3f})") if "path" in p else " (given)"
        lines.append(f"paired (duplicate pairs, McNemar normal approximation): discordance {p['discordance']:.3f}"
                     f"{where}: {p['needed_pairs']:,} pairs = {p['needed_games']:,} games")
    click.echo("\n".join(lines))
