"""Inference in the sampler (``mc:infer=T``, strategies/search/inference.py): what it reads from the history, and what
it weighs.

The observations are checked against the true hands of heuristic players recorded as they decided: a discard's
hand then is the hand now plus the card, and greedy's discard is the soft model's most likely one; a pile passed by
was passed by a player holding no natural pair of its top (greedy takes whenever it can), and the hand now bounds
the count it held then. The weights favour the true cards over uniform worlds; resampling draws distinct worlds by
weight; ``mc`` without ``infer`` is today's ``mc`` (the golden playthroughs hold its games), and with it plays legal,
seeded games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import load_script

from simcli.engine.view import PlayerView
from simcli.engine.worlds import hidden_places, rank_totals
from simcli.players.best_heuristic import BEST_HEURISTIC
from simcli.players.seating import play_game
from simcli.players.seats import Recording
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategies.heuristics.greedy import Greedy
from simcli.strategies.search.inference import (
    DISCARD_FEATURES,
    HandPool,
    OpponentModel,
    SeenDiscard,
    SeenPass,
    _held_pair,
    effective_size,
    fitted_model,
    log_likelihood,
    observations,
    pool_log_likelihoods,
    resampled,
)
from simcli.strategies.search.mc import MonteCarlo
from simcli.strategy import Strategy, load_strategy, strategy_options


class Watched(Greedy):
    """Greedy that keeps its hand at each of its draws (turn -> hand)."""

    def __init__(self, rng: np.random.Generator, hands: dict[tuple[int, int, int], tuple[int, ...]]):
        super().__init__(rng)
        self.hands = hands

    def choose_draw(self, view: PlayerView) -> Any:
        self.hands[(view.deal_index, view.seat, view.turn)] = view.hand
        return super().choose_draw(view)

    def choose_discard(self, view: PlayerView) -> int | None:
        self.hands[(view.deal_index, view.seat, -view.turn - 1)] = view.hand  # the hand a discard came from
        return super().choose_discard(view)


class Observer(Greedy):
    """Greedy in seat 0 that, at each discard decision, checks the observations against the true state."""

    reads_history = True

    def __init__(self, rng: np.random.Generator, hands: dict[tuple[int, int, int], tuple[int, ...]]):
        super().__init__(rng)
        self.hands = hands
        self.discards = self.modes = self.passes = self.bounded = self.older = self.older_bounded = 0
        self.true_logs: list[float] = []
        self.uniform_logs: list[float] = []

    def choose_discard(self, view: PlayerView) -> int | None:
        truth = view._st  # a test reads the true state: the hands the observations are about
        seen = observations(view)
        for obs in seen:
            hand = truth.hands[obs.seat]
            if isinstance(obs, SeenDiscard):
                self.discards += 1
                then = list(hand)
                then[obs.card] += 1
                scores = {r: obs.base[r] + 10 * then[r] for r in range(4, 15) if then[r]}
                self.modes += scores[obs.card] == min(scores.values())
            else:
                assert isinstance(obs, SeenPass)
                held_then = self.hands[(view.deal_index, obs.seat, obs.turn)][obs.top]
                self.passes += 1
                upper = hand[obs.top] + obs.out[obs.top] - obs.taken[obs.top]
                self.bounded += held_then < 2 and held_then <= upper <= held_then + obs.unseen
        for obs in observations(view, older=True):
            if isinstance(obs, SeenPass) and obs.discard:  # an older discard: the count it came from, bounded
                held_then = self.hands[(view.deal_index, obs.seat, -obs.turn - 1)][obs.top]
                upper = truth.hands[obs.seat][obs.top] + obs.out[obs.top] - obs.taken[obs.top]
                self.older += 1
                self.older_bounded += held_then >= 1 and held_then <= upper <= held_then + obs.unseen
        if seen:
            rng = np.random.default_rng(view.turn)
            self.true_logs.append(log_likelihood(truth, seen, 20.0))
            worlds = [view.sample_world(rng) for _ in range(20)]
            self.uniform_logs.append(float(np.mean([log_likelihood(w, seen, 20.0) for w in worlds])))
        return super().choose_discard(view)


def test_observations_match_the_true_hands_of_greedy_players() -> None:
    rules = load_rules("classic")
    hands: dict[tuple[int, int, int], tuple[int, ...]] = {}
    observer = Observer(np.random.default_rng(0), hands)
    table: list[Strategy] = [observer] + [Watched(np.random.default_rng(s), hands) for s in (1, 2, 3)]
    play_game(rules, ["greedy"] * 4, 13, strategies=table)
    assert observer.discards > 50 and observer.passes > 10
    assert observer.modes >= 0.9 * observer.discards  # greedy's discard is the model's likeliest
    # No pair held when passing, and the count then bounded; a pass the rules forced (a pair that would empty the
    # hand of a team that may not go out) is not modelled, and rare.
    assert observer.bounded >= 0.97 * observer.passes
    # Every older discard (mc:older): the count of its rank it came from is bounded by the count now, plus what
    # left the hand since (that discard included), less what came in face up, and by that plus the unseen arrivals.
    assert observer.older > 100 and observer.older_bounded == observer.older
    # The true cards are likelier than uniform worlds under the model they were played by.
    assert np.mean(observer.true_logs) > np.mean(observer.uniform_logs) + 0.5


def test_noise_bounds_what_one_observation_can_cost() -> None:
    # A discard of a K from a hand the model would never discard it from (cheap singles held): with noise 0.3 a
    # world costs at most log(0.3 / 4) for it; without, far more.
    world: Any = type("World", (), {})()
    hand = [0] * 15
    hand[4] = hand[5] = hand[6] = 1
    world.hands = [hand, hand, hand, hand]
    seen = [SeenDiscard(1, 13, (0,) * 15, (0,) * 15)]  # nothing melded: the keep scores are the card values
    strict = log_likelihood(world, seen, 1.0)
    noisy = log_likelihood(world, seen, 1.0, 0.3)
    assert strict < -3.0
    assert noisy >= np.log(0.3 / 4) and noisy > strict


def test_held_pair_is_the_hypergeometric_probability() -> None:
    assert _held_pair(1, 10, 1) == 0.0
    assert _held_pair(4, 10, 1) == 1.0  # one arrival cannot take two of four away
    assert _held_pair(2, 10, 0) == 1.0
    assert _held_pair(2, 10, 1) == pytest.approx(8 / 10)  # the arrival was one of the other 8
    assert _held_pair(3, 10, 2) == pytest.approx(1 - 3 / 45)  # both arrivals of the rank: C(3,2) of C(10,2)


def test_resampling_draws_distinct_worlds_by_weight() -> None:
    rng = np.random.default_rng(1)
    worlds: list[Any] = list(range(4))
    logs = [0.0, 0.0, float(np.log(4.0)), -800.0]
    counts = [0] * 4
    for _ in range(2000):
        picked = resampled(worlds, logs, 2, rng)
        assert len(set(picked)) == 2 and picked == sorted(picked)  # distinct, in the pool's order
        for w in picked:
            counts[w] += 1
    assert counts[3] == 0  # a world of no weight is never drawn
    assert counts[2] > 1700 and abs(counts[0] - counts[1]) < 200  # the heavy one nearly always, the others alike
    assert resampled(worlds, [0.0] * 4, 4, rng) == worlds
    assert effective_size([0.0] * 5) == pytest.approx(5.0)
    assert effective_size([0.0, -100.0]) == pytest.approx(1.0)


def test_infer_is_an_option_refused_when_bad() -> None:
    options = dict(strategy_options("mc:infer=20,pool=3,noise=0.3"))
    assert options == {"infer": 20.0, "pool": 3, "noise": 0.3}
    with pytest.raises(ValueError, match="infer"):
        MonteCarlo(np.random.default_rng(0), infer=-1)
    with pytest.raises(ValueError, match="pool"):
        MonteCarlo(np.random.default_rng(0), infer=5, pool=0)
    with pytest.raises(ValueError, match="noise"):
        MonteCarlo(np.random.default_rng(0), infer=5, noise=1.5)
    default = MonteCarlo(np.random.default_rng(0))
    assert default.infer == 0.0  # off: the sampler is today's (the mc playthroughs hold its games)
    # The engine records the history only for a seat that reads it: mc with infer does, and so does a seat
    # that wraps it (play --search-values).
    inferring = MonteCarlo(np.random.default_rng(0), infer=20)
    assert inferring.reads_history and not default.reads_history
    assert Recording(inferring, lambda view, kind, weighed: None).reads_history


@pytest.mark.parametrize("variant", ["classic", "ponytail"])
def test_mc_with_inference_plays_legal_seeded_games(variant: str) -> None:
    rules = load_rules(variant, {"max_hands": 1})
    heuristic = load_strategy(BEST_HEURISTIC[variant])

    def table() -> list[Strategy]:
        return [MonteCarlo(seat_rng(3, 0, s), samples=2, discards=3, melds=2, infer=20.0) if s % 2 == 0
                else heuristic(seat_rng(3, 0, s)) for s in range(4)]

    first = table()
    a = play_game(rules, ["mc", "h", "mc", "h"], 3, strategies=first)
    b = play_game(rules, ["mc", "h", "mc", "h"], 3, strategies=table())
    assert (a.totals, a.decisions) == (b.totals, b.decisions)
    assert sum(p.searches for p in first if isinstance(p, MonteCarlo)) > 0


class Keeper(Greedy):
    """Greedy that keeps a copy of the table at each of its decisions with something to weigh (and, for the bonus
    threes, at its first draws)."""

    reads_history = True

    def __init__(self, rng: np.random.Generator):
        super().__init__(rng)
        self.views: list[PlayerView] = []

    def choose_draw(self, view: PlayerView) -> Any:
        if observations(view) or view.turn < 4:
            self.views.append(PlayerView(view._st.clone(), view.seat))  # a test keeps the true state
        return super().choose_draw(view)


def _kept(variant: str, seed: int) -> list[PlayerView]:
    keeper = Keeper(np.random.default_rng(0))
    rules = load_rules(variant, {"max_hands": 1})
    heuristic = load_strategy(BEST_HEURISTIC[variant])
    play_game(rules, ["h"] * 4, seed, strategies=[keeper] + [heuristic(np.random.default_rng(s)) for s in (1, 2, 3)])
    return keeper.views


@pytest.mark.parametrize("variant", ["classic", "ponytail", "americana"])
def test_hand_pool_weighs_and_deals_whole_worlds(variant: str) -> None:
    # The cheap pool (only the other hands, the rest dealt for the drawn worlds): every pool world, made whole, is
    # a world of the information set (the pack's cards, the public sizes, bonus threes only where they may be) whose
    # hands are the pool's counts, and the pool's vectorized weights are log_likelihood's, world by world.
    views = _kept(variant, 5)
    weighed = 0
    for view in views[::2]:
        truth = view._st
        seen = observations(view)
        rng = np.random.default_rng(weighed)
        template = view.sample_world(rng)
        pool = HandPool(template, view.seat, 12, rng)
        logs = pool_log_likelihoods(pool.hands, pool.seats, seen, 20.0, 0.3)
        fitted = fitted_model(variant)  # the model fitted to mc (opponent=mc), weighed the same two ways
        seen_all = observations(view, older=True)  # and every older discard (mc:older)
        fitted_logs = pool_log_likelihoods(pool.hands, pool.seats, seen_all, fitted, 0.1)
        places = hidden_places(truth, view.seat)
        for w in range(pool.size):
            world = pool.world(w)
            assert rank_totals(world) == rank_totals(truth)
            assert world.hand_sizes == truth.hand_sizes and len(world.stock) == len(truth.stock)
            assert hidden_places(world, view.seat) == places
            for i, s in enumerate(pool.seats):
                assert world.hands[s] == pool.hands[w, i].tolist()
                assert sum(world.hands[s]) == truth.hand_sizes[s]
            assert world.hands[view.seat] == truth.hands[view.seat]
            for kind, idx, _, may in places:
                if kind == "hand" and not may:
                    assert not any(world.hands[idx][r] > truth.known[idx][r]
                                   for r in range(15) if truth.is_bonus_three[r])
            if seen:
                assert logs[w] == pytest.approx(log_likelihood(world, seen, 20.0, 0.3), abs=1e-9)
                assert fitted_logs[w] == pytest.approx(log_likelihood(world, seen_all, fitted, 0.1), abs=1e-9)
                weighed += 1
    assert weighed > 40


@pytest.mark.parametrize("variant", ["classic", "ponytail"])
def test_hand_pool_deals_as_sample_world_does(variant: str) -> None:
    # The same distribution as view.sample_world: the mean count of every rank in every hidden hand and on the
    # stock's top, over 3,000 worlds of each, at a first draw (Ponytail: bonus threes may still be in hands).
    view = _kept(variant, 7)[0]
    rng = np.random.default_rng(1)
    n = 3000
    pool = HandPool(view.sample_world(rng), view.seat, n, rng)
    full = [view.sample_world(rng) for _ in range(n)]
    seats = pool.seats
    a = pool.hands.mean(axis=0)
    b = np.array([[w.hands[s] for s in seats] for w in full]).mean(axis=0)
    assert np.abs(a - b).max() < 0.12
    tops = [pool.world(w).stock[-1] for w in range(600)]
    top_a = np.bincount(tops, minlength=15) / 600
    top_b = np.bincount([w.stock[-1] for w in full], minlength=15) / n
    assert np.abs(top_a - top_b).max() < 0.07
    if variant == "ponytail":  # threes in the hands, as often as sample_world deals them there
        threes = [r for r in range(15) if view._st.is_bonus_three[r]]
        assert a[:, threes].sum() > 0.05
        assert abs(a[:, threes].sum() - b[:, threes].sum()) < 0.1


def test_the_soft_greedy_model_is_greedys_keep_score_and_a_fitted_one_reads_its_weights() -> None:
    # The soft greedy model's logits are -keep_score / T (the card value, 200 for an own meld, 100 an other
    # team's meld, 10 a copy); a fitted model's are its weights' product with DISCARD_FEATURES, a single the
    # reference. Scaling divides a fitted model's logits, and multiplies the soft greedy model's temperature.
    own = (0,) * 13 + (1, 0)
    opp = (0,) * 12 + (1, 0, 0)
    counts = np.array([0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0, 1, 1, 0])
    greedy = OpponentModel.soft_greedy(20.0).logits(own, opp, counts)
    assert greedy[4] == pytest.approx(-(5 + 10) / 20) and greedy[6] == pytest.approx(-(5 + 30) / 20)
    assert greedy[12] == pytest.approx(-(10 + 100 + 10) / 20) and greedy[13] == pytest.approx(-(10 + 200 + 10) / 20)
    assert OpponentModel.soft_greedy(20.0).scaled(2.0) == OpponentModel.soft_greedy(40.0)
    assert len(DISCARD_FEATURES) == 5
    fitted = OpponentModel((-1.0, -3.0, -2.0, -4.0, -5.0), 0.2)
    z = fitted.logits(own, opp, counts)
    assert z[4] == pytest.approx(-0.5) and z[5] == pytest.approx(-0.5 - 4.0) and z[6] == pytest.approx(-0.5 - 5.0)
    assert z[12] == pytest.approx(-1.0 - 2.0) and z[13] == pytest.approx(-1.0 - 3.0)
    assert fitted.scaled(2.0).logits(own, opp, counts) == pytest.approx(z / 2.0)


def test_the_fitted_model_is_there_for_every_variant_and_an_unknown_one_is_refused_in_one_line() -> None:
    for variant in ("classic", "ponytail", "americana", "spanish"):
        model = fitted_model(variant)
        assert len(model.discard) == len(DISCARD_FEATURES) and 0 < model.passing < 1
    with pytest.raises(ValueError, match="no opponent model fitted for variant 'nosuch'.*fit_opponent.py"):
        fitted_model("nosuch")
    with pytest.raises(ValueError, match="opponent must be one of greedy, mc, got 'bot'"):
        MonteCarlo(np.random.default_rng(0), infer=1, opponent="bot")


def test_the_fit_recovers_a_known_discard_model() -> None:
    # Discards drawn from a known model are fitted back to its weights (scripts/fit_opponent.py's fit).
    fit = load_script("fit_opponent")
    truth = OpponentModel((-0.8, -3.0, -1.5, -2.0, -1.0), 0.1)
    rng = np.random.default_rng(4)
    discards = []
    for _ in range(4000):
        hand = [0] * 4 + rng.multinomial(11, [1 / 11] * 11).tolist()
        own = tuple(int(x) for x in (rng.random(15) < 0.15))
        opp = tuple(int(x) for x in (rng.random(15) < 0.15))
        z = truth.logits(own, opp, np.array(hand))
        held = [r for r in range(4, 15) if hand[r]]
        p = np.exp(z[held] - z[held].max())
        discards.append((tuple(hand), own, opp, held[int(rng.choice(len(held), p=p / p.sum()))]))
    weights, fit_ll, greedy_ll = fit.fit_discards(discards)
    assert weights == pytest.approx(truth.discard, abs=0.25)
    assert fit_ll > greedy_ll


@pytest.mark.parametrize("variant", ["classic", "americana"])
def test_mc_reading_the_fitted_model_plays_seeded_games_that_differ_from_the_greedy_reading(variant: str) -> None:
    rules = load_rules(variant, {"max_hands": 1})
    heuristic = load_strategy(BEST_HEURISTIC[variant])

    def play(**options: Any) -> Any:
        table = [MonteCarlo(seat_rng(3, 0, s), samples=3, discards=3, melds=2, **options) if s % 2 == 0
                 else heuristic(seat_rng(3, 0, s)) for s in range(4)]
        return play_game(rules, ["mc", "h", "mc", "h"], 3, strategies=table)

    fitted = play(infer=1.0, opponent="mc")
    assert (fitted.totals, fitted.decisions) == (lambda g: (g.totals, g.decisions))(play(infer=1.0, opponent="mc"))
    greedy = play(infer=20.0)
    assert fitted.decisions != greedy.decisions  # the model changes the worlds, and so the play


def test_the_observed_oracle_searches_worlds_true_on_what_the_table_saw() -> None:
    # scripts/observed_oracle.py (a ceiling for inference, cheating by design): its worlds are worlds of the
    # information set (the pack's cards, the public sizes) that hold the true count of every (player, rank) the
    # other players' discards and passes were about; uniform worlds mostly do not.
    oracle = load_script("observed_oracle")
    player = oracle.ObservedOracle(np.random.default_rng(2), samples=4)
    exact = uniform_exact = checked = 0
    for view in _kept("classic", 5)[::2] + _kept("classic", 6)[::2]:
        pairs = oracle.observed_pairs(view)
        if not pairs:
            continue
        truth = view._st
        assert all(s != view.seat and r >= 4 for s, r in pairs)
        for world in player._worlds(view):
            assert rank_totals(world) == rank_totals(truth) and world.hand_sizes == truth.hand_sizes
            assert len(world.stock) == len(truth.stock) and world.hands[view.seat] == truth.hands[view.seat]
            exact += all(world.hands[s][r] == truth.hands[s][r] for s, r in pairs)
            other = view.sample_world(np.random.default_rng(checked))
            uniform_exact += all(other.hands[s][r] == truth.hands[s][r] for s, r in pairs)
            checked += 1
    assert checked >= 20
    assert exact >= 0.9 * checked and uniform_exact < 0.5 * checked
