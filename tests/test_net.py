"""The learnt player (issue 31): data from the search, the fit, the model file and ``net`` at the table.

The whole pipeline runs on a tiny data set (ten Classic games of a two-world ``mc``) in seconds: data (resumed and
checked), fit (the same weights from the same seed), the model's metadata and figures, games of ``net`` (the same on
one and two jobs), and the refusals: missing, damaged and other-version files, other rules (and ``any_rules``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from helpers import record_game
from net_models import floats_of_counts, random_model

from simcli.cli import main
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules
from simcli.strategies.heuristics.greedy import Greedy
from simcli.strategies.learnt import net_play
from simcli.strategies.learnt.model import Model, ModelError, load_model, model_for_rules, rules_digest
from simcli.strategies.learnt.net import Net
from simcli.strategies.learnt.net_features import (
    CANDIDATE_COLUMNS,
    FEATURE_VERSION,
    STATE_COLUMNS,
    STATE_COUNTS,
    decision_features,
)
from simcli.strategies.search.candidates import discard_candidates
from simcli.training.data import check_data, read_data
from simcli.training.fit import FitSettings, figures, fit, picks

TINY = ["--strategies", "mc:samples=2,greedy,mc:samples=2,greedy", "-n", "10", "--chunk", "5", "--seed", "3", "-q"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny data folder and the model fitted to it."""
    root = tmp_path_factory.mktemp("net")
    data = root / "data"
    result = CliRunner().invoke(main, ["train", "data", str(data), *TINY])
    assert result.exit_code == 0, result.output
    model = root / "model.npz"
    result = CliRunner().invoke(main, ["train", "fit", str(data), str(model), "--epochs", "3", "-q", "--hidden", "16"])
    assert result.exit_code == 0, result.output
    assert "held out" in result.output and "picks the search's choice" in result.output
    return data, model


def test_data_rows_hold_every_searched_candidate(tiny: tuple[Path, Path]) -> None:
    data, _ = tiny
    assert check_data(data) == []
    meta, frame, x = read_data(data)
    assert meta["variant"] == "classic" and meta["feature_version"] == FEATURE_VERSION
    assert x.shape == (len(frame), STATE_COLUMNS + CANDIDATE_COLUMNS)
    assert set(frame["game"]) == set(range(10))
    per = frame.groupby("decision")
    assert (per["chosen"].sum() == 1).all()  # one chosen candidate a decision
    assert (per["candidate"].min() == 0).all() and (per.size() >= 2).all()
    assert set(frame["kind"]) == {"draw", "melds", "discard"}
    assert set(frame["seat"]) == {0, 2}  # the search player's seats only
    assert frame["mean"].notna().all() and (frame["worlds"] == 2).all()


