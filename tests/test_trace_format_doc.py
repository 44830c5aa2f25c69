"""Every event and field the engine writes to a trace is described in ``docs/trace-format.md``.

The doc's event table is parsed (one row per event: the backticked names in its fields cell, and the quoted keys in
them, are what the row documents). Traces are generated for every variant (Classic, Ponytail, Americana, Spanish
pairs, trios and individual play) through ``simcli play --trace``, an ``mc`` game with ``--search-values`` (the
optional ``search`` lines), plus purpose-built deals for the rare events (asking partner, special hands, a held
three, the stuck player at the end of the stock, corte rápido and terremoto). Each event's name, each field (and
each key of a nested object) and each value of the enumerated fields (``source``, ``kind``, ``end_reason``,
``upgraded_from``) must appear in its row; and every documented event must actually occur, so the doc lists no event
the engine (or ``--search-values``) never writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import Scripted, Table, deal_state, make_rules, meld, players, take
from helpers_americana import AmTable, Holder, am_deal_state
from helpers_spanish import es_deal_state, es_rules
from test_engine_corrections import RandomAsker, stuck_at_the_end_of_the_stock

from simcli.cli import main
from simcli.engine.trace import EventLog
from simcli.players.seating import play_game
from simcli.primitives.actions import SpecialHand
from simcli.rules.presets import load_rules

DOC = Path(__file__).resolve().parents[1] / "docs" / "trace-format.md"
Event = tuple[str, dict[str, Any]]

#: Fields whose values are maps keyed by data (knob names, meld ranks), not by documented field names.
DATA_KEYED = frozenset({"rules", "rules_diff", "melds"})
#: Fields whose string values are names from a fixed list, each of which must be documented in the event's row.
ENUMERATED = frozenset({"source", "kind", "end_reason", "upgraded_from", "into_foot"})


# ---------------------------------------------------------------------------------------------- the doc
def _tokens(text: str) -> set[str]:
    """The backticked names in ``text``, and the quoted keys inside them (``{"take_pile": MELD}`` → take_pile)."""
    out: set[str] = set()
    for tok in re.findall(r"`([^`]+)`", text):
        out.add(tok)
        out.update(re.findall(r'"(\w+)"', tok))
    return out


def documented(doc: str) -> tuple[dict[str, set[str]], set[str]]:
    """``({event: names its row documents}, MELD keys)`` from the doc's event table and MELD definition."""
    rows: dict[str, set[str]] = {}
    lines = doc.splitlines()
    start = lines.index("| event | when | fields |")
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3, f"event table row without 3 cells: {line[:80]}"
        names = re.findall(r"`([^`]+)`", cells[0])
        assert len(names) == 1, f"event table row names {names}"
        rows[names[0]] = _tokens(cells[2]) | ({"MELD"} if "MELD" in cells[2] else set())
    meld_line = next(line for line in lines if line.startswith("A MELD is "))
    return rows, _tokens(meld_line)


def undocumented(events: Iterable[Event], doc: str) -> list[str]:
    """Every event name, field, nested key or enumerated value in ``events`` that the doc does not list."""
    rows, meld_keys = documented(doc)
    problems: set[str] = set()

    def check(kind: str, key: str, value: Any, allowed: set[str]) -> None:
        if key not in allowed:
            problems.add(f"{kind}: field {key!r} is not documented")
        if key in ENUMERATED and isinstance(value, str) and value not in allowed:
            problems.add(f"{kind}: {key} value {value!r} is not documented")
        if key in DATA_KEYED:
            return
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict):
                for k, v in item.items():
                    check(kind, k, v, allowed)

    for kind, data in events:
        if kind not in rows:
            problems.add(f"event {kind!r} is not documented")
            continue
        allowed = rows[kind] | (meld_keys if "MELD" in rows[kind] else set())
        for key, value in data.items():
            if key not in ("seq", "event"):
                check(kind, key, value, allowed)
    return sorted(problems)


