"""Features of a decision for the learnt player (``net``) and its training data: what a seat sees, and each candidate.

Everything comes from the :class:`~simcli.engine.view.PlayerView` alone (the no-leak twins in tests/test_no_leak.py
deal the hidden cards again and require the same features), so a model trained on them can never read a card its
player has not seen. A decision's rows share the *state* part (the hand's count vector, every team's melds, the
pile's top, size and freeze, the stock, the hand sizes, scores and the variant's flags) and differ in the
*candidate* part: the after-state a candidate leads to as far as the seat can tell (the hand and its team's melds
after the cards it lays, the cards a take of the pile gains, the rank a discard gives away and whether another team
could use it), and whether the candidate is the heuristic's own choice (the search's first candidate).

Values are scaled to about 0..1 by fixed divisors (no fitted scaling here: the model file keeps its own). Changing
what a row holds changes :data:`FEATURE_VERSION`, which every model file records: a model of another version is
refused at load time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand, TakePile
from simcli.primitives.cards import JOKER, NUM_RANKS, TWO

#: The layout of a row; a model file records it and is refused under another.
FEATURE_VERSION = 1

#: The decisions the search weighs, in the order of the one-hot kind columns.
KINDS = ("draw", "melds", "discard")

#: A meld of this many cards or more is a canasta (every preset's canasta size).
CANASTA = 7


def _table_totals(view: PlayerView, team: int) -> list[int]:
    """Cards in each rank's meld of ``team`` (0 without one)."""
    out = [0] * NUM_RANKS
    for r, m in enumerate(view.meld_table(team)):
        if m is not None:
            out[r] = m[0] + m[1] + m[2]
    return out


def _tables(view: PlayerView) -> tuple[list[int], list[int], list[int]]:
    """The own team's meld totals by rank, the other teams' summed, and the other teams."""
    team = view.team
    own = _table_totals(view, team)
    opp = [0] * NUM_RANKS
    others = [t for t in range(view.n_teams) if t != team]
    for t in others:
        for r, c in enumerate(_table_totals(view, t)):
            opp[r] += c
    return own, opp, others


def _best(values: Sequence[int], others: list[int]) -> int:
    """The largest value of the other teams (0 without any)."""
    best = 0
    for t in others:
        if values[t] > best:
            best = values[t]
    return best


def state_features(view: PlayerView, tables: tuple[list[int], list[int], list[int]] | None = None) -> list[float]:
    """The decision's state part: what the seat sees before it decides (one row, shared by every candidate)."""
    team, seat, n = view.team, view.seat, view.n_players
    own, opp, others = _tables(view) if tables is None else tables
    n_teams = view.n_teams
    canastas = [sum(view.canastas(t).values()) for t in range(n_teams)]
    clean = [view.clean_canastas(t) for t in range(n_teams)]
    hidden = [view.hidden_canastas(t) for t in range(n_teams)]
    scores = view.scores
    best_other = team
    for t in others:  # the first other team with the highest score
        if best_other == team or scores[t] > scores[best_other]:
            best_other = t
    permission = view.partner_permission
    hand_sizes = view.hand_sizes
    red, black, opened = view.red_threes, view.black_threes, view.opened
    row: list[float] = [h / 4 for h in view.hand]
    row.append(view.hand_size / 20)
    row += [c / 8 for c in own]
    row += [c / 8 for c in opp]
    row += [canastas[team] / 3, _best(canastas, others) / 3, clean[team] / 3, _best(clean, others) / 3,
            hidden[team] / 2, _best(hidden, others) / 2]
    row += [float(view.has_opened), float(any(opened[t] for t in others)), view.minimum / 120]
    top = view.pile_top
    at = len(row) + (NUM_RANKS if top is None else top)
    row += [0.0] * (NUM_RANKS + 1)
    row[at] = 1.0
    row += [view.pile_size / 30, float(view.pile_frozen), view.stock_size / 100]
    row += [hand_sizes[(seat + k) % n] / 15 if k < n else 0.0 for k in range(1, 4)]
    row += [scores[team] / 5000, scores[best_other] / 5000, (scores[team] - scores[best_other]) / 2000]
    row += [red[team] / 4, _best(red, others) / 4, black[team] / 4, _best(black, others) / 4]
    row += [view.turn / 60, view.deal_index / 10, float(view.must_take_pile), float(view.drew_from_stock),
            float(view.may_ask), float(permission is True), float(permission is False), float(view.pile_premiado),
            float(view.pile_crossed), float(view.first_take_done), float(view.no_discard_this_turn),
            float(view.pony_picked[seat]), view.wings_left / 4, len(view.closed_canastas(team)) / 3]
    return row


