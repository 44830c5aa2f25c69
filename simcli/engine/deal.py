"""One deal: the turn loop and the turn's named phases (RULES.md §1.6), the thin orchestrator of the engine.

:func:`play_deal` drives a :class:`~simcli.engine.state.DealState` from a shuffled deck to a scored end, asking each
seat's strategy for its decisions and validating them. The engine reports what happens through ``emit(kind, data)``;
with no listener it builds no event data at all.

A turn is :meth:`Deal._start_turn`, :meth:`Deal._draw_phase`, :meth:`Deal._meld_phase` and :meth:`Deal._discard_phase`;
:meth:`Deal.play` and :meth:`Deal.resume` (a rollout from any decision) share one loop (a rollout limited to a number of
turns has its own, :meth:`Deal._turns_until`). What the phases do lives in modules of their own:
:mod:`simcli.engine.dealing` (the deal's set-up and opening events), :mod:`simcli.engine.melding` (pile takes and
melds), :mod:`simcli.engine.ending` (going out, the stock running out, the score), :mod:`simcli.engine.trace_json` (the
events' shapes), and one module per variant feature holding its rule's predicates (shared with
:mod:`simcli.engine.judge`) and the transitions the phases call at their hook points:
:mod:`simcli.engine.features.threes`, :mod:`simcli.engine.features.ponies`, :mod:`simcli.engine.features.wings`,
:mod:`simcli.engine.features.special` and :mod:`simcli.engine.features.spanish_pile`. Precomputed "is this feature on"
flags (here and on :class:`~simcli.engine.core.Engine`) keep Classic to one test per hook.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from simcli.engine import ending, judge, melding
from simcli.engine.core import SPECIAL_HAND, STOCK_DRAW, Emit, Engine
from simcli.engine.dealing import emit_opening, new_deal
from simcli.engine.ending import DealResult
from simcli.engine.features import ponies, spanish_pile, special, threes, wings
from simcli.engine.judge import (
    DISCARD_LIFTS,
    ask_error,
    discard_error,
    discard_lifts,
    discard_shape_error,
    draw_shape_error,
    go_out_error,
    melds_error,
    melds_shape_error,
    must_take_pile,
    take_error,
)
from simcli.engine.state import DealState
from simcli.engine.strategy_base import Strategy, may_ask_under
from simcli.engine.trace_json import describe_decision, meld_json
from simcli.engine.view import PlayerView
from simcli.primitives.cards import BLACK_THREE, RANK_NAMES, RED_THREE
from simcli.primitives.errors import EngineError, GameContext

#: Names other modules and tests import from here (the engine's entry points).
__all__ = ["DISCARD", "DRAW", "MELDS", "PHASE_STARTS", "START", "Deal", "DealResult", "Emit", "meld_json",
           "new_deal", "play_deal"]

#: Where :meth:`Deal._play_turn` starts a turn: at its start, or at one of its three decisions (a rollout).
START: Final = 0
DRAW: Final = 1
MELDS: Final = 2
DISCARD: Final = 3
PHASE_STARTS: Final = {"draw": DRAW, "melds": MELDS, "discard": DISCARD}

#: A deal that lasts longer than this is an engine bug (play always makes progress).
MAX_TURNS_PER_DEAL: Final = 5000


class Deal(Engine):
    """Plays one prepared deal between the given strategies."""

    def __init__(self, st: DealState, strategies: Sequence[Strategy], emit: Emit | None = None,
                 ctx: GameContext | None = None):
        super().__init__(st, strategies, [PlayerView(st, s) for s in range(st.n_players)], emit, ctx)
        # Rule-derived constants, computed once per rule set (simcli.engine.table_layout), not per deal or turn.
        layout = st.layout
        permission, required = layout.permission, layout.permission_required
        self._asks = [permission and may_ask_under(x, required) for x in strategies]  # a call a turn saved for the rest
        self._turn_start_hooks = layout.turn_start_hooks
        self._discard_rules = layout.discard_rules
        self._lifts = layout.lifts
        self._discard_freezes = layout.discard_freezes

    # ----------------------------------------------------------------- play
    def play(self) -> DealResult:
        """Play the deal to its end and score it."""
        if self.emit:
            emit_opening(self.st, self.emit)
        self.lay_dealt_threes()
        return self._turns_from(self.st.first_player)

    def resume(self, phase: str, max_turns: int = 0) -> DealResult:
        """Finish a deal stopped at a decision of the current seat (``"draw"``, ``"melds"`` or ``"discard"``).

        The forward model (:mod:`simcli.players.forward`) plays rollouts from a cloned or sampled state with this:
        the rest of the current turn from that decision, then the usual turn loop and scoring. With
        ``max_turns`` (a limited rollout), at most that many further turns, of any seat, are played
        (:meth:`_turns_until`); a deal still on then is scored as it stands
        (:func:`simcli.engine.ending.horizon_reached`).
        """
        st = self.st
        seat = st.current
        self._play_turn(seat, st.turn_had_melded, PHASE_STARTS[phase])
        if max_turns > 0:  # one test a rollout, none a turn: the unlimited loop stays as it was
            return self._turns_until((seat + st.step) % st.n_players, st.turn + max_turns)
        return self._turns_from((seat + st.step) % st.n_players)

    def _turns_from(self, seat: int) -> DealResult:
        """The turn loop shared by :meth:`play` and :meth:`resume`: whole turns from ``seat`` on until the deal
        ends, then the score."""
        st = self.st
        step, p, ctx = st.step, st.n_players, self.ctx
        # The phases called here directly, not through _play_turn: a call fewer on every turn. Not bound to locals
        # first: the compiled build calls a method of self natively, a bound method through Python's call protocol.
        while st.end_reason is None:
            st.turn += 1
            ctx.turn = st.turn
            if st.turn > MAX_TURNS_PER_DEAL:
                raise EngineError(f"deal did not finish in {MAX_TURNS_PER_DEAL} turns ({ctx.describe()})", ctx)
            had_melded = self._start_turn(seat)
            if not self._draw_phase(seat) and not self._meld_phase(seat, had_melded):
                self._discard_phase(seat, had_melded)
            seat = (seat + step) % p
        return self._finish()

    def _turns_until(self, seat: int, last_turn: int) -> DealResult:
        """A limited rollout's turn loop: whole turns from ``seat`` on until the deal ends or turn ``last_turn``
        is over, then the score, as it stands if the deal is still on. A loop of its own, through
        :meth:`_play_turn`, so that :meth:`_turns_from`, the loop of all play, has no test for a limit."""
        st = self.st
        step, p, ctx = st.step, st.n_players, self.ctx
        while st.end_reason is None and st.turn < last_turn:
            st.turn += 1
            ctx.turn = st.turn
            if st.turn > MAX_TURNS_PER_DEAL:
                raise EngineError(f"deal did not finish in {MAX_TURNS_PER_DEAL} turns ({ctx.describe()})", ctx)
            self._play_turn(seat, False, START)  # START: the start of turn sets had_melded
            seat = (seat + step) % p
        if st.end_reason is None:
            ending.horizon_reached(self)
        return self._finish()

    def lay_dealt_threes(self) -> None:
        """Lay and replace dealt threes right after the deal
        (:func:`simcli.engine.features.threes.lay_dealt_threes`)."""
        threes.lay_dealt_threes(self)

    def _play_turn(self, seat: int, had_melded: bool, phase: int) -> None:
        """``seat``'s turn from ``phase`` on: START (the whole turn), DRAW, MELDS or DISCARD (a rollout resumes
        at a decision: :meth:`resume`). ``had_melded``: whether the player had melded before this turn (set by
        the start of turn). The phases, in order: :meth:`_start_turn`, :meth:`_draw_phase`,
        :meth:`_meld_phase`, :meth:`_discard_phase`; the first two that end the deal say so."""
        if phase == START:
            had_melded = self._start_turn(seat)
        if phase <= DRAW and self._draw_phase(seat):
            return
        if phase <= MELDS and self._meld_phase(seat, had_melded):
            return
        self._discard_phase(seat, had_melded)

    # ------------------------------------------------------------ the phases
    def _start_turn(self, seat: int) -> bool:
        """Start of turn: reset the per-turn state, then the variant's start-of-turn steps (RULES.md §1.6 (a)-(c):
        threes, pony, wing). Returns whether the player had melded before this turn."""
        st = self.st
        st.current = seat
        st.seat_turns[seat] = st.seat_turns[seat] + 1  # not +=: native in the compiled build
        st.drew_from_stock = False
        st.touched_existing = False
        st.turn_new_ranks = 0
        st.permission = None
        st.asked = False
        st.last_card_red_three = False
        had_melded = st.turn_had_melded = st.has_melded[seat]
        st.new_canasta = False
        if self._turn_start_hooks:
            self._start_of_turn_hooks(seat, st.team_of[seat])
        return had_melded

    def _start_of_turn_hooks(self, seat: int, team: int) -> None:
        """Step (a)-(c) of RULES.md §1.6 where the variant has them, each feature's start-of-turn hook in order:
        the go-out requirement's mark, dealt threes, pony, wing, a three kept before opening."""
        ending.at_turn_start(self.st, team)
        threes.at_turn_start(self, seat)
        ponies.at_turn_start(self, seat)
        wings.at_turn_start(self, seat)
        threes.once_opened(self, seat, team)

    # hot path: over 60 lines, as the stock draw is inlined (it runs on most turns)
    def _draw_phase(self, seat: int) -> bool:
        """Draw phase: the draw decision (stock or pile), checked, traced and carried out, then the "may I go
        out?" question. Returns whether the deal ended (the stock ran out)."""
        st = self.st
        r = st.rules
        emit = self.emit
        self.decisions += 3
        st.phase += 1
        try:
            decision: Any = self.strategies[seat].choose_draw(self.views[seat])  # checked below
        except Exception as exc:
            raise self.wrap(seat, exc) from exc
        # Every check comes before the decision line: a refused decision is never traced as made.
        if decision is STOCK_DRAW:
            if len(st.stock) < r.draw_count and must_take_pile(st, seat):
                left = "empty" if not st.stock else f"down to {len(st.stock)} (partial_draw_allowed=false)"
                raise self.fail(seat, f"the stock is {left} and the pile matches a team meld: it must be taken")
        else:
            err = draw_shape_error(decision)
            if err:
                raise self.fail(seat, err)
            err = None if st.validated == (st.phase, seat, decision) else take_error(st, seat, decision)
            if err:
                raise self.fail(seat, f"take pile {decision.meld} {list(map(str, decision.extra))}: {err}")
        if emit:
            emit("decision", {"seat": seat, "turn": st.turn, "kind": "draw", "value": describe_decision(decision)})
        if decision is STOCK_DRAW:
            stock = st.stock
            if not stock or (len(stock) < r.draw_count and not r.partial_draw_allowed):  # empty, or short: A-X-5
                ending.stock_out(self, seat, {} if not stock else {"stock_left": len(stock)})
                return True
            # The stock draw, inlined (it runs on most turns): bonus threes are laid and replaced by draw_one.
            drawn: list[int] | None = [] if emit else None  # the cards drawn, for the event only
            hand = st.hands[seat]
            sizes = st.hand_sizes
            before = sizes[seat]
            for _ in range(r.draw_count):
                if not stock:
                    break
                top = stock[-1]
                if not st.is_bonus_three[top]:  # the common case: no laying, no replacement
                    stock.pop()
                    hand[top] = hand[top] + 1  # not +=: the compiled build adds list items natively only so
                    sizes[seat] = sizes[seat] + 1
                    if drawn is not None:
                        drawn.append(top)
                    continue
                # A bonus three: laid and replaced, possibly until the stock runs out (then nothing is drawn).
                replacement = threes.draw_one(self, seat, "stock")
                if replacement is not None and drawn is not None:
                    drawn.append(replacement)
            st.drew_from_stock = True
            if st.history is not None:  # the public record (a count of cards, the pile passed by)
                st.record_draw(seat, sizes[seat] - before)
            if emit and drawn is not None:
                emit("draw", {"seat": seat, "cards": [RANK_NAMES[c] for c in drawn], "stock_left": len(stock)})
        else:
            melding.take_pile(self, seat, decision)
            if st.ponies_in_play:
                ponies.after_melds(self, seat)
        if self._asks[seat]:
            self._ask_partner(seat)
        return False

    def _ask_partner(self, seat: int) -> None:
        """Asking partner "may I go out?" (an agent hook with no scoring effect; the answer binds)."""
        st = self.st
        if not self.flag(seat, "ask_to_go_out", self.call(seat, self.strategies[seat].ask_to_go_out, self.views[seat])):
            return
        err = ask_error(st, seat)
        if err:
            raise self.fail(seat, f"ask_to_go_out: {err}")
        partner = st.partners(seat)[0]
        st.asked = True
        st.permission = self.flag(partner, "answer_go_out", self.call(
            partner, self.strategies[partner].answer_go_out, self.views[partner]))
        if st.history is not None:
            st.history.append(("ask", seat, st.turn, st.permission))
        if self.emit:
            self.emit("ask_go_out", {"seat": seat, "partner": partner, "answer": st.permission})

    def _meld_phase(self, seat: int, had_melded: bool) -> bool:
        """Meld phase: melds (or a special hand) until the player stops, asked again after a pony pick-up;
        then going out on an empty hand, or the end of the deal on an unreplaced last three. Returns whether
        the deal ended."""
        st = self.st
        emit = self.emit
        strategy = self.strategies[seat]
        view = self.views[seat]
        while True:  # a pony picked up while melding brings new cards: the strategy is asked again
            st.phase += 1
            try:
                melds = strategy.choose_melds(view)
            except Exception as exc:
                raise self.wrap(seat, exc) from exc
            has = bool(melds)  # once: a well-formed decision (checked next) is a list or tuple
            if has or (melds is not None and type(melds) is not list and type(melds) is not tuple):
                err = melds_shape_error(melds)  # None and an empty list or tuple are no melds
                if err:
                    raise self.fail(seat, err)
            if not has and st.permission is True and judge.bound_error(st, seat):  # a "yes" binds: one card, going out
                raise self.fail(seat, f"melds []: {judge.bound_error(st, seat)}")
            if has and isinstance(melds[0], SPECIAL_HAND):
                special.lay_special_hand(self, seat, melds)
                if emit:
                    emit("decision", {"seat": seat, "turn": st.turn, "kind": "melds",
                                      "value": {"special_hand": melds[0].kind}})
                if st.hand_sizes[seat] == 0:
                    ending.go_out(self, seat, had_melded)
                    return True
                break
            if has:
                melds = tuple(melds)
                err = None if st.validated == (st.phase, seat, melds) else melds_error(st, seat, melds)
                if err:
                    raise self.fail(seat, f"melds {[str(m) for m in melds]}: {err}")
                melding.apply_melds(self, seat, melds)
                if st.history is not None:
                    st.history.append(("melds", seat, st.turn, melds))  # a tuple of Meld (immutable)
            if emit:
                emit("decision", {"seat": seat, "turn": st.turn, "kind": "melds",
                                  "value": [meld_json(m) for m in melds] if has else []})
            if not (has and st.ponies_in_play and self._pony_after_melding(seat)):
                break
        if st.hand_sizes[seat] == 0 or st.last_card_red_three:  # tested here: the call is rare
            return self._after_meld_phase(seat, had_melded)
        return False

    def _pony_after_melding(self, seat: int) -> bool:
        """Whether melds just laid brought ``seat``'s pony into the hand (then the player may meld again)."""
        st = self.st
        if ponies.after_melds(self, seat):
            return True
        return st.hand_sizes[seat] == 0 and ponies.hand_empty_pony(self, seat)

    def _after_meld_phase(self, seat: int, had_melded: bool) -> bool:
        """The end of the meld phase: out on an empty hand, or the deal's end on an unreplaced last three."""
        st = self.st
        r = st.rules
        if st.hand_sizes[seat] == 0 and not ponies.hand_empty_pony(self, seat):
            ending.go_out(self, seat, had_melded)
            return True
        if st.last_card_red_three and (r.last_card_red_three_ends_deal or (
                st.hand_sizes[seat] == 1 and go_out_error(st, seat, st.canastas[st.team_of[seat]]) is not None)):
            # The last stock card was an unreplaced three: by the knob, or as the last card may not go, stock out.
            ending.stock_out(self, seat, {"last_card_red_three": True})
            return True
        return False

    def _discard_phase(self, seat: int, had_melded: bool) -> None:
        """Discard phase: the discard, checked, traced and laid on the pile; going out if it was the last card."""
        st = self.st
        emit = self.emit
        st.phase += 1
        if self._discard_rules or st.hand_sizes[seat] == 1:  # issue 53: never ask when no discard is legal
            judge.require_discard(st, seat, self.ctx)
        try:
            returned: Any = self.strategies[seat].choose_discard(self.views[seat])
        except Exception as exc:
            raise self.wrap(seat, exc) from exc
        hand = st.hands[seat]
        if type(returned) is not int or not 0 <= returned < len(hand) or not hand[returned]:  # the rare case
            err = discard_shape_error(returned, hand)
            if err:
                raise self.fail(seat, err)
        card: int = returned
        if (self._discard_rules and st.special_hand is None) or st.hand_sizes[seat] == 1 or st.permission is True:
            self._check_discard(seat, card)  # tested here: in most turns there is nothing to check
        lifted = 0
        if emit:  # after every check: a refused discard is never traced as made
            emit("decision", {"seat": seat, "turn": st.turn, "kind": "discard", "value": RANK_NAMES[card]})
            if self._lifts and (not st.pile or card == RED_THREE or card == BLACK_THREE):
                lifted = discard_lifts(st, seat)  # read before the card leaves the hand
        hand[card] = hand[card] - 1  # not -=: the compiled build then subtracts natively
        sizes = st.hand_sizes
        sizes[seat] = sizes[seat] - 1
        known = st.known[seat]
        if known[card]:  # DealState.forget, inlined: this runs on every discard
            known[card] = known[card] - 1
        st.pile.append(card)
        if st.history is not None:
            st.record_discard(seat, card)
        if self._discard_freezes[card]:
            st.pile_frozen = True
            spanish_pile.on_freezing_discard(st, card)
        if emit:
            data = {"seat": seat, "card": RANK_NAMES[card], "pile_size": len(st.pile), "frozen": st.pile_frozen}
            if lifted:  # RULES.md A-AM-4d (and the three lift): no card was discardable, so bars were lifted
                data["bar_lifted"] = DISCARD_LIFTS[lifted - 1]
            emit("discard", data)
        if st.hand_sizes[seat] == 0 and not ponies.hand_empty_pony(self, seat, walked=True):
            ending.go_out(self, seat, had_melded)

    def _check_discard(self, seat: int, card: int) -> None:
        """Refuse a discard the rules bar, a last card that may not go out, or a kept card after a "yes"."""
        st = self.st
        if self._discard_rules and st.special_hand is None:
            err = discard_error(st, seat, card)
            if err:
                raise self.fail(seat, f"discard {RANK_NAMES[card]}: {err}")
        if st.hand_sizes[seat] == 1 and st.special_hand is None and not ponies.empty_hand_takes_pony(st, seat):
            err = go_out_error(st, seat, st.canastas[st.team_of[seat]])
            if err:
                raise self.fail(seat, f"discarding the last card: {err}")
        if st.permission is True and judge.bound_error(st, seat):  # RULES.md §1.10: the answer binds (a walk is no out)
            raise self.fail(seat, f"discard {RANK_NAMES[card]}: {judge.bound_error(st, seat)}")

    def _finish(self) -> DealResult:
        """Score the ended deal (:func:`simcli.engine.ending.finish`)."""
        return ending.finish(self)


def play_deal(st: DealState, strategies: Sequence[Strategy], emit: Emit | None = None,
              ctx: GameContext | None = None) -> DealResult:
    """Play a prepared deal (see :func:`new_deal`) to its scored end."""
    return Deal(st, strategies, emit, ctx).play()
