"""Planning helpers for strategies (openings, taking the pile, wild cards, the legal draws).

A documented import path of the public API (listed whole in :mod:`simcli`); the code lives in
:mod:`simcli.players.planning`."""

from simcli.players.planning import (
    RANKS_BY_VALUE,
    add_naturals,
    closes_melds,
    legal_draws,
    meld_of,
    melds_value,
    naturals_plan,
    opening_plan,
    opening_take,
    penalized_ranks,
    take_of,
    take_wilds,
)

__all__ = [
    "RANKS_BY_VALUE", "add_naturals", "closes_melds", "legal_draws", "meld_of", "melds_value", "naturals_plan",
    "opening_plan", "opening_take", "penalized_ranks", "take_of", "take_wilds",
]
