"""The opponent models of inference in the sampler (``mc:infer``, strategies/search/inference.py): how likely another
player's discard of a natural rank is, given the hand it held then, and how likely it passes a pile it could take.

Two models: greedy's rules made soft (:meth:`OpponentModel.soft_greedy`, the default, ``mc:opponent=greedy``) and
one fitted to today's ``mc`` itself in each variant (``mc:opponent=mc``; scripts/fit_opponent.py writes the weights
into models/opponents.json): a conditional logit over the naturals held whose features are a rank's card value,
whether the player's team and the other teams had melded it, and whether the player held two or three and more
of it (:data:`DISCARD_FEATURES`), and the share of takeable piles ``mc`` passed holding a pair. ``mc`` leaves its
heuristic's discard about a third of the time and passes one takeable pile in eight (Classic) to three in ten
(Americana); the fitted model reads its discards 0.3 nats a discard better than soft greedy in Classic and 1.5 to
1.9 in Ponytail and Americana, whose heuristics are not greedy (strategies/learnt/models/README.md).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from simcli.engine.state import DealState
from simcli.primitives.cards import ACE, CARD_VALUES, FOUR, NATURAL_RANKS, NUM_RANKS

#: How far (in keep-score points) the soft heuristic rates a take of the pile above the stock, when it can take.
TAKE_MARGIN = 60.0
#: The fitted opponent models (``mc:opponent=mc``), one a variant: scripts/fit_opponent.py writes them, beside the
#: learnt player's shipped models (strategies/learnt/models/README.md describes both).
OPPONENT_MODELS = Path(__file__).resolve().parents[1] / "learnt" / "models" / "opponents.json"
#: The opponent models ``mc``'s ``opponent`` option names.
OPPONENTS = ("greedy", "mc")


#: What the discard model reads of a natural rank ``r`` held ``c`` times before the discard (``c`` >= 1): its card
#: value in tens, whether the player's team had melded it, how many other teams had, and whether ``c`` is 2 or 3
#: and more (a single is the reference: a logit common to every rank held would cancel in the softmax). A model's
#: logit of discarding ``r`` is its weights' product with these.
DISCARD_FEATURES = ("value", "own", "opp", "pair", "many")


@dataclass(frozen=True)
class OpponentModel:
    """How the other players are read: a discard's logits (weights of :data:`DISCARD_FEATURES`, a softmax over
    the naturals held) and ``passing``, the probability a player passes a pile it could take with a natural pair
    it holds (a player without one passes it for sure)."""

    discard: tuple[float, ...]
    passing: float
    #: The soft greedy model's temperature (0 for another model): its logits are then computed as
    #: ``-(keep score) / T``, in that order, so that its worlds are those it weighed before there were other models.
    temperature: float = 0.0

    @classmethod
    def soft_greedy(cls, temperature: float) -> OpponentModel:
        """Greedy's rules made soft at ``temperature`` keep-score points: a discard's logit is ``-keep_score / T``,
        a takeable pile is passed with a pair with probability ``1 / (1 + exp(TAKE_MARGIN / T))``."""
        t = temperature
        slip = math.exp(-TAKE_MARGIN / t)
        return cls((-10.0 / t, -200.0 / t, -100.0 / t, -10.0 / t, -20.0 / t),  # "many": as if three
                   max(slip / (1.0 + slip), 1e-12), t)  # without overflow at a small T

    @property
    def split(self) -> float:
        """How much likelier a discard of a rank is from a single than from a pair, inverted: ``exp`` of the pair's
        weight (an older discard's weight, :class:`simcli.strategies.search.inference.SeenPass`, whose other ranks then
        are not known in a world)."""
        return math.exp(self.discard[3])

    def scaled(self, temperature: float) -> OpponentModel:
        """The same model with its discard logits divided by ``temperature`` (1: as it is)."""
        if self.temperature:
            return OpponentModel.soft_greedy(self.temperature * temperature)
        return OpponentModel(tuple(w / temperature for w in self.discard), self.passing)

    def logits(self, own: tuple[int, ...], opp: tuple[int, ...], counts: np.ndarray) -> np.ndarray:
        """The discard logit of every rank (columns) at the counts held before the discard (rows of ``counts``,
        or one hand)."""
        if self.temperature:
            base = np.array([CARD_VALUES[r] + 200 * own[r] + 100 * opp[r] for r in range(NUM_RANKS)], dtype=np.float64)
            out: np.ndarray = -(base + 10.0 * counts) / self.temperature
            return out
        w = self.discard
        static = np.array([w[0] * CARD_VALUES[r] / 10.0 + w[1] * own[r] + w[2] * opp[r] for r in range(NUM_RANKS)])
        c = counts.astype(np.float64)
        return static + w[3] * (c == 2) + w[4] * (c >= 3)


@cache
def _fitted(path: Path) -> dict[str, OpponentModel]:
    """The fitted models of a file, by variant."""
    data = json.loads(path.read_text())
    return {variant: OpponentModel(tuple(float(fit["discard"][f]) for f in DISCARD_FEATURES), float(fit["passing"]))
            for variant, fit in data.items()}


def fitted_model(variant: str, path: Path = OPPONENT_MODELS) -> OpponentModel:
    """The model fitted to today's ``mc`` in ``variant`` (scripts/fit_opponent.py); one clear line if there is none."""
    models = _fitted(path) if path.exists() else {}
    if variant not in models:
        raise ValueError(f"no opponent model fitted for variant '{variant}' in {path.name} (fitted: "
                         f"{', '.join(sorted(models)) or 'none'}); fit one with python scripts/fit_opponent.py "
                         f"--variants {variant}")
    return models[variant]


def opponent_model(model: OpponentModel | float) -> OpponentModel:
    """``model`` as an :class:`OpponentModel` (a number is the soft greedy model's temperature)."""
    return model if isinstance(model, OpponentModel) else OpponentModel.soft_greedy(float(model))


def lay_melded(world: DealState, seat: int, rng: np.random.Generator) -> None:
    """Move out of every other seat's sampled hand the naturals of ranks its team has an open meld of (``melded``).

    The built-in heuristics lay every natural of a rank their team has melded as it comes, so such a player holds
    none (beyond the cards publicly known in its hand): a uniform sample gives it pairs of them, and a search in
    those worlds sees the pile taken with a discard of the rank, which is in fact the safest discard there is (Hand
    and Foot's always frozen pile needs a natural pair). Each such card is swapped, in place, with a random stock
    card that is neither of a rank that team has melded nor a bonus three. Reads only the sampled world and the
    public table, so it leaks nothing the sample did not hold.
    """
    stock = world.stock
    if not stock:
        return
    bonus = world.is_bonus_three
    for s in range(world.n_players):
        if s == seat:
            continue
        table = world.melds[world.team_of[s]]
        hand = world.hands[s]
        known = world.known[s]
        for r in NATURAL_RANKS:
            if table[r] is None:
                continue
            extra = hand[r] - known[r]
            if extra <= 0:
                continue
            spots = [i for i, c in enumerate(stock) if not bonus[c] and not (FOUR <= c <= ACE and table[c] is not None)]
            while extra > 0 and spots:
                i = spots.pop(int(rng.integers(len(spots))))
                c = stock[i]
                stock[i] = r
                hand[r] -= 1
                hand[c] += 1
                extra -= 1
