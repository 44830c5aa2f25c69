"""The learnt player's decisions at the table, compiled with the features (issue 31): a decision of ``net`` is the
heuristic's choice, ``mc``'s candidates around it, their rows as counts and one pass of the model over them, with no
interpreted code between them (strategies/learnt/net.py builds a :class:`Seat` a seat and hands it each decision).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from simcli.engine.view import PlayerView

from ..search.candidates import discard_candidates, draw_candidates, meld_candidates
from .net_features import (
    CANDIDATE_COUNTS,
    KINDS,
    SHARE_COUNT,
    STATE_COUNTS,
    decision_bytes,
    decision_counts,
)

#: The dtypes of the counts and of the pass, and the ReLU's 0 (an array: numpy converts no float a call).
_U8: Final = np.dtype(np.uint8)
_F8: Final = np.dtype(np.float64)
_ZERO: Final = np.zeros(())
_ZERO.setflags(write=False)


def forward(counts: bytes | list[int], k: int, w_state: Any, buffer: Any, hidden: list[tuple[Any, Any]],
            w_out: Any) -> list[float]:
    """The values of a decision's ``k`` candidates from its rows as counts (``Model.values_of_counts`` in
    strategies/learnt/model.py, which has the arrays): the state part through the first layer once, written into
    ``buffer``'s row :data:`SHARE_COUNT`, which each candidate's count there (1) adds, every candidate in one
    product (array methods rather than numpy's functions: no dispatch a call)."""
    if isinstance(counts, bytes):
        x = np.frombuffer(counts, _U8).astype(_F8)
    else:  # a count over 255: the same counts as floats (a byte's value as a float is exact: the same products)
        x = np.array(counts, dtype=_F8)
    x[:STATE_COUNTS].dot(w_state, out=buffer[SHARE_COUNT])
    h = x[STATE_COUNTS:].reshape(k, CANDIDATE_COUNTS).dot(buffer)
    for w, b in hidden:
        np.maximum(h, _ZERO, out=h)
        h = h.dot(w)
        h += b
    if w_out is None:  # a linear model: one output column
        out: list[float] = h[:, 0].tolist()
        return out
    np.maximum(h, _ZERO, out=h)
    values: list[float] = h.dot(w_out).tolist()
    return values


class Seat:
    """One seat's play: its heuristic, its model's arrays (with the seat's own copy of the candidate weights, whose
    row :data:`SHARE_COUNT` each decision writes) and the margin."""

    def __init__(self, heuristic: Any, w_state: Any, buffer: Any, hidden: list[tuple[Any, Any]], w_out: Any,
                 margin: float) -> None:
        self.heuristic = heuristic
        self.w_state = w_state
        self.buffer = buffer
        self.hidden = hidden
        self.w_out = w_out
        self.margin = margin

    def draw(self, view: PlayerView) -> Any:
        """The best-rated of the stock and the legal pile takes."""
        return self.pick(view, 0, draw_candidates(view, self.heuristic.choose_draw(view)))

    def melds(self, view: PlayerView) -> Any:
        """The best-rated of a few meld plans."""
        return self.pick(view, 1, meld_candidates(view, self.heuristic.choose_melds(view)))

    def discard(self, view: PlayerView) -> Any:
        """The best-rated distinct legal discard."""
        return self.pick(view, 2, discard_candidates(view, self.heuristic.choose_discard(view)))

    def pick(self, view: PlayerView, kind: int, candidates: list[Any]) -> Any:
        """The heuristic's choice (the first candidate) unless another is rated more than the margin above it (the
        first best); no pass where there is one candidate or a special hand has ended the deal."""
        k = len(candidates)
        if k == 1 or view.special_hand_laid:
            return candidates[0]
        name = KINDS[kind]
        counts: bytes | list[int] | None = decision_bytes(view, name, candidates)
        if counts is None:  # a count over 255: the same counts as a list
            state, parts = decision_counts(view, name, candidates)
            counts = state + [c for part in parts for c in part]
        values = forward(counts, k, self.w_state, self.buffer, self.hidden, self.w_out)
        best = 0
        top = values[0]
        for i in range(1, k):
            if values[i] > top:
                best, top = i, values[i]
        if best and top - values[0] > self.margin:
            return candidates[best]
        return candidates[0]
