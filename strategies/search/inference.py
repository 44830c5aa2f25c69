"""Inference in the sampler (``mc:infer=T``): worlds weighted by how likely the other players' public decisions are.

``mc`` deals the cards it has not seen uniformly among the hidden places. With inference it samples ``pool`` times
as many worlds, weighs each by the likelihood of what the other players were seen to do (``PlayerView.history``)
had they held that world's cards and played a soft version of the variant's heuristic, and importance-resamples
the search's worlds from them, distinct ones (Rebstock et al. 2019, policy-based inference).

The opponent model is greedy's own rules made soft (every variant's heuristic rates discards as greedy does,
:func:`simcli.strategies.heuristics.greedy.keep_score`, and takes the pile whenever it legally can):

* **Discards.** A player discards natural rank ``d`` with probability ``softmax(-keep_score / T)`` over the naturals
  it held. Only each other player's last discard is used: its hand then is exactly its hand in the world plus ``d``
  (nothing has left or entered it since). The meld tables are those of that moment, read from the history.
* **Piles passed by.** A player whose team had opened drew from the stock while the pile's top ``t`` was a natural it
  could have taken with a natural pair (no team meld of ``t``, or the pile frozen): the heuristic would have taken
  it with a pair, so the soft model passes with probability ``eps = 1 / (1 + exp(TAKE_MARGIN / T))`` holding one
  and 1 without. Its hand then is not known exactly in a world: the cards that entered it unseen since (stock draws,
  pony, wing) may be any of those it holds now or laid since, so the count of ``t`` it held is the count now plus
  those laid since less those taken from the pile since, less a hypergeometric number of the ``m`` unseen arrivals.
  Every pass of the deal is used.

A second opponent model (``mc:opponent=mc``), fitted to today's ``mc`` itself:
:mod:`simcli.strategies.search.opponent_model`.

Approximations, stated: a take needing one natural and a wild card, a pass the rules forced (the opening minimum,
a meld cap, discard bars) and the other players' own search are not modelled; the ranks a team had melded are
read from the history without the closed canastas set aside. The model's temperature and pool are options of
``mc``; without ``infer`` the sampler is today's, draw for draw.

The pool is cheap (:class:`HandPool`): the weights read only the other players' hands, so its worlds are drawn as
permutations of the unseen cards all at once (numpy), only their hands are counted and weighed (vectorized,
:func:`pool_log_likelihoods`), and a world is made whole (stock, ponies, wings, face-down pile cards) only when
it is drawn; the distribution is :func:`simcli.engine.worlds.sample_world`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.engine.worlds import clone, fill_hidden, hidden_places, three_positions, unseen_counts
from simcli.players.planning import penalized_ranks
from simcli.primitives.cards import CARD_VALUES, FOUR, JOKER, NUM_RANKS, TWO

from .opponent_model import DISCARD_FEATURES, TAKE_MARGIN, OpponentModel, fitted_model, opponent_model

__all__ = ["DISCARD_FEATURES", "TAKE_MARGIN", "HandPool", "OpponentModel", "SeenDiscard", "SeenPass",
           "fitted_model", "inferred_worlds", "log_likelihood", "observations", "pool_log_likelihoods"]

#: History kinds after which a player's hand is no longer what it was at its last discard.
_HAND_CHANGES = frozenset({"draw", "take", "melds", "special", "pony", "wing", "three"})
#: A world, or what stands for one (its index in a pool).
W = TypeVar("W")


@dataclass(frozen=True)
class SeenDiscard:
    """A player's last discard of natural ``card``; then ``own[r]`` was 1 if its team had a meld of rank ``r`` and
    ``opp[r]`` the number of other teams that had one."""

    seat: int
    card: int
    own: tuple[int, ...]
    opp: tuple[int, ...]

    @property
    def base(self) -> tuple[int, ...]:
        """Greedy's keep score of each rank then, less 10 a copy held
        (:func:`simcli.strategies.heuristics.greedy.keep_score`)."""
        return tuple(CARD_VALUES[r] + 200 * self.own[r] + 100 * self.opp[r] for r in range(NUM_RANKS))


@dataclass(frozen=True)
class SeenPass:
    """A pile of top ``top`` the player could have taken with a natural pair and passed by in turn ``turn``; since
    then (that draw included) ``out`` cards by rank left its hand, ``taken`` came in face up and ``unseen`` came in
    unseen. With ``discard`` true it is instead an older discard of natural ``top`` (not the player's last, or its
    hand changed since: ``mc:older``), ``out`` counting that discard: weighed by whether it held a pair then."""

    seat: int
    turn: int
    top: int
    out: tuple[int, ...]
    taken: tuple[int, ...]
    unseen: int
    discard: bool = False


def _laid(entry: tuple[Any, ...]) -> list[Any]:
    """The Melds a history entry laid from the hand (a take's meld and extras, a meld decision's melds)."""
    if entry[0] == "take":
        return [entry[5], *entry[6]]
    if entry[0] == "melds":
        return list(entry[3])
    return []


def meld_marks(melded: list[int], team: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """From each team's bits of melded ranks, ``team``'s own (1 a rank it melded) and the other teams' (how many
    melded each rank)."""
    own = tuple(melded[team] >> r & 1 for r in range(NUM_RANKS))
    opp = tuple(sum(melded[t] >> r & 1 for t in range(len(melded)) if t != team) for r in range(NUM_RANKS))
    return own, opp


def melded_ranks(view: PlayerView) -> list[int]:
    """Each team's ranks melded so far this deal (bit ``r``), read from the history as :func:`observations` does."""
    melded = [0] * view.n_teams
    for entry in view.history:
        for meld in _laid(entry):
            melded[entry[1] % view.n_teams] |= 1 << meld.rank
    return melded


