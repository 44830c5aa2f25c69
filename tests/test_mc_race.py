"""``mc``'s racing of candidates (``race``, ``drop``, ``halve``): stacked rollout outcomes, the flat search kept.

The racing logic is tested on fake rollouts whose margins come from a table (world x candidate), so what is
dropped when is known exactly; the flat search (``race=0``) is compared with a copy of the search as it was before
racing, decision for decision and rollout for rollout, in real games.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import simcli.strategies.search.mc as mcmod
from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC
from simcli.players.forward import clone, margin, rollout
from simcli.players.seating import play_game
from simcli.players.specs import StrategyLookupError
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategies.search.mc import FLAT_SEARCH, RACING, MonteCarlo
from simcli.strategy import Strategy, load_strategy, strategy_factory


class Stacked(MonteCarlo):
    """``mc`` on fake worlds: world ``w``'s rollout of candidate ``c`` has margin ``table[w][c]``."""

    def __init__(self, table: list[list[float]], **options: Any) -> None:
        super().__init__(np.random.default_rng(0), samples=len(table), **options)
        self.table = table
        #: How many rollouts each candidate got, and the worlds drawn.
        self.played: Counter[int] = Counter()
        self.drawn = 0

    def _policy(self, view: PlayerView) -> list[Strategy]:
        return []

    def _worlds(self, view: PlayerView) -> Any:
        for w in range(self.samples):
            self.drawn += 1
            yield w

    def decide(self) -> int:
        """The search over candidates 0..n-1 (0, the heuristic's choice, first)."""
        SEARCHING[:] = [self]
        return int(self._search(SimpleNamespace(special_hand_laid=False, team=0),  # type: ignore[arg-type]
                                "discard", list(range(len(self.table[0])))))


#: The fake searcher whose table the patched rollouts read.
SEARCHING: list[Stacked] = []


def fake_rollout(world: int, phase: str, candidate: int, policies: Any, max_turns: int = 0) -> tuple[int, int]:
    """A rollout that only counts itself: its result is the (world, candidate) to look up."""
    SEARCHING[0].played[candidate] += 1
    return world, candidate


@pytest.fixture
def fake_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's clone/rollout/margin replaced by a look-up in the searcher's table."""
    monkeypatch.setattr(mcmod, "clone", lambda world: world)
    monkeypatch.setattr(mcmod, "rollout", fake_rollout)
    monkeypatch.setattr(mcmod, "margin", lambda result, team: SEARCHING[0].table[result[0]][result[1]])


def table(gains: list[list[float]], base: float = 1000.0) -> list[list[float]]:
    """Margins per world from each world's gains of candidates 1.. over candidate 0 (whose margin is ``base``)."""
    return [[base] + [base + g for g in row] for row in gains]


@pytest.mark.usefixtures("fake_rollouts")
def test_a_challenger_clearly_behind_is_dropped_after_the_first_round() -> None:
    # Candidate 1 loses 500 in every world; candidate 2 gains 200 or 300 (steady): after the first round of 4
    # worlds candidate 1 is no longer played, candidate 2 plays all 16 and is picked.
    rows = [[-500.0, 200.0 + 100 * (w % 2)] for w in range(16)]
    mc = Stacked(table(rows), race=4)
    assert mc.decide() == 2
    assert mc.played == Counter({0: 16, 1: 4, 2: 16})
    assert mc.rollouts == 16 + 4 + 16
    # Without racing every candidate plays every world (the flat search), with the same pick.
    flat = Stacked(table(rows), race=0)
    assert flat.decide() == 2 and flat.played == Counter({0: 16, 1: 16, 2: 16}) and flat.rollouts == 48


@pytest.mark.usefixtures("fake_rollouts")
def test_the_search_stops_when_no_challenger_is_left() -> None:
    # Every challenger behind after the first round: the incumbent is kept and no further world is drawn.
    rows = [[-300.0, -10.0, -50.0 * (w + 1)] for w in range(16)]
    mc = Stacked(table(rows), race=4)
    assert mc.decide() == 0
    assert mc.drawn == 4 and mc.played == Counter({0: 4, 1: 4, 2: 4, 3: 4})
    # A challenger within drop standard errors of even stays: gains -100, +60, -100, +60 (mean -20, s.e. 46).
    rows = [[-100.0 if w % 2 == 0 else 60.0] for w in range(8)]
    assert Stacked(table(rows), race=4).decide() == 0
    kept = Stacked(table(rows), race=4, drop=0.5)
    kept.decide()
    assert kept.played == Counter({0: 8, 1: 8})
    dropped = Stacked(table(rows), race=4, drop=0.4)  # 0.4 x 46 = 18.5 < 20: dropped after 4 worlds
    dropped.decide()
    assert dropped.played == Counter({0: 4, 1: 4})
    # A negative drop demands a lead: gains +100, -60, ... (mean +20, s.e. 46) stay at drop -0.4, not at -0.5.
    rows = [[100.0 if w % 2 == 0 else -60.0] for w in range(8)]
    lead = Stacked(table(rows), race=4, drop=-0.4)
    lead.decide()
    assert lead.played == Counter({0: 8, 1: 8})
    behind = Stacked(table(rows), race=4, drop=-0.5)
    assert behind.decide() == 0 and behind.played == Counter({0: 4, 1: 4})


