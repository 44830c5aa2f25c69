"""``mc``'s leaf evaluator (``mc:horizon=N,leaf=MODEL``, issue 31 item 5): a rollout cut at its horizon scored by a
model of absolute values instead of as it stands.

The model is the learnt player's (strategies/learnt/model.py: the same features, strategies/learnt/net_features.py, and
file format) fitted to the search's *absolute* values (``simcli train fit DATA OUT --target absolute``): each
candidate's mean deal margin for the deciding seat's team, so it rates a position, not only a decision's candidates
against each other. At a cut, the seat to move there starts its turn (:func:`simcli.players.forward.cut_view`) and the
model rates the rollout policy's draw for it, from that seat's view of the sampled world: what that seat could see
there, no hidden card of the world, and never one of the real game (the world is a sample of what the searching player
may know). The value is that seat's team's expected deal margin over the other team: the searching team's if it is the
same team, negated otherwise. A game of more than two teams is refused (a team's margin over the best other does not
give another team's).
"""

from __future__ import annotations

from typing import Any

from simcli.engine.state import DealState
from simcli.engine.strategy_base import Strategy
from simcli.players.forward import cut_view
from simcli.rules.ruleset import RuleSet

from ..learnt.model import Model, ModelError, load_model
from ..learnt.net_features import decision_bytes, decision_counts


class Leaf:
    """A leaf evaluator: a model of absolute values, checked against the rules of each game it scores."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._rules: RuleSet | None = None
        #: The play-time pass's buffer (:meth:`simcli.strategies.learnt.model.Model.play_buffer`) and the output layer's
        #: bias, which that pass leaves out (a constant of the model: a decision compares candidates) and a value needs.
        self._buffer = model.play_buffer()
        self._bias = float(model.layers[-1][1][0]) * model.y_scale

    def _check(self, rules: RuleSet, teams: int) -> None:
        """Refuse a game of other than two teams, or of rules other than the model's (one line each)."""
        if teams != 2:
            raise ValueError(f"mc's leaf needs a game of two teams (this one has {teams}): its model gives one "
                             f"team's margin over the best other, not every team's")
        refusal = self.model.refusal(rules)
        if refusal is not None:
            raise ValueError(refusal.replace("net's model", "mc's leaf model").replace(
                ", or play it anyway with net:any_rules=true", " (with --target absolute)"))
        self._rules = rules
        self._buffer = self.model.play_buffer(rules)  # a general model's rule features, folded in once a game

    def value(self, world: DealState, team: int, policies: list[Strategy]) -> float | None:
        """The model's value of ``world``, a rollout cut at its horizon, for ``team``: the value of the rollout
        policy's draw for the seat to move, as that seat sees the world (``None``: the deal ended there)."""
        view = cut_view(world, policies)
        if view is None:
            return None
        if view.rules is not self._rules:
            self._check(view.rules, view.n_teams)
        return self.rate(view, policies[view.seat].choose_draw(view), team)

    def rate(self, view: Any, draw: Any, team: int) -> float:
        """The model's value of ``view``'s seat drawing ``draw``, for ``team`` (that seat's team's, or negated): the
        learnt player's play-time pass over the row as counts (strategies/learnt/net_play.py), plus the output bias; the
        same as :meth:`simcli.strategies.learnt.model.Model.values` of the float row, up to rounding."""
        counts: Any = decision_bytes(view, "draw", [draw])
        if counts is None:  # a count over 255: the same counts as a list
            state, parts = decision_counts(view, "draw", [draw])
            counts = state + parts[0]
        value = self.model.values_of_counts(counts, 1, self._buffer)[0] + self._bias
        return value if view.team == team else -value


def leaf_option(leaf: Any, horizon: Any) -> Leaf | None:
    """``mc``'s ``leaf`` option as an evaluator (``None``: off), checked: a model file of absolute values (a missing
    or damaged one, or one of relative values, is refused in one line), with a horizon."""
    if leaf is None or leaf == "":
        return None
    if not isinstance(leaf, str) or leaf in ("true", "false", "auto"):
        raise ValueError(f"leaf must be the path of a model file of absolute values (simcli train fit DATA OUT "
                         f"--target absolute), got {leaf!r}")
    if not horizon:
        raise ValueError(f"leaf={leaf} scores a rollout cut at its horizon: set horizon to a number of turns >= 1 "
                         f"too (horizon=0 plays every rollout to the end of the deal)")
    model = load_model(leaf)  # a missing or damaged file: a one-line ModelError
    target = model.meta.get("target", "relative")
    if target != "absolute":
        raise ModelError(f"leaf model {leaf} was fitted to relative values (target {target}): a leaf needs absolute "
                         f"ones, simcli train fit DATA OUT --target absolute")
    return Leaf(model)