def observations(view: PlayerView, older: bool = False) -> list[SeenDiscard | SeenPass]:
    """What the other players were seen to do this deal that the model can weigh in a sampled world (``older``:
    every natural discard of theirs too, not only each one's last while its hand has not changed since)."""
    rules = view.rules
    n_teams = view.n_teams
    avoid = penalized_ranks(rules)
    history = view.history
    opened = [False] * n_teams
    melded = [0] * n_teams  # bit r: the team has a meld of rank r
    last: dict[int, SeenDiscard | None] = {}
    passes: list[tuple[int, int, int, bool]] = []  # (history index, seat, top or discard, a discard)
    last_at: dict[int, int] = {}  # seat -> history index of its last discard while it is weighed exactly
    for i, entry in enumerate(history):
        kind, seat = entry[0], entry[1]
        team = seat % n_teams
        if seat != view.seat:
            if kind in _HAND_CHANGES:
                last[seat] = None  # its hand changed after its last discard
                last_at.pop(seat, None)
            if kind == "discard" and entry[3] >= FOUR:
                own, opp = meld_marks(melded, team)
                last[seat] = SeenDiscard(seat, entry[3], own, opp)
                last_at[seat] = i
                if older:
                    passes.append((i, seat, entry[3], True))
            elif kind == "draw":
                top, frozen = entry[4], entry[6] or rules.pile_always_frozen
                has = top >= FOUR and melded[team] >> top & 1
                if top >= FOUR and opened[team] and (frozen or not has) and (has or top not in avoid):
                    passes.append((i, seat, top, False))
        for meld in _laid(entry):
            melded[team] |= 1 << meld.rank
            opened[team] = True
    out: list[SeenDiscard | SeenPass] = [d for d in last.values() if d is not None]
    for i, seat, top, discard in passes:
        if discard and last_at.get(seat) == i:
            continue  # weighed exactly, as its last discard
        gone, came = [0] * NUM_RANKS, [0] * NUM_RANKS
        unseen = 0
        for entry in history[i:]:
            if entry[1] != seat:
                continue
            kind = entry[0]
            if kind in ("draw", "pony", "wing"):
                unseen += entry[3]
            elif kind == "discard":
                gone[entry[3]] += 1
            elif kind == "take":
                for card in entry[7]:
                    came[card] += 1
            for meld in _laid(entry):
                gone[meld.rank] += meld.naturals if meld.rank >= FOUR else 0
                gone[TWO] += meld.twos
                gone[JOKER] += meld.jokers
        out.append(SeenPass(seat, history[i][2], top, tuple(gone), tuple(came), unseen, discard))
    return out


def _held_pair(held_now: int, total_now: int, m: int) -> float:
    """P(at least 2 of ``held_now`` cards of a rank were held before ``m`` of the ``total_now`` cards arrived),
    the arrivals a uniform draw of the ``total_now`` (hypergeometric)."""
    if held_now < 2:
        return 0.0
    m = min(m, total_now)
    if m == 0 or held_now - m >= 2:
        return 1.0
    denom = math.comb(total_now, m)
    return sum(math.comb(held_now, x) * math.comb(total_now - held_now, m - x)
               for x in range(0, held_now - 1)) / denom


