"""docs/architecture.md cannot go stale: every module of simcli/ and strategies/ sits in a layer of
scripts/architecture.py and no import (module level, in a function or under TYPE_CHECKING) goes up the layers."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from helpers import load_script

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    return load_script("architecture")


arch = _load()


def test_the_code_keeps_its_layers() -> None:
    edges = arch.graph()
    assert "simcli.engine.deal" in edges and "simcli.strategies.search.mc" in edges and "simcli.commands.run" in edges
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
        "simcli/primitives/cards.py": "def f():\n    from simcli.engine.view import PlayerView\n",  # in a function
        "simcli/engine/state.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .deal import Deal\n",
        "simcli/engine/view.py": "import simcli.primitives.cards\n",
        "simcli/engine/deal.py": "from simcli.engine import view\n"
                                 "from simcli.strategies.heuristics.greedy import Greedy\n",
        "strategies/heuristics/greedy.py": "from ..search import mc\n",
        "strategies/search/mc.py": "",
    })
    edges = arch.graph(root)
    assert edges["simcli.primitives.cards"] == {"simcli.engine.view"}
    assert edges["simcli.engine.state"] == {"simcli.engine.deal"}  # the same layer: allowed
    # simcli.strategies is the folder strategies/
    assert edges["simcli.engine.deal"] == {"simcli.engine.view", "simcli.strategies.heuristics.greedy"}
    assert edges["simcli.strategies.heuristics.greedy"] == {"simcli.strategies.search.mc"}
    assert edges["simcli.engine.view"] == {"simcli.primitives.cards"}
    found = arch.problems(edges)
    assert found == [
        "simcli.engine.deal (engine) imports simcli.strategies.heuristics.greedy (strategies), a layer above it",
        "simcli.primitives.cards (primitives) imports simcli.engine.view (engine), a layer above it"]
    assert arch.main(["--check", "--root", str(root)]) == 1


def test_the_layer_comes_from_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new module lands in its folder's layer; a package no layer holds is named; a top-level module is the public
    API, which nothing inside imports; a stale exception is named."""
    root = _tree(tmp_path, {"simcli/engine/features/newrule.py": "from simcli.rules import knobs\n",
                            "simcli/rules/knobs.py": "", "simcli/mystery/thing.py": "",
                            "simcli/view.py": "from simcli.engine.view import *\n", "simcli/engine/view.py": "",
                            "simcli/players/forward.py": "from simcli.view import PlayerView\n",
                            "simcli/cli.py": "from simcli.commands import run\n", "simcli/commands/run.py": ""})
    assert arch.LAYERS[arch.layer_of("simcli.engine.features.newrule")].name == "engine"
    assert arch.LAYERS[arch.layer_of("simcli.view")].name == "public API"
    assert arch.LAYERS[arch.layer_of("simcli.cli")].name == "command line"
    assert arch.layer_of("simcli") == 0
    monkeypatch.setattr(arch, "UPWARD", {("simcli.engine.view", "simcli.players.forward"): "gone"})
    assert arch.problems(arch.graph(root)) == [
        "simcli.mystery.thing: in no layer (put it in a package of LAYERS, or give its package a layer in "
        "scripts/architecture.py)",
        "simcli.players.forward imports simcli.view, a public-API module: import from its layer's package instead",
        "UPWARD lists simcli.engine.view -> simcli.players.forward, which the code no longer imports upward: "
        "delete the entry"]


def test_modules_over_their_size_are_named(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"simcli/runs/big.py": "x = 1\n" * (arch.MAX_MODULE_LINES + 1),
                            "simcli/runs/small.py": "x = 1\n" * arch.MAX_MODULE_LINES,
                            "simcli/commands/sweep.py": "x = 1\n" * (arch.MAX_COMMAND_LINES + 1),
                            "simcli/rules/ruleset.py": "x = 1\n" * 999})  # generated code: exempt
    assert arch.oversized(root) == [
        "simcli.commands.sweep: 301 lines, over the 300 a command module may have",
        "simcli.runs.big: 401 lines, over the 400 a module may have"]
    assert arch.main(["--check", "--root", str(root)]) == 1


def test_command_functions_over_fifty_lines_are_named(tmp_path: Path) -> None:
    """Issue 46: a command parses, calls and prints; the work is in the packages below, so no function of a command
    module is over 50 lines (``def`` to last line, decorators not counted)."""
    assert arch.long_command_functions() == []
    body = "    x = 1\n"
    root = _tree(tmp_path, {"simcli/commands/fat.py": "import click\n\n\n@click.command()\n@click.option('--n')\n"
                            + "def fat(n):\n" + body * 50 + "\n\ndef lean():\n" + body * 49,
                            "simcli/runs/work.py": "def long():\n" + body * 80})  # outside the commands: no limit
    assert arch.long_command_functions(root) == [
        "simcli.commands.fat.fat: 51 lines, over the 50 a command function may have (move the work into the "
        "package that owns it)"]
    assert arch.main(["--check", "--root", str(root)]) == 1


