"""A game rebuilt from its trace, one table after every event (docs/trace-format.md, "Replaying").

Each deal is laid out from the trace's ``deck`` and grabs (``cut``, ``pony_grab``, ``pile_pick``) exactly as the
engine lays out a deal, and the trace's ``decision`` lines (and ``ask_go_out`` answers) are played through the
engine's rules by one scripted player per seat. So nothing but the trace is needed: no strategy, no random stream,
no seed. Every event the rules then produce must equal the trace's next event, field for field; the first that
does not (a hand, a pile size, a score, a total), a decision the rules refuse, or a decision the trace lacks stops
the replay with a :class:`ReplayError` naming the line, so a trace that disagrees with itself is never drawn.

After each event that a reader follows (:data:`SHOWN`), a :class:`Frame` keeps the event in words
(:mod:`simcli.viewer.words`) and the table (:func:`simcli.viewer.table.snapshot`). A pile take is shown with the
meld of its top card, once the pile is in the taker's hand. A ``search`` line (``simcli play --search-values``:
what a search player weighed) is no event of the rules: it is checked to follow its decision, whose value must be
its chosen candidate, and shown as a frame of its own with the candidates (:mod:`simcli.viewer.weighed`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcli.engine.deal import Deal
from simcli.engine.dealing import new_deal
from simcli.engine.game import game_outcome
from simcli.engine.state import DealState
from simcli.engine.strategy_base import Draw, Strategy
from simcli.engine.trace import TRACE_VERSION
from simcli.engine.trace_schema import line_problem
from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand, TakePile
from simcli.primitives.cards import WILD_MELD, CardError, parse_rank
from simcli.primitives.errors import EngineError, GameContext, StrategyError
from simcli.rules.knob_values import RuleError
from simcli.rules.presets import load_rules
from simcli.rules.ruleset import RuleSet
from simcli.viewer.opening import grab, hand_and_foot_layout, opening_lines
from simcli.viewer.table import snapshot
from simcli.viewer.weighed import checked_search, search_line
from simcli.viewer.words import Words

#: Events a reader steps through (the header, ``game_start`` and most decision lines are not shown: the events
#: after a decision show what it did).
SHOWN = frozenset({"deal", "cut", "pony_grab", "pile_pick", "self_deal", "upcard_buried", "red_three",
                   "black_three", "draw", "take_pile", "meld", "canasta", "pony_pickup", "wing", "special_hand",
                   "ask_go_out", "discard", "going_out", "stock_out", "deal_scored", "totals", "game_end",
                   "decision", "search"})


class ReplayError(ValueError):
    """The trace cannot be replayed: unreadable, or it disagrees with itself (the message names the line)."""


@dataclass
class Frame:
    """One step of the replay: an event (its trace line ``seq``), in words, and the table after it."""

    seq: int
    kind: str
    deal: int
    turn: int
    seat: int | None
    text: str
    public: str
    state: dict[str, Any]
    #: Each team's running total (after the deal's ``totals`` line, including this deal).
    totals: list[int]
    #: The deal's score breakdown in words (at ``deal_scored`` and after it).
    score: list[str] = field(default_factory=list)
    #: Each team's score for the deal (at ``deal_scored`` and after it).
    deal_scores: list[int] | None = None
    #: At a ``search`` line: what the search weighed (its event data).
    search: dict[str, Any] | None = None


@dataclass
class GameReplay:
    """A whole game rebuilt from its trace."""

    header: dict[str, Any]
    rules: RuleSet
    words: Words
    frames: list[Frame]
    totals: list[int]
    winner_team: int


def read_trace(path: Path) -> list[dict[str, Any]]:
    """The events of a trace file (one JSON object a line), checked to be a trace this version can replay."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot read trace {path}: {exc.strerror}") from None
    return parse_trace(text.splitlines())  # the command names the file


def parse_trace(lines: Iterable[str], name: str = "the trace") -> list[dict[str, Any]]:
    """The events of a trace's lines (see :func:`read_trace`), each checked against its event's schema
    (:mod:`simcli.engine.trace_schema`): a bad line is one :class:`ReplayError` naming the line and the key."""
    events: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deep"
            raise ReplayError(f"{name}, line {i + 1}: not JSON ({why})") from None
        if not events:
            _check_header(ev, name)
        bad = line_problem(ev, len(events))
        if bad:
            raise ReplayError(f"{name}, line {i + 1}: {bad}")
        events.append(ev)
    if not events:
        raise ReplayError(f"{name} does not start with a trace_header line: is it a `simcli play --trace` file?")
    return events


