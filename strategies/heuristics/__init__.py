"""Rule-of-thumb players, one decision at a time without search: ``random`` (:mod:`.random_play`), ``greedy`` and
the variants' own heuristics built on it, ``ponytail``, ``americana``, ``spanish`` and ``handfoot``. The variant's best
one is :data:`simcli.players.best_heuristic.BEST_HEURISTIC`."""
