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
from simcli.players.planning import opening_take, take_wilds
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand, TakePile
from simcli.primitives.cards import FOUR, JOKER, NUM_RANKS, TWO

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


def _lay(hand: list[int], table: list[int], meld: Meld) -> tuple[int, int]:
    """Take ``meld``'s cards from ``hand`` onto ``table`` (counts clamped at 0); the cards and wild cards laid."""
    nat = meld.naturals
    hand[meld.rank] = max(hand[meld.rank] - nat, 0)
    hand[TWO] = max(hand[TWO] - meld.twos, 0)
    hand[JOKER] = max(hand[JOKER] - meld.jokers, 0)
    laid = nat + meld.twos + meld.jokers
    table[meld.rank] += laid
    return laid, meld.twos + meld.jokers


#: Columns of a row's state part and of its candidate part.
STATE_COLUMNS = 15 + 1 + 30 + 6 + 3 + 16 + 3 + 3 + 3 + 4 + 14
CANDIDATE_COLUMNS = 3 + 1 + 30 + 13 + 16


# ------------------------------------------------------------------------------------------------------ rows
# A row is built as whole numbers, counts, and each feature is a count over a fixed divisor (a flag is 1 or 0 over
# 1): decision_features divides them for the training data; net hands the counts to numpy as bytes, one a column,
# with the divisors folded into its model's first layer, and so makes no float in Python. The two scores, which can be
# large or negative, are four counts each (the positive part's low and high bytes, the negative part's), and the
# score difference is made of them. A count outside 0..255 (a deal of many cards, a score over 65,535) makes no
# bytes: net then hands numpy the same counts as a list.

#: The columns of a row's state part as counts: the float row's, with each of its two scores (columns 77 and 78)
#: as four counts, and its score difference (column 79) made of them.
STATE_COUNTS = STATE_COLUMNS - 3 + 8


def _layout() -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """For each column of a float row (:func:`decision_features`, state part then candidate part): its divisor and
    the counts it is made of, ``(count column, coefficient)``: the column is their sum over its divisor."""
    divisors = ([4] * 15 + [20] + [8] * 30 + [3] * 4 + [2] * 2 + [1, 1, 120] + [1] * 16 + [30, 1, 100] + [15] * 3
                + [5000, 5000, 2000] + [4] * 4 + [60, 10] + [1] * 10 + [4, 3])
    out: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    team = ((77, 1), (78, 256), (79, -1), (80, -256))
    best = ((81, 1), (82, 256), (83, -1), (84, -256))
    for j, d in enumerate(divisors):
        if j < 77:
            out.append((d, ((j, 1),)))
        elif j == 77:
            out.append((d, team))
        elif j == 78:
            out.append((d, best))
        elif j == 79:
            out.append((d, team + tuple((c, -k) for c, k in best)))
        else:
            out.append((d, ((j + 5, 1),)))
    candidate = [1] * 4 + [4] * 15 + [8] * 15 + [15, 4, 4, 2, 20, 1, 1, 1, 30] + [1] * 20
    for j, d in enumerate(candidate):
        out.append((d, ((STATE_COUNTS + j, 1),)))
    return out


#: :func:`_layout`: how a model's first layer over float rows becomes one over count rows.
COUNT_LAYOUT = _layout()


def _signed(row: list[int], value: int) -> None:
    """Append a score as four counts: its positive part's low and high bytes, then its negative part's."""
    pos = value if value > 0 else 0
    neg = pos - value
    row.append(pos & 255)
    row.append(pos >> 8)
    row.append(neg & 255)
    row.append(neg >> 8)


