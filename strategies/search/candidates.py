"""The search players' candidate decisions: what ``mc`` (and ``ismcts``, ``oracle``) weigh at a decision and what
``net`` rates, in one place, compiled (every searched decision builds one list).

* :func:`draw_candidates`: the heuristic's draw, the stock, and each legal take of the kinds a heuristic makes;
* :func:`meld_candidates`: the heuristic's plan, nothing, the plan without wild cards and the plan without new
  melds (at most ``most``, each legal and distinct);
* :func:`discard_candidates`: the heuristic's discard, then every other distinct legal discard (``mc:discards=N``
  keeps fewer, by its prior: strategies/search/mc.py).

Each list starts with the heuristic's own choice, which a search keeps unless another candidate is better.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.view import PlayerView
from simcli.players.planning import legal_draws
from simcli.primitives.actions import SpecialHand


def draw_candidates(view: PlayerView, own: Any) -> list[Any]:
    """The heuristic's draw, then every other draw of :func:`simcli.players.planning.legal_draws` (the stock, and
    each legal take of the kinds a heuristic makes), in its order."""
    out = [own]
    for draw in legal_draws(view):
        if draw != own:
            out.append(draw)
    return out


def meld_candidates(view: PlayerView, own: Sequence[Any], most: int = 3) -> list[Any]:
    """The heuristic's plan, nothing, the plan without wild cards and the plan without new melds (at most
    ``most``, each legal and distinct)."""
    own = list(own)
    if own and isinstance(own[0], SpecialHand):
        return [own]
    table = view.meld_table()
    plans = [own, [],
             [m for m in own if not (m.twos or m.jokers)],
             [m for m in own if table[m.rank] is not None]]
    out: list[Any] = []
    for plan in plans:
        if plan in out or (plan and view.check_melds(plan) is not None):
            continue
        if not plan and view.partner_permission is True:
            continue  # told to go out: keeping every card is no option
        out.append(plan)
        if len(out) >= most:
            break
    return out or [own]


def discard_candidates(view: PlayerView, own: int | None) -> list[int | None]:
    """The heuristic's discard, then each other distinct legal discard."""
    out: list[int | None] = [own]
    for r in view.legal_discards():
        if r != own:
            out.append(r)
    return out
