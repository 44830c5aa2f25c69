"""``simcli train data`` and ``simcli train fit``: the learnt player's data from the search, and its model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import (
    SEED,
    BackendChoice,
    backend_options,
    build_rules,
    cli_errors,
    rule_option,
    variant_option,
)
from simcli.runs.preflight import CannotPlay, check_strategies


@click.group()
def train() -> None:
    """Train the learnt player, net: data from the search, then a model (docs/strategies.md, "net")."""


@train.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@variant_option
@rule_option
@click.option("--search", default="mc", show_default=True, help="the search player whose decisions are recorded")
@click.option("--strategies", default=None, help="comma-separated seat strategies (default: the search player in "
              "the even seats, the variant's heuristic in the odd ones)")
@click.option("--play", default=None, metavar="STRATEGY",
              help="the recorded seats play this strategy's decisions while the search weighs each (data from the "
                   "states its play reaches, e.g. --play net: the search's values where the learnt player goes)")
@click.option("--seed", type=SEED, default=31, show_default=True, help="master seed of the games")
@click.option("-n", "--games", type=click.IntRange(min=1), default=1000, show_default=True, help="games to play")
@click.option("--chunk", type=click.IntRange(min=1), default=10, show_default=True, help="games a chunk (file)")
@click.option("--catalogue", default=None, metavar="NAME|FILE",
              help="draw each game's house rules from this catalogue (a variant's shipped one, e.g. classic, or a "
                   "TOML file): the preset (with --rule) or 1-3 of its knobs changed, from the game's seed; "
                   "default: every game under the given rules (a model for those rules only)")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="worker processes [default: cores]")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
@backend_options
def data(folder: Path, variant: str, rules: tuple[str, ...], search: str, strategies: str | None,
         play: str | None, seed: int, games: int, chunk: int, catalogue: str | None, jobs: int | None, quiet: bool,
         backend: BackendChoice) -> None:
    """Play seeded games of the search player and record, at each searched decision, what it saw and each
    candidate's search value (Parquet chunks in FOLDER; run again on FOLDER to resume)."""
    import os

    from simcli.players.specs import split_strategy_list
    from simcli.training.data import DataError, DataSpec, catalogue_text, check_data, default_strategies, generate

    jobs = jobs or os.cpu_count() or 1
    ruleset = build_rules(variant, rules)
    overrides = {k: v for k, (_, v) in _overrides(ruleset).items()}
    try:
        drawn = catalogue_text(catalogue, ruleset.variant, overrides) if catalogue is not None else ""
    except DataError as exc:
        raise click.ClickException(str(exc)) from None
    seats = tuple(split_strategy_list(strategies)) if strategies else default_strategies(ruleset, search)
    if len(seats) != ruleset.num_players:
        raise click.ClickException(f"{len(seats)} strategies for {ruleset.num_players} seats")
    from simcli.players.loading import strategy_factory

    for where, spec_text in [*((f"--strategies seat {k}", name) for k, name in enumerate(seats)),
                             *((("--play", play),) if play else ())]:
        try:  # here, in one line, rather than in a worker process
            strategy_factory(spec_text)
        except Exception as exc:  # noqa: BLE001 - any reason it cannot be built
            raise click.ClickException(f"{where}: {spec_text}: {str(exc).splitlines()[0]}") from None
    try:
        check_strategies([ruleset], seats + ((play,) if play else ()))  # what the rules tell of each, before any game
    except CannotPlay as exc:
        raise click.ClickException(str(exc)) from None
    spec = DataSpec(variant, tuple(sorted(overrides.items())), seats, seed, games, chunk, drawn, play or "")
    bar = _DataBar(games, f"data {spec.variant}", quiet)
    try:
        summary = generate(folder, spec, jobs=jobs, backend=backend.open(jobs), command=["simcli", "train", "data",
                           *sys.argv[3:]], progress=bar.update, resumed=bar.start)
    except DataError as exc:
        raise click.ClickException(str(exc)) from None
    except Exception as exc:
        raise cli_errors(exc) from None
    finally:
        bar.close()
    problems = check_data(folder)
    if problems:
        raise click.ClickException(f"{folder}: " + "; ".join(problems))
    click.echo(f"{folder}: {summary['games']} games, {summary['rows']:,} candidate rows, "
               f"{summary['cpu_seconds']:,} CPU s")


class _DataBar:
    """The data's progress bar with its estimate, started at the games a resumed folder already has (so its rate and
    time left are this run's)."""

    def __init__(self, games: int, label: str, quiet: bool) -> None:
        self.games, self.label, self.quiet = games, label, quiet
        self.bar: Any = None

    def start(self, have: int) -> None:
        from simcli.commands.hints import progress_bar

        self.bar = progress_bar(self.games, self.label, quiet=self.quiet, initial=have)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _overrides(ruleset: object) -> dict[str, tuple[str, str]]:
    from simcli.rules.presets import diff

    return diff(ruleset)  # type: ignore[arg-type]