@pytest.mark.usefixtures("fake_rollouts")
def test_the_incumbent_is_never_dropped() -> None:
    # Five challengers all far ahead of the incumbent: halving keeps the best 3 of 5, then 2 of 3, then 1 of 2,
    # but the incumbent (whose gain is 0 by definition) plays every world, and the best challenger wins.
    rows = [[100.0, 200.0, 300.0, 400.0, 500.0 + w] for w in range(16)]
    mc = Stacked(table(rows), race=4, halve=True)
    assert mc.decide() == 5
    assert mc.played == Counter({0: 16, 1: 4, 2: 4, 3: 8, 4: 12, 5: 16})
    # A dropped challenger is never picked, even when its sums over fewer worlds look better: candidate 1 leads
    # the first round (+300 a world against candidate 2's +100, so halving drops candidate 2), then loses 240 or
    # 260 a world. Its sum over 8 worlds, +200, is below candidate 2's +400 over 4, which would clear the gate
    # over 8 worlds; but candidate 1 does not clear it (mean +25, s.e. 100), so the incumbent stays.
    rows = [[300.0, 100.0] if w < 4 else [-240.0 - 20 * (w % 2), 100.0] for w in range(8)]
    mc = Stacked(table(rows), race=4, halve=True)
    assert mc.decide() == 0 and mc.played == Counter({0: 8, 1: 8, 2: 4})


def old_search(self: MonteCarlo, view: PlayerView, phase: str, candidates: list[Any]) -> Any:
    """``MonteCarlo._search`` as it was before racing (commit 9ce7646), the reference of ``race=0``."""
    if len(candidates) == 1 or view.special_hand_laid:
        return candidates[0]
    self.searches += 1
    policies = self._policy(view)
    team = view.team
    n = len(candidates)
    gain = [0.0] * n
    gain2 = [0.0] * n
    worlds = 0
    start = time.perf_counter()
    for k, world in enumerate(self._worlds(view)):
        first = margin(rollout(clone(world), phase, candidates[0], policies), team)
        for i in range(1, n):
            d = margin(rollout(clone(world), phase, candidates[i], policies), team) - first
            gain[i] += d
            gain2[i] += d * d
        self.rollouts += n
        worlds += 1
        if self.budget and k >= 1 and time.perf_counter() - start > self.budget:
            break
    return candidates[self._pick(gain, gain2, worlds)]


class Old(MonteCarlo):
    """The flat search of before racing."""

    _search = old_search


@pytest.mark.parametrize("variant", ["classic", "spanish"])
def test_racing_off_is_the_old_flat_search(variant: str) -> None:
    # The same game, decision for decision, with the same rollouts, as the search before racing.
    rules = load_rules(variant, {"max_hands": 1})
    heuristic = load_strategy(BEST_HEURISTIC[variant])
    results = []
    for cls in (Old, MonteCarlo):
        table_: list[Strategy] = [cls(seat_rng(5, 0, s), samples=3, race=0) if s % 2 == 0
                                  else heuristic(seat_rng(5, 0, s)) for s in range(4)]
        r = play_game(rules, ["mc", "h", "mc", "h"], 5, strategies=table_)
        searchers = [p for p in table_ if isinstance(p, MonteCarlo)]
        results.append((r.totals, r.decisions, [(p.searches, p.rollouts) for p in searchers]))
    assert results[0] == results[1]
    assert results[0][2][0][0] > 0


def test_racing_is_cheaper_deterministic_and_the_default_stays_flat() -> None:
    # RACING plays fewer rollouts a searched decision than the flat search on the same game and is deterministic
    # for a seed; the default and FLAT_SEARCH are the flat search (race=0).
    rules = load_rules("classic", {"max_hands": 1})
    heuristic = load_strategy("greedy")
    old = strategy_factory(FLAT_SEARCH)(np.random.default_rng(0))
    assert isinstance(old, MonteCarlo) and old.race == 0 and old.samples == 16 and old.confidence == 1.0
    assert MonteCarlo(np.random.default_rng(0)).race == 0
    runs = []
    for spec in (RACING, RACING, FLAT_SEARCH):
        table_ = [strategy_factory(spec)(seat_rng(2, 0, s)) if s % 2 == 0 else heuristic(seat_rng(2, 0, s))
                  for s in range(4)]
        r = play_game(rules, ["mc", "h", "mc", "h"], 2, strategies=table_)
        searchers = [p for p in table_ if isinstance(p, MonteCarlo)]
        runs.append((r.totals, r.decisions, sum(p.rollouts for p in searchers) / sum(p.searches for p in searchers)))
    assert runs[0] == runs[1]
    assert runs[0][2] < runs[2][2] / 1.5, runs  # rollouts per searched decision


@pytest.mark.parametrize("options, message", [
    ({"race": -1}, "race must be a whole number of worlds >= 0 (0: no racing), got -1"),
    ({"race": 2.5}, "race must be a whole number of worlds >= 0 (0: no racing), got 2.5"),
    ({"drop": math.inf}, "drop must be a finite number of standard errors, got inf"),
])
def test_bad_race_options_are_refused_in_one_line(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        MonteCarlo(np.random.default_rng(0), **options)
    assert str(info.value) == message


def test_race_options_are_typed_on_the_command_line() -> None:
    mc = strategy_factory("mc:race=2,drop=0.5,halve=true")(np.random.default_rng(0))
    assert isinstance(mc, MonteCarlo) and (mc.race, mc.drop, mc.halve) == (2, 0.5, True)
    with pytest.raises(StrategyLookupError, match="bad value 'x' for option 'race'"):
        strategy_factory("mc:race=x")


def test_a_string_for_halve_is_refused_not_read_as_true() -> None:
    # bool("false") is True: a caller passing the option's text unparsed would get the opposite of what it asked.
    with pytest.raises(ValueError, match="halve must be true or false, got 'false'"):
        MonteCarlo(np.random.default_rng(0), halve="false")  # type: ignore[arg-type]
