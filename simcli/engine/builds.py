"""Which build of the engine runs: compiled (mypyc C extensions) or pure Python, and why, in one line.

``simcli --version``, ``simcli bench`` and the long-run hint say it. The installed package records its build's
choice in ``build.json`` beside this module (written by setup.py: ``{"build": ..., "reason": ...}``), so a pure
install says why it is pure (no C compiler, ``SIMCLI_COMPILE=0``, ...) and how to get the compiled build. A
source checkout (an editable install) has no record: it is pure unless built in place with ``SIMCLI_COMPILE=1``,
and then compiled modules older than their edited sources are named as stale (they shadow the sources: the
edits do not run until rebuilt).

Not compiled itself (it is not in setup.py's COMPILED list): it reads the files of the modules that are.
"""

from __future__ import annotations

import json
from pathlib import Path

#: What to do for the compiled build (the same games, several times faster).
HOW_TO_COMPILE = ("install a C compiler and the Python headers (Debian/Ubuntu: apt install gcc python3-dev), "
                  "then: pip install --force-reinstall --no-deps .")
#: The record setup.py writes into an installed package.
RECORD = Path(__file__).with_name("build.json")
#: The package's folder (simcli/), and the checkout's root when it runs from one (an editable install).
PACKAGE = Path(__file__).resolve().parent.parent
CHECKOUT = PACKAGE.parent


def engine_build() -> str:
    """``"compiled"`` when the engine runs from the mypyc build, else ``"pure"``: whether the turn loop's module
    was imported from a C extension or from a .py file."""
    import simcli.engine.deal

    return "pure" if (simcli.engine.deal.__file__ or "").endswith(".py") else "compiled"


def recorded_reason() -> str | None:
    """Why the installed build is pure, as its build recorded it (None: no record, e.g. a source checkout)."""
    try:
        record = json.loads(RECORD.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return str(record.get("reason") or "") or None


def in_checkout() -> bool:
    """Whether simcli runs from a source checkout (an editable install) rather than from an installed wheel."""
    return (CHECKOUT / "setup.py").is_file() and (CHECKOUT / "pyproject.toml").is_file()


def stale_modules() -> list[str]:
    """Compiled modules of a checkout older than their .py source (built in place, then edited): the sources of
    these are shadowed, so the edits do not run. Empty for an installed wheel (its files are never edited)."""
    if not in_checkout():
        return []
    stale = []
    for folder in (PACKAGE, CHECKOUT / "strategies"):
        for ext in sorted(folder.rglob("*.so")):
            source = ext.with_name(ext.name.split(".", 1)[0] + ".py")
            if source.is_file() and source.stat().st_mtime > ext.stat().st_mtime:
                stale.append(source.relative_to(CHECKOUT).as_posix())
    return stale


def describe() -> str:
    """The build in one phrase: compiled, or pure and why, with how to get the compiled build."""
    if engine_build() == "compiled":
        stale = stale_modules()
        if not stale:
            return "compiled build"
        return (f"compiled build, STALE: {len(stale)} edited source(s) shadowed by older compiled modules "
                f"({', '.join(stale[:3])}{', ...' if len(stale) > 3 else ''}); rebuild with SIMCLI_COMPILE=1 "
                "pip install -e . or remove them with python scripts/compiled.py clean")
    reason = recorded_reason()
    if reason is None and in_checkout():
        return "pure-Python build: a source checkout or editable install is pure unless SIMCLI_COMPILE=1"
    if reason is None or reason.startswith("SIMCLI_COMPILE"):
        return f"pure-Python build{f' ({reason})' if reason else ''}"
    return f"pure-Python build ({reason}); for the compiled build: {HOW_TO_COMPILE}"
