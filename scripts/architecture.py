"""The layers of simcli, read from its packages: writes docs/architecture.png, or checks the import graph.

Every module of ``simcli/`` and ``strategies/`` is found on disk and its imports are read with ``ast`` (all of
them: module level, inside functions and under ``TYPE_CHECKING``), so the picture is the code's and not a
drawing. A module's layer is its package's: each layer of :data:`LAYERS` is one package (``simcli.engine`` holds
``simcli.engine.features`` too), so a new module lands in a layer by the folder it is put in, and there is no
table of module names to keep. Two rules place the modules directly under ``simcli/``: the package itself (its
version) is the bottom of the house, and the other top-level modules are the documented public API (thin modules
that re-export from the layers; nothing inside simcli imports them), except the command line's entry points.

    python scripts/architecture.py            # write docs/architecture.png (and print the layers)
    python scripts/architecture.py --check    # exit 1 naming every module in no layer, every upward import, every
                                              # import of the public API from inside, every module over its size,
                                              # every command function over 50 lines, and when
                                              # docs/architecture.png no longer shows the code
    python scripts/architecture.py --list     # print each module's layer and imports
    python scripts/architecture.py --tree     # one line per package: its layer, modules, lines and what it holds

A new package is named by ``--check`` until it is given a layer in :data:`LAYERS`; then redraw the PNG.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Folders scanned, with the package name their modules import under (strategies/ is simcli.strategies everywhere).
PACKAGES = {"simcli": "simcli", "strategies": "simcli.strategies"}
OUT = ROOT / "docs" / "architecture.png"
#: The package's own module (``simcli/__init__.py``: the version) sits at the bottom of the house.
ROOT_PACKAGE = "simcli"
#: The command line's entry points (pyproject's ``[project.scripts]`` and ``python -m simcli``): the top layer.
ENTRY_POINTS = ("simcli.cli", "simcli.__main__")
#: The size limits of issue 30: lines of a module, and of a command module.
MAX_MODULE_LINES = 400
MAX_COMMAND_LINES = 300
#: Issue 46: commands parse, call and print, so no function of a command module is longer than this (from its
#: ``def`` line to its last line: docstring and nested functions counted, decorators not).
MAX_COMMAND_FUNCTION_LINES = 50
#: Modules written by a script rather than by hand, exempt from the size limit (none is over it today).
GENERATED = ("simcli.rules.ruleset",)


@dataclass(frozen=True)
class Layer:
    """A layer of the design: the packages it holds (each with its sub-packages) and what they do."""

    name: str
    what: str
    packages: tuple[str, ...]


#: The public API's layer: the top-level modules of simcli other than the package and its entry points.
PUBLIC_API = "public API"

#: The layers, bottom first. A module may import its own layer and the layers below, never one above.
LAYERS: tuple[Layer, ...] = (
    Layer("primitives", "ranks and count vectors, decision types, errors, random streams, the version",
          ("simcli.primitives",)),
    Layer("rules", "knob declarations, the TOML presets, --rule overrides, the frozen RuleSet", ("simcli.rules",)),
    Layer("engine", "deal state, legality, scoring, the view and Strategy interface, the turn's phases, the game, "
          "events; variant features in engine/features", ("simcli.engine",)),
    Layer("positions", "the score command's end-of-deal positions as JSON: read and checked, and written back",
          ("simcli.positions",)),
    Layer("players", "loading strategies and their options, planning helpers, the forward model; what search "
          "players share with the viewer and training: the search record, seats, the best heuristics",
          ("simcli.players",)),
    Layer("strategies", "the built-in strategies: heuristics (random, greedy, ponytail, americana, spanish, handfoot), "
          "search (mc, oracle, ismcts), learnt (net)",
          ("simcli.strategies",)),
    Layer("statistics", "estimators, metrics, report sections, comparisons over run tables (no engine import)",
          ("simcli.stats",)),
    Layer("runs", "result rows, backends, chunks, atomic storage, resume and repair, integrity, loading a run",
          ("simcli.runs",)),
    Layer("training", "the learnt player's data from the search (Parquet chunks that resume) and its model's fit",
          ("simcli.training",)),
    Layer("duplicate play", "paired games, matches and SPRT, tournaments, ladders, ratings", ("simcli.duplicate",)),
    Layer("reporting", "tables, Markdown/CSV/JSON renderings and figures that commands print or save",
          ("simcli.reporting",)),
    Layer("viewer", "following a game: the replay page, the play-by-play in words, a person's seat at the terminal",
          ("simcli.viewer",)),
    Layer(PUBLIC_API, "the documented import paths (simcli.actions, simcli.strategy, ...): re-exports", ()),
    Layer("command line", "the Click commands: parse, call one function below, print or save",
          ("simcli.commands",)),
)

#: Imports that go up the layers on purpose, each with the reason; ``--check`` fails on any other, and on an entry
#: here that the code no longer has (delete it then).
UPWARD: dict[tuple[str, str], str] = {}

#: Modules that call ``importlib.import_module`` with a name read at run time (not a literal, nor a literal or
#: ``__name__``/``__package__`` prefix the check places), each with the reason; ``--check`` fails on any other such
#: call, and on an entry here whose module no longer makes one.
DYNAMIC_IMPORTS: dict[str, str] = {
    "simcli.players.loading": "the strategies users name (module:Class, a module of strategies/, the built-in "
                              "names' table): whatever a user types, not a module of the code's choosing",
}


# ---------------------------------------------------------------------------------------------- the import graph
def discover(root: Path = ROOT) -> dict[str, Path]:
    """Every module under the scanned folders: dotted name -> file (a package is its ``__init__``)."""
    modules: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` denotes (the longest known prefix: ``simcli.stats.wilson`` is ``simcli.stats``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


#: The scanned package whose modules' names an ``import_module`` call computes: a run-time name, placed nowhere.
UNPLACED = "<computed>"


def _is_import_module(call: ast.Call) -> bool:
    """``importlib.import_module(...)`` or ``import_module(...)``."""
    fn = call.func
    return ((isinstance(fn, ast.Attribute) and fn.attr == "import_module" and isinstance(fn.value, ast.Name)
             and fn.value.id == "importlib") or (isinstance(fn, ast.Name) and fn.id == "import_module"))


def _prefix(arg: ast.expr, module: str, is_package: bool) -> tuple[str, bool] | None:
    """What an ``import_module`` argument names: ``(name, True)`` for a literal, ``(prefix, False)`` for an f-string
    or a sum that starts with a literal or with ``__name__`` / ``__package__`` (the module's own package), else
    None (a name computed at run time)."""
    own = {"__name__": module, "__package__": module if is_package else module.rpartition(".")[0]}
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value, True
    head: ast.expr | None = None
    if isinstance(arg, ast.JoinedStr) and arg.values:
        head = arg.values[0]
        head = head.value if isinstance(head, ast.FormattedValue) else head
    elif isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
        head = arg.left
    if isinstance(head, ast.Constant) and isinstance(head.value, str):
        return head.value.rstrip("."), False
    if isinstance(head, ast.Name) and head.id in own:
        return own[head.id], False
    return None


def dynamic_imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The scanned modules that ``module``'s ``importlib.import_module`` calls reach (a literal name, or a computed
    one with a placed prefix: that package), and :data:`UNPLACED` for a call whose name the check cannot place (a
    run-time value, or a prefix in the scanned packages that names no module of theirs)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not (isinstance(node, ast.Call) and _is_import_module(node) and node.args):
            continue
        named = _prefix(node.args[0], module, is_package)
        if named is None:
            found.add(UNPLACED)
            continue
        name, literal = named
        ours = name.partition(".")[0] in {p.partition(".")[0] for p in PACKAGES.values()}
        target = (name if name in modules else None) if literal else _known(name, modules)
        if target is not None:
            found.add(target)
        elif ours:
            found.add(UNPLACED)  # a module of ours that is not there
    found.discard(module)
    return found


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The scanned modules that ``module`` imports anywhere in its file (itself excluded), by an import statement or
    by ``importlib.import_module`` (:func:`dynamic_imports_of`; :data:`UNPLACED` for a name the check cannot
    place)."""
    is_package = path.name == "__init__.py"
    found: set[str] = dynamic_imports_of(module, path, modules)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for name in names:
            target = _known(name, modules)
            if target is not None and target != module:
                found.add(target)
                break  # from X import a, b: the longest match first (a submodule), else X itself
    return found


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules it imports, for every scanned module."""
    modules = discover(root)
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


# ---------------------------------------------------------------------------------------------- layers
def is_public_api(module: str) -> bool:
    """A module directly under ``simcli/`` that is neither the package, a sub-package nor an entry point."""
    return (module.count(".") == 1 and module.startswith(ROOT_PACKAGE + ".") and module not in ENTRY_POINTS
            and not any(module == p for layer in LAYERS for p in layer.packages))


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module``'s layer (its package's; see the module docstring), or None."""
    if module == ROOT_PACKAGE:
        return 0
    if module in ENTRY_POINTS:
        return len(LAYERS) - 1
    if is_public_api(module):
        return [layer.name for layer in LAYERS].index(PUBLIC_API)
    for i, layer in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in layer.packages):
            return i
    return None


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def oversized(root: Path = ROOT) -> list[str]:
    """Every module over :data:`MAX_MODULE_LINES` (outside :data:`GENERATED`) and every command module over
    :data:`MAX_COMMAND_LINES`."""
    out = []
    for m, path in discover(root).items():
        limit = MAX_COMMAND_LINES if m.startswith("simcli.commands.") else MAX_MODULE_LINES
        if m not in GENERATED and _lines(path) > limit:
            out.append(f"{m}: {_lines(path)} lines, over the {limit} a {'command ' * (limit == MAX_COMMAND_LINES)}"
                       "module may have")
    return out


