"""The layers of simcli, derived from the code: writes docs/architecture.png, or checks the import graph.

Every module of ``simcli/`` and ``strategies/`` is found on disk and its imports are read with ``ast`` (all of
them: module level, inside functions and under ``TYPE_CHECKING``), so the picture is the code's and not a
drawing. Each module is placed in a layer by :data:`PLACED` (an explicit table, checked first) or by the
name patterns of :data:`LAYERS`; a module may import only from its own layer or the layers below.

    python scripts/architecture.py            # write docs/architecture.png (and print the layers)
    python scripts/architecture.py --check    # exit 1 naming every module not placed, every upward import, and
                                              # when docs/architecture.png no longer shows the code
    python scripts/architecture.py --list     # print each module's layer and imports

After a module is added or renamed, rerun ``--check``: a new module that no pattern places is named, and the fix is
a line in :data:`PLACED` (or a pattern in :data:`LAYERS`); then rerun without ``--check`` to redraw the PNG.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import hashlib
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Folders scanned, with the package name their modules import under (strategies/ ships as simcli.strategies).
PACKAGES = {"simcli": "simcli", "strategies": "strategies"}
ALIASES = {"simcli.strategies": "strategies"}
OUT = ROOT / "docs" / "architecture.png"
#: The horizontal distance between two boxes of a layer, in box widths.
STEP = 1.3


@dataclass(frozen=True)
class Layer:
    """A layer of the design: modules matching ``patterns`` (fnmatch on the dotted name) and what they do."""

    name: str
    what: str
    patterns: tuple[str, ...]


#: The layers, bottom first. A module may import its own layer and the layers below, never one above.
LAYERS: tuple[Layer, ...] = (
    Layer("foundation", "ranks and count vectors, decisions, errors, seeds, knob declarations, the version",
          ("simcli", "simcli.cards", "simcli.actions", "simcli.errors", "simcli.seeding", "simcli.knobs",
           "simcli.knob_values")),
    Layer("rule set", "presets, overrides and the frozen RuleSet",
          ("simcli.rules", "simcli.ruleset*", "simcli.rule_set*")),
    Layer("state & rule arithmetic", "the deal state, meld legality and canastas, scoring, hidden-card sampling, "
          "the events' JSON shapes", ("simcli.state", "simcli.table_layout", "simcli.meld_book",
                                      "simcli.melds", "simcli.scoring", "simcli.worlds",
                                      "simcli.sampling*", "simcli.seen*", "simcli.trace_json", "simcli.*shapes")),
    Layer("rules of play", "legality of every decision; one module per variant feature, predicates and transitions",
          ("simcli.judge", "simcli.meld_legality", "simcli.engine", "simcli.special*", "simcli.threes",
           "simcli.ponies", "simcli.wings",
           "simcli.spanish*", "simcli.pile*", "simcli.premiado", "simcli.castigado", "simcli.tapa")),
    Layer("strategy API", "what a player sees and may do: the view, the Strategy interface, planning helpers",
          ("simcli.view", "simcli.strategy_base", "simcli.interface", "simcli.planning", "simcli.strategy")),
    Layer("engine", "the turn in named phases, dealing, melding, ending, the game loop, events",
          ("simcli.deal", "simcli.dealing", "simcli.melding", "simcli.ending", "simcli.turn*", "simcli.phases",
           "simcli.trace_json", "simcli.trace_shapes", "simcli.game", "simcli.trace", "simcli.position")),
    Layer("search & strategies", "forward model (clones, rollouts) and the built-in strategies",
          ("simcli.forward", "strategies", "strategies.*")),
    Layer("statistics", "estimators, metrics, report sections, comparisons over run tables (no engine import)",
          ("simcli.stats", "simcli.stats.*")),
    Layer("records & runs", "result rows, Parquet run directories, integrity checks, duplicate matches",
          ("simcli.records", "simcli.results", "simcli.integrity", "simcli.backends", "simcli.runner",
           "simcli.match_store", "simcli.duplicate", "simcli.match", "simcli.tournament", "simcli.ladder")),
    Layer("command line", "the Click commands: run, play, report, compare, sweep, plot, match, ...",
          ("simcli.cli", "simcli.__main__", "simcli.commands", "simcli.commands.*")),
)

#: Modules placed by hand, before the patterns: a module whose name says nothing about its layer goes here.
PLACED: dict[str, str] = {}

#: Imports that go up the layers on purpose, each with the reason; ``--check`` fails on any other, and on an entry
#: here that the code no longer has (delete it then).
UPWARD: dict[tuple[str, str], str] = {}


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
    for alias, target in ALIASES.items():
        if name == alias or name.startswith(alias + "."):
            name = target + name[len(alias):]
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The scanned modules that ``module`` imports anywhere in its file (itself excluded)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
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
def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module``'s layer (:data:`PLACED` first, then the patterns), or None."""
    names = [layer.name for layer in LAYERS]
    if module in PLACED:
        return names.index(PLACED[module]) if PLACED[module] in names else None  # problems() names the typo
    for i, layer in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(module, pattern) for pattern in layer.patterns):
            return i
    return None


