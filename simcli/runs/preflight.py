"""What can be checked before the first game: every strategy spec under every rule set it will play.

A spec is looked up and its options checked when it is parsed (:func:`simcli.players.loading.parse_strategy_list`);
what only the rules tell (``net`` has no model for them, or one trained under other rules) is asked here of a
throwaway player, ``strategy.check_rules(rules) -> str | None`` where a strategy defines it. Commands call
:func:`check_strategies` with every arm's, level's or variant's rules before they play or write anything, so a
run that would fail at its first game fails at once, with one line and nothing left behind.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from simcli.players.loading import strategy_factory
from simcli.players.specs import StrategyLookupError
from simcli.rules.presets import rules_diff
from simcli.rules.ruleset import RuleSet


class CannotPlay(StrategyLookupError):
    """A strategy that says it cannot play under a rule set (a one-line error before anything is played)."""


def rules_words(rules: RuleSet) -> str:
    """``classic with going_out_bonus=300``: the variant and the knobs changed from its preset."""
    changed = ", ".join(f"{k}={v}" for k, v in rules_diff(rules).items())
    return rules.variant + (f" with {changed}" if changed else "")


def refusal(spec: str, rules: RuleSet) -> str | None:
    """Why the strategy ``spec`` cannot play under ``rules`` (its ``check_rules``), or None. A spec that cannot be
    built here is left to the game, whose error names the seat, game and seed."""
    try:
        player = strategy_factory(spec)(np.random.default_rng(0))
    except Exception:  # noqa: BLE001 - reported where the game builds it
        return None
    check = getattr(player, "check_rules", None)
    if check is None:
        return None
    why = check(rules)
    return None if why is None else str(why).splitlines()[0]


def check_strategies(rule_sets: Iterable[RuleSet], specs: Iterable[str], *, label: str = "") -> None:
    """Raise :class:`CannotPlay` for the first spec of ``specs`` that cannot play under one of ``rule_sets``
    (every arm, level or variant a command will play), naming the spec, the rules and why (``label``: the level or
    variant, when there are several)."""
    wanted = list(dict.fromkeys(specs))
    for rules in rule_sets:
        for spec in wanted:
            why = refusal(spec, rules)
            if why is not None:
                where = f"{label}: " if label else ""
                raise CannotPlay(f"{where}strategy '{spec}' cannot play {rules_words(rules)} (checked before the "
                                 f"first game, nothing was played or written): {why}")
