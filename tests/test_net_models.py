"""The learnt player's shipped models (issue 31): one a preset, small, of its preset's rules, described beside it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from simcli.rules.presets import load_rules
from strategies.net import MODELS, load_model

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


def test_the_models_readme_says_what_the_models_say() -> None:
    spec = importlib.util.spec_from_file_location("net_models", ROOT / "scripts" / "net_models.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert (MODELS / "README.md").read_text(encoding="utf-8") == script.render()
