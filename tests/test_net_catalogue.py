"""One learnt player per variant that reads the rules it plays (issue 47): catalogues of house rules, rule features,
data drawn from a catalogue, a general model that plays inside its catalogue and refuses outside it in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import deal_state, make_rules
from net_models import floats_of_counts

from simcli.cli import main
from simcli.engine.view import PlayerView
from simcli.primitives.actions import Meld
from simcli.primitives.cards import KING, QUEEN
from simcli.rules.presets import load_rules
from simcli.strategies.learnt.catalogue import Catalogue, CatalogueError, load_catalogue
from simcli.strategies.learnt.model import load_model
from simcli.strategies.learnt.net_features import CANDIDATE_COLUMNS, FEATURE_VERSION, STATE_COLUMNS, decision_counts
from simcli.strategies.learnt.net_play import Seat
from simcli.strategies.search.candidates import meld_candidates
from simcli.training.data import read_data
from simcli.training.fit import save_model

#: Knobs each shipped catalogue must vary: the published studies' (results/studies), the match length's, and
#: RULES.md's common house rules for the variant.
MUST = {
    "classic": {"going_out_bonus", "exact_cut_bonus", "initial_meld_table", "draw_count", "max_hands", "game_target"},
    "americana": {"draw_count", "initial_meld_table", "allow_8th_card_when_going_out",
                  "min_naturals_before_adding_wild",
                  "pairs_wild_pair_ranks", "empty_pile_no_dead_card", "max_hands", "game_target"},
    "ponytail": {"pony_unlock", "pony_partner_pickup", "new_meld_after_closed_canasta", "cut_sigma",
                 "exact_cut_bonus", "pony_dealer_exact_bonus", "seven_freezes_pile", "max_hands", "game_target"},
    "spanish": {"exact_pile_pick_bonus", "castigado_requirement", "quick_finish_bonus", "max_hands", "game_target"},
}

#: A tiny catalogue for the pipeline: every game changes one or two of two knobs.
TINY = {"variant": "spanish", "preset_share": 0.0, "changes": [1, 2],
        "knobs": {"going_out_bonus": {"values": [100, 200, 500]},
                  "exact_pile_pick_bonus": {"values": [0, 700]}}}


@pytest.mark.parametrize("variant", sorted(MUST))
def test_every_variant_ships_a_catalogue_of_its_house_rules(variant: str) -> None:
    cat = load_catalogue(variant)
    assert cat.variant == variant and len(cat.knobs) >= 15
    assert MUST[variant] <= {k.name for k in cat.knobs}
    preset = load_rules(variant)
    assert cat.outside(preset) is None  # the preset is inside
    for k in cat.knobs:  # every value loads on the preset alone, and moves the rule features
        for value in k.values:
            rules = load_rules(variant, {k.name: value})
            assert cat.outside(rules) is None, (k.name, value)
            if k.knob.format(getattr(preset, k.knob.field)) != value:
                assert not np.array_equal(cat.encode(rules), cat.encode(preset)), (k.name, value)
    assert len(cat.encode(preset)) == len(cat.columns())


def test_a_games_rules_are_drawn_from_its_own_stream() -> None:
    cat = load_catalogue("classic")
    draws = [cat.draw(31, g) for g in range(200)]
    assert draws == [cat.draw(31, g) for g in range(200)]  # the game's own: the same whoever draws it
    assert draws != [cat.draw(32, g) for g in range(200)]
    sizes = [len(d) for d in draws]
    assert set(sizes) == {0, 1, 2, 3} and 0.15 < sizes.count(0) / 200 < 0.35
    preset = load_rules("classic")
    for d in draws:
        rules = load_rules("classic", d)  # every draw is a rule set the engine takes, inside the catalogue
        assert cat.outside(rules) is None
        assert all(d[k] != v for k, v in preset.formatted().items() if k in d)


def test_a_bad_catalogue_is_one_line(tmp_path: Path) -> None:
    bad = [({**TINY, "knobs": {"going_out_bonnus": {"values": [1]}}}, "going_out_bonnus"),
           ({**TINY, "knobs": {"going_out_bonus": {"values": ["lots"]}}}, "going_out_bonus"),
           ({**TINY, "knobs": {"initial_meld_table": {"values": ["CLASSIC"]}}}, "probes"),
           ({**TINY, "changes": [0, 1]}, "changes")]
    for data, word in bad:
        with pytest.raises(CatalogueError) as err:
            Catalogue.from_dict(data)
        assert word in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(CatalogueError, match="no catalogue handfoot2"):
        load_catalogue("handfoot2")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Data of six one-deal Spanish games drawn from :data:`TINY`, and a model fitted to it."""
    root = tmp_path_factory.mktemp("catalogue")
    (root / "tiny.toml").write_text(
        'variant = "spanish"\npreset_share = 0.0\nchanges = [1, 2]\n'
        '[knobs.going_out_bonus]\nvalues = [100, 200, 500]\n[knobs.exact_pile_pick_bonus]\nvalues = [0, 700]\n')
    data = root / "data"
    result = invoke("train", "data", str(data), "--variant", "spanish", "--rule", "max_hands=1", "--catalogue",
                    str(root / "tiny.toml"), "--search", "mc:samples=2", "-n", "20", "--chunk", "10", "--seed", "5",
                    "--jobs", "1", "-q")
    assert result.exit_code == 0, result.output
    model = root / "general.npz"
    result = invoke("train", "fit", str(data), str(model), "--epochs", "2", "--hidden", "8", "-q")
    assert result.exit_code == 0, result.output
    return data, model


