"""``oracle``: the ``mc`` search (:mod:`.mc`) on the true state, seeing every hidden card and the stock order.

It cheats, so it is only for measuring what hidden information is worth (a ceiling); it never runs unless asked
for by name.
"""

from __future__ import annotations

from .mc import MonteCarlo


class Oracle(MonteCarlo):
    """The ``mc`` search on the true state: it sees every hidden card and the stock order (a ceiling)."""

    name = "oracle"
    cheat = True


STRATEGY = Oracle
