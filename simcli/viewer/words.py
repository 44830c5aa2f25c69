"""Trace events in plain words, as a card player would say them (docs/trace-format.md lists the events).

One :class:`Words` per game turns each ``(kind, data)`` event into a :class:`Line`: the full sentence, and the
sentence a player at another seat may hear (a stock draw names its cards only to the player who drew them). The
replay page (:mod:`simcli.viewer.page`), ``simcli play --narrate`` and a person's seat (:mod:`simcli.viewer.human`)
all say events with this module, so they say them alike.

Seats are North, East, South and West at a table of four (seat 0 is North, play goes round the table by seat
number) and ``Seat N`` (the trace's numbering) otherwise; a team is named by its members.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from simcli.engine.features.ponies import has_foot
from simcli.primitives.cards import RANK_NAMES
from simcli.rules.knob_values import RuleError
from simcli.rules.presets import load_rules, scores_concealed
from simcli.rules.ruleset import RuleSet
from simcli.viewer.foot import contract_progress, contract_text, foot_pickup_text, self_deal_text

#: The seat names at a table of four, by seat number (partners, seats 0 and 2, face each other).
COMPASS = ("North", "East", "South", "West")

#: What the per-deal line of ``simcli play`` abbreviates, one entry per abbreviation (the help and the README
#: show this text).
SUMMARY_LEGEND = (
    ("deal 2", "the deal's number (from 1)"),
    ("dealer 0", "the dealer's seat (seats are numbered from 0; team t holds the seats s with s % teams = t)"),
    ("turns 46", "turns played in the deal, all seats counted"),
    ("seat 2 went out", "how the deal ended: a seat went out (concealed, where the rules pay it), the stock ran "
                        "out, or a special hand (Americana)"),
    ("team 0 +1875", "the team's score for this deal"),
    ("canastas 1n/2m", "the team's canastas at the end of the deal by kind: n natural, m mixed, w wild, s sevens, "
                       "a aces; 'none' when it made none, 'incl. 1 hidden' counts hidden canastas (Spanish)"),
    ("R3 2", "red threes the team laid; B3 1: black threes laid as bonus cards (Americana)"),
    ("= 2730", "the team's running total after the deal"),
)

KIND_WORDS = {"NATURAL": "natural", "MIXED": "mixed", "WILD": "wild", "SEVENS": "sevens", "ACES": "aces"}
SOURCE_WORDS = {"dealt": "from the deal", "stock": "just drawn", "replacement": "drawn as a replacement",
                "pile": "found in the pile", "pony": "found in the pony", "wing": "found in the wing",
                "held": "kept in hand until the team opened"}
SPECIAL_WORDS = {"STRAIGHT": "a straight", "PAIRS_NATURAL": "seven natural pairs",
                 "PAIRS_WITH_2_7_A": "seven pairs with twos, sevens and aces",
                 "GARBAGE": "garbage (two fours and two threes of a kind)"}
#: The parts of a deal's score (``deal_scored`` breakdown), in words.
PART_WORDS = {
    "going_out": "going out", "canasta_natural": "natural canastas", "canasta_mixed": "mixed canastas",
    "canasta_wild": "wild canastas", "canasta_sevens": "sevens canastas", "canasta_aces": "aces canastas",
    "canasta_hidden": "hidden canastas", "canasta_count": "canasta count bonus", "red_threes": "red threes",
    "black_threes": "black threes", "exact_cut": "exact cut", "exact_pick": "exact pick",
    "pony_dealer_exact": "pony dealer's exact grab", "quick_finish": "quick finish", "terremoto": "terremoto",
    "incomplete_melds": "incomplete melds", "hand_rank_penalty": "3+ aces or sevens in a hand",
    "melded": "cards melded", "hand": "cards left in hand", "pony": "ponies not picked up",
    "special_hand": "special hand",
}
#: Ranks from the highest, as a hand is shown sorted: naturals, then the wild cards, then threes.
DISPLAY_ORDER = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "2", "JK", "R3", "B3")
_ORDER = {name: i for i, name in enumerate(DISPLAY_ORDER)}


class Line(NamedTuple):
    """An event in words: ``text`` says everything; ``public`` is what the other seats may hear."""

    text: str
    public: str


def seat_name(seat: int, num_players: int) -> str:
    """North/East/South/West at four players, ``Seat N`` otherwise."""
    return COMPASS[seat] if num_players == 4 else f"Seat {seat}"


def team_name(team: int, num_players: int, n_teams: int) -> str:
    """A team by its members: ``North-South``, ``Seat 1`` (alone), ``Seats 0+2+4``."""
    members = list(range(team, num_players, n_teams))
    if len(members) == 1:
        return seat_name(members[0], num_players)
    if num_players == 4:
        return "-".join(COMPASS[s] for s in members)
    return "Seats " + "+".join(str(s) for s in members)


def display_index(rank: int) -> int:
    """Where a rank (index, :mod:`simcli.primitives.cards`) comes in a hand as shown (A first, B3 last)."""
    return _ORDER[RANK_NAMES[rank]]


def sort_cards(names: Sequence[str]) -> list[str]:
    """Card names sorted as a hand is shown: A K Q ... 4, then 2 and JK, then the threes."""
    return sorted(names, key=lambda c: _ORDER.get(c, len(_ORDER)))


def meld_cards(rank: str, naturals: int, twos: int, jokers: int) -> str:
    """The cards of a meld (or of what is added to it), e.g. ``K K 2``; a wild meld's rank is ``WILD``."""
    cards = ([] if rank == "WILD" else [rank] * naturals) + ["2"] * twos + ["JK"] * jokers
    return " ".join(cards) if cards else "nothing"