def problems(edges: dict[str, set[str]]) -> list[str]:
    """Every module not placed in a layer, every import going up the layers that :data:`UPWARD` does not list,
    and every :data:`UPWARD` entry the code no longer has."""
    out = [f"{m}: not placed in a layer (add it to PLACED or a pattern of LAYERS in scripts/architecture.py)"
           for m in sorted(edges) if layer_of(m) is None]
    out += [f"PLACED[{m!r}] names no layer {name!r}" for m, name in PLACED.items()
            if name not in [layer.name for layer in LAYERS]]
    seen: set[tuple[str, str]] = set()
    for m in sorted(edges):
        low = layer_of(m)
        for target in sorted(edges[m]):
            high = layer_of(target)
            if low is None or high is None or high <= low:
                continue
            if (m, target) in UPWARD:
                seen.add((m, target))
                continue
            out.append(f"{m} ({LAYERS[low].name}) imports {target} ({LAYERS[high].name}), a layer above it")
    out += [f"UPWARD lists {a} -> {b}, which the code no longer imports upward: delete the entry"
            for a, b in sorted(set(UPWARD) - seen)]
    return out


def by_layer(modules: Iterable[str]) -> list[list[str]]:
    """The modules of each layer (bottom first), sorted."""
    rows: list[list[str]] = [[] for _ in LAYERS]
    for m in sorted(modules):
        i = layer_of(m)
        if i is not None:
            rows[i].append(m)
    return rows


# ---------------------------------------------------------------------------------------------- the picture
#: The PNG text key holding the fingerprint of the graph a picture shows.
FINGERPRINT_KEY = "simcli-layers"


def fingerprint(edges: dict[str, set[str]]) -> str:
    """A digest of what the picture shows (the layers, their boxes and the imports between boxes): the committed
    PNG carries it, so ``--check`` can tell that the picture no longer shows the code."""
    drawn = collapse(edges)
    shown = {"layers": [[layer.name, layer.what] for layer in LAYERS], "boxes": by_layer(drawn),
             "imports": sorted([m, t] for m, targets in drawn.items() for t in targets)}
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]


def drawn_fingerprint(path: Path = OUT) -> str | None:
    """The fingerprint a PNG written by :func:`draw` carries (None: no such file, or not drawn by it)."""
    if not path.exists():
        return None
    from PIL import Image

    with Image.open(path) as image:
        text = getattr(image, "text", {})
        return text.get(FINGERPRINT_KEY)


def _short(module: str) -> str:
    """A box's label: simcli modules without the package name, strategies as ``strategies/NAME``."""
    if module == "simcli":
        return "simcli (package)"
    if module == "strategies":
        return "strategies/"
    if module.startswith("strategies."):
        return "strategies/\n" + module.removeprefix("strategies.")
    return module.removeprefix("simcli.")


