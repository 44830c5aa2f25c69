"""Legality of decisions: taking the pile, melding, going out (and discarding: the bars and their lifts are
:mod:`simcli.engine.discard_legality`).

Each check returns ``None`` when the decision is legal or a short reason when it
is not. The engine raises on a reason; strategies call the same checks (through
their view) to test a plan before returning it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from simcli.engine.core import MELD_TYPE, SPECIAL_HAND, STOCK_DRAW, TAKE_TYPE
from simcli.engine.discard_legality import (
    DISCARD_LIFTS as DISCARD_LIFTS,  # re-exported: the judge of every move
)
from simcli.engine.discard_legality import discard_error as discard_error
from simcli.engine.discard_legality import discard_lifts as discard_lifts
from simcli.engine.features import handfoot
from simcli.engine.features.ponies import empty_hand_takes_pony
from simcli.engine.features.spanish_pile import crossed_take_error
from simcli.engine.features.special import (
    special_hand_error as special_hand_error,  # re-exported: the judge of every move
)
from simcli.engine.meld_legality import (
    going_out_only_error,
    hand_after_melds,
    minimum_waived,
    naturals_only_value,
    tally_segments,
)
from simcli.engine.meld_legality import (
    meld_segments as meld_segments,  # re-exported: simcli.engine.melding lays these segments
)
from simcli.engine.meld_legality import merge_melds as merge_melds
from simcli.engine.melds import requirement_met
from simcli.engine.state import DealState
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import (
    ACE,
    FOUR,
    IS_NATURAL,
    IS_WILD,
    NUM_RANKS,
    RANK_NAMES,
)
from simcli.primitives.errors import EngineError, GameContext


def _is_int(x: Any) -> bool:
    """A plain int (a bool is an int to Python but never a rank or a count here)."""
    return isinstance(x, int) and not isinstance(x, bool)


def meld_shape_error(m: Any) -> str | None:
    """Why ``m`` is not a well-formed :class:`Meld` (an int rank of :mod:`simcli.primitives.cards`, counts ints >= 0).

    Checked before anything uses the meld (legality checks index hands with its rank, traces name it), so that
    a malformed decision is refused with one line rather than crashing a check or a trace writer.
    """
    if type(m) is MELD_TYPE:  # the common case, decided with exact type tests (no bool, no float)
        rank, n, tw, jk = m
        if (type(rank) is int and type(n) is int and type(tw) is int and type(jk) is int
                and 0 <= rank < NUM_RANKS and n >= 0 and tw >= 0 and jk >= 0):
            return None
    if not isinstance(m, Meld):
        return f"{m!r} is not a Meld"
    rank, n, tw, jk = m
    if not _is_int(rank) or not 0 <= rank < NUM_RANKS:
        return f"{m!r}: rank {rank!r} is not a rank index 0..{NUM_RANKS - 1} (simcli.primitives.cards)"
    for field, value in (("naturals", n), ("twos", tw), ("jokers", jk)):
        if not _is_int(value) or value < 0:
            return f"{m!r}: {field} {value!r} is not an int >= 0"
    return None


def draw_shape_error(decision: Any) -> str | None:
    """Why a ``choose_draw`` return is neither :data:`DRAW_STOCK` nor a well-formed :class:`TakePile`."""
    if decision is STOCK_DRAW:
        return None
    expected = "expected DRAW_STOCK or TakePile(Meld, extra=(Meld, ...))"
    if not isinstance(decision, TAKE_TYPE):
        return f"choose_draw returned {decision!r}; {expected}"
    extra = decision.extra
    if not isinstance(extra, (tuple, list)):
        return f"choose_draw returned {decision!r}: extra {extra!r} is not a tuple of Meld; {expected}"
    for m in (decision.meld, *extra):
        err = meld_shape_error(m)
        if err:
            return f"choose_draw returned {decision!r}: {err}"
    return None


def melds_shape_error(melds: Any) -> str | None:
    """Why a ``choose_melds`` return is not a list or tuple of well-formed :class:`Meld` (or one SpecialHand)."""
    if not isinstance(melds, (list, tuple)):
        return f"choose_melds returned {melds!r}; expected a list of Meld (or one SpecialHand)"
    if melds and isinstance(melds[0], SPECIAL_HAND):
        if not isinstance(melds[0].kind, str):
            return f"choose_melds returned {melds!r}: the special hand's kind is not a string"
        return None
    for m in melds:
        err = meld_shape_error(m)
        if err:
            return f"choose_melds returned {melds!r}: {err}"
    return None


def discard_shape_error(card: Any, hand: Sequence[int]) -> str | None:
    """Why a ``choose_discard`` return is not a rank the hand holds."""
    if type(card) is int and 0 <= card < NUM_RANKS and hand[card]:
        return None  # the common case first
    if card is None:
        return "choose_discard returned None, but the hand is not empty: a card must be discarded"
    if not _is_int(card) or not 0 <= card < NUM_RANKS:
        return (f"choose_discard returned {card!r}, which is not a rank index 0..{NUM_RANKS - 1} "
                "(simcli.primitives.cards)")
    if hand[card] == 0:
        return f"choose_discard returned {card!r} ({RANK_NAMES[card]}), which is not a card in hand"
    return None


#: The one refusal that a "yes" from partner would lift (``ask_partner_permission=REQUIRED``): the checks return
#: exactly this string only when the decision is otherwise legal, so a strategy can tell "legal once you ask"
#: from every other refusal before it asks (RULES.md §1.10).
ASK_FIRST: Final = "cannot go out without asking partner (ask_partner_permission=REQUIRED)"


def go_out_error(st: DealState, seat: int, canastas: dict[str, int], clean: int | None = None) -> str | None:
    """Why ``seat`` may not go out now with its team holding ``canastas`` (``clean`` of them clean), or ``None``.

    ``clean`` defaults to the team's clean canastas now. :data:`ASK_FIRST` when asking partner is the only
    thing missing.
    """
    r = st.rules
    team = st.team_of[seat]
    if clean is None:
        clean = st.clean_canastas[team]
    if not requirement_met(r.go_out_requirement, canastas, clean):
        need = ",".join(f"{k}:{n}" for k, n in r.go_out_requirement)
        return f"cannot go out: the team needs canastas {need}"
    if st.permission is False:
        return "cannot go out: partner answered no"
    if r.go_out_not_same_turn_as_required_canasta:
        err = wait_error(st, team)
        if err:
            return err
    if r.must_pick_pony_before_going_out and not st.pony_picked[seat]:
        return "cannot go out before picking up the pony"
    if r.go_out_partners_in_pony != "OFF" and r.team_size > 1:
        err = handfoot.partners_error(st, seat)
        if err:
            return err
    if r.ask_partner_permission == "REQUIRED" and r.team_size > 1 and not st.asked:
        return ASK_FIRST  # checked last: this refusal says that nothing else stands in the way
    return None


def wait_error(st: DealState, team: int) -> str | None:
    """Under ``go_out_not_same_turn_as_required_canasta``: why ``team`` may not go out in this turn whatever it melds
    (the turn that completes the first clean canasta, or the required canastas, is not one to go out in)."""
    r = st.rules
    if r.go_out_wait_event == "FIRST_CLEAN":
        first = st.first_clean_turn[team]
        if first is None or first == st.turn:
            return "cannot go out in the turn that completed the team's first clean canasta"
    elif not st.req_met_at_start:
        return "cannot go out in the turn that completed the required canastas"
    return None


#: The start of every refusal of a move that would break partner's "yes" (RULES.md §1.10: "the answer binds").
BOUND_BY_YES: Final = "partner answered yes to 'may I go out?', so this player must go out this turn"


def bound_error(st: DealState, seat: int) -> str | None:
    """After partner's "yes", why laying no more melds cannot end in going out, or ``None``: one card must be left,
    its discard going out, not walking into the foot (a hand emptied into the pony is no going out, RULES.md §2.5)."""
    if st.permission is not True:
        return None
    size = st.hand_sizes[seat]
    if size > 1:
        return f"{BOUND_BY_YES}: keeping {size} cards, the turn cannot end in going out"
    if size == 1 and empty_hand_takes_pony(st, seat):
        return f"{BOUND_BY_YES}: discarding the last hand card would walk into the foot (pony), which is no going out"
    if size == 1 and st.last_card_red_three and st.rules.last_card_red_three_ends_deal:
        return f"{BOUND_BY_YES}: the deal ends without a discard (the last stock card was a red three)"
    return None


def ask_error(st: DealState, seat: int) -> str | None:
    """Why ``seat`` may not ask "partner, may I go out?" now, or ``None`` (RULES.md §1.10).

    The answer binds, so a player may ask only when it could obey a "no": it must be able to end the turn
    with a card in hand. Holding one card after the draw (or none), the only discard would go out, unless the
    deal ends without a discard (the last stock card was a three) or emptying the hand picks up the pony.
    A "yes" binds the player to go out this turn (each move that cannot is refused: :func:`bound_error`,
    :func:`yes_melds_error`), and an ask no move could honour is refused: where a bar no move this turn can lift
    stands (go_out_not_same_turn_as_required_canasta's wait; a last card and no discard under
    going_out_requires_discard). Whether the cards (and a hidden foot) can be melded out is the player's bet.
    """
    r = st.rules
    if r.ask_partner_permission == "OFF" or r.team_size < 2:
        return "asking partner is not part of these rules (ask_partner_permission=OFF or no partner)"
    size = st.hand_sizes[seat]
    if size < 2 and not (size == 1 and (st.last_card_red_three or empty_hand_takes_pony(st, seat))):
        return (f"a player holding {size} card{'s' if size != 1 else ''} may not ask 'may I go out?': "
                "a 'no' could not be obeyed (the player must be able to end the turn with a card in hand)")
    if r.go_out_not_same_turn_as_required_canasta:
        err = wait_error(st, st.team_of[seat])
        if err:
            return f"no move could honour a 'yes' to 'may I go out?': {err}"
    if size == 1 and st.last_card_red_three and r.last_card_red_three_ends_deal and r.going_out_requires_discard:
        return "no move could honour a 'yes' to 'may I go out?': the deal ends without the discard going out needs"
    return None


def melds_error(st: DealState, seat: int, melds: Sequence[Meld], *, top_card: int | None = None,
                hand_bonus: int = 0, partial: bool = False) -> str | None:
    """Why laying ``melds`` from ``seat``'s hand is illegal now, or ``None``.

    ``top_card`` is the pile's top card when the melds are part of taking the pile
    (it joins the meld of its rank and counts toward the opening); ``hand_bonus`` is
    the number of pile cards that will reach the hand. With ``partial`` the opening
    minimum and the going-out conditions are not checked (for building a plan step
    by step). The steps, each rule once, are those of :mod:`simcli.engine.meld_legality`.
    """
    team = st.team_of[seat]
    if not st.rules.closed_rank_dead_for_all and st.permission is not True:  # most calls end here (two cards kept)
        value = naturals_only_value(st, seat, melds, top_card, hand_bonus)
        if value >= 0 and (partial or st.opened[team] or value >= st.minimum[team]):
            return None
    segments = meld_segments(st, team, melds, top_card)
    tally = tally_segments(st, seat, segments)
    if isinstance(tally, str):
        return tally
    hand_after, going_out = hand_after_melds(st, seat, tally, hand_bonus)
    if tally.black_threes or tally.over_cap:  # cards that only a player going out may lay
        err = going_out_only_error(st.rules, tally, going_out)
        if err:
            return err
    if partial:
        return None
    if st.permission is True and not going_out:
        err = yes_melds_error(st, seat, tally.used, hand_bonus, hand_after)
        if err:
            return err
    ask_first = None  # ASK_FIRST when asking partner is all that stands between these melds and going out
    if going_out:
        if hand_after == 0 and st.rules.going_out_requires_discard:
            return "going out must end with a discard (going_out_requires_discard)"
        err = go_out_error(st, seat, tally.canastas, tally.clean)
        if err == ASK_FIRST:
            ask_first = err
        elif err:
            return err + (" (and a player must keep a card to discard)" if hand_after == 1 else "")
    if (segments and not st.opened[team] and tally.value < st.minimum[team]
            and not minimum_waived(st, seat, tally, going_out, top_card)):
        return f"opening melds count {tally.value}, below the minimum {st.minimum[team]}"
    return ask_first


def yes_melds_error(st: DealState, seat: int, used: int, hand_bonus: int, hand_after: int) -> str | None:
    """After a "yes", why melds that do not go out (``used`` cards laid, ``hand_after`` held then) cannot end in going
    out, or ``None``: unless they bring the pony (more to meld), one card at most may stay, to discard going out."""
    if hand_after != st.hand_sizes[seat] - used + hand_bonus:
        return None  # the pony comes into the hand: the player melds on (and must still go out)
    r = st.rules
    if (hand_after == 1 and st.last_card_red_three and not r.last_card_red_three_ends_deal
            and not empty_hand_takes_pony(st, seat)):
        return None  # the last stock card was a three, but the deal goes on to the discard: that one may go out
    if hand_after == 1 and empty_hand_takes_pony(st, seat):
        return f"{BOUND_BY_YES}: these melds leave one hand card, whose discard would walk into the foot (pony)"
    cards = f"{hand_after} card{'s' if hand_after != 1 else ''}"
    return f"{BOUND_BY_YES}: these melds leave {cards}, so the turn cannot end in going out"


def take_error(st: DealState, seat: int, take: TakePile) -> str | None:
    """Why ``seat`` may not take the pile with ``take`` now, or ``None`` (RULES.md §1.7)."""
    r = st.rules
    pile = st.pile
    if not pile:
        return "the pile is empty"
    if st.top_facedown():  # one answer for every hidden card (issue 52)
        return "the pile's top card is face down: it cannot be taken until a card is discarded on it (RULES.md §1.7)"
    top = pile[-1]
    if not IS_NATURAL[top]:
        if r.wild_top_takeable and IS_WILD[top]:
            return handfoot.wild_take_error(st, seat, take, melds_error)
        return f"the pile cannot be taken with {RANK_NAMES[top]} on top"
    m = take.meld
    if m.rank != top:
        return f"the take meld is of {RANK_NAMES[m.rank]} but the top card is {RANK_NAMES[top]}"
    team = st.team_of[seat]
    if r.pile_take_requires_team_opened and not st.opened[team]:
        return handfoot.take_gate_error(st, seat)
    if r.first_round_pile_restriction and st.seat_turns[seat] <= 1 and seat != st.first_player:
        return "in the first round only the first player may take the pile"
    if r.forbid_single_card_pile_with_single_card_hand and len(pile) == 1 and st.hand_sizes[seat] == 1:
        return "a player holding one card may not take a one-card pile"
    if r.closed_rank_blocks_pile and st.rank_has_canasta(top):
        return f"rank {RANK_NAMES[top]} already has a canasta (closed_rank_blocks_pile)"
    if any(x.rank == top for x in take.extra):
        return "extra melds may not repeat the top card's rank"
    existing = st.melds[team][top]
    pair_only = st.frozen_for(team) or (
        r.first_take_pair_only == "PER_DEAL" and not st.first_take_done
    ) or (r.first_take_pair_only == "PER_TEAM" and not st.team_took[team])
    methods = r.take_methods_unfrozen
    if m.naturals >= 2:
        method = "PAIR"
    elif existing is not None:
        method = "LAYOFF"
    elif m.naturals >= 1 and m.twos + m.jokers >= 1:
        method = "NAT_WILD"
    else:
        return "taking the pile needs a natural pair, a natural and a wild, or a team meld of its rank"
    if pair_only and method != "PAIR":
        return f"the pile is frozen for this team: a natural pair of {RANK_NAMES[top]} is needed"
    if st.castigado_since is not None:  # tested here, not in a call: take_error runs for every take a player weighs
        err = crossed_take_error(st, top, m.naturals)
        if err:
            return err
    if method not in methods:
        return f"taking by {method} is not allowed (take_methods_unfrozen)"
    if r.pile_take_count is not None or not r.red_three_from_pile_replaced:
        gained = handfoot.take_gain(st)  # the cards of the take that reach the hand
    else:
        gained = len(pile) - 1
    return melds_error(st, seat, (m, *take.extra), top_card=top, hand_bonus=gained)


def stock_exhausted(st: DealState) -> bool:
    """Whether a stock draw now ends the deal: the stock is empty, or holds fewer than ``draw_count`` cards
    under ``partial_draw_allowed=false`` (RULES.md §1.11, A-X-5)."""
    left = len(st.stock)
    return left == 0 or (left < st.rules.draw_count and not st.rules.partial_draw_allowed)


def must_take_pile(st: DealState, seat: int) -> bool:
    """Classic continuation: with the stock exhausted (:func:`stock_exhausted`), whether ``seat`` is forced to
    take the pile."""
    r = st.rules
    if not stock_exhausted(st) or r.stock_exhaustion_rule != "CLASSIC_CONTINUATION":
        return False
    if not r.must_take_pile_after_stock_empty_if_matches or not st.pile or st.top_facedown():
        return False
    team = st.team_of[seat]
    top = st.pile[-1]
    if not IS_NATURAL[top] or st.frozen_for(team) or st.melds[team][top] is None:
        return False
    return take_error(st, seat, TakePile(Meld(top))) is None


def no_discard_error(st: DealState, seat: int) -> str | None:
    """Why ``seat``, at its discard, has no legal discard at all, or ``None`` (the usual answer).

    The engine asks this before every discard it checks (issue 53: a strategy is never asked for a decision with
    no legal answer). With the lifts of :data:`DISCARD_LIFTS` a hand of two or more cards always holds a
    discardable card, and a last card is held only where going out is legal (melds that would leave one card
    are refused otherwise, RULES.md §1.6), so an answer here is an engine defect. Naturals are tried first: the
    first one held is almost always legal, so the proof costs a call or two.
    """
    hand = st.hands[seat]
    if st.hand_sizes[seat] == 1:
        if st.special_hand is not None or empty_hand_takes_pony(st, seat):
            return None
        err = go_out_error(st, seat, st.canastas[st.team_of[seat]])
        return None if err is None or err == ASK_FIRST else f"the last card may not be discarded: {err}"
    for r in (*range(FOUR, ACE + 1), *range(FOUR)):
        if hand[r] and discard_error(st, seat, r) is None:
            return None
    return "no card in hand may be discarded"


def require_discard(st: DealState, seat: int, ctx: GameContext) -> None:
    """Raise :class:`EngineError` if ``seat`` has no legal discard (:func:`no_discard_error`): the engine calls
    this before asking a strategy for a discard, so that no strategy is asked for a decision with no legal answer."""
    err = no_discard_error(st, seat)
    if err:
        raise EngineError(f"no legal discard for seat {seat} ({ctx.describe()}): {err}", ctx)
