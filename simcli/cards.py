"""Rank indices, rank-count vectors, wild cards and card values (RULES.md §1.1-1.3).

The public path of this API (README, docs/strategy-api.md); the code lives in the layer packages named below."""

from simcli.primitives.cards import *  # noqa: F403