def meld_json_cards(meld: Mapping[str, Any]) -> str:
    """The cards of a trace MELD (``{"rank", "naturals", "twos", "jokers"}``)."""
    return meld_cards(meld["rank"], meld["naturals"], meld["twos"], meld["jokers"])


def meld_shape(rank: str, comp: Sequence[int]) -> str:
    """A meld's make-up: ``K x5 + 2 x1`` (7 cards)."""
    n, t, j = comp
    parts = ([] if rank == "WILD" else [f"{rank} x{n}"]) + ([f"2 x{t}"] if t else []) + ([f"JK x{j}"] if j else [])
    return " + ".join(parts)


def rank_words(rank: str) -> str:
    """``of K``, ``of wild cards``, ``of black threes``."""
    return {"WILD": "of wild cards", "B3": "of black threes"}.get(rank, f"of {rank}")


def canasta_words(kind: str, rank: str) -> str:
    """``natural canasta of K``, ``wild canasta``, ``sevens canasta``, ``aces canasta``."""
    if rank == "WILD" or kind in ("SEVENS", "ACES"):
        return f"{KIND_WORDS.get(kind, kind.lower())} canasta"
    return f"{KIND_WORDS.get(kind, kind.lower())} canasta of {rank}"


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def a_card(card: str) -> str:
    """One card with its article, as a player says it: ``a 5``, ``an 8``, ``an A``, ``a joker``."""
    if card in ("JK", "Jk", "JOKER"):
        return "a joker"
    return f"{'an' if card in ('A', '8') else 'a'} {card}"


def cards_words(cards: Sequence[str]) -> str:
    """Cards drawn, each with its article (``a 5`` is one card, not five): ``a 5``, ``a 7 and a joker``,
    ``a 5, a K and an A``."""
    named = [a_card(c) for c in cards]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"


