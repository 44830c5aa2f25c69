"""The ``Strategy`` interface and the strategy loader (``load_strategy``, options, strategy lists).

``simcli.strategy.Strategy`` is the one path to the interface that documentation and messages name. A documented
import path of the public API (listed whole in :mod:`simcli`); the code lives in :mod:`simcli.engine.strategy_base`,
:mod:`simcli.players.loading`, :mod:`simcli.players.specs` and :mod:`simcli.players.best_heuristic`."""

from simcli.engine.strategy_base import Draw, Strategy
from simcli.players.best_heuristic import BEST_HEURISTIC, best_heuristic
from simcli.players.loading import (
    BUILTIN_STRATEGIES,
    ENTRY_POINT_GROUP,
    StrategyFactory,
    available_strategies,
    is_file_spec,
    load_strategy,
    parse_strategy_list,
    strategy_build,
    strategy_factory,
    strategy_options,
)
from simcli.players.specs import (
    StrategyLookupError,
    parse_option_value,
    seat_specs,
    split_spec,
    split_strategy_list,
    typed_options,
)

__all__ = [
    "BEST_HEURISTIC", "BUILTIN_STRATEGIES", "ENTRY_POINT_GROUP", "Draw", "Strategy", "StrategyFactory",
    "StrategyLookupError", "available_strategies", "best_heuristic", "is_file_spec", "load_strategy",
    "parse_option_value", "parse_strategy_list", "seat_specs", "split_spec", "split_strategy_list", "strategy_build",
    "strategy_factory", "strategy_options", "typed_options",
]
