"""The frozen, typed ``RuleSet`` and its knobs (``KNOBS``).

A documented import path of the public API (listed whole in :mod:`simcli`); the code lives in
:mod:`simcli.rules.ruleset`."""

from simcli.rules.ruleset import KNOBS, RuleSet

__all__ = ["KNOBS", "RuleSet"]