# ---------------------------------------------------------------------------------------------- traces
#: (variant, rule overrides, strategies, games) played through ``simcli play --trace``.
GAMES = [
    ("classic", [], "greedy,random,greedy,random", 3),
    ("ponytail", [], "ponytail,random,greedy,ponytail", 2),
    ("ponytail", ["pony_dealer_exact_bonus=50"], "ponytail", 1),
    ("americana", [], "americana,random,greedy,americana", 4),
    ("spanish", [], "spanish,random,greedy,spanish", 3),
    ("spanish", ["num_players=6"], "spanish", 1),
    ("spanish", ["team_size=1", "num_players=3"], "spanish,random,greedy", 2),
    ("handfoot", ["self_deal_exact_bonus=100"], "greedy", 2),  # game 1 buries an upcard and runs into a foot
]


def cli_traces(tmp: Path) -> dict[str, list[Event]]:
    """Events of every game in :data:`GAMES`, by variant, read back from the trace files."""
    out: dict[str, list[Event]] = {}
    for i, (variant, rules, strategies, games) in enumerate(GAMES):
        for game in range(games):
            path = tmp / f"{i}-{game}.jsonl"
            args = ["play", "--variant", variant, "--seed", "5", "--game-index", str(game), "--strategies",
                    strategies, "--trace", str(path)]
            for r in rules:
                args += ["--rule", r]
            res = CliRunner().invoke(main, args)
            assert res.exit_code == 0, res.output
            for line in path.read_text("utf-8").splitlines():
                record = json.loads(line)
                out.setdefault(variant, []).append((record["event"], record))
    return out


def search_values_game(tmp: Path) -> list[Event]:
    """A short Classic game of two ``mc`` seats traced with ``--search-values`` (its ``search`` lines)."""
    path = tmp / "search-values.jsonl"
    res = CliRunner().invoke(main, ["play", "--seed", "8", "--strategies", "mc:samples=2,greedy", "--rule",
                                    "max_hands=1", "--trace", str(path), "--search-values"])
    assert res.exit_code == 0, res.output
    events = [(r["event"], r) for r in map(json.loads, path.read_text("utf-8").splitlines())]
    assert any(k == "search" for k, _ in events)
    return events


def asking_game() -> list[Event]:
    """A Classic game whose players ask "may I go out?" and answer at random."""
    log = EventLog()
    stats: Any = __import__("collections").Counter()
    strategies = [RandomAsker(np.random.default_rng(s), stats) for s in range(4)]
    play_game(load_rules("classic"), ["random_asker"] * 4, 2, 0, emit=log, strategies=strategies)
    assert log.of_kind("ask_go_out")
    return log.events


def special_hand_deal() -> list[Event]:
    """Americana: seat 0 keeps its B3 (a hold_three decision) and lays a straight on turn 1."""
    log = EventLog()
    st = am_deal_state(hands={0: "A 2 B3 4 5 6 7 8 9 10 J Q K"}, stock="JK")
    AmTable(st, players({0: Holder(hold=True, melds={1: [SpecialHand("STRAIGHT")]})}), emit=log).finish()
    return log.events


def held_three_deal(kept: str, in_wing: str) -> list[Event]:
    """Americana: a three kept before opening is laid with the wing (sources ``held`` and ``wing``)."""
    log = EventLog()
    st = am_deal_state(hands={0: f"{kept} K K K Q Q Q 4"}, wings=[in_wing])
    AmTable(st, players({0: Holder(hold=True, melds={1: [meld("K", 3), meld("Q", 3)]}, discards={1: "4"})}),
            emit=log).step(5)
    return log.events


def stuck_deal() -> list[Event]:
    """Americana: the last stock card is a R3 and the player is left with a card it may not discard."""
    log = EventLog()
    stuck_at_the_end_of_the_stock(log)
    return log.events


