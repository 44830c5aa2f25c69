"""A person's seat at the table (``simcli play --human SEAT``): a :class:`Strategy` that asks at the terminal.

:class:`HumanPlayer` reads its answers from one text stream and writes to another (a terminal, or a pipe in the
tests), and sees only its :class:`~simcli.engine.view.PlayerView`. At each decision it shows the table and the
player's hand sorted by rank, numbers the legal choices (:mod:`simcli.viewer.choices`) and accepts a number or a
typed move; a move the rules refuse is answered with the rule's reason and asked again. ``?`` asks the ``mc``
search for a hint with the values it weighed (:mod:`simcli.viewer.hint`), ``t`` shows the table again and ``q``
(or the end of the input) leaves the table: :class:`LeftTable`, which the engine lets through to the command.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import IO, Any

import numpy as np

from simcli.engine.melds import canasta_type
from simcli.engine.strategy_base import Draw, Strategy
from simcli.engine.view import PlayerView
from simcli.primitives.actions import DRAW_STOCK, Meld, SpecialHand
from simcli.primitives.cards import RANK_NAMES, RED_THREE, CardError, parse_rank
from simcli.viewer import choices, meld_menu
from simcli.viewer.foot import contract_progress, contract_text
from simcli.viewer.hint import HINT_WORLDS, weigh
from simcli.viewer.words import KIND_WORDS, Words, display_index, meld_shape

HELP = "type a number, or a move (see the examples), ? for a hint, t for the table, q to leave"


class LeftTable(BaseException):  # noqa: N818 - not an error: the person chose to stop
    """The person left the table (``q`` or the end of the input). A BaseException, like KeyboardInterrupt, so that
    the engine (which turns a strategy's exceptions into errors) lets it through to the command."""


class HumanPlayer(Strategy):
    """A seat played by a person at a terminal (or by a script through a pipe)."""

    name = "human"

    def __init__(self, rng: np.random.Generator, *, stdin: IO[str], stdout: IO[str], words: Words,
                 hint_worlds: int = HINT_WORLDS) -> None:
        super().__init__(rng)
        self.stdin = stdin
        self.stdout = stdout
        self.words = words
        self.hint_worlds = hint_worlds

    # ---------------------------------------------------------------------------------------------- talking
    def say(self, text: str = "") -> None:
        """Write a line."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def read(self, prompt: str = "> ") -> str:
        """Read an answer; the end of the input leaves the table."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise LeftTable("end of input")
        return line.strip()

    def table(self, view: PlayerView) -> None:
        """Show the table as this player sees it."""
        w = self.words
        foot = bool(w.foot)  # Hand and Foot (a foot picked up by emptying the hand): the foot and contract shown
        self.say(f"== Deal {view.deal_index + 1}, turn {view.turn}: {w.seat(view.seat)} to play "
                 f"(team {w.team(view.team)}); scores before the deal: "
                 + ", ".join(f"{w.team(t)} {x}" for t, x in enumerate(view.scores)))
        top = RANK_NAMES[view.pile_top] if view.pile_top is not None else "nothing"
        flags = [f for f, on in (("frozen for your team", view.pile_frozen), ("crossed", view.pile_crossed),
                                 ("premiado", view.pile_premiado)) if on]
        self.say(f"   pile: {top} on top, {view.pile_size} cards" + (f" ({', '.join(flags)})" if flags else "")
                 + f"; stock: {view.stock_size} cards" + (f"; wings left: {view.wings_left}" if view.rules.wing_sizes
                                                           else ""))
        for t in range(view.n_teams):
            melds = [meld_shape("WILD" if r == 0 else RANK_NAMES[r], m) + _kind(view, t, r)
                     for r, m in sorted(view.melds(t).items(), key=lambda x: -x[0])]
            closed = view.closed_canastas(t)
            if closed:
                melds.append(f"{len(closed)} closed canastas set aside")
            threes = f"red threes {view.red_threes[t]}" + (
                f", black threes {view.black_threes[t]}" if view.rules.threes_mode == "AMERICAN_COLOUR_TABLE" else "")
            opened = "opened" if view.opened[t] else "not opened"
            contract = f"; contract: {_contract(view, t)}" if foot else ""
            self.say(f"   {w.team(t)}{' (you)' if t == view.team else ''}: {opened}; {threes}{contract}; melds: "
                     + ("; ".join(melds) or "none"))
        if foot:  # Hand and Foot: each seat's hand and foot apart
            others = [f"{w.seat(s)} {view.hand_sizes[s]} ({_foot_words(view, s)})" for s in range(view.n_players)
                      if s != view.seat]
            self.say("   cards in hand: " + ", ".join(others))
        else:
            others = [f"{w.seat(s)} {view.hand_sizes[s]}" for s in range(view.n_players) if s != view.seat]
            ponies = ""
            if view.rules.pony_size:
                ponies = "; ponies picked up: " + ", ".join(w.seat(s) for s, p in enumerate(view.pony_picked) if p)
            self.say("   cards in hand: " + ", ".join(others) + ponies)
        if not view.has_opened:
            self.say(f"   your team needs {view.minimum} points to open")
        if foot:
            mine = ("picked up: you are in the foot" if view.pony_picked[view.seat] else
                    f"{view.rules.pony_size} cards face down, yours once your hand is empty")
            self.say(f"   your foot: {mine}" + ("; your team's contract is met: to go out, ask partner 'may I go "
                                                 "out?' first" if view.go_out_error() == view.ASK_FIRST else ""))
        if view.rules.threes_mode == "RED_PENALTY" and view.hand[RED_THREE]:
            self.say(f"   red threes stay in hand under these rules: each left at the deal's end scores "
                     f"{view.rules.red_three_in_hand_value} (discard them: they stop the pile)")
        self.say(f"   your hand ({view.hand_size}): {choices.hand_text(view)}")

    def hint(self, view: PlayerView, phase: str) -> None:
        """Print what the ``mc`` search would do here, with what it weighed."""
        self.say(f"(thinking: mc with {self.hint_worlds} worlds...)")
        for line in weigh(view, phase, self.hint_worlds, seed=int(self.rng.integers(1 << 31))).lines():
            self.say(line)

    def choose(self, view: PlayerView, phase: str, options: Sequence[Any], labels: Sequence[str],
               typed: Callable[[str], Any] | None = None, examples: str = "") -> Any:
        """Ask for one of ``options`` (numbered from 1) or a typed move (``typed`` returns the decision or raises
        :class:`ValueError` with the rule's reason); ``?``, ``t`` and ``q`` as in :data:`HELP`."""
        while True:
            for i, label in enumerate(labels):
                self.say(f"  {i + 1}: {label}")
            if examples:
                self.say(f"  or type {examples}")
            answer = self.read()
            if answer == "?":
                if phase in ("draw", "melds", "discard"):
                    self.hint(view, phase)
                else:
                    self.say("no hint for this question")
            elif answer == "t":
                self.table(view)
            elif answer == "q":
                raise LeftTable("q")
            elif answer.isdigit() and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1]
            elif answer.isdigit() or not answer or typed is None:
                self.say(f"refused: {answer or 'nothing'} is not one of the choices 1 to {len(options)}; {HELP}")
            else:
                try:
                    return typed(answer)
                except ValueError as exc:
                    self.say(f"refused: {exc}")

    # ---------------------------------------------------------------------------------------------- decisions
    def choose_draw(self, view: PlayerView) -> Draw:
        """Draw from the stock or take the pile."""
        self.say()
        self.table(view)
        options = choices.draw_options(view)

        def typed(text: str) -> Any:
            if not text.lower().startswith("take"):
                raise ValueError(f"'{text}' is no move here; {HELP}")
            take = choices.parse_take(text[4:])
            err = view.check_take(take)
            if err:
                raise ValueError(err)
            return take

        labels = [choices.describe(o) + (" (the stock is empty: the deal ends)" if o is DRAW_STOCK and
                                         not view.stock_size else "") for o in options]
        k = view.rules.pile_take_count
        if k is not None and view.pile_size > k:  # Hand and Foot: a take gets only the top k cards
            labels = [label + (f" (you get its top {k} of {view.pile_size} cards; the rest stays)"
                               if o is not DRAW_STOCK else "") for o, label in zip(options, labels, strict=True)]
        return self.choose(view, "draw", options, labels, typed,
                           "take CARDS [+ CARDS ...] (e.g. take K K + A A A)")

    def choose_melds(self, view: PlayerView) -> Sequence[Meld | SpecialHand]:  # type: ignore[override]
        """Build the turn's melds one action at a time, then lay them."""
        plan: list[Meld] = []
        self.say(f"   your hand ({view.hand_size}): {choices.hand_text(view)}")
        while True:
            specials = choices.special_options(view) if not plan else []
            actions = choices.meld_options(view, plan)
            options: list[Any] = ["done", *actions, *([[s] for s in specials]), *(["reset"] if plan else [])]
            labels = [meld_menu.done_label(view, plan), *(meld_menu.action_label(view, plan, m) for m in actions),
                      *(choices.describe([s]) for s in specials), *(["start the melds again"] if plan else [])]
            self.say("melds" + (f" planned: {meld_menu.plan_words(view, plan)}" if plan else ":")
                     + (f" ({note})" if (note := meld_menu.opening_note(view, plan)) else ""))
            picked = self.choose(view, "melds", options, labels, partial(_typed_meld, view, list(plan)),
                                 "CARDS (e.g. K K 2) or RANK: WILDS (e.g. K: 2)")
            if picked == "done":
                err = view.check_melds(plan) if plan else None  # after a yes it refuses melds that cannot go out
                if err is None and view.partner_permission and not plan and not view.legal_discards():
                    err = "partner said yes to 'may I go out?': meld all your cards but one (or all) this turn"
                if err is None:
                    return plan
                self.say(f"refused: {err}")
            elif picked == "reset":
                plan = []
            elif isinstance(picked, list):
                return picked  # a special hand
            else:
                plan.append(picked)

    def choose_discard(self, view: PlayerView) -> int | None:
        """Discard a card."""
        legal = sorted(view.legal_discards(), key=display_index)
        self.say(f"   your hand ({view.hand_size}): {choices.hand_text(view)}")
        self.say("discard:")

        def typed(text: str) -> Any:
            try:
                rank = parse_rank(text)
            except CardError as exc:
                raise ValueError(str(exc)) from None
            if not view.hand[rank]:
                raise ValueError(f"you hold no {RANK_NAMES[rank]}")
            err = view.discard_error(rank)
            if err is None and rank not in legal:
                err = "partner said you may go out: you must go out this turn" if view.partner_permission else (
                    f"{RANK_NAMES[rank]} may not be discarded now")
            if err:
                raise ValueError(err)
            return rank

        return int(self.choose(view, "discard", legal, [RANK_NAMES[r] for r in legal], typed, "a card (e.g. K)"))

    def hold_three(self, view: PlayerView, rank: int) -> bool:
        """Americana: keep a three in hand until the team opens, or lay it."""
        colour = "red" if rank == RED_THREE else "black"
        self.say(f"you drew a {colour} three; your team has not opened, so you may keep one three in hand")
        return bool(self.choose(view, "three", [False, True], ["lay it (and draw a replacement)", "keep it"]))

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """Ask partner "may I go out?" (only offered when the team could go out: the answer binds)."""
        if not view.may_ask or view.go_out_error() not in (None, view.ASK_FIRST):
            return False
        self.say('your team could go out: ask partner "may I go out?" (a yes obliges you to go out this turn)')
        return bool(self.choose(view, "ask", [False, True], ["do not ask", "ask"]))

    def answer_go_out(self, view: PlayerView) -> bool:
        """Answer partner's "may I go out?"."""
        self.table(view)
        self.say('your partner asks "may I go out?" (a yes obliges them to go out this turn)')
        return bool(self.choose(view, "answer", [True, False], ["yes", "no"]))


def _typed_meld(view: PlayerView, plan: list[Meld], text: str) -> Meld:
    """A typed meld action on top of ``plan``, or :class:`ValueError` with the rule's reason."""
    meld = choices.parse_wild_onto(text) or choices.parse_meld(text)
    err = view.check_melds([*plan, meld], partial=True)
    if err:
        raise ValueError(err)
    return meld


def _contract(view: PlayerView, team: int) -> str:
    """``team``'s contract progress: ``clean 1/2, dirty 0/2, wild 0/1`` (Hand and Foot)."""
    return contract_text(contract_progress(view.rules.go_out_requirement, view.canastas(team),
                                           view.clean_canastas(team)))


def _foot_words(view: PlayerView, seat: int) -> str:
    """Where ``seat``'s foot is: ``foot face down`` or ``in the foot`` (public: everyone sees a foot picked up)."""
    return "in the foot" if view.pony_picked[seat] else "foot face down"


def _kind(view: PlayerView, team: int, rank: int) -> str:
    """`` (mixed canasta)`` after a meld that is a canasta."""
    meld = view.meld(rank, team)
    kind = canasta_type(view.rules, rank, meld) if meld is not None else None
    return f" ({KIND_WORDS.get(kind, kind.lower())} canasta)" if kind else ""
