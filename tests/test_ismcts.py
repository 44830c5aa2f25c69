"""The ``ismcts`` search player: UCB selection, availability counts and backup on a stubbed evaluator; the choice
rule; legal deterministic games in every variant; no leak of hidden cards; option errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import simcli.strategies.search.ismcts as ismcts
from simcli.cli import main
from simcli.engine.deal import DealResult
from simcli.engine.view import PlayerView
from simcli.players.best_heuristic import BEST_HEURISTIC
from simcli.players.forward import true_state
from simcli.players.seating import play_game
from simcli.players.specs import StrategyLookupError
from simcli.primitives.seeding import seat_rng
from simcli.rules.presets import load_rules
from simcli.strategies.search.ismcts import Bounds, Edge, Ismcts, Node, backup, pick, run_tree
from simcli.strategy import Strategy, load_strategy, parse_strategy_list


def noisy(means: dict[str, float], seed: int = 0, sd: float = 300.0) -> Any:
    """A stubbed evaluator: action ``a`` scores ``means[a]`` plus Gaussian noise (its own stream)."""
    rng = np.random.default_rng(seed)
    return lambda i, a: means[a] + rng.normal(0.0, sd)


def test_a_clearly_better_action_gets_most_visits() -> None:
    means = {"h": 0.0, "bad": -400.0, "good": 300.0, "worse": -800.0}
    root = run_tree(lambda i: list(means), noisy(means), 400, 0.7)
    visits = {k: e.visits for k, e in root.edges.items()}
    assert max(visits, key=visits.__getitem__) == "good"
    assert visits["good"] > visits["h"] > visits["worse"] >= 1  # every action tried, the worst least
    assert sum(visits.values()) == 400
    # The same evaluator with the best action given the worst mean: the visits follow the values, not the order.
    flipped = {**means, "good": -1200.0}
    root = run_tree(lambda i: list(flipped), noisy(flipped), 400, 0.7)
    assert max(root.edges, key=lambda k: root.edges[k].visits) == "h"


def test_availability_counts_only_the_iterations_that_offered_an_action() -> None:
    means = {"h": 0.0, "rare": 500.0, "never": 9999.0}
    offered = lambda i: ["h", "rare"] if i % 3 == 0 else ["h"]  # noqa: E731 - a tiny stub
    root = run_tree(offered, noisy(means), 300, 0.7)
    assert "never" not in root.edges  # an action never offered is never taken
    assert root.edges["h"].avail == 300 and root.edges["rare"].avail == 100
    assert root.edges["rare"].visits + root.edges["h"].visits == 300
    # When offered, the better action is nearly always taken: UCB's parent count is its availability.
    assert root.edges["rare"].visits > 80


def test_untried_actions_go_first_in_the_given_order_and_backup_sums() -> None:
    node, bounds = Node(), Bounds()
    order = [node.select(["a", "b", "c"], 0.7, bounds).action for _ in range(3) if True]
    assert order == ["a", "a", "a"]  # without a backup the first stays untried
    node = Node()
    taken = []
    for value in (10.0, -30.0, 50.0):
        edge = node.select(["a", "b", "c"], 0.7, bounds)
        taken.append(edge.action)
        backup([edge], value, bounds)
    assert taken == ["a", "b", "c"]
    assert (bounds.lo, bounds.hi) == (-30.0, 50.0)
    a = node.edges["a"]
    backup([a], 30.0, bounds)
    assert (a.visits, a.total, a.total2, a.mean()) == (2, 40.0, 1000.0, 20.0)
    assert a.variance() == pytest.approx(200.0)


def edges(*stats: tuple[int, float, float]) -> list[Edge]:
    """Root edges with given (visits, mean, sd)."""
    out = []
    for k, (n, mean, sd) in enumerate(stats):
        e = Edge(k)
        e.visits, e.total = n, n * mean
        e.total2 = (n - 1) * sd * sd + n * mean * mean
        out.append(e)
    return out


def test_pick_keeps_the_heuristic_unless_the_most_visited_is_clearly_better() -> None:
    assert pick(edges((10, 0.0, 500.0), (30, 400.0, 500.0)), 1.0) == 1  # 400 clear of SE ~183
    assert pick(edges((10, 0.0, 500.0), (30, 100.0, 500.0)), 1.0) == 0  # 100: within one SE
    assert pick(edges((10, 0.0, 500.0), (30, 100.0, 500.0)), 0.0) == 1  # no gate: most visited
    assert pick(edges((20, 0.0, 500.0), (20, 900.0, 500.0)), 1.0) == 0  # a tie in visits: the heuristic
    assert pick(edges((5, 50.0, 500.0), (30, 40.0, 500.0)), 0.0) == 0  # most visited but not better on average


def table(variant: str, seed: int, **options: Any) -> list[Strategy]:
    """``ismcts`` in seats 0 and 2 (each on its seat's stream), the variant's heuristic elsewhere."""
    heuristic = load_strategy(BEST_HEURISTIC[variant])
    return [Ismcts(seat_rng(seed, 0, s), **options) if s % 2 == 0 else heuristic(seat_rng(seed, 0, s))
            for s in range(4)]


@pytest.mark.parametrize("variant", sorted(BEST_HEURISTIC))
def test_ismcts_plays_legal_deterministic_games(variant: str) -> None:
    # The engine validates every decision, so a game that finishes is a game of legal decisions only.
    rules = load_rules(variant, {"max_hands": 1})
    names = ["ismcts", "h", "ismcts", "h"]
    options = {"iterations": 6, "discards": 3, "melds": 2, "depth": 2}
    first = table(variant, 4, **options)
    a = play_game(rules, names, 4, strategies=first)
    b = play_game(rules, names, 4, strategies=table(variant, 4, **options))
    assert a.totals == b.totals and a.decisions == b.decisions
    searchers = [p for p in first if isinstance(p, Ismcts)]
    assert sum(p.searches for p in searchers) > 0
    assert sum(p.rollouts for p in searchers) == 6 * sum(p.searches for p in searchers)


def test_the_tree_goes_below_the_root_and_the_search_uses_its_stream() -> None:
    rules = load_rules("classic", {"max_hands": 1})
    names = ["ismcts", "h", "ismcts", "h"]
    deep = table("classic", 5, iterations=40, depth=2)
    seen_children = []

    class Spy(Ismcts):
        def _tree_search(self, view: PlayerView, phase: str, candidates: list[Any]) -> Any:
            out = super()._tree_search(view, phase, candidates)
            seen_children.append(sum(len(e.children) for e in self.last_root))
            return out

    spied = [Spy(p.rng, iterations=40, depth=2) if isinstance(p, Ismcts) else p for p in deep]
    a = play_game(rules, names, 5, strategies=spied)
    assert sum(seen_children) > 0  # later decisions of the player were nodes of the tree
    other = [Ismcts(np.random.default_rng(77 + s), iterations=40) if isinstance(p, Ismcts) else p
             for s, p in enumerate(table("classic", 5))]
    b = play_game(rules, names, 5, strategies=other)
    assert (a.totals, a.decisions) != (b.totals, b.decisions)


class Capture(Strategy):
    """Greedy play that keeps a copy of the state at its seat's first discard with at least three choices."""

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self.policy = load_strategy("greedy")(rng)
        self.state: Any = None

    def choose_draw(self, view: PlayerView) -> Any:
        """Greedy's."""
        return self.policy.choose_draw(view)

    def choose_melds(self, view: PlayerView) -> Any:
        """Greedy's."""
        return self.policy.choose_melds(view)

    def choose_discard(self, view: PlayerView) -> Any:
        """Greedy's, the state kept the first time."""
        if self.state is None and len(view.legal_discards()) >= 3:
            self.state = true_state(view).clone()
        return self.policy.choose_discard(view)


def discard_view() -> PlayerView:
    """A Classic player's view at a discard decision with several legal discards."""
    rules = load_rules("classic", {"max_hands": 1})
    capture = Capture(np.random.default_rng(0))
    players: list[Strategy] = [capture] + [load_strategy("greedy")(np.random.default_rng(s)) for s in (1, 2, 3)]
    play_game(rules, ["c", "greedy", "greedy", "greedy"], 3, strategies=players)
    return PlayerView(capture.state, capture.state.current)


def test_the_search_follows_a_stubbed_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    """With rollouts stubbed to score one discard far above the rest, the search visits it most and plays it."""
    view = discard_view()
    st = true_state(view)
    snapshot = st.clone()
    legal = view.legal_discards()
    target = legal[-1]

    def fake_rollout(world: Any, phase: str, decision: Any, policies: Any) -> DealResult:
        return decision  # margin (stubbed too) reads the decision back

    monkeypatch.setattr(ismcts, "rollout", fake_rollout)
    monkeypatch.setattr(ismcts, "margin", lambda decision, team: 1000.0 if decision == target else 0.0)
    player = Ismcts(np.random.default_rng(0), iterations=60)
    assert player.choose_discard(view) == target
    visits = [e.visits for e in player.last_root]
    assert visits[[e.action for e in player.last_root].index(target)] == max(visits)
    assert (st.hands, st.stock, st.pile) == (snapshot.hands, snapshot.stock, snapshot.pile)  # searched samples only


def test_ismcts_is_registered_and_its_options_parse() -> None:
    assert load_strategy("ismcts") is Ismcts
    assert parse_strategy_list("ismcts:iterations=64,c=1.2,depth=1,greedy", 2) == [
        "ismcts:iterations=64,c=1.2,depth=1", "greedy"]
    with pytest.raises(StrategyLookupError, match="unknown option 'samples' for strategy 'ismcts'"):
        parse_strategy_list("ismcts:samples=3", 4)
    with pytest.raises(StrategyLookupError, match="iterations.*integer"):
        parse_strategy_list("ismcts:iterations=lots", 4)


@pytest.mark.parametrize(("options", "match"), [
    ({"iterations": -1}, "iterations"), ({"iterations": 0}, "not both 0"), ({"seconds": -1.0}, "seconds"),
    ({"c": -0.5}, "c must be"), ({"depth": 0}, "depth"), ({"rollout": "mc"}, "heuristic"),
    ({"rollout": "nosuch"}, "unknown strategy 'nosuch'"), ({"confidence": -1}, "confidence"),
])
def test_bad_options_are_refused(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Ismcts(np.random.default_rng(0), **options)


def test_bad_options_are_one_line_errors_on_the_command_line() -> None:
    result = CliRunner().invoke(main, ["match", "ismcts:depth=0", "greedy", "-n", "2"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "depth" in lines[0], result.output
    result = CliRunner().invoke(main, ["match", "ismcts:iterations=x", "greedy", "-n", "2"])
    assert result.exit_code != 0 and "iterations" in result.output and len(result.output.strip().splitlines()) == 1


def test_seconds_budget_stops_a_search() -> None:
    player = Ismcts(np.random.default_rng(0), iterations=0, seconds=0.05)
    player.choose_discard(discard_view())
    assert 2 <= player.rollouts < 100_000
