"""Reports that grow with the runs (issue 36): the deals are read a few columns at a time and added up per game.

* The estimators from per-unit sums and value counts (simcli.stats.sums) equal those on the observations.
* On runs of every kind (Classic, rotated, Ponytail, Spanish, CSV, skipped games, an interrupted run, rows out of
  order), a run opened by ``scan`` gives every metric, section and comparison of the run loaded whole, and every
  deals metric equals the estimators of :mod:`simcli.stats.estimators` on its observations.
* An analysis reads the columns it needs, not the deals table: a report holds a fraction of the table's memory.
* The integrity check, now streamed, still finds duplicated and stray deal rows.
* scripts/report_bench.py's synthetic runs (copies with shifted game indices) pass ``simcli verify``.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_helpers import cli
from helpers import load_script

from simcli import stats
from simcli.rules.presets import load_rules
from simcli.runs import execute, tables
from simcli.runs.integrity import check_run
from simcli.runs.results import load, scan
from simcli.runs.run_files import file_digest
from simcli.runs.spec import RunSpec

TESTS = Path(__file__).resolve().parent
RUNS = {
    "classic": ["--games", 16, "--seed", 5, "--chunk-size", 4, "--rule", "exact_cut_bonus=100"],
    "rotated": ["--games", 6, "--seed", 6, "--strategies", "greedy,random", "--rotate-seats"],
    "ponytail": ["--variant", "ponytail", "--games", 4, "--seed", 7, "--strategies", "ponytail,greedy",
                 "--rotate-seats"],
    "spanish": ["--variant", "spanish", "--games", 4, "--seed", 8, "--strategies", "spanish"],
    "csv": ["--games", 8, "--seed", 5, "--format", "csv"],
    "skipped": ["--games", 12, "--seed", 4, "--strategies", "failing_strategy:FailOnTurnFive", "--on-error", "skip"],
}


def close(a: Any, b: Any) -> bool:
    """Equal, or numbers equal to 1e-9 (relative and absolute), NaN to NaN."""
    if a is None or b is None or (not isinstance(a, str) and pd.isna(a)) or (not isinstance(b, str) and pd.isna(b)):
        return (a is None or pd.isna(a)) and (b is None or pd.isna(b))
    if isinstance(a, float | np.floating) or isinstance(b, float | np.floating):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    return bool(a == b)


def same_table(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    for col in a.columns:
        for i, (x, y) in enumerate(zip(a[col].tolist(), b[col].tolist(), strict=True)):
            assert close(x, y), f"row {i} {col}: {x!r} != {y!r}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small runs of every kind, and a run interrupted after two of its four chunks."""
    base = tmp_path_factory.mktemp("streams")
    sys.path.insert(0, str(TESTS))  # failing_strategy:FailOnTurnFive
    try:
        out = {}
        for name, args in RUNS.items():
            out[name] = base / name
            cli("run", *args, "--jobs", 1, "--quiet", "--out", out[name])
    finally:
        sys.path.remove(str(TESTS))
    spec = RunSpec(variant="classic", rules=load_rules("classic").formatted(), strategies=("greedy",) * 4, seed=9,
                   games=16, chunk_size=4)
    seen: list[int] = []

    def stop_after_two(n: int) -> None:
        seen.append(n)
        if sum(seen) == 8:
            raise KeyboardInterrupt

    out["interrupted"] = base / "interrupted"
    with pytest.raises(KeyboardInterrupt):
        execute.execute_run(spec, out["interrupted"], jobs=1, progress=stop_after_two)
    assert json.loads((out["interrupted"] / "run.json").read_text())["status"] == "interrupted"
    assert json.loads((out["skipped"] / "run.json").read_text())["errors"] > 0
    return out


