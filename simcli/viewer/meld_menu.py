"""The words of a person's meld menu: each action named with the meld it goes to (``add 2 to K K K``, ``lay 9 9 9
(a new meld)``), and the turn's melds offered to lay only with what they still lack said (``needs 10 more to
open``), so that nothing is offered that the rules would refuse without saying why first.

Legality stays the view's answer (:meth:`~simcli.engine.view.PlayerView.check_melds`): this module only words it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from simcli.engine.view import PlayerView
from simcli.primitives.actions import Meld
from simcli.primitives.cards import BLACK_THREE, RANK_NAMES, WILD_MELD
from simcli.viewer.words import meld_cards

_OPENING = re.compile(r"opening melds count (\d+), below the minimum (\d+)")


def action_text(m: Meld) -> str:
    """A meld action's cards: ``K K 2`` (``2 2 JK`` for wild cards alone)."""
    rank = "WILD" if m.rank == WILD_MELD and not m.naturals else RANK_NAMES[m.rank]
    return meld_cards(rank, m.naturals, m.twos, m.jokers)


def _target(view: PlayerView, plan: Sequence[Meld], rank: int) -> tuple[str, bool] | None:
    """The meld of ``rank`` an action goes to: its cards on the table with what the plan already adds, and whether
    it is on the table (else only planned); None when there is none yet."""
    table = view.meld(rank)
    naturals, twos, jokers = table if table is not None else (0, 0, 0)
    for m in plan:
        if m.rank == rank:
            naturals, twos, jokers = naturals + m.naturals, twos + m.twos, jokers + m.jokers
    if naturals + twos + jokers == 0:
        return None
    name = "WILD" if rank == WILD_MELD and not naturals else RANK_NAMES[rank]
    return meld_cards(name, naturals, twos, jokers), table is not None


def action_label(view: PlayerView, plan: Sequence[Meld], m: Meld) -> str:
    """A meld action in words, with its target: ``add 2 to K K K``, ``add K K to K K K 2 (planned)``, ``lay 9 9 9
    (a new meld)``, ``lay 2 2 JK (a new wild meld)``, ``lay B3 B3 B3 (going out)``."""
    cards = action_text(m)
    if m.rank == BLACK_THREE:
        return f"lay {cards} (only when going out)"
    target = _target(view, plan, m.rank)
    if target is None:
        return f"lay {cards} (a new {'wild ' if m.rank == WILD_MELD and not m.naturals else ''}meld)"
    onto, on_table = target
    return f"add {cards} to {onto}" + ("" if on_table else " (planned)")


def plan_words(view: PlayerView, plan: Sequence[Meld]) -> str:
    """The melds planned so far, each with its target as it was chosen: ``add 2 to K K K; lay 9 9 9 (a new
    meld)``."""
    return "; ".join(action_label(view, plan[:i], m) for i, m in enumerate(plan))


def missing(err: str) -> str:
    """What a refused plan still lacks, in the player's words: ``needs 10 more to open (these count 40 of 50)``,
    else the rule's own reason."""
    found = _OPENING.search(err)
    if found:
        value, minimum = int(found.group(1)), int(found.group(2))
        return f"needs {minimum - value} more to open (these count {value} of {minimum})"
    return err


def done_label(view: PlayerView, plan: Sequence[Meld]) -> str:
    """The menu's first choice: ``meld nothing (go on)``, ``lay K K K, add 2 to Q Q Q`` when the plan can be laid
    now, or ``lay ...: not yet, needs 10 more to open`` (what it lacks) when it cannot."""
    if not plan:
        return "meld nothing (go on)"
    err = view.check_melds(plan)
    text = "lay " + ", ".join(action_text(m) for m in plan)
    return text if err is None else f"{text}: not yet, {missing(err)}"


def opening_note(view: PlayerView, plan: Sequence[Meld]) -> str | None:
    """Before the team opens, the line that says what opening takes: ``your team has not opened: its first melds
    must count 50 or more``."""
    if view.has_opened or plan:
        return None
    return f"your team has not opened: its first melds must count {view.minimum} or more"
