"""``simcli balance``: seat balance of each variant with one strategy in every seat.

For each variant: the first-player team's and the dealer team's win rates (by deal 0 of each game), team 0's
win rate, the mean margin, deals per game and the stock-out and going-out shares of deals, each with its 95%
interval. ``--strategy NAME`` plays NAME in every variant; ``--strategy classic=greedy,ponytail=ponytail`` gives
each variant its own strategy (in every seat of that variant's run).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from simcli.commands.common import (
    BackendChoice,
    backend_options,
    complete_variants,
    json_flag,
    overrides_of,
    rule_option,
    rules_file_option,
    seed_option,
)
from simcli.commands.hints import study_interrupts, study_progress
from simcli.commands.output import reported, save_and_print
from simcli.reporting.balance import balance_study
from simcli.reporting.formatting import FORMATS
from simcli.reporting.studies import check_out, command_line, default_out, play_all, study_setting


def parse_variant_strategies(text: str, variants: list[str]) -> dict[str, str]:
    """The strategy of each variant from ``--strategy``: one name for every variant (``greedy``,
    ``mc:samples=32``), or ``VARIANT=NAME,...`` with one entry per variant of ``--variants``
    (``classic=greedy,ponytail=mc:samples=32,depth=2``: a ``key=value`` piece that names no variant continues the
    options of the previous entry's strategy, as in ``--strategies``). One-line errors for anything else."""
    head = text.split(",")[0]
    if not re.match(r"^[^:=]+=", head):  # a single strategy (options come after a colon)
        rest = text.split(",")[1:]
        if rest and not (":" in head and all(re.match(r"^[^:=]+=", p.strip()) for p in rest)):
            raise click.ClickException(f"--strategy takes one name (it plays every seat), got '{text}'; give each "
                                       "variant its own with VARIANT=NAME,VARIANT=NAME")
        return {v: text for v in variants}
    out: dict[str, str] = {}
    last: str | None = None
    for piece in (p.strip() for p in text.split(",")):
        key, eq, value = piece.partition("=")
        if eq and ":" not in key and key.strip() in variants:
            v = key.strip()
            if v in out:
                raise click.ClickException(f"--strategy names variant '{v}' twice")
            if not value.strip():
                raise click.ClickException(f"--strategy {v}=: no strategy given for {v}")
            out[v], last = value.strip(), v
        elif last is not None and eq and ":" not in key and ":" in out[last]:
            out[last] += "," + piece  # an option of the previous strategy
        else:
            raise click.ClickException(f"--strategy: '{piece}' is not VARIANT=NAME for one of --variants "
                                       f"({', '.join(variants)})")
    missing = [v for v in variants if v not in out]
    if missing:
        raise click.ClickException(f"--strategy gives no strategy for {', '.join(missing)}; give one for every "
                                   "variant (VARIANT=NAME,...) or a single name for all")
    return out


@click.command()
@json_flag
@click.option("--variants", default="classic", show_default=True, help="comma-separated variant presets",
              shell_complete=complete_variants)
@click.option("--games", "-n", type=click.IntRange(min=2), default=2000, show_default=True, help="games per variant")
@click.option("--strategy", "--strategies", "strategy", default="greedy", show_default=True,
              help="the strategy in every seat, or one per variant: VARIANT=NAME,VARIANT=NAME,...")
@seed_option("master seed (the same for every variant)")
@rule_option
@rules_file_option
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@backend_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="folder for the runs (one per variant) [default: results/runs/balance-<variants>-<time>]")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path),
              help="write PREFIX.md/.csv/.json/.png [default: OUT/balance]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="format of the table printed on stdout")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar and no line per run on stderr")
@reported
def balance(variants: str, games: int, strategy: str, seed: int, rules: tuple[str, ...], rules_file: Path | None,
            jobs: int | None, backend: BackendChoice, out: Path | None,
            save: Path | None, fmt: str, quiet: bool) -> None:
    """Seat balance per variant with the same strategy in every seat: first-player and dealer team win rates,
    mean margin, deals per game and stock-out and going-out shares, each with its 95% interval.

    With --strategy classic=greedy,ponytail=ponytail each variant plays its own strategy."""
    from simcli import stats

    names = [v.strip() for v in variants.split(",") if v.strip()]
    if not names:
        raise click.ClickException("--variants is empty; give one or more presets, e.g. classic")
    if len(set(names)) != len(names):
        raise click.ClickException(f"--variants repeats a variant: {variants}")
    strategies = parse_variant_strategies(strategy, names)
    overrides = overrides_of(rules, rules_file)
    settings = [(v, *study_setting(v, overrides, strategies[v])) for v in names]
    out = out or default_out("balance", "-".join(names))
    check_out(out, names, "balance")
    jobs = jobs or os.cpu_count() or 1
    cmd = command_line("balance", [("--variants", ",".join(names)), ("--games", games), ("--strategy", strategy),
                                   ("--seed", seed), ("--rule", rules), ("--rules", rules_file), ("--out", out),
                                   ("--save", save)])
    with study_interrupts(cmd):
        runs = play_all(settings, seed, games, out, jobs, cmd, names, backend=backend.open(jobs),
                        **study_progress(quiet))
    prefix = save or out / "balance"
    try:
        study = balance_study(runs, strategies, strategy, games, seed, cmd, prefix.name + ".png", fmt)
    except stats.StatsError as exc:
        raise click.ClickException(str(exc)) from None
    save_and_print(prefix, study)
