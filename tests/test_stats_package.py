"""simcli.stats as a package (issue 20, item 5): one module per job, every public name still ``simcli.stats.NAME``.

* Every name that the notebooks, docs/ and README use from ``simcli.stats`` resolves.
* Each module's ``__all__`` is exactly its public top-level names, defined in it; the package's names are their
  union, none exported twice, and ``__init__``'s TYPE_CHECKING imports (what mypy sees) name the same modules.
* There is one confidence level: no other simcli module defines ``CONFIDENCE`` or its own normal quantile.
* The package loads lazily: the CLI and the duplicate statistics (simcli.duplicate.pairs, sprt, ratings and power,
  which take the confidence level and quantiles from it) import neither pandas nor scipy.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import simcli.stats as stats

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "simcli" / "stats"
#: ``stats.NAME`` in prose or code, not ``scipy.stats.NAME`` or ``simcli/stats.py``-like paths.
PROSE_NAME = re.compile(r"(?<![\w./])stats\.([A-Za-z_]\w*)")


def _code_of_notebook(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    # IPython magics and shell lines are not Python
    return "\n".join(line for cell in code for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))


def _stats_names_in_code(code: str) -> set[str]:
    """Names the code takes from simcli.stats: ``from simcli.stats import X`` and ``<alias>.X`` of its aliases."""
    tree = ast.parse(code)
    aliases: set[str] = set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "simcli":
            aliases |= {a.asname or a.name for a in node.names if a.name == "stats"}
        elif isinstance(node, ast.ImportFrom) and node.module == "simcli.stats":
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.name == "simcli.stats" and a.asname}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            names.add(node.attr)
    return names


def used_names() -> dict[str, set[str]]:
    """Per file of notebooks/, docs/ and README.md: the simcli.stats names it uses."""
    found: dict[str, set[str]] = {}
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        found[nb.name] = _stats_names_in_code(_code_of_notebook(nb))
    for doc in [REPO / "README.md", REPO / "notebooks" / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        names = set(PROSE_NAME.findall(text))
        for block in re.findall(r"```python\n(.*?)```", text, re.S):
            names |= _stats_names_in_code(block)
        found[doc.name] = names
    return found


def test_every_name_the_notebooks_and_docs_use_resolves() -> None:
    found = used_names()
    # The scan finds what it should (so an empty set below is not a scan that found nothing).
    assert {"compare_runs", "metric", "per_game", "rate"} <= found["house_rule_comparison.ipynb"]
    assert {"run_report", "win_rates", "mean_interval", "game_cluster"} <= found["outcome_distributions.ipynb"]
    assert {"wilson_interval", "baseline_differences", "cluster_rate"} <= found["analysis.md"]
    missing = {f"{where}: stats.{n}" for where, names in found.items() for n in names if not hasattr(stats, n)}
    assert not missing, sorted(missing)
    assert "stats.py" not in (REPO / "README.md").read_text(encoding="utf-8")  # the layout names the package


def _public_top_level(path: Path) -> set[str]:
    """Functions, classes and UPPER_CASE constants defined at the top of a module, without a leading _."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()}
    return {n for n in names if not n.startswith("_")}


@pytest.mark.parametrize("module_name", stats.MODULES)
def test_each_module_exports_exactly_its_public_names(module_name: str) -> None:
    module = importlib.import_module(f"simcli.stats.{module_name}")
    exported = list(module.__all__)
    assert len(exported) == len(set(exported))
    assert set(exported) == _public_top_level(PACKAGE / f"{module_name}.py")


def test_the_package_is_the_union_of_its_modules() -> None:
    files = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert set(stats.MODULES) == files
    names = [n for m in stats.MODULES for n in importlib.import_module(f"simcli.stats.{m}").__all__]
    assert len(names) == len(set(names)), "a name exported by two modules"
    assert list(stats.__all__) == names
    for n in names:
        owner = next(m for m in stats.MODULES if n in importlib.import_module(f"simcli.stats.{m}").__all__)
        assert getattr(stats, n) is getattr(importlib.import_module(f"simcli.stats.{owner}"), n)
    assert set(names) <= set(dir(stats))
    with pytest.raises(AttributeError, match="no attribute 'wilson'"):
        stats.wilson  # noqa: B018 -- the lookup is the test
    # What mypy sees: a star import of each module under TYPE_CHECKING (in import order), the same modules.
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    guarded = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    starred = [n.module for n in guarded.body if isinstance(n, ast.ImportFrom) and n.names[0].name == "*"]
    assert sorted(starred) == sorted(f"simcli.stats.{m}" for m in stats.MODULES)


def test_one_confidence_level() -> None:
    defining, quantiles = [], []
    for path in sorted((REPO / "simcli").rglob("*.py")):
        if path == PACKAGE / "confidence.py":
            continue
        text = path.read_text(encoding="utf-8")
        # a level of its own: a CONFIDENCE, or 0.95 written out (the 95% quantile's name aside)
        if re.search(r"^CONFIDENCE\s*=", text, re.M) or "0.95" in text.replace('"q95": 0.95', ""):
            defining.append(path.name)
        if "norm.ppf" in text:
            quantiles.append(path.name)
    assert not defining, f"another confidence level in {defining}"
    assert not quantiles, f"another normal quantile in {quantiles}"
    from simcli.duplicate import pairs, ratings, tournament

    assert pairs.CONFIDENCE is stats.CONFIDENCE and ratings.CONFIDENCE is stats.CONFIDENCE
    assert tournament.CONFIDENCE is stats.CONFIDENCE


def test_the_cli_and_the_duplicate_statistics_import_neither_pandas_nor_scipy() -> None:
    code = ("import sys, simcli.cli, simcli.duplicate.pairs, simcli.duplicate.sprt, simcli.duplicate.ratings, "
            "simcli.duplicate.power, simcli.duplicate.tournament, simcli.stats, simcli.stats.confidence; "
            "print(sorted(m for m in ('pandas', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # ... and a statistic still works once asked for (the lazy names load on first use).
    code = "import simcli.stats as s; print(s.two_sided_z(), s.wilson_interval(1, 2)[0] > 0)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1.959963984540054", "True"]
