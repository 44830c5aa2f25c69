"""The learnt player's play-time path (issue 31): the same candidates as ``mc``, rows of counts that are the training
data's float rows, and the model's pass over them.

``net`` decides from compiled copies of ``mc``'s candidate lists and from its rows as whole-number counts handed to
numpy as bytes (strategies/learnt/net_features.py); at every decision of a deal of each variant these must be ``mc``'s
lists, in order, and the float rows of :func:`~simcli.strategies.learnt.net_features.decision_features` (the training
data's) once each count's divisor is applied, exactly; the model's values over them those of the float rows. A count
outside a byte (a huge score) takes the float path, to the same values. The training data's rows are those the
float features of feature version 1 made, to the bit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from net_models import floats_of_counts, random_model

from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC as HEURISTIC
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules
from simcli.strategies.learnt.net import Net, load_model
from simcli.strategies.learnt.net_features import (
    decision_bytes,
    decision_counts,
    decision_features,
)
from simcli.strategies.search.candidates import discard_candidates, draw_candidates, meld_candidates
from simcli.strategies.search.mc import MonteCarlo
from simcli.strategy import Strategy, load_strategy


class Probe(Net):
    """``net`` that checks its candidates, rows and values at every decision against the slow, float path."""

    def __init__(self, rng: np.random.Generator, model: Path) -> None:
        super().__init__(rng, model=str(model), any_rules=True)
        self.mc = MonteCarlo(np.random.default_rng(0))
        self.checked = self.wide = 0

    def _check(self, view: PlayerView, kind: str, own: Any, candidates: list[Any]) -> None:
        theirs = {"draw": self.mc._draw_candidates, "melds": self.mc._meld_candidates,
                  "discard": self.mc._discard_candidates}[kind](view, own)
        assert candidates == theirs
        k = len(candidates)
        state, parts = decision_counts(view, kind, candidates)
        floats = decision_features(view, kind, candidates)
        assert np.array_equal(floats_of_counts(np.array([state + p for p in parts])), floats)
        rows = decision_bytes(view, kind, candidates)
        flat = state + [c for p in parts for c in p]
        assert rows == bytes(flat)
        model = load_model(self.model_name)
        bias = model.layers[-1][1][0] * model.y_scale
        assert np.allclose(model.values_of_counts(rows, k), model.values(floats) - bias, rtol=1e-9, atol=1e-9)
        # the float path gives the very same values as the bytes
        assert model.values_of_counts(flat, k) == model.values_of_counts(rows, k)
        # a score over two bytes: no bytes, the float path, the float rows' values
        st = view._st.clone()
        st.team_scores = [s + 70_000 for s in st.team_scores]
        wide = PlayerView(st, view.seat)
        assert decision_bytes(wide, kind, candidates) is None
        state, parts = decision_counts(wide, kind, candidates)
        floats = decision_features(wide, kind, candidates)
        assert np.array_equal(floats_of_counts(np.array([state + p for p in parts])), floats)
        flat = state + [c for p in parts for c in p]
        assert np.allclose(model.values_of_counts(flat, k), model.values(floats) - bias, rtol=1e-9, atol=1e-9)
        self.checked += 1
        self.wide += len(candidates) > 1

    def choose_draw(self, view: PlayerView) -> Any:
        own = self._heuristic(view).choose_draw(view)
        self._check(view, "draw", own, draw_candidates(view, own))
        return super().choose_draw(view)

    def choose_melds(self, view: PlayerView) -> Any:
        own = self._heuristic(view).choose_melds(view)
        self._check(view, "melds", own, meld_candidates(view, own))
        return super().choose_melds(view)

    def choose_discard(self, view: PlayerView) -> Any:
        own = self._heuristic(view).choose_discard(view)
        self._check(view, "discard", own, discard_candidates(view, own))
        return super().choose_discard(view)


@pytest.mark.parametrize("variant", list(HEURISTIC))
def test_net_plays_from_mcs_candidates_and_the_training_rows(variant: str, tmp_path: Path) -> None:
    rules = load_rules(variant, {"max_hands": 1})
    model = random_model(tmp_path / "r.npz", variant, seed=7)
    players: list[Strategy] = [Probe(np.random.default_rng(s), model) for s in range(rules.num_players)]
    play_game(rules, ["net"] * rules.num_players, 5, strategies=players)
    assert sum(p.checked for p in players if isinstance(p, Probe)) > 40
    assert sum(p.wide for p in players if isinstance(p, Probe)) > 10


def test_net_plays_as_the_heuristic_mc_would_start_from(tmp_path: Path) -> None:
    """net's heuristic is the rollout policy mc builds for its seat, from the same seeds."""
    rules = load_rules("classic", {"max_hands": 1})
    net = Net(np.random.default_rng(1), model=str(random_model(tmp_path / "r.npz", seed=7, max_hands=1)))
    mc = MonteCarlo(np.random.default_rng(0))

    class Seen(Strategy):
        views: list[PlayerView] = []

        def choose_discard(self, view: PlayerView) -> int | None:
            Seen.views.append(view)
            return super().choose_discard(view)

    play_game(rules, ["x"] * 4, 3, strategies=[Seen(np.random.default_rng(s)) for s in range(4)])
    view = Seen.views[0]
    mine, theirs = net._heuristic(view), mc._policy(view)[view.seat]
    assert type(mine) is type(theirs)
    assert mine.rng.bit_generator.state == theirs.rng.bit_generator.state