def test_at_most_twelve_files_directly_under_simcli() -> None:
    """Issue 30: the top of the package is the public API, the CLI, ``__main__`` and ``__init__``; the rest is in
    the layer packages."""
    top = sorted(p.name for p in (ROOT / "simcli").glob("*.py"))
    assert len(top) <= 12, top
    assert {"__init__.py", "__main__.py", "cli.py"} <= set(top)


def test_the_picture_is_drawn_from_the_graph_and_a_stale_one_is_refused(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "layers.png"
    assert arch.main(["--check", "--out", str(out)]) == 1  # no picture yet
    assert arch.main(["--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 50_000
    assert arch.drawn_fingerprint(out) == arch.fingerprint(arch.graph())
    assert arch.main(["--check", "--out", str(out)]) == 0
    edges = arch.graph()
    edges["simcli.stats.confidence"] = {"simcli.primitives.cards"}  # the code changed: stats imports primitives
    assert arch.fingerprint(edges) != arch.fingerprint(arch.graph())
    renamed = {("simcli.engine.judges" if m == "simcli.engine.judge" else m): t for m, t in arch.graph().items()}
    assert arch.fingerprint(renamed) != arch.fingerprint(arch.graph())  # a module renamed: the box lists it
    monkeypatch.setattr(arch, "graph", lambda root=arch.ROOT: edges)
    assert arch.main(["--check", "--out", str(out)]) == 1
    assert (ROOT / "docs" / "architecture.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    drawn = arch.collapse(arch.graph())
    assert "simcli.commands" in drawn and not any(m.startswith("simcli.commands.") for m in drawn)
    assert "simcli.engine" in drawn and "simcli.engine.features" in drawn and "simcli.engine.deal" not in drawn
    doc = (ROOT / "docs" / "architecture.md").read_text()
    assert "architecture.png" in doc and "scripts/architecture.py" in doc
    for layer in arch.LAYERS:
        assert f"**{layer.name}**" in doc, f"docs/architecture.md does not describe the layer {layer.name!r}"
    assert "docs/architecture.md" in (ROOT / "README.md").read_text()


def test_import_module_calls_are_read_and_an_unplaceable_one_fails(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``importlib.import_module`` is an import too (issue 46): a literal name, or one computed from a literal or
    ``__name__`` prefix, is an edge to what it names; a name the check cannot place fails ``--check``, unless its
    module is listed in DYNAMIC_IMPORTS with the reason (a stale entry fails too)."""
    root = _tree(tmp_path, {
        "simcli/engine/view.py": "", "simcli/players/loading.py": "",
        "simcli/stats/__init__.py": "import importlib\n\ndef get(n):\n"
                                    "    return importlib.import_module(f'{__name__}.{n}')\n",
        "simcli/stats/wins.py": "",
        "simcli/engine/deal.py": "import importlib\nv = importlib.import_module('simcli.engine.view')\n"
                                 "np = importlib.import_module('numpy')\n",
        "simcli/engine/state.py": "from importlib import import_module\n"
                                  "m = import_module('simcli.strategies.search.mc')\n",
        "strategies/search/mc.py": "",
        "simcli/runs/reach.py": "import importlib\nfrom simcli.players.loading import load_strategy\n"
                                "m = importlib.import_module(load_strategy('net').__module__)\n",
        "simcli/runs/gone.py": "import importlib\nm = importlib.import_module('simcli.runs.nothere')\n",
    })
    edges = arch.graph(root)
    assert edges["simcli.engine.deal"] == {"simcli.engine.view"}  # numpy: not ours, not an edge
    assert edges["simcli.engine.state"] == {"simcli.strategies.search.mc"}
    assert edges["simcli.stats"] == set()  # its own submodules, placed by __name__
    assert edges["simcli.runs.reach"] == {arch.UNPLACED, "simcli.players.loading"}
    monkeypatch.setattr(arch, "DYNAMIC_IMPORTS", {"simcli.runs.gone": "listed", "simcli.engine.view": "stale"})
    assert arch.problems(edges) == [
        "simcli.engine.state (engine) imports simcli.strategies.search.mc (strategies), a layer above it",
        "simcli.runs.reach calls importlib.import_module with a name the layer check cannot place: import the "
        "module by name (or list the module in DYNAMIC_IMPORTS with the reason)",
        "DYNAMIC_IMPORTS lists simcli.engine.view, which no longer imports a computed module name: delete the entry"]
    assert arch.main(["--check", "--root", str(root)]) == 1
    assert arch.UNPLACED not in str(arch.collapse(edges))
    # The code itself: only the strategy loader imports a name read at run time.
    assert {m for m, targets in arch.graph().items() if arch.UNPLACED in targets} == {"simcli.players.loading"}
