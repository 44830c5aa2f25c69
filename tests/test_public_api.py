"""The public API is listed in one place (issue 46, item 5): :data:`simcli.PUBLIC_API` names the documented import
paths, each of which lists its names in ``__all__`` (no star imports), and every import written in README.md and
docs/ works as written."""

from __future__ import annotations

import ast
import importlib
import re
import types
from pathlib import Path

import pytest

import simcli

ROOT = Path(__file__).resolve().parent.parent
#: The top-level modules that are not the public API: the package, the command line's entry points.
NOT_API = {"__init__", "__main__", "cli"}


def test_the_public_modules_are_the_listed_ones() -> None:
    on_disk = {f"simcli.{p.stem}" for p in (ROOT / "simcli").glob("*.py") if p.stem not in NOT_API}
    assert on_disk == set(simcli.PUBLIC_API)


@pytest.mark.parametrize("name", simcli.PUBLIC_API)
def test_each_public_module_lists_its_names(name: str) -> None:
    module = importlib.import_module(name)
    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
    listed = module.__all__
    assert len(listed) == len(set(listed)) and all(hasattr(module, n) for n in listed)
    public = {n for n, v in vars(module).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public == set(listed), "a public module holds exactly the names its __all__ lists"


def _documented_imports() -> list[tuple[str, str]]:
    """Every ``from simcli... import ...`` and ``import simcli...`` line of README.md and docs/*.md."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\s*(from simcli[\w.]* import [\w, ]+|import simcli[\w.]*)\s*(#.*)?$", line)
            if m:
                found.append((path.name, m.group(1).rstrip(", ")))
    return found


def test_documented_import_paths_work_as_written() -> None:
    lines = _documented_imports()
    assert any("simcli.strategy import" in text for _, text in lines)
    for where, text in lines:
        try:
            exec(text, {})  # noqa: S102 - the documented line itself
        except ImportError as exc:
            pytest.fail(f"{where}: {text!r} fails: {exc}")


def test_one_path_to_strategy() -> None:
    """Docs and messages name simcli.strategy.Strategy only, and the code imports it from its home."""
    from simcli.engine.strategy_base import Strategy
    from simcli.strategy import Strategy as Public

    assert Public is Strategy
    paths = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "simcli").rglob("*.py"),
             *(ROOT / "strategies").rglob("*.py")]
    texts = [p.read_text(encoding="utf-8") for p in paths]
    assert not [t for t in texts if "players.loading.Strategy" in t or "players.loading import Strategy" in t]
