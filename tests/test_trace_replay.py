"""An independent replayer for ``simcli play --trace`` files (Classic).

The replayer below is a second implementation of the deal mechanics and of the Classic scoring: it uses only the
trace format (``docs/trace-format.md``) and the rules (``/work/shared/RULES.md`` §1.3 card values, §1.7 pile,
§1.8 opening, §1.9 threes, §1.10 going out, §1.11 stock exhaustion, §1.12 scoring, §2.1 Classic). Nothing from
``simcli`` is imported by the replayer; ``simcli`` is used only to *produce* traces, through ``CliRunner``.

For every deal the replayer lays the deal out from ``deck``, applies each ``decision`` event in order while keeping
its own hands, stock, pile, team melds and red threes, and generates the events it expects (``red_three``,
``draw``, ``take_pile``, ``meld``, ``canasta``, ``discard``, ``going_out``, ``stock_out``). These must equal the
trace's events of those kinds, in order. At ``deal_scored`` the reconstructed hands, melds and red threes must equal
the event's, every card of the pack must be accounted for, and the replayer's own score of each team must equal the
event's breakdown and total; the ``totals`` and ``game_end`` events must follow from the deal scores.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

# --------------------------------------------------------------------------------------------- cards (RULES §1.3)
NATURALS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
WILDS = ("2", "JK")
R3, B3, TWO, JOKER = "R3", "B3", "2", "JK"
#: Card point values (RULES §1.3); R3 has no card value; B3 is 5 when melded (its hand value is a knob).
VALUE = {"JK": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
         "7": 5, "6": 5, "5": 5, "4": 5, "B3": 5, "R3": 0}
# Ponytail, Americana and Spanish parts (sevens, aces, hidden canastas, canasta counts, black threes, exact
# pick, quick finish, terremoto, penalties, pony, special hand) are always 0 in the Classic games replayed here.
BREAKDOWN_PARTS = ("going_out", "canasta_natural", "canasta_mixed", "canasta_wild", "canasta_sevens", "canasta_aces",
                   "canasta_hidden", "canasta_count", "red_threes", "black_threes", "exact_cut", "exact_pick",
                   "pony_dealer_exact", "quick_finish", "terremoto", "incomplete_melds",
                   "hand_rank_penalty", "melded", "hand", "pony", "special_hand")
#: Event kinds the replayer predicts and compares one for one.
CHECKED = ("red_three", "draw", "take_pile", "meld", "canasta", "discard", "going_out", "stock_out")
#: CLASSIC initial-meld table (RULES §1.8): (lowest team score, minimum), highest band first.
CLASSIC_MINIMUM = ((3000, 120), (1500, 90), (0, 50))


class ReplayError(AssertionError):
    """The trace disagrees with the replay (the message names game, deal, turn and seq)."""


def parse_cards(text: str) -> list[str]:
    """Cards from a hand string of the trace (``"B3 5 7 K"``; ``""`` is an empty hand)."""
    return text.split()


def pack(rules: dict[str, str]) -> Counter:
    """The full pack for ``decks`` decks (RULES §1.1)."""
    decks = int(rules["decks"])
    counts = Counter({r: 4 * decks for r in NATURALS})
    counts[TWO] = 4 * decks
    counts[JOKER] = int(rules["jokers_per_deck"]) * decks
    counts[R3] = 2 * decks
    counts[B3] = 2 * decks
    return counts


def meld_cards(rank: str, n: int, t: int, j: int) -> Counter:
    """The cards of a meld composition ``[naturals, twos, jokers]`` of ``rank``."""
    return Counter({rank: n, TWO: t, JOKER: j}) + Counter()


def meld_points(rank: str, comp: list[int]) -> int:
    n, t, j = comp
    return n * VALUE[rank] + t * VALUE[TWO] + j * VALUE[JOKER]


def canasta_kind(rank: str, comp: list[int], size: int) -> str | None:
    """NATURAL / MIXED for a canasta of the Classic game (RULES §1.5), None when the meld is no canasta."""
    if rank == B3 or sum(comp) < size:
        return None
    return "NATURAL" if comp[1] + comp[2] == 0 else "MIXED"


# --------------------------------------------------------------------------------------------- one deal
class DealReplay:
    """Replays one deal from its ``deal`` event and the ``decision`` events that follow it."""

    def __init__(self, ctx: str, rules: dict[str, str], n_teams: int, ev: dict[str, Any]) -> None:
        self.ctx = ctx
        self.rules = rules
        self.P = int(rules["num_players"])
        self.n_teams = n_teams
        self.step = 1 if rules["play_direction"] == "CW" else -1
        self.draw_count = int(rules["draw_count"])
        self.canasta_size = int(rules["canasta_size"])
        self.minimum = list(ev["minimum"])
        self.expected: list[tuple[int, dict[str, Any]]] = []  # (turn, event without seq)
        self.turn = 0
        self.seat = ev["first_player"]
        self.over = False
        self.end_reason: str | None = None
        self.went_out_seat: int | None = None
        self.concealed = False
        self.last_card_red_three = False

        deck = list(ev["deck"])
        self.deck = deck
        if Counter(deck) != pack(rules):
            self.fail(0, f"deck is not one full pack: {Counter(deck) - pack(rules)} extra, "
                         f"{pack(rules) - Counter(deck)} missing")
        pos = 0
        # 1. deal one card at a time from first_player in the direction of play, hand_size rounds
        hands: list[list[str]] = [[] for _ in range(self.P)]
        for _ in range(int(rules["hand_size"])):
            for k in range(self.P):
                hands[(ev["first_player"] + k * self.step) % self.P].append(deck[pos])
                pos += 1
        # 2. pile: face-down cards, then upcards turned while the turned card's rank is a cover rank
        cover = {c.strip() for c in rules["upcard_cover_ranks"].split(",") if c.strip()}
        self.pile: list[str] = deck[pos:pos + int(rules["initial_pile_facedown"])]
        pos += len(self.pile)
        upcards: list[str] = []
        for _ in range(int(rules["initial_pile_faceup"])):
            upcards.append(deck[pos])
            pos += 1
            while upcards[-1] in cover:
                upcards.append(deck[pos])
                pos += 1
        self.pile += upcards
        # 3. the stock is the rest of the deck, in order
        self.stock = deck[pos:]
        self.stock_pos = 0
        self.frozen = any(c in WILDS or c == R3 for c in upcards)
        if upcards != ev["upcards"]:
            self.fail(0, f"upcards {ev['upcards']} != replayed {upcards}")
        if self.frozen != ev["pile_frozen"]:
            self.fail(0, f"pile_frozen {ev['pile_frozen']} != replayed {self.frozen}")
        for s in range(self.P):
            if Counter(hands[s]) != Counter(parse_cards(ev["hands"][s])):
                self.fail(0, f"seat {s} dealt hand {ev['hands'][s]!r} != replayed {sorted(hands[s])}")
        self.hands = [Counter(h) for h in hands]
        self.melds: list[dict[str, list[int]]] = [{} for _ in range(n_teams)]
        self.red_threes = [0] * n_teams
        self.has_melded = [False] * self.P  # the seat made a meld earlier in the deal (concealed going out)
        # 4. dealt red threes, from first_player in the direction of play, each replaced from the stock
        for k in range(self.P):
            s = (ev["first_player"] + k * self.step) % self.P
            n = self.hands[s].pop(R3, 0)
            self.red_threes[self.team(s)] += n
            for _ in range(n):  # each one is laid and replaced (replacement red threes too) before the next
                self.emit(red_three(s, self.team(s), "dealt"))
                self.draw_one(s, first_source="replacement")

    # ------------------------------------------------------------------ helpers
    def fail(self, turn: int, msg: str) -> None:
        raise ReplayError(f"{self.ctx}, turn {turn}: {msg}")

    def team(self, seat: int) -> int:
        return seat % self.n_teams

    def emit(self, event: dict[str, Any]) -> None:
        self.expected.append((self.turn, event))

    def held(self, seat: int) -> int:
        """Number of cards in the seat's hand."""
        return sum(self.hands[seat].values())

    def stock_left(self) -> int:
        return len(self.stock) - self.stock_pos

    def pop_stock(self) -> str:
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        return card

    def draw_one(self, seat: int, first_source: str) -> str | None:
        """Draw one card for ``seat``; red threes are laid and replaced (None if the stock ran out)."""
        source = first_source
        while self.stock_left():
            card = self.pop_stock()
            if card != R3:
                self.hands[seat][card] += 1
                return card
            self.red_threes[self.team(seat)] += 1
            self.emit(red_three(seat, self.team(seat), source))
            if not self.stock_left():
                self.last_card_red_three = True
            source = "replacement"
        return None

    def remove(self, seat: int, cards: Counter, what: str) -> None:
        if cards - self.hands[seat]:
            self.fail(self.turn, f"seat {seat} {what}: needs {dict(cards)} but holds {dict(+self.hands[seat])}")
        self.hands[seat] -= cards

    def add_to_meld(self, seat: int, rank: str, n: int, t: int, j: int) -> None:
        """Put cards on the team's meld of ``rank``; emit the ``meld`` event and, right after it, ``canasta``."""
        team = self.team(seat)
        comp = self.melds[team].setdefault(rank, [0, 0, 0])
        before = canasta_kind(rank, comp, self.canasta_size)
        comp[0] += n
        comp[1] += t
        comp[2] += j
        self.emit({"event": "meld", "seat": seat, "team": team, "rank": rank,
                   "added": {"naturals": n, "twos": t, "jokers": j}, "meld": list(comp)})
        after = canasta_kind(rank, comp, self.canasta_size)
        if after is not None and after != before:
            self.emit({"event": "canasta", "seat": seat, "team": team, "rank": rank, "kind": after,
                             "upgraded_from": before})

    def check_meld_legal(self, team: int, rank: str) -> None:
        """Wild-ratio rule PAGAT (RULES §1.4.4): N >= 2 and W <= max_wilds_per_meld; B3 melds have no wilds."""
        n, t, j = self.melds[team][rank]
        if rank == B3:
            ok = t + j == 0 and n >= 3
        else:
            ok = n >= 2 and t + j <= int(self.rules["max_wilds_per_meld"]) and n + t + j >= 3
        if not ok:
            self.fail(self.turn, f"team {team} meld {rank} {[n, t, j]} breaks the meld rules")

    # ------------------------------------------------------------------ decisions
    def decision(self, ev: dict[str, Any]) -> None:
        if self.over:
            self.fail(self.turn, f"decision after the end of the deal: {ev}")
        kind, seat = ev["kind"], ev["seat"]
        if kind == "draw":
            if ev["turn"] != self.turn + 1 or seat != self.seat:
                self.fail(ev["turn"], f"draw by seat {seat} at turn {ev['turn']}, expected seat {self.seat} "
                                      f"at turn {self.turn + 1}")
            if self.turn:
                self.after_turn()
            self.turn = ev["turn"]
            self.turn_state = {"seat": seat, "drew_stock": False, "team_melds_before": set(self.melds[self.team(seat)]),
                               "melded_before": self.has_melded[seat], "melds_this_turn": [],
                               "opened_before": self.opened(self.team(seat)), "opening_points": 0,
                               "phase": "melds"}
            if ev["value"] == "stock":
                self.draw_stock(seat)
            else:
                self.take_pile(seat, ev["value"])
            return
        if ev["turn"] != self.turn or seat != self.seat:
            self.fail(ev["turn"], f"{kind} decision by seat {seat} out of turn")
        if kind == "melds":
            if self.turn_state["phase"] != "melds":
                self.fail(self.turn, "second melds decision in a turn")
            self.turn_state["phase"] = "discard"
            self.meld_phase(seat, ev["value"])
        elif kind == "discard":
            if self.turn_state["phase"] != "discard":
                self.fail(self.turn, "discard decision before the melds decision")
            self.turn_state["phase"] = "done"
            self.discard(seat, ev["value"])
        else:
            self.fail(self.turn, f"unknown decision kind {kind!r}")

    def opened(self, team: int) -> bool:
        return bool(self.melds[team])

    def draw_stock(self, seat: int) -> None:
        self.turn_state["drew_stock"] = True
        if not self.stock_left():  # stock exhausted: the deal ends in place of the draw (RULES §1.11)
            team = self.team(seat)
            top = self.pile[-1] if self.pile else None
            single = self.rules["forbid_single_card_pile_with_single_card_hand"] == "true"
            forced = (self.rules["must_take_pile_after_stock_empty_if_matches"] == "true" and top in NATURALS
                      and not self.frozen and top in self.melds[team]
                      and not (single and len(self.pile) == 1 and self.held(seat) == 1))
            if forced:
                self.fail(self.turn, f"stock empty: seat {seat} had to take the pile (top {top} matches a meld)")
            self.emit({"event": "stock_out", "seat": seat, "turn": self.turn})
            self.end("stock_out")
            return
        got = []
        for _ in range(self.draw_count):  # partial draw when fewer cards are left (RULES §1.11)
            card = self.draw_one(seat, first_source="stock")
            if card is not None:
                got.append(card)
            if not self.stock_left():
                break
        self.emit({"event": "draw", "seat": seat, "cards": got, "stock_left": self.stock_left()})

    def take_pile(self, seat: int, value: dict[str, Any]) -> None:
        team = self.team(seat)
        if not self.pile:
            self.fail(self.turn, "took an empty pile")
        top = self.pile[-1]
        meld, extra = value["take_pile"], value["extra"]
        if top not in NATURALS or meld["rank"] != top:
            self.fail(self.turn, f"pile with top {top} taken with a {meld['rank']} meld")
        # RULES §1.7: frozen for the team -> natural pair only; single-card rule
        frozen_for_team = self.frozen or not self.opened(team)
        n, w = meld["naturals"], meld["twos"] + meld["jokers"]
        if frozen_for_team:
            ok = n >= 2
        else:
            methods = set(self.rules["take_methods_unfrozen"].split(","))
            ok = (("PAIR" in methods and n >= 2) or ("NAT_WILD" in methods and n >= 1 and w >= 1)
                  or ("LAYOFF" in methods and top in self.melds[team]))
        if not ok:
            self.fail(self.turn, f"pile (frozen for team {team}: {frozen_for_team}) taken with {meld}")
        if (self.rules["forbid_single_card_pile_with_single_card_hand"] == "true" and len(self.pile) == 1
                and self.held(seat) == 1):
            self.fail(self.turn, "a 1-card pile taken with a 1-card hand")
        used = [meld, *extra]
        for m in used:
            self.remove(seat, meld_cards(m["rank"], m["naturals"], m["twos"], m["jokers"]), "pile-take meld")
        if not self.opened(team):  # T and the shown melds count, the rest of the pile does not (RULES §1.8.2)
            points = VALUE[top] + sum(meld_points(m["rank"], [m["naturals"], m["twos"], m["jokers"]]) for m in used)
            if points < self.minimum[team]:
                self.fail(self.turn, f"team {team} opened with {points} < minimum {self.minimum[team]} (pile)")
        self.emit({"event": "take_pile", "seat": seat, "team": team, "top": top, "size": len(self.pile),
                   "meld": meld, "extra": extra})
        self.add_to_meld(seat, top, meld["naturals"] + 1, meld["twos"], meld["jokers"])
        rest, self.pile = self.pile[:-1], []
        self.frozen = False
        for card in rest:  # red threes in the pile are laid without replacement in Classic
            if card == R3:
                self.red_threes[team] += 1
                self.emit(red_three(seat, team, "pile"))
                if self.rules["red_three_from_pile_replaced"] == "true":
                    self.draw_one(seat, first_source="replacement")
            else:
                self.hands[seat][card] += 1
        for m in extra:
            self.add_to_meld(seat, m["rank"], m["naturals"], m["twos"], m["jokers"])
        for m in used:
            self.check_meld_legal(team, m["rank"])
        self.turn_state["melds_this_turn"] += [m["rank"] for m in used]

    def meld_phase(self, seat: int, melds: list[dict[str, Any]]) -> None:
        team = self.team(seat)
        opening = not self.opened(team)
        points = 0
        # several MELDs of one rank in a decision give one ``meld`` event (ranks in order of first appearance)
        merged: dict[str, list[int]] = {}
        for m in melds:
            self.remove(seat, meld_cards(m["rank"], m["naturals"], m["twos"], m["jokers"]), "meld")
            points += meld_points(m["rank"], [m["naturals"], m["twos"], m["jokers"]])
            comp = merged.setdefault(m["rank"], [0, 0, 0])
            comp[0] += m["naturals"]
            comp[1] += m["twos"]
            comp[2] += m["jokers"]
        for rank, (n, t, j) in merged.items():
            self.add_to_meld(seat, rank, n, t, j)
        for m in melds:
            self.check_meld_legal(team, m["rank"])
        self.turn_state["melds_this_turn"] += [m["rank"] for m in melds]
        hand_empty = not +self.hands[seat]
        if opening and melds and points < self.minimum[team]:
            # the minimum is waived only for a concealed going out after a stock draw (RULES §1.8.5, §1.10)
            waived = (self.rules["concealed_out_waives_minimum"] == "true" and self.turn_state["drew_stock"]
                      and self.held(seat) <= 1 and not self.turn_state["melded_before"])
            if not waived:
                self.fail(self.turn, f"team {team} opened with {points} < minimum {self.minimum[team]}")
        if any(m["rank"] == B3 for m in melds) and self.held(seat) > 1:
            self.fail(self.turn, "black threes melded by a player who is not going out")
        if self.last_card_red_three and self.rules["last_card_red_three_ends_deal"] == "true":
            if hand_empty:
                self.going_out(seat)
            else:  # last stock card was a red three: meld, no discard, the deal ends (RULES §1.11)
                self.emit({"event": "stock_out", "seat": seat, "turn": self.turn, "last_card_red_three": True})
                self.end("stock_out")
            return
        if hand_empty:
            self.going_out(seat)

    def discard(self, seat: int, card: str | None) -> None:
        if card is None:
            self.fail(self.turn, f"seat {seat} discarded nothing while holding {dict(+self.hands[seat])}")
        self.remove(seat, Counter([card]), "discard")
        self.pile.append(card)
        if card in WILDS and self.rules["freeze_on_wild_discard"] == "true":
            self.frozen = True
        self.emit({"event": "discard", "seat": seat, "card": card, "pile_size": len(self.pile),
                   "frozen": self.frozen})
        if not +self.hands[seat]:
            self.going_out(seat)
        else:
            self.seat = (seat + self.step) % self.P

    def going_out(self, seat: int) -> None:
        team = self.team(seat)
        need = int(self.rules["go_out_requirement"].split(":")[1])
        have = sum(canasta_kind(r, c, self.canasta_size) is not None for r, c in self.melds[team].items())
        if have < need:
            self.fail(self.turn, f"seat {seat} went out with {have} canastas, {need} needed")
        ts = self.turn_state
        # concealed (RULES §1.10): whole hand in one turn, no earlier melds by the player, nothing added to a meld
        # the team already had (partner's melds)
        concealed = (not ts["melded_before"]
                     and not (set(ts["melds_this_turn"]) & ts["team_melds_before"]))
        self.emit({"event": "going_out", "seat": seat, "team": team, "concealed": concealed, "turn": self.turn})
        self.went_out_seat = seat
        self.concealed = concealed
        self.end("went_out")

    def end(self, reason: str) -> None:
        self.over = True
        self.end_reason = reason

    def after_turn(self) -> None:
        if self.turn_state["melds_this_turn"]:
            self.has_melded[self.turn_state["seat"]] = True

    # ------------------------------------------------------------------ scoring (RULES §1.12, §2.1)
    def score(self, team: int, cut_bonus_team: int | None) -> dict[str, int]:
        r = self.rules
        melds = self.melds[team]
        b = dict.fromkeys(BREAKDOWN_PARTS, 0)
        if self.end_reason == "went_out" and self.team(self.went_out_seat) == team:
            b["going_out"] = int(r["concealed_out_total_bonus"] if self.concealed else r["going_out_bonus"])
        for rank, comp in melds.items():
            kind = canasta_kind(rank, comp, self.canasta_size)
            if kind == "NATURAL":
                b["canasta_natural"] += int(r["canasta_bonus.natural"])
            elif kind == "MIXED":
                b["canasta_mixed"] += int(r["canasta_bonus.mixed"])
        n_r3 = self.red_threes[team]
        all_r3 = pack(r)[R3]
        r3 = int(r["all_red_threes_total"]) if n_r3 == all_r3 else n_r3 * int(r["red_three_value"])
        assert r["red_three_negative_if"] == "NO_MELD"
        b["red_threes"] = -r3 if not melds else r3
        if cut_bonus_team == team:
            b["exact_cut"] = int(r["exact_cut_bonus"])
        b["melded"] = sum(meld_points(rank, comp) for rank, comp in melds.items())
        for s in range(team, self.P, self.n_teams):
            for card, n in self.hands[s].items():
                if card == B3:
                    b["hand"] += n * int(r["black_three_in_hand_value"])  # the knob is signed (-5)
                else:
                    b["hand"] -= n * VALUE[card]
        b["total"] = sum(b[p] for p in BREAKDOWN_PARTS)
        return b

    def check_scored(self, ev: dict[str, Any], cut_bonus_team: int | None) -> list[int]:
        turn = self.turn
        if not self.over:
            self.fail(turn, "deal_scored before the replayed deal ended")
        for key, mine in (("end_reason", self.end_reason), ("went_out_seat", self.went_out_seat),
                          ("concealed", self.concealed), ("turns", self.turn)):
            if ev[key] != mine:
                self.fail(turn, f"deal_scored {key} {ev[key]!r} != replayed {mine!r}")
        accounted = Counter(self.stock[self.stock_pos:]) + Counter(self.pile)
        totals = []
        for t, tev in enumerate(ev["teams"]):
            members = list(range(t, self.P, self.n_teams))
            if len(tev["hands"]) != len(members):
                self.fail(turn, f"team {t} hands {tev['hands']} for members {members}")
            for s, text in zip(members, tev["hands"], strict=True):
                if Counter(parse_cards(text)) != +self.hands[s]:
                    self.fail(turn, f"seat {s} final hand {text!r} != replayed {sorted((+self.hands[s]).elements())}")
                accounted += self.hands[s]
            if tev["melds"] != self.melds[t]:
                self.fail(turn, f"team {t} melds {tev['melds']} != replayed {self.melds[t]}")
            if tev["red_threes"] != self.red_threes[t]:
                self.fail(turn, f"team {t} red threes {tev['red_threes']} != replayed {self.red_threes[t]}")
            for rank, comp in self.melds[t].items():
                accounted += meld_cards(rank, *comp)
            accounted[R3] += self.red_threes[t]
            mine = self.score(t, cut_bonus_team)
            theirs = dict(tev["breakdown"], total=tev["total"])
            if sum(tev["breakdown"].values()) != tev["total"]:
                self.fail(turn, f"team {t} breakdown does not add up to its total: {tev}")
            if theirs != mine:
                diff = {k: (theirs.get(k), mine.get(k)) for k in mine if theirs.get(k) != mine.get(k)}
                self.fail(turn, f"team {t} score differs (trace, replay): {diff}")
            totals.append(mine["total"])
        if accounted != pack(self.rules):
            self.fail(turn, f"cards not accounted for: missing {pack(self.rules) - accounted}, "
                            f"extra {accounted - pack(self.rules)}")
        return totals