@train.command()
@click.argument("folders", metavar="FOLDER...", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("model", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--hidden", type=click.IntRange(min=0), default=64, show_default=True,
              help="hidden units of the network (0: ridge regression, a linear model)")
@click.option("--epochs", type=click.IntRange(min=1), default=20, show_default=True, help="passes over the data")
@click.option("--alpha", type=click.FloatRange(min=0), default=1e-4, show_default=True,
              help="L2 penalty of the network's weights")
@click.option("--seed", type=SEED, default=1, show_default=True, help="seed of the weights and the shuffles")
@click.option("--min-scale", type=click.FloatRange(min=0), default=1e-6, show_default=True,
              help="a feature whose standard deviation over the training rows is below this is not scaled (divided "
                   "by 1 instead of blown up where it varies)")
@click.option("--margin", type=click.FloatRange(min=0), default=None,
              help="points a candidate must be rated above the heuristic's choice for net to play it (default: "
                   "the best of 0, 5, 10, 20, 40, 80 on the validation games)")
@click.option("--target", type=click.Choice(["relative", "absolute"]), default="relative", show_default=True,
              help="relative: each candidate's value over its decision's mean (net's model); absolute: its own "
                   "value, the expected deal margin (a leaf evaluator for mc:leaf=MODEL)")
@click.option("--ensemble", type=click.IntRange(min=1), default=1, show_default=True,
              help="fits to average (seeds SEED, SEED+1, ...), folded into one network of ENSEMBLE x HIDDEN units: "
                   "steadier under rare house rules, at ENSEMBLE times the fit's time")
@click.option("--distill", is_flag=True,
              help="with --ensemble: write one network of HIDDEN units fitted to the ensemble's values on the "
                   "training rows (most of its strength at one fit's play cost)")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
def fit(folders: tuple[Path, ...], model: Path, hidden: int, epochs: int, alpha: float, seed: int, min_scale: float,
        margin: float | None, target: str, ensemble: int, distill: bool,
        quiet: bool) -> None:
    """Fit a model to the data in FOLDER (or several folders together: of one variant and, if drawn from
    catalogues, of catalogues with the same knobs and values; e.g. a general folder and one drawn around a house rule
    with --rule) and write it to MODEL (.npz); print its held-out figures."""
    from simcli.commands.hints import progress_bar
    from simcli.training.data import DataError
    from simcli.training.fit import FitError, FitSettings
    from simcli.training.fit import fit as fit_model

    if distill and ensemble < 2:
        raise click.BadParameter("--distill fits one network to an ensemble's values: give --ensemble 2 or more",
                                 param_hint="--distill")
    bar = progress_bar(epochs * (ensemble + distill), f"fit {model.name}", quiet=quiet, unit="epoch")
    try:
        meta = fit_model(folders, model, FitSettings(hidden=hidden, epochs=epochs, seed=seed, alpha=alpha,
                                                    target=target, min_scale=min_scale, ensemble=ensemble,
                                                    distill=distill, margin=-1.0 if margin is None else margin),
                         command=["simcli", "train", "fit", *sys.argv[3:]], progress=bar.update)
    except (DataError, FitError) as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        bar.close()
    held = meta["held_out"]
    click.echo(f"{model}: {meta['games']} games; held out {held['decisions']:,} decisions: picks the search's "
               f"choice {held['top1_search']:.1%} (the heuristic's choice: {held['top1_heuristic_baseline']:.1%}), "
               f"value error {held['rmse']:.1f} points (predicting 0: {held['rmse_zero_baseline']:.1f}"
               + (f"; the mean: {held['rmse_mean_baseline']:.1f}" if "rmse_mean_baseline" in held else "") + "), "
               f"gain over the heuristic's choice {held['gain_over_heuristic']:+.2f} points a decision (the search's "
               f"own pick: {held['search_gain_over_heuristic']:+.2f}); margin {meta['margin']:g}")


@train.command("eval")
@click.argument("model", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--margin", type=float, default=None, help="points (default: the model's own)")
@click.option("--all-games", is_flag=True, help="every game of FOLDER, not only its held-out ones (i % 10 == 9)")
def evaluate(model: Path, folder: Path, margin: float | None, all_games: bool) -> None:
    """The figures of MODEL on the search values of the data in FOLDER (e.g. a model taught by the oracle measured
    on mc's values)."""
    from simcli.training.data import DataError
    from simcli.training.fit import evaluate as evaluate_model

    try:
        figures = evaluate_model(model, folder, margin=margin, games="all" if all_games else "held")
    except (DataError, ValueError) as exc:
        raise click.ClickException(str(exc).splitlines()[0]) from None
    click.echo(" ".join(f"{k}={v}" for k, v in figures.items()))

