"""``simcli variants`` and ``simcli rules show``: make every experiment's rules explicit."""

from __future__ import annotations

import json
from pathlib import Path

import click

from simcli.commands.common import build_rules, complete_variant, json_option, rule_option, rules_file_option
from simcli.rules.knobs import FIXED_KNOBS, KNOBS, RuleError, knob
from simcli.rules.presets import diff, list_variants, player_values, preset_description, unknown_variant


@click.command()
@json_option
def variants(as_json: bool) -> None:
    """List the variant presets (their rules: docs/rules.md, RULES.md §2)."""
    if as_json:
        click.echo(json.dumps([{"name": n, "description": preset_description(n)} for n in list_variants()], indent=2))
        return
    for name in list_variants():
        click.echo(f"{name:10s} {preset_description(name)}")


@click.group()
def rules() -> None:
    """Inspect rule sets."""


@rules.command("show")
@click.argument("variant", shell_complete=complete_variant)
@rule_option
@rules_file_option
@click.option("--changed", is_flag=True, help="show only the knobs that differ from the preset")
@json_option
def show(variant: str, rules: tuple[str, ...], rules_file: Path | None, changed: bool, as_json: bool) -> None:
    """Print every knob of VARIANT and its value; '*' marks values changed by --rules or --rule.

    The knobs are those of RULES.md §3 (docs/rules.md in the repository).
    """
    try:
        if variant not in list_variants():
            raise RuleError(unknown_variant(variant))
    except RuleError as exc:
        raise click.ClickException(str(exc)) from None
    rs = build_rules(variant, rules, rules_file)
    changes = diff(rs)
    if as_json:
        knobs = {
            k.name: {"value": k.format(getattr(rs, k.field)), "preset": changes[k.name][0] if k.name in changes
                     else k.format(getattr(rs, k.field)), "changed": k.name in changes, "help": k.help}
            for k in KNOBS if k.name in changes or not changed
        }
        click.echo(json.dumps({"variant": variant, "description": preset_description(variant), "knobs": knobs,
                               "changed": sorted(changes),
                               "fixed": {name: {"value": value, "why": why}
                                         for name, (value, why) in FIXED_KNOBS.items()}}, indent=2))
        return
    click.echo(f"# {variant}: {preset_description(variant)}")
    table = {name: v for name, v in player_values(variant, rs.num_players, rs.team_size).items()
             if getattr(rs, knob(name).field) == v}  # those in force (a --rule may override them)
    if table:  # the preset's values for this number of players (and team size): RULES.md §2, A-CL-4
        click.echo(f"# preset values for num_players={rs.num_players} team_size={rs.team_size}: "
                   + ", ".join(f"{name}={knob(name).format(v)}" for name, v in table.items()))
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
    if not changed:
        for name, (value, why) in FIXED_KNOBS.items():  # RULES.md §3 knobs the engine fixes another way
            click.echo(f"# {name} = {value} is fixed by the engine (not a knob): {why}")
