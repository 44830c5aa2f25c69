"""Meld legality, step by step: the rules that :func:`simcli.engine.judge.melds_error` composes, each coded once.

A decision's meld actions become segments (:func:`meld_segments`: the melds they build, in the engine's order);
:func:`tally_segments` checks each segment's cards against the hand and the meld rules and adds up what the
batch does to the team (cards used, value, canastas made); then the hand that remains says whether the player
goes out (:func:`hand_after_melds`), which decides the cards only a player going out may lay
(:func:`going_out_only_error`) and the opening minimum's waivers (:func:`minimum_waived`). Most decisions never
get that far: :func:`naturals_only_legal` settles the common case first. The going-out conditions themselves
stay in the judge (``judge.go_out_error``), which also checks going out without melds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.features.ponies import empty_hand_takes_pony, pony_gain
from simcli.engine.melds import canasta_type, is_clean, meld_error, meld_value
from simcli.engine.state import DealState
from simcli.primitives.actions import Meld
from simcli.primitives.cards import BLACK_THREE, FOUR, IS_NATURAL, JOKER, RANK_NAMES, RED_THREE, TWO, WILD_MELD
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


def meld_segments(st: DealState, team: int, melds: Sequence[Meld], top_card: int | None = None) -> list[Segment]:
    """The melds that a list of meld actions builds, in the order the engine lays them.

    Actions on one rank are summed onto the team's meld of that rank (started if the team has none), ranks in
    the order each first appears. Under ``new_meld_after_closed_canasta`` a meld that reaches ``meld_max_size``
    is a closed canasta: later actions of that rank in the same decision start a new meld. ``top_card`` (a pile
    take) joins the first action, which must be of its rank.
    """
    slots = st.melds[team]
    close_at = st.layout.close_at
    if close_at is None:
        per_rank = merge_melds(melds)
        if top_card is not None:
            per_rank.setdefault(top_card, [0, 0, 0])[0] += 1
        return [(rank, n, tw, jk, slots[rank], rank == top_card) for rank, (n, tw, jk) in per_rank.items()]
    actions = [(m.rank, m.naturals, m.twos, m.jokers, False) for m in melds]
    if top_card is not None:
        if actions and actions[0][0] == top_card:
            rank, n, tw, jk, _ = actions[0]
            actions[0] = (rank, n + 1, tw, jk, True)
        else:
            actions.insert(0, (top_card, 1, 0, 0, True))
    # rank -> its segments, each [naturals, twos, jokers, with_top, existing meld, cards on that meld so far]
    groups: dict[int, list[list[Any]]] = {}
    for rank, n, tw, jk, top in actions:
        segs = groups.get(rank)
        if segs is None:
            existing = slots[rank]
            segs = groups[rank] = [[0, 0, 0, False, existing, 0 if existing is None else sum(existing)]]
        seg = segs[-1]
        if seg[5] >= close_at and (rank >= FOUR or rank == WILD_MELD):
            seg = [0, 0, 0, False, None, 0]  # that meld is closed: this action starts a new one
            segs.append(seg)
        seg[0] += n
        seg[1] += tw
        seg[2] += jk
        seg[3] = seg[3] or top
        seg[5] += n + tw + jk
    return [(rank, n, tw, jk, existing, top) for rank, segs in groups.items()
            for n, tw, jk, top, existing, _ in segs]


def naturals_only_legal(st: DealState, seat: int, melds: Sequence[Meld], top_card: int | None,
                        hand_bonus: int) -> bool:  # hot path: the common case, decided without the general steps
    """Whether ``melds`` are legal by the shortcut: natural cards only, one action per rank from four up, each
    within the hand, the minimum size (a new meld) and the size cap, and at least two cards kept in hand.

    ``True`` means legal (more naturals never break a wild rule, and two cards kept mean no going out);
    ``False`` means only that the general steps must decide. The caller has checked that the team has opened
    and that ``closed_rank_dead_for_all`` is off. With a pile take the top card joins the first meld, which must
    be of its rank.
    """
    r = st.rules
    hand = st.hands[seat]
    team_melds = st.melds[st.team_of[seat]]
    cap = r.meld_max_size or 1 << 20
    used = 0
    seen = 0
    for i, m in enumerate(melds):
        rank = m.rank
        if m.twos or m.jokers or rank < FOUR or seen & (1 << rank):
            return False
        seen |= 1 << rank
        n = m.naturals
        extra = 1 if (top_card is not None and i == 0) else 0
        if (n <= 0 and not extra) or hand[rank] < n or (extra and rank != top_card):
            return False
        existing = team_melds[rank]
        if existing is None:
            if n + extra < r.meld_min_size or n + extra > cap:
                return False
        elif existing[0] + existing[1] + existing[2] + n + extra > cap:
            return False
        used += n
    return bool(melds) and st.hand_sizes[seat] - used + hand_bonus >= 2


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
    hidden = new_canasta = completed = False
    per_rank: dict[int, int] = {}  # naturals of each rank taken from the hand so far
    for rank, n, tw, jk, existing, with_top in segments:
        err = rank_error(rank, n, tw, jk)
        if err:
            return err
        from_hand = n - (1 if with_top else 0)
        if rank != WILD_MELD:
            from_hand_total = per_rank[rank] = per_rank.get(rank, 0) + from_hand
            if hand[rank] < from_hand_total:
                return f"hand holds {hand[rank]} x {RANK_NAMES[rank]}, not {from_hand_total}"
        eighth = allow_eighth and eighth_card(r, existing, n + tw + jk)
        if r.closed_rank_dead_for_all and rank != WILD_MELD and not eighth and st.rank_has_canasta(rank):
            return f"rank {RANK_NAMES[rank]} is closed (closed_rank_dead_for_all)"
        if eighth:
            over_cap += 1
        used += from_hand + tw + jk
        twos += tw
        jokers += jk
        total = (n, tw, jk) if existing is None else (existing[0] + n, existing[1] + tw, existing[2] + jk)
        before = None if existing is None else canasta_type(r, rank, existing)
        err = meld_error(r, rank, total[0], total[1], total[2], new=existing is None, opening=opening,
                         added_wilds=tw + jk, over_cap=1 if eighth else 0)
        if err:
            return err
        after = canasta_type(r, rank, total)
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
            clean += is_clean(rank, total) - (existing is not None and before is not None and is_clean(rank, existing))
        value += meld_value(n, tw, jk, rank)
    if twos > hand[TWO]:
        return f"hand holds {hand[TWO]} x 2, not {twos}"
    if jokers > hand[JOKER]:
        return f"hand holds {hand[JOKER]} x JK, not {jokers}"
    return MeldTally(used, value, canastas, clean, hidden, new_canasta, completed,
                     BLACK_THREE in per_rank, over_cap)


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