def _check_header(ev: Any, name: str) -> None:
    """The first line must be a trace header of the version this simcli replays."""
    if not isinstance(ev, dict) or ev.get("event") != "trace_header":
        raise ReplayError(f"{name} does not start with a trace_header line: is it a `simcli play --trace` file?")
    version = ev.get("trace_version")
    if version != TRACE_VERSION:
        raise ReplayError(f"{name} is trace version {version}; this simcli replays version {TRACE_VERSION}")


def meld_of(m: dict[str, Any]) -> Meld:
    """A trace MELD as the engine's :class:`Meld`."""
    rank = WILD_MELD if m["rank"] == "WILD" else parse_rank(m["rank"])
    return Meld(rank, int(m["naturals"]), int(m["twos"]), int(m["jokers"]))


def _plain(data: Any) -> Any:
    """The JSON form of event data (tuples as lists), as a trace line holds it."""
    return json.loads(json.dumps(data))


class _Replayer:
    """Walks the trace's events while the engine plays the deal: the emit listener and the players' script."""

    def __init__(self, events: Sequence[dict[str, Any]], words: Words, n_teams: int) -> None:
        self.events = events
        self.words = words
        self.pos = 2  # after trace_header and game_start
        self.frames: list[Frame] = []
        self.st: DealState | None = None
        self.totals = [0] * n_teams
        self.pending: Frame | None = None  # a pile take, drawn once the pile is in the hand
        self.pending_meld_told = False  # whether the take's own meld was told with it
        self.deal_scores: list[int] | None = None
        self.score: list[str] = []

    # ------------------------------------------------------------------ the trace
    def where(self, pos: int | None = None) -> str:
        """``line 123 (seq 122)`` of the event at ``pos`` (default: the next one)."""
        pos = self.pos if pos is None else pos
        return f"trace line {pos + 1}" + (f" (seq {self.events[pos].get('seq')})" if pos < len(self.events) else "")

    def next_decision(self, seat: int, kind: str) -> Any:
        """The value of the trace's next decision line, which must be ``seat``'s ``kind`` decision."""
        for pos in range(self.pos, len(self.events)):
            ev = self.events[pos]
            if ev["event"] in ("deal_scored", "deal"):
                break
            if ev["event"] == "decision":
                if ev.get("seat") != seat or ev.get("kind") != kind:
                    raise ReplayError(f"the rules ask seat {seat} for a {kind} decision, but the trace's next "
                                      f"decision, at {self.where(pos)}, is seat {ev.get('seat')}'s "
                                      f"{ev.get('kind')}")
                return ev["value"]
        raise ReplayError(f"the rules ask seat {seat} for a {kind} decision, but the trace has none before "
                          f"{self.where(pos)}")

    def peek(self) -> dict[str, Any] | None:
        """The trace's next event, if any."""
        return self.events[self.pos] if self.pos < len(self.events) else None

    # ------------------------------------------------------------------ the listener
    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        self.event(kind, data)
        while (ev := self.peek()) is not None and ev["event"] == "search":
            self.search(ev)

    def search(self, ev: dict[str, Any]) -> None:
        """A ``search`` line, which must follow the decision it weighed and choose that decision."""
        try:
            data = checked_search(ev, self.events[self.pos - 1])
        except ValueError as exc:
            raise ReplayError(f"{self.where()}: {exc}") from None
        line = search_line(self.words.seat, data)
        self.settle()
        frame = self.frame(ev, "search", data, line.text, line.public)
        frame.search = data
        self.frames.append(frame)
        self.pos += 1

    def event(self, kind: str, data: dict[str, Any]) -> None:
        """The rules' next event, which must be the trace's next line."""
        ev = self.peek()
        if ev is None:
            raise ReplayError(f"the trace ends (after line {len(self.events)}) where the rules produce a {kind} "
                              "event")
        mine = _plain(data)
        theirs = {k: v for k, v in ev.items() if k not in ("seq", "event")}
        if ev["event"] != kind:
            raise ReplayError(f"the trace disagrees with its replay at {self.where()}: the trace has a {ev['event']} "
                              f"line {_short(theirs)}, the rules give a {kind} event {_short(mine)}")
        if mine != theirs:
            raise ReplayError(f"the trace disagrees with its replay at {self.where()}, its {kind} line: "
                              + "; ".join(_differences(theirs, mine)))
        # A pile take is told with what comes of it at once: its melds, their canastas, the pile's red threes.
        absorbed = self.pending is not None and data.get("seat") == self.pending.seat and (
            kind in ("meld", "canasta") or (kind == "red_three" and data.get("source") == "pile"))
        if self.pending is not None and not absorbed:
            self.settle()
        if kind == "deal_scored":
            self.deal_scores = [t["total"] for t in data["teams"]]
            self.score = self.words.breakdown(data)
        line = self.words.describe(kind, data)
        self.pos += 1
        if line is None or kind not in SHOWN:
            return
        if absorbed and self.pending is not None:
            if kind == "meld" and not self.pending_meld_told:  # the top card's meld, which the take named
                line = self.words.after_take(data)
                self.pending_meld_told = True
            self.pending.text += "; " + line.text
            self.pending.public += "; " + line.public
            return
        frame = self.frame(ev, kind, data, line.text, line.public)
        if kind == "take_pile":
            self.pending = frame
            self.pending_meld_told = False
        else:
            self.frames.append(frame)

    def frame(self, ev: dict[str, Any], kind: str, data: dict[str, Any], text: str, public: str) -> Frame:
        """A frame of the table as it is now."""
        st = self.st
        assert st is not None
        seat = data.get("seat", data.get("cutter", data.get("pony_dealer")))
        return Frame(seq=int(ev["seq"]), kind=kind, deal=st.deal_index, turn=st.turn,
                     seat=seat if isinstance(seat, int) else None, text=text, public=public, state=snapshot(st),
                     totals=list(self.totals), score=list(self.score), deal_scores=self.deal_scores)

    def settle(self) -> None:
        """Draw a pending pile take: the cards have moved now."""
        if self.pending is not None and self.st is not None:
            self.pending.state = snapshot(self.st)
            self.frames.append(self.pending)
            self.pending = None


