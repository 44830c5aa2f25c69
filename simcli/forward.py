"""The forward model for search players: clones, sampled worlds, ``Forced``, rollouts and ``margin``; the search
record a search player keeps (``Weighed``, ``RecordsSearch``) and the seats that pass a strategy's calls through.

A documented import path of the public API (listed whole in :mod:`simcli`); the code lives in
:mod:`simcli.players.forward`, :mod:`simcli.players.search_record` and :mod:`simcli.players.seats`."""

from simcli.players.forward import (
    PHASES,
    Forced,
    HiddenPlace,
    clone,
    cut_view,
    hidden_places,
    margin,
    rank_totals,
    rollout,
    sample_world,
    seen_counts,
    true_state,
    unseen_counts,
)
from simcli.players.search_record import RecordsSearch, Weighed
from simcli.players.seats import AskingPassThrough, PassThrough

__all__ = [
    "PHASES", "AskingPassThrough", "Forced", "HiddenPlace", "PassThrough", "RecordsSearch", "Weighed", "clone",
    "cut_view", "hidden_places", "margin", "rank_totals", "rollout", "sample_world", "seen_counts", "true_state",
    "unseen_counts",
]