def red_three(seat: int, team: int, source: str) -> dict[str, Any]:
    return {"event": "red_three", "seat": seat, "team": team, "source": source}


def initial_minimum(score: int) -> int:
    if score < 0:
        return 15
    return next(m for low, m in CLASSIC_MINIMUM if score >= low)


# --------------------------------------------------------------------------------------------- one game
def replay_trace(path: Path) -> dict[str, Any]:
    """Replay a whole trace file; raise :class:`ReplayError` at the first disagreement. Returns a summary."""
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "", "trace must end with a newline"
    events = []
    for i, line in enumerate(lines[:-1]):
        ev = json.loads(line)
        assert line == json.dumps(ev, sort_keys=True, separators=(",", ":"), ensure_ascii=False), f"line {i} format"
        assert ev["seq"] == i, f"seq {ev['seq']} on line {i}"
        events.append(ev)
    header = events[0]
    assert header["event"] == "trace_header" and header["trace_version"] == 2
    rules = header["rules"]
    assert header["variant"] == "classic", "this replayer knows the Classic rules only"
    P, n_teams = header["num_players"], header["n_teams"]
    assert int(rules["num_players"]) == P and len(header["strategies"]) == P
    step = 1 if rules["play_direction"] == "CW" else -1
    ctx0 = f"seed {header['seed']} game {header['game_index']}"
    assert events[1]["event"] == "game_start"
    dealer = events[1]["first_dealer"]

    totals = [0] * n_teams
    deal: DealReplay | None = None
    actual: list[tuple[int, int, dict[str, Any]]] = []  # (seq, turn, event)
    cut_bonus_team = None
    deals = 0
    game_over = False
    for ev in events[2:]:
        kind = ev["event"]
        if game_over:
            raise ReplayError(f"{ctx0}: event after game_end: {ev}")
        if kind == "deal":
            ctx = f"{ctx0} deal {ev['deal_index']}"
            if deal is not None and not deal.over:
                raise ReplayError(f"{ctx}: previous deal did not end")
            if ev["deal_index"] != deals or ev["dealer"] != dealer:
                raise ReplayError(f"{ctx}: deal_index/dealer {ev['deal_index']}/{ev['dealer']}, expected "
                                  f"{deals}/{dealer}")
            if ev["first_player"] != (dealer + step) % P:
                raise ReplayError(f"{ctx}: first_player {ev['first_player']} is not the seat after dealer {dealer}")
            if rules["initial_meld_table"] == "CLASSIC" and ev["minimum"] != [initial_minimum(x) for x in totals]:
                raise ReplayError(f"{ctx}: minimum {ev['minimum']} for totals {totals}")
            deal = DealReplay(ctx, rules, n_teams, ev)
            actual = []
            cut_bonus_team = None
        elif kind == "cut":
            cut_bonus_team = ev["bonus_team"]
            if ev["exact"] != (ev["count"] == ev["target"]):
                raise ReplayError(f"{ctx}: cut {ev}")
        elif kind == "decision":
            assert deal is not None
            deal.decision(ev)
        elif kind in CHECKED:
            assert deal is not None
            actual.append((ev["seq"], deal.turn, {k: v for k, v in ev.items() if k != "seq"}))
        elif kind == "ask_go_out":
            assert deal is not None and ev["seat"] == deal.seat and ev["partner"] == (ev["seat"] + 2 * step) % P
        elif kind == "deal_scored":
            assert deal is not None
            compare_events(deal, actual)
            if ev["deal_index"] != deals:
                raise ReplayError(f"{ctx}: deal_scored index {ev['deal_index']}")
            scores = deal.check_scored(ev, cut_bonus_team)
            totals = [a + b for a, b in zip(totals, scores, strict=True)]
            deals += 1
        elif kind == "totals":
            if ev["totals"] != totals or ev["deal_index"] != deals - 1:
                raise ReplayError(f"{ctx}: totals {ev['totals']} != replayed {totals}")
            dealer = (dealer + step) % P
        elif kind == "game_end":
            best = max(totals)
            winner = totals.index(best) if totals.count(best) == 1 else -1
            if ev["totals"] != totals or ev["winner_team"] != winner or ev["deals"] != deals:
                raise ReplayError(f"{ctx0}: game_end {ev} != replayed totals {totals}, winner {winner}")
            game_over = True
        elif kind not in ("game_start",):
            raise ReplayError(f"{ctx0}: unknown event {kind!r} at seq {ev['seq']}")
    assert game_over, f"{ctx0}: no game_end"
    return {"deals": deals, "totals": totals}


