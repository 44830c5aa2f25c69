"""Finding strategies by name, ``module:Class``, file path or entry point, and building them with their options.

A strategy spec is ``NAME`` or ``NAME:key=value,...`` (read by :mod:`simcli.players.specs`); the options are
passed to the class as keyword arguments (``Class(rng, **options)``), checked against its ``__init__`` signature.

The interface itself, :class:`Strategy` and :data:`Draw`, lives in :mod:`simcli.engine.strategy_base`; its public
path, the one documentation and messages name, is ``simcli.strategy.Strategy``. The built-ins are the package
``simcli.strategies`` (the repository folder ``strategies/``) under that one name in every build.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from simcli.engine.strategy_base import Strategy
from simcli.players.specs import StrategyLookupError, seat_specs, split_spec, split_strategy_list, typed_options

BUILTIN_STRATEGIES = {
    "random": "simcli.strategies.heuristics.random_play:RandomStrategy",
    "greedy": "simcli.strategies.heuristics.greedy:Greedy",
    "ponytail": "simcli.strategies.heuristics.ponytail:Ponytail",
    "americana": "simcli.strategies.heuristics.americana:Americana",
    "spanish": "simcli.strategies.heuristics.spanish:Spanish",
    "handfoot": "simcli.strategies.heuristics.handfoot:HandAndFoot",
    "mc": "simcli.strategies.search.mc:MonteCarlo",
    "oracle": "simcli.strategies.search.oracle:Oracle",
    "ismcts": "simcli.strategies.search.ismcts:Ismcts",
    "net": "simcli.strategies.learnt.net:Net",
}
ENTRY_POINT_GROUP = "simcli.strategies"
#: The package of the built-in strategies (the repository folder ``strategies/``, installed and imported under this
#: one name by every build: pyproject.toml's package-dir).
BUILTIN_PACKAGE = "simcli.strategies"
#: The one path to the strategy interface that documentation and messages name (the public API, simcli/strategy.py).
STRATEGY_PATH = "simcli.strategy.Strategy"


StrategyFactory = Callable[[np.random.Generator], Strategy]


# ------------------------------------------------------------------- finding strategies
def strategy_build(cls: type) -> str:
    """``"compiled"`` when a class of ``cls``'s hierarchy below :class:`Strategy` was compiled by mypyc (its module
    is a C extension: a built-in of the compiled build, or a user subclass of one), else ``"pure"``."""
    for klass in cls.__mro__:
        if klass is Strategy or klass is object:
            continue
        origin = getattr(sys.modules.get(klass.__module__), "__file__", None) or ""
        if origin.endswith((".so", ".pyd")):
            return "compiled"
    return "pure"


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a missing parent package
        return False


def _add_cwd_to_path(module_name: str) -> None:
    """Make modules in the current directory importable, as ``python -m`` would (the ``simcli`` script does not)."""
    cwd = os.getcwd()
    if "" in sys.path or cwd in sys.path or _module_exists(module_name.partition(".")[0]):
        return
    sys.path.append(cwd)
    importlib.invalidate_caches()


def _run_user_code(what: str, name: str, fn: Callable[[], Any]) -> Any:
    # Importing a user's module runs its code: any exception is a one-line lookup error, not a traceback.
    try:
        return fn()
    except StrategyLookupError:
        raise
    except Exception as exc:
        detail = str(exc).splitlines()[0] if str(exc) else ""
        raise StrategyLookupError(
            f"cannot load strategy '{name}': {what} raised {type(exc).__name__}" + (f": {detail}" if detail else "")
        ) from None


def _import_module(module_name: str, name: str) -> ModuleType:
    _add_cwd_to_path(module_name)
    if not _module_exists(module_name):
        raise StrategyLookupError(
            f"cannot load strategy '{name}': no module named '{module_name}' (looked in the current directory "
            "and on the Python path)"
        )
    return _run_user_code(f"importing {module_name}", name, lambda: importlib.import_module(module_name))


def is_file_spec(target: str) -> bool:
    """Whether a strategy name is a file path (``mine.py``, ``dir/mine.py``, ``mine.py:Class``)."""
    path = target.rpartition(":")[0] if ":" in target else target
    return path.endswith(".py") or "/" in path or os.sep in path


def _load_file(path_text: str, name: str) -> ModuleType:
    path = Path(path_text).expanduser()
    if not path.is_file():
        where = "" if path.is_absolute() else f" (relative to {os.getcwd()})"
        raise StrategyLookupError(f"strategy file '{path_text}' not found{where}")
    path = path.resolve()
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    module_name = f"_simcli_strategy_file_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise StrategyLookupError(f"cannot load strategy '{name}': {path_text} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    # Registered before running, as an import would, so dataclasses and pickling inside the file work; a file
    # may import its neighbours, as a script may.
    sys.modules[module_name] = module
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))
    loader = spec.loader
    try:
        _run_user_code(f"running {path_text}", name, lambda: loader.exec_module(module))
    except StrategyLookupError:
        del sys.modules[module_name]
        raise
    return module


def _strategy_in(module: ModuleType, where: str, name: str) -> object:
    """A module's ``STRATEGY``, else the one Strategy subclass it defines."""
    obj = getattr(module, "STRATEGY", None)
    if obj is not None:
        return obj
    defined = [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, Strategy) and v.__module__ == module.__name__]
    if len(defined) == 1:
        return defined[0]
    if not defined:
        raise StrategyLookupError(
            f"cannot load strategy '{name}': {where} defines no strategy; define a subclass of "
            f"{STRATEGY_PATH} or set STRATEGY = YourClass in it"
        )
    names = ", ".join(sorted(c.__name__ for c in defined))
    raise StrategyLookupError(
        f"cannot load strategy '{name}': {where} defines several strategies ({names}); set STRATEGY = YourClass "
        f"or name one, e.g. {where}:{sorted(c.__name__ for c in defined)[0]}"
    )