def collapse(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph drawn: the CLI's command modules and a package's submodules become one box each (their imports
    merged), so the picture stays readable as packages grow."""
    def box(m: str) -> str:
        parts = m.split(".")
        if m.startswith("simcli.commands.") or m.startswith("simcli.stats.") or m == "simcli.__main__":
            return ".".join(parts[:2]) if m != "simcli.__main__" else "simcli.cli"
        return m
    out: dict[str, set[str]] = {}
    for m, targets in edges.items():
        out.setdefault(box(m), set()).update(box(t) for t in targets)
    for m in out:
        out[m].discard(m)
    return out


def draw(edges: dict[str, set[str]], path: Path = OUT) -> None:
    """Draw the layers as bands, the modules as boxes and every import as a line from importer down to module."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    drawn = collapse(edges)
    rows = by_layer(drawn)
    width = max(len(r) for r in rows)
    fig, ax = plt.subplots(figsize=(max(14.0, 2.2 * width), 1.25 * len(rows) + 1.2), dpi=110)
    where: dict[str, tuple[float, float]] = {}
    for i, row in enumerate(rows):
        y = float(i)
        ax.add_patch(FancyBboxPatch((-0.5 * STEP, y - 0.42), STEP * width, 0.84, boxstyle="round,pad=0.02", alpha=0.12,
                                    color=f"C{i % 10}", linewidth=0))
        ax.text(-0.6 * STEP, y, f"{LAYERS[i].name}\n{LAYERS[i].what}", ha="right", va="center", fontsize=8, wrap=True)
        offset = (width - len(row)) / 2
        for j, m in enumerate(row):
            where[m] = (STEP * (offset + j), y)
    for m, targets in sorted(drawn.items()):
        for t in sorted(targets):  # in a fixed order, so that the same code gives the same PNG bytes
            if m in where and t in where:
                (x0, y0), (x1, y1) = where[m], where[t]
                up = y1 > y0
                ax.annotate("", xy=(x1, y1 + (-0.18 if up else 0.18)), xytext=(x0, y0 + (0.18 if up else -0.18)),
                            arrowprops={"arrowstyle": "-|>", "lw": 1.4 if up else 0.5, "alpha": 0.9 if up else 0.25,
                                        "color": "red" if up else "0.3",
                                        "connectionstyle": "arc3,rad=0.08" if y0 == y1 else "arc3,rad=0.0"})
    for m, (x, y) in where.items():
        ax.text(x, y, _short(m), ha="center", va="center", fontsize=7.5,
                bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "0.4"})
    ax.set_xlim(-5.5 * STEP, STEP * width)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.axis("off")
    ax.set_title("simcli layers: each module imports only its own layer and those below (red: a listed exception)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None, FINGERPRINT_KEY: fingerprint(edges)})
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """The command line: draw, ``--check`` or ``--list``; the exit status is 1 when the layering is broken."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail on an unplaced module or an upward import")
    parser.add_argument("--list", action="store_true", help="print every module's layer and imports")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the PNG")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to read (default: this one)")
    args = parser.parse_args(argv)
    edges = graph(args.root)
    found = problems(edges)
    if args.list:
        for i, row in enumerate(by_layer(edges)):
            for m in row:
                print(f"{LAYERS[i].name:24} {m:28} -> {', '.join(sorted(edges[m]))}")
    if found:
        print("\n".join(found), file=sys.stderr)
        return 1
    if args.check:
        if drawn_fingerprint(args.out) != fingerprint(edges):
            print(f"{args.out} does not show the code's modules and imports: redraw it with "
                  "python scripts/architecture.py", file=sys.stderr)
            return 1
        print(f"ok: {len(edges)} modules in {len(LAYERS)} layers, no import goes up a layer, the picture is current")
        return 0
    draw(edges, args.out)
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