def _differences(trace: Any, rules: Any, path: str = "") -> list[str]:
    """Where two event payloads differ (at most 3 places): ``teams[0].total: the trace says 5145, the rules 5140``."""
    if isinstance(trace, dict) and isinstance(rules, dict):
        out: list[str] = []
        for key in sorted(set(trace) | set(rules)):
            out += _differences(trace.get(key), rules.get(key), f"{path}.{key}" if path else str(key))
        return out[:3]
    if isinstance(trace, list) and isinstance(rules, list) and len(trace) == len(rules):
        out = []
        for i, (a, b) in enumerate(zip(trace, rules, strict=True)):
            out += _differences(a, b, f"{path}[{i}]")
        return out[:3]
    if trace == rules:
        return []
    return [f"{path or 'the line'}: the trace says {_short(trace, 120)}, the rules give {_short(rules, 120)}"]


def _short(data: Any, limit: int = 300) -> str:
    text = json.dumps(data, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


class _Scripted(Strategy):
    """A seat that plays the trace's decisions."""

    name = "trace"

    def __init__(self, replayer: _Replayer, seat: int) -> None:
        self.replayer = replayer
        self.seat = seat

    def _decision(self, kind: str) -> Any:
        self.replayer.settle()
        return self.replayer.next_decision(self.seat, kind)

    def choose_draw(self, view: PlayerView) -> Draw:
        """The trace's draw."""
        value = self._decision("draw")
        if value == "stock":
            return DRAW_STOCK
        return TakePile(meld_of(value["take_pile"]), tuple(meld_of(m) for m in value["extra"]))

    def choose_melds(self, view: PlayerView) -> Sequence[Meld | SpecialHand]:  # type: ignore[override]
        """The trace's melds (or special hand)."""
        value = self._decision("melds")
        if isinstance(value, dict):
            return [SpecialHand(value["special_hand"])]
        return [meld_of(m) for m in value]

    def choose_discard(self, view: PlayerView) -> int | None:
        """The trace's discard."""
        return parse_rank(self._decision("discard"))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """The trace's choice to keep a three."""
        return bool(self._decision("hold_three")["hold"])

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """Whether the trace's next line is this seat asking "may I go out?"."""
        self.replayer.settle()
        ev = self.replayer.peek()
        return ev is not None and ev["event"] == "ask_go_out" and ev.get("seat") == self.seat

    def answer_go_out(self, view: PlayerView) -> bool:
        """The answer the trace's ``ask_go_out`` line gives."""
        ev = self.replayer.peek()
        if ev is None or ev["event"] != "ask_go_out" or ev.get("partner") != self.seat:
            raise ReplayError(f"seat {self.seat} is asked 'may I go out?' but {self.replayer.where()} is no answer")
        return bool(ev["answer"])


def replay(events: Sequence[dict[str, Any]]) -> GameReplay:
    """Rebuild a game from its trace's events (:func:`read_trace`); :class:`ReplayError` if they disagree."""
    header = events[0]
    try:
        rules = load_rules(str(header["variant"]), dict(header["rules"]))
    except (RuleError, KeyError, TypeError) as exc:
        raise ReplayError(f"the trace's rules cannot be loaded: {exc}") from None
    if len(events) < 3 or events[1]["event"] != "game_start":
        raise ReplayError("the trace has no game_start line")
    words = Words.from_header(header)
    n_teams = int(header["n_teams"])
    if int(header["num_players"]) != rules.num_players or n_teams != rules.n_teams:
        raise ReplayError(f"the trace's header says {header['num_players']} players in {n_teams} teams, its rules "
                          f"{rules.num_players} in {rules.n_teams}")
    r = _Replayer(events, words, n_teams)
    ctx = GameContext(game_index=int(header.get("game_index", 0)), seed=header.get("seed"))
    seats = [_Scripted(r, s) for s in range(rules.num_players)]
    deals = 0
    winner = -1
    while True:
        ev = r.peek()
        if ev is None:
            raise ReplayError(f"the trace ends after {deals} deals without a game_end line")
        if ev["event"] == "game_end":
            break
        if ev["event"] != "deal":
            raise ReplayError(f"{r.where()}: expected a deal or game_end line, found {ev['event']}")
        try:
            deck = [parse_rank(c) for c in ev["deck"]]
            opening = opening_lines(events, r.pos)
            st = new_deal(rules, deck, int(ev["dealer"]), int(ev["deal_index"]), list(r.totals),
                          grab(opening, "cut"), grab(opening, "pony_grab"), grab(opening, "pile_pick"))
            hand_and_foot_layout(st, opening)
        except (CardError, KeyError, ValueError, IndexError) as exc:
            raise ReplayError(f"{r.where()}: the deal cannot be laid out: {exc}") from None
        r.st = st
        ctx.deal_index = deals
        try:
            result = Deal(st, seats, r, ctx).play()
        except StrategyError as exc:
            if isinstance(exc.__cause__, ReplayError):
                raise exc.__cause__ from None
            raise ReplayError(f"the rules refuse the trace's decision before {r.where()}: {exc}") from None
        except EngineError as exc:
            raise ReplayError(f"the trace cannot be replayed past {r.where()}: {exc}") from None
        deals += 1
        r.totals = [a + s["total"] for a, s in zip(r.totals, result.scores, strict=True)]
        over, winner = game_outcome(rules, r.totals, deals)
        if result.black_three_canasta_team is not None:
            over, winner = True, result.black_three_canasta_team
        r("totals", {"deal_index": deals - 1, "totals": list(r.totals)})
        r.deal_scores = None
        r.score = []
        if over:
            break
    r("game_end", {"totals": list(r.totals), "winner_team": winner, "deals": deals})
    if r.pos != len(events):
        raise ReplayError(f"the trace goes on after its game_end line, at {r.where()}")
    return GameReplay(header=dict(header), rules=rules, words=words, frames=r.frames, totals=list(r.totals),
                      winner_team=winner)


def replay_file(path: Path) -> GameReplay:
    """:func:`replay` of a trace file."""
    return replay(read_trace(path))
