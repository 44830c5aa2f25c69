"""The forward model for search players: information sets, sampled worlds, cheap clones and rollouts.

A search player needs to ask "what happens if I do X?" without seeing the cards it may not see. This
module answers in three steps, all on the engine's own :class:`~simcli.engine.state.DealState` so that a
rollout follows exactly the same rules and validation as a real game:

* :func:`seen_counts` — the cards a seat has seen, by rank (from :mod:`simcli.engine.worlds`).
* :func:`sample_world` — a full deal state consistent with that and with every public count, the unseen cards
  dealt at random among the hidden places (from :mod:`simcli.engine.worlds`, which sits below the view and the engine
  so that :meth:`simcli.engine.view.PlayerView.sample_world` needs nothing above it).
* :func:`rollout` — play a (sampled or cloned) state from the current player's pending decision to the
  end of the deal (or for a number of turns) with given strategies, the first decision forced
  (:class:`Forced`), and score it.

This half sits above the engine (it plays deals); the information set below it. Everything is plain lists, so a
clone costs tens of microseconds and a Classic rollout about a millisecond.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.deal import Deal, DealResult
from simcli.engine.state import DealState
from simcli.engine.strategy_base import Strategy
from simcli.engine.view import PlayerView
from simcli.engine.worlds import (
    HiddenPlace,
    clone,
    hidden_places,
    rank_totals,
    sample_world,
    seen_counts,
    unseen_counts,
)
from simcli.players.seats import AskingPassThrough

__all__ = [
    "PHASES", "Forced", "HiddenPlace", "clone", "cut_view", "hidden_places", "margin", "rank_totals", "rollout",
    "sample_world", "seen_counts", "true_state", "unseen_counts",
]

#: The decision points a rollout can resume from (see :meth:`simcli.engine.deal.Deal.resume`).
PHASES = ("draw", "melds", "discard")


class Forced(AskingPassThrough):
    """Plays ``decision`` at the first ``phase`` decision of a rollout, then defers to ``policy`` (``inner``: its
    yes/no answers are the policy's throughout)."""

    name = "forced"

    def __init__(self, policy: Strategy, phase: str, decision: Any):
        super().__init__(policy)
        self.phase = phase
        self.decision = decision
        self.pending = True
        #: The deal's seats (its ``strategies``) and this one's seat, when :func:`rollout` sets them: once the
        #: forced decision is made, the policy takes the seat itself, so that the rest of the rollout calls it
        #: directly (a compiled heuristic then runs without this interpreted wrapper in between).
        self.seats: list[Any] | None = None
        self.seat = -1

    def _take(self, phase: str) -> bool:
        if self.pending and phase == self.phase:
            self.pending = False
            if self.seats is not None:
                self.seats[self.seat] = self.inner
            return True
        return False

    def choose_draw(self, view: Any) -> Any:
        """The forced draw, then the policy's."""
        return self.decision if self._take("draw") else self.inner.choose_draw(view)

    def choose_melds(self, view: Any) -> Any:
        """The forced melds, then the policy's."""
        return self.decision if self._take("melds") else self.inner.choose_melds(view)

    def choose_discard(self, view: Any) -> Any:
        """The forced discard, then the policy's."""
        return self.decision if self._take("discard") else self.inner.choose_discard(view)


def rollout(world: DealState, phase: str, decision: Any, policies: Sequence[Strategy],
            max_turns: int = 0) -> DealResult:
    """Play ``world`` from the current player's pending ``phase`` decision, which is ``decision``, to the
    end of the deal, every seat then played by ``policies[seat]``; return the scored deal.

    With ``max_turns`` (0: no limit), the rollout stops once the decision's turn and that many further turns
    (of any seat) are played; a deal still on is then scored as if it ended there with nobody going out (the
    result's ``end_reason`` is ``"horizon"``). ``world`` is played in place: pass a :func:`clone` to keep it.
    """
    seat = world.current
    players = list(policies)
    forced = players[seat] = Forced(policies[seat], phase, decision)
    deal = Deal(world, players)
    forced.seats, forced.seat = deal.strategies, seat  # it hands the seat to its policy once it has played
    return deal.resume(phase, max_turns)


def cut_view(world: DealState, policies: Sequence[Strategy]) -> PlayerView | None:
    """The view of the seat to move next in ``world``, a rollout :func:`rollout` cut at its horizon (the deal still
    on): that seat's turn started there as the turn loop starts one (with ``policies`` in the seats), so the view is
    the one it would draw with; ``None`` if the turn's start ended the deal. ``world`` is changed in place.
    A search's world is a sampled one, so the view holds that world's cards, never the real game's hidden ones: a
    leaf evaluator reading it stays fair."""
    seat = (world.current + world.step) % world.n_players
    world.end_reason = None  # the horizon's mark: the deal goes on from here
    world.turn += 1  # as the turn loop (Deal._turns_from) starts a turn
    deal = Deal(world, list(policies))
    deal.ctx.turn = world.turn
    deal._start_turn(seat)  # the per-turn state and the variant's start-of-turn steps (deal.py is at its size limit)
    if world.end_reason is not None:
        return None
    return PlayerView(world, seat)


def true_state(view: PlayerView) -> DealState:
    """The true deal state behind ``view``: every hidden card and the stock order. Cheating by design, for the
    ``oracle`` ceiling (what hidden information is worth) and for tests; a fair strategy uses
    :meth:`~simcli.engine.view.PlayerView.sample_world`. It lives here, not on the view, so that the view's API stays
    what a player may know."""
    return view._st


def margin(result: DealResult, team: int) -> int:
    """A team's deal score minus the best other team's."""
    # A loop, not a generator: the compiled build makes an object of every generator, and every rollout ends here.
    scores = result.scores
    own = 0
    best: int | None = None
    for i in range(len(scores)):
        t: int = scores[i]["total"]
        if i == team:
            own = t
        elif best is None or t > best:
            best = t
    assert best is not None, "a deal has at least two teams"
    return own - best
