"""``simcli variants`` and ``simcli rules show``: make every experiment's rules explicit."""

from __future__ import annotations

import click

from simcli.commands.common import build_rules, rule_option
from simcli.knobs import KNOBS, RuleError
from simcli.rules import diff, list_variants, preset_description


@click.command()
def variants() -> None:
    """List the variant presets."""
    for name in list_variants():
        click.echo(f"{name:10s} {preset_description(name)}")


@click.group()
def rules() -> None:
    """Inspect rule sets."""


@rules.command("show")
@click.argument("variant")
@rule_option
@click.option("--changed", is_flag=True, help="show only the knobs that differ from the preset")
def show(variant: str, rules: tuple[str, ...], changed: bool) -> None:
    """Print every knob of VARIANT and its value; '*' marks values changed by --rule."""
    try:
        if variant not in list_variants():
            raise RuleError(f"unknown variant '{variant}'; allowed: {', '.join(list_variants())}")
    except RuleError as exc:
        raise click.ClickException(str(exc)) from None
    rs = build_rules(variant, rules)
    changes = diff(rs)
    click.echo(f"# {variant}: {preset_description(variant)}")
    width = max(len(k.name) for k in KNOBS)
    for k in KNOBS:
        mark = "*" if k.name in changes else " "
        if changed and not mark.strip():
            continue
        value = k.format(getattr(rs, k.field))
        note = f"   (preset: {changes[k.name][0]})" if k.name in changes else ""
        click.echo(f"{mark} {k.name:{width}s} = {value:24s} {k.help}{note}")
    if changes:
        click.echo(f"# {len(changes)} knob(s) differ from the preset")