def test_the_data_records_each_games_drawn_rules(pipeline: tuple[Path, Path], tmp_path: Path) -> None:
    data, _ = pipeline
    meta, frame, x = read_data(data)
    cat = Catalogue.from_dict(meta["catalogue"])
    assert {k.name for k in cat.knobs} == {"going_out_bonus", "exact_pile_pick_bonus"}
    by_game = frame.groupby("game")["rules"].first()
    assert by_game.nunique() > 2
    for game, text in by_game.items():  # each game's rules are its draw, over the folder's own --rule
        assert json.loads(text) == cat.draw(5, int(game), {"max_hands": "1"}) != {}
    # the same chunks on two worker processes
    again = tmp_path / "again"
    result = invoke("train", "data", str(again), "--variant", "spanish", "--rule", "max_hands=1", "--catalogue",
                    str(data.parent / "tiny.toml"),
                    "--search", "mc:samples=2", "-n", "20", "--chunk", "10", "--seed", "5", "--jobs", "2", "-q")
    assert result.exit_code == 0, result.output
    for k in (0, 1):
        mine, theirs = (json.loads((f / f"done-{k:05d}.json").read_text()) for f in (data, again))
        assert mine["sha256"] == theirs["sha256"] and mine["rows"] == theirs["rows"]


def test_the_general_model_folds_the_rules_into_its_first_layer(pipeline: tuple[Path, Path]) -> None:
    data, path = pipeline
    model = load_model(path)
    assert model.catalogue is not None and model.meta["catalogue"]["knobs"]["going_out_bonus"]
    assert model.x_mean.size == STATE_COLUMNS + CANDIDATE_COLUMNS + len(model.catalogue.columns())
    bias = float(model.layers[-1][1][0]) * model.y_scale
    seen = set()
    for changes in ({"going_out_bonus": "100"}, {"going_out_bonus": "500", "exact_pile_pick_bonus": "0"}):
        rules = load_rules("spanish", {"max_hands": 1, **changes})
        st = deal_state(rules, {0: "K K K 5 6 7 8 9 10 J Q 4 4 A A"})
        view = PlayerView(st, 0)
        candidates = [[Meld(KING, 3)], []]
        state, parts = decision_counts(view, "melds", candidates)
        counts = [c for part in [state, *parts] for c in part]
        floats = floats_of_counts(np.array([state + p for p in parts]))
        rows = np.hstack([floats, np.tile(model.rule_row(rules), (2, 1))])
        # the play-time pass with the rules folded into the bias = the float rows with the rule features
        values = model.values_of_counts(counts, 2, model.play_buffer(rules))
        assert np.allclose(values, model.values(rows) - bias, rtol=1e-9, atol=1e-6)
        seen.add(tuple(np.round(values, 6)))
    assert len(seen) == 2  # the rules move the values


