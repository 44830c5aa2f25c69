"""Melding: taking the pile and laying melds from the hand (RULES.md §1.7, §1.8), the turn's meld transitions.

What is legal is the judge's (:mod:`simcli.engine.judge`); these carry a checked decision out on the
:class:`~simcli.engine.state.DealState` and trace it. They call the features' hooks where a meld triggers them: a pile's
red threes (:mod:`simcli.engine.features.threes`), the crossed or prized pile
(:mod:`simcli.engine.features.spanish_pile`) and, on opening, the
wing (:mod:`simcli.engine.features.wings`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.core import Engine
from simcli.engine.features import handfoot, spanish_pile, threes, wings
from simcli.engine.judge import meld_segments, merge_melds
from simcli.engine.meld_legality import one_per_rank
from simcli.engine.melds import requirement_met
from simcli.engine.state import DealState
from simcli.engine.trace_json import meld_json
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import BLACK_THREE, FOUR, IS_NATURAL, JOKER, RANK_NAMES, TWO, WILD_MELD


def take_pile(eng: Engine, seat: int, take: TakePile) -> None:
    """Take the pile with ``take`` (checked by the judge): its top card melded with cards from the hand, the rest
    into the hand, its red threes laid, then ``take.extra`` melded; the team opens if it had not."""
    st = eng.st
    team = st.team_of[seat]
    hand = st.hands[seat]
    pile = st.pile
    top = pile[-1]
    start = handfoot.take_start(st)  # only pile[start:] is taken (Hand and Foot's pile_take_count; else 0)
    size = len(pile) - start
    m = take.meld
    was_opened = st.opened[team]
    if eng.emit:  # before any card moves, so that listeners see a consistent state
        eng.emit("take_pile", {"seat": seat, "team": team, "top": RANK_NAMES[top], "size": size,
                               "meld": meld_json(m), "extra": [meld_json(x) for x in take.extra]})
    pile.pop()
    if st.history is not None:
        record_take(st, st.history, seat, take, top, size, start)
    rank = top if IS_NATURAL[top] else WILD_MELD  # a wild top card (wild_top_takeable) joins the wild meld
    if st.melds[team][rank] is not None:
        st.touched_existing = True
    else:
        st.turn_new_ranks |= 1 << rank
    # ``x[i] = x[i] - n`` rather than ``-=`` on list items here: the compiled build then adds and subtracts natively.
    n, tw, jk = m.naturals, m.twos, m.jokers
    hand[top] = hand[top] - n
    hand[TWO] = hand[TWO] - tw
    hand[JOKER] = hand[JOKER] - jk
    known = st.known[seat]
    if known[top] or known[TWO] or known[JOKER]:  # DealState.forget_meld, its test inlined
        st.forget_meld(seat, top, n, tw, jk)
    sizes = st.hand_sizes
    sizes[seat] = sizes[seat] - (n + tw + jk)
    add_to_meld(eng, seat, rank, n + (rank == top), tw + (top == TWO), jk + (top == JOKER))
    gained = 0
    bonus = st.is_bonus_three  # red threes; under AMERICAN_COLOUR_TABLE black ones too (issue 52: one rule everywhere)
    for card in pile[start:]:
        if not bonus[card]:
            hand[card] = hand[card] + 1
            known[card] = known[card] + 1  # everyone saw the face-up cards go into this hand
            gained += 1
    sizes[seat] = sizes[seat] + gained
    st.unlearn_facedown(seat)  # ... but not the face-down ones
    pile[start:] = [card for card in pile[start:] if bonus[card]]
    st.pile_frozen = bool(start) and handfoot.frozen_after_take(st, start)
    threes.lay_pile_threes(eng, seat, start)
    st.take_sizes[team].append(size)
    spanish_pile.after_take(st)
    st.first_take_done = True
    st.team_took[team] = True
    record_melds(eng, seat)
    if not was_opened:
        st.opened[team] = True
        wings.on_open(eng, seat, via_pile=True)
    if take.extra:
        apply_melds(eng, seat, take.extra)


def record_take(st: DealState, history: list[Any], seat: int, take: TakePile, top: int, size: int,
                start: int = 0) -> None:
    """The take in the table's public record (``DealState.history``), before any card of the pile moves: the cards
    that go into the hand face up, bottom first (not a face-down card of an initial pile, nor a bonus three, which
    is laid: a ``"three"`` entry); only those from ``start`` on are taken (``pile_take_count``)."""
    down = st.facedown_positions()
    bonus = st.is_bonus_three
    shown = tuple([c for i, c in enumerate(st.pile) if i >= start and not bonus[c] and i not in down])
    history.append(("take", seat, st.turn, top, size, take.meld, take.extra, shown))


def apply_melds(eng: Engine, seat: int, melds: Sequence[Meld]) -> None:
    """Lay ``melds`` (checked by the judge) from ``seat``'s hand on the team's melds; the team opens if it had not."""
    st = eng.st
    team = st.team_of[seat]
    hand = st.hands[seat]
    known = st.known[seat]
    team_melds = st.melds[team]
    size = st.rules.canasta_size
    sizes = st.hand_sizes
    for rank, n, tw, jk in meld_groups(st, team, melds):
        new = team_melds[rank] is None  # read live: a meld closed by the previous segment freed its slot
        if new:
            st.turn_new_ranks |= 1 << rank
        elif not st.turn_new_ranks >> rank & 1:
            st.touched_existing = True  # a meld laid before this turn (partner's): not concealed
        if rank != WILD_MELD:
            hand[rank] = hand[rank] - n  # not -=: see take_pile
        hand[TWO] = hand[TWO] - tw
        hand[JOKER] = hand[JOKER] - jk
        if known[rank] or known[TWO] or known[JOKER]:  # DealState.forget_meld, its test inlined
            st.forget_meld(seat, rank, 0 if rank == WILD_MELD else n, tw, jk)
        sizes[seat] = sizes[seat] - (n + tw + jk)
        # A complete canasta laid from the hand as a new meld is hidden (Spanish *oculta*).
        hidden = new and n + tw + jk >= size and eng.hidden_canastas and rank >= FOUR
        add_to_meld(eng, seat, rank, n, tw, jk, hidden)
        if hidden:
            st.hidden[team].append(rank)
        elif rank == BLACK_THREE and n >= size and st.rules.black_three_canasta_wins_game:
            st.black_three_canasta_team = team
    record_melds(eng, seat)
    if not st.opened[team]:
        st.opened[team] = True
        wings.on_open(eng, seat, via_pile=False)


def meld_groups(st: DealState, team: int, melds: Sequence[Meld]) -> Sequence[tuple[int, int, int, int]]:
    """The melds a decision's actions build, as ``(rank, naturals, twos, jokers)`` in the order they are laid: one
    per rank (actions on one rank merged), or under new_meld_after_closed_canasta the segments of
    :func:`~simcli.engine.judge.meld_segments`. Actions on distinct ranks that close no meld (the common case) are
    their own groups (:func:`~simcli.engine.meld_legality.one_per_rank`)."""
    if one_per_rank(st.melds[team], st.layout.close_at, melds) >= 0:
        return melds
    if st.layout.close_at is not None:
        return [(seg[0], seg[1], seg[2], seg[3]) for seg in meld_segments(st, team, melds)]
    return [(rank, n, tw, jk) for rank, (n, tw, jk) in merge_melds(melds).items()]


def add_to_meld(eng: Engine, seat: int, rank: int, n: int, tw: int, jk: int, hidden: bool = False) -> None:
    """Put cards on the team's meld of ``rank`` (:meth:`DealState.add_to_meld`) and trace the meld and a canasta."""
    st = eng.st
    team = st.team_of[seat]
    if not eng.emit:
        st.add_to_meld(team, rank, n, tw, jk, hidden)
        return
    prev = st.melds[team][rank]  # read before the cards go on: the meld may close and leave its slot
    meld = [n, tw, jk] if prev is None else [prev[0] + n, prev[1] + tw, prev[2] + jk]
    before, after = st.add_to_meld(team, rank, n, tw, jk, hidden)
    name = "WILD" if rank == WILD_MELD else RANK_NAMES[rank]
    data: dict[str, Any] = {"seat": seat, "team": team, "rank": name,
                            "added": {"naturals": n, "twos": tw, "jokers": jk}, "meld": meld}
    if st.melds[team][rank] is None:
        data["closed"] = True  # a closed canasta set aside (new_meld_after_closed_canasta): the slot is free
    eng.emit("meld", data)
    if after is not None and before != after:
        data = {"seat": seat, "team": team, "rank": name, "kind": after, "upgraded_from": before}
        if hidden:
            data["hidden"] = True
        eng.emit("canasta", data)


def record_melds(eng: Engine, seat: int) -> None:
    """After melds: the player has melded, the team's first meld turn and when it met the go-out requirement."""
    st = eng.st
    team = st.team_of[seat]
    st.has_melded[seat] = True
    if st.first_meld_turn[team] is None:
        st.first_meld_turn[team] = st.turn
    if st.req_met_turn[team] is None and st.req_checked[team] != st.canasta_changes:
        st.req_checked[team] = st.canasta_changes
        if requirement_met(st.rules.go_out_requirement, st.canastas[team], st.clean_canastas[team]):
            st.req_met_turn[team] = st.turn