def state_counts(view: PlayerView, tables: tuple[list[int], list[int], list[int]]) -> list[int]:
    """A decision's state part as counts (over :data:`COUNT_LAYOUT`'s divisors: the features): the hand by rank
    (/4), its size (/20), the own team's and the other teams' meld cards by rank (/8 each), canastas, clean
    canastas (/3) and hidden canastas (/2), each own and the other teams' best; opened, another team opened, the
    minimum (/120); the pile's top rank one-hot (or empty), its size (/30), frozen, the stock (/100); the next three
    seats' hand sizes (/15); the own and the best other team's scores (/5000) and their difference (/2000); red and
    black threes, own and best other (/4); the turn (/60), the deal (/10); the flags (must take the pile, drew from
    the stock, may ask, permission yes, no, pile premiado, crossed, first take done, no discard this turn, pony
    picked); wings left (/4) and closed canastas set aside (/3)."""
    team, seat, n = view.team, view.seat, view.n_players
    own, opp, others = tables
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
    row: list[int] = list(view.hand)
    row.append(view.hand_size)
    row.extend(own)
    row.extend(opp)
    for x in (canastas[team], _best(canastas, others), clean[team], _best(clean, others), hidden[team],
              _best(hidden, others), int(view.has_opened), int(any(opened[t] for t in others)), view.minimum):
        row.append(x)
    top = view.pile_top
    row.extend(_ONE_HOT[NUM_RANKS if top is None else top])
    row.append(view.pile_size)
    row.append(int(view.pile_frozen))
    row.append(view.stock_size)
    for k in range(1, 4):
        row.append(hand_sizes[(seat + k) % n] if k < n else 0)
    _signed(row, scores[team])
    _signed(row, scores[best_other])
    for x in (red[team], _best(red, others), black[team], _best(black, others), view.turn, view.deal_index,
              int(view.must_take_pile), int(view.drew_from_stock), int(view.may_ask), int(permission is True),
              int(permission is False), int(view.pile_premiado), int(view.pile_crossed), int(view.first_take_done),
              int(view.no_discard_this_turn), int(view.pony_picked[seat]), view.wings_left,
              len(view.closed_canastas(team))):
        row.append(x)
    return row


#: One-hot count vectors over the ranks and "none" (index ``NUM_RANKS``), and all zeros (index ``NUM_RANKS + 1``).
_ONE_HOT = [tuple(int(r == i) for r in range(NUM_RANKS + 1)) for i in range(NUM_RANKS + 2)]
#: The kind and "heuristic's choice" columns, by kind and whether the candidate is the first.
_KIND = {(kind, first): (int(kind == "draw"), int(kind == "melds"), int(kind == "discard"), int(first))
         for kind in KINDS for first in (False, True)}


def _candidate_counts(hand0: Sequence[int], pile_size: int, kind: str, candidate: Any, first: bool,
                      own: Sequence[int], opp: Sequence[int]) -> list[int]:
    """A candidate's part of a row as counts: its kind one-hot, whether it is the heuristic's choice, the hand
    (/4) and the team's meld cards by rank (/8) after it, the cards it lays (/15), its wild cards (/4), new melds
    (/4), canastas it closes (/2), the cards left (/20), none left, stock, take, the pile cards a take gains beyond
    the top (/30), a special hand, and for a discard whether another team and the own team have a meld of its rank,
    whether it is wild, and its rank one-hot (or none)."""
    hand = list(hand0)
    table = list(own)
    laid = wild = new = gained = 0
    stock = take = special = 0
    discard_at = NUM_RANKS + 1
    feeds = mine = is_wild = 0
    if kind == "draw":
        if candidate is DRAW_STOCK:
            stock = 1
        elif isinstance(candidate, TakePile):
            take = 1
            gained = pile_size
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
            special = 1
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
            feeds, mine, is_wild = int(opp[rank] > 0), int(own[rank] > 0), int(rank in (JOKER, TWO))
    left = sum(hand) + (gained - 1 if take else 0)
    closed = 0
    for r in range(NUM_RANKS):
        if table[r] >= CANASTA and own[r] < CANASTA:
            closed += 1
    row = list(_KIND[kind, first])
    row.extend(hand)
    row.extend(table)
    for x in (laid, wild, new, closed, left, int(left <= 0), stock, take, max(gained - 1, 0), special, feeds, mine,
              is_wild):
        row.append(x)
    row.extend(_ONE_HOT[discard_at])
    return row