def test_net_plays_inside_its_catalogue_and_refuses_outside_in_one_line(pipeline: tuple[Path, Path]) -> None:
    _, model = pipeline
    spec = f"net:model={model}"
    inside = invoke("match", spec, "spanish", "--variant", "spanish", "--rule", "max_hands=1", "--rule",
                    "going_out_bonus=300", "--rule", "exact_pile_pick_bonus=0", "-n", "4", "--seed", "9", "-j", "1",
                    "--json")
    assert inside.exit_code == 0, inside.output
    outside = invoke("match", spec, "spanish", "--variant", "spanish", "--rule", "max_hands=1", "--rule",
                     "going_out_bonus=1000", "-n", "4", "--seed", "9", "-j", "1", "-q")
    assert outside.exit_code != 0
    line = outside.output.strip()
    assert "\n" not in line and "going_out_bonus=1000" in line and "100..500" in line
    assert "simcli train data" in line and "any_rules=true" in line
    unknown = invoke("match", spec, "spanish", "--variant", "spanish", "--rule", "max_hands=1", "--rule",
                     "wild_rule=PAGAT", "-n", "4", "--seed", "9", "-j", "1", "-q")
    assert unknown.exit_code != 0 and "wild_rule=PAGAT (the model knows only STRICT_MAJORITY)" in \
        unknown.output
    anyway = invoke("match", f"{spec},any_rules=true", "spanish", "--variant", "spanish", "--rule", "max_hands=1",
                    "--rule", "going_out_bonus=1000", "-n", "4", "--seed", "9", "-j", "1", "--json")
    assert anyway.exit_code == 0, anyway.output


def test_the_same_games_on_any_jobs(pipeline: tuple[Path, Path]) -> None:
    _, model = pipeline
    args = ["match", f"net:model={model}", "spanish", "--variant", "spanish", "--rule", "max_hands=1", "--rule",
            "going_out_bonus=200", "-n", "6", "--seed", "4", "--json"]
    one, two = invoke(*args, "-j", "1"), invoke(*args, "-j", "2")
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    a, b = json.loads(one.output), json.loads(two.output)
    for key in ("score", "pairs", "games"):
        assert a.get(key) == b.get(key)


def going_out_model(path: Path) -> Path:
    """A hand-set general model that reads one rule: going out is worth ``bonus - 50`` points to it, where
    ``bonus`` is its going-out-bonus feature (0 for a bonus of 0, 1 for 1,000) times 200: one hidden unit fires only
    for a candidate that goes out (no card left) under a large bonus, another charges every candidate that goes out."""
    catalogue = {"variant": "classic", "knobs": {"going_out_bonus": {"values": [0, 1000]}}}
    width = STATE_COLUMNS + CANDIDATE_COLUMNS + 1
    none_left = STATE_COLUMNS + 3 + 1 + 15 + 15 + 5  # the candidate part's "none left" flag
    w0 = np.zeros((width, 2))
    w0[none_left, 0], w0[width - 1, 0] = 1.0, 1.0  # both: relu(none_left + bonus - 1)
    w0[none_left, 1] = 1.0
    b0 = np.array([-1.0, 0.0])
    w1 = np.array([[200.0], [-50.0]])
    rules = load_rules("classic")
    meta = {"variant": "classic", "rules": rules.formatted(), "rules_digest": "-", "feature_version": FEATURE_VERSION,
            "margin": 0.0, "catalogue": catalogue}
    save_model(path, [(w0, b0), (w1, np.zeros(1))], np.zeros(width), np.ones(width), 1.0, meta)
    return path