def _lay(hand: list[int], table: list[int], meld: Meld) -> tuple[int, int]:
    """Take ``meld``'s cards from ``hand`` onto ``table`` (counts clamped at 0); the cards and wild cards laid."""
    nat = meld.naturals
    hand[meld.rank] = max(hand[meld.rank] - nat, 0)
    hand[TWO] = max(hand[TWO] - meld.twos, 0)
    hand[JOKER] = max(hand[JOKER] - meld.jokers, 0)
    laid = nat + meld.twos + meld.jokers
    table[meld.rank] += laid
    return laid, meld.twos + meld.jokers


def candidate_features(view: PlayerView, kind: str, candidate: Any, first: bool, own: Sequence[int],
                       opp: Sequence[int]) -> list[float]:
    """One candidate's part of its row: its kind, whether it is the heuristic's choice, and its after-state."""
    hand = list(view.hand)
    table = list(own)
    laid = wild = new = gained = 0
    stock = take = special = 0.0
    discard_at = -1
    feeds = mine = is_wild = 0.0
    if kind == "draw":
        if candidate is DRAW_STOCK:
            stock = 1.0
        elif isinstance(candidate, TakePile):
            take = 1.0
            gained = view.pile_size
            top = candidate.meld.rank
            hand[top] += 1  # the top card is melded with the cards from the hand
            for m in (candidate.meld, *candidate.extra):
                new += int(table[m.rank] == 0)
                a, w = _lay(hand, table, m)
                laid, wild = laid + a, wild + w
            hand[top] = max(hand[top] - 1, 0)
            table[top] += 1
    elif kind == "melds":
        plan = list(candidate or ())
        if plan and isinstance(plan[0], SpecialHand):
            special = 1.0
            laid = sum(hand)
            hand = [0] * NUM_RANKS
        else:
            for m in plan:
                new += int(table[m.rank] == 0)
                a, w = _lay(hand, table, m)
                laid, wild = laid + a, wild + w
    else:
        rank = candidate
        discard_at = NUM_RANKS if rank is None else rank
        if rank is not None:
            hand[rank] = max(hand[rank] - 1, 0)
            feeds, mine, is_wild = float(opp[rank] > 0), float(own[rank] > 0), float(rank in (JOKER, TWO))
    left = sum(hand) + (gained - 1 if take else 0)
    closed = 0
    for r in range(NUM_RANKS):
        if table[r] >= CANASTA and own[r] < CANASTA:
            closed += 1
    row = [float(kind == "draw"), float(kind == "melds"), float(kind == "discard"), float(first)]
    row += [h / 4 for h in hand]
    row += [c / 8 for c in table]
    row += [laid / 15, wild / 4, new / 4, closed / 2, left / 20, float(left <= 0), stock, take, max(gained - 1, 0) / 30,
            special, feeds, mine, is_wild]
    tail = [0.0] * (NUM_RANKS + 1)
    if discard_at >= 0:
        tail[discard_at] = 1.0
    return row + tail


def decision_parts(view: PlayerView, kind: str, candidates: Sequence[Any]) -> tuple[list[float], list[list[float]]]:
    """A decision's state part (once) and each candidate's part (the first is the heuristic's choice)."""
    tables = _tables(view)
    own, opp, _ = tables
    return state_features(view, tables), [candidate_features(view, kind, c, i == 0, own, opp)
                                          for i, c in enumerate(candidates)]


def decision_features(view: PlayerView, kind: str, candidates: Sequence[Any]) -> np.ndarray:
    """The rows of one decision, one per candidate (the first is the heuristic's choice), state part first."""
    state, parts = decision_parts(view, kind, candidates)
    return np.array([state + part for part in parts], dtype=np.float64)


#: Columns of a row's state part and of its candidate part.
STATE_COLUMNS = 15 + 1 + 30 + 6 + 3 + 16 + 3 + 3 + 3 + 4 + 14
CANDIDATE_COLUMNS = 3 + 1 + 30 + 13 + 16
