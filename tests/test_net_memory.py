"""Feature version 3 (issue 47): the learnt player's card memory, and older models read by this version.

The memory is what every player at the table has seen and a good player keeps count of: the pile's face-up cards,
the cards that went into another hand with a pile take (the partners' and the other teams'), and what is left
unseen; a take's candidate row holds the pile cards below the top that it puts into the hand. All of it comes from
the ``PlayerView`` (the no-leak twins, tests/test_net_no_leak.py, deal the hidden cards again under this version).
An older model reads this version's rows with zero weights for the columns added since and gives the values it gave.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from net_models import random_model

from simcli.engine.view import PlayerView
from simcli.engine.worlds import seen_counts
from simcli.players.best_heuristic import BEST_HEURISTIC as HEURISTIC
from simcli.players.seating import play_game
from simcli.primitives.actions import TakePile
from simcli.primitives.cards import NUM_RANKS, deck_counts
from simcli.rules.presets import load_rules
from simcli.strategies.learnt.model import ModelError, load_model, upgrade_rows
from simcli.strategies.learnt.net_features import (
    CANDIDATE_COLUMNS,
    FEATURE_VERSION,
    STATE_COLUMNS,
    decision_features,
    widths,
)
from simcli.strategies.search.candidates import draw_candidates
from simcli.strategy import load_strategy
from simcli.training.fit import save_model

#: Where the memory's four rank vectors are in a float row (version 3's state columns, after version 2's).
PILE, THEIRS, PARTNERS, UNSEEN = (range(widths(2)[0] + 15 * i, widths(2)[0] + 15 * (i + 1)) for i in range(4))
#: Where a take's pile cards are (version 3's candidate columns).
GAINED = range(STATE_COLUMNS + widths(2)[1], STATE_COLUMNS + widths(3)[1])


def test_version_3_appends_the_memory_to_both_parts() -> None:
    assert FEATURE_VERSION == 5
    assert widths(1) == (98, 63) and widths(2) == (106, 63) and widths(3) == (166, 78) and widths(4) == (167, 81)
    assert widths(5) == (STATE_COLUMNS, CANDIDATE_COLUMNS) == (169, 83)


@pytest.mark.parametrize("variant", ["classic", "spanish", "americana", "ponytail"])
def test_the_memory_is_what_the_table_has_seen(variant: str) -> None:
    """At every draw of a game: the pile's face-up cards (a Spanish initial pile's face-down cards not among them),
    the cards known in the other hands, the unseen cards (the pack less what the seat has seen), and each take's
    pile cards below the top, as the rows hold them."""
    rules = load_rules(variant)
    pack = deck_counts(rules.decks, rules.jokers_per_deck)
    checked = {"draws": 0, "takes": 0, "known": 0, "face_down": 0}
    base = load_strategy(HEURISTIC[variant])

    class Probe(base):  # type: ignore[valid-type, misc]
        def choose_draw(self, view: PlayerView) -> Any:
            own = super().choose_draw(view)
            st = view._st
            candidates = draw_candidates(view, own)
            x = decision_features(view, "draw", candidates)
            face_down = st.facedown_positions()
            pile = [0] * NUM_RANKS
            for i, card in enumerate(st.pile):
                if i not in face_down:
                    pile[card] += 1
            assert list(view.pile_cards) == pile
            assert np.array_equal(x[0, list(PILE)] * 8, pile)
            theirs, partners = [0] * NUM_RANKS, [0] * NUM_RANKS
            for s in range(st.n_players):
                if s != view.seat:
                    into = partners if st.team_of[s] == view.team else theirs
                    for r in range(NUM_RANKS):
                        into[r] += st.known[s][r]
            assert np.array_equal(np.rint(x[0, list(THEIRS)] * 4), theirs)
            assert np.array_equal(np.rint(x[0, list(PARTNERS)] * 4), partners)
            unseen = [a - b for a, b in zip(pack, seen_counts(st, view.seat), strict=True)]
            assert np.array_equal(np.rint(x[0, list(UNSEEN)] * 8), unseen) and min(unseen) >= 0
            below = pile[:]
            if view.pile_top is not None:
                below[view.pile_top] -= 1
            for row, candidate in zip(x, candidates, strict=True):
                gained = np.rint(row[list(GAINED)] * 4)
                if isinstance(candidate, TakePile):
                    assert np.array_equal(gained, below)
                    checked["takes"] += sum(below) > 0
                else:
                    assert not gained.any()
            checked["draws"] += 1
            checked["known"] += sum(theirs) + sum(partners) > 0
            checked["face_down"] += bool(face_down)
            return own

    players = [Probe(np.random.default_rng(s)) for s in range(rules.num_players)]
    play_game(rules, [HEURISTIC[variant]] * rules.num_players, 3, 0, strategies=players)
    # the checks met what they check: takes of several cards, cards known in other hands (and Spanish face-down cards)
    assert checked["draws"] > 20 and checked["takes"] > 0 and checked["known"] > 0, checked
    assert variant != "spanish" or checked["face_down"] > 0, checked


def _as_version_2(path: Path, out: Path) -> Path:
    """``path``'s model with version 3's columns cut out of its first layer and scaling, marked version 2."""
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(str(arrays["meta"]))
    state, candidate = widths(2)
    keep = list(range(state)) + list(range(STATE_COLUMNS, STATE_COLUMNS + candidate))
    keep += list(range(STATE_COLUMNS + CANDIDATE_COLUMNS, arrays["x_mean"].size))
    meta["feature_version"] = 2
    save_model(out, [(arrays["W0"][keep], arrays["b0"]), (arrays["W1"], arrays["b1"])], arrays["x_mean"][keep],
               arrays["x_scale"][keep], float(arrays["y_scale"]), meta)
    return out


def test_an_older_model_reads_this_versions_rows_as_it_read_its_own(tmp_path: Path) -> None:
    """A version-2 model (random weights and scaling) gets zero weights, mean 0 and deviation 1 for version 3's
    columns: its values of version 3's rows are those of its own network on the rows less those columns."""
    full = random_model(tmp_path / "r.npz", seed=4, max_hands=1)
    with np.load(full) as z:
        arrays = dict(z)
    rng = np.random.default_rng(2)
    arrays["x_mean"] = rng.normal(size=arrays["x_mean"].size)
    arrays["x_scale"] = rng.uniform(0.5, 2.0, size=arrays["x_mean"].size)
    save_model(full, [(arrays["W0"], arrays["b0"]), (arrays["W1"], arrays["b1"])], arrays["x_mean"],
               arrays["x_scale"], float(arrays["y_scale"]), json.loads(str(arrays["meta"])))
    old = load_model(str(_as_version_2(full, tmp_path / "v2.npz")))
    assert old.feature_version == 2 and old.x_mean.size == STATE_COLUMNS + CANDIDATE_COLUMNS
    with np.load(tmp_path / "v2.npz") as z:
        w0, b0, w1, b1 = z["W0"], z["b0"], z["W1"], z["b1"]
        mean, scale, y_scale = z["x_mean"], z["x_scale"], float(z["y_scale"])
    rules = load_rules("classic", {"max_hands": 1})
    rows: list[np.ndarray] = []

    class Probe(load_strategy("greedy")):  # type: ignore[misc]
        def choose_draw(self, view: PlayerView) -> Any:
            own = super().choose_draw(view)
            rows.append(decision_features(view, "draw", draw_candidates(view, own)))
            return own

    play_game(rules, ["greedy"] * 4, 5, 0, strategies=[Probe(np.random.default_rng(s)) for s in range(4)])
    x = np.vstack(rows)
    state, candidate = widths(2)
    x2 = np.hstack([x[:, :state], x[:, STATE_COLUMNS:STATE_COLUMNS + candidate]])
    h = np.maximum(((x2 - mean) / scale) @ w0 + b0, 0.0)
    expected = (h @ w1 + b1)[:, 0] * y_scale
    assert np.allclose(old.values(x), expected, rtol=1e-12, atol=1e-9)
    assert x[:, STATE_COLUMNS - 60:STATE_COLUMNS].any()  # the new columns were not zeros: the weights made them count
    # and the widening itself: every old column where it was, the fill in the new ones
    widened = upgrade_rows(np.arange(state + candidate + 2, dtype=float), 2, -1.0)
    assert widened.size == STATE_COLUMNS + CANDIDATE_COLUMNS + 2
    assert np.array_equal(widened[:state], np.arange(state)) and (widened[state:STATE_COLUMNS] == -1).all()
    assert np.array_equal(widened[STATE_COLUMNS:STATE_COLUMNS + candidate], np.arange(state, state + candidate))
    assert (widened[STATE_COLUMNS + candidate:STATE_COLUMNS + CANDIDATE_COLUMNS] == -1).all()
    assert np.array_equal(widened[-2:], [state + candidate, state + candidate + 1])


def test_a_model_of_no_known_version_is_refused(tmp_path: Path) -> None:
    path = random_model(tmp_path / "r.npz")
    with np.load(path) as z:
        arrays = dict(z)
    for version in (0, FEATURE_VERSION + 1, "3"):
        meta = json.loads(str(arrays["meta"]))
        meta["feature_version"] = version
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez(tmp_path / f"bad{version}.npz", **arrays)
        with pytest.raises(ModelError, match="feature version"):
            load_model(str(tmp_path / f"bad{version}.npz"))
