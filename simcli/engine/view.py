"""The read-only view a strategy gets: its own hand, the table, and public counts only.

A view wraps the engine's state but exposes no stock order, no pile below its top
card and no other player's cards: only what a player at the table can see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from simcli.engine.judge import (
    ASK_FIRST,
    ask_error,
    bound_error,
    discard_error,
    go_out_error,
    melds_error,
    must_take_pile,
    special_hand_error,
    take_error,
)
from simcli.engine.state import HISTORY_DRAW, DealState
from simcli.engine.worlds import sample_world, unseen_counts
from simcli.primitives.actions import Meld, TakePile
from simcli.primitives.cards import NUM_RANKS
from simcli.rules.ruleset import RuleSet


class PlayerView:
    """What the player in ``seat`` knows. Properties return copies, so strategies cannot change the game."""

    __slots__ = ("_st", "_seat", "_team")

    def __init__(self, state: DealState, seat: int):
        self._st = state
        self._seat = seat
        self._team = state.team_of[seat]

    @property
    def seat(self) -> int:
        """This player's seat (read-only: a view cannot be pointed at another seat)."""
        return self._seat

    @property
    def team(self) -> int:
        """This player's team."""
        return self._team

    # ------------------------------------------------------------ own cards
    @property
    def hand(self) -> tuple[int, ...]:
        """This player's hand as a rank-count vector (index = rank, see :mod:`simcli.primitives.cards`)."""
        return tuple(self._st.hands[self._seat])

    @property
    def hand_size(self) -> int:
        """Number of cards in this player's hand."""
        return self._st.hand_sizes[self._seat]

    # ---------------------------------------------------------------- table
    @property
    def rules(self) -> RuleSet:
        """The frozen rule set of this game."""
        return self._st.rules

    @property
    def n_players(self) -> int:
        """Players at the table."""
        return self._st.n_players

    @property
    def n_teams(self) -> int:
        """Teams at the table; team ``t`` holds seats ``s`` with ``s % n_teams == t``."""
        return self._st.n_teams

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Card counts of every player's hand, by seat."""
        return tuple(self._st.hand_sizes)

    def melds(self, team: int | None = None) -> Mapping[int, tuple[int, int, int]]:
        """A team's melds (default: own team) as a read-only ``{rank: (naturals, twos, jokers)}``.

        These are the melds cards can go on, one per rank; closed canastas set aside under
        ``new_meld_after_closed_canasta`` are in :meth:`closed_canastas`.
        """
        return self._st.meld_dict(self._team if team is None else team)

    def meld_table(self, team: int | None = None) -> tuple[tuple[int, int, int] | None, ...]:
        """A team's melds (default: own team) indexed by rank: ``(naturals, twos, jokers)`` or ``None``."""
        return self._st.meld_table(self._team if team is None else team)

    def meld(self, rank: int, team: int | None = None) -> tuple[int, int, int] | None:
        """One meld of a team (default: own team), or ``None``."""
        return self._st.meld_table(self._team if team is None else team)[rank]

    def closed_canastas(self, team: int | None = None) -> tuple[tuple[int, int, int, int], ...]:
        """A team's closed canastas set aside under ``new_meld_after_closed_canasta`` (default: own team), as
        ``(rank, naturals, twos, jokers)``. Their ranks' slots in :meth:`melds` are free for a new meld; with the
        knob off this is always empty (a closed canasta stays in its slot)."""
        return tuple(self._st.closed[self._team if team is None else team])

    def canastas(self, team: int | None = None) -> dict[str, int]:
        """A team's canastas by type (``NATURAL``, ``MIXED``, ``WILD``, ...), closed ones set aside included."""
        return dict(self._st.canastas[self._team if team is None else team])

    def clean_canastas(self, team: int | None = None) -> int:
        """How many of a team's canastas are clean (no wild card; a wild canasta of one kind of wild)."""
        return self._st.clean_canastas[self._team if team is None else team]

    def hidden_canastas(self, team: int | None = None) -> int:
        """How many hidden canastas a team has laid this deal (Spanish *oculta*)."""
        return len(self._st.hidden[self._team if team is None else team])

    @property
    def special_hand_laid(self) -> bool:
        """Whether a special hand has been laid this deal (it ends the deal: no decision after it changes the
        score, so a search player need not search; see :meth:`check_special`)."""
        return self._st.special_hand is not None

    @property
    def pile_premiado(self) -> bool:
        """Whether the initial pile showed a premio and has not been taken yet (Spanish; needs a natural pair)."""
        st = self._st
        return st.pile_premiado and st.premiado_end_turn is None

    @property
    def pile_crossed(self) -> bool:
        """Whether a wild discard has crossed (castigado) the pile since it was last taken."""
        return self._st.castigado_since is not None

    @property
    def first_take_done(self) -> bool:
        """Whether anyone has taken the pile yet this deal."""
        return self._st.first_take_done

    @property
    def red_threes(self) -> tuple[int, ...]:
        """Red threes laid by each team."""
        return tuple(self._st.red_threes)

    @property
    def opened(self) -> tuple[bool, ...]:
        """Whether each team has made its initial meld this deal."""
        return tuple(self._st.opened)

    @property
    def has_opened(self) -> bool:
        """Whether this player's team has made its initial meld this deal."""
        return self._st.opened[self._team]

    @property
    def minimum(self) -> int:
        """This team's initial-meld minimum for the deal."""
        return self._st.minimum[self._team]

    @property
    def pile_top(self) -> int | None:
        """The discard pile's top card (a rank), or ``None`` when the pile is empty or its top card is face down
        (an initial pile laid with ``initial_pile_faceup = 0``, until the first discard: RULES.md §1.7, issue
        52; :attr:`pile_size` still counts its cards)."""
        st = self._st
        pile = st.pile
        return pile[-1] if pile and not st.top_facedown() else None

    @property
    def pile_size(self) -> int:
        """Number of cards in the discard pile."""
        return len(self._st.pile)

    @property
    def pile_cards(self) -> tuple[int, ...]:
        """The discard pile's face-up cards by rank (every player saw each one discarded; the face-down cards of an
        initial pile laid face down are not among them): the top card included."""
        st = self._st
        counts = [0] * NUM_RANKS
        for card in st.pile:
            counts[card] += 1
        for i in st.facedown_positions():
            counts[st.pile[i]] -= 1
        return tuple(counts)

    @property
    def known_in_partner_hands(self) -> tuple[int, ...]:
        """The cards every player saw go into a partner's hand with a pile take and that have not left it since, by
        rank, summed over the partners (all zero without one)."""
        return self._known_in_hands(True)

    @property
    def known_in_opponent_hands(self) -> tuple[int, ...]:
        """The same of the other teams' hands, summed over their seats."""
        return self._known_in_hands(False)

    def _known_in_hands(self, partners: bool) -> tuple[int, ...]:
        st = self._st
        out = [0] * NUM_RANKS
        for s in range(st.n_players):
            if s != self._seat and (st.team_of[s] == self._team) == partners:
                for r, k in enumerate(st.known[s]):
                    out[r] += k
        return tuple(out)

    @property
    def unseen(self) -> tuple[int, ...]:
        """The cards this player has not seen, by rank: the pack minus its own hand, the table, the face-up pile and
        the cards known in other hands (:func:`simcli.engine.worlds.unseen_counts`)."""
        return tuple(unseen_counts(self._st, self._seat))

    @property
    def pile_frozen(self) -> bool:
        """Whether the pile is frozen for this player's team."""
        return self._st.frozen_for(self._team)

    @property
    def stock_size(self) -> int:
        """Cards left in the stock."""
        return len(self._st.stock)

    @property
    def scores(self) -> tuple[int, ...]:
        """Cumulative team scores at the start of this deal."""
        return tuple(self._st.team_scores)

    @property
    def turn(self) -> int:
        """Turn number within the deal (1 = first turn)."""
        return self._st.turn

    @property
    def deal_index(self) -> int:
        """Deal number within the game (0 = first deal)."""
        return self._st.deal_index

    @property
    def dealer(self) -> int:
        """Seat of this deal's dealer."""
        return self._st.dealer

    @property
    def drew_from_stock(self) -> bool:
        """Whether this player drew from the stock this turn (rather than taking the pile)."""
        return self._st.drew_from_stock

    @property
    def must_take_pile(self) -> bool:
        """With the stock exhausted (empty, or too short for a whole draw under ``partial_draw_allowed=false``) and
        classic continuation, whether this player is forced to take the pile."""
        return must_take_pile(self._st, self._seat)

    @property
    def no_discard_this_turn(self) -> bool:
        """The last stock card was a red three: meld if you like, the deal ends without a discard."""
        return self._st.last_card_red_three and self._st.rules.last_card_red_three_ends_deal

    @property
    def may_ask(self) -> bool:
        """Whether this player may ask "partner, may I go out?" now: the rules have it and the player could
        obey a "no" (RULES.md §1.10; see :func:`simcli.engine.judge.ask_error`). Ask only if you can also go out:
        a "yes" binds."""
        return ask_error(self._st, self._seat) is None

    @property
    def partner_permission(self) -> bool | None:
        """Partner's answer to "may I go out?" this turn, or ``None`` if not asked."""
        return self._st.permission

    def melds_if_yes(self, choose: Callable[[PlayerView], Any]) -> Any:
        """What ``choose(view)`` (a strategy's ``choose_melds``) returns supposing this player had asked "may I go
        out?" and partner had said yes: the checks of this view judge as they would after the yes (a plan that
        goes out needs no more asking; one that cannot end in going out is refused). A strategy asks when the
        plan it would lay after a yes goes out (:func:`simcli.players.asking.asks_to_go_out`): after the yes,
        the same view gives the same plan. Nothing of the supposition outlasts the call."""
        st = self._st
        asked, permission = st.asked, st.permission
        st.asked, st.permission = True, True
        try:
            return choose(self)
        finally:
            st.asked, st.permission = asked, permission
            st.validated = None  # nothing validated under the supposition is taken as validated after it

    # ---------------------------------------------------------------- checks
    def check_melds(self, melds: Sequence[Meld], partial: bool = False) -> str | None:
        """Why laying ``melds`` now would be illegal, or ``None`` if it is legal.

        Under ``ask_partner_permission=REQUIRED`` a plan that goes out before the player has asked returns
        :data:`ASK_FIRST` exactly when asking is all it lacks (every other rule holds), so a strategy can ask only
        when a "yes" would let it go out (the answer binds): ``view.check_melds(plan) == view.ASK_FIRST``. Any other
        string is a refusal that asking would not lift.
        """
        st = self._st
        err = melds_error(st, self._seat, melds, partial=partial)
        if err is None and not partial:
            st.validated = (st.phase, self._seat, tuple(melds))
        return err

    #: The refusal of a going-out plan that asking partner (and a "yes") would lift (``simcli.engine.judge.ASK_FIRST``).
    ASK_FIRST = ASK_FIRST

    def check_take(self, take: TakePile) -> str | None:
        """Why taking the pile with ``take`` now would be illegal, or ``None`` if it is legal."""
        st = self._st
        err = take_error(st, self._seat, take)
        if err is None:
            st.validated = (st.phase, self._seat, take)
        return err

    def check_special(self, kind: str) -> str | None:
        """Why laying special hand ``kind`` now would be illegal, or ``None``."""
        return special_hand_error(self._st, self._seat, kind)

    def discard_error(self, rank: int) -> str | None:
        """Why discarding a card of ``rank`` now would break ``discard_restrictions``, or ``None``."""
        return discard_error(self._st, self._seat, rank)

    def legal_discards(self) -> list[int]:
        """Ranks in hand that may be discarded now (none after partner answered "yes" to "may I go out?" unless the
        discard goes out: not with more than one card, nor a last hand card whose discard walks into the foot)."""
        st = self._st
        seat = self._seat
        if st.permission is True and bound_error(st, seat) is not None:
            return []
        hand = st.hands[seat]
        return [r for r, n in enumerate(hand) if n and discard_error(st, seat, r) is None]

    @property
    def black_threes(self) -> tuple[int, ...]:
        """Black threes laid as bonus cards by each team (Americana)."""
        return tuple(self._st.black_threes)

    @property
    def wings_left(self) -> int:
        """Wings (Americana talons) still set aside."""
        return len(self._st.wings)

    @property
    def pony_picked(self) -> tuple[bool, ...]:
        """Whether each seat has picked up its pony (Ponytail; all true without ponies)."""
        return tuple(self._st.pony_picked)

    @property
    def history(self) -> tuple[tuple[Any, ...], ...]:
        """What every player saw happen this deal, in order (the same for every seat): one tuple per event,
        ``(kind, seat, turn, ...)``, ``turn`` 0 before the first turn.

        The kinds and what follows ``turn``:

        * ``("draw", seat, turn, cards, top, pile_size, frozen)``: ``cards`` cards went into the hand from the
          stock (a count: which ones is hidden; a bonus three drawn is its own ``"three"`` entry, before this one),
          while the pile showed ``top`` (a rank; -1: empty or face down) on ``pile_size`` cards, ``frozen`` its
          frozen flag.
        * ``("take", seat, turn, top, pile_size, meld, extra, cards)``: took the pile of ``pile_size`` cards, its
          top melded with ``meld`` (a ``Meld`` of cards from the hand) and ``extra`` (a tuple of ``Meld``) laid with
          it; ``cards``: the ranks that went into the hand face up, bottom first (not the face-down cards of a
          Spanish initial pile, nor bonus threes, which are laid: ``"three"`` entries).
        * ``("melds", seat, turn, melds)``: a meld decision laid from the hand (a tuple of ``Meld``; none is no
          entry); ``("special", seat, turn, kind)``: a special hand laid (Americana).
        * ``("discard", seat, turn, rank)``; ``("ask", seat, turn, answer)``: ``seat`` asked "may I go out?" and
          its partner answered ``answer``.
        * ``("three", seat, turn, rank, source)``: a bonus three laid (``source``: ``dealt``, ``stock``,
          ``replacement``, ``pile``, ``pony``, ``wing`` or ``held``); ``("pony", seat, turn, cards)``: a pony
          picked up (Ponytail) and ``("wing", seat, turn, cards)``: a wing taken (Americana), counts only.
        * ``("out", seat, turn)``: went out; ``("stock_out", seat, turn)``: the deal ended for want of stock.

        Recorded only for a deal at which a seated strategy has ``reads_history`` true (``mc:infer`` does;
        recording costs the engine about 5% of a hand): otherwise this is empty. Nothing hidden is in it
        (tests/test_history.py plays deals again with a drawn card swapped for one left in the stock: the history
        stays the same). A sampled world carries it, and a rollout adds to it.
        """
        history = self._st.history
        return () if history is None else tuple([unpacked(e) for e in history])

    def sample_world(self, rng: Any) -> DealState:
        """A full deal state consistent with everything this player has seen and nothing it has not.

        The unseen cards are dealt at random (from ``rng``, a ``numpy.random.Generator``) among the hidden
        places; the state can be played forward with :func:`simcli.players.forward.rollout`. See
        :mod:`simcli.engine.worlds`.
        """
        return sample_world(self._st, self._seat, rng)

    def go_out_error(self) -> str | None:
        """Why this player's team may not go out with its current canastas, or ``None`` (:data:`ASK_FIRST`: only
        partner's permission is missing)."""
        return go_out_error(self._st, self._seat, self._st.canastas[self._team])


def unpacked(entry: Any) -> tuple[Any, ...]:
    """A history entry as :attr:`PlayerView.history` gives it: a packed stock draw or discard (an int, see
    :data:`simcli.engine.state.HISTORY_DRAW`) as its tuple, any other entry as it is."""
    if type(entry) is not int:
        return entry
    seat, turn = entry >> 2 & 15, entry >> 6 & 8191
    if entry & 3 == HISTORY_DRAW:
        return ("draw", seat, turn, entry >> 19 & 31, (entry >> 24 & 15) - 1, entry >> 28 & 255, bool(entry >> 36 & 1))
    return ("discard", seat, turn, entry >> 19 & 15)
