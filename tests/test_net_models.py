"""The learnt player's shipped models (issue 31): one a preset, small, of its preset's rules, described beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import load_script

from simcli.rules.presets import load_rules
from simcli.strategies.learnt.model import MODELS, load_model, model_for_rules

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("variant", ["classic", "ponytail", "americana", "spanish"])
def test_the_shipped_models_load_under_their_presets(variant: str) -> None:
    path = MODELS / f"{variant}.npz"
    assert path.stat().st_size < 1 << 20
    model = load_model(path)
    assert model.meta["variant"] == variant and model.refusal(load_rules(variant)) is None
    assert model.meta["data_command"].startswith("simcli train data")
    assert model.meta["fit_command"].startswith("simcli train fit")
    assert model.meta["held_out"]["decisions"] > 500


def test_every_shipped_model_is_the_one_net_plays_under_its_rules() -> None:
    """Each shipped model, the presets' and the house rules' (by-level studies), is small, loads, and is the model
    ``net`` chooses under the rules it was trained under (its rule-set digest); the house rules' each differ from
    their preset (the knobs named in the README)."""
    paths = sorted(MODELS.glob("*.npz"))
    assert {f"{v}.npz" for v in ("classic", "ponytail", "americana", "spanish")} <= {p.name for p in paths}
    for path in paths:
        assert path.stat().st_size < 1 << 20
        meta = load_model(path).meta
        preset = load_rules(meta["variant"]).formatted()
        changed = {k: v for k, v in meta["rules"].items() if preset.get(k) != v}
        assert bool(changed) == (path.stem != meta["variant"]), path.name
        rules = load_rules(meta["variant"], changed)
        assert model_for_rules(rules).path == path.resolve()
        assert model_for_rules(rules).refusal(rules) is None


def test_the_models_readme_says_what_the_models_say() -> None:
    script = load_script("net_models")
    assert (MODELS / "README.md").read_text(encoding="utf-8") == script.render()
