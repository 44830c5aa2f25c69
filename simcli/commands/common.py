"""Options and error handling shared by the commands."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from simcli.players.specs import StrategyLookupError
from simcli.primitives.errors import EngineError, StrategyError
from simcli.rules.knobs import RuleError
from simcli.rules.presets import load_rules, parse_overrides, read_rules_file
from simcli.rules.ruleset import RuleSet
from simcli.runs.backends import BACKENDS, Backend, BackendError, open_backend
from simcli.runs.scheduler import DASK_HINT, probe_scheduler

#: Help of ``--strategies`` (README "Strategies" has the details).
STRATEGIES_HELP = ("one strategy for every seat, one per team (A,B: seated alternately, as match seats them) or one "
                   "per seat, comma-separated: a built-in name, module:Class, path/to/file.py[:Class] or an entry "
                   "point, each optionally with :key=value,... options")

#: The largest master seed: numpy's SeedSequence takes any non-negative integer, the results store it as int64.
MAX_SEED = 2**63 - 1


class BoundedInt(click.ParamType):
    """An integer in ``[low, high]``; anything else is a one-line error naming the option and the range.

    (click's own ``IntRange`` reports a usage error over several lines.)
    """

    name = "integer"

    def __init__(self, low: int, high: int, why: str = "") -> None:
        self.low, self.high, self.why = low, high, why

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """Parse and range-check ``value``."""
        if isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high:
            return value
        opt = param.opts[0] if param is not None and param.opts else "value"
        high = "2**63-1" if self.high == MAX_SEED else f"{self.high:,}"
        why = f" ({self.why})" if self.why else ""
        allowed = f"allowed is an integer from {self.low} to {high}{why}"
        try:
            number = int(str(value).strip().replace("_", ""))
        except ValueError:
            raise click.ClickException(f"bad {opt} '{value}': {allowed}") from None
        if not self.low <= number <= self.high:
            raise click.ClickException(f"bad {opt} {number}: {allowed}") from None
        return number


#: ``--seed``: a master seed.
SEED = BoundedInt(0, MAX_SEED, "numpy SeedSequence seeds are non-negative; results store them as int64")


def seed_option(help_text: str = "master seed") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--seed`` (default 0), checked to be a seed numpy and the results accept."""
    return click.option("--seed", type=SEED, default=0, show_default=True, help=help_text)


def json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--json`` (and its synonym ``--format json``): print a JSON document instead of text."""
    @functools.wraps(f)
    def command(*args: Any, format_alias: str | None = None, **kwargs: Any) -> Any:
        if format_alias == "json":
            kwargs["as_json"] = True
        return f(*args, **kwargs)

    command = click.option("--format", "format_alias", type=click.Choice(["text", "json"]), default=None,
                           help="--format json is the same as --json [default: text]")(command)
    return click.option("--json", "as_json", is_flag=True, help="print JSON instead of text")(command)


def json_flag(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``, the synonym of ``--format json`` for a command whose ``--format`` (parameter ``fmt``) has it;
    refused beside another ``--format``."""
    @functools.wraps(f)
    def command(*args: Any, json_alias: bool = False, **kwargs: Any) -> Any:
        if json_alias:
            ctx = click.get_current_context()
            from click.core import ParameterSource

            if ctx.get_parameter_source("fmt") == ParameterSource.COMMANDLINE and kwargs["fmt"] != "json":
                raise click.ClickException(f"--json is --format json; it contradicts --format {kwargs['fmt']}")
            kwargs["fmt"] = "json"
        return f(*args, **kwargs)

    return click.option("--json", "json_alias", is_flag=True, help="the same as --format json")(command)


def given_params(ctx: click.Context) -> set[str]:
    """The names of the parameters given on the command line (not defaults): those a ``--resume`` keeps."""
    from click.core import ParameterSource

    return {name for name in ctx.params if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE}


def refuse_unused(ctx: click.Context, pairs: list[tuple[str, bool, str]]) -> None:
    """Refuse options given on the command line that would do nothing: ``(param, applies, why)``."""
    from click.core import ParameterSource

    for param, applies, why in pairs:
        if not applies and ctx.get_parameter_source(param) == ParameterSource.COMMANDLINE:
            opt = next(p.opts[0] for p in ctx.command.params if p.name == param)
            raise click.ClickException(f"{opt} does nothing here: {why}")


def complete_variant(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of a variant name (``--variant po<TAB>``)."""
    from simcli.rules.presets import list_variants

    return [v for v in list_variants() if v.startswith(incomplete)]


def complete_variants(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of the last name of a comma-separated variant list (``--variants classic,po<TAB>``)."""
    head, _, last = incomplete.rpartition(",")
    prefix = f"{head}," if head else ""
    return [prefix + v for v in complete_variant(ctx, param, last)]


def complete_knob(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of ``--rule KNOB=VALUE``: knob names (``pony<TAB>``), then the values of a choice knob."""
    from simcli.rules.knobs import KNOBS

    name, sep, value = incomplete.partition("=")
    if not sep:
        return [f"{k.name}=" for k in KNOBS if k.name.startswith(name)]
    k = next((k for k in KNOBS if k.name == name), None)
    if k is None:
        return []
    choices = ["true", "false"] if k.kind == "bool" else list(k.allowed) if k.kind == "enum" else []
    return [f"{name}={c}" for c in choices if c.startswith(value)]


def complete_strategy(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of the last spec of a comma-separated strategy list (``greedy,ra<TAB>``)."""
    from simcli.players.loading import available_strategies

    head, _, last = incomplete.rpartition(",")
    prefix = f"{head}," if head else ""
    return [prefix + s for s in available_strategies() if s.startswith(last)]


def variant_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--variant`` (default classic)."""
    return click.option("--variant", default="classic", show_default=True, help="rule preset",
                        shell_complete=complete_variant)(f)


def rule_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--rule KNOB=VALUE`` (repeatable)."""
    return click.option("--rule", "rules", multiple=True, metavar="KNOB=VALUE", shell_complete=complete_knob,
                        help="override a rule knob (repeatable); see `simcli rules show`")(f)


def rules_file_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--rules FILE.toml``: knob overrides from a file, applied before any ``--rule``."""
    return click.option("--rules", "rules_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                        help="TOML file of knob overrides (applied before --rule)")(f)


def overrides_of(rules: tuple[str, ...], rules_file: Path | None = None) -> dict[str, Any]:
    """The knob overrides of ``--rules FILE`` then ``--rule k=v ...`` (a ``--rule`` wins over the file)."""
    try:
        overrides = read_rules_file(rules_file) if rules_file is not None else {}
        overrides.update(parse_overrides(rules))
    except RuleError as exc:
        raise click.ClickException(str(exc)) from None
    return overrides


def build_rules(variant: str, rules: tuple[str, ...], rules_file: Path | None = None,
                stored: Mapping[str, Any] | None = None) -> RuleSet:
    """Load a preset with ``--rules FILE`` and ``--rule`` overrides, turning rule errors into one-line CLI errors.

    ``stored``: the knobs a resumed run, match, tournament or ladder was played with (None: none known), which
    are its rules when neither option gives an override.
    """
    overrides = overrides_of(rules, rules_file)
    try:
        return load_rules(variant, stored if stored is not None and not overrides else overrides)
    except RuleError as exc:
        raise click.ClickException(str(exc)) from None


#: ``SIMCLI_DEBUG=1`` (or ``simcli --debug``): a failing strategy's traceback is printed before its one-line error.
DEBUG_ENV = "SIMCLI_DEBUG"


def debug_enabled() -> bool:
    """Whether tracebacks are wanted (``simcli --debug`` or ``SIMCLI_DEBUG=1``)."""
    import os

    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def show_traceback(text: str | None) -> None:
    """With --debug, print a failing strategy's traceback on stderr (before the one-line error)."""
    if text and debug_enabled():
        click.echo(text.rstrip("\n"), err=True)


def cli_errors(exc: Exception) -> click.ClickException:
    """A one-line CLI error for the errors a user can cause (after the traceback, with --debug)."""
    if isinstance(exc, (StrategyError, EngineError)):
        from simcli.runs.chunks import cause_traceback

        show_traceback(cause_traceback(exc))
    if isinstance(exc, (RuleError, StrategyLookupError, StrategyError, EngineError)):
        return click.ClickException(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    raise exc


def first_error_message(path: Path) -> str:
    """The first line of the first message in a run's errors table (what a user needs to fix the strategy)."""
    try:
        import pandas as pd

        table = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
        return str(table["message"].iloc[0]).splitlines()[0]
    except Exception:  # the table is only a hint here: the failure itself is reported either way
        return "(unreadable errors table)"


@dataclass(frozen=True)
class BackendChoice:
    """What ``--backend``, ``--scheduler`` and ``--scheduler-timeout`` chose (checked by :func:`backend_options`)."""

    kind: str
    scheduler: str | None = None
    timeout: float = 10.0

    def words(self) -> list[str]:
        """The options that chose this backend, to repeat in a "continue with" command (none for local processes),
        so a resumed run plays where the interrupted one did (the results are the same either way)."""
        if self.kind == "local":
            return []
        return ["--backend", self.kind, *(["--scheduler", self.scheduler] if self.scheduler else [])]

    def open(self, jobs: int) -> Backend:
        """The command's one backend with ``jobs`` workers, closed when the command ends (click's context): every
        run or match of the command plays on it, so a tournament or sweep starts one Dask cluster or client."""
        try:
            return click.get_current_context().with_resource(open_backend(self.kind, jobs, self.scheduler))
        except BackendError as exc:
            raise click.ClickException(str(exc)) from None


def backend_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--backend local|dask``, ``--scheduler ADDRESS`` and ``--scheduler-timeout S``, the same on every command
    that plays games; the command gets them as one ``backend`` (:class:`BackendChoice`).

    Checked before the command does anything: ``--scheduler`` without ``--backend dask`` (and a timeout without
    ``--scheduler``) is refused, ``--backend dask`` without the dask extra gives the install hint, and a scheduler
    that does not answer within the timeout is a one-line error.
    """
    @functools.wraps(f)
    def command(*args: Any, backend: str, scheduler: str | None, scheduler_timeout: float, **kwargs: Any) -> Any:
        refuse_unused(click.get_current_context(), [
            ("scheduler", backend == "dask", "--scheduler is the address of a Dask cluster; add --backend dask"),
            ("scheduler_timeout", scheduler is not None, "it is the wait for --scheduler, which is not given"),
        ])
        if scheduler is not None:
            try:
                probe_scheduler(scheduler, scheduler_timeout)
            except BackendError as exc:
                raise click.ClickException(str(exc)) from None
        elif backend == "dask":
            try:
                import distributed  # noqa: F401
            except ImportError:
                raise click.ClickException(DASK_HINT) from None
        return f(*args, backend=BackendChoice(backend, scheduler, scheduler_timeout), **kwargs)

    command = click.option("--scheduler-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0,
                           show_default=True, help="seconds to wait for --scheduler to answer")(command)
    command = click.option("--scheduler", metavar="ADDRESS",
                           help="Dask scheduler address, e.g. tcp://HOST:8786 (without it --backend dask starts a "
                                "local cluster of --jobs workers)")(command)
    return click.option("--backend", type=click.Choice(list(BACKENDS)), default="local", show_default=True,
                        help="where the games are played: local worker processes or a Dask cluster (the results "
                             "are the same)")(command)
