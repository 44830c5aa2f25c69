"""Ending: going out, the stock running out, and the deal's end and score (RULES.md §1.10, §1.11).

:func:`go_out` and :func:`stock_out` end the deal from the turn (:func:`horizon_reached` a limited rollout's);
:func:`finish` scores it (:func:`team_positions` reads what it scores) and gathers what happened into a
:class:`DealResult` for records and reports. The start-of-turn hook :func:`at_turn_start` notes
whether the team's go-out requirement was met before this turn (``go_out_not_same_turn_as_required_canasta``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simcli.engine.core import Engine
from simcli.engine.features import handfoot, ponies, spanish_pile
from simcli.engine.melds import requirement_met
from simcli.engine.scoring import TeamPosition, score_deal
from simcli.engine.state import DealState
from simcli.engine.trace_json import deal_scored_json
from simcli.primitives.cards import FOUR


# init=False and an __init__ of its own (the same parameters): the compiled build then builds one a deal in
# compiled code, not through the dataclass's interpreted __init__ (keyword by keyword); a dataclass still for its
# fields, repr, equality and dataclasses.asdict.
@dataclass(init=False)
class DealResult:
    """The outcome of one deal: scores per team and what happened, for records and reports."""

    deal_index: int
    dealer: int
    first_player: int
    scores: list[dict[str, int]]
    end_reason: str  # "went_out" or "stock_out" ("horizon": a limited rollout stopped before the end)
    went_out_seat: int | None
    concealed: bool
    turns: int
    canastas: list[dict[str, int]]
    red_threes: list[int]
    first_meld_turn: list[int | None]
    pile_takes: list[list[int]]
    cut_count: int
    cut_target: int
    exact_cut: bool
    exact_cut_team: int | None
    pony_pickup_turns: list[int | None]
    required_set_turn: list[int | None]
    pony_cut_count: int
    pony_exact: bool
    pony_exact_team: int | None
    black_threes: list[int]
    special_hand: str | None
    wings: list[tuple[int, int, int]]
    #: Ranks with a canasta of either team at the end (dead for everyone under closed_rank_dead_for_all).
    dead_ranks: int
    #: Spanish: hidden canastas per team; the premiado initial pile and the turn it was first taken (None:
    #: never); each crossed (castigado) pile as (start turn, end turn); the dealer's pick of the initial pile;
    #: the team that made a black-three canasta (it wins the game); corte rápido and terremoto.
    hidden_canastas: list[int]
    premiado: bool
    premiado_end_turn: int | None
    crossed: list[tuple[int, int]]
    pick_count: int
    pick_target: int
    exact_pick: bool
    exact_pick_team: int | None
    black_three_canasta_team: int | None
    quick_finish: bool
    terremoto: bool
    #: Hand and Foot (:func:`~simcli.engine.features.ponies.has_foot`): per seat, whether it walked into its foot
    #: (True: by discarding its last card) or ran (False: by melding), None if it never picked it up; empty under
    #: the other rules.
    foot_walked: list[bool | None]
    positions: list[TeamPosition] = field(repr=False)

    # hot path: one assignment per field (a deal's end builds one); the parameters are the fields, as a dataclass's
    def __init__(self, deal_index: int, dealer: int, first_player: int, scores: list[dict[str, int]],
                 end_reason: str, went_out_seat: int | None, concealed: bool, turns: int,
                 canastas: list[dict[str, int]], red_threes: list[int], first_meld_turn: list[int | None],
                 pile_takes: list[list[int]], cut_count: int, cut_target: int, exact_cut: bool,
                 exact_cut_team: int | None, pony_pickup_turns: list[int | None] | None = None,
                 required_set_turn: list[int | None] | None = None, pony_cut_count: int = 0,
                 pony_exact: bool = False, pony_exact_team: int | None = None, black_threes: list[int] | None = None,
                 special_hand: str | None = None, wings: list[tuple[int, int, int]] | None = None,
                 dead_ranks: int = 0, hidden_canastas: list[int] | None = None, premiado: bool = False,
                 premiado_end_turn: int | None = None, crossed: list[tuple[int, int]] | None = None,
                 pick_count: int = 0, pick_target: int = 0, exact_pick: bool = False,
                 exact_pick_team: int | None = None, black_three_canasta_team: int | None = None,
                 quick_finish: bool = False, terremoto: bool = False,
                 foot_walked: list[bool | None] | None = None,
                 positions: list[TeamPosition] | None = None) -> None:
        self.deal_index = deal_index
        self.dealer = dealer
        self.first_player = first_player
        self.scores = scores
        self.end_reason = end_reason
        self.went_out_seat = went_out_seat
        self.concealed = concealed
        self.turns = turns
        self.canastas = canastas
        self.red_threes = red_threes
        self.first_meld_turn = first_meld_turn
        self.pile_takes = pile_takes
        self.cut_count = cut_count
        self.cut_target = cut_target
        self.exact_cut = exact_cut
        self.exact_cut_team = exact_cut_team
        # A list left out is a new empty one (the dataclass's default_factory=list).
        self.pony_pickup_turns = [] if pony_pickup_turns is None else pony_pickup_turns
        self.required_set_turn = [] if required_set_turn is None else required_set_turn
        self.pony_cut_count = pony_cut_count
        self.pony_exact = pony_exact
        self.pony_exact_team = pony_exact_team
        self.black_threes = [] if black_threes is None else black_threes
        self.special_hand = special_hand
        self.wings = [] if wings is None else wings
        self.dead_ranks = dead_ranks
        self.hidden_canastas = [] if hidden_canastas is None else hidden_canastas
        self.premiado = premiado
        self.premiado_end_turn = premiado_end_turn
        self.crossed = [] if crossed is None else crossed
        self.pick_count = pick_count
        self.pick_target = pick_target
        self.exact_pick = exact_pick
        self.exact_pick_team = exact_pick_team
        self.black_three_canasta_team = black_three_canasta_team
        self.quick_finish = quick_finish
        self.terremoto = terremoto
        self.foot_walked = [] if foot_walked is None else foot_walked
        self.positions = [] if positions is None else positions


def dead_ranks(positions: list[TeamPosition], canasta_size: int) -> int:
    """How many natural ranks hold a canasta of either team in these end-of-deal positions."""
    ranks = 0
    for pos in positions:
        for rank, n, tw, jk in pos.melds:
            if rank >= FOUR and n + tw + jk >= canasta_size:
                ranks |= 1 << rank
    return ranks.bit_count()


def at_turn_start(st: DealState, team: int) -> None:
    """Start of turn, under ``go_out_wait_event=REQUIREMENT``: whether the team met its go-out requirement before
    this turn (a player may not go out in the turn that completed it)."""
    r = st.rules
    if r.go_out_not_same_turn_as_required_canasta and r.go_out_wait_event == "REQUIREMENT":
        st.req_met_at_start = requirement_met(r.go_out_requirement, st.canastas[team], st.clean_canastas[team])


def stock_out(eng: Engine, seat: int, extra: dict[str, Any]) -> None:
    """The deal ends for want of stock (RULES.md §1.11) during ``seat``'s turn; ``extra`` goes into the event."""
    st = eng.st
    st.end_reason = "stock_out"
    if st.history is not None:
        st.history.append(("stock_out", seat, st.turn))
    if eng.emit:
        eng.emit("stock_out", {"seat": seat, "turn": st.turn, **extra})