def log_likelihood(world: DealState, seen: list[SeenDiscard | SeenPass], model: OpponentModel | float,
                   noise: float = 0.0) -> float:
    """The log-likelihood of the observations ``seen`` had the other players held ``world``'s cards, under ``model``
    (an :class:`OpponentModel`, or the soft greedy model's temperature).

    ``noise``: the share of decisions the model does not explain (made at random among the options: a discard
    of any natural held, a pass of a pile it could take half the time), mixed in so that a player who often
    plays otherwise (another search, a slow-player) cannot rule a world out.
    """
    model = opponent_model(model)
    total = 0.0
    eps = (1.0 - noise) * model.passing + noise * 0.5
    split = (1.0 - noise) * model.split + noise
    for obs in seen:
        hand = world.hands[obs.seat]
        if isinstance(obs, SeenDiscard):
            d = obs.card
            then = np.array(hand, dtype=np.int64)
            then[d] += 1
            logits = model.logits(obs.own, obs.opp, then).tolist()
            terms = [logits[r] for r in range(FOUR, NUM_RANKS) if then[r]]
            top = max(terms)
            p = math.exp(logits[d] - top) / sum(math.exp(x - top) for x in terms)
            total += math.log((1.0 - noise) * p + noise / len(terms))
        else:
            t = obs.top
            held = hand[t] + obs.out[t] - obs.taken[t]
            if held < 2:
                continue
            size = sum(hand) + sum(obs.out) - sum(obs.taken)
            p = _held_pair(held, max(size, held), obs.unseen)
            total += math.log((split if obs.discard else eps) * p + 1.0 - p)
    return total


def resampled(worlds: list[W], logs: list[float], n: int, rng: np.random.Generator) -> list[W]:
    """``n`` distinct worlds of ``worlds`` drawn in proportion to ``exp(logs)`` without replacement (the
    Efraimidis-Spirakis keys ``log(u) / w``, one uniform draw a world), in the pool's order.

    Without replacement, not with: ``mc`` takes the spread of its paired gains over its worlds for their
    standard error, and a world drawn twice would count as two independent ones, making a noisy lead look
    sure (the winner's curse its confidence gate is there to stop). The price: a world far heavier than the
    others is played once, not in proportion to its weight.
    """
    top = max(logs)
    u = rng.random(len(worlds))
    keys = [math.log(float(x)) / math.exp(v - top) if v - top > -700 else -math.inf
            for x, v in zip(u, logs, strict=True)]
    best = sorted(range(len(worlds)), key=lambda i: -keys[i])[:n]
    return [worlds[i] for i in sorted(best)]


def effective_size(logs: list[float]) -> float:
    """The effective number of worlds of importance weights ``exp(logs)`` (Kish: (sum w)^2 / sum w^2)."""
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    return sum(weights) ** 2 / sum(w * w for w in weights)


class HandPool:
    """``size`` worlds of which only the other players' hands are made (the cheap pool the weights need), the rest
    of each (stock, ponies, wings, face-down pile cards) made only for the worlds drawn (:meth:`world`).

    Exactly :func:`simcli.engine.worlds.sample_world`'s distribution: a world is a uniform permutation of the
    unseen cards that are no bonus threes over the hidden positions they may take, after the bonus threes are
    placed uniformly over the positions that may hold them. A pool draws these permutations for all its worlds at
    once (numpy), counts the hands from their first positions (the hands are the first hidden places), and a drawn
    world is filled from its own permutations; so a drawn world, given its hands, has the rest a full sample would
    have had. Everything is read from ``template``, a world sampled from the view (it reads nothing hidden; the
    unseen cards and the hidden places are the same in every world of the information set).
    """

    def __init__(self, template: DealState, seat: int, size: int, rng: np.random.Generator):
        self.template, self.size = template, size
        unseen = unseen_counts(template, seat)
        self.places = places = hidden_places(template, seat)
        bonus = [r for r in range(NUM_RANKS) if template.is_bonus_three[r] and unseen[r]]
        self.rest = np.array([r for r in range(NUM_RANKS) if r not in bonus for _ in range(unseen[r])], dtype=np.int64)
        self.threes = [r for r in bonus for _ in range(unseen[r])]
        # The positions sample_world gives the bonus threes (with its fallback to hands that may keep one).
        allowed = three_positions(template, seat, places, len(self.threes)) if self.threes else []
        self.positions = sum(n for _, _, n, _ in places)
        self.allowed = np.array(allowed, dtype=np.int64)
        self.seats = [idx for kind, idx, _, _ in places if kind == "hand"]
        self.hand_positions = h = sum(n for kind, _, n, _ in places if kind == "hand")
        # One uniform permutation a world of the positions that may hold bonus threes (the first len(threes) of
        # it get them) and of the other unseen cards (dealt over the positions left, in order).
        self.spots = np.argsort(rng.random((size, len(allowed))), axis=1) if self.threes else None
        self.order = np.argsort(rng.random((size, len(self.rest))), axis=1)
        if len(self.rest) < h:  # bonus threes only in hands (an empty stock, issue 47): every world in full
            cards = np.array([self._cards(w)[:h] for w in range(size)], dtype=np.int64).reshape(size, h)
        else:  # the hand positions' cards of a world without threes in its hands, then those with
            cards = self.rest[self.order[:, :h]]
        if self.threes and len(self.rest) >= h:
            assert self.spots is not None
            hit = self.allowed[self.spots[:, :len(self.threes)]] < h  # a bonus three in a hand position
            for w in np.flatnonzero(hit.any(axis=1)):
                cards[w] = self._cards(int(w))[:h]
        segment = np.repeat(np.arange(len(self.seats)), [n for kind, _, n, _ in places if kind == "hand"])
        width = len(self.seats) * NUM_RANKS
        flat = np.arange(size)[:, None] * width + segment[None, :] * NUM_RANKS + cards
        counts = np.bincount(flat.ravel(), minlength=size * width).reshape(size, len(self.seats), NUM_RANKS)
        known = np.array([template.known[s] for s in self.seats], dtype=np.int64).reshape(len(self.seats), NUM_RANKS)
        #: hands[w, i, r]: the count of rank r in the hand of seat ``seats[i]`` in world w.
        self.hands = counts + known[None, :, :]

    def _cards(self, w: int) -> np.ndarray:
        """World ``w``'s card at every hidden position, as :func:`sample_world` lays them out."""
        if not self.threes:
            return self.rest[self.order[w]]
        assert self.spots is not None
        cards = np.full(self.positions, -1, dtype=np.int64)
        cards[self.allowed[self.spots[w, :len(self.threes)]]] = self.threes
        cards[cards < 0] = self.rest[self.order[w]]
        return cards

    def world(self, w: int) -> DealState:
        """World ``w`` whole: the template with every hidden place filled from the world's permutations."""
        cards = self._cards(w).tolist()
        world = clone(self.template)
        fill_hidden(world, self.places, cards)
        return world


