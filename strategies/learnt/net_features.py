"""Features of a decision for the learnt player (``net``) and its training data: what a seat sees, and each candidate.

Everything comes from the :class:`~simcli.engine.view.PlayerView` alone (the no-leak twins in tests/test_no_leak.py
deal the hidden cards again and require the same features), so a model trained on them can never read a card its
player has not seen. A decision's rows share the *state* part (the hand's count vector, every team's melds, the
pile's top, size and freeze, the stock, the hand sizes, scores and the variant's flags) and differ in the
*candidate* part: the after-state a candidate leads to as far as the seat can tell (the hand and its team's melds
after the cards it lays, the cards a take of the pile gains, the rank a discard gives away and whether another team
could use it), and whether the candidate is the heuristic's own choice (the search's first candidate).

Versions 4 and 5 add what a team's melds close for the deal and where a wild card may go (:mod:`.net_match`).

Values are scaled to about 0..1 by fixed divisors (no fitted scaling here: the model file keeps its own). Changing
what a row holds changes :data:`FEATURE_VERSION`, which every model file records: a model of another version is
refused at load time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand, TakePile
from simcli.primitives.cards import JOKER, NUM_RANKS, TWO

from . import net_match
from .net_match import NONE_CLOSED, Closed, closed_ranks, dead_after, match_counts, table_totals

#: The layout of a row; a model file records it and is refused under another.
FEATURE_VERSION = 5

#: The decisions the search weighs, in the order of the one-hot kind columns.
KINDS = ("draw", "melds", "discard")

#: A meld of this many cards or more is a canasta (every preset's canasta size).
CANASTA: Final = 7


def _tables(view: PlayerView) -> tuple[list[int], list[int], list[int], list[list[int]]]:
    """The own team's meld totals by rank, the other teams' summed, the other teams, and their meld totals."""
    team = view.team
    own = table_totals(view.meld_table(team))
    opp = [0] * NUM_RANKS
    others = [t for t in range(view.n_teams) if t != team]
    theirs = [table_totals(view.meld_table(t)) for t in others]
    for table in theirs:
        for r, c in enumerate(table):
            opp[r] += c
    return own, opp, others, theirs


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


#: Columns of a row's state part and of its candidate part. Each version appends its columns to both parts, so
#: that an older model reads the same columns at the same places (:func:`upgrade_layer`): version 2 the match's
#: state (8 state columns), version 3 the card memory (:func:`memory_counts`: 60 state columns; the pile cards a
#: take gains: 15 candidate columns), version 4 the ranks closed for the deal (1 state column, 3 candidate columns),
#: version 5 where a wild card may go (2 state columns, 2 candidate columns).
STATE_COLUMNS = 15 + 1 + 30 + 6 + 3 + 16 + 3 + 3 + 3 + 4 + 14 + 8 + 60 + 1 + 2
CANDIDATE_COLUMNS = 3 + 1 + 30 + 13 + 16 + 15 + 3 + 2
#: The columns each version added to the state part and to the candidate part, at their ends.
ADDED_COLUMNS: Final = {2: (8, 0), 3: (60, 15), 4: (1, 3), 5: (2, 2)}


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
#: The counts of a row's candidate part: the float row's, and a count that is always 1 (a model's pass adds the
#: state part's share of the first layer through it, once a decision) after version 2's columns and before version
#: 3's (:data:`SHARE_COUNT`; a version-2 model's pass sums as it did).
CANDIDATE_COUNTS = CANDIDATE_COLUMNS + 1
#: Where the candidate part's count that is always 1 is.
SHARE_COUNT: Final = CANDIDATE_COLUMNS - sum(c for v, (_, c) in ADDED_COLUMNS.items() if v >= 3)


def _layout() -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """For each column of a float row (:func:`decision_features`, state part then candidate part): its divisor and
    the counts it is made of, ``(count column, coefficient)``: the column is their sum over its divisor."""
    divisors = ([4] * 15 + [20] + [8] * 30 + [3] * 4 + [2] * 2 + [1, 1, 120] + [1] * 16 + [30, 1, 100] + [15] * 3
                + [5000, 5000, 2000] + [4] * 4 + [60, 10] + [1] * 10 + [4, 3]
                + [10, 1, 1, 50, 50, 100, 100, 1] + [8] * 15 + [4] * 30 + [8] * 15 + [8] + [4, 4])
    out: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    team = ((77, 1), (78, 256), (79, -1), (80, -256))
    best = ((81, 1), (82, 256), (83, -1), (84, -256))
    scores = {77: team, 78: best, 79: team + tuple((c, -k) for c, k in best)}
    for j, d in enumerate(divisors):
        out.append((d, ((j, 1),) if j < 77 else scores[j] if j < 80 else ((j + 5, 1),)))
    candidate = [1] * 4 + [4] * 15 + [8] * 15 + [15, 4, 4, 2, 20, 1, 1, 1, 30] + [1] * 20 + [4] * 15 + [8, 1, 1, 4, 4]
    for j, d in enumerate(candidate):
        out.append((d, ((STATE_COUNTS + j + (j >= SHARE_COUNT), 1),)))
    return out


#: :func:`_layout`: how a model's first layer over float rows becomes one over count rows.
COUNT_LAYOUT = _layout()


def widths(version: int) -> tuple[int, int]:
    """The state part's and the candidate part's columns under feature ``version`` (1 to :data:`FEATURE_VERSION`)."""
    state, candidate = STATE_COLUMNS, CANDIDATE_COLUMNS
    for later, (s, c) in ADDED_COLUMNS.items():
        if later > version:
            state, candidate = state - s, candidate - c
    return state, candidate


_NO_PILE: Final = bytes(NUM_RANKS)  # no pile cards gained (version 3's candidate columns)
_NO_DEAD: Final = bytes(3)  # no rank closed for the deal (version 4's candidate columns)
_NO_HOME: Final = (0, 0)  # no meld takes a wild card and no wild card in hand (version 5's candidate columns)
#: Each count of a byte's range as a byte.
_B: Final = [bytes((i,)) for i in range(256)]
#: One-hot count vectors over the ranks and "none" (index ``NUM_RANKS``), and all zeros (index ``NUM_RANKS + 1``).
_ONE_HOT: Final = [bytes(int(r == i) for r in range(NUM_RANKS + 1)) for i in range(NUM_RANKS + 2)]
#: The same, each followed by the candidate part's count that is always 1 (:data:`SHARE_COUNT`).
_ONE_HOT_SHARE: Final = [piece + b"\x01" for piece in _ONE_HOT]
#: The same, followed by no pile cards gained (a discard's).
_ONE_HOT_END: Final = [piece + bytes(NUM_RANKS) for piece in _ONE_HOT_SHARE]
#: A discard's last counts (a tuple) as bytes, made once each (a count is at most 255 and the flags 0 or 1: a few
#: thousand at most).
_MADE: Final[dict[tuple[int, ...], bytes]] = {}
#: The kind and "heuristic's choice" columns, by kind (its index in KINDS) and whether the candidate is the first.
_KIND: Final = [[bytes((int(k == 0), int(k == 1), int(k == 2), first)) for first in (0, 1)] for k in range(3)]


def _signed(value: int) -> list[int]:
    """A score as four counts: its positive part's low and high bytes, then its negative part's."""
    pos = value if value > 0 else 0
    neg = pos - value
    return [pos & 255, pos >> 8, neg & 255, neg >> 8]


def _sum(values: list[int]) -> int:
    total = 0
    for v in values:
        total += v
    return total


def state_pieces(view: PlayerView, tables: tuple[list[int], list[int], list[int], list[list[int]]],
                 hand_piece: Sequence[int], own_piece: Sequence[int], memory: list[list[int]],
                 dead_now: int, homes: net_match.Homes) -> list[Sequence[int]]:
    """A decision's state part as counts (over :data:`COUNT_LAYOUT`'s divisors: the features): the hand by rank
    (/4), its size (/20), the own team's and the other teams' meld cards by rank (/8 each), canastas, clean
    canastas (/3) and hidden canastas (/2), each own and the other teams' best; opened, another team opened, the
    minimum (/120); the pile's top rank one-hot (or empty), its size (/30), frozen, the stock (/100); the next three
    seats' hand sizes (/15); the own and the best other team's scores (/5000) and their difference (/2000); red and
    black threes, own and best other (/4); the turn (/60), the deal (/10); the flags (must take the pile, drew from
    the stock, may ask, permission yes, no, pile premiado, crossed, first take done, no discard this turn, pony
    picked); wings left (/4) and closed canastas set aside (/3); the match's state under the rules
    (:func:`~.net_match.match_counts`); the card memory (``memory``: :func:`memory_counts`, worked out once a
    decision); the hand's cards of ranks closed to the team for the deal (``dead_now``, /8: feature version 4); the
    own melds a wild card may join (/4) and the hand's wild cards if none may (/4: ``homes``, version 5).

    As pieces, one after another: bytes, or lists of counts (``hand_piece`` and ``own_piece``: the hand and the own
    team's meld cards, ``tables[0]``, as bytes or as lists)."""
    team, seat, n = view.team, view.seat, view.n_players
    own, opp, others, _ = tables
    n_teams = view.n_teams
    canastas = [_sum(list(view.canastas(t).values())) for t in range(n_teams)]
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
    top = view.pile_top
    others_opened = 0
    for t in others:
        if opened[t]:
            others_opened = 1
    sign = _signed(scores[team]) + _signed(scores[best_other])
    return [hand_piece, [view.hand_size], own_piece, opp,
            [canastas[team], _best(canastas, others), clean[team], _best(clean, others), hidden[team],
             _best(hidden, others), 1 if view.has_opened else 0, others_opened, view.minimum],
            _ONE_HOT[NUM_RANKS if top is None else top],
            [view.pile_size, 1 if view.pile_frozen else 0, view.stock_size,
             hand_sizes[(seat + 1) % n] if n > 1 else 0, hand_sizes[(seat + 2) % n] if n > 2 else 0,
             hand_sizes[(seat + 3) % n] if n > 3 else 0, sign[0], sign[1], sign[2], sign[3], sign[4], sign[5],
             sign[6], sign[7], red[team], _best(red, others), black[team], _best(black, others), view.turn,
             view.deal_index, 1 if view.must_take_pile else 0, 1 if view.drew_from_stock else 0,
             1 if view.may_ask else 0, 1 if permission is True else 0, 1 if permission is False else 0,
             1 if view.pile_premiado else 0, 1 if view.pile_crossed else 0, 1 if view.first_take_done else 0,
             1 if view.no_discard_this_turn else 0, 1 if view.pony_picked[seat] else 0, view.wings_left,
             len(view.closed_canastas(team))], match_counts(view, scores[team], scores[best_other]),
            *memory, [dead_now], net_match.home_counts(homes.total, hand_piece[TWO] + hand_piece[JOKER])]


def memory_counts(view: PlayerView) -> list[list[int]]:
    """What the seat remembers of the cards (feature version 3), by rank: the pile's face-up cards (/8), the cards
    known in the other teams' hands (/4) and in the partners' hands (/4), the cards it has not seen (/8)."""
    return [list(view.pile_cards), list(view.known_in_opponent_hands), list(view.known_in_partner_hands),
            list(view.unseen)]


def _with(piece: Sequence[int], at: int, value: int) -> Sequence[int]:
    """``piece`` (bytes or a list) with ``value`` at ``at``."""
    if isinstance(piece, bytes):
        return piece[:at] + _B[value] + piece[at + 1:]
    out = list(piece)
    out[at] = value
    return out


def candidate_pieces(hand0: list[int], total: int, hand_piece: Sequence[int], pile_size: int, kind: int,
                     candidate: Any, first: int, own: list[int], own_piece: Sequence[int],
                     opp: list[int], pile_rest: Sequence[int] = (), closed: Closed = NONE_CLOSED,
                     homes: net_match.Homes | None = None) -> list[Sequence[int]]:
    """A candidate's part of a row as counts: its kind (``kind``: an index in KINDS) one-hot, whether it is the
    heuristic's choice (``first``: 1 or 0), the hand (/4) and the team's meld cards by rank (/8) after it, the
    cards it lays (/15), its wild cards (/4), new melds (/4), canastas it closes (/2), the cards left (/20), none
    left, stock, take, the pile cards a take gains beyond the top (/30), a special hand, and for a discard whether
    another team and the own team have a meld of its rank, whether it is wild, and its rank one-hot (or none); the
    pile's face-up cards below its top that a take puts into the hand, by rank (``pile_rest``, /4: feature version
    3); with the count that is always 1 before those (:data:`SHARE_COUNT`); the hand's cards of ranks closed to the
    team for the deal after it, a take's pile cards counted (/8), and for a discard whether its rank is closed to
    the own team and whether it gives no other team the pile (``closed``: :class:`~.net_match.Closed`; version 4);
    the own melds a wild card may join after it (/4) and the wild cards in hand then, a take's pile cards counted, if
    none may (/4: ``homes``, :class:`~.net_match.Homes`; version 5, zeros without ``homes``).

    As pieces, one after another: bytes, or lists of counts (``hand_piece`` and ``own_piece``: the hand and ``own``
    as bytes or as lists; ``total``: the cards in hand)."""
    if kind == 2:  # a discard: one card fewer of its rank, the melds as they are
        wilds = hand0[TWO] + hand0[JOKER]
        if candidate is None:
            return [_KIND[2][first], hand_piece, own_piece,
                    (0, 0, 0, 0, total, 1 if total <= 0 else 0, 0, 0, 0, 0, 0, 0, 0), _ONE_HOT_END[NUM_RANKS],
                    _NO_DEAD if closed is NONE_CLOSED else (closed.in_hand, 0, 0),
                    _NO_HOME if homes is None else net_match.home_counts(homes.total, wilds)]
        rank: int = candidate
        n = hand0[rank]
        left = total - 1 if n > 0 else total
        wild = 1 if rank == JOKER or rank == TWO else 0
        return [_KIND[2][first], _with(hand_piece, rank, n - 1) if n > 0 else hand_piece, own_piece,
                (0, 0, 0, 0, left, 1 if left <= 0 else 0, 0, 0, 0, 0, 1 if opp[rank] > 0 else 0,
                 1 if own[rank] > 0 else 0, wild), _ONE_HOT_END[rank],
                _NO_DEAD if closed is NONE_CLOSED else
                (closed.in_hand - closed.own[rank] if n > 0 else closed.in_hand, closed.own[rank], closed.safe[rank]),
                _NO_HOME if homes is None else net_match.home_counts(homes.total, wilds - wild if n > 0 else wilds)]
    hand = hand0[:]
    table = own[:]
    laid = wild = new = gained = stock = take = special = 0
    homes_now = 0 if homes is None else homes.total
    if kind == 0:
        if candidate is DRAW_STOCK:
            stock = 1
        elif isinstance(candidate, TakePile):
            take = 1
            gained = pile_size
            top = candidate.meld.rank
            hand[top] += 1  # the top card is melded with the cards from the hand
            for m in (candidate.meld, *candidate.extra):
                new += 1 if table[m.rank] == 0 else 0
                a, w = _lay(hand, table, m)
                laid, wild = laid + a, wild + w
            hand[top] = hand[top] - 1 if hand[top] > 0 else 0
            table[top] += 1
            if homes is not None:  # the top card joins its meld as a natural
                homes_now = net_match.homes_after(homes, (Meld(top, 1), candidate.meld, *candidate.extra))
    else:
        plan = list(candidate or ())
        if plan and isinstance(plan[0], SpecialHand):
            special = 1
            laid = _sum(hand)
            hand = [0] * NUM_RANKS
        else:
            for m in plan:
                new += 1 if table[m.rank] == 0 else 0
                a, w = _lay(hand, table, m)
                laid, wild = laid + a, wild + w
            if homes is not None:
                homes_now = net_match.homes_after(homes, plan)
    left = _sum(hand) + (gained - 1 if take else 0)
    closes = 0
    for r in range(NUM_RANKS):
        if table[r] >= CANASTA and own[r] < CANASTA:
            closes += 1
    return [_KIND[kind][first], hand, table, [laid, wild, new, closes, left, 1 if left <= 0 else 0, stock, take,
                                              gained - 1 if gained > 1 else 0, special, 0, 0, 0],
            _ONE_HOT_SHARE[NUM_RANKS + 1], pile_rest if take and pile_rest else _NO_PILE,
            _NO_DEAD if closed is NONE_CLOSED else dead_after(hand, table, closed, pile_rest if take else ()),
            _NO_HOME if homes is None else net_match.home_counts(
                homes_now, hand[TWO] + hand[JOKER] + (pile_rest[TWO] + pile_rest[JOKER] if take and pile_rest else 0))]


def pile_below_top(view: PlayerView, pile: list[int]) -> list[int]:
    """The pile's face-up cards below its top (``pile``: all of them, by rank): what a take puts into the hand."""
    rest = pile[:]
    top = view.pile_top
    if top is not None:
        rest[top] -= 1
    return rest


def decision_counts(view: PlayerView, kind: str, candidates: Sequence[Any]) -> tuple[list[int], list[list[int]]]:
    """A decision's rows as counts (:data:`COUNT_LAYOUT`): its state part, then each candidate's part."""
    tables = _tables(view)
    own, opp, _, theirs = tables
    hand, pile_size, k = list(view.hand), view.pile_size, KINDS.index(kind)
    closed = closed_ranks(view, hand, own, theirs)
    homes = net_match.wild_homes(view)
    total = _sum(hand)
    parts: list[list[int]] = []
    memory = memory_counts(view)
    rest = pile_below_top(view, memory[0]) if k == 0 else []
    for i, c in enumerate(candidates):
        part: list[int] = []
        for piece in candidate_pieces(hand, total, hand, pile_size, k, c, 1 if i == 0 else 0, own, own, opp, rest,
                                      closed, homes):
            part.extend(piece)
        parts.append(part)
    state: list[int] = []
    for piece in state_pieces(view, tables, hand, own, memory, closed.in_hand, homes):
        state.extend(piece)
    return state, parts


def decision_features(view: PlayerView, kind: str, candidates: Sequence[Any]) -> np.ndarray:
    """The rows of one decision, one per candidate (the first is the heuristic's choice), state part first: each
    column its counts over its divisor (:data:`COUNT_LAYOUT`; an int over an int, as Python divides)."""
    state, parts = decision_counts(view, kind, candidates)
    out: list[list[float]] = []
    for part in parts:
        counts = state + part
        row: list[float] = []
        for divisor, terms in COUNT_LAYOUT:
            total = 0
            for column, coefficient in terms:
                total += coefficient * counts[column]
            row.append(total / divisor)
        out.append(row)
    return np.array(out, dtype=np.float64)


def decision_bytes(view: PlayerView, kind: str, candidates: Sequence[Any]) -> bytes | None:
    """:func:`decision_counts` as bytes, one a count: the state part, then the candidates' parts one after another
    (``None`` where a count is outside 0..255). What ``net`` hands to its model, with no float made in Python."""
    tables = _tables(view)
    own, opp, _, theirs = tables
    hand, pile_size, k = list(view.hand), view.pile_size, KINDS.index(kind)
    closed = closed_ranks(view, hand, own, theirs)
    homes = net_match.wild_homes(view)
    total = _sum(hand)
    try:
        hand_bytes, own_bytes = bytes(hand), bytes(own)
        out: list[bytes] = []
        memory = memory_counts(view)
        for piece in state_pieces(view, tables, hand_bytes, own_bytes, memory, closed.in_hand, homes):
            out.append(piece if isinstance(piece, bytes) else bytes(piece))
        first = 1
        rest = pile_below_top(view, memory[0]) if k == 0 else []
        for c in candidates:
            for piece in candidate_pieces(hand, total, hand_bytes, pile_size, k, c, first, own, own_bytes, opp, rest,
                                          closed, homes):
                if isinstance(piece, bytes):
                    out.append(piece)
                elif isinstance(piece, tuple):  # a discard's last counts: few distinct ones, each made once
                    made = _MADE.get(piece)
                    if made is None:
                        made = _MADE[piece] = bytes(piece)
                    out.append(made)
                else:
                    out.append(bytes(piece))
            first = 0
    except ValueError:
        return None
    return b"".join(out)