def quick_finish_deal() -> list[Event]:
    """Spanish: seat 2 goes out on its first turn after a stock draw (corte rápido and terremoto)."""
    log = EventLog()
    st = es_deal_state(es_rules(terremoto_bonus=150),
                       hands={0: "Q Q Q Q Q Q Q 9 9 9 4 4 5 5 8", 2: "K K K K K 2 JK 6 6 6 6 6 6 6 9"},
                       stock="8 10 J 5 5 5 10")
    s0 = Scripted(melds={1: [meld("Q", 7), meld("9", 3)]}, discards={1: "4"})
    s2 = Scripted(melds={3: [meld("K", 5, twos=1, jokers=1), meld("6", 7), meld("9", 1)]}, discards={3: "J"})
    Table(st, players({0: s0, 2: s2}), emit=log).finish()
    going_out = log.of_kind("going_out")
    assert going_out and going_out[0].get("quick_finish") and going_out[0].get("terremoto")
    return log.events


def classic_first_turn_out() -> list[Event]:
    """Classic: seat 0 takes the pile and goes out on its first turn (a corte rápido in Spanish terms)."""
    log = EventLog()
    st = deal_state(make_rules(), {0: "K K K K K K A A A A 5", 2: "4 4 4 4 5 5 5 5 6 6 6"}, "K", dealer=3)
    s0 = Scripted(draws=[take("K", 2, extra=[meld("A", 3)])], melds=[[meld("K", 4), meld("A", 1)]], discards=["5"])
    Table(st, players({0: s0}), emit=log).finish()
    return log.events


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Event]]:
    tmp = tmp_path_factory.mktemp("traces")
    out = cli_traces(tmp)
    out["classic"] += asking_game() + classic_first_turn_out() + search_values_game(tmp)
    out["americana"] += special_hand_deal() + held_three_deal("B3", "R3") + held_three_deal("R3", "B3") + stuck_deal()
    out["spanish"] += quick_finish_deal()
    return out


# ---------------------------------------------------------------------------------------------- tests
def test_every_event_and_field_written_is_documented(traces: dict[str, list[Event]]) -> None:
    doc = DOC.read_text("utf-8")
    problems = undocumented([e for events in traces.values() for e in events], doc)
    assert problems == []


def test_every_documented_event_and_rare_field_occurs(traces: dict[str, list[Event]]) -> None:
    """The traces above exercise the whole table, and the rare fields and values the doc describes."""
    rows, _ = documented(DOC.read_text("utf-8"))
    events = [e for evs in traces.values() for e in evs]
    assert {k for k, _ in events} == set(rows)
    seen = {(k, f, str(v)) for k, d in events for f, v in d.items() if f in ENUMERATED} | {
        (k, f) for k, d in events for f in d}
    wanted = [("canasta", "hidden"), ("stock_out", "last_card_red_three"), ("going_out", "quick_finish"),
              ("going_out", "terremoto"), ("decision", "kind", "hold_three"),
              ("pony_pickup", "into_foot", "walking"), ("pony_pickup", "into_foot", "running")] + [
        ("red_three", "source", s) for s in ("dealt", "stock", "replacement", "pile", "pony", "wing", "held")] + [
        ("black_three", "source", s) for s in ("dealt", "stock", "wing", "held")]
    assert [w for w in wanted if w not in seen] == []
    special = [d for k, d in events if k == "decision" and isinstance(d["value"], dict)
               and "special_hand" in d["value"]]
    assert special and special[0]["value"] == {"special_hand": "STRAIGHT"}


def test_spanish_flags_only_in_the_spanish_game(traces: dict[str, list[Event]]) -> None:
    """``quick_finish``/``terremoto`` are Spanish: never written in another variant, even for a first-turn out."""
    for variant, events in traces.items():
        flagged = [d for k, d in events if k == "going_out" and ("quick_finish" in d or "terremoto" in d)]
        assert bool(flagged) == (variant == "spanish"), variant
    first_turn = [d for k, d in classic_first_turn_out() if k == "going_out"]
    assert first_turn == [{"seat": 0, "team": 0, "concealed": True, "turn": 1}]