def pool_log_likelihoods(hands: np.ndarray, seats: list[int], seen: list[SeenDiscard | SeenPass],
                         model: OpponentModel | float, noise: float = 0.0) -> np.ndarray:
    """:func:`log_likelihood` of every world of a pool at once: ``hands[w, i]`` is seat ``seats[i]``'s hand in
    world ``w`` (tests/test_inference.py checks it against :func:`log_likelihood`, world by world)."""
    model = opponent_model(model)
    total = np.zeros(hands.shape[0])
    eps = (1.0 - noise) * model.passing + noise * 0.5
    split = (1.0 - noise) * model.split + noise
    where = {s: i for i, s in enumerate(seats)}
    naturals = np.arange(NUM_RANKS) >= FOUR
    for obs in seen:
        hand = hands[:, where[obs.seat], :]
        if isinstance(obs, SeenDiscard):
            d = obs.card
            then = hand.copy()
            then[:, d] += 1
            held = (then > 0) & naturals[None, :]
            score = model.logits(obs.own, obs.opp, then)
            masked = np.where(held, score, -np.inf)
            top = masked.max(axis=1, keepdims=True)
            p = np.exp(score[:, d] - top[:, 0]) / np.exp(masked - top).sum(axis=1)
            total += np.log((1.0 - noise) * p + noise / held.sum(axis=1))
        else:
            t = obs.top
            held_then = hand[:, t] + obs.out[t] - obs.taken[t]
            size = hand.sum(axis=1) + sum(obs.out) - sum(obs.taken)
            cache: dict[tuple[int, int], float] = {}
            for w in np.flatnonzero(held_then >= 2):
                key = (int(held_then[w]), int(size[w]))
                if key not in cache:
                    p = _held_pair(key[0], max(key[1], key[0]), obs.unseen)
                    cache[key] = math.log((split if obs.discard else eps) * p + 1.0 - p)
                total[w] += cache[key]
    return total


def inferred_worlds(view: PlayerView, samples: int, pool: int, model: OpponentModel | float, noise: float,
                    rng: np.random.Generator, older: bool = False) -> list[DealState]:
    """``samples`` worlds for a search: ``pool * samples`` sampled uniformly, weighed by :func:`log_likelihood` and
    resampled; just ``samples`` uniform ones while nothing is there to weigh.

    The pool's worlds are only the other players' hands (:class:`HandPool`: what the weights read), the rest of a
    world is dealt for the drawn ones only; the pool's sampling costs about a world, not ``pool * samples``.
    The worlds carry no history (``DealState.history`` is ``None``): the rollouts' heuristics do not read it, and a
    world that carried it would have every rollout record its turns (about a tenth of a rollout's cost)."""
    seen = observations(view, older)
    if not seen:
        worlds = [view.sample_world(rng) for _ in range(samples)]
    else:
        template = view.sample_world(rng)
        template.history = None  # not copied into the drawn worlds
        hands = HandPool(template, view.seat, pool * samples, rng)
        logs = pool_log_likelihoods(hands.hands, hands.seats, seen, model, noise).tolist()
        worlds = [hands.world(w) for w in resampled(list(range(hands.size)), logs, samples, rng)]
    for world in worlds:
        world.history = None
    return worlds
