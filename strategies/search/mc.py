"""``mc``: determinized Monte Carlo search on the forward model; ``oracle``: the same search seeing every card.

At each draw, meld and discard decision with more than one candidate, ``mc`` samples ``samples`` worlds
consistent with what its player has seen (:func:`simcli.players.forward.sample_world`), plays every candidate in
every world to the end of the deal (or for ``horizon`` turns) with the variant's best heuristic in every seat
(the rollout policy), and picks the candidate with the best mean of (own team's deal score minus the best other
team's). Every candidate is played in the same worlds (common random numbers), and the rollout policy is
deterministic, so the differences between candidates are not blurred by different cards.

Deal margins are noisy (a few worlds, a dozen candidates), and the best of many noisy means is usually just the
luckiest (the winner's curse): picking it outright plays no better than the heuristic (docs/strategies.md). So the
search leaves the heuristic's own choice only for a candidate whose mean gain over it, world by world, is at least
``confidence`` standard errors of that gain.

The candidates race (``race``, ``drop``, ``halve``): every few worlds, the challengers that are not clear of the
heuristic's choice (and, with halving, the worse half of them) stop being played, and the search ends when none
is left; the heuristic's choice is never dropped. Most candidates are clearly behind it after a few worlds, so
this saves most rollouts. ``race=0``, the default, is the flat search (every candidate in every world,
:data:`FLAT_SEARCH`): racing (:data:`RACING`) costs 0.43x its CPU but lost to it in Spanish.

Candidates are the heuristic's own options: the stock and each legal take of the pile (the kinds of take
the heuristic considers); the heuristic's meld plan, nothing, its plan without wild cards and its plan
without new melds; each distinct legal discard. The heuristic's own choice comes first and wins ties.

With ``horizon`` and ``leaf``, a rollout still on at its horizon is scored by a model of absolute values instead of
as it stands (:mod:`simcli.strategies.search.mc_leaf`).

``oracle`` (:mod:`.oracle`) runs the same search on the true state (the real hidden hands, ponies, wings and stock
order): one rollout per candidate tells exactly what follows under the rollout policy. It cheats, so it
is only for measuring what hidden information is worth; it never runs unless asked for by name.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from simcli.engine.strategy_base import Strategy
from simcli.engine.view import PlayerView
from simcli.players.asking import HeuristicHooks
from simcli.players.best_heuristic import best_heuristic
from simcli.players.forward import clone, margin, rollout, true_state
from simcli.players.loading import load_strategy
from simcli.players.search_record import Weighed
from simcli.primitives.cards import BLACK_THREE, CARD_VALUES, NATURAL_RANKS
from simcli.rules.ruleset import RuleSet

from ..heuristics.greedy import keep_score
from .candidates import discard_candidates, draw_candidates, meld_candidates
from .inference import inferred_worlds
from .mc_leaf import leaf_option
from .opponent_model import OPPONENTS, OpponentModel, fitted_model, lay_melded

#: Today's default search, the flat search (every candidate in all 16 worlds), named explicitly for matches.
FLAT_SEARCH = "mc:race=0"
#: The racing search measured in issue 23 (about 0.43x the flat search's CPU a game). Not the default: it lost
#: to the flat search in Spanish (results/studies/mc-cost/README.md).
RACING = "mc:race=4,drop=-0.25,halve=true"


def mean_and_error(total: float, total2: float, n: int) -> tuple[float | None, float | None]:
    """The mean of ``n`` values from their sum and sum of squares, and its standard error (``None`` under 2)."""
    if n < 1:
        return None, None
    mean = total / n
    if n < 2:
        return mean, None
    return mean, math.sqrt(max(total2 - n * mean * mean, 0.0) / (n - 1) / n)


class MonteCarlo(HeuristicHooks, Strategy):
    """Determinized Monte Carlo search: each candidate scored by rollouts in sampled worlds.

    Options (``--strategies mc:samples=16,rollout=greedy``):

    * ``samples`` — worlds sampled per decision (all candidates are played in each).
    * ``rollout`` — the policy of every seat in rollouts: a strategy name, or ``auto`` for the
      variant's best heuristic (classic greedy, ponytail ponytail, americana americana, spanish spanish,
      handfoot handfoot).
    * ``melds`` — at most this many meld plans are compared (the heuristic's first).
    * ``discards`` — at most this many discards are compared (0: every distinct legal discard): the heuristic's
      and those :func:`discard_prior` rates most disposable.
    * ``budget`` — seconds per decision (0: none). When set, a decision stops sampling once the
      time is used (after at least 2 worlds), so play then depends on the machine's speed.
    * ``confidence`` — the heuristic's choice is kept unless the best other candidate's mean gain over
      it (paired over the same worlds) is at least this many standard errors; 0: the best mean wins.
      With a single world (``samples=1``, ``oracle``) the best mean wins.
    * ``race`` — worlds between two cuts of the challengers (every candidate but the heuristic's choice);
      0 (the default): no racing, every candidate in every world (the flat search, :data:`FLAT_SEARCH`).
    * ``drop`` — at a cut, a challenger stays only while its mean gain over the heuristic's choice plus
      ``drop`` standard errors is above 0 (negative: it must lead by that many errors).
    * ``halve`` — at a cut, at most half of the challengers (rounded up, the best mean gains) stay.
    * ``horizon`` — turns a rollout plays after the decision's own turn (of any seat) before it stops; a deal
      still on is then scored as it stands, as if it ended there with nobody going out (melds, canasta
      bonuses and threes on the table, minus the cards in hand). 0 (the default): to the end of the deal.
    * ``infer`` — inference in the sampler (:mod:`simcli.strategies.search.inference`): the temperature of the soft
      opponent model, in keep-score points (``noise``: the share of decisions it leaves unexplained); ``pool`` times
      ``samples`` worlds are weighed by how likely the other players' public decisions are in each, ``samples``
      drawn; 0 (the default): uniform worlds.
    * ``opponent`` — the opponent model of ``infer``: ``greedy`` (the default: greedy's rules made soft, ``infer``
      its temperature in keep-score points) or ``mc`` (the model fitted to today's ``mc`` in the variant,
      models/opponents.json; ``infer`` divides its logits); ``older``: every discard weighed, not only the last.
    * ``leaf`` — a model file of absolute values that scores a rollout cut at its ``horizon`` (which it needs),
      :mod:`simcli.strategies.search.mc_leaf`; empty (the default): as it stands.
    * ``melded`` — no other player holds naturals of its team's open melds in the sampled worlds
      (:func:`simcli.strategies.search.opponent_model.lay_melded`); false (the default): the sampler's worlds as
      they come."""

    name = "mc"
    #: Whether the search sees the true hidden cards (``oracle``).
    cheat = False

    def __init__(self, rng: np.random.Generator, *, samples: int = 16, rollout: str = "auto", melds: int = 3,
                 discards: int = 0, budget: float = 0.0, confidence: float = 1.0, race: int = 0,
                 drop: float = -0.25, halve: bool = True, horizon: int = 0, infer: float = 0.0, pool: int = 4,
                 noise: float = 0.0, leaf: str = "", opponent: str = "greedy", older: bool = False,
                 melded: bool = False):
        super().__init__(rng)
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        if melds < 1 or discards < 0 or budget < 0 or confidence < 0:
            raise ValueError(f"melds must be >= 1, discards, budget and confidence >= 0 "
                             f"(got {melds}, {discards}, {budget}, {confidence})")
        if race < 0 or race != int(race):
            raise ValueError(f"race must be a whole number of worlds >= 0 (0: no racing), got {race}")
        if (isinstance(horizon, bool) or not isinstance(horizon, (int, float)) or not math.isfinite(horizon)
                or horizon < 0 or horizon != int(horizon)):  # a bool is an int: true is no number of turns
            raise ValueError(f"horizon must be a whole number of turns >= 0 (0: to the end of the deal), "
                             f"got {horizon!r}")
        if not (math.isfinite(infer) and infer >= 0 and pool >= 1 and 0 <= noise <= 1):
            raise ValueError(f"infer must be >= 0 (0: off), pool >= 1, noise in [0, 1]; got {infer}, {pool}, {noise}")
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {', '.join(OPPONENTS)}, got {opponent!r}")
        if not math.isfinite(drop):
            raise ValueError(f"drop must be a finite number of standard errors, got {drop}")
        if not isinstance(halve, (bool, int)):  # bool("false") is True: a string here is a caller's mistake
            raise ValueError(f"halve must be true or false, got {halve!r}")
        if not isinstance(melded, (bool, int)):
            raise ValueError(f"melded must be true or false, got {melded!r}")
        self.leaf = leaf_option(leaf, horizon)
        if rollout != "auto":
            policy = load_strategy(str(rollout))  # a bad name fails here, naming what is allowed
            if issubclass(policy, MonteCarlo):
                raise ValueError(f"rollout must be a heuristic strategy, not the search player '{rollout}'")
        self.samples = int(samples)
        self.rollout_name = str(rollout)
        self.max_melds = int(melds)
        self.max_discards = int(discards)
        self.budget = float(budget)
        self.confidence = float(confidence)
        self.race, self.drop, self.halve, self.horizon = int(race), float(drop), bool(halve), int(horizon)
        self.infer, self.pool, self.noise = float(infer), int(pool), float(noise)
        self.reads_history = self.infer > 0  # the engine records the table's history for inference
        self.opponent, self.older = str(opponent), bool(older)
        self.melded = bool(melded)
        self._rules: RuleSet | None = None
        self._policies: list[Strategy] = []
        #: Decisions searched and rollouts played (for measurements).
        self.searches = 0
        self.rollouts = 0
        #: What the last decision weighed: its candidates and their values (a hint at the table, ``simcli play
        #: --human``, and ``simcli play --search-values`` show it). Only recorded, never read by the search.
        self.last_search: Weighed = Weighed([], 0, 0, [], [], [], [], [])

    def _cut_margin(self, world: Any, phase: str, candidate: Any, policies: list[Strategy], team: int) -> float:
        """A rollout's margin for ``team`` (played on a clone of ``world``), scored by the leaf model if it stopped
        at the horizon (:class:`simcli.strategies.search.mc_leaf.Leaf`)."""
        cut = clone(world)
        result = rollout(cut, phase, candidate, policies, self.horizon)
        if result.end_reason == "horizon" and self.leaf is not None:
            value = self.leaf.value(cut, team, policies)
            if value is not None:
                return value
        return margin(result, team)

    # ---------------------------------------------------------------- policy
    def _policy(self, view: PlayerView) -> list[Strategy]:
        """The rollout policy, one instance per seat (built once per rule set)."""
        rules = view.rules
        if rules is not self._rules:
            name = self.rollout_name
            if name == "auto":
                name = best_heuristic(rules.variant)
            cls = load_strategy(name)
            # Heuristics draw no random numbers, but give each its own stream in case a policy does.
            seeds = np.random.SeedSequence(int(self.rng.integers(1 << 32))).spawn(rules.num_players)
            self._policies = [cls(np.random.default_rng(s)) for s in seeds]
            self._rules = rules
        return self._policies

    # ------------------------------------------------------------- decisions
    def choose_draw(self, view: PlayerView) -> Any:
        """The best of the stock and the legal pile takes."""
        own = self._policy(view)[view.seat].choose_draw(view)
        return self._search(view, "draw", self._draw_candidates(view, own))

    def choose_melds(self, view: PlayerView) -> Any:
        """The best of a few meld plans."""
        own = self._policy(view)[view.seat].choose_melds(view)
        return self._search(view, "melds", self._meld_candidates(view, own))

    def choose_discard(self, view: PlayerView) -> int | None:
        """The best distinct legal discard."""
        own = self._policy(view)[view.seat].choose_discard(view)
        return self._search(view, "discard", self._discard_candidates(view, own))

    def heuristic_of(self, view: PlayerView) -> Strategy:
        """The rollout policy of ``view``'s seat, whose yes/no hooks this player's are (:class:`HeuristicHooks`)."""
        return self._policy(view)[view.seat]

    # ------------------------------------------------------------ candidates
    @staticmethod
    def _draw_candidates(view: PlayerView, own: Any) -> list[Any]:
        """The heuristic's draw, the stock, and each legal take of the kinds a heuristic makes
        (:func:`simcli.strategies.search.candidates.draw_candidates`)."""
        return draw_candidates(view, own)

    def _discard_candidates(self, view: PlayerView, own: int | None) -> list[int | None]:
        """The heuristic's discard, then each other distinct legal discard (at most ``discards`` in all: then
        the others are those :func:`discard_prior` rates most disposable)."""
        if not self.max_discards:
            return discard_candidates(view, own)
        legal: list[int | None] = [r for r in view.legal_discards() if r != own]
        if len(legal) > self.max_discards - 1:
            prior = discard_prior(view)
            legal = sorted(legal, key=lambda r: (prior[r] if r is not None else 1 << 30, r or 0))
        return [own] + legal[:self.max_discards - 1]

    def _meld_candidates(self, view: PlayerView, own: Sequence[Any]) -> list[Any]:
        """The heuristic's plan, nothing, the plan without wild cards and the plan without new melds (at most
        ``melds``; :func:`simcli.strategies.search.candidates.meld_candidates`)."""
        return meld_candidates(view, own, self.max_melds)

    def _opponent_model(self, view: PlayerView) -> OpponentModel | float:
        """How inference reads the other players: greedy made soft at temperature ``infer``, or (``opponent=mc``)
        the model fitted to today's ``mc`` in the variant with its discard logits divided by ``infer``."""
        return fitted_model(view.rules.variant).scaled(self.infer) if self.opponent == "mc" else self.infer

    # ---------------------------------------------------------------- search
    def _worlds(self, view: PlayerView) -> Any:
        """The worlds to search: samples of the information set (``oracle``: the true state)."""
        if self.cheat:
            yield true_state(view)  # cheating by design: the true state
            return
        if self.infer:
            for world in inferred_worlds(view, self.samples, self.pool, self._opponent_model(view), self.noise,
                                         self.rng, self.older):
                if self.melded:
                    lay_melded(world, view.seat, self.rng)
                yield world
            return
        for _ in range(self.samples):
            world = view.sample_world(self.rng)
            world.history = None  # no record of the table in rollouts: their heuristics do not read it
            if self.melded:
                lay_melded(world, view.seat, self.rng)
            yield world

    def _search(self, view: PlayerView, phase: str, candidates: list[Any]) -> Any:
        """The candidate with the best mean rollout margin over the same worlds, if it beats the first.

        The first candidate (the heuristic's choice) wins ties, and is kept unless the best other one's
        mean gain over it is at least ``confidence`` standard errors of the per-world gain. With ``race``,
        the challengers race: after every ``race`` worlds those :meth:`_survivors` drops stop being played
        (the first candidate, the incumbent, always is), and the search stops when none is left.
        """
        if len(candidates) == 1 or view.special_hand_laid:  # a special hand ends the deal
            self.last_search = Weighed.only(candidates[0])
            return candidates[0]
        self.searches += 1
        policies = self._policy(view)
        team = view.team
        n = len(candidates)
        gain = [0.0] * n  # per candidate: sum over worlds of (its margin - the first candidate's)
        gain2 = [0.0] * n  # and of its square
        total = [0.0] * n  # per candidate: sum of its margins, of their squares, and its worlds (for last_search)
        total2 = [0.0] * n
        played = [0] * n
        alive = list(range(1, n))  # the challengers still played (all of them without racing)
        worlds = 0
        horizon = self.horizon
        start = time.perf_counter()
        leaf = self.leaf is not None
        for k, world in enumerate(self._worlds(view)):
            if leaf:
                first = self._cut_margin(world, phase, candidates[0], policies, team)
            else:
                first = margin(rollout(clone(world), phase, candidates[0], policies, horizon), team)
            total[0] += first
            total2[0] += first * first
            for i in alive:
                if leaf:
                    m = self._cut_margin(world, phase, candidates[i], policies, team)
                else:
                    m = margin(rollout(clone(world), phase, candidates[i], policies, horizon), team)
                d = m - first
                gain[i] += d
                gain2[i] += d * d
                total[i] += m
                total2[i] += m * m
                played[i] += 1
            self.rollouts += 1 + len(alive)
            worlds += 1
            if self.budget and k >= 1 and time.perf_counter() - start > self.budget:
                break
            if self.race and worlds % self.race == 0:
                alive = self._survivors(alive, gain, gain2, worlds)
                if not alive:  # no challenger can still displace the incumbent: more worlds change nothing
                    break
        # A dropped challenger's sums cover fewer worlds than the survivors': it must not be picked.
        final = [gain[i] if i == 0 or i in alive else -math.inf for i in range(n)]
        chosen = self._pick(final, gain2, worlds)
        played[0] = worlds
        values = [mean_and_error(total[i], total2[i], played[i]) for i in range(n)]
        gains = [mean_and_error(gain[i], gain2[i], played[i]) if i else (0.0, None) for i in range(n)]
        self.last_search = Weighed(candidates, chosen, worlds, played, [m for m, _ in values], [e for _, e in values],
                                   [g for g, _ in gains], [e for _, e in gains])
        return candidates[chosen]

    def _survivors(self, alive: list[int], gain: list[float], gain2: list[float], worlds: int) -> list[int]:
        """The challengers that stay in the race after ``worlds`` worlds (in their order).

        A challenger stays while its mean gain over the incumbent plus ``drop`` standard errors is above 0:
        the final pick needs a positive mean gain at least ``confidence`` errors clear, and a challenger
        behind the incumbent by more than ``drop`` errors rarely gets there (a negative ``drop`` demands a
        lead of that many errors). With ``halve``, at most half of them (rounded up) stay, the best means
        (sequential halving). Few worlds give a rough error, so the first cut should come after a few.
        """
        keep = []
        for i in alive:
            mean = gain[i] / worlds
            var = max(gain2[i] - worlds * mean * mean, 0.0) / (worlds - 1) if worlds > 1 else 0.0
            if mean + self.drop * math.sqrt(var / worlds) > 0:
                keep.append(i)
        if self.halve and len(keep) > (len(alive) + 1) // 2:
            best = sorted(keep, key=lambda i: (-gain[i], i))[:(len(alive) + 1) // 2]
            keep = [i for i in keep if i in best]
        return keep

    def _pick(self, gain: list[float], gain2: list[float], worlds: int) -> int:
        """The index chosen from the summed gains over the first candidate (and their squares) in ``worlds``."""
        best = max(range(len(gain)), key=lambda i: (gain[i], -i))  # the first wins ties (its gain is 0)
        if best == 0 or gain[best] <= 0:
            return 0
        if self.confidence and worlds > 1:
            mean = gain[best] / worlds
            var = max(gain2[best] - worlds * mean * mean, 0.0) / (worlds - 1)
            if mean * mean * worlds < self.confidence ** 2 * var:  # mean < confidence * sd / sqrt(worlds)
                return 0
        return best


def discard_prior(view: PlayerView) -> list[int]:
    """How much each rank is worth keeping (lower: a likelier discard), greedy's rating for any variant.

    The black three first, then naturals as greedy rates them (:func:`simcli.strategies.heuristics.greedy.keep_score`:
    point value, copies in hand, melds of the rank on the table), wild cards last: a cheap prior that picks which
    discards a search with ``discards`` set compares, not a decision.
    """
    hand = view.hand
    own = view.meld_table()
    others = [view.meld_table(t) for t in range(view.n_teams) if t != view.team]
    out = [10_000 + CARD_VALUES[r] for r in range(len(hand))]
    out[BLACK_THREE] = -1
    for r in NATURAL_RANKS:
        out[r] = keep_score(r, hand[r], own, others)
    return out


STRATEGY = MonteCarlo

