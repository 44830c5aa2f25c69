"""The search players' candidate decisions: what ``mc`` (and ``ismcts``, ``oracle``) weigh at a decision and what
``net`` rates, in one place, compiled (every searched decision builds one list).

* :func:`draw_candidates`: the heuristic's draw, the stock, and each legal take of the kinds a heuristic makes;
* :func:`meld_candidates`: the heuristic's plan, nothing, the plan without wild cards and the plan without new
  melds (at most ``most``, each legal and distinct);
* :func:`discard_candidates`: the heuristic's discard, then every other distinct legal discard (``mc:discards=N``
  keeps fewer, by its prior: strategies/mc.py).

Each list starts with the heuristic's own choice, which a search keeps unless another candidate is better.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.view import PlayerView
from simcli.players.planning import opening_take, take_wilds
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand
from simcli.primitives.cards import FOUR

#: The best heuristic of each variant: the one whose choice is every list's first candidate, ``mc``'s default
#: rollout policy (``rollout=auto``) and ``net``'s fallback (here, below both, so that neither imports the other).
BEST_HEURISTIC = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana", "spanish": "spanish"}


def draw_candidates(view: PlayerView, own: Any) -> list[Any]:
    """The heuristic's draw, the stock, and each legal take of the kinds a heuristic makes."""
    out = [own]
    if own is not DRAW_STOCK and not view.must_take_pile:
        out.append(DRAW_STOCK)
    top = view.pile_top
    if top is None or top < FOUR:
        return out
    hand = view.hand
    n = hand[top]
    melds = [Meld(top, k) for k in range(2, n + 1)]
    if view.meld(top) is not None:
        melds += [Meld(top, k) for k in range(0, min(n, 1) + 1)]
    if n >= 1:
        left = list(hand)
        tw, jk = take_wilds(left, 1)
        if tw or jk:
            melds.append(Meld(top, n, tw, jk))
    minimum, opened = view.minimum, view.has_opened
    for meld in melds:
        take = opening_take(hand, meld, minimum, opened)
        if take is not None and take not in out and view.check_take(take) is None:
            out.append(take)
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
