"""The learnt player's shipped models (issue 31): one a preset, small, of its preset's rules, described beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import load_script

from simcli.rules.presets import load_rules
from simcli.strategies.learnt.model import MODELS, ModelError, load_model, model_for_rules, rules_digest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("variant", ["classic", "ponytail", "americana", "spanish", "handfoot"])
def test_the_shipped_models_load_under_their_presets(variant: str) -> None:
    path = MODELS / f"{variant}.npz"
    assert path.stat().st_size < 1 << 20
    model = load_model(path)
    assert model.meta["variant"] == variant and model.refusal(load_rules(variant)) is None
    assert model.meta["data_command"].startswith("simcli train data")
    assert model.meta["fit_command"].startswith("simcli train fit")
    assert model.meta["held_out"]["decisions"] > 500


def test_every_shipped_model_is_the_one_net_plays_under_its_rules() -> None:
    """Each shipped specialist, of a preset (``<variant>-preset.npz`` beside a general ``<variant>.npz``, issue 47)
    or of a house rule (by-level studies), is small, loads, and is the model ``net`` chooses under the rules it was
    trained under (its rule-set digest); the house rules' each differ from their preset (the knobs named in the
    README). A general model (``<variant>.npz`` with a catalogue) is the one ``net`` plays under every drawn rule set
    of its catalogue that has no specialist."""
    paths = sorted(MODELS.glob("*.npz"))
    assert {f"{v}.npz" for v in ("classic", "ponytail", "americana", "spanish", "handfoot")} <= {p.name for p in paths}
    specialists = {load_model(p).meta["rules_digest"]: p.resolve() for p in paths if load_model(p).catalogue is None}
    for path in paths:
        assert path.stat().st_size < 1 << 20
        model = load_model(path)
        meta = model.meta
        if model.catalogue is not None:
            assert path.stem == meta["variant"]
            for game in range(40):
                rules = load_rules(meta["variant"], model.catalogue.draw(7, game))
                chosen = model_for_rules(rules)
                assert chosen.path == specialists.get(rules_digest(rules), path.resolve())
                assert chosen.refusal(rules) is None
            continue
        preset = load_rules(meta["variant"]).formatted()
        changed = {k: v for k, v in meta["rules"].items() if preset.get(k) != v}
        assert bool(changed) == (path.stem not in (meta["variant"], f"{meta['variant']}-preset")), path.name
        rules = load_rules(meta["variant"], changed)
        assert model_for_rules(rules).path == path.resolve()
        assert model_for_rules(rules).refusal(rules) is None


def test_the_models_readme_says_what_the_models_say() -> None:
    script = load_script("net_models")
    assert (MODELS / "README.md").read_text(encoding="utf-8") == script.render()


def test_retired_models_are_played_by_name_or_as_a_folder_never_by_auto() -> None:
    """A retired model (issue 47: replaced by a general model level with it) is not ``net``'s choice under the rules
    it was trained under any more, but its bare name finds it and ``model=retired`` chooses among the retired models by
    digest, as ``auto`` did when they were shipped (so that a page published with them plays again); a retired general
    model is played by name only."""
    from simcli.strategies.learnt.model import RETIRED, model_folder

    retired = sorted(RETIRED.glob("*.npz"))
    assert retired
    assert model_folder("retired") == RETIRED
    for path in retired:
        model = load_model(path.stem)
        assert model.path == path.resolve()
        meta = model.meta
        preset = load_rules(meta["variant"]).formatted()
        rules = load_rules(meta["variant"], {k: v for k, v in meta["rules"].items() if preset.get(k) != v})
        if "catalogue" in meta:  # a retired general model: by name only, never a rule set's own (the specialist is)
            try:
                chosen: Path | None = model_for_rules(rules, RETIRED).path
            except ModelError:  # no retired specialist of the variant (Spanish's): nothing is chosen, this least
                chosen = None
            assert chosen != path.resolve()
        else:
            assert model_for_rules(rules, RETIRED).path == path.resolve()
        assert model_for_rules(rules).path != path.resolve()


def test_a_folder_without_the_variants_model_names_the_ones_it_has(tmp_path: Path) -> None:
    """``net:model=retired`` under Spanish (no retired Spanish specialist): the one line names the folder's other
    Spanish models, played by name, beside the way to train one; a folder with none of the variant names none."""
    from simcli.strategies.learnt.model import RETIRED

    rules = load_rules("spanish")
    with pytest.raises(ModelError, match=r"its other spanish models: spanish-general-v2, played by name "
                                         r"\(net:model=spanish-general-v2\)\): train one"):
        model_for_rules(rules, RETIRED)
    with pytest.raises(ModelError) as empty:
        model_for_rules(rules, tmp_path)
    assert "other spanish models" not in str(empty.value) and "train one with" in str(empty.value)