def _attribute(module: ModuleType, attr: str, where: str, name: str) -> object:
    if not hasattr(module, attr):
        found = sorted(k for k, v in vars(module).items() if isinstance(v, type) and issubclass(v, Strategy)
                       and v is not Strategy)
        allowed = f"strategies in it: {', '.join(found)}" if found else "it defines no strategy"
        raise StrategyLookupError(f"cannot load strategy '{name}': {where} has no '{attr}' ({allowed})")
    return getattr(module, attr)


def available_strategies() -> list[str]:
    """Names of the built-in strategies and of those registered under the entry point."""
    names = set(BUILTIN_STRATEGIES)
    names.update(ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP))
    return sorted(names)


def _find_class(name: str) -> object:
    """The object a strategy name (without options) refers to."""
    spec = BUILTIN_STRATEGIES.get(name)
    if spec is not None:
        module_name, _, attr = spec.partition(":")
        return _attribute(_import_module(module_name, name), attr, module_name, name)
    if is_file_spec(name):
        path, colon, attr = name.rpartition(":") if ":" in name else (name, "", "")
        module = _load_file(path, name)
        return _attribute(module, attr, path, name) if colon else _strategy_in(module, path, name)
    eps = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    if name in eps:
        return _run_user_code(f"entry point {eps[name].value}", name, eps[name].load)
    if ":" in name:
        module_name, _, attr = name.partition(":")
        if not module_name or not attr:
            raise StrategyLookupError(f"bad strategy '{name}': expected module:Class")
        return _attribute(_import_module(module_name, name), attr, module_name, name)
    if name.isidentifier() and _module_exists(f"{BUILTIN_PACKAGE}.{name}"):  # a module in strategies/
        module = _import_module(f"{BUILTIN_PACKAGE}.{name}", name)
        obj = getattr(module, "STRATEGY", None)
        if obj is None:
            raise StrategyLookupError(f"module {BUILTIN_PACKAGE}.{name} has no STRATEGY class; set STRATEGY = "
                                      "YourClass in it")
        return obj
    import difflib

    # As a misspelled knob gets: the nearest names (built in or registered), so a typo needs no second look-up.
    close = difflib.get_close_matches(name, available_strategies(), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise StrategyLookupError(
        f"unknown strategy '{name}'{hint}; allowed: {', '.join(available_strategies())}, a module in strategies/, "
        "module:Class, or a file path/to/mine.py"
    )


@functools.lru_cache(maxsize=64)
def load_strategy(name: str) -> type[Strategy]:
    """Find a strategy class by name: built-in, module in ``strategies/``, ``module:Class``, ``path/to/file.py``
    (optionally ``:Class``) or ``simcli.strategies`` entry point. Options (``NAME:key=value``) are checked and
    ignored here; :func:`strategy_factory` applies them."""
    target, _ = split_spec(name)
    obj = _find_class(target)
    if not (isinstance(obj, type) and issubclass(obj, Strategy)):
        raise StrategyLookupError(f"strategy '{target}' is not a subclass of {STRATEGY_PATH}")
    if obj.name == "base":
        obj.name = target
    if target != name:
        strategy_options(name)
    return obj


# ------------------------------------------------------------------- options and lists of specs
@functools.lru_cache(maxsize=64)
def _options(spec: str) -> tuple[tuple[str, Any], ...]:
    target, raw = split_spec(spec)
    if not raw:
        return ()
    return typed_options(load_strategy(target), spec)


def strategy_options(spec: str) -> dict[str, Any]:
    """The keyword arguments of ``NAME:key=value,...``, typed and checked against the class's ``__init__``."""
    return dict(_options(spec))


@functools.lru_cache(maxsize=64)
def strategy_factory(spec: str) -> StrategyFactory:
    """A function ``rng -> Strategy`` for a strategy spec: the class called as ``Class(rng, **options)``.

    The instance is named by the spec as given (``mc:samples=32``), as results and reports name it.
    """
    cls = load_strategy(spec)
    options = strategy_options(spec)

    def build(rng: np.random.Generator) -> Strategy:
        strategy = cls(rng, **options)
        if strategy.name != spec:
            try:
                strategy.name = spec
            except AttributeError:  # a class with __slots__ and no name slot keeps its class name
                pass
        return strategy

    return build


def parse_strategy_list(text: str, num_players: int, n_teams: int | None = None) -> list[str]:
    """Split ``"greedy,random"`` (see :func:`split_strategy_list`) into one spec per seat: one spec fills every
    seat, one per team (of ``n_teams``; default one team per seat) is seated alternately, as teams sit
    (:func:`~simcli.players.specs.seat_specs`), else one per seat. Every spec is looked up and its options
    checked, so a bad one fails before any game is played."""
    names = seat_specs(split_strategy_list(text), num_players, n_teams)
    for n in dict.fromkeys(names):
        _check_nested(n, strategy_factory(n))
    return names


def _check_nested(spec: str, build: StrategyFactory) -> None:
    """Build the strategy once on a throwaway stream, so that a strategy its ``__init__`` looks up by name from an
    option (``mc:rollout=gredy``) fails here, before any game, as one line naming the spec. Any other error of
    ``__init__`` is left to the game, whose message names the seat, game and seed it depends on."""
    try:
        build(np.random.default_rng(0))
    except StrategyLookupError as exc:
        raise StrategyLookupError(f"strategy '{spec}': {str(exc).splitlines()[0]}") from None
    except Exception:  # noqa: BLE001 - reported with its seat, game and seed when the game builds it
        pass