def test_data_resumes_and_refuses_other_settings(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    data, _ = tiny
    before = {p.name: p.stat().st_mtime_ns for p in data.glob("chunk-*.parquet")}
    result = CliRunner().invoke(main, ["train", "data", str(data), *TINY])
    assert result.exit_code == 0, result.output
    assert {p.name: p.stat().st_mtime_ns for p in data.glob("chunk-*.parquet")} == before  # nothing played again
    result = CliRunner().invoke(main, ["train", "data", str(data), *TINY[:-3], "--seed", "4", "-q"])
    assert result.exit_code == 1 and "other settings" in result.output
    # A folder missing a chunk plays only that chunk again, the same rows.
    copy = tmp_path / "copy"
    copy.mkdir()
    for p in data.iterdir():
        if p.name not in ("chunk-00001.parquet", "done-00001.json"):
            copy.joinpath(p.name).write_bytes(p.read_bytes())
    result = CliRunner().invoke(main, ["train", "data", str(copy), *TINY])
    assert result.exit_code == 0, result.output
    assert copy.joinpath("chunk-00001.parquet").read_bytes() == data.joinpath("chunk-00001.parquet").read_bytes()


def test_a_damaged_chunk_is_found(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    data, _ = tiny
    copy = tmp_path / "copy"
    copy.mkdir()
    for p in data.iterdir():
        copy.joinpath(p.name).write_bytes(p.read_bytes())
    chunk = copy / "chunk-00000.parquet"
    chunk.write_bytes(chunk.read_bytes()[:-10] + b"0123456789")
    assert check_data(copy) == ["chunk-00000.parquet: its SHA-256 differs from its done-marker's (damaged)"]
    result = CliRunner().invoke(main, ["train", "fit", str(copy), str(tmp_path / "m.npz"), "-q"])
    assert result.exit_code == 1 and "damaged" in result.output


def test_the_same_seed_fits_the_same_weights(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    data, model = tiny
    settings = FitSettings(hidden=16, epochs=3, seed=1)
    fit(data, tmp_path / "again.npz", settings)
    fit(data, tmp_path / "other.npz", FitSettings(hidden=16, epochs=3, seed=2))
    with np.load(model) as a, np.load(tmp_path / "again.npz") as b, np.load(tmp_path / "other.npz") as c:
        assert sorted(a.files) == sorted(b.files)
        for k in a.files:
            if k != "meta":
                assert np.array_equal(a[k], b[k]), k
        assert not np.array_equal(a["W0"], c["W0"])
    meta = load_model(model).meta
    assert meta["games"] == 10 and meta["variant"] == "classic" and meta["rules_digest"] == rules_digest(
        load_rules("classic"))
    assert meta["data_command"].startswith("simcli train data") and meta["seed"] == 1
    assert set(meta["held_out"]) >= {"top1_search", "rmse", "gain_over_heuristic", "decisions"}
    assert model.stat().st_size < 1 << 20


def test_the_ridge_baseline_fits(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    data, _ = tiny
    meta = fit(data, tmp_path / "ridge.npz", FitSettings(hidden=0))
    assert len(load_model(tmp_path / "ridge.npz").layers) == 1 and meta["hidden"] == 0


def test_min_scale_leaves_nearly_constant_features_unscaled(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    """``--min-scale``: a feature with a smaller standard deviation over the training rows is divided by 1, so a
    house rule met in a handful of rows cannot blow the model's values up where it does vary (issue 48)."""
    data, model = tiny
    result = CliRunner().invoke(main, ["train", "fit", str(data), str(tmp_path / "m.npz"), "--hidden", "16",
                                       "--epochs", "3", "--min-scale", "0.3", "-q"])
    assert result.exit_code == 0, result.output
    with np.load(model) as a, np.load(tmp_path / "m.npz") as b:
        small = (a["x_scale"] < 0.3) & (a["x_scale"] != 1.0)
        assert small.any()  # the tiny data has such features: the test can tell
        assert (b["x_scale"][small] == 1.0).all() and (b["x_scale"][~small] == a["x_scale"][~small]).all()
        assert not np.array_equal(a["W0"], b["W0"])
    assert load_model(tmp_path / "m.npz").meta["min_scale"] == 0.3 and "min_scale" not in load_model(model).meta


def test_a_fixed_margin_is_the_models_and_the_weights_are_the_same(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    """``--margin M``: net plays the model with M (its metadata's ``margin``) instead of the validation games' best;
    the weights do not depend on it."""
    data, model = tiny
    result = CliRunner().invoke(main, ["train", "fit", str(data), str(tmp_path / "m.npz"), "--epochs", "3", "-q",
                                       "--hidden", "16", "--margin", "123"])
    assert result.exit_code == 0, result.output
    assert load_model(tmp_path / "m.npz").margin == 123.0 and load_model(model).margin != 123.0
    with np.load(model) as a, np.load(tmp_path / "m.npz") as b:
        for k in a.files:
            if k != "meta":
                assert np.array_equal(a[k], b[k]), k
    result = CliRunner().invoke(main, ["train", "fit", str(data), str(tmp_path / "n.npz"), "--margin", "-1"])
    assert result.exit_code == 2 and "-1" in result.output


def test_figures_and_picks() -> None:
    decisions = np.array([0, 0, 0, 1, 1])
    values = np.array([0.0, 5.0, 1.0, 3.0, 0.0])
    assert list(picks(values, decisions, 0.0)) == [1, 3]
    assert list(picks(values, decisions, 10.0)) == [0, 3]  # not clear of the heuristic's choice by 10
    target = np.array([-10.0, 20.0, -10.0, 1.0, -1.0])
    chosen = np.array([False, True, False, True, False])
    f = figures(values, target, decisions, chosen, 0.0)
    assert f["top1_search"] == 1.0 and f["top1_heuristic_baseline"] == 0.5
    assert f["gain_over_heuristic"] == 15.0 and f["search_gain_over_heuristic"] == 15.0


def test_net_plays_the_same_games_on_one_and_two_jobs(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    _, model = tiny
    tables = []
    for jobs in (1, 2):
        out = tmp_path / f"run{jobs}"
        result = CliRunner().invoke(main, ["run", "-n", "4", "--seed", "9", "--chunk-size", "1", "--jobs", str(jobs),
                                           "--strategies", f"net:model={model},greedy", "--out", str(out)])
        assert result.exit_code == 0, result.output
        tables.append(pd.read_parquet(out / "deals.parquet"))
    pd.testing.assert_frame_equal(tables[0], tables[1])


def test_net_scores_every_candidate_in_one_batch_and_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = random_model(tmp_path / "r.npz", max_hands=1)
    calls: list[int] = []
    model = load_model(path)
    batch = net_play.forward

    def counted(counts: bytes | list[int], k: int, *arrays: Any) -> list[float]:
        calls.append(k)
        out = batch(counts, k, *arrays)
        # The play-time pass over counts is the pass over whole float rows, less the output layer's bias.
        assert isinstance(counts, bytes)
        x = np.frombuffer(counts, np.uint8)
        rows = np.hstack([np.tile(x[:STATE_COUNTS], (k, 1)), x[STATE_COUNTS:].reshape(k, -1)])
        full = model.values(floats_of_counts(rows)) - model.layers[-1][1][0] * model.y_scale
        assert np.allclose(out, full, rtol=1e-9, atol=1e-9)
        return out

    monkeypatch.setattr(net_play, "forward", counted)
    rules = load_rules("classic", {"max_hands": 1})
    players = [Net(np.random.default_rng(s), model=str(path)) for s in range(4)]
    play_game(rules, ["net"] * 4, 1, strategies=players)
    assert calls and max(calls) >= 3  # decisions of several candidates, each in one call


def test_net_is_numpy_only_at_play_time(tmp_path: Path) -> None:
    path = random_model(tmp_path / "r.npz", max_hands=1)
    code = ("import sys; from simcli.players.seating import play_game; from simcli.rules.presets import load_rules;"
            f"play_game(load_rules('classic', {{'max_hands': 1}}), ['net:model={path}', 'greedy'] * 2, 1);"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'torch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_bad_model_files_are_one_line_errors(tmp_path: Path) -> None:
    missing = tmp_path / "none.npz"
    damaged = tmp_path / "bad.npz"
    damaged.write_bytes(b"not a zip file")
    empty = tmp_path / "empty.npz"
    np.savez(empty, nothing=np.zeros(1))
    old = random_model(tmp_path / "old.npz")
    with np.load(old) as z:
        arrays = dict(z)
    meta = json.loads(str(arrays["meta"]))
    meta["feature_version"] = FEATURE_VERSION + 1
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "future.npz", **arrays)
    cases = {missing: "not found", damaged: "damaged", empty: "damaged", tmp_path / "future.npz": "feature version"}
    for path, words in cases.items():
        with pytest.raises(ModelError, match=words) as err:
            Model(path)
        assert "\n" not in str(err.value)
        result = CliRunner().invoke(main, ["run", "-n", "1", "--strategies", f"net:model={path},greedy",
                                           "--out", str(tmp_path / f"run-{path.stem}")])
        assert result.exit_code != 0 and words in result.output, result.output
        assert len(result.output.strip().splitlines()) <= 2, result.output


def test_other_rules_are_refused_unless_asked(tmp_path: Path) -> None:
    path = random_model(tmp_path / "m.npz", going_out_bonus=300, max_hands=1)
    rules = load_rules("classic", {"max_hands": 1})
    with pytest.raises(Exception, match="going_out_bonus 300 -> 100") as err:
        play_game(rules, [f"net:model={path}", "greedy"] * 2, 1)
    text = str(err.value)
    assert "simcli train data" in text and "net:any_rules=true" in text and "\n" not in text
    play_game(rules, [f"net:model={path},any_rules=true", "greedy"] * 2, 1)
    other = random_model(tmp_path / "p.npz", variant="ponytail", max_hands=1)
    with pytest.raises(Exception, match="variant ponytail -> classic"):
        play_game(rules, [f"net:model={other}", "greedy"] * 2, 1)


def test_a_folder_of_models_plays_the_one_trained_under_the_games_rules(tmp_path: Path) -> None:
    """``model=FOLDER`` (and ``auto`` over the shipped ones) picks the model of the game's exact rules: a study's house
    rule plays its own model, the preset its own, and rules no model there was trained under are refused."""
    folder = tmp_path / "models"
    folder.mkdir()
    preset = random_model(folder / "classic.npz", max_hands=1)
    house = random_model(folder / "classic-going_out_bonus-300.npz", seed=1, going_out_bonus=300, max_hands=1)
    (folder / "notes.npz").write_bytes(b"not a model")  # left out of the lookup, not a failure
    house_rules = load_rules("classic", {"going_out_bonus": 300, "max_hands": 1})
    preset_rules = load_rules("classic", {"max_hands": 1})
    assert model_for_rules(house_rules, folder).path == house.resolve()
    assert model_for_rules(preset_rules, folder).path == preset.resolve()
    assert model_for_rules(house_rules, folder).refusal(house_rules) is None
    # a general model (a catalogue's) of the same base is nobody's exact-rules model: the preset keeps its own even
    # where the general file sorts first (a retired general model beside a retired specialist)
    tiny = {"variant": "classic", "preset_share": 0.0, "changes": [1, 1],
            "knobs": {"going_out_bonus": {"values": [100, 300]}}}
    general = random_model(folder / "a-general.npz", seed=2, catalogue=tiny, max_hands=1)
    other_folder = tmp_path / "fresh"
    other_folder.mkdir()
    (other_folder / general.name).write_bytes(general.read_bytes())
    (other_folder / "classic-preset.npz").write_bytes(preset.read_bytes())
    assert model_for_rules(preset_rules, other_folder).path == (other_folder / "classic-preset.npz").resolve()
    general.unlink()
    # the house model changes the games: its own weights, not the preset's (any_rules makes the preset's play)
    own = record_game(house_rules, [f"net:model={folder}", "greedy"] * 2, 5, 0)[1][1:]  # after game_start (names)
    borrowed = record_game(house_rules, [f"net:model={preset},any_rules=true", "greedy"] * 2, 5, 0)[1][1:]
    assert own != borrowed
    assert own == record_game(house_rules, [f"net:model={house}", "greedy"] * 2, 5, 0)[1][1:]
    with pytest.raises(Exception, match="going_out_bonus 100 -> 500"):
        play_game(load_rules("classic", {"going_out_bonus": 500, "max_hands": 1}),
                  [f"net:model={folder}", "greedy"] * 2, 5)


def test_a_shipped_models_name_is_that_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``model=ponytail`` is the shipped Ponytail model wherever the command runs; a file of that name in the folder
    the command runs in comes first, and a name no model has is the one-line missing-file error."""
    from simcli.strategies.learnt.model import MODELS

    monkeypatch.chdir(tmp_path)
    assert load_model("ponytail").path == (MODELS / "ponytail.npz").resolve()
    with pytest.raises(ModelError, match="not found"):
        load_model("no_such_model")
    (tmp_path / "ponytail").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="damaged"):
        load_model("ponytail")


def test_features_have_the_declared_width() -> None:
    rules = load_rules("classic", {"max_hands": 1})
    seen: list[np.ndarray] = []

    class Probe(Greedy):
        def choose_discard(self, view):  # type: ignore[no-untyped-def]
            own = super().choose_discard(view)
            seen.append(decision_features(view, "discard", discard_candidates(view, own)))
            return own

    play_game(rules, ["greedy"] * 4, 2, strategies=[Probe(np.random.default_rng(s)) for s in range(4)])
    assert seen and all(x.shape[1] == STATE_COLUMNS + CANDIDATE_COLUMNS for x in seen)
    assert all(np.isfinite(x).all() for x in seen)


def test_data_is_the_same_on_dask(tmp_path: Path) -> None:
    small = ["--strategies", "mc:samples=1,greedy,mc:samples=1,greedy", "-n", "4", "--chunk", "2", "-q",
             "--rule", "max_hands=1"]
    for name, extra in (("local", []), ("dask", ["--backend", "dask", "--jobs", "2"])):
        result = CliRunner().invoke(main, ["train", "data", str(tmp_path / name), *small, *extra])
        assert result.exit_code == 0, result.output
    for k in (0, 1):
        chunk = f"chunk-{k:05d}.parquet"
        assert (tmp_path / "local" / chunk).read_bytes() == (tmp_path / "dask" / chunk).read_bytes()


def test_eval_measures_a_model_on_a_data_folder(tiny: tuple[Path, Path]) -> None:
    data, model = tiny
    result = CliRunner().invoke(main, ["train", "eval", str(model), str(data)])
    assert result.exit_code == 0, result.output
    figures = dict(item.split("=") for item in result.output.split())
    assert float(figures["top1_search"]) == load_model(model).meta["held_out"]["top1_search"]
    result = CliRunner().invoke(main, ["train", "eval", str(model), str(data), "--all-games", "--margin", "1e9"])
    assert "gain_over_heuristic=0.0 " in result.output  # an unreachable margin keeps every heuristic choice


def test_a_recorded_seat_keeps_reading_the_history() -> None:
    """train data wraps its search seats in a recording seat: the engine records the table's history only for a deal
    at which a seat reads it, so a wrapped mc:infer must still say it does, or it would search uniform worlds."""
    from simcli.engine.view import PlayerView
    from simcli.players.loading import load_strategy, strategy_options
    from simcli.players.seats import recording_seat as Recorder

    def keep(view: PlayerView, kind: str, weighed: object) -> None:
        """Rows are not needed here."""

    inferring = load_strategy("mc")(np.random.default_rng(0), **strategy_options("mc:infer=20"))
    plain = load_strategy("mc")(np.random.default_rng(0))
    assert Recorder(inferring, keep).reads_history is True
    assert Recorder(plain, keep).reads_history is False


def test_a_followed_seat_records_the_search_and_plays_the_followers_game(tmp_path: Path) -> None:
    """`train data --play P`: the recorded seats weigh every decision with the search but play P's decisions, so the
    game is P's own game (here greedy's, decision for decision) while mc's own play is another game."""
    from simcli.engine.game import play_seated_game
    from simcli.players.seating import make_strategies
    from simcli.players.seats import recording_seats

    rules = load_rules("classic", {"max_hands": "2"})
    names = ["mc:samples=2", "greedy", "mc:samples=2", "greedy"]
    kept: list[tuple[int, str]] = []

    def record(seat: int) -> Any:
        return lambda view, kind, weighed: kept.append((seat, kind))

    def seated(follow: bool) -> Any:
        followers = make_strategies(["greedy"] * 4, 5, 0) if follow else None
        return recording_seats(make_strategies(names, 5, 0), record, followers)

    alone = play_game(rules, ["greedy"] * 4, 5, 0)
    followed = play_seated_game(rules, seated(True), names, 5, 0)
    assert [d.scores for d in followed.deals] == [d.scores for d in alone.deals]
    assert followed.turns == alone.turns and followed.totals == alone.totals
    assert kept and {seat for seat, _ in kept} == {0, 2}  # the search weighed the followed seats' decisions
    own = play_seated_game(rules, seated(False), names, 5, 0)
    assert [d.scores for d in own.deals] != [d.scores for d in alone.deals]  # without a follower: mc's game

    data = tmp_path / "data"
    args = ["train", "data", str(data), *TINY[:2], "--play", "greedy", "-n", "2", "--chunk", "1", "--seed", "3", "-q"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    meta, frame, _ = read_data(data)
    assert meta["spec"]["play"] == "greedy" and set(frame["seat"]) == {0, 2}
    result = CliRunner().invoke(main, [*args[:5], "-n", "2", "--chunk", "1", "--seed", "3", "-q"])
    assert result.exit_code == 1 and "other settings" in result.output  # the same folder without --play: refused
    for bad in (["--play", "nosuch"], ["--strategies", "greedy,nosuch,greedy,greedy"]):  # one line, before a worker
        result = CliRunner().invoke(main, ["train", "data", str(tmp_path / "bad"), *bad, "-n", "2", "-j", "2", "-q"])
        assert result.exit_code == 1 and "nosuch: unknown strategy 'nosuch'" in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "bad").exists()
