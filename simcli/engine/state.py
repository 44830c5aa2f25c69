"""The mutable state of one deal, owned by the engine.

Strategies never see this object: they get a :class:`~simcli.engine.view.PlayerView`.
Everything here is plain lists of ints so that a turn costs microseconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from simcli.engine.meld_book import MeldBook
from simcli.engine.melds import ACES, MIXED, NATURAL, SEVENS, WILD, initial_meld_minimum
from simcli.engine.table_layout import TableLayout as TableLayout  # re-exported: the layout a state carries
from simcli.engine.table_layout import table_layout
from simcli.primitives.cards import NUM_RANKS
from simcli.rules.ruleset import RuleSet

CANASTA_KINDS: Final = (NATURAL, MIXED, WILD, SEVENS, ACES)
#: No canasta of any kind: a team's count starts as a copy (a dict copy is a tenth of ``dict.fromkeys``'s
#: method call on the compiled build, paid twice a deal).
_NO_CANASTAS: Final = dict.fromkeys(CANASTA_KINDS, 0)

# DealState.history's two entries of every turn, a stock draw and a discard, are packed into one int each (an int
# is no container: no garbage collection is set off by thousands of them a second, as tuples were, +6.6% of a
# Classic hand's instructions). Bits 0-1 the kind, 2-5 the seat, 6-18 the turn, then a draw's count of cards
# (19-23), pile top + 1 (24-27), pile size (28-35) and frozen flag (36), or a discard's rank (19-22).
# PlayerView.history unpacks them (simcli.engine.view.unpacked).
HISTORY_DRAW: Final = 1
HISTORY_DISCARD: Final = 2


class DealState(MeldBook):
    """Everything about a deal in progress: hands, stock, pile, melds, threes and bookkeeping.

    The methods that lay cards on the team melds and keep the canasta counts in step are those of
    :class:`~simcli.engine.meld_book.MeldBook`; the per-rule-set table facts are a shared :class:`TableLayout`.
    """

    __slots__ = (
        "layout", "rules", "n_players", "n_teams", "team_of", "step", "deal_index", "dealer", "first_player",
        "team_scores", "minimum", "hands", "hand_sizes", "stock", "pile", "pile_frozen", "melds",
        "canastas", "red_threes", "red_threes_by_seat", "opened", "first_meld_turn", "has_melded",
        "take_sizes", "turn", "seat_turns", "current", "first_take_done", "team_took",
        "went_out_seat", "concealed", "end_reason", "drew_from_stock", "touched_existing", "turn_new_ranks",
        "permission", "asked", "req_met_at_start", "last_card_red_three", "cutter", "cut_count",
        "cut_target", "exact_cut", "exact_cut_team", "upcards", "deck", "_meld_tables",
        "_meld_dicts", "phase", "validated", "new_canasta", "canasta_changes", "req_checked", "ponies",
        "pony_picked", "pony_unlocked", "pony_ready", "self_deal_grabs", "buried_upcards", "pony_walked",
        "pony_turn", "made_canasta", "req_met_turn", "pony_cut_count", "pony_dealer", "pony_exact",
        "pony_exact_team", "ponies_in_play", "black_threes", "black_threes_by_seat", "wings", "wing_pending",
        "wing_taken", "wing_log", "special_hand", "is_bonus_three", "clean_canastas", "first_clean_turn",
        "hidden", "pile_premiado", "premiado_end_turn", "castigado_since", "castigado_log", "pick_count",
        "pick_target", "exact_pick", "exact_pick_team", "black_three_canasta_team", "quick_finish", "terremoto",
        "closed", "hidden_open", "wings_void", "known", "turn_had_melded", "history",
    )

    def __init__(self, rules: RuleSet | None, deal_index: int, dealer: int, team_scores: list[int]):
        if rules is None:
            # clone(): every slot is set by the copy. None, not a sentinel object: the compiled build checks
            # that ``rules`` is a RuleSet (or None) at run time.
            return
        self.rules = rules
        layout = self.layout = table_layout(rules)
        p = self.n_players = layout.n_players
        t = self.n_teams = layout.n_teams
        self.team_of: tuple[int, ...] = layout.team_of
        self.step = layout.step
        self.deal_index = deal_index
        self.dealer = dealer
        self.first_player = (dealer + self.step) % p
        self.team_scores = list(team_scores)
        self.minimum = [initial_meld_minimum(rules, s, deal_index + 1) for s in team_scores]
        self.hands: list[list[int]] = [[0] * NUM_RANKS for _ in range(p)]
        self.hand_sizes = [0] * p
        self.stock: list[int] = []
        self.pile: list[int] = []
        self.pile_frozen = False
        self.melds: list[list[list[int] | None]] = [[None] * NUM_RANKS for _ in range(t)]
        self.canastas: list[dict[str, int]] = [dict(_NO_CANASTAS) for _ in range(t)]
        self.red_threes = [0] * t
        self.red_threes_by_seat = [0] * p
        self.opened = [False] * t
        self.first_meld_turn: list[int | None] = [None] * t
        self.has_melded = [False] * p
        self.take_sizes: list[list[int]] = [[] for _ in range(t)]
        self._init_turn(rules, dealer, p, t)
        self._init_features(rules, dealer, p, t)

    def _init_turn(self, rules: RuleSet, dealer: int, p: int, t: int) -> None:
        """__init__, continued: the turn and its bookkeeping, the cut, caches and public knowledge."""
        self.turn = 0
        self.seat_turns = [0] * p
        self.current = self.first_player
        self.first_take_done = False
        self.team_took = [False] * t
        self.went_out_seat: int | None = None
        self.concealed = False
        self.end_reason: str | None = None
        self.drew_from_stock = False
        self.touched_existing = False
        #: Bit ``r`` set: this turn's player started the team's meld of rank ``r`` in this turn (adding to it
        #: later in the turn keeps a going out concealed; adding to an older meld does not, RULES.md §1.10).
        self.turn_new_ranks = 0
        self.permission: bool | None = None
        self.asked = False
        self.req_met_at_start = False
        self.last_card_red_three = False
        self.cutter = dealer if rules.cut_by == "DEALER" else (dealer - self.step) % p
        self.cut_count = 0
        self.cut_target = 0
        self.exact_cut = False
        self.exact_cut_team: int | None = None
        self.upcards: list[int] = []
        self.deck: list[int] = []
        #: Incremented before every strategy call; a decision a view validated in the same phase
        #: (``validated = (phase, seat, decision)``) is not validated a second time by the engine.
        self.phase = 0
        #: Set when a meld becomes a canasta during the current turn (for concealed going out).
        self.new_canasta = False
        #: Counts changes of canasta type anywhere; the going-out requirement is re-checked only after one.
        self.canasta_changes = 0
        self.req_checked = [-1] * t
        self.validated: tuple[int, int, object] | None = None
        # Information sets (simcli.players.forward): the cards every player saw go into each hand with a pile take
        # and that have not left it since, and whether the current player had melded before this turn.
        self.known: list[list[int]] = [[0] * NUM_RANKS for _ in range(p)]
        self.turn_had_melded = False
        #: The table's public record of the deal, in order: one immutable entry per thing every player saw happen,
        #: a stock draw or a discard packed into an int (HISTORY_DRAW), anything else a small tuple ``(kind, seat,
        #: turn, ...)`` (:attr:`simcli.engine.view.PlayerView.history` documents the kinds). Appended by the engine,
        #: never changed; nothing hidden goes in (a stock draw is a count of cards). ``None``: not recorded, as no
        #: seated strategy reads it (:class:`simcli.engine.deal.Deal` starts it for one that does): a few hundred
        #: instructions an entry, 5.5% of a Classic hand, that most games need not pay.
        self.history: list[Any] | None = None
        self._meld_tables: list[tuple[tuple[int, int, int] | None, ...] | None] = [None] * t
        self._meld_dicts: list[Mapping[int, tuple[int, int, int]] | None] = [None] * t

    def _init_features(self, rules: RuleSet, dealer: int, p: int, t: int) -> None:
        """__init__, continued: the state of the variant features (ponies, threes and wings, Spanish piles)."""
        # Ponytail: each player's pony (a rank-count vector), whether it was picked up, and when.
        self.ponies: list[list[int]] = [[0] * NUM_RANKS for _ in range(p)]
        self.pony_picked = [rules.pony_size == 0] * p
        # Americana: black threes laid as bonus cards, wings, special hands.
        self.black_threes = [0] * t
        self.black_threes_by_seat = [0] * p
        self.is_bonus_three = self.layout.is_bonus_three
        self.wings: list[list[int]] = []
        self.wing_pending: list[list[int] | None] = [None] * p
        self.wing_taken = [False] * t
        #: (seat, wing size, turn) for each wing taken.
        self.wing_log: list[tuple[int, int, int]] = []
        #: Wings nobody will take (``wing_after_pile_opening=THREE``: the one a pile opening forfeited).
        self.wings_void: list[list[int]] = []
        self.special_hand: str | None = None
        #: Whether any pony is still face down (saves the unlock check on every meld otherwise).
        self.ponies_in_play = rules.pony_size > 0
        self.pony_unlocked = [False] * p
        self.pony_turn: list[int | None] = [None] * p
        self.pony_ready = [0] * p  # seat_turns from which a picked pony has been played from (PLAYED_FROM)
        self.self_deal_grabs: tuple[int, ...] = ()  # each seat's grab (self_deal_exact_bonus; empty when off)
        self.buried_upcards: tuple[int, ...] = ()  # upcards put back into the stock (BURY), in the order turned
        self.pony_walked = [False] * p  # each seat walked into its pony (by the last discard), else ran (melds)
        self.made_canasta = [False] * p
        #: Turn at which each team first met go_out_requirement (None: never).
        self.req_met_turn: list[int | None] = [None] * t
        self.pony_dealer = (dealer + self.step) % p
        self.pony_cut_count = 0
        self.pony_exact = False
        self.pony_exact_team: int | None = None
        # Spanish: clean canastas (for CLEAN/DIRTY requirements), hidden canastas, premiado and crossed piles.
        self.clean_canastas = [0] * t
        self.first_clean_turn: list[int | None] = [None] * t
        #: Ranks of each team's hidden canastas (laid complete from the hand as new melds).
        self.hidden: list[list[int]] = [[] for _ in range(t)]
        self.pile_premiado = False
        #: Turn at which a premiado pile was first taken (None: not premiado, or never taken).
        self.premiado_end_turn: int | None = None
        #: Turn at which a wild discard crossed (castigó) the pile, while it stays crossed.
        self.castigado_since: int | None = None
        #: (start turn, end turn) of each crossed pile; the end is the take, or the last turn of the deal.
        self.castigado_log: list[tuple[int, int]] = []
        self.pick_count = 0
        self.pick_target = 0
        self.exact_pick = False
        self.exact_pick_team: int | None = None
        self.black_three_canasta_team: int | None = None
        self.quick_finish = False
        self.terremoto = False
        #: Closed canastas set aside under ``new_meld_after_closed_canasta``, per team: ``(rank, naturals, twos,
        #: jokers)`` in the order they closed, hidden ones first (a team's slot ``melds[team][rank]`` is then free).
        self.closed: list[list[tuple[int, int, int, int]]] = [[] for _ in range(t)]
        #: Bit ``1 << rank`` set while a team's meld of that rank is a hidden canasta still in its slot.
        self.hidden_open = [0] * t

    # hot path: one assignment per slot, hand-inlined (not a loop): every rollout and sampled world clones
    def clone(self) -> DealState:
        """An independent copy (the rule set, the table layout and immutable values are shared).

        Written out slot by slot rather than looped over ``__slots__``: the compiled build (mypyc) has no
        ``__slots__`` at run time, and straight-line code is several times faster than a loop either way.
        tests/test_forward.py checks that every slot is copied and that no mutable value is shared.
        """
        new = DealState(None, 0, 0, [])
        new.layout = self.layout
        new.rules = self.rules
        new.n_players = self.n_players
        new.n_teams = self.n_teams
        new.team_of = self.team_of
        new.step = self.step
        new.deal_index = self.deal_index
        new.dealer = self.dealer
        new.first_player = self.first_player
        new.team_scores = self.team_scores[:]
        new.minimum = self.minimum[:]
        new.hands = [x[:] for x in self.hands]
        new.hand_sizes = self.hand_sizes[:]
        new.stock = self.stock[:]
        new.pile = self.pile[:]
        new.pile_frozen = self.pile_frozen
        new.melds = [[None if m is None else m[:] for m in t] for t in self.melds]
        new.canastas = [dict(c) for c in self.canastas]
        new.red_threes = self.red_threes[:]
        new.red_threes_by_seat = self.red_threes_by_seat[:]
        new.opened = self.opened[:]
        new.first_meld_turn = self.first_meld_turn[:]
        new.has_melded = self.has_melded[:]
        new.take_sizes = [x[:] for x in self.take_sizes]
        new.turn = self.turn
        new.seat_turns = self.seat_turns[:]
        new.current = self.current
        new.first_take_done = self.first_take_done
        new.team_took = self.team_took[:]
        new.went_out_seat = self.went_out_seat
        new.concealed = self.concealed
        new.end_reason = self.end_reason
        new.drew_from_stock = self.drew_from_stock
        new.touched_existing = self.touched_existing
        new.turn_new_ranks = self.turn_new_ranks
        new.permission = self.permission
        new.asked = self.asked
        new.req_met_at_start = self.req_met_at_start
        new.last_card_red_three = self.last_card_red_three
        new.cutter = self.cutter
        new.cut_count = self.cut_count
        new.cut_target = self.cut_target
        new.exact_cut = self.exact_cut
        new.exact_cut_team = self.exact_cut_team
        new.upcards = self.upcards[:]
        new.deck = self.deck[:]
        new._meld_tables = self._meld_tables[:]
        new._meld_dicts = self._meld_dicts[:]
        new.phase = self.phase
        new.validated = self.validated
        new.new_canasta = self.new_canasta
        new.canasta_changes = self.canasta_changes
        new.req_checked = self.req_checked[:]
        new.ponies = [x[:] for x in self.ponies]
        new.pony_picked = self.pony_picked[:]
        new.pony_unlocked = self.pony_unlocked[:]
        new.pony_turn = self.pony_turn[:]
        new.pony_ready = self.pony_ready[:]
        new.self_deal_grabs = self.self_deal_grabs  # a tuple, set up with the deal
        new.buried_upcards = self.buried_upcards  # a tuple, set up with the deal
        new.pony_walked = self.pony_walked[:]
        new.made_canasta = self.made_canasta[:]
        new.req_met_turn = self.req_met_turn[:]
        new.pony_cut_count = self.pony_cut_count
        new.pony_dealer = self.pony_dealer
        new.pony_exact = self.pony_exact
        new.pony_exact_team = self.pony_exact_team
        new.ponies_in_play = self.ponies_in_play
        new.black_threes = self.black_threes[:]
        new.black_threes_by_seat = self.black_threes_by_seat[:]
        new.wings = [x[:] for x in self.wings]
        new.wing_pending = [None if w is None else w[:] for w in self.wing_pending]
        new.wing_taken = self.wing_taken[:]
        new.wing_log = self.wing_log[:]
        new.special_hand = self.special_hand
        new.is_bonus_three = self.is_bonus_three
        new.clean_canastas = self.clean_canastas[:]
        new.first_clean_turn = self.first_clean_turn[:]
        new.hidden = [x[:] for x in self.hidden]
        new.pile_premiado = self.pile_premiado
        new.premiado_end_turn = self.premiado_end_turn
        new.castigado_since = self.castigado_since
        new.castigado_log = self.castigado_log[:]
        new.pick_count = self.pick_count
        new.pick_target = self.pick_target
        new.exact_pick = self.exact_pick
        new.exact_pick_team = self.exact_pick_team
        new.black_three_canasta_team = self.black_three_canasta_team
        new.quick_finish = self.quick_finish
        new.terremoto = self.terremoto
        new.closed = [x[:] for x in self.closed]
        new.hidden_open = self.hidden_open[:]
        new.wings_void = [x[:] for x in self.wings_void]
        new.known = [x[:] for x in self.known]
        new.turn_had_melded = self.turn_had_melded
        new.history = None if self.history is None else self.history[:]  # immutable entries: a shallow copy
        return new

    # ------------------------------------------------------------- the history
    def record_draw(self, seat: int, cards: int) -> None:
        """``seat`` drew ``cards`` cards from the stock into the hand (:attr:`history` is on): packed into an int."""
        pile = self.pile
        assert self.history is not None
        top = pile[-1] + 1 if pile and not self.top_facedown() else 0  # a face-down top shows nothing (issue 52)
        self.history.append(HISTORY_DRAW | seat << 2 | self.turn << 6 | cards << 19 | top << 24 | len(pile) << 28 | (
            1 << 36 if self.pile_frozen else 0))

    def record_discard(self, seat: int, card: int) -> None:
        """``seat`` discarded ``card`` (:attr:`history` is on): packed into an int."""
        assert self.history is not None
        self.history.append(HISTORY_DISCARD | seat << 2 | self.turn << 6 | card << 19)

    # ------------------------------------------------------------------ helpers
    def partners(self, seat: int) -> list[int]:
        """The other members of ``seat``'s team, in seat order."""
        team = self.team_of[seat]
        return [s for s in range(self.n_players) if self.team_of[s] == team and s != seat]

    def members(self, team: int) -> tuple[int, ...]:
        """The seats of ``team``."""
        return self.layout.members[team]

    def next_seat(self, seat: int) -> int:
        """The seat that plays after ``seat``."""
        return (seat + self.step) % self.n_players

    def frozen_for(self, team: int) -> bool:
        """Whether the pile is frozen for ``team`` (RULES.md §1.7)."""
        r = self.rules
        return (
            self.pile_frozen
            or r.pile_always_frozen
            or (r.frozen_until_team_opens and not self.opened[team])
        )

    def end_crossing(self) -> None:
        """Log the crossed (castigado) pile, if any, as lasting until this turn (a take or the end of the deal)."""
        if self.castigado_since is not None:
            self.castigado_log.append((self.castigado_since, self.turn))
            self.castigado_since = None

    # ------------------------------------------------- public knowledge (simcli.players.forward)
    def forget(self, seat: int, rank: int, n: int) -> None:
        """``n`` cards of ``rank`` left ``seat``'s hand: fewer of its publicly known cards are sure to remain."""
        k = self.known[seat]
        if k[rank]:
            k[rank] = k[rank] - n if k[rank] > n else 0

    def forget_meld(self, seat: int, rank: int, naturals: int, twos: int, jokers: int) -> None:
        """:meth:`forget` for the cards of a meld laid from ``seat``'s hand."""
        k = self.known[seat]
        if k[rank] or k[1] or k[0]:
            self.forget(seat, rank, naturals)
            self.forget(seat, 1, twos)  # TWO
            self.forget(seat, 0, jokers)  # JOKER

    def top_facedown(self) -> bool:
        """Whether the pile's top card is face down (RULES.md §1.7): a pile laid with ``initial_pile_faceup = 0``
        and ``initial_pile_facedown > 0``, before the first discard covers it. Such a pile cannot be taken and
        shows no top card (issue 52); the first discard turns it into an ordinary pile whose top is that discard.
        Only the initial pile can have a face-down top (covers of premios are always covered by an upcard)."""
        r = self.rules
        return (not r.initial_pile_faceup and 0 < len(self.pile) <= r.initial_pile_facedown
                and not self.first_take_done)

    def facedown_positions(self) -> list[int]:
        """Indices in :attr:`pile` of face-down cards (an initial pile or covers of premios) nobody has seen.

        Only the initial pile has any, so the list is empty once the pile has been taken.
        """
        r = self.rules
        if self.first_take_done or not (r.initial_pile_facedown or r.upcard_cover_facedown):
            return []
        down = list(range(r.initial_pile_facedown))
        pos = len(down)
        cover = r.upcard_cover_ranks
        for card in self.upcards:
            pos += 1
            if card in cover:  # new_deal: a premio upcard is covered by face-down cards (while the stock lasts)
                down.extend(range(pos, pos + r.upcard_cover_facedown))
                pos += r.upcard_cover_facedown
        return [i for i in down if i < len(self.pile)]

    def unlearn_facedown(self, seat: int) -> None:
        """``seat`` takes the pile: nobody saw its face-down cards, so they are not known in that hand.

        :func:`simcli.engine.melding.take_pile` adds every card it moves into the hand to ``known``; this takes the
        face-down ones back."""
        if self.first_take_done:
            return  # only the first take of a deal can hold face-down cards (an initial pile)
        k = self.known[seat]
        bonus = self.is_bonus_three
        for i in self.facedown_positions():
            card = self.pile[i]
            if not bonus[card]:  # a bonus three is laid, not taken into the hand
                k[card] -= 1
