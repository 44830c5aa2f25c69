"""The frozen, typed ``RuleSet``.

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.rules.ruleset import *  # noqa: F403