def test_pony_grab_can_be_checked_without_the_rng(traces: dict[str, list[Event]]) -> None:
    """``pony_grab`` (one per Ponytail deal) gives count, target, exact and the team paid."""
    events = traces["ponytail"]
    grabs = [d for k, d in events if k == "pony_grab"]
    deals = [d for k, d in events if k == "deal"]
    assert len(grabs) == len(deals) > 0
    header = [d for k, d in events if k == "trace_header"]
    paid = {0: 0}
    for h in header:
        assert h["num_players"] == 4
    for g in grabs:
        assert g["target"] == 13 * 4 and g["exact"] == (g["count"] == g["target"])
        if g["bonus_team"] is not None:
            assert g["exact"] and g["bonus_team"] == g["pony_dealer"] % 2
            paid[0] += 1
    scored = [d for k, d in events if k == "deal_scored"]
    bonus = sum(t["breakdown"]["pony_dealer_exact"] for d in scored for t in d["teams"])
    assert bonus == 50 * paid[0]


def test_hand_and_foot_opening_can_be_checked_without_the_rng(traces: dict[str, list[Event]]) -> None:
    """``self_deal`` (one per Hand and Foot deal) gives each grab, the target, which were exact and each team's bonus,
    which the deal's ``exact_cut`` part pays; each ``upcard_buried`` card is a rejected rank and the pile starts with
    one card that is not; the other variants write none of these, nor ``into_foot``."""
    events = traces["handfoot"]
    deals = [d for k, d in events if k == "deal"]
    grabs = [d for k, d in events if k == "self_deal"]
    assert len(grabs) == len(deals) > 0
    paid = [0, 0]
    for g in grabs:
        assert g["target"] == 22 and g["exact"] == [c == 22 for c in g["counts"]] and len(g["counts"]) == 4
        assert g["bonus"] == [100 * sum(g["exact"][t::2]) for t in range(2)]
        paid = [a + b for a, b in zip(paid, g["bonus"], strict=True)]
    scored = [d for k, d in events if k == "deal_scored"]
    assert [sum(d["teams"][t]["breakdown"]["exact_cut"] for d in scored) for t in range(2)] == paid
    assert sum(paid) > 0
    buried = [d["card"] for k, d in events if k == "upcard_buried"]
    assert buried and set(buried) <= {"R3", "2", "JK"}
    assert all(len(d["upcards"]) == 1 and d["upcards"][0] not in ("R3", "2", "JK") for d in deals)
    for variant, evs in traces.items():
        if variant != "handfoot":
            assert not [k for k, d in evs if k in ("self_deal", "upcard_buried") or "into_foot" in d], variant


def test_the_check_can_fail() -> None:
    """An undocumented event, field, nested key or enumerated value is reported."""
    doc = DOC.read_text("utf-8")
    bad: list[Event] = [
        ("no_such_event", {"seat": 0}),
        ("discard", {"seat": 0, "card": "K", "pile_size": 3, "frozen": False, "extra_field": 1}),
        ("red_three", {"seat": 0, "team": 0, "source": "magic"}),
        ("meld", {"seat": 0, "team": 0, "rank": "K", "added": {"naturals": 1, "wilds": 1}, "meld": [3, 0, 0]}),
        ("deal_scored", {"teams": [{"total": 0, "breakdown": {"bogus_part": 0}, "melds": {"K": [3, 0, 0]}}]}),
    ]
    assert undocumented(bad, doc) == sorted([
        "event 'no_such_event' is not documented",
        "discard: field 'extra_field' is not documented",
        "red_three: source value 'magic' is not documented",
        "meld: field 'wilds' is not documented",
        "deal_scored: field 'bogus_part' is not documented",
    ])
    good: list[Event] = [("red_three", {"seat": 0, "team": 0, "source": "held"})]
    assert undocumented(good, doc) == []
    # a field dropped from the doc is caught
    assert undocumented(good, doc.replace("`held` (Americana", "held (Americana")) == [
        "red_three: source value 'held' is not documented"]