def compare_events(deal: DealReplay, actual: list[tuple[int, int, dict[str, Any]]]) -> None:
    """The replayer's predicted events must equal the trace's events of the CHECKED kinds, one for one."""
    for i, (turn, exp) in enumerate(deal.expected):
        if i >= len(actual):
            deal.fail(turn, f"trace has no event for replayed {exp}")
        seq, a_turn, got = actual[i]
        if got != exp:
            deal.fail(a_turn, f"seq {seq}: trace {got} != replayed {exp}")
    if len(actual) > len(deal.expected):
        seq, turn, got = actual[len(deal.expected)]
        deal.fail(turn, f"seq {seq}: unexpected trace event {got}")


# --------------------------------------------------------------------------------------------- producing traces
GAMES = [
    # (seed, strategies, extra --rule options)
    (1, "greedy", ()),
    (2, "greedy", ()),
    (3, "greedy", ()),
    (4, "greedy", ()),
    (1, "random", ()),
    (2, "random", ()),
    (3, "random", ()),
    (4, "random", ()),
    (5, "greedy,random,greedy,random", ()),
    (6, "greedy,random,greedy,random", ()),
    (7, "greedy,random,greedy,random", ()),
    (8, "greedy,random,greedy,random", ()),
    (9, "greedy", ("draw_count=2",)),
    (10, "greedy", ("num_players=2",)),
]