def test_the_going_out_bonus_decides_whether_to_go_out(tmp_path: Path) -> None:
    """Seat 1 holds three kings and its team has a canasta: melding them goes out. The same position, the same
    model: under a bonus of 1,000 it goes out, under a bonus of 0 it keeps its cards."""
    model = load_model(going_out_model(tmp_path / "out.npz"))
    picks = {}
    for bonus in (0, 1000):
        rules = make_rules(hand_size=3, going_out_bonus=bonus)
        st = deal_state(rules, {1: "K K K"}, stock="K")
        st.add_to_meld(1, QUEEN, 7, 0, 0)
        st.opened[1] = True
        view = PlayerView(st, 1)
        candidates = meld_candidates(view, [Meld(KING, 3)])
        assert candidates == [[Meld(KING, 3)], []]
        seat = Seat(None, model._w_state, model.play_buffer(rules), model._hidden, model._w_out, 0.0)
        picks[bonus] = seat.pick(view, 1, candidates)
    assert picks == {1000: [Meld(KING, 3)], 0: []}


def test_a_deal_limit_leaves_a_game_without_changing_its_rules(tmp_path: Path) -> None:
    """A catalogue's deal_limit: the data keeps the decisions of the first deals and leaves the game (some house
    rules make games no team wins); the rules recorded are the game's own."""
    (tmp_path / "limit.toml").write_text('variant = "spanish"\npreset_share = 0.0\ndeal_limit = 1\n'
                                         '[knobs.going_out_bonus]\nvalues = [100, 500]\n')
    data = tmp_path / "data"
    result = invoke("train", "data", str(data), "--variant", "spanish", "--catalogue", str(tmp_path / "limit.toml"),
                    "--search", "mc:samples=2", "-n", "2", "--chunk", "2", "--seed", "5", "--jobs", "1", "-q")
    assert result.exit_code == 0, result.output
    meta, frame, _ = read_data(data)
    assert meta["catalogue"]["deal_limit"] == 1 and set(frame["deal"]) == {0}
    assert set(frame["rules"]) <= {'{"going_out_bonus": "100"}', '{"going_out_bonus": "500"}'}
    with pytest.raises(CatalogueError, match="deal_limit"):
        Catalogue.from_dict({**TINY, "deal_limit": -1})


def test_a_larger_n_extends_a_data_folder(pipeline: tuple[Path, Path], tmp_path: Path) -> None:
    """The same settings with more games play only the new chunks (the old ones are kept); fewer, or a folder whose
    last chunk is short, are other settings."""
    data, _ = pipeline
    folder = tmp_path / "grow"
    args = ["train", "data", str(folder), "--variant", "spanish", "--rule", "max_hands=1", "--catalogue",
            str(data.parent / "tiny.toml"), "--search", "mc:samples=2", "--chunk", "10", "--seed", "5", "--jobs", "1",
            "-q"]
    assert invoke(*args, "-n", "10").exit_code == 0
    first = (folder / "done-00000.json").read_text()
    grown = invoke(*args, "-n", "20")
    assert grown.exit_code == 0, grown.output
    assert (folder / "done-00000.json").read_text() == first
    assert json.loads((folder / "done-00001.json").read_text())["sha256"] == \
        json.loads((data / "done-00001.json").read_text())["sha256"]
    assert json.loads((folder / "data.json").read_text())["spec"]["games"] == 20
    shrunk = invoke(*args, "-n", "10")
    assert shrunk.exit_code != 0 and "other settings" in shrunk.output


