"""A house rule's effect by skill level (issue 23, item 5): ``sweep --levels``, ``compare`` of sweeps, ``plan``
from a levels pilot, and the interaction estimator of :mod:`simcli.stats.interactions`.

Known answers: hand-built run tables with a planted interaction (its interval covers it, p is small), with none
(p < 0.05 in about 5% of replications, the interval covering 0 in about 95%), with 0/1 outcomes and with unpaired
levels (Welch, as scipy computes it); a real case whose effect must differ by level: Americana's
``incomplete_penalty.wild`` steers greedy's wild melds but is never read by ``random``, so on the same deals
random's games are unchanged game by game (effect exactly 0) while greedy's deals get longer.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli, error_line
from scipy import stats as st

from simcli import stats
from simcli.commands import sweep as sweep_cmd
from simcli.reporting import studies
from simcli.runs import results

TINY = ("--rule", "going_out_bonus=100,1000", "--set", "max_hands=1", "--games", 20, "--seed", 3, "--jobs", 1)


# --------------------------------------------------------------------------------- hand-built tables
def fake_run(margin: Any, winner: Any = None, seed: int = 1) -> SimpleNamespace:
    """A run with the columns the game metrics read: one game per index, no rotation."""
    margin = np.asarray(margin, dtype=float)
    n = len(margin)
    winner = np.zeros(n, dtype=int) if winner is None else np.asarray(winner, dtype=int)
    games = pd.DataFrame({"game_index": np.arange(n), "rotation": 0, "margin": margin, "winner_team": winner,
                          "score_team_0": 0, "score_team_1": 0})
    return SimpleNamespace(games=games, deals=pd.DataFrame(), manifest={"seed": seed, "games": n,
                                                                        "rotate_seats": False})


def two_levels(base1: Any, v1: Any, base2: Any, v2: Any, seed2: int = 1) -> list[Any]:
    return [("L1", [("a", fake_run(base1)), ("b", fake_run(v1))]),
            ("L2", [("a", fake_run(base2, seed=seed2)), ("b", fake_run(v2, seed=seed2))])]


def margin_interaction(levels: list[Any]) -> dict[str, Any]:
    table = stats.effect_interactions(levels, [stats.metric("margin")], key="v")
    assert len(table) == 1
    return table.iloc[0].to_dict()


def test_a_planted_interaction_is_found_and_covered() -> None:
    rng = np.random.default_rng(1)
    deal = rng.normal(500, 300, 60)  # the luck of deal i, shared by every level and value
    base1, v1 = deal + rng.normal(0, 20, 60), deal + 100 + rng.normal(0, 20, 60)
    base2, v2 = deal + rng.normal(0, 20, 60), deal + 130 + rng.normal(0, 20, 60)
    r = margin_interaction(two_levels(base1, v1, base2, v2))
    x = (v2 - base2) - (v1 - base1)
    assert r["interaction"] == pytest.approx(x.mean()) and r["n"] == 60 and r["test"] == "paired-t"
    assert r["effect"] == pytest.approx((v2 - base2).mean()) and r["base_effect"] == pytest.approx((v1 - base1).mean())
    ref = st.ttest_1samp(x, 0.0)
    assert r["p"] == pytest.approx(ref.pvalue) and r["p"] < 1e-6
    assert r["ci_low"] < 30 < r["ci_high"]
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(tuple(ref.confidence_interval(0.95)))


def test_no_interaction_gives_large_p_and_covers_zero() -> None:
    rng = np.random.default_rng(7)
    ps, covered, true_covered = [], 0, 0
    for _ in range(200):
        deal = rng.normal(500, 300, 40)
        same = 80 + rng.normal(0, 50, 40)  # each game's effect, the same at both levels (no interaction)
        levels = two_levels(deal, deal + same + rng.normal(0, 30, 40), deal, deal + same + rng.normal(0, 30, 40))
        r = margin_interaction(levels)
        ps.append(r["p"])
        covered += r["ci_low"] <= 0 <= r["ci_high"]
        eff = stats.level_effects(levels, [stats.metric("margin")], key="v")
        true_covered += int(((eff["diff_ci_low"] <= 80) & (80 <= eff["diff_ci_high"])).sum())
    rejected = float(np.mean(np.asarray(ps) < 0.05))
    assert 0.01 <= rejected <= 0.10, rejected
    assert covered >= 180 and true_covered >= 360
    assert float(np.median(ps)) > 0.3


def test_binary_metric_interaction() -> None:
    n = 80
    rng = np.random.default_rng(3)
    base = (rng.random(n) < 0.5).astype(int)  # 1 = team 1 won
    flipped = base.copy()
    flipped[np.flatnonzero(base == 1)[:30]] = 0  # at level 1 the value turns 30 of team 1's wins to team 0's
    levels = [("L1", [("a", fake_run(np.ones(n), 1 - (1 - base))), ("b", fake_run(np.ones(n), flipped))]),
              ("L2", [("a", fake_run(np.ones(n), base)), ("b", fake_run(np.ones(n), base))])]
    m = stats.metric("win_team_0")
    eff = stats.level_effects(levels, [m], key="v").set_index("level")
    assert eff.loc["L1", "diff"] == pytest.approx(30 / n) and eff.loc["L1", "test"] == "mcnemar-exact"
    assert eff.loc["L2", "diff"] == 0 and eff.loc["L2", "p"] == 1
    r = stats.effect_interactions(levels, [m], key="v").iloc[0]
    assert r["interaction"] == pytest.approx(-30 / n) and r["p"] < 1e-6 and r["ci_high"] < 0


def test_unpaired_levels_fall_back_to_welch() -> None:
    rng = np.random.default_rng(5)
    a1, a2 = rng.normal(0, 100, 50), rng.normal(0, 100, 70)
    levels = [("L1", [("a", fake_run(a1)), ("b", fake_run(a1 + 50 + rng.normal(0, 40, 50)))]),
              ("L2", [("a", fake_run(a2, seed=9)), ("b", fake_run(a2 + rng.normal(0, 40, 70), seed=9))])]
    r = margin_interaction(levels)
    d1 = levels[0][1][1][1].games["margin"] - a1
    d2 = levels[1][1][1][1].games["margin"] - a2
    ref = st.ttest_ind(d2, d1, equal_var=False)
    assert r["test"] == "welch-t" and r["p"] == pytest.approx(ref.pvalue) and r["n"] == 120
    with pytest.raises(stats.StatsError, match="cannot be paired.*master seed"):
        stats.effect_interactions(levels, [stats.metric("margin")], paired=True)


def test_levels_must_sweep_the_same_values() -> None:
    levels = two_levels([1, 2], [2, 3], [1, 2], [2, 3])
    levels[1] = ("L2", [("a", levels[1][1][0][1]), ("c", levels[1][1][1][1])])
    with pytest.raises(stats.StatsError, match="level L2 has values a, c but level L1 has a, b"):
        stats.effect_interactions(levels, [stats.metric("margin")])


def test_units_needed_is_the_normal_approximation() -> None:
    z = st.norm.ppf(0.975) + st.norm.ppf(0.8)
    assert stats.units_needed(1.0, 0.5) == int(np.ceil((z * 2) ** 2)) == 32
    assert stats.units_needed(300.0, -50.0, alpha=0.01, power=0.9) == int(
        np.ceil(((st.norm.ppf(0.995) + st.norm.ppf(0.9)) * 6) ** 2))
    with pytest.raises(stats.StatsError, match="nonzero"):
        stats.units_needed(1.0, 0.0)


# ------------------------------------------------------------------------------------------- the CLI
@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A levels sweep: 2 levels x 2 values x 20 one-deal games."""
    out = tmp_path_factory.mktemp("levels") / "lv"
    cli("sweep", *TINY, "--levels", "greedy,random", "--out", out)
    return out