def horizon_reached(eng: Engine) -> None:
    """A limited rollout (:meth:`simcli.engine.deal.Deal.resume` with ``max_turns``) stopped before the deal's end: it
    ends here and is scored as a deal that ends with nobody going out (as :func:`stock_out`'s is: melds,
    canasta bonuses and threes on the table, minus the cards in hand), marked ``"horizon"``. No event: only
    rollouts stop early, and they are never traced."""
    eng.st.end_reason = "horizon"


def go_out(eng: Engine, seat: int, had_melded: bool) -> None:
    """``seat`` goes out: the deal ends, concealed or not, with the Spanish finishing bonuses' flags."""
    st = eng.st
    team = st.team_of[seat]
    st.went_out_seat = seat
    st.end_reason = "went_out"
    if st.history is not None:
        st.history.append(("out", seat, st.turn))
    # Concealed: the whole hand melded in this one turn, no earlier melds by this player, nothing added
    # to melds laid before this turn (partner's), and at least one canasta among them (RULES.md §1.10).
    # Adding to melds this player started earlier in the same turn (e.g. with a pile take) is fine.
    st.concealed = (
        not had_melded
        and not st.touched_existing
        and st.new_canasta
    )
    # Spanish: corte rápido (out on the player's first turn) and terremoto (out in one turn, after a
    # stock draw, with no earlier melds of the player).
    if eng.finish_bonuses:
        st.quick_finish = st.seat_turns[seat] == 1
        st.terremoto = not had_melded and st.drew_from_stock
    if eng.emit:
        data = {"seat": seat, "team": team, "concealed": st.concealed, "turn": st.turn}
        for flag in ("quick_finish", "terremoto"):  # written only when true (Spanish bonuses)
            if getattr(st, flag):
                data[flag] = True
        eng.emit("going_out", data)