def make_trace(path: Path, seed: int, strategies: str, rules: tuple[str, ...] = ()) -> Path:
    """Run ``simcli play ... --trace path`` in-process (the only use of simcli in this module)."""
    from simcli.cli import main

    args = ["play", "--seed", str(seed), "--strategies", strategies, "--trace", str(path)]
    for r in rules:
        args += ["--rule", r]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.parametrize(("seed", "strategies", "rules"), GAMES,
                         ids=[f"seed{s}-{st.replace(',', '+')}{'-' + '-'.join(r) if r else ''}" for s, st, r in GAMES])
def test_replay_matches_trace(tmp_path: Path, seed: int, strategies: str, rules: tuple[str, ...]) -> None:
    path = make_trace(tmp_path / "game.jsonl", seed, strategies, rules)
    summary = replay_trace(path)
    assert summary["deals"] >= 1


def test_trace_is_byte_identical_for_the_same_seed(tmp_path: Path) -> None:
    a = make_trace(tmp_path / "a.jsonl", 11, "greedy,random,greedy,random").read_bytes()
    b = make_trace(tmp_path / "b.jsonl", 11, "greedy,random,greedy,random").read_bytes()
    c = make_trace(tmp_path / "c.jsonl", 12, "greedy,random,greedy,random").read_bytes()
    assert a == b
    assert a != c


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["event"] == kind)