#: SHA-256 (first 16 hex digits) of the float64 feature rows of every decision of game 0 of seed 11 (the variant's
#: heuristic in every seat, mc's candidates), and how many rows: written by the float features of commit cdff73d,
#: before the rows were built as counts. The training data's rows must not change under a feature version: version
#: 2 (issue 47) is version 1's rows with the match columns (net_features.match_counts) after the state part.
ROWS_DIGESTS = {"classic": (1203, "2fa04e3afb158252"), "ponytail": (2173, "ef377793f8fee408"),
                "americana": (2204, "21cd37624d226ead"), "spanish": (697, "1c04a485fdb95a72")}
#: The same of version 2's whole rows (issue 47's commit); version 3 is version 2's rows with the card memory after
#: the state part and the pile cards a take gains after the candidate part.
ROWS_DIGESTS_2 = {"classic": "9038e3bea961ed29", "ponytail": "4c302ec19db0c090", "americana": "24e84d537c04aa09",
                  "spanish": "b9f1f4b47aa3af71"}
#: The same of version 3's whole rows; version 4 is version 3's rows with the closed ranks' cards after the state
#: part and after the candidate part.
ROWS_DIGESTS_3 = {"classic": "b4a59fe6837faed3", "ponytail": "450b990fd94b8e43", "americana": "9ff4b501d640abd8",
                  "spanish": "ab8ee6e1387058c0"}
#: The same of version 4's whole rows; version 5 is version 4's rows with where a wild card may go after the state
#: part and after the candidate part.
ROWS_DIGESTS_4 = {"classic": "af71c48a53ad53de", "ponytail": "ef89f6615aec90b0", "americana": "a580f3d6acf27ab5",
                  "spanish": "0f5ec790ff151e29"}
#: Where version 2's match columns are in a version-2 float row.
MATCH = list(range(98, 106))
#: Where version 3's columns are in a version-3 float row.
MEMORY = list(range(106, 166)) + list(range(166 + 63, 166 + 78))
#: The same of version 5's whole rows.
ROWS_DIGESTS_5 = {"classic": "fd92c416576a4306", "ponytail": "ccda5814211e33f0", "americana": "4de048324f0b8be5",
                  "spanish": "4a6e10caf65d0ac7"}
#: Where version 4's columns are in a version-4 float row.
CLOSED = [166] + list(range(167 + 78, 167 + 81))
#: Where version 5's columns are in a version-5 float row.
HOMES = [167, 168] + list(range(169 + 81, 169 + 83))


@pytest.mark.parametrize("variant", sorted(ROWS_DIGESTS))  # handfoot came after feature version 1: no rows to keep
def test_the_training_rows_are_those_of_feature_versions_1_to_5(variant: str) -> None:
    rules = load_rules(variant)
    mc = MonteCarlo(np.random.default_rng(0))
    sha = hashlib.sha256()
    sha2 = hashlib.sha256()
    sha3 = hashlib.sha256()
    sha4 = hashlib.sha256()
    sha5 = hashlib.sha256()
    rows = 0
    base = load_strategy(HEURISTIC[variant])

    def seen(view: PlayerView, kind: str, own: Any, candidates: list[Any]) -> Any:
        nonlocal rows
        x = decision_features(view, kind, candidates)
        sha5.update(x.tobytes())
        x = np.ascontiguousarray(np.delete(x, HOMES, axis=1))
        sha4.update(x.tobytes())
        x = np.ascontiguousarray(np.delete(x, CLOSED, axis=1))
        sha3.update(x.tobytes())
        x = np.delete(x, MEMORY, axis=1)
        sha.update(np.ascontiguousarray(np.delete(x, MATCH, axis=1)).tobytes())
        sha2.update(np.ascontiguousarray(x).tobytes())
        rows += len(x)
        return own

    class Seen(base):  # type: ignore[valid-type, misc]
        def choose_draw(self, view: PlayerView) -> Any:
            own = super().choose_draw(view)
            return seen(view, "draw", own, mc._draw_candidates(view, own))

        def choose_melds(self, view: PlayerView) -> Any:
            own = super().choose_melds(view)
            return seen(view, "melds", own, mc._meld_candidates(view, own))

        def choose_discard(self, view: PlayerView) -> Any:
            own = super().choose_discard(view)
            return seen(view, "discard", own, mc._discard_candidates(view, own))

    players = [Seen(np.random.default_rng(s)) for s in range(rules.num_players)]
    play_game(rules, [HEURISTIC[variant]] * rules.num_players, 11, 0, strategies=players)
    assert (rows, sha.hexdigest()[:16]) == ROWS_DIGESTS[variant]
    assert sha2.hexdigest()[:16] == ROWS_DIGESTS_2[variant]
    assert sha3.hexdigest()[:16] == ROWS_DIGESTS_3[variant]
    assert sha4.hexdigest()[:16] == ROWS_DIGESTS_4[variant], sha4.hexdigest()[:16]
    assert sha5.hexdigest()[:16] == ROWS_DIGESTS_5[variant], sha5.hexdigest()[:16]


def test_a_linear_model_plays_from_counts_too(tmp_path: Path) -> None:
    """A model of one layer (``simcli train fit --hidden 0``): the first layer is the output."""
    path = random_model(tmp_path / "r.npz", seed=3, max_hands=1)
    with np.load(path) as z:
        arrays = dict(z)
    arrays["W0"], arrays["b0"] = arrays["W0"][:, :1], arrays["b0"][:1]
    del arrays["W1"], arrays["b1"]
    linear = tmp_path / "linear.npz"
    np.savez(linear, **arrays)
    rules = load_rules("classic", {"max_hands": 1})
    players = [Probe(np.random.default_rng(s), linear) for s in range(4)]
    play_game(rules, ["net"] * 4, 5, strategies=players)
    assert len(load_model(str(linear)).layers) == 1 and sum(p.wide for p in players) > 10
