"""simcli: a Canasta simulation lab (rules core, scripted strategies, batch runs and reports).

The public API, in one place: the documented import paths below, each a module of this folder whose ``__all__``
lists its names (the code lives in the layer packages, docs/architecture.md). Anything else is internal and may move.

* :mod:`simcli.strategy` — ``Strategy`` (the one path to the interface), ``Draw``, ``load_strategy``,
  ``strategy_factory``, ``strategy_options``, ``parse_strategy_list``, ``available_strategies``, ``BEST_HEURISTIC``
* :mod:`simcli.actions` — the decisions: ``DRAW_STOCK``, ``TakePile``, ``Meld``, ``SpecialHand``, ``WILD_MELD``
* :mod:`simcli.cards` — ranks, rank-count vectors, card values
* :mod:`simcli.view` — ``PlayerView``, what a seat sees, and ``sample_world``
* :mod:`simcli.planning` — planning helpers (openings, pile takes, the legal draws, wild cards)
* :mod:`simcli.forward` — the forward model for search players (``rollout``, ``Forced``, ``margin``), the search
  record (``Weighed``, ``RecordsSearch``) and pass-through seats
* :mod:`simcli.ruleset` — the frozen ``RuleSet``
* :mod:`simcli.results` — reading a run back (``load``, ``scan``)

The built-in strategies are the package :mod:`simcli.strategies` (``heuristics``, ``search``, ``learnt``).
"""

__version__ = "0.1.0"

#: The documented import paths of the public API (tests/test_public_api.py checks each against its ``__all__``).
PUBLIC_API = ("simcli.strategy", "simcli.actions", "simcli.cards", "simcli.view", "simcli.planning", "simcli.forward",
              "simcli.ruleset", "simcli.results")