def margins(path: Path) -> pd.Series:
    g = results.load(path).games
    return g.set_index("game_index")["margin"].astype(float)


def test_levels_sweep_tables_match_the_runs(tiny: Path) -> None:
    doc = json.loads((tiny / "sweep.json").read_text())
    assert doc["schema"] == "simcli.sweep-levels/1" and doc["levels"] == ["greedy", "random"]
    assert doc["knob"] == "going_out_bonus" and doc["values"] == ["100", "1000"] and doc["base_level"] == "greedy"
    assert sorted(p.name for p in tiny.iterdir()) == ["greedy", "random", "sweep.csv", "sweep.json", "sweep.md",
                                                      "sweep.png"]
    runs = {lv: {v: tiny / lv / f"going_out_bonus={v}" for v in ("100", "1000")} for lv in ("greedy", "random")}
    for lv in runs:
        for v, path in runs[lv].items():
            m = results.load(path).manifest
            assert m["seed"] == 3 and m["games"] == 20 and set(m["strategies"]) == {lv}
            assert doc["runs"][lv][v] == str(path)
    d = {lv: margins(runs[lv]["1000"]) - margins(runs[lv]["100"]) for lv in runs}
    rows = {(r["level"], r["going_out_bonus"], r["metric"]): r for r in doc["rows"]}
    for lv in runs:
        assert rows[(lv, "1000", "margin")]["diff"] == pytest.approx(d[lv].mean())
        assert rows[(lv, "100", "margin")]["diff"] is None
    inter = rows[("random", "1000", "margin")]
    x = d["random"] - d["greedy"]
    assert inter["inter_interaction"] == pytest.approx(x.mean())
    assert inter["inter_p"] == pytest.approx(st.ttest_1samp(x, 0.0).pvalue)
    assert inter["inter_n"] == 20 and inter["inter_base_level"] == "greedy"
    assert rows[("greedy", "1000", "margin")]["inter_interaction"] is None
    assert {r["metric"] for r in doc["rows"]} == set(sweep_cmd.default_metrics("classic", {"max_hands": 1}))
    csv = pd.read_csv(tiny / "sweep.csv")
    assert len(csv) == len(doc["rows"]) == 2 * 2 * 4
    md = (tiny / "sweep.md").read_text()
    assert "Regenerate: `simcli sweep --variant classic --rule going_out_bonus=100,1000" in md
    assert "--levels greedy,random" in md and "Interactions:" in md and "random vs greedy" in md
    assert (tiny / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_repeated_strategies_are_the_same_levels(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(tiny, out)
    for f in out.glob("sweep.*"):
        f.unlink()
    res = cli("sweep", *TINY, "--strategies", "greedy", "--strategies", "random", "--out", out, "--format", "csv")
    assert "played 20" not in res.stderr and res.stderr.count("reused the finished run") == 4
    assert res.stdout.rstrip("\n") == (tiny / "sweep.csv").read_text().rstrip("\n")
    assert "--strategies greedy --strategies random" in (out / "sweep.md").read_text()


def test_an_interrupted_levels_sweep_resumes_to_the_same_outputs(tiny: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "resumed"
    real = studies.play_or_reuse
    calls: list[int] = []

    def play(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:  # the first run of the second level
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(studies, "play_or_reuse", play)
    res = cli("sweep", *TINY, "--levels", "greedy,random", "--out", out, code=130)
    assert not (out / "sweep.csv").exists() and (out / "greedy" / "going_out_bonus=1000").is_dir()
    command = res.stderr.strip().splitlines()[-1].strip()
    monkeypatch.undo()
    again = cli(*command.split()[1:])
    assert again.stderr.count("reused the finished run") == 2 and again.stderr.count("played 20 games") == 2
    assert (out / "sweep.csv").read_text() == (tiny / "sweep.csv").read_text()
    rows = json.loads((out / "sweep.json").read_text())["rows"]
    assert rows == json.loads((tiny / "sweep.json").read_text())["rows"]


def test_bad_levels_are_one_line_errors(tmp_path: Path) -> None:
    out = tmp_path / "never"
    cases = {
        ("--levels", "greedy,gredy"): "bad level 'gredy': ",
        ("--levels", "greedy"): "names 1 level(s); give at least two",
        ("--levels", "greedy,greedy"): "level 'greedy' is given twice",
        ("--levels", "greedy,samples=3"): "bad --levels 'greedy,samples=3': option 'samples=3' after 'greedy'",
        ("--levels", "mc:samplez=3,greedy"): "unknown option 'samplez' for strategy 'mc'",
        ("--levels", "greedy,random", "--strategies", "greedy"): "--levels and --strategies do not mix",
        ("--levels", "greedy,random", "--rule", "going_out_bonus=100"): "needs at least two values",
    }
    for extra, message in cases.items():
        line = error_line("sweep", *TINY, "--out", out, *extra)
        assert message in line, line
    assert "gredy" in error_line("sweep", *TINY, "--out", out, "--levels", "greedy,gredy")
    assert not out.exists()


def test_compare_of_sweeps_gives_the_interaction(tiny: Path, tmp_path: Path) -> None:
    doc = json.loads(cli("compare", tiny, "--format", "json").stdout)
    assert doc["schema"] == "simcli.compare-levels/1" and doc["paired"] is True
    assert doc["rows"] == json.loads((tiny / "sweep.json").read_text())["rows"]
    swapped = json.loads(cli("compare", tiny, "--levels", "random,greedy", "--metric", "margin",
                             "--format", "json").stdout)
    mine = {r["level"]: r for r in swapped["rows"] if r["going_out_bonus"] == "1000"}
    orig = {r["level"]: r for r in doc["rows"] if r["going_out_bonus"] == "1000" and r["metric"] == "margin"}
    assert mine["greedy"]["inter_interaction"] == pytest.approx(-orig["random"]["inter_interaction"])
    # one plain sweep per level, on another seed: unpaired across levels only
    other = tmp_path / "other"
    cli("sweep", *TINY[:-4], "--seed", 4, "--jobs", 1, "--strategies", "random", "--out", other, "--metric", "margin")
    line = error_line("compare", tiny / "greedy" / "going_out_bonus=100", other)
    assert "is a run, not a sweep" in line
    assert "cannot be paired" in error_line("compare", tiny, other, "--levels", "greedy,random (" + str(other) + ")")
    res = json.loads(cli("compare", tiny, other, "--levels", f"greedy,random ({other})", "--unpaired",
                         "--metric", "margin", "--format", "json").stdout)
    r = next(x for x in res["rows"] if x["inter_interaction"] is not None)
    d_other = margins(other / "going_out_bonus=1000") - margins(other / "going_out_bonus=100")
    d_greedy = margins(tiny / "greedy" / "going_out_bonus=1000") - margins(tiny / "greedy" / "going_out_bonus=100")
    assert r["inter_test"] == "welch-t"
    assert r["inter_p"] == pytest.approx(st.ttest_ind(d_other, d_greedy, equal_var=False).pvalue)
    assert "no level 'expert'" in error_line("compare", tiny, "--levels", "greedy,expert")


def test_plan_from_a_levels_pilot(tiny: Path) -> None:
    doc = json.loads(cli("plan", "--pilot", tiny, "--metric", "margin", "--effect", 100, "--format", "json").stdout)
    d = {lv: margins(tiny / lv / "going_out_bonus=1000") - margins(tiny / lv / "going_out_bonus=100")
         for lv in ("greedy", "random")}
    z = st.norm.ppf(0.975) + st.norm.ppf(0.8)
    want = {("effect", "greedy"): d["greedy"], ("effect", "random"): d["random"],
            ("interaction", "random"): d["random"] - d["greedy"]}
    got = {(r["kind"], r["level"]): r for r in doc["rows"]}
    assert set(got) == set(want)
    for k, x in want.items():
        assert got[k]["sd"] == pytest.approx(x.std(ddof=1))
        assert got[k]["needed_games"] == max(2, int(np.ceil((z * x.std(ddof=1) / 100) ** 2)))
    text = cli("plan", "--pilot", tiny, "--metric", "margin", "--effect", 100).stdout
    assert "interaction  random vs greedy" in text
    assert "needs the one metric" in error_line("plan", "--pilot", tiny, "--effect", 100)
    assert "drop --paired" in error_line("plan", "--pilot", tiny, "--effect", 100, "--metric", "margin", "--paired")


def test_a_knob_only_one_level_reads_has_a_level_dependent_effect(tmp_path: Path) -> None:
    out = tmp_path / "wild"
    cli("sweep", "--variant", "americana", "--rule", "incomplete_penalty.wild=-2000,0", "--set", "max_hands=1",
        "--games", 20, "--seed", 1, "--jobs", 1, "--levels", "greedy,random", "--metric", "deal_turns",
        "--out", out)
    rows = {(r["level"], r["incomplete_penalty.wild"]): r for r in json.loads((out / "sweep.json").read_text())["rows"]}
    random_runs = [results.load(out / "random" / f"incomplete_penalty.wild={v}").games for v in ("-2000", "0")]
    assert random_runs[0]["turns"].tolist() == random_runs[1]["turns"].tolist()  # random never reads the knob
    assert rows[("random", "0")]["diff"] == 0 and rows[("random", "0")]["p"] == 1
    assert rows[("greedy", "0")]["diff"] > 0 and rows[("greedy", "0")]["p"] < 0.01
    inter = rows[("random", "0")]
    assert inter["inter_interaction"] == pytest.approx(-rows[("greedy", "0")]["diff"])
    assert inter["inter_p"] < 0.01 and inter["inter_ci_high"] < 0