def team_positions(st: DealState) -> list[TeamPosition]:
    """Each team's position as :func:`simcli.engine.scoring.score_deal` scores it, read from ``st`` (which is not
    changed): the melds, threes and hands on the table now, the going-out flags if someone went out."""
    out_team = st.team_of[st.went_out_seat] if st.went_out_seat is not None else None
    positions = []
    for team in range(st.n_teams):
        positions.append(TeamPosition(
            melds=tuple(st.team_melds(team)),
            red_threes=st.red_threes[team],
            hands=tuple(tuple(st.hands[s]) for s in st.members(team)),
            went_out=st.went_out_seat is not None and st.team_of[st.went_out_seat] == team,
            concealed=st.concealed and st.went_out_seat is not None
            and st.team_of[st.went_out_seat] == team,
            exact_cut=st.exact_cut_team == team,
            ponies=tuple(tuple(st.ponies[s]) for s in st.members(team) if not st.pony_picked[s]),
            pony_dealer_exact=st.pony_exact_team == team,
            black_threes=st.black_threes[team],
            special_hand=st.special_hand if st.went_out_seat is not None
            and st.team_of[st.went_out_seat] == team else None,
            hidden=tuple(st.hidden[team]),
            exact_pick=st.exact_pick_team == team,
            quick_finish=st.quick_finish and out_team == team,
            terremoto=st.terremoto and out_team == team,
            self_deal_exact=handfoot.self_deal_exact(st, team) if st.self_deal_grabs else 0,
        ))
    return positions


def finish(eng: Engine) -> DealResult:
    """Score the ended deal (:func:`simcli.engine.scoring.score_deal`) and gather what happened into a DealResult."""
    st = eng.st
    spanish_pile.at_end(st)
    positions = team_positions(st)
    scores = score_deal(st.rules, positions)
    result = DealResult(
        deal_index=st.deal_index, dealer=st.dealer, first_player=st.first_player, scores=scores,
        end_reason=st.end_reason or "", went_out_seat=st.went_out_seat, concealed=st.concealed,
        turns=st.turn, canastas=[dict(c) for c in st.canastas], red_threes=list(st.red_threes),
        first_meld_turn=list(st.first_meld_turn), pile_takes=[list(t) for t in st.take_sizes],
        cut_count=st.cut_count, cut_target=st.cut_target, exact_cut=st.exact_cut,
        exact_cut_team=st.exact_cut_team, positions=positions,
        pony_pickup_turns=list(st.pony_turn) if st.rules.pony_size else [],
        required_set_turn=list(st.req_met_turn), pony_cut_count=st.pony_cut_count,
        pony_exact=st.pony_exact, pony_exact_team=st.pony_exact_team,
        black_threes=list(st.black_threes), special_hand=st.special_hand, wings=list(st.wing_log),
        dead_ranks=dead_ranks(positions, st.rules.canasta_size),
        hidden_canastas=[len(h) for h in st.hidden], premiado=st.pile_premiado,
        premiado_end_turn=st.premiado_end_turn, crossed=list(st.castigado_log), pick_count=st.pick_count,
        pick_target=st.pick_target, exact_pick=st.exact_pick, exact_pick_team=st.exact_pick_team,
        black_three_canasta_team=st.black_three_canasta_team, quick_finish=st.quick_finish,
        terremoto=st.terremoto,
        foot_walked=[st.pony_walked[s] if st.pony_picked[s] else None for s in range(st.n_players)]
        if ponies.has_foot(st.rules) else [],
    )
    if eng.emit:
        eng.emit("deal_scored", deal_scored_json(st, scores, positions))
    return result