def long_command_functions(root: Path = ROOT) -> list[str]:
    """Every function of a command module (``simcli/commands/``) over :data:`MAX_COMMAND_FUNCTION_LINES`."""
    out = []
    for m, path in discover(root).items():
        if not m.startswith("simcli.commands."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_COMMAND_FUNCTION_LINES:
                    out.append(f"{m}.{node.name}: {length} lines, over the {MAX_COMMAND_FUNCTION_LINES} a command "
                               "function may have (move the work into the package that owns it)")
    return out


def problems(edges: dict[str, set[str]]) -> list[str]:
    """Every module in no layer, every import going up the layers that :data:`UPWARD` does not list, every import
    of a public-API module from inside the code, and every :data:`UPWARD` entry the code no longer has."""
    out = [f"{m}: in no layer (put it in a package of LAYERS, or give its package a layer in scripts/architecture.py)"
           for m in sorted(edges) if layer_of(m) is None]
    seen: set[tuple[str, str]] = set()
    dynamic: set[str] = set()
    for m in sorted(edges):
        low = layer_of(m)
        for target in sorted(edges[m]):
            if target == UNPLACED:
                if m in DYNAMIC_IMPORTS:
                    dynamic.add(m)
                else:
                    out.append(f"{m} calls importlib.import_module with a name the layer check cannot place: import "
                               "the module by name (or list the module in DYNAMIC_IMPORTS with the reason)")
                continue
            high = layer_of(target)
            if is_public_api(target):
                out.append(f"{m} imports {target}, a public-API module: import from its layer's package instead")
                continue
            if low is None or high is None or high <= low:
                continue
            if (m, target) in UPWARD:
                seen.add((m, target))
                continue
            out.append(f"{m} ({LAYERS[low].name}) imports {target} ({LAYERS[high].name}), a layer above it")
    out += [f"UPWARD lists {a} -> {b}, which the code no longer imports upward: delete the entry"
            for a, b in sorted(set(UPWARD) - seen)]
    out += [f"DYNAMIC_IMPORTS lists {m}, which no longer imports a computed module name: delete the entry"
            for m in sorted(set(DYNAMIC_IMPORTS) - dynamic) if m in edges]
    return out


def by_layer(modules: Iterable[str]) -> list[list[str]]:
    """The modules (or boxes) of each layer (bottom first), sorted."""
    rows: list[list[str]] = [[] for _ in LAYERS]
    for m in sorted(modules):
        i = layer_of(m)
        if i is not None:
            rows[i].append(m)
    return rows


# ---------------------------------------------------------------------------------------------- the picture
#: The PNG text key holding the fingerprint of the graph a picture shows.
FINGERPRINT_KEY = "simcli-layers"


def box_of(module: str, modules: Iterable[str]) -> str:
    """The box a module is drawn in: its package (a package's ``__init__`` is the package itself); the public API
    and the entry points are one box each, and the built-in strategies one."""
    if module in ENTRY_POINTS:
        return "simcli.commands"
    if is_public_api(module):
        return "simcli.<public API>"
    layer_packages = {p for layer in LAYERS for p in layer.packages}
    if module != ROOT_PACKAGE and (module in layer_packages or any(m.startswith(module + ".") for m in modules)):
        return module  # a package
    parent = module.rpartition(".")[0]
    return parent or module


def collapse(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph drawn: one box per package (see :func:`box_of`), with the imports between boxes."""
    out: dict[str, set[str]] = {}
    for m, targets in edges.items():
        out.setdefault(box_of(m, edges), set()).update(box_of(t, edges) for t in targets if t != UNPLACED)
    for m in out:
        out[m].discard(m)
    return out


def members(edges: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each box's modules, by their last name (a package's ``__init__`` as ``__init__``)."""
    out: dict[str, list[str]] = {}
    for m in sorted(edges):
        box = box_of(m, edges)
        out.setdefault(box, []).append("__init__" if m == box else m.rpartition(".")[2])
    return out


def fingerprint(edges: dict[str, set[str]]) -> str:
    """A digest of what the picture shows (the layers, their boxes, the modules in each and the imports between
    boxes): the committed PNG carries it, so ``--check`` can tell that the picture no longer shows the code."""
    drawn = collapse(edges)
    shown = {"layers": [[layer.name, layer.what] for layer in LAYERS], "boxes": by_layer(drawn),
             "members": members(edges), "imports": sorted([m, t] for m, targets in drawn.items() for t in targets)}
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]


def drawn_fingerprint(path: Path = OUT) -> str | None:
    """The fingerprint a PNG written by :func:`draw` carries (None: no such file, or not drawn by it)."""
    if not path.exists():
        return None
    from PIL import Image

    with Image.open(path) as image:
        text = getattr(image, "text", {})
        return text.get(FINGERPRINT_KEY)


def _label(box: str, names: list[str]) -> str:
    """A box's text: the folder, then its modules wrapped."""
    title = {"simcli": "simcli/__init__ (version)", "simcli.<public API>": "simcli/*.py (public API)"}.get(
        box, box.replace(".", "/") + "/")
    if box.startswith("simcli.strategies"):  # the repository folder strategies/, imported as simcli.strategies
        title = box.removeprefix("simcli.").replace(".", "/") + "/" + (" (simcli.strategies)" * (box.count(".") == 1))
    shown = [n for n in names if n != "__init__"] if box != "simcli" else []
    return "\n".join([title, *textwrap.wrap(", ".join(shown), 34)])


def draw(edges: dict[str, set[str]], path: Path = OUT) -> None:
    """Draw the layers as bands, the packages as boxes listing their modules, every import between packages as a
    line from importer down to package."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    drawn = collapse(edges)
    names = members(edges)
    rows = by_layer(drawn)
    width = max(len(r) for r in rows)
    step, height = 3.2, 1.6
    fig, ax = plt.subplots(figsize=(6.0 + 3.4 * width, 1.45 * len(rows) + 1.0), dpi=100)
    where: dict[str, tuple[float, float]] = {}
    for i, row in enumerate(rows):
        y = height * i
        ax.add_patch(FancyBboxPatch((-0.5 * step, y - 0.7), step * width, 1.4, boxstyle="round,pad=0.02",
                                    alpha=0.12, color=f"C{i % 10}", linewidth=0))
        ax.text(-0.6 * step, y, f"{LAYERS[i].name}\n" + "\n".join(textwrap.wrap(LAYERS[i].what, 44)), ha="right",
                va="center", fontsize=8)
        offset = (width - len(row)) / 2
        for j, m in enumerate(row):
            where[m] = (step * (offset + j), y)
    for m, targets in sorted(drawn.items()):
        for t in sorted(targets):  # in a fixed order, so that the same code gives the same PNG bytes
            if m in where and t in where:
                (x0, y0), (x1, y1) = where[m], where[t]
                up = y1 > y0
                ax.annotate("", xy=(x1, y1 + (-0.45 if up else 0.45)), xytext=(x0, y0 + (0.45 if up else -0.45)),
                            arrowprops={"arrowstyle": "-|>", "lw": 1.4 if up else 0.5, "alpha": 0.9 if up else 0.3,
                                        "color": "red" if up else "0.3",
                                        "connectionstyle": "arc3,rad=0.15" if y0 == y1 else "arc3,rad=0.0"})
    for m, (x, y) in where.items():
        ax.text(x, y, _label(m, names.get(m, [])), ha="center", va="center", fontsize=6.5,
                bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "0.4"})
    ax.set_xlim(-2.6 * step, step * width)
    ax.set_ylim(-1.0, height * len(rows) - 0.6)
    ax.axis("off")
    ax.set_title("simcli: one package per layer; each imports only its own layer and those below "
                 "(red: a listed exception)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None, FINGERPRINT_KEY: fingerprint(edges)})
    plt.close(fig)


def tree(root: Path = ROOT) -> list[str]:
    """One line per package (and the public API): its layer, modules, lines and the modules it holds."""
    modules = discover(root)
    edges = {m: set() for m in modules}
    lines: dict[str, int] = {}
    for m, path in modules.items():
        box = box_of(m, edges)
        lines[box] = lines.get(box, 0) + _lines(path)
    out = []
    for i, row in enumerate(by_layer(collapse(edges))):
        for box in row:
            names = members(edges)[box]
            out.append(f"{LAYERS[i].name:15} {box:26} {len(names):3} modules {lines[box]:6,} lines: {', '.join(names)}")
    return out


def main(argv: list[str] | None = None) -> int:
    """The command line: draw, ``--check``, ``--list`` or ``--tree``; exit status 1 when the layering is broken."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail on a module in no layer, an upward import, "
                        "a module over its size, or a stale picture")
    parser.add_argument("--list", action="store_true", help="print every module's layer and imports")
    parser.add_argument("--tree", action="store_true", help="print one line per package")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the PNG")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to read (default: this one)")
    args = parser.parse_args(argv)
    edges = graph(args.root)
    found = problems(edges) + oversized(args.root) + long_command_functions(args.root)
    if args.list:
        for i, row in enumerate(by_layer(edges)):
            for m in row:
                print(f"{LAYERS[i].name:15} {m:36} -> {', '.join(sorted(edges[m]))}")
    if args.tree:
        print("\n".join(tree(args.root)))
    if found:
        print("\n".join(found), file=sys.stderr)
        return 1
    if args.list or args.tree:
        return 0
    if args.check:
        if drawn_fingerprint(args.out) != fingerprint(edges):
            print(f"{args.out} does not show the code's packages and imports: redraw it with "
                  "python scripts/architecture.py", file=sys.stderr)
            return 1
        print(f"ok: {len(edges)} modules in {len(LAYERS)} layers, no import goes up a layer, no module over its "
              "size nor command function over its length, the picture is current")
        return 0
    draw(edges, args.out)
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