def test_several_folders_fit_together_and_a_mismatched_one_is_one_line(pipeline: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    """A folder drawn around a house rule (``--rule`` as its draws' base) fits with the general one: every game
    counted, each folder's rules encoded as its own, both commands recorded; a folder of other rule features or of
    one rule set is refused in one line naming it."""
    data, general = pipeline
    tiny = str(data.parent / "tiny.toml")
    common = ["--variant", "spanish", "--rule", "max_hands=1", "--search", "mc:samples=2", "-n", "10", "--chunk",
              "10", "--jobs", "1", "-q"]
    around = tmp_path / "around"
    result = invoke("train", "data", str(around), *common, "--rule", "exact_pile_pick_bonus=0", "--catalogue",
                    tiny, "--seed", "6")
    assert result.exit_code == 0, result.output
    both = tmp_path / "both.npz"
    result = invoke("train", "fit", str(data), str(around), str(both), "--epochs", "2", "--hidden", "8", "-q")
    assert result.exit_code == 0, result.output
    assert "30 games" in result.output
    meta = load_model(both).meta
    assert meta["games"] == 30 and meta["data"]["games"] == 30
    assert [part["data_seed"] for part in meta["data_parts"]] == [5, 6]
    assert meta["data_parts"][1]["rules"] == [["exact_pile_pick_bonus", "0"], ["max_hands", "1"]]
    assert meta["catalogue"] == load_model(general).meta["catalogue"]
    _, frame, x = read_data(around)
    # the second folder's games are encoded under their own base: exact_pile_pick_bonus=0 unless a draw changed it
    cat = Catalogue.from_dict(meta["catalogue"])
    drawn = cat.draw(6, 0, {"max_hands": "1", "exact_pile_pick_bonus": "0"})
    rules = load_rules("spanish", {"max_hands": "1", "exact_pile_pick_bonus": "0", **drawn})
    assert rules.exact_pile_pick_bonus == int(drawn.get("exact_pile_pick_bonus", 0))
    from simcli.training.fit import read_folders
    _, rows, xs, _ = read_folders([data, around])
    first_of_around = int(np.flatnonzero(np.asarray(rows["game"]) >= 20)[0])
    assert np.array_equal(xs[first_of_around, x.shape[1]:], cat.encode(rules).astype(np.float32))
    assert set(np.asarray(rows["game"]) % 10) == set(range(10)) and int(rows["game"].max()) == 29
    # another catalogue's folder, and a folder of one rule set, are refused in one line each
    (tmp_path / "other.toml").write_text(
        'variant = "spanish"\npreset_share = 0.0\nchanges = [1, 1]\n[knobs.going_out_bonus]\nvalues = [100, 300]\n')
    other = tmp_path / "other"
    assert invoke("train", "data", str(other), *common, "--catalogue", str(tmp_path / "other.toml"),
                  "--seed", "7").exit_code == 0
    plain = tmp_path / "plain"
    assert invoke("train", "data", str(plain), *common, "--seed", "8").exit_code == 0
    for folder, why in ((other, "catalogue's knobs or values differ"), (plain, "of one rule set")):
        refused = invoke("train", "fit", str(data), str(folder), str(tmp_path / "x.npz"), "--epochs", "1", "-q")
        line = refused.output.strip().splitlines()[-1]
        assert refused.exit_code != 0 and str(folder) in line and why in line, refused.output
        assert not (tmp_path / "x.npz").exists()


def test_an_ensemble_is_one_network_whose_output_is_its_fits_mean(pipeline: tuple[Path, Path],
                                                                 tmp_path: Path) -> None:
    """``--ensemble K``: K fits of seeds SEED.. folded into one network of K x HIDDEN units that `net` plays as it
    is; its values are the mean of the K single fits' values."""
    from simcli.training.fit import FitSettings, forward, train

    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(400, 6)), rng.normal(size=400)
    settings = FitSettings(hidden=4, epochs=3, seed=7)
    singles = [forward(train(x, y, FitSettings(hidden=4, epochs=3, seed=s)), x) for s in (7, 8, 9)]
    folded = train(x, y, FitSettings(hidden=4, epochs=3, seed=7, ensemble=3))
    assert folded[0][0].shape == (6, 12) and folded[1][0].shape == (12, 1)
    assert np.allclose(forward(folded, x), np.mean(singles, axis=0), atol=1e-5)
    assert not np.allclose(forward(folded, x), singles[0], atol=1e-3)  # not one of them
    assert np.allclose(forward(train(x, y, settings), x), singles[0])
    data, _ = pipeline
    model = tmp_path / "ensemble.npz"
    result = invoke("train", "fit", str(data), str(model), "--epochs", "2", "--hidden", "8", "--ensemble", "3", "-q")
    assert result.exit_code == 0, result.output
    loaded = load_model(model)
    assert loaded.meta["ensemble"] == 3 and loaded.meta["hidden"] == 8
    played = invoke("match", f"net:model={model}", "spanish", "--variant", "spanish", "--rule", "max_hands=1",
                    "-n", "2", "--seed", "9", "-j", "1", "--json")
    assert played.exit_code == 0, played.output
    # --distill: one network of --hidden units fitted to the ensemble's values (the ensemble's, not the search's)
    student = tmp_path / "student.npz"
    result = invoke("train", "fit", str(data), str(student), "--epochs", "2", "--hidden", "8", "--ensemble", "3",
                    "--distill", "-q")
    assert result.exit_code == 0, result.output
    taught = load_model(student)
    assert taught.meta["distilled"] is True and taught.meta["ensemble"] == 3
    with np.load(student) as npz, np.load(model) as ens, np.load(data.parent / "general.npz") as single:
        assert npz["W0"].shape[1] == 8 and ens["W0"].shape[1] == 24
        assert not np.array_equal(npz["W0"], single["W0"])
    refused = invoke("train", "fit", str(data), str(tmp_path / "no.npz"), "--distill", "-q")
    assert refused.exit_code != 0 and "--ensemble 2 or more" in refused.output