def decision_counts(view: PlayerView, kind: str, candidates: Sequence[Any]) -> list[list[int]]:
    """A decision's rows as counts (:data:`COUNT_LAYOUT`), one a candidate: the state part, then the candidate's."""
    tables = _tables(view)
    own, opp, _ = tables
    state = state_counts(view, tables)
    hand, pile_size = view.hand, view.pile_size
    return [state + _candidate_counts(hand, pile_size, kind, c, i == 0, own, opp) for i, c in enumerate(candidates)]


def decision_features(view: PlayerView, kind: str, candidates: Sequence[Any]) -> np.ndarray:
    """The rows of one decision, one per candidate (the first is the heuristic's choice), state part first: each
    column its counts over its divisor (:data:`COUNT_LAYOUT`; an int over an int, as Python divides)."""
    rows = decision_counts(view, kind, candidates)
    out: list[list[float]] = []
    for counts in rows:
        row: list[float] = []
        for divisor, terms in COUNT_LAYOUT:
            total = 0
            for column, coefficient in terms:
                total += coefficient * counts[column]
            row.append(total / divisor)
        out.append(row)
    return np.array(out, dtype=np.float64)


def decision_bytes(view: PlayerView, kind: str, candidates: Sequence[Any]) -> bytes | None:
    """:func:`decision_counts` as bytes, one a count, the rows one after another (``None`` where a count is outside
    0..255): what ``net`` hands to its model, with no float made in Python."""
    tables = _tables(view)
    own, opp, _ = tables
    hand, pile_size = view.hand, view.pile_size
    try:
        state = bytes(state_counts(view, tables))
        parts: list[bytes] = []
        first = True
        for c in candidates:
            parts.append(state)
            parts.append(bytes(_candidate_counts(hand, pile_size, kind, c, first, own, opp)))
            first = False
    except ValueError:
        return None
    return b"".join(parts)


# ------------------------------------------------------------------------------------------------ candidates
# mc's candidate lists (strategies/mc.py, MonteCarlo's _draw_candidates, _meld_candidates and _discard_candidates
# at its defaults: melds=3, discards=0), compiled here for net, which weighs the same candidates a decision;
# tests/test_net.py checks that they are mc's, in the same order.

def draw_candidates(view: PlayerView, own: Any) -> list[Any]:
    """The heuristic's draw, the stock, and each legal take of the kinds a heuristic makes."""
    out = [own]
    if own is not DRAW_STOCK and not view.must_take_pile:
        out.append(DRAW_STOCK)
    top = view.pile_top
    if top is None or top < FOUR:
        return out
    hand = view.hand
    n = hand[top]
    melds = [Meld(top, k) for k in range(2, n + 1)]
    if view.meld(top) is not None:
        melds += [Meld(top, k) for k in range(0, min(n, 1) + 1)]
    if n >= 1:
        left = list(hand)
        tw, jk = take_wilds(left, 1)
        if tw or jk:
            melds.append(Meld(top, n, tw, jk))
    minimum, opened = view.minimum, view.has_opened
    for meld in melds:
        take = opening_take(hand, meld, minimum, opened)
        if take is not None and take not in out and view.check_take(take) is None:
            out.append(take)
    return out


def meld_candidates(view: PlayerView, own: Sequence[Any], most: int = 3) -> list[Any]:
    """The heuristic's plan, nothing, the plan without wild cards and the plan without new melds (at most
    ``most``, each legal and distinct)."""
    own = list(own)
    if own and isinstance(own[0], SpecialHand):
        return [own]
    table = view.meld_table()
    plans = [own, [],
             [m for m in own if not (m.twos or m.jokers)],
             [m for m in own if table[m.rank] is not None]]
    out: list[Any] = []
    for plan in plans:
        if plan in out or (plan and view.check_melds(plan) is not None):
            continue
        if not plan and view.partner_permission is True:
            continue  # told to go out: keeping every card is no option
        out.append(plan)
        if len(out) >= most:
            break
    return out or [own]


def discard_candidates(view: PlayerView, own: int | None) -> list[int | None]:
    """The heuristic's discard, then each other distinct legal discard."""
    out: list[int | None] = [own]
    for r in view.legal_discards():
        if r != own:
            out.append(r)
    return out
