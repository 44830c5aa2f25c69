"""The replay page: one self-contained HTML file (styles, script and the game inline; nothing fetched).

:func:`page_html` fills the template ``replay.html`` (shipped in this package with ``replay.css`` and
``replay.js``) with a :class:`~simcli.viewer.replay.GameReplay`: every frame's event in words and the table after
it, as JSON. The script only draws a frame and steps between frames; what a frame shows was worked out here, in
Python. To keep the file small each frame carries only the parts of the table that changed since the frame
before (the script fills in the rest when the page loads).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from simcli.engine.features.ponies import has_foot
from simcli.runs.atomic import atomic_write_text
from simcli.viewer.replay import GameReplay
from simcli.viewer.weighed import best_first, candidate_words
from simcli.viewer.words import seat_name, team_name

#: The page's note on search players' candidates when the trace has them (``search`` lines) and when it has none.
CANDIDATES_NOTE = ("At a decision a search player (mc, oracle, ismcts) searched, a step shows the candidates it "
                   "weighed, best first, with their values: the mean deal margin (own team's deal score minus the "
                   "best other team's) over the sampled worlds and its standard error, and for mc the mean gain over "
                   "its heuristic's own choice (the first it considers), which its pick compares.")
NO_CANDIDATES_NOTE = ("The candidates a search player (mc, oracle, ismcts) weighed, and their values, are shown when "
                      "the trace records them: `simcli play --trace T.jsonl --search-values` (or `--html` with "
                      "`--search-values`). This trace records only the move each player made.")


def _asset(name: str) -> str:
    return resources.files("simcli.viewer").joinpath(name).read_text(encoding="utf-8")


def _changed(state: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """The parts of ``state`` that differ from ``before`` (all of it at the first frame). A list of the same length
    (hands, melds by team) is sent as ``{index: item}`` for the items that changed."""
    if before is None:
        return dict(state)
    out: dict[str, Any] = {}
    for key, value in state.items():
        old = before.get(key)
        if old == value:
            continue
        if isinstance(value, list) and isinstance(old, list) and len(old) == len(value):
            out[key] = {str(i): v for i, (o, v) in enumerate(zip(old, value, strict=True)) if o != v}
        else:
            out[key] = value
    return out


def _compact(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with each meld as ``[rank, naturals, twos, jokers, kind, flags]`` (flags: c closed, h hidden)."""
    melds = [[[m["rank"], m["n"], m["t"], m["j"], m["kind"] or "", ("c" if m.get("closed") else "")
               + ("h" if m.get("hidden") else "")] for m in team] for team in state["melds"]]
    return {**state, "melds": melds}


def page_data(game: GameReplay) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data: the game's description and its frames."""
    h = game.header
    p, t = int(h["num_players"]), int(h["n_teams"])
    frames = []
    deals = []
    before: dict[str, Any] | None = None
    for i, f in enumerate(game.frames):
        state = _compact(f.state)
        if f.kind == "deal":
            deals.append({"deal": f.deal, "start": i})
        out: dict[str, Any] = {"seq": f.seq, "kind": f.kind, "deal": f.deal, "turn": f.turn, "seat": f.seat,
                               "text": f.text, "totals": f.totals, "s": _changed(state, before)}
        if f.public != f.text:
            out["pub"] = f.public
        if f.score:
            out["score"] = f.score
            out["dealScores"] = f.deal_scores
        if f.search is not None:
            out["search"] = _search_rows(f.search)
        frames.append(out)
        before = state
    rules = game.rules
    return {
        "title": page_title(game),
        "variant": h["variant"], "players": p, "teams": t,
        "seats": [seat_name(s, p) for s in range(p)], "teamNames": [team_name(x, p, t) for x in range(t)],
        "strategies": list(h["strategies"]), "rulesDiff": h.get("rules_diff", {}),
        "features": {"ponies": bool(rules.pony_size), "wings": bool(rules.wing_sizes),
                     "foot": has_foot(rules),
                     "blackThrees": rules.threes_mode == "AMERICAN_COLOUR_TABLE",
                     "facedownPile": bool(rules.initial_pile_facedown)},
        "notes": [CANDIDATES_NOTE if any(f.search is not None for f in game.frames) else NO_CANDIDATES_NOTE],
        "final": {"totals": game.totals, "winner": game.winner_team},
        "deals": deals, "frames": frames,
    }


def _search_rows(search: dict[str, Any]) -> dict[str, Any]:
    """A ``search`` line for the page: its worlds, and one row per candidate, best first: ``[words, mean, standard
    error, gain, its standard error, worlds, chosen, the search's first (its heuristic's choice)]``, the values in
    whole points as ``--narrate`` says them (a dash for none)."""
    kind = search["kind"]

    def num(x: float | None, sign: str = "") -> str:
        return "\u2014" if x is None else f"{x:{sign}.0f}"

    return {"worlds": search["worlds"], "kind": kind,
            "rows": [[candidate_words(kind, c["value"]), num(c["mean"], "+"), num(c["se"]), num(c["gain"], "+"),
                      num(c["gain_se"]), c["worlds"], bool(c["chosen"]), bool(c.get("first"))]
                     for c in best_first(search)]}


def page_html(game: GameReplay) -> str:
    """The whole page as one string."""
    data = json.dumps(page_data(game), separators=(",", ":"), ensure_ascii=False)
    data = data.replace("</", "<\\/")  # nothing in the data may close the script element
    page = _asset("replay.html")
    title = html.escape(page_title(game))
    return (page.replace("{{title}}", title)
                .replace("/*{{css}}*/", _asset("replay.css"))
                .replace("/*{{js}}*/", _asset("replay.js"))
                .replace("{{data}}", data))


def page_title(game: GameReplay) -> str:
    """The page's title: variant, seed and game."""
    h = game.header
    return f"{h['variant'].capitalize()} canasta, seed {h['seed']}, game {h['game_index']}"


def write_page(game: GameReplay, path: Path) -> None:
    """Write the replay page of ``game`` to ``path`` (UTF-8; its folder is made if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, page_html(game))  # whole or not at all, as runs write
