"""What played a run or a match: the source commit and the builds, as run.json and the match, tournament and ladder
manifests record them (with the simcli version).

The commit (:func:`git_commit`) is the checkout's HEAD when simcli runs from a source checkout (an editable install
or ``PYTHONPATH``). An installed package has no checkout beside it, so it carries its commit: the build writes the
commit of the tree it was built from into ``simcli/engine/build.json`` (setup.py, beside the build's choice; a
``pip install .`` or ``pip wheel .`` of a checkout), and pip records the commit of a VCS install
(``pip install git+https://...@REV``) in the distribution's ``direct_url.json`` (``vcs_info.commit_id``). None
when nothing says (a source tree that is not a git checkout, an sdist without git).

The builds (:func:`builds`): whether the engine ran compiled (mypyc) or as pure Python, and the same for each
strategy's class (a user's strategy is pure even on the compiled build; a subclass of a compiled built-in is
compiled where its base's code runs).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from importlib import metadata
from typing import Any

from simcli.engine import builds as engine_builds

#: The installed distribution's name (its metadata holds direct_url.json).
DISTRIBUTION = "simcli"


def checkout_commit() -> str | None:
    """The HEAD of the source checkout simcli runs from, or None (not a checkout, or not a git one)."""
    if not engine_builds.in_checkout():
        # An installed package inside some other repository (a venv in a project folder) would report that
        # repository's HEAD: only a simcli checkout is asked.
        return None
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=engine_builds.CHECKOUT, capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def recorded_commit() -> str | None:
    """The commit an installed package was built from (its ``build.json``), else the one pip installed it from (a
    VCS URL's ``direct_url.json``), else None."""
    try:
        record = json.loads(engine_builds.RECORD.read_text(encoding="utf-8"))
        if isinstance(record, dict) and record.get("git_commit"):
            return str(record["git_commit"])
    except (OSError, ValueError):
        pass
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        vcs = json.loads(text or "{}").get("vcs_info") or {}
        return str(vcs["commit_id"]) if vcs.get("commit_id") else None
    except (metadata.PackageNotFoundError, OSError, ValueError, AttributeError):
        return None


def git_commit() -> str | None:
    """The source commit of the simcli that runs: the checkout's HEAD, else the installed package's record."""
    return checkout_commit() or recorded_commit()


def builds(strategies: Iterable[str]) -> dict[str, Any]:
    """``{"engine": "compiled" | "pure", "strategies": {spec: "compiled" | "pure"}}`` for the strategy specs given
    (each once; a spec that cannot be loaded here is ``"unknown"``)."""
    from simcli.players.loading import load_strategy, strategy_build
    from simcli.players.specs import StrategyLookupError

    out: dict[str, str] = {}
    for spec in dict.fromkeys(strategies):
        try:
            out[spec] = strategy_build(load_strategy(spec))
        except (StrategyLookupError, ImportError, OSError):
            out[spec] = "unknown"
    return {"engine": engine_builds.engine_build(), "strategies": out}
