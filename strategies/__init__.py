"""The built-in strategies, by kind: :mod:`~simcli.strategies.heuristics` (rule-of-thumb players),
:mod:`~simcli.strategies.search` (players that search on the forward model) and :mod:`~simcli.strategies.learnt`
(the player learnt from the search, with its model files).

The repository folder ``strategies/`` is this package, ``simcli.strategies``, in every build (installed, editable
and compiled): pyproject.toml's package-dir maps it, and there is no other name for it. Users name a built-in by its
spec name (``greedy``, ``mc``, ``net``, ...: :data:`simcli.players.loading.BUILTIN_STRATEGIES`).
"""
