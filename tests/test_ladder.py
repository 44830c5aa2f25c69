"""``simcli ladder``: the schedule, the anchor, the upset and gap statistics on hand-built matches with known
answers, one-line errors, and a tiny real ladder end to end (interrupted and resumed, damaged, replayed alone).

Real games are short (``max_hands=1``, one deal a game) between random, greedy and ``mc:samples=1``, played in
process with one job; an interrupt is a KeyboardInterrupt raised where a match would be played.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli, error_line

from simcli.commands import ladder as ladder_cmd
from simcli.duplicate import ladder, ladder_results
from simcli.duplicate.pairs import elo_from_score
from simcli.duplicate.ratings import PRIOR_DRAWS
from simcli.duplicate.tournament import StoredMatch, match_path
from simcli.reporting.matches import LADDER_FILES
from simcli.rules.presets import load_rules

SHORT = ("--rule", "max_hands=1")
RUNGS = "random,greedy,mc:samples=1"
PAIRS = 3
LADDER = ("ladder", "--rungs", RUNGS, "--pairs", PAIRS, "--seed", 5, "--jobs", 1, "--bootstrap", 20, "--quiet",
          *SHORT)


# --------------------------------------------------------------------------------------------- schedule
def test_the_schedule_is_neighbours_then_jumps_over_one_rung() -> None:
    assert ladder.schedule(2) == [(0, 1)]
    assert ladder.schedule(5) == [(0, 1), (1, 2), (2, 3), (3, 4), (0, 2), (1, 3), (2, 4)]
    assert ladder.schedule(5, jumps=False) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert ladder.schedule(6) == ladder.schedule(6)  # a pure function of k
    # Every rung of a ladder of 3 or more plays at least two matches (so each rating rests on two).
    for k in range(3, 9):
        plays = [sum(n in m for m in ladder.schedule(k)) for n in range(k)]
        assert min(plays) >= 2 and len(ladder.schedule(k)) == 2 * k - 3


def test_each_match_has_its_own_seed_and_pairs() -> None:
    spec = ladder.LadderSpec(variant="classic", rules={}, rungs=("random", "greedy", "mc"), seed=7, pairs=10,
                             jump_pairs=4)
    assert spec.schedule() == [(0, 1), (1, 2), (0, 2)]
    assert [spec.match_pairs(i, j) for i, j in spec.schedule()] == [10, 10, 4]
    assert [spec.match_kind(i, j) for i, j in spec.schedule()] == ["neighbour", "neighbour", "jump"]
    # The seed depends on the ladder seed and the two rungs only: the same in another ladder with these rungs.
    other = ladder.LadderSpec(variant="classic", rules={}, rungs=("greedy", "random", "mc"), seed=7, pairs=2,
                              jump_pairs=0)
    assert spec.match_seed(0, 1) == ladder.match_seed(7, "random", "greedy")
    assert other.match_seed(1, 2) == ladder.match_seed(7, "random", "mc") == spec.match_seed(0, 2)
    seeds = {ladder.match_seed(7, "random", "greedy"), ladder.match_seed(7, "greedy", "random"),
             ladder.match_seed(8, "random", "greedy"), ladder.match_seed(7, "random", "mc")}
    assert len(seeds) == 4 and all(0 <= s < 2**63 for s in seeds)
    assert ladder.LadderSpec(variant="classic", rules={}, rungs=("random", "greedy", "mc"), seed=7, pairs=2,
                             jump_pairs=0).schedule() == [(0, 1), (1, 2)]


def test_default_rungs_with_and_without_ismcts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ladder, "optional_rung", lambda name: False)
    assert ladder.default_rungs("classic") == ["random", "greedy", "net", "mc:samples=4", "mc", "oracle"]
    assert ladder.default_rungs("ponytail") == ["random", "greedy", "ponytail", "net", "mc:samples=4", "mc",
                                                "oracle"]
    monkeypatch.setattr(ladder, "optional_rung", lambda name: name == "ismcts")
    assert ladder.default_rungs("spanish") == ["random", "greedy", "spanish", "net", "mc:samples=4", "mc",
                                               "ismcts", "oracle"]
    monkeypatch.undo()
    assert ladder.optional_rung("greedy") and not ladder.optional_rung("no_such_strategy")


def test_learnt_rung_only_under_its_models_rules() -> None:
    """net is a default rung under the preset's rules and, with Classic's general model (issue 47), under house rules
    of its catalogue; a changed knob outside it (which net would refuse) leaves it out."""
    assert ladder.learnt_rung("classic", load_rules("classic"))
    assert ladder.learnt_rung("classic", load_rules("classic", {"going_out_bonus": 200}))
    changed = load_rules("classic", {"wild_rule": "WIKI"})
    assert not ladder.learnt_rung("classic", changed)
    assert "net" not in ladder.default_rungs("classic", changed)
    assert "net" in ladder.default_rungs("americana", load_rules("americana"))
    assert not ladder.learnt_rung("no_such_variant")


# ------------------------------------------------------------------------------------ hand-built matches
def stored(i: int, j: int, half_points: list[int]) -> StoredMatch:
    """A match with A's pair points as given (no shared wins: every pair is 0, 2 or 4 half-points)."""
    wins = sum(h // 2 for h in half_points)
    return StoredMatch(i=i, j=j, half_points=half_points, wins=wins, ties=0, losses=2 * len(half_points) - wins)


def edge(points: float, games: int) -> float:
    """The Elo of A over B fitted from one match alone (the prior's virtual drawn game included): a ladder
    without jumps is a tree, and a tree's maximum-likelihood ratings reproduce each match exactly."""
    return elo_from_score((points + PRIOR_DRAWS / 2) / (games + PRIOR_DRAWS))


#: random, greedy, mc, oracle; 10 pairs a match, no jumps. A's points: random 5 of 20 games against greedy,
#: greedy 8 of 20 against mc, mc 6 of 20 against oracle.
CHAIN = [stored(0, 1, [4, 2, 2, 2, 0, 0, 0, 0, 0, 0]),
         stored(1, 2, [4, 4, 2, 2, 2, 2, 0, 0, 0, 0]),
         stored(2, 3, [4, 2, 2, 2, 2, 0, 0, 0, 0, 0])]
CHAIN_SPEC = ladder.LadderSpec(variant="classic", rules={}, rungs=("random", "greedy", "mc", "oracle"), seed=0,
                               pairs=10, jump_pairs=0, bootstrap=200, bootstrap_seed=3)


def test_ratings_are_anchored_at_greedy_exactly() -> None:
    data = ladder_results.results(CHAIN_SPEC, CHAIN)
    greedy = next(r for r in data["ratings"] if r["rung"] == "greedy")
    assert greedy["elo"] == 0.0 and greedy["ci_low"] == 0.0 and greedy["ci_high"] == 0.0
    elo = {r["rung"]: r["elo"] for r in data["ratings"]}
    assert elo["random"] == pytest.approx(edge(5, 20), abs=1e-3)  # random's Elo over greedy, negative
    assert elo["mc"] == pytest.approx(-edge(8, 20), abs=1e-3)
    assert elo["oracle"] == pytest.approx(-edge(8, 20) - edge(6, 20), abs=1e-3)
    assert all(r["ci_low"] < r["elo"] < r["ci_high"] for r in data["ratings"] if r["rung"] != "greedy")
    assert data["anchor"] == "greedy" and data["method"] == "bootstrap-200"


def test_upset_rates_span_and_gap_share_have_their_known_answers() -> None:
    data = ladder_results.results(CHAIN_SPEC, CHAIN)
    ups = [(u["weaker"], u["stronger"], u["share"], u["wins"], u["losses"]) for u in data["neighbours"]]
    assert ups == [("random", "greedy", 5 / 20, 5, 15), ("greedy", "mc", 8 / 20, 8, 12),
                   ("mc", "oracle", 6 / 20, 6, 14)]
    assert data["upset_pooled"]["share"] == pytest.approx(19 / 60) and data["upset_pooled"]["pairs"] == 30
    # Span: random -> mc, the best rung that does not see hidden cards (oracle excluded).
    span = data["span"]
    assert (span["low"], span["high"]) == ("random", "mc")
    assert span["elo"] == pytest.approx(-edge(5, 20) - edge(8, 20), abs=1e-3)
    assert span["ci_low"] < span["elo"] < span["ci_high"]
    # Gap: greedy is classic's heuristic; mc closes its part of the greedy -> oracle gap.
    gap = data["gap"]
    assert (gap["heuristic"], gap["search"], gap["ceiling"]) == ("greedy", "mc", "oracle")
    assert gap["share"] == pytest.approx(edge(8, 20) / (edge(8, 20) + edge(6, 20)), abs=1e-4)
    assert gap["ci_low"] < gap["share"] < gap["ci_high"]


def test_the_weaker_rung_is_the_lower_rated_even_when_it_is_side_b() -> None:
    # greedy (A) beats mc 14 of 20 here: mc is the weaker of the two, and its upset rate is its own share.
    chain = [CHAIN[0], stored(1, 2, [4, 4, 4, 4, 4, 2, 2, 2, 2, 0]), CHAIN[2]]
    u = ladder_results.results(CHAIN_SPEC, chain)["neighbours"][1]
    assert (u["weaker"], u["stronger"], u["wins"], u["losses"]) == ("mc", "greedy", 6, 14)
    assert u["share"] == pytest.approx(6 / 20)


def test_gap_share_formula_and_missing_roles() -> None:
    assert ladder_results.gap_share(100.0, 250.0, 400.0) == pytest.approx(0.5)
    assert ladder_results.gap_share(0.0, 450.0, 300.0) == pytest.approx(1.5)  # search above the ceiling
    assert ladder_results.gap_share(300.0, 350.0, 300.0) != ladder_results.gap_share(300.0, 350.0, 300.0)  # NaN: no gap
    spec = ladder.LadderSpec(variant="classic", rules={}, rungs=("random", "greedy", "mc"), seed=0, pairs=10,
                             jump_pairs=0, bootstrap=20)
    data = ladder_results.results(spec, CHAIN[:2])
    assert data["gap"] is None and data["span"]["high"] == "mc"
    assert "Gap share: not measured" in ladder_results.markdown_report(data)


# ---------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("args, fragment", [
    (("--rungs", "greedy,nosuch"), "unknown strategy 'nosuch'"),
    (("--rungs", "greedy"), "a ladder needs at least two rungs: got greedy"),
    (("--rungs", "random,mc:samples=2"), "rated with greedy = 0: add greedy to the rungs (got random, "
                                         "mc:samples=2)"),
    (("--rungs", "greedy,random,greedy"), "every rung must be different: greedy is given twice"),
    (("--rungs", "greedy,samples=2"), "belongs to no strategy"),
    (("--rungs", "random,greedy", "--jump-pairs", 1), "--jump-pairs must be 0 (no jumps) or at least 2"),
    (("--resume",), "--resume needs --out"),
    (("--pairs", 1), "bad --pairs 1: allowed is an integer from 2 to"),
    (("--bootstrap-seed", -1), "bad --bootstrap-seed -1: allowed is an integer from 0 to"),
    (("--rungs", "random,greedy", "--rule", "num_players=3"), "a duplicate match needs two sides"),
])
def test_bad_ladders_are_one_line_errors(args: tuple[Any, ...], fragment: str) -> None:
    assert fragment in error_line("ladder", *args)