# ------------------------------------------------------------------------------------------ estimators
@pytest.mark.parametrize("seed", range(6))
def test_sums_give_the_estimators_of_the_observations(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for trial in range(60):
        n = int(rng.integers(1, 300))
        kind = trial % 3
        y = (rng.integers(-5, 40, n).astype(float) if kind == 0 else (rng.random(n) < 0.3).astype(float)
             if kind == 1 else np.round(rng.normal(5, 3, n), 2))
        clusters = np.sort(rng.integers(0, int(rng.integers(1, 40)), n))
        units, where = np.unique(clusters * 2 + rng.integers(0, 2, n), return_inverse=True)  # two units a cluster
        sums, counts = np.bincount(where, weights=y), np.bincount(where)
        values = stats.value_counts(y)
        assert values.quantiles() == stats.quantiles(y)  # the same interpolation, to the bit
        want, got = stats.describe(y, clusters), stats.describe_sums(sums, counts, units // 2, values)
        assert want.keys() == got.keys() and all(close(want[k], got[k]) for k in want), (want, got)
        if kind == 1:
            for method in ("wilson", "exact"):
                for a, b in ((stats.cluster_rate(y, clusters, method),
                              stats.rate_of_sums(sums, counts, units // 2, values, method)),
                             (stats.rate_of(y, method), stats.rate_of_sums(sums, counts, None, values, method))):
                    assert all(close(v, b.as_dict()[k]) for k, v in a.as_dict().items()), (a, b)


def test_value_counts_merge_and_spread() -> None:
    a, b = stats.value_counts([3, 1, 1]), stats.value_counts([1, 2, np.nan])
    merged = a.merge(b)
    assert merged.values.tolist() == [1, 2, 3] and merged.counts.tolist() == [3, 1, 1]
    assert merged.sd(1.6) == pytest.approx(np.std([1, 1, 1, 2, 3], ddof=1))
    assert stats.value_counts([]).quantiles()["median"] != stats.value_counts([]).quantiles()["median"]  # NaN


# ---------------------------------------------------------------------------------- files against memory
def metrics_of(run: Any) -> list[stats.Metric]:
    names = list(stats.METRICS) + [f"{kind}:{who}" for who in stats.run_strategies(run.games)
                                   for kind in stats.QUALIFIED_METRICS]
    found = []
    for name in names:
        try:
            stats.summarize(run, stats.metric(name))
        except stats.StatsError:
            continue
        found.append(stats.metric(name))
    return found


def observation_summary(run: Any, m: stats.Metric) -> dict[str, Any]:
    """summarize as it was computed from the observations, before issue 36 (the reference)."""
    obs = stats.observations(run, m)
    units = stats.unit_clusters(obs) if m.level != "seat-deal" else stats.game_cluster(obs)
    if m.kind == "rate":
        if units is None and m.binary:
            return stats.rate(int(obs["value"].sum()), len(obs), m.interval).as_dict()
        return stats.cluster_rate(obs["value"], units, m.interval).as_dict()
    return stats.describe(obs["value"], units if m.level == "game" else stats.game_cluster(obs))


@pytest.mark.parametrize("name", [*RUNS, "interrupted"])
def test_a_scanned_run_gives_what_the_loaded_run_gives(runs: dict[str, Path], name: str) -> None:
    whole, streamed = load(runs[name]), scan(runs[name])
    metrics = metrics_of(whole)
    assert [m.name for m in metrics] == [m.name for m in metrics_of(streamed)]
    assert any(m.level != "game" for m in metrics)
    for m in metrics:
        a, b = stats.summarize(whole, m), stats.summarize(streamed, m)
        assert a.keys() == b.keys() and all(close(a[k], b[k]) for k in a), m.name
        ref = observation_summary(whole, m)
        assert all(close(v, b[k]) for k, v in ref.items()), m.name
        pa_, pb = stats.per_game(whole, m), stats.per_game(streamed, m)
        assert pa_.index.tolist() == pb.index.tolist() and pa_.tolist() == pb.tolist(), m.name  # to the bit
        if m.kind == "mean" and m.level != "game":
            assert sorted(stats.observation_values(streamed, m)) == sorted(stats.observations(whole, m)["value"])
    for by in ("team", "seat", "strategy"):
        same_table(stats.run_report(whole, by, metrics), stats.run_report(streamed, by, metrics))
    if name in ("classic", "rotated", "csv"):
        same_table(stats.compare_runs(whole, whole, metrics), stats.compare_runs(streamed, streamed, metrics))


def test_rows_out_of_order_are_placed_by_their_keys(runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "shuffled"
    shutil.copytree(runs["rotated"], run)
    deals = pq.read_table(run / "deals.parquet")
    order = np.random.default_rng(1).permutation(deals.num_rows)
    pq.write_table(deals.take(pa.array(order)), run / "deals.parquet")
    shuffled, ordered = scan(run, check=False), scan(runs["rotated"])
    assert shuffled._offsets is None and ordered._offsets is not None  # keys read, not computed
    metrics = metrics_of(ordered)
    same_table(stats.run_report(ordered, "strategy", metrics), stats.run_report(shuffled, "strategy", metrics))


def test_an_analysis_reads_only_the_columns_it_needs(runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
                                                     ) -> None:
    reads: list[list[str]] = []
    real = tables.arrow_batches

    def recording(run_dir: Path, name: str, columns: Any, *args: Any) -> Any:
        if name == "deals":
            reads.append(list(columns))
        return real(run_dir, name, columns, *args)

    monkeypatch.setattr(tables, "arrow_batches", recording)
    monkeypatch.setattr("simcli.runs.results.arrow_batches", recording)
    run = scan(runs["classic"], check=False)
    stats.run_report(run, "team", stats.parse_metrics("deal_score,went_out,first_player_win", []))
    stats.compare_runs(run, run, stats.parse_metrics(None, stats.DEFAULT_COMPARE))
    width = len(run.deal_columns)
    assert reads and max(len(r) for r in reads) <= 16 < width  # a pass reads the columns of a few figures
    assert not {c for r in reads for c in r} & {"cumulative", "score_melded", "special_hand", "wing_seat"}


def test_memory_grows_with_the_games_not_with_the_deals_table(runs: dict[str, Path], tmp_path: Path) -> None:
    bench = load_bench()
    big = tmp_path / "big"
    bench.replicate(runs["classic"], big, 160)
    run = scan(big)
    whole = pq.read_table(big / "deals.parquet")
    table_bytes = whole.num_rows * whole.num_columns * 8  # the deals table as 64-bit columns in pandas
    del whole
    tracemalloc.start()
    stats.run_report(run, "team", stats.parse_metrics("deal_score,deal_turns,went_out", []))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < table_bytes / 4, f"traced peak {peak:,} bytes, the deals table {table_bytes:,}"


# ------------------------------------------------------------------------------------------ integrity
def rewrite(run: Path, name: str, table: pa.Table) -> None:
    """Replace a consolidated table, recording its new size and checksum (so only its rows can tell)."""
    path = run / f"{name}.parquet"
    pq.write_table(table, path)
    manifest = json.loads((run / "run.json").read_text())
    manifest["tables"][name].update(bytes=path.stat().st_size, sha256=file_digest(path), rows=table.num_rows)
    (run / "run.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(("damage", "reason"), [
    ("twice", "deals.parquet: holds a (game, rotation, deal, team) row more than once"),
    ("stray", "deals.parquet: does not hold the deals of game 3 that the games table lists"),
])
def test_the_streamed_check_finds_damaged_deal_rows(runs: dict[str, Path], tmp_path: Path, damage: str,
                                                   reason: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs["classic"], run)
    deals = pq.read_table(run / "deals.parquet")
    keys = deals.column("game_index").to_numpy()
    row = int(np.flatnonzero(keys == 3)[0])
    if damage == "twice":  # a row of game 3 replaced by a copy of another of its rows: the counts still agree
        idx = np.arange(deals.num_rows)
        idx[row + 1] = row
        deals = deals.take(pa.array(idx))
    else:  # a row of game 3 moved to a deal the game did not play
        values = deals.column("deal_index").to_numpy().copy()
        values[row] = 99
        deals = deals.set_column(deals.schema.get_field_index("deal_index"), "deal_index", pa.array(values))
    rewrite(run, "deals", deals)
    assert [str(p) for p in check_run(run).problems] == [reason]


# --------------------------------------------------------------------------------------- benchmark runs
def load_bench() -> Any:
    return load_script("report_bench")


def test_a_synthetic_run_is_a_valid_run_of_copies(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "synthetic"
    load_bench().replicate(runs["classic"], out, 3)
    assert check_run(out).ok
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["games"] == 48 and "not the games" in manifest["synthetic"]
    small, big = scan(runs["classic"]), scan(out)
    assert sorted(big.games["game_index"]) == list(range(48))
    for name in ("deal_score", "margin", "went_out"):
        a, b = stats.summarize(small, stats.metric(name)), stats.summarize(big, stats.metric(name))
        assert b["n"] == 3 * a["n"] and b["value"] == pytest.approx(a["value"])


# ------------------------------------------------------------------------------------------- reductions
def test_sums_switch_to_floats_when_whole_numbers_would_overflow() -> None:
    deals = pd.DataFrame({"game_index": [0, 0, 0, 1, 1], "rotation": 0, "deal_index": [0, 0, 1, 0, 0],
                          "team": [0, 1, 0, 0, 1], "x": [2e9, 2e9, 1.0, 3.0, 0.5]})
    whole, halves = stats.reduce_deals(stats.deal_source(deals), [
        stats.Quantity(("x",), lambda d: d["x"]), stats.Quantity(("x",), lambda d: d["x"] / 2)])
    assert whole.per_unit().tolist() == [(4e9 + 1) / 3, 3.5 / 2]
    assert halves.per_unit().tolist() == [(2e9 + 0.5) / 3, 1.75 / 2]
    assert whole.values[0].values.tolist() == [0.5, 1.0, 3.0, 2e9]


def test_rows_without_a_group_count_in_all_only() -> None:
    games = pd.DataFrame({"game_index": [0], "rotation": [0], "deals": [1], "winner_team": [0], "margin": [10],
                          "score_team_0": [10], "score_team_1": [0], **{f"strategy_seat_{s}": ["greedy"]
                                                                       for s in range(4)}})
    deals = pd.DataFrame({"game_index": [0, 0, 5, 5], "rotation": 0, "deal_index": 0, "team": [0, 1, 0, 1],
                          "score_total": [100, 20, 7, 9]})
    red = stats.reduce_deals(stats.deal_source(deals), [stats.Quantity(("score_total",), lambda d: d["score_total"])],
                             stats.label_grouping(games, stats.deal_source(deals), "strategy"))[0]
    assert red.ungrouped and red.labels == ["greedy", ""]  # game 5 is not in the games table: no strategy
    assert stats.report_groups(red) == [("all", None), ("greedy", 0)]
    assert (red.group()[1].sum(), red.group(0)[1].sum()) == (4, 2)
    assert red.group()[2].values.tolist() == [7, 9, 20, 100]
