"""The rule set: every knob of RULES.md §3, the variant presets (TOML), ``--rule`` overrides and the frozen ``RuleSet``.

``from simcli.rules import load_rules, diff, RuleSet`` is the public face of the package (README, notebooks).
"""

from simcli.rules.presets import (
    RuleError,
    RuleSet,
    diff,
    list_variants,
    load_rules,
    parse_overrides,
    preset_values,
    replace_knobs,
)

__all__ = ["RuleError", "RuleSet", "diff", "list_variants", "load_rules", "parse_overrides", "preset_values",
           "replace_knobs"]
