"""The table as a card player sees it, read from a deal in progress: one plain JSON-ready dict per moment.

:func:`snapshot` is what the replay page shows at a step (:mod:`simcli.viewer.page`) and what a person's seat prints
(:mod:`simcli.viewer.human`, through a :class:`~simcli.engine.view.PlayerView`'s public parts). Hands are card
names sorted as a player holds them (:data:`simcli.viewer.words.DISPLAY_ORDER`); melds carry their canasta kind.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from simcli.engine.features.ponies import has_foot
from simcli.engine.melds import canasta_type
from simcli.engine.state import DealState
from simcli.primitives.cards import RANK_NAMES, WILD_MELD, cards_of
from simcli.rules.ruleset import RuleSet
from simcli.viewer.foot import contract_progress
from simcli.viewer.words import sort_cards


def hand_text(counts: list[int] | tuple[int, ...]) -> str:
    """A hand's cards as a player holds them, highest first: ``A K K 9 4 2 JK``."""
    return " ".join(sort_cards([RANK_NAMES[c] for c in cards_of(counts)]))


def meld_entry(rules: RuleSet, rank: int, comp: tuple[int, int, int], *, hidden: bool = False,
               set_aside: bool = False) -> dict[str, Any]:
    """One meld for the page: its rank name (``WILD`` for wild cards only), make-up, canasta kind (or ``None``),
    whether it is closed (no card may join it: a canasta at ``meld_max_size``, or one set aside) and hidden."""
    kind = canasta_type(rules, rank, comp)
    cap = rules.meld_max_size
    closed = set_aside or (kind is not None and cap is not None and sum(comp) >= cap)
    out: dict[str, Any] = {"rank": "WILD" if rank == WILD_MELD and not comp[0] else RANK_NAMES[rank],
                           "n": comp[0], "t": comp[1], "j": comp[2], "kind": kind}
    if closed:
        out["closed"] = True
    if hidden and kind is not None:
        out["hidden"] = True
    return out


def team_melds(st: DealState, team: int) -> list[dict[str, Any]]:
    """A team's melds, closed canastas set aside included, by rank from the highest (wild cards first)."""
    hidden = Counter(st.hidden[team])
    aside = {(r, n, t, j) for r, n, t, j in st.closed[team]}
    out = []
    for rank, n, t, j in st.team_melds(team):
        is_hidden = hidden[rank] > 0 and canasta_type(st.rules, rank, (n, t, j)) is not None
        if is_hidden:
            hidden[rank] -= 1
        out.append(meld_entry(st.rules, rank, (n, t, j), hidden=is_hidden, set_aside=(rank, n, t, j) in aside))
    order = {name: i for i, name in enumerate(("WILD", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "B3"))}
    return sorted(out, key=lambda m: order.get(m["rank"], 99))


def snapshot(st: DealState) -> dict[str, Any]:
    """Everything on the table now: hands, ponies, wings, melds, threes, the pile and the stock, whose turn."""
    rules = st.rules
    pile = st.pile
    teams = range(st.n_teams)
    out: dict[str, Any] = {
        "hands": [hand_text(h) for h in st.hands],
        "sizes": list(st.hand_sizes),
        "melds": [team_melds(st, t) for t in teams],
        "r3": list(st.red_threes),
        "opened": list(st.opened),
        "minimum": list(st.minimum),
        "pile": {"top": RANK_NAMES[pile[-1]] if pile else None, "size": len(pile),
                 "down": len(st.facedown_positions()), "frozen": st.pile_frozen,
                 "frozenFor": [st.frozen_for(t) for t in teams],
                 "crossed": st.castigado_since is not None,
                 "premiado": st.pile_premiado and st.premiado_end_turn is None},
        "stock": len(st.stock),
        "turn": st.turn,
        "current": st.current,
    }
    if rules.threes_mode == "AMERICAN_COLOUR_TABLE":
        out["b3"] = list(st.black_threes)
    if rules.pony_size:
        out["ponies"] = [sum(p) for p in st.ponies]  # a picked-up pony keeps its red threes until each is laid
        out["ponyPicked"] = list(st.pony_picked)
        if has_foot(rules):  # Hand and Foot: how each seat got into its foot, and the contracts
            out["footWalked"] = list(st.pony_walked)
            out["contract"] = [[list(x) for x in contract_progress(rules.go_out_requirement, st.canastas[t],
                                                                   st.clean_canastas[t])] for t in teams]
    if rules.wing_sizes:
        out["wings"] = [sum(w) for w in st.wings]
        out["wingPending"] = [sum(w) if w is not None else 0 for w in st.wing_pending]
        out["wingsVoid"] = sum(sum(w) for w in st.wings_void)  # forfeited by a pile opening, set aside for good
    return out