def _mutate_score(events: list[dict[str, Any]]) -> None:
    team = _first(events, "deal_scored")["teams"][0]
    team["breakdown"]["melded"] += 5
    team["total"] += 5


def _mutate_deck(events: list[dict[str, Any]]) -> None:
    deck = _first(events, "deal")["deck"]
    players = int(events[0]["rules"]["num_players"])
    i = next(i for i in range(1, len(deck)) if i % players and deck[i] != deck[0] and R3 not in (deck[0], deck[i]))
    deck[0], deck[i] = deck[i], deck[0]


def _mutate_draw(events: list[dict[str, Any]]) -> None:
    draw = _first(events, "draw")
    draw["cards"][0] = "K" if draw["cards"][0] != "K" else "Q"


def _mutate_final_hand(events: list[dict[str, Any]]) -> None:
    team = _first(events, "deal_scored")["teams"][1]
    team["hands"][0] = (team["hands"][0] + " 4").strip()


def _mutate_frozen(events: list[dict[str, Any]]) -> None:
    discard = _first(events, "discard")
    discard["frozen"] = not discard["frozen"]


def _mutate_totals(events: list[dict[str, Any]]) -> None:
    _first(events, "totals")["totals"][0] += 100


MUTATIONS = {"score": _mutate_score, "deck": _mutate_deck, "draw": _mutate_draw, "final_hand": _mutate_final_hand,
             "frozen": _mutate_frozen, "totals": _mutate_totals}


@pytest.fixture(scope="module")
def good_trace(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    path = make_trace(tmp_path_factory.mktemp("mut") / "good.jsonl", 1, "greedy")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_replayer_rejects_a_corrupted_trace(tmp_path: Path, good_trace: list[dict[str, Any]], mutation: str) -> None:
    """The replayer is not vacuous: each single corruption of a good trace is caught."""
    events = json.loads(json.dumps(good_trace))
    MUTATIONS[mutation](events)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in events),
                    encoding="utf-8")
    with pytest.raises(ReplayError) as info:
        replay_trace(path)
    print(mutation, "->", info.value)
