"""Meld legality, step by step: the rules that :func:`simcli.engine.judge.melds_error` composes, each coded once.

A decision's meld actions become segments (:func:`meld_segments`: the melds they build, in the engine's order);
:func:`tally_segments` checks each segment's cards against the hand and the meld rules and adds up what the
batch does to the team (cards used, value, canastas made); then the hand that remains says whether the player
goes out (:func:`hand_after_melds`), which decides the cards only a player going out may lay
(:func:`going_out_only_error`) and the opening minimum's waivers (:func:`minimum_waived`). Most decisions never
get that far: :func:`naturals_only_value` settles the common case first. The going-out conditions themselves
stay in the judge (``judge.go_out_error``), which also checks going out without melds.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcli.engine.features.ponies import empty_hand_takes_pony, pony_gain
from simcli.engine.melds import canasta_kind, is_clean_kind, meld_error, meld_value
from simcli.engine.state import DealState
from simcli.primitives.actions import Meld
from simcli.primitives.cards import (
    BLACK_THREE,
    CARD_VALUES,
    FOUR,
    IS_NATURAL,
    JOKER,
    RANK_NAMES,
    RED_THREE,
    TWO,
    WILD_MELD,
)
from simcli.rules.ruleset import RuleSet


def merge_melds(melds: Sequence[Meld]) -> dict[int, list[int]]:
    """Sum a list of meld actions per rank: ``{rank: [naturals, twos, jokers]}``."""
    out: dict[int, list[int]] = {}
    for m in melds:
        acc = out.get(m.rank)
        if acc is None:
            out[m.rank] = [m.naturals, m.twos, m.jokers]
        else:
            acc[0] += m.naturals
            acc[1] += m.twos
            acc[2] += m.jokers
    return out


#: One meld a decision builds: ``(rank, naturals, twos, jokers, existing, with_top)``; ``existing`` is the team's
#: meld it adds to (None: a new meld) and ``with_top`` says whether the pile's top card is among the naturals.
Segment = tuple[int, int, int, int, "list[int] | None", bool]


class _Open:
    """One meld being built by :func:`meld_segments` (a native class: typed fields the compiled build reads fast)."""

    __slots__ = ("n", "tw", "jk", "top", "existing", "size")

    def __init__(self, existing: list[int] | None) -> None:
        self.n = 0
        self.tw = 0
        self.jk = 0
        #: Whether the pile's top card is among the naturals.
        self.top = False
        #: The team's meld it adds to (None: a new meld), and the cards on that meld so far.
        self.existing = existing
        self.size = 0 if existing is None else existing[0] + existing[1] + existing[2]


def meld_segments(st: DealState, team: int, melds: Sequence[Meld], top_card: int | None = None) -> list[Segment]:
    """The melds that a list of meld actions builds, in the order the engine lays them.

    Actions on one rank are summed onto the team's meld of that rank (started if the team has none), ranks in
    the order each first appears. Under ``new_meld_after_closed_canasta`` a meld that reaches ``meld_max_size``
    is a closed canasta: later actions of that rank in the same decision start a new meld. ``top_card`` (a pile
    take) joins the first action, which must be of its rank.
    """
    slots = st.melds[team]
    close_at = st.layout.close_at
    seen = one_per_rank(slots, close_at, melds)
    if seen < 0 or (close_at is not None and top_card is not None and (not melds or melds[0][0] != top_card)):
        if close_at is not None:  # a meld closes within the decision, or the top card goes first on its own
            return _closing_segments(slots, close_at, melds, top_card)
        # Actions repeat a rank: sum them per rank (the top card's rank last if it is new).
        per_rank = merge_melds(melds)
        if top_card is not None:
            per_rank.setdefault(top_card, [0, 0, 0])[0] += 1
        return [(rank, n, tw, jk, slots[rank], rank == top_card) for rank, (n, tw, jk) in per_rank.items()]
    # One action per rank (the common case): each is its own meld, the top card on its rank's or last.
    out: list[Segment] = []
    for m in melds:
        rank = m[0]
        top = rank == top_card
        out.append((rank, m[1] + 1 if top else m[1], m[2], m[3], slots[rank], top))
    if top_card is not None and not seen >> top_card & 1:
        out.append((top_card, 1, 0, 0, slots[top_card], True))
    return out


def one_per_rank(slots: list[list[int] | None], close_at: int | None, melds: Sequence[Meld]) -> int:
    """The bits of the ranks of ``melds`` when each action is a meld of its own (one action per rank, and under
    new_meld_after_closed_canasta none onto a meld already ``close_at`` cards long, which would close), else -1."""
    seen = 0
    for m in melds:
        rank = m[0]
        bit = 1 << rank
        if seen & bit:
            return -1
        seen |= bit
        if close_at is not None and (rank >= FOUR or rank == WILD_MELD):
            existing = slots[rank]
            if existing is not None and existing[0] + existing[1] + existing[2] >= close_at:
                return -1
    return seen


def _closing_segments(slots: list[list[int] | None], close_at: int, melds: Sequence[Meld],
                      top_card: int | None) -> list[Segment]:
    """:func:`meld_segments` under new_meld_after_closed_canasta: the top card joins the first action (one of its
    own first if that is of another rank), and an action on a meld already ``close_at`` cards long starts a new
    meld of the rank."""
    order: list[int] = []  # ranks in the order each first appears
    by_rank: list[list[_Open] | None] = [None] * len(slots)
    first_top = top_card is not None and (not melds or melds[0][0] != top_card)
    for i in range(-1 if first_top else 0, len(melds)):
        if i < 0:  # the top card alone, before the actions
            rank, n, tw, jk, top = (0 if top_card is None else top_card), 1, 0, 0, True
        else:
            m = melds[i]
            rank, n, tw, jk = m[0], m[1], m[2], m[3]
            top = i == 0 and top_card is not None and not first_top  # the first action takes the top card
            if top:
                n += 1
        segs = by_rank[rank]
        if segs is None:
            segs = by_rank[rank] = [_Open(slots[rank])]
            order.append(rank)
        seg = segs[-1]
        if seg.size >= close_at and (rank >= FOUR or rank == WILD_MELD):
            seg = _Open(None)  # that meld is closed: this action starts a new one
            segs.append(seg)
        seg.n += n
        seg.tw += tw
        seg.jk += jk
        seg.top = seg.top or top
        seg.size += n + tw + jk
    out: list[Segment] = []
    for rank in order:
        for seg in by_rank[rank] or ():
            out.append((rank, seg.n, seg.tw, seg.jk, seg.existing, seg.top))
    return out


def naturals_only_value(st: DealState, seat: int, melds: Sequence[Meld], top_card: int | None,
                        hand_bonus: int) -> int:  # hot path: the common case, decided without the general steps
    """The card value of ``melds`` if they are legal by the shortcut, else -1: natural cards only, one action per
    rank from four up, each within the hand, the minimum size (a new meld) and the size cap, and at least two
    cards kept in hand.

    A value (the pile's top card counted) means legal but for the opening minimum, which the caller compares
    with it when the team has not opened (more naturals never break a wild rule, and two cards kept mean no
    going out); -1 means only that the general steps must decide. The caller has checked that
    ``closed_rank_dead_for_all`` is off. With a pile take the top card joins the first meld, which must be of
    its rank.
    """
    r = st.rules
    hand = st.hands[seat]
    team_melds = st.melds[st.team_of[seat]]
    cap = r.meld_max_size or 1 << 20
    used = 0
    seen = 0
    value = 0
    for i, m in enumerate(melds):
        rank = m.rank
        if m.twos or m.jokers or rank < FOUR or seen & (1 << rank):
            return -1
        seen |= 1 << rank
        n = m.naturals
        extra = 1 if (top_card is not None and i == 0) else 0
        if (n <= 0 and not extra) or hand[rank] < n or (extra and rank != top_card):
            return -1
        existing = team_melds[rank]
        if existing is None:
            if n + extra < r.meld_min_size or n + extra > cap:
                return -1
        elif existing[0] + existing[1] + existing[2] + n + extra > cap:
            return -1
        used += n
        value += (n + extra) * CARD_VALUES[rank]
    return value if melds and st.hand_sizes[seat] - used + hand_bonus >= 2 else -1


class MeldTally:
    """What a batch of segments does, once its cards are checked (:func:`tally_segments`)."""

    __slots__ = ("used", "value", "canastas", "clean", "hidden", "new_canasta", "completed",
                 "black_threes", "over_cap")

    def __init__(self, used: int, value: int, canastas: dict[str, int], clean: int,
                 hidden: bool, new_canasta: bool, completed: bool, black_threes: bool, over_cap: int):
        #: Cards taken from the hand (the pile's top card is not).
        self.used = used
        #: The melds' card value (for the opening minimum).
        self.value = value
        #: The team's canastas by type, and its clean canastas, once the batch is laid.
        self.canastas = canastas
        self.clean = clean
        #: A hidden canasta was laid (Spanish: it meets the opening).
        self.hidden = hidden
        #: A canasta was laid as a new meld (concealed going out).
        self.new_canasta = new_canasta
        #: A meld became a canasta (the pony unlock).
        self.completed = completed
        #: Black threes were melded (allowed only to a player going out).
        self.black_threes = black_threes
        #: Cards laid beyond ``meld_max_size`` onto canastas (``allow_8th_card_when_going_out``).
        self.over_cap = over_cap


def rank_error(rank: int, n: int, tw: int, jk: int) -> str | None:
    """Why a segment of these counts cannot be a meld of ``rank`` at all (empty, or a rank that never melds)."""
    if n < 0 or tw < 0 or jk < 0 or n + tw + jk == 0:
        return f"empty or negative meld of {RANK_NAMES[rank]}"
    if rank == WILD_MELD:
        if n:
            return "a wild meld cannot hold natural cards"
    elif rank == RED_THREE or not (IS_NATURAL[rank] or rank == BLACK_THREE):
        return f"cannot meld {RANK_NAMES[rank]}"
    return None


def eighth_card(r: RuleSet, existing: list[int] | None, cards: int) -> bool:
    """Whether a segment of ``cards`` cards is the one card beyond ``meld_max_size`` laid on a team canasta
    (``allow_8th_card_when_going_out``; legal only to a player going out, :func:`going_out_only_error`)."""
    return (r.allow_8th_card_when_going_out and existing is not None and cards == 1
            and sum(existing) == r.meld_max_size)


def tally_segments(st: DealState, seat: int, segments: list[Segment]) -> MeldTally | str:
    """Check each segment's cards against the hand and the meld rules and add up the batch, or return the first
    refusal. A rank's naturals are counted across segments, the twos and jokers over the whole batch."""
    r = st.rules
    team = st.team_of[seat]
    hand = st.hands[seat]
    opening = not st.opened[team]
    used = twos = jokers = value = over_cap = 0
    allow_eighth = r.allow_8th_card_when_going_out
    canastas = dict(st.canastas[team])
    clean = st.clean_canastas[team]
    hidden = new_canasta = completed = black_threes = False
    taken = [0] * len(hand)  # naturals of each rank taken from the hand so far
    for rank, n, tw, jk, existing, with_top in segments:
        err = rank_error(rank, n, tw, jk)
        if err:
            return err
        from_hand = n - (1 if with_top else 0)
        if rank != WILD_MELD:
            from_hand_total = taken[rank] = taken[rank] + from_hand
            if hand[rank] < from_hand_total:
                return f"hand holds {hand[rank]} x {RANK_NAMES[rank]}, not {from_hand_total}"
            black_threes = black_threes or rank == BLACK_THREE
        eighth = allow_eighth and eighth_card(r, existing, n + tw + jk)
        if r.closed_rank_dead_for_all and rank != WILD_MELD and not eighth and st.rank_has_canasta(rank):
            return f"rank {RANK_NAMES[rank]} is closed (closed_rank_dead_for_all)"
        if eighth:
            over_cap += 1
        used += from_hand + tw + jk
        twos += tw
        jokers += jk
        if existing is None:  # the meld's cards once the segment is laid, as ints (no tuple to build, unpack)
            tn, ttw, tjk = n, tw, jk
            before = None
        else:
            tn, ttw, tjk = existing[0] + n, existing[1] + tw, existing[2] + jk
            before = canasta_kind(r, rank, existing[0], existing[1], existing[2])
        err = meld_error(r, rank, tn, ttw, tjk, new=existing is None, opening=opening,
                         added_wilds=tw + jk, over_cap=1 if eighth else 0)
        if err:
            return err
        after = canasta_kind(r, rank, tn, ttw, tjk)
        if before != after:
            if before is not None:
                canastas[before] -= 1
            if after is not None:
                canastas[after] += 1
                completed = completed or before is None
                if existing is None:
                    new_canasta = True
                    hidden = hidden or (not with_top and rank >= FOUR and r.hidden_canasta_bonus is not None)
        if after is not None:
            clean += int(is_clean_kind(rank, ttw, tjk)) - int(
                existing is not None and before is not None and is_clean_kind(rank, existing[1], existing[2]))
        value += meld_value(n, tw, jk, rank)
    if twos > hand[TWO]:
        return f"hand holds {hand[TWO]} x 2, not {twos}"
    if jokers > hand[JOKER]:
        return f"hand holds {hand[JOKER]} x JK, not {jokers}"
    return MeldTally(used, value, canastas, clean, hidden, new_canasta, completed, black_threes, over_cap)


def hand_after_melds(st: DealState, seat: int, tally: MeldTally, hand_bonus: int) -> tuple[int, bool]:
    """The cards ``seat`` holds once the batch is laid, and whether that is going out.

    ``hand_bonus`` pile cards reach the hand, and a pony the batch unlocks is picked up (RULES.md §2.2). Going
    out is an empty hand, or one card left to discard unless the deal ends without a discard, unless emptying
    the hand picks up the pony instead (:func:`simcli.engine.features.ponies.hand_empty_pony`).
    """
    hand_after = st.hand_sizes[seat] - tally.used + hand_bonus
    if not st.pony_picked[seat]:
        hand_after += pony_gain(st, seat, sum(tally.canastas.values()), tally.completed or st.made_canasta[seat],
                                hand_after)
    going_out = hand_after == 0 or (hand_after == 1 and not st.last_card_red_three)
    return hand_after, going_out and not empty_hand_takes_pony(st, seat)


def going_out_only_error(r: RuleSet, tally: MeldTally, going_out: bool) -> str | None:
    """Why the batch lays cards that only a player going out may lay: black threes, or the card beyond
    ``meld_max_size`` (one, on one canasta). Asked only of a batch with such cards."""
    if tally.black_threes and not going_out:
        return "black threes may be melded only by a player going out"
    if tally.over_cap and (not going_out or tally.over_cap > 1):
        return (f"one card beyond meld_max_size={r.meld_max_size} may be laid only by a player going out, on one "
                "canasta (allow_8th_card_when_going_out)")
    return None


def minimum_waived(st: DealState, seat: int, tally: MeldTally, going_out: bool, top_card: int | None) -> bool:
    """Whether a batch below the opening minimum (RULES.md §1.8) opens the team all the same: a concealed going
    out (``concealed_out_waives_minimum``) or a hidden canasta (``hidden_canasta_satisfies_opening``)."""
    r = st.rules
    concealed = (
        r.concealed_out_waives_minimum
        and going_out
        and top_card is None
        and st.drew_from_stock
        and not st.has_melded[seat]
        and tally.new_canasta
    )
    return concealed or (tally.hidden and r.hidden_canasta_satisfies_opening)
