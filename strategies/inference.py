"""Inference in the sampler (``mc:infer=T``): worlds weighted by how likely the other players' public decisions are.

``mc`` deals the cards it has not seen uniformly among the hidden places. With inference it samples ``pool`` times
as many worlds, weighs each by the likelihood of what the other players were seen to do (``PlayerView.history``)
had they held that world's cards and played a soft version of the variant's heuristic, and importance-resamples
the search's worlds from them, distinct ones (Rebstock et al. 2019, policy-based inference).

The opponent model is greedy's own rules made soft (every variant's heuristic rates discards as greedy does,
:func:`strategies.greedy.keep_score`, and takes the pile whenever it legally can):

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

Approximations, stated: a take needing one natural and a wild card, a pass the rules forced (the opening minimum,
a meld cap, discard bars) and the other players' own search are not modelled; the ranks a team had melded are
read from the history without the closed canastas set aside. The model's temperature and pool are options of
``mc``; without ``infer`` the sampler is today's, draw for draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcli.engine.state import DealState
from simcli.engine.view import PlayerView
from simcli.players.planning import penalized_ranks
from simcli.primitives.cards import CARD_VALUES, FOUR, JOKER, NUM_RANKS, TWO

#: History kinds after which a player's hand is no longer what it was at its last discard.
_HAND_CHANGES = frozenset({"draw", "take", "melds", "special", "pony", "wing", "three"})
#: How far (in keep-score points) the soft heuristic rates a take of the pile above the stock, when it can take.
TAKE_MARGIN = 60.0


@dataclass(frozen=True)
class SeenDiscard:
    """A player's last discard: ``base[r]`` is greedy's keep score of rank ``r`` then, less 10 a copy held."""

    seat: int
    card: int
    base: tuple[int, ...]


@dataclass(frozen=True)
class SeenPass:
    """A pile of top ``top`` the player could have taken with a natural pair and passed by in turn ``turn``; since
    then (that draw included) ``out`` cards by rank left its hand, ``taken`` came in face up and ``unseen`` came in
    unseen."""

    seat: int
    turn: int
    top: int
    out: tuple[int, ...]
    taken: tuple[int, ...]
    unseen: int


def _laid(entry: tuple[Any, ...]) -> list[Any]:
    """The Melds a history entry laid from the hand (a take's meld and extras, a meld decision's melds)."""
    if entry[0] == "take":
        return [entry[5], *entry[6]]
    if entry[0] == "melds":
        return list(entry[3])
    return []


def observations(view: PlayerView) -> list[SeenDiscard | SeenPass]:
    """What the other players were seen to do this deal that the model can weigh in a sampled world."""
    rules = view.rules
    n_teams = view.n_teams
    avoid = penalized_ranks(rules)
    history = view.history
    opened = [False] * n_teams
    melded = [0] * n_teams  # bit r: the team has a meld of rank r
    last: dict[int, SeenDiscard | None] = {}
    passes: list[tuple[int, int, int]] = []  # (history index, seat, top)
    for i, entry in enumerate(history):
        kind, seat = entry[0], entry[1]
        team = seat % n_teams
        if seat != view.seat:
            if kind in _HAND_CHANGES:
                last[seat] = None  # its hand changed after its last discard
            if kind == "discard" and entry[3] >= FOUR:
                base = tuple(CARD_VALUES[r] + (200 if melded[team] >> r & 1 else 0)
                             + sum(100 for t in range(n_teams) if t != team and melded[t] >> r & 1)
                             for r in range(NUM_RANKS))
                last[seat] = SeenDiscard(seat, entry[3], base)
            elif kind == "draw":
                top, frozen = entry[4], entry[6] or rules.pile_always_frozen
                has = top >= FOUR and melded[team] >> top & 1
                if top >= FOUR and opened[team] and (frozen or not has) and (has or top not in avoid):
                    passes.append((i, seat, top))
        for meld in _laid(entry):
            melded[team] |= 1 << meld.rank
            opened[team] = True
    out: list[SeenDiscard | SeenPass] = [d for d in last.values() if d is not None]
    for i, seat, top in passes:
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
        out.append(SeenPass(seat, history[i][2], top, tuple(gone), tuple(came), unseen))
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


def log_likelihood(world: DealState, seen: list[SeenDiscard | SeenPass], temperature: float,
                   noise: float = 0.0) -> float:
    """The log-likelihood of the observations ``seen`` had the other players held ``world``'s cards.

    ``noise``: the share of decisions the model does not explain (made at random among the options: a discard
    of any natural held, a pass of a pile it could take half the time), mixed in so that a player who often
    plays otherwise (another search, a slow-player) cannot rule a world out.
    """
    total = 0.0
    slip = math.exp(-TAKE_MARGIN / temperature)
    eps = max(slip / (1.0 + slip), 1e-12)  # 1 / (1 + exp(margin / T)), without overflow at a small T
    eps = (1.0 - noise) * eps + noise * 0.5
    for obs in seen:
        hand = world.hands[obs.seat]
        if isinstance(obs, SeenDiscard):
            d = obs.card
            base = obs.base
            mine = -(base[d] + 10 * (hand[d] + 1)) / temperature
            terms = [-(base[r] + 10 * (hand[r] + (r == d))) / temperature
                     for r in range(FOUR, NUM_RANKS) if hand[r] or r == d]
            top = max(terms)
            p = math.exp(mine - top) / sum(math.exp(x - top) for x in terms)
            total += math.log((1.0 - noise) * p + noise / len(terms))
        else:
            t = obs.top
            held = hand[t] + obs.out[t] - obs.taken[t]
            if held < 2:
                continue
            size = sum(hand) + sum(obs.out) - sum(obs.taken)
            p = _held_pair(held, max(size, held), obs.unseen)
            total += math.log(eps * p + 1.0 - p)
    return total


def resampled(worlds: list[DealState], logs: list[float], n: int, rng: np.random.Generator) -> list[DealState]:
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


def inferred_worlds(view: PlayerView, samples: int, pool: int, temperature: float, noise: float,
                    rng: np.random.Generator) -> list[DealState]:
    """``samples`` worlds for a search: ``pool * samples`` sampled uniformly (``view.sample_world``), weighed by
    :func:`log_likelihood` and resampled; just ``samples`` uniform ones while nothing is there to weigh.

    The worlds carry no history (``DealState.history`` is ``None``): the rollouts' heuristics do not read it, and a
    world that carried it would have every rollout record its turns (about a tenth of a rollout's cost)."""
    seen = observations(view)
    if not seen:
        worlds = [view.sample_world(rng) for _ in range(samples)]
    else:
        pool_worlds = [view.sample_world(rng) for _ in range(pool * samples)]
        logs = [log_likelihood(w, seen, temperature, noise) for w in pool_worlds]
        worlds = resampled(pool_worlds, logs, samples, rng)
    for world in worlds:
        world.history = None
    return worlds