def test_a_bare_name_is_the_shipped_catalogue_even_beside_a_folder_of_that_name(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "classic").mkdir()  # a data folder called after its variant
    monkeypatch.chdir(tmp_path)
    assert load_catalogue("classic").variant == "classic"


def test_every_command_plays_the_general_model_under_house_rules(pipeline: tuple[Path, Path], tmp_path: Path) -> None:
    """play (and its trace's replay), run, tournament and a sweep by level with its strength matches, under rules
    inside the model's catalogue."""
    _, model = pipeline
    net = f"net:model={model}"
    rules = ["--variant", "spanish", "--rule", "max_hands=1", "--rule", "exact_pile_pick_bonus=0"]
    trace = tmp_path / "game.jsonl"
    played = invoke("play", *rules, "--rule", "going_out_bonus=500", "--strategies", f"{net},spanish", "--seed", "3",
                    "--trace", str(trace))
    assert played.exit_code == 0, played.output
    assert invoke("replay", str(trace), "--out", str(tmp_path / "game.html")).exit_code == 0
    ran = invoke("run", *rules, "--strategies", f"{net},spanish", "--games", "2", "--seed", "1", "-j", "1", "-q",
                 "--out", str(tmp_path / "run"))
    assert ran.exit_code == 0, ran.output
    swept = invoke("sweep", "--variant", "spanish", "--rule", "going_out_bonus=100,500", "--set", "max_hands=1",
                   "--levels", f"spanish,{net}", "-n", "2", "--strength-games", "4", "--seed", "2", "-j", "1", "-q",
                   "--out", str(tmp_path / "sweep"), "--json")
    assert swept.exit_code == 0, swept.output
    strength = json.JSONDecoder().raw_decode(swept.output)[0]["learnt_strength"]  # stderr's "saved ..." follows
    assert [(r["level"], r["value"], r["games"]) for r in strength] == [
        (net, "going_out_bonus=100", 4), (net, "going_out_bonus=500", 4)]
    page = (tmp_path / "sweep" / "sweep.md").read_text()
    assert "## The learnt level under each value" in page
    regenerate = page.split("Regenerate: ", 1)[1].splitlines()[0]  # the page's command plays the same matches
    assert " --strength-games 4 " in regenerate and " --levels " in regenerate
    none = invoke("sweep", "--variant", "spanish", "--rule", "going_out_bonus=100,500", "--set", "max_hands=1",
                  "--levels", f"spanish,{net}", "-n", "2", "--strength-games", "0", "--seed", "2", "-j", "1", "-q",
                  "--out", str(tmp_path / "sweep0"), "--json")
    assert none.exit_code == 0 and "learnt_strength" not in json.JSONDecoder().raw_decode(none.output)[0]
    assert " --strength-games 0 " in (tmp_path / "sweep0" / "sweep.md").read_text()