class Words:
    """Says the events of one game. It keeps the little it needs between events (whether the pile's top card is a
    discard or an upcard), so give it every event of the game in order."""

    def __init__(self, num_players: int, n_teams: int, *, concealed_scored: bool = True,
                 closed_rank_blocks_pile: bool = False, facedown: int = 0, foot: int = 0,
                 contract: Sequence[tuple[str, int]] = ()) -> None:
        self.num_players = num_players
        self.n_teams = n_teams
        #: Hand and Foot (:func:`~simcli.engine.features.ponies.has_foot`): the foot's size (the pony is called the
        #: foot) and the contract whose progress is said at each book; 0 and () elsewhere, whose words do not change.
        self.foot = foot
        self.contract = tuple(contract)
        self._books: list[dict[str, int]] = [{} for _ in range(n_teams)]
        self.concealed_scored = concealed_scored
        self.closed_rank_blocks_pile = closed_rank_blocks_pile
        self.facedown = facedown
        self._top_discarded = False
        self._closed: set[str] = set()  # ranks with a canasta this deal (a discard of one is a tapa, a dead card)

    @classmethod
    def for_rules(cls, rules: RuleSet) -> Words:
        """The words for a game under ``rules`` (those that change a phrase: concealed going out, tapas, the
        face-down initial pile)."""
        foot = rules.pony_size if has_foot(rules) else 0
        return cls(rules.num_players, rules.n_teams, concealed_scored=scores_concealed(rules),
                   closed_rank_blocks_pile=rules.closed_rank_blocks_pile, facedown=rules.initial_pile_facedown,
                   foot=foot, contract=rules.go_out_requirement if foot else ())

    @classmethod
    def from_header(cls, header: Mapping[str, Any]) -> Words:
        """The words for a trace, from its ``trace_header`` (its variant and rules)."""
        try:
            return cls.for_rules(load_rules(str(header["variant"]), dict(header["rules"])))
        except (RuleError, KeyError, TypeError):  # rules this simcli cannot read: plain words still work
            return cls(int(header["num_players"]), int(header["n_teams"]))

    def seat(self, seat: int) -> str:
        """A seat's name."""
        return seat_name(seat, self.num_players)

    def team(self, team: int) -> str:
        """A team's name."""
        return team_name(team, self.num_players, self.n_teams)

    def describe(self, kind: str, data: Mapping[str, Any]) -> Line | None:
        """The event in words, or ``None`` for an event a reader need not see (the header, a decision that the
        events after it show)."""
        say = getattr(self, f"_{kind}", None)
        if say is None:
            return None
        out = say(data)
        if out is None or isinstance(out, Line):
            return out
        return Line(out, out)

    # ------------------------------------------------------------------------------------------ the deal's start
    def _deal(self, d: Mapping[str, Any]) -> str:
        self._top_discarded = False
        self._closed = set()
        self._books = [{} for _ in range(self.n_teams)]
        up = d["upcards"]
        hand = len(d["hands"][0].split())
        if not up:
            pile = "the pile starts empty"
        else:
            down = f"{self.facedown} cards face down, then " if self.facedown else ""
            pile = f"the pile is {down}the upcard {up[0]}" + "".join(f", covered by {c}" for c in up[1:])
            pile += " (the pile is frozen)" if d["pile_frozen"] else ""
        foot = f" and a foot of {self.foot} face down" if self.foot else ""
        return (f"Deal {d['deal_index'] + 1}: {self.seat(d['dealer'])} deals {hand} cards each{foot} and "
                f"{self.seat(d['first_player'])} plays first; {pile}. Initial meld minimum: "
                + ", ".join(f"{self.team(t)} {m}" for t, m in enumerate(d["minimum"])))

    def _grab(self, who: str, what: str, d: Mapping[str, Any]) -> str:
        """``West cuts 53 cards (61 would have been exact)``; an exact grab names the team it pays."""
        if not d["exact"]:
            return f"{who} {what.format(n=d['count'])} ({d['target']} would have been exact)"
        bonus = d.get("bonus_team")
        return (f"{who} {what.format(n=d['count'])}: exact! " + (f"A bonus for {self.team(bonus)}" if bonus is not None
                                                               else "(no bonus for it in these rules)"))

    def _cut(self, d: Mapping[str, Any]) -> str:
        return self._grab(self.seat(d["cutter"]), "cuts {n} cards", d)

    def _pony_grab(self, d: Mapping[str, Any]) -> str:
        return self._grab(self.seat(d["pony_dealer"]), "grabs {n} cards for the ponies", d)

    def _self_deal(self, d: Mapping[str, Any]) -> str:
        return self_deal_text(d, self.seat, self.team)

    def _upcard_buried(self, d: Mapping[str, Any]) -> str:
        return (f"The upcard is {a_card(d['card'])}, which may not start the pile: it goes back into the stock and "
                "the next card is turned")

    def _pile_pick(self, d: Mapping[str, Any]) -> str:
        text = self._grab(self.seat(d["dealer"]), "picks {n} cards for the initial pile", d)
        if d.get("premiado"):
            text += "; a premio shows: the pile is premiado (only a natural pair takes it)"
        return text

    # ------------------------------------------------------------------------------------------ threes
    def _three(self, colour: str, d: Mapping[str, Any]) -> str:
        return f"{self.seat(d['seat'])} lays a {colour} three ({SOURCE_WORDS.get(d['source'], d['source'])})"

    def _red_three(self, d: Mapping[str, Any]) -> str:
        return self._three("red", d)

    def _black_three(self, d: Mapping[str, Any]) -> str:
        return self._three("black", d)

    # ------------------------------------------------------------------------------------------ the turn
    def _decision(self, d: Mapping[str, Any]) -> Line | None:
        if d["kind"] == "hold_three" and d["value"]["hold"]:
            card = "red" if d["value"]["card"] == "R3" else "black"
            text = f"{self.seat(d['seat'])} keeps a {card} three in hand (allowed once before the team opens)"
            return Line(text, f"{self.seat(d['seat'])} keeps a three in hand")
        return None

    def _draw(self, d: Mapping[str, Any]) -> Line:
        who, cards, left = self.seat(d["seat"]), d["cards"], d["stock_left"]
        tail = f" ({left} left in the stock)"
        if not cards:
            text = f"{who} draws nothing more: the last stock card was a three" + tail
            return Line(text, text)
        return Line(f"{who} draws {cards_words(cards)} from the stock" + tail,
                    f"{who} draws {'a card' if len(cards) == 1 else plural(len(cards), 'card')} from the stock" + tail)

    def _take_pile(self, d: Mapping[str, Any]) -> str:
        who, top, meld = self.seat(d["seat"]), d["top"], d["meld"]
        where = "discard" if self._top_discarded else "upcard"
        self._top_discarded = False
        pile = f"{who} takes the pile of {plural(d['size'], 'card')}"
        if meld["naturals"] + meld["twos"] + meld["jokers"] == 0:
            text = f"{pile}, laying the {top} {where} on the team's {top} meld"
        else:
            text = f"{pile} with {meld_json_cards(meld)} on the {top} {where}"
        if d["extra"]:
            text += ", and lays " + ", ".join(meld_json_cards(m) for m in d["extra"]) + " with it"
        return text

    def _meld(self, d: Mapping[str, Any]) -> str:
        who, rank, added, comp = self.seat(d["seat"]), d["rank"], d["added"], d["meld"]
        cards = meld_cards(rank, added["naturals"], added["twos"], added["jokers"])
        if list(comp) == [added["naturals"], added["twos"], added["jokers"]]:
            text = f"{who} melds {cards}"
        else:
            size = sum(comp)
            now = meld_cards(rank, *comp) if size <= 8 else meld_shape(rank, comp)
            text = f"{who} adds {cards} to the {rank if rank != 'WILD' else 'wild'} meld, now {size} cards: {now}"
        if d.get("closed"):
            text += ": closed and set aside (more of the rank start a new meld)"
        return text

    def after_take(self, d: Mapping[str, Any]) -> Line:
        """The ``meld`` line of a pile take's top card, told after the take: where the cards went."""
        rank, comp = d["rank"], d["meld"]
        cards = meld_cards(rank, *comp) if sum(comp) <= 8 else meld_shape(rank, comp)
        text = f"the {rank} meld now has {sum(comp)} cards: {cards}"
        if d.get("closed"):
            text += ", closed and set aside"
        return Line(text, text)

    def _canasta(self, d: Mapping[str, Any]) -> str:
        self._closed.add(d["rank"])
        what = canasta_words(d["kind"], d["rank"])
        if d.get("hidden"):
            text = f"{self.seat(d['seat'])} lays a hidden {what} from the hand"
        elif d.get("upgraded_from"):
            text = f"{self.team(d['team'])}'s {canasta_words(d['upgraded_from'], d['rank'])} becomes a {what}"
        else:
            text = f"{self.team(d['team'])} complete a {what}"
        if self.contract:  # Hand and Foot: the book's kind, and where the contract stands after it
            books = self._books[d["team"]]
            books[d["kind"]] = books.get(d["kind"], 0) + 1
            if d.get("upgraded_from"):
                books[d["upgraded_from"]] -= 1
            text += f" (contract: {contract_text(contract_progress(self.contract, books, books.get('NATURAL', 0)))})"
        return text

    def _pony_pickup(self, d: Mapping[str, Any]) -> str:
        who, cards = self.seat(d["seat"]), plural(d["cards"], "card")
        return foot_pickup_text(d, who, cards) if self.foot else f"{who} picks up the pony ({cards})"

    def _wing(self, d: Mapping[str, Any]) -> str:
        return f"{self.seat(d['seat'])} opens first for the team and wins the {d['cards']}-card wing"

    def _special_hand(self, d: Mapping[str, Any]) -> str:
        kind = SPECIAL_WORDS.get(d["kind"], d["kind"].lower())
        return f"{self.seat(d['seat'])} lays a special hand, {kind}: {' '.join(sort_cards(d['cards'].split()))}"

    def _ask_go_out(self, d: Mapping[str, Any]) -> str:
        return (f'{self.seat(d["seat"])} asks {self.seat(d["partner"])} "may I go out?"; '
                f'{self.seat(d["partner"])} says {"yes" if d["answer"] else "no"}')

    def _discard(self, d: Mapping[str, Any]) -> str:
        self._top_discarded = True
        text = f"{self.seat(d['seat'])} discards {d['card']} (pile: {plural(d['pile_size'], 'card')}"
        text += ", frozen)" if d["frozen"] else ")"
        if d["card"] == "B3":
            text += ": a stop card, the next player may not take the pile"
        elif self.closed_rank_blocks_pile and d["card"] in self._closed:
            text += f": a tapa, {d['card']} has a canasta, so no one may take the pile with it on top"
        if d.get("bar_lifted"):
            bar = {"dead_rank": "the dead-rank bar", "ace_seven": "the ace/seven bar"}.get(d["bar_lifted"],
                                                                                          d["bar_lifted"])
            text += f"; no card was discardable, so {bar} was lifted"
        return text

    def _going_out(self, d: Mapping[str, Any]) -> str:
        how = [w for w, on in (("concealed", d.get("concealed") and self.concealed_scored),
                               ("a quick finish", d.get("quick_finish")), ("a terremoto", d.get("terremoto"))) if on]
        return f"{self.seat(d['seat'])} goes out" + (f" ({', '.join(how)})" if how else "")

    def _stock_out(self, d: Mapping[str, Any]) -> str:
        text = f"The stock runs out on {self.seat(d['seat'])}'s turn: the deal ends"
        if d.get("last_card_red_three"):
            text += " (the last stock card was a three that could not be replaced)"
        if "stock_left" in d:
            text += f" ({plural(d['stock_left'], 'card')} left, fewer than a whole draw)"
        return text

    # ------------------------------------------------------------------------------------------ the score
    def _deal_scored(self, d: Mapping[str, Any]) -> str:
        if d["end_reason"] == "went_out":
            how = f"{self.seat(d['went_out_seat'])} went out"
        else:
            how = "the stock ran out"
        scores = ", ".join(f"{self.team(t)} {team['total']:+d}" for t, team in enumerate(d["teams"]))
        return f"Deal {d['deal_index'] + 1} ends after {d['turns']} turns ({how}): {scores}"

    def breakdown(self, d: Mapping[str, Any]) -> list[str]:
        """A ``deal_scored`` event's score, one line per team: its total and every part that is not 0."""
        out = []
        for t, team in enumerate(d["teams"]):
            parts = [f"{PART_WORDS.get(k, k)} {v:+d}" for k, v in team["breakdown"].items() if v]
            out.append(f"{self.team(t)} {team['total']:+d}: " + (", ".join(parts) or "nothing"))
        return out

    def _totals(self, d: Mapping[str, Any]) -> str:
        return f"Totals after deal {d['deal_index'] + 1}: " + ", ".join(
            f"{self.team(t)} {x}" for t, x in enumerate(d["totals"]))

    def _game_end(self, d: Mapping[str, Any]) -> str:
        totals = d["totals"]
        if d["winner_team"] < 0:
            return f"Game over after {plural(d['deals'], 'deal')}: a shared win at {totals}"
        others = [x for t, x in enumerate(totals) if t != d["winner_team"]]
        return (f"Game over after {plural(d['deals'], 'deal')}: {self.team(d['winner_team'])} win with "
                f"{totals[d['winner_team']]} to {', '.join(map(str, others))}")
