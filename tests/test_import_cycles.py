"""No import cycles among simcli's modules (and the built-in strategies), hidden ones included.

Every ``import`` statement of every module is read with :mod:`ast`: those at the top, inside functions (a lazy
import that hides a cycle from the interpreter) and under ``if TYPE_CHECKING:`` (a cycle for mypy and for a
reader). A cycle means two modules that can only be understood, tested and compiled together; the layering of
docs (cards -> state -> worlds -> view -> engine -> forward -> strategies) has none.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The packages checked, as (the importable name, its folder).
PACKAGES = (("simcli", ROOT / "simcli"), ("strategies", ROOT / "strategies"))


def module_files(packages: tuple[tuple[str, Path], ...]) -> dict[str, Path]:
    """Every module of ``packages`` by dotted name (a package by its ``__init__``)."""
    out: dict[str, Path] = {}
    for name, folder in packages:
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([name, *parts])] = path
    return out


def imported_names(module: str, path: Path, is_package: bool) -> set[str]:
    """The dotted names ``module`` imports anywhere in its file (``from a import b`` gives ``a`` and ``a.b``)."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import: up from this module's package
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ``modules`` it imports (a name that is an attribute, not a module, is dropped)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        names = imported_names(module, path, path.name == "__init__.py")
        graph[module] = {n for n in names if n in modules and n != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of two or more modules, as a path ``[a, b, ..., a]``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm (the graph is a few dozen modules: recursion is fine)
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_path_in(graph, group) for group in groups]


def _path_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest cycle through the first module of ``group`` (breadth first, inside the group)."""
    start = min(group)
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & group):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in parent:
                    parent[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no cycle in the strongly connected group {sorted(group)}")


def cycle_report(packages: tuple[tuple[str, Path], ...]) -> list[str]:
    """Each import cycle of ``packages`` as ``a -> b -> a``."""
    return [" -> ".join(c) for c in cycles(import_graph(module_files(packages)))]


def test_no_import_cycles() -> None:
    found = cycle_report(PACKAGES)
    assert not found, "import cycles (function-level and TYPE_CHECKING imports count):\n" + "\n".join(found)


def test_the_engine_modules_are_parsed() -> None:
    """The graph sees the edges it must: a top-level, a function-level and a TYPE_CHECKING import."""
    graph = import_graph(module_files(PACKAGES))
    assert "simcli.engine.worlds" in graph["simcli.engine.view"]  # top level
    assert "simcli.engine.view" in graph["simcli.engine.strategy_base"]  # under TYPE_CHECKING
    assert "simcli.engine.deal" in graph["simcli.players.forward"]
    assert len(graph) > 40


def _package(tmp_path: Path, files: dict[str, str]) -> tuple[tuple[str, Path], ...]:
    folder = tmp_path / "pkg"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, "utf-8")
    return (("pkg", folder),)


def test_a_cycle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    """The shape simcli had before issue 20: view lazily imports forward, forward imports deal, deal view."""
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "view.py": "def sample():\n    from pkg.forward import sample_world\n    return sample_world\n",
        "forward.py": "from pkg.deal import Deal\nsample_world = Deal\n",
        "deal.py": "from pkg import view\nDeal = view\n",
        "cards.py": "X = 1\n",
    })
    assert cycle_report(pkg) == ["pkg.deal -> pkg.view -> pkg.forward -> pkg.deal"]


def test_a_type_checking_and_a_relative_cycle_are_found(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n",
        "b.py": "from .a import *\nB = 1\n",
    })
    assert cycle_report(pkg) == ["pkg.a -> pkg.b -> pkg.a"]


def test_no_cycle_no_report(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {"__init__.py": "", "a.py": "import pkg.b\n", "b.py": "import os\nfrom pkg import c\n",
                              "c.py": "from . import d\n", "d.py": ""})
    assert cycle_report(pkg) == []
