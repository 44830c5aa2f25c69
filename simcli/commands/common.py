"""Options and error handling shared by the commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from simcli.errors import EngineError, StrategyError
from simcli.knobs import RuleError
from simcli.rules import load_rules, parse_overrides
from simcli.strategy import StrategyLookupError


def variant_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--variant`` (default classic)."""
    return click.option("--variant", default="classic", show_default=True, help="rule preset")(f)


def rule_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--rule KNOB=VALUE`` (repeatable)."""
    return click.option("--rule", "rules", multiple=True, metavar="KNOB=VALUE",
                        help="override a rule knob (repeatable); see `simcli rules show`")(f)


def build_rules(variant: str, rules: tuple[str, ...]) -> Any:
    """Load a preset with command-line overrides, turning rule errors into one-line CLI errors."""
    try:
        return load_rules(variant, parse_overrides(rules))
    except RuleError as exc:
        raise click.ClickException(str(exc)) from None


def cli_errors(exc: Exception) -> click.ClickException:
    """A one-line CLI error for the errors a user can cause."""
    if isinstance(exc, (RuleError, StrategyLookupError, StrategyError, EngineError)):
        return click.ClickException(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    raise exc