# ------------------------------------------------------------------------------------------ real ladder
@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny real ladder played once, uninterrupted."""
    out = tmp_path_factory.mktemp("ladder") / "whole"
    cli(*LADDER, "--out", out)
    return out


def test_a_tiny_real_ladder_end_to_end(finished: Path) -> None:
    for name in ("ladder.json", *LADDER_FILES):
        assert (finished / name).exists(), name
    data = json.loads((finished / "ratings.json").read_text())
    assert [r["rung"] for r in data["ratings"]] == RUNGS.split(",")
    assert next(r["elo"] for r in data["ratings"] if r["rung"] == "greedy") == 0.0
    assert [(m["a"], m["b"], m["kind"], m["games"]) for m in data["matches"]] == [
        ("random", "greedy", "neighbour", 6), ("greedy", "mc:samples=1", "neighbour", 6),
        ("random", "mc:samples=1", "jump", 6)]
    md = (finished / "ladder.md").read_text()
    assert md.startswith("# Ladder: classic, rungs random, greedy, mc:samples=1\n")
    assert "max_hands=1" in md and "Span: random -> " in md
    assert (finished / "ladder.png").read_bytes()[:4] == b"\x89PNG"
    assert (finished / "neighbours.csv").read_text().splitlines()[0].startswith("weaker,stronger,pairs")


def test_a_ladder_match_replays_on_its_own_with_simcli_match(finished: Path) -> None:
    row = json.loads((finished / "ratings.json").read_text())["matches"][1]
    alone = json.loads(cli("match", row["a"], row["b"], "--seed", row["seed"], "--games", row["games"], "--jobs",
                           1, "--format", "json", *SHORT).stdout)
    assert (alone["score"], alone["pairs"]) == (row["score"], row["pairs"])
    stored_match = json.loads(match_path(finished, 1, 2).read_text())
    assert stored_match["spec"]["seed"] == row["seed"] == ladder.match_seed(5, "greedy", "mc:samples=1")


def test_an_interrupted_ladder_resumes_to_exactly_the_uninterrupted_outputs(
        finished: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = ladder_cmd.play_one
    calls: list[int] = []

    def play(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ladder_cmd, "play_one", play)
    out = tmp_path / "cut"
    res = cli(*LADDER, "--out", out, code=130)
    assert f"simcli ladder --resume --out {out}" in res.stderr
    assert sorted(p.name for p in (out / "matches").iterdir()) == ["match-00-01.json"]
    assert not (out / "ratings.json").exists()
    monkeypatch.undo()
    res = cli("ladder", "--resume", "--out", out)
    assert "match 1/3 (neighbour" in res.stdout and "random vs greedy: stored, verified (reused)" in res.stdout
    for name in LADDER_FILES:
        assert (out / name).read_bytes() == (finished / name).read_bytes(), name
    for path in (finished / "matches").iterdir():
        assert (out / "matches" / path.name).read_bytes() == path.read_bytes(), path.name


def test_a_damaged_match_file_is_detected(finished: Path, tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(finished, out)
    path = match_path(out, 0, 2)
    data = json.loads(path.read_text())
    # One game turned from A's loss into its win and the counts made to agree: only the digest catches it.
    text = data["half_points"]
    at = next(n for n, c in enumerate(text) if c <= "2")
    data["half_points"] = text[:at] + str(int(text[at]) + 2) + text[at + 1:]
    data["wins"], data["losses"] = data["wins"] + 1, data["losses"] - 1
    data["pentanomial"] = [data["half_points"].count(str(h)) for h in range(5)]
    path.write_text(json.dumps(data))
    line = error_line("ladder", "--resume", "--out", out)
    assert str(path) in line and "SHA-256 digest does not match" in line and "valid match of this ladder" in line
    # Other settings, and a new ladder in a folder that holds one, are refused too.
    assert "seed (folder has 5, now 6)" in error_line("ladder", "--resume", "--out", out, "--seed", 6)
    assert "already holds a ladder" in error_line(*LADDER, "--out", out)
