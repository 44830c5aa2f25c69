"""docs/architecture.md cannot go stale: every module of simcli/ and strategies/ sits in a layer of
scripts/architecture.py and no import (module level, in a function or under TYPE_CHECKING) goes up the layers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("architecture_script", ROOT / "scripts" / "architecture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while the class is built
    spec.loader.exec_module(module)
    return module


arch = _load()


def test_the_code_keeps_its_layers() -> None:
    edges = arch.graph()
    assert "simcli.deal" in edges and "strategies.mc" in edges and "simcli.commands.run" in edges
    assert arch.problems(edges) == []
    assert arch.main(["--check"]) == 0


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in {"simcli/__init__.py": "", "strategies/__init__.py": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_an_upward_import_anywhere_in_a_file_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "simcli/cards.py": "def f():\n    from simcli.view import PlayerView\n",  # function level, up 4 layers
        "simcli/state.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .deal import Deal\n",
        "simcli/view.py": "import simcli.cards\n",
        "simcli/deal.py": "from simcli import view\nfrom simcli.strategies.greedy import Greedy\n",
        "strategies/greedy.py": "from . import mc\n",
        "strategies/mc.py": "",
    })
    edges = arch.graph(root)
    assert edges["simcli.cards"] == {"simcli.view"} and edges["simcli.state"] == {"simcli.deal"}
    assert edges["simcli.deal"] == {"simcli.view", "strategies.greedy"}  # simcli.strategies is strategies/
    assert edges["strategies.greedy"] == {"strategies.mc"} and edges["simcli.view"] == {"simcli.cards"}
    found = arch.problems(edges)
    assert "simcli.cards (foundation) imports simcli.view (strategy API), a layer above it" in found
    assert "simcli.state (state & rule arithmetic) imports simcli.deal (engine), a layer above it" in found
    assert "simcli.deal (engine) imports strategies.greedy (search & strategies), a layer above it" in found
    assert arch.main(["--check", "--root", str(root)]) == 1


def test_a_module_in_no_layer_and_a_stale_exception_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    root = _tree(tmp_path, {"simcli/mystery.py": "", "simcli/view.py": "", "simcli/forward.py": ""})
    monkeypatch.setattr(arch, "UPWARD", {("simcli.view", "simcli.forward"): "gone"})
    found = arch.problems(arch.graph(root))
    assert found == [
        "simcli.mystery: not placed in a layer (add it to PLACED or a pattern of LAYERS in scripts/architecture.py)",
        "UPWARD lists simcli.view -> simcli.forward, which the code no longer imports upward: delete the entry"]
    monkeypatch.setattr(arch, "PLACED", {"simcli.mystery": "engine"})
    assert arch.problems(arch.graph(root))[:1] == [
        "UPWARD lists simcli.view -> simcli.forward, which the code no longer imports upward: delete the entry"]
    monkeypatch.setattr(arch, "PLACED", {"simcli.mystery": "no such layer"})
    assert "PLACED['simcli.mystery'] names no layer 'no such layer'" in arch.problems(arch.graph(root))


def test_the_picture_is_drawn_from_the_graph_and_a_stale_one_is_refused(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "layers.png"
    assert arch.main(["--check", "--out", str(out)]) == 1  # no picture yet
    assert arch.main(["--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 50_000
    assert arch.drawn_fingerprint(out) == arch.fingerprint(arch.graph())
    assert arch.main(["--check", "--out", str(out)]) == 0
    edges = arch.graph()
    edges["simcli.actions"] = set()  # the code changed: actions no longer imports cards
    assert arch.fingerprint(edges) != arch.fingerprint(arch.graph())
    monkeypatch.setattr(arch, "graph", lambda root=arch.ROOT: edges)
    assert arch.main(["--check", "--out", str(out)]) == 1
    assert (ROOT / "docs" / "architecture.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    drawn = arch.collapse(arch.graph())
    assert "simcli.commands" in drawn and not any(m.startswith("simcli.commands.") for m in drawn)
    doc = (ROOT / "docs" / "architecture.md").read_text()
    assert "architecture.png" in doc and "scripts/architecture.py" in doc
    for layer in arch.LAYERS:
        assert f"**{layer.name}**" in doc, f"docs/architecture.md does not describe the layer {layer.name!r}"
    assert "docs/architecture.md" in (ROOT / "README.md").read_text()
