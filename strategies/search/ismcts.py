"""``ismcts``: single-observer information-set Monte Carlo tree search on the forward model.

The searching player keeps a tree over its *own* decisions (Cowling, Powley & Whitehouse 2012, SO-ISMCTS).
Each iteration samples one world consistent with what the player has seen
(:meth:`~simcli.engine.view.PlayerView.sample_world`, the seat's own stream), then walks the tree in that world: at each
of the player's decisions within the tree's depth it picks among the candidate actions by UCB1, the other
seats playing the rollout policy (the variant's best heuristic, as in ``mc``). The first action never tried at its
node is expanded; from there the rollout policy plays every seat to the end of the deal, and the deal margin
(own team's score minus the best other team's, :func:`simcli.players.forward.margin`) is backed up along the path.

* **Nodes** are information sets of the player: a node's children are keyed by what the player sees at its
  next decision (:func:`info_key`: the phase, its hand, every hand size, both teams' melds, the pile's top and
  size, the stock size, the bonus threes...), below the action that led there. So a stock draw that brings
  different cards in different worlds leads to different meld nodes. The key reads the view only, so the tree
  cannot learn anything the player may not see; it is coarser than the exact information set only in the
  discards covered since the root (the view shows the pile's top and size, not the cards below).
* **Candidates** at every node are ``mc``'s (the heuristic's own options, its own choice first): they differ
  from world to world below the root, so a node counts, per action, how often it was *available* and UCB uses
  that count in place of the parent's visits (the ISMCTS availability count).
* **Values** are raw margins; UCB normalises the mean of each action by the range (max - min) of the margins
  backed up so far in this decision's search, so one exploration constant ``c`` suits every variant, whose
  margins differ in size by a factor of several.
* **The choice** at the root is the most visited action, the heuristic's choice winning ties; and, as in
  ``mc`` (the winner's curse: docs/strategies.md), the heuristic's choice is kept unless the chosen action's mean
  margin beats it by ``confidence`` standard errors of the difference (unpaired: each iteration has its own world).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from simcli.engine.strategy_base import Strategy
from simcli.engine.view import PlayerView
from simcli.players.forward import clone, margin, rollout, true_state
from simcli.players.search_record import Weighed
from simcli.players.seats import AskingPassThrough

from .mc import MonteCarlo, mean_and_error

#: A decision's phase, as :func:`simcli.players.forward.rollout` names it.
PHASES = ("draw", "melds", "discard")


def action_key(action: Any) -> Hashable:
    """A hashable key of a decision: meld plans are lists (a tuple of the melds), the rest are hashable already."""
    return tuple(action) if isinstance(action, list) else action


def info_key(view: PlayerView, phase: str) -> Hashable:
    """What the player sees at a ``phase`` decision, as a hashable key (the view's public answers only)."""
    teams = range(view.n_teams)
    return (phase, view.turn, view.hand, view.hand_sizes, view.pile_top, view.pile_size, view.pile_frozen,
            view.stock_size, view.red_threes, view.black_threes, view.opened, view.drew_from_stock,
            view.partner_permission, view.wings_left, view.pony_picked,
            tuple(view.meld_table(t) for t in teams), tuple(view.closed_canastas(t) for t in teams))


class Edge:
    """An action at a node: its visits, summed margins (and squares), availability count and child nodes."""

    __slots__ = ("action", "visits", "total", "total2", "avail", "children")

    def __init__(self, action: Any) -> None:
        self.action = action
        self.visits = 0
        self.total = 0.0
        self.total2 = 0.0
        #: How many of the node's visits offered this action (the parent count of its UCB term).
        self.avail = 0
        #: The player's next information sets after this action, by :func:`info_key`.
        self.children: dict[Hashable, Node] = {}

    def mean(self) -> float:
        """The mean margin backed up through this action (0 before any visit)."""
        return self.total / self.visits if self.visits else 0.0

    def variance(self) -> float:
        """The sample variance of those margins (0 with fewer than two)."""
        if self.visits < 2:
            return 0.0
        m = self.total / self.visits
        return max(self.total2 - self.visits * m * m, 0.0) / (self.visits - 1)


class Bounds:
    """The smallest and largest margin backed up in one search (UCB's normalisation)."""

    __slots__ = ("lo", "hi")

    def __init__(self) -> None:
        self.lo = math.inf
        self.hi = -math.inf

    def add(self, value: float) -> None:
        """Widen the range to include ``value``."""
        self.lo = min(self.lo, value)
        self.hi = max(self.hi, value)

    def scale(self, value: float) -> float:
        """``value`` mapped to [0, 1] over the range seen (0.5 while the range is empty or a point)."""
        if self.hi <= self.lo:
            return 0.5
        return (value - self.lo) / (self.hi - self.lo)


class Node:
    """An information set of the searching player: one :class:`Edge` per action ever offered there."""

    __slots__ = ("edges",)

    def __init__(self) -> None:
        self.edges: dict[Hashable, Edge] = {}

    def select(self, actions: Sequence[Any], c: float, bounds: Bounds) -> Edge:
        """The edge to follow among ``actions`` (those available in this world, the heuristic's first).

        Every offered action's availability count goes up by one. An offered action never tried is taken first
        (in the given order, so the heuristic's choice is tried first); otherwise the best UCB1 score, the mean
        normalised by ``bounds`` plus ``c * sqrt(ln(avail) / visits)``; ties go to the earlier action.
        """
        offered: list[Edge] = []
        for action in actions:
            key = action_key(action)
            edge = self.edges.get(key)
            if edge is None:
                edge = self.edges[key] = Edge(action)
            edge.avail += 1
            offered.append(edge)
        for edge in offered:
            if edge.visits == 0:
                return edge
        best = offered[0]
        best_score = -math.inf
        for edge in offered:
            score = bounds.scale(edge.mean()) + c * math.sqrt(math.log(edge.avail) / edge.visits)
            if score > best_score:
                best, best_score = edge, score
        return best


def backup(path: Sequence[Edge], value: float, bounds: Bounds) -> None:
    """Add one iteration's margin to every edge it went through, and to the search's range."""
    bounds.add(value)
    for edge in path:
        edge.visits += 1
        edge.total += value
        edge.total2 += value * value


def pick(edges: Sequence[Edge], confidence: float) -> int:
    """The index of the root action to play: the most visited (the first, the heuristic's choice, wins ties),
    unless its mean margin does not beat the first's by ``confidence`` standard errors of the difference."""
    best = max(range(len(edges)), key=lambda i: (edges[i].visits, -i))
    if best == 0:
        return 0
    b, h = edges[best], edges[0]
    if h.visits == 0 or b.mean() <= h.mean():
        return 0 if h.visits else best
    if confidence and b.visits > 1:
        # With a single visit of the heuristic's choice its variance is unknown: take the other's.
        var_h = h.variance() if h.visits > 1 else b.variance()
        se = math.sqrt(b.variance() / b.visits + var_h / h.visits)
        if b.mean() - h.mean() < confidence * se:
            return 0
    return best


class _Walker(AskingPassThrough):
    """The searching seat inside one iteration's rollout: the tree's choices while in the tree, then the policy.

    The root decision is forced by :func:`simcli.players.forward.rollout`; every later decision of the seat in the first
    ``depth`` turns of the search (the current one counts) descends the tree, until an action is expanded.
    """

    name = "ismcts-walker"

    def __init__(self, search: Ismcts, policy: Strategy, edge: Edge, turn: int, path: list[Edge]) -> None:
        super().__init__(policy)  # its yes/no answers are the policy's (as :class:`simcli.players.forward.Forced`'s)
        self.search = search
        self.edge: Edge | None = edge  # the edge last taken (None once out of the tree)
        self.turn = turn
        self.turns = 1  # the player's turns the walk has reached, the root's included
        self.path = path

    def _descend(self, view: PlayerView, phase: str, own: Any) -> Any:
        """The tree's choice at this decision, or the policy's own (``own``) once out of the tree or too deep."""
        if self.edge is None:
            return own
        if view.turn != self.turn:
            self.turn = view.turn
            self.turns += 1
        if self.turns > self.search.depth:
            self.edge = None
            return own
        candidates = self.search.candidates(view, phase, own)
        if len(candidates) == 1:
            return own  # a forced move is no node: it tells nothing
        key = info_key(view, phase)
        node = self.edge.children.get(key)
        if node is None:
            node = self.edge.children[key] = Node()
        edge = node.select(candidates, self.search.c, self.search.bounds)
        self.path.append(edge)
        self.edge = edge if edge.visits else None  # an action never tried is the expansion: leave the tree
        return edge.action

    def choose_draw(self, view: PlayerView) -> Any:
        """The tree's draw, or the policy's."""
        return self._descend(view, "draw", self.inner.choose_draw(view))

    def choose_melds(self, view: PlayerView) -> Any:
        """The tree's melds, or the policy's."""
        return self._descend(view, "melds", self.inner.choose_melds(view))

    def choose_discard(self, view: PlayerView) -> Any:
        """The tree's discard, or the policy's."""
        return self._descend(view, "discard", self.inner.choose_discard(view))


class Ismcts(MonteCarlo):
    """Information-set MCTS over the player's own decisions, with ``mc``'s candidates and rollout policy.

    Options (``--strategies ismcts:iterations=64,c=0.7``):

    * ``iterations`` — iterations (sampled worlds, one rollout each) per decision; 0: no limit (then ``seconds``).
    * ``seconds`` — CPU seconds (``time.process_time``) per decision, 0: none. When set, a decision stops once the
      time is used (after at least 2 iterations), so play then depends on the machine's speed and load.
    * ``c`` — the UCB1 exploration constant (on means normalised to [0, 1]).
    * ``depth`` — the player's turns the tree covers, the current one included (1: this turn's decisions).
    * ``confidence`` — the heuristic's choice is kept unless the most visited action's mean margin beats it by at
      least this many standard errors (0: the most visited wins).
    * ``rollout``, ``melds``, ``discards`` — as for ``mc``.
    """

    name = "ismcts"

    def __init__(self, rng: np.random.Generator, *, iterations: int = 128, seconds: float = 0.0, c: float = 0.7,
                 depth: int = 2, confidence: float = 1.0, rollout: str = "auto", melds: int = 3,
                 discards: int = 0):
        super().__init__(rng, rollout=rollout, melds=melds, discards=discards, confidence=confidence)
        if iterations < 0 or seconds < 0 or (iterations == 0 and seconds == 0):
            raise ValueError(f"iterations and seconds must be >= 0 and not both 0 (got iterations={iterations}, "
                             f"seconds={seconds})")
        if c < 0 or depth < 1:
            raise ValueError(f"c must be >= 0 and depth >= 1 (got c={c}, depth={depth})")
        self.iterations = int(iterations)
        self.seconds = float(seconds)
        self.c = float(c)
        self.depth = int(depth)
        self.bounds = Bounds()
        #: The root's edges of the last search (tests and measurements read them).
        self.last_root: list[Edge] = []

    # ------------------------------------------------------------- decisions
    def choose_draw(self, view: PlayerView) -> Any:
        """The search's draw among the stock and the legal pile takes."""
        own = self._policy(view)[view.seat].choose_draw(view)
        return self._tree_search(view, "draw", self.candidates(view, "draw", own))

    def choose_melds(self, view: PlayerView) -> Any:
        """The search's meld plan among a few."""
        own = self._policy(view)[view.seat].choose_melds(view)
        return self._tree_search(view, "melds", self.candidates(view, "melds", own))

    def choose_discard(self, view: PlayerView) -> int | None:
        """The search's discard among the distinct legal ones."""
        own = self._policy(view)[view.seat].choose_discard(view)
        return self._tree_search(view, "discard", self.candidates(view, "discard", own))

    def candidates(self, view: PlayerView, phase: str, own: Any) -> list[Any]:
        """``mc``'s candidates at a ``phase`` decision whose heuristic choice is ``own`` (it comes first)."""
        if phase == "draw":
            return self._draw_candidates(view, own)
        if phase == "melds":
            return self._meld_candidates(view, own)
        legal = [r for r in view.legal_discards() if r != own]
        if self.max_discards:
            legal = legal[:self.max_discards - 1]
        return [own] + legal

    # ---------------------------------------------------------------- search
    def _tree_search(self, view: PlayerView, phase: str, candidates: list[Any]) -> Any:
        """Run the iterations from this decision and return the chosen candidate."""
        if len(candidates) == 1 or view.special_hand_laid:  # a special hand ends the deal
            self.last_root = []
            self.last_search = Weighed.only(candidates[0])
            return candidates[0]
        self.searches += 1
        policies = self._policy(view)
        seat, team, turn = view.seat, view.team, view.turn
        root = Node()
        self.bounds = Bounds()
        start = time.process_time()
        done = 0
        while True:
            # ``cheat`` (inherited from mc, False here) searches the true state: for the no-leak test's power only.
            world = clone(true_state(view)) if self.cheat else view.sample_world(self.rng)
            edge = root.select(candidates, self.c, self.bounds)
            path = [edge]
            seats = list(policies)
            if edge.visits:  # an action tried before: the walk goes on in the tree below it
                seats[seat] = _Walker(self, policies[seat], edge, turn, path)
            value = margin(rollout(world, phase, edge.action, seats), team)
            backup(path, value, self.bounds)
            self.rollouts += 1
            done += 1
            if self.iterations and done >= self.iterations:
                break
            if self.seconds and done >= 2 and time.process_time() - start > self.seconds:
                break
        self.last_root = edges = [root.edges[action_key(a)] for a in candidates]
        chosen = pick(edges, self.confidence)
        values = [mean_and_error(e.total, e.total2, e.visits) for e in edges]
        none: list[float | None] = [None] * len(edges)
        self.last_search = Weighed(candidates, chosen, done, [e.visits for e in edges], [m for m, _ in values],
                                   [x for _, x in values], none, none)
        return candidates[chosen]


def run_tree(actions: Callable[[int], Sequence[Any]], value: Callable[[int, Any], float], iterations: int,
             c: float) -> Node:
    """A one-level search on a stubbed evaluator (for tests and for tuning ``c``): at iteration ``i`` the
    actions ``actions(i)`` are offered, the selected one is scored ``value(i, action)`` and backed up."""
    root, bounds = Node(), Bounds()
    for i in range(iterations):
        edge = root.select(actions(i), c, bounds)
        backup([edge], value(i, edge.action), bounds)
    return root


STRATEGY = Ismcts
