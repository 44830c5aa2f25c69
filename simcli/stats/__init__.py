"""Statistics over run tables: intervals, run summaries, paired and unpaired comparisons.

Pure functions over the ``games`` / ``deals`` DataFrames of ``docs/results-format.md``; the ``report``,
``compare``, ``sweep``, ``plot`` and ``balance`` commands call the same functions. Every rate comes
with ``n``, ``k``, ``rate``, ``ci_low``, ``ci_high`` and every mean with ``n`` and its interval (95% by
default). The methods are documented in ``docs/analysis.md``.

Units of observation:

* **game** -- one row of ``games`` (a game and rotation).
* **deal** -- one observation per deal (the team-0 row of ``deals``).
* **team-deal** -- one row of ``deals`` (a team's result in a deal).

The independent **unit** is the ``game_index``: without ``--rotate-seats`` a game, with it a game and its
seat-swapped twin (same deals, partnerships swapped), whose results are correlated. Deals of one game are not
independent either (scores carry over), so means over deals and team-deals use a cluster-robust standard error
with the unit as cluster; in a rotated run means and rates over games do too (rates with a Wilson interval on
the design-effect sample size). Rates over deals of a run without rotation use Wilson (or Clopper-Pearson)
intervals with the deal as the trial; the exact cut and pick are the same in both twins of a deal, so a rotated
run counts each such deal once.

The modules, one job each (every public name of each is also a name of this package, ``simcli.stats.NAME``):

* :mod:`~simcli.stats.confidence` -- :data:`CONFIDENCE`, the one confidence level, and normal quantiles;
* :mod:`~simcli.stats.estimators` -- intervals of rates and means, quantiles, Holm;
* :mod:`~simcli.stats.sums` -- the same estimators from per-unit sums and value counts;
* :mod:`~simcli.stats.tables` -- the run tables' keys, teams, seats, units and pony columns;
* :mod:`~simcli.stats.streams` -- the deals table read a few columns at a time and added up per game;
* :mod:`~simcli.stats.wins` -- win rates by team, seat or strategy;
* :mod:`~simcli.stats.extracts` -- how each metric's observations come out of a run;
* :mod:`~simcli.stats.ponies` -- pony pickups: the report's section and the pony metrics;
* :mod:`~simcli.stats.rows` -- the report's rows (a mean or a rate with its interval) and team-deal groups;
* :mod:`~simcli.stats.feet` -- Hand and Foot: the report's section of contracts met and ways into the foot;
* :mod:`~simcli.stats.metrics` -- the metric registry and ``--metric`` parsing;
* :mod:`~simcli.stats.summaries` -- one metric on one run (value and interval, per game, per unit);
* :mod:`~simcli.stats.sections` -- the sections of ``simcli report`` (the pony section in ``ponies``);
* :mod:`~simcli.stats.differences` -- two-sample tests and intervals of differences;
* :mod:`~simcli.stats.comparisons` -- ``compare``, ``sweep`` and ``balance`` tables;
* :mod:`~simcli.stats.interactions` -- a rule's effect by skill level and the interaction (``sweep --levels``).

The names are loaded on first use (:func:`__getattr__`), not on ``import simcli.stats``: the duplicate statistics
(:mod:`simcli.duplicate.pairs`, :mod:`simcli.duplicate.ratings`, ...), which the CLI imports for every command, take
:data:`CONFIDENCE` from :mod:`simcli.stats.confidence`, and an eager package would make every command import pandas
and scipy first (about a second).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: The modules whose ``__all__`` this package re-exports, in the order of the list above.
MODULES = ("confidence", "estimators", "sums", "tables", "streams", "wins", "extracts", "ponies", "rows", "feet",
           "metrics", "summaries", "sections", "differences", "comparisons", "interactions")

if TYPE_CHECKING:  # what mypy and editors see: the same names, each from its module (tests/test_stats_package.py)
    from simcli.stats.comparisons import *  # noqa: F403
    from simcli.stats.confidence import *  # noqa: F403
    from simcli.stats.differences import *  # noqa: F403
    from simcli.stats.estimators import *  # noqa: F403
    from simcli.stats.extracts import *  # noqa: F403
    from simcli.stats.feet import *  # noqa: F403
    from simcli.stats.interactions import *  # noqa: F403
    from simcli.stats.metrics import *  # noqa: F403
    from simcli.stats.ponies import *  # noqa: F403
    from simcli.stats.rows import *  # noqa: F403
    from simcli.stats.sections import *  # noqa: F403
    from simcli.stats.streams import *  # noqa: F403
    from simcli.stats.summaries import *  # noqa: F403
    from simcli.stats.sums import *  # noqa: F403
    from simcli.stats.tables import *  # noqa: F403
    from simcli.stats.wins import *  # noqa: F403
else:
    def __getattr__(name: str) -> Any:
        """``simcli.stats.NAME``: on first use, import every module and bind their public names here."""
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)
        names = _load()
        if name == "__all__":
            return names
        if name not in names:
            raise AttributeError(f"module 'simcli.stats' has no attribute '{name}'")
        return globals()[name]

    def __dir__() -> list[str]:
        """The module's own attributes and every re-exported name."""
        return sorted({*globals(), *_load()})


def _load() -> list[str]:
    """Import the modules of :data:`MODULES` and bind each one's ``__all__`` in this package; the names, in order.

    A name exported by two modules is an error (one of them would silently hide the other).
    """
    names: list[str] = []
    home: dict[str, str] = {}
    for module_name in MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        for name in module.__all__:
            if name in home:
                raise ImportError(f"simcli.stats: {name} is exported by both {home[name]} and {module_name}")
            home[name] = module_name
            globals()[name] = getattr(module, name)
            names.append(name)
    globals()["__all__"] = names
    return names
