"""``handfoot``: greedy play tuned for Hand and Foot (RULES.md §2.5), its contract and its foot.

Over :class:`~simcli.strategies.heuristics.greedy.Greedy` it:

1. plays the contract (``go_out_requirement``, the preset's ``NATURAL:2,MIXED:2,WILD:1``: clean books, dirty
   books, a wild book) by kind. Wild cards build the wild book first (1,500), and after it further wild books;
   natural melds stay clean. Only late in the deal (:data:`DIRTY_STOCK`), with the wild book and the clean books
   of the contract made, do its wild cards complete open melds of four naturals or more into the dirty books the
   contract still lacks (fewest wild cards first). Forcing dirty books earlier was measured to lose: a wild card
   is worth more in a wild book, and a natural meld more as a clean book (500) than as a dirty one (300);
2. goes into the foot as soon as it can: it never holds cards back while the foot is down, so a hand melded out
   runs into the foot (and plays on from it) and a last card discarded walks into it;
3. goes out as soon as the rules let it: in the foot, with the contract met, it asks partner
   (``ask_partner_permission=REQUIRED``: greedy's :func:`~simcli.players.asking.asks_to_go_out`, which works out
   this player's own plan after a "yes"); without a yes it keeps two cards (one to discard, one to keep) and
   builds more books. Holding back while ahead, or until the stock runs low, was measured to lose;
4. puts its spare wild cards on open melds rather than hold them (each one held at the end counts against the
   team): when it goes out, late in the deal, and when that empties the hand into the foot (running into it) or
   leaves one card to walk into it with;
5. sheds red threes first under ``threes_mode=RED_PENALTY`` (each one held at the end costs
   ``red_three_in_hand_value``, and a discarded three stops the pile), then black threes; then it discards first
   the ranks an opponent team has an open meld of (:func:`discard_score`): such a team lays every natural of the
   rank as it comes, so it holds no natural pair to take the pile with.

Pile takes are greedy's: the pile of the preset is always frozen, so a take is the top card with a natural pair
and brings up to six more cards (``pile_take_count``).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from simcli.engine.strategy_base import asks_only_when_required
from simcli.engine.view import PlayerView
from simcli.players.asking import asks_to_go_out
from simcli.players.planning import meld_of, take_wilds
from simcli.primitives.actions import Meld
from simcli.primitives.cards import BLACK_THREE, CARD_VALUES, JOKER, NATURAL_RANKS, RED_THREE, TWO, WILD_MELD
from simcli.rules.ruleset import RuleSet

from .greedy import Greedy, MeldTable
from .ponytail import cards_in, hold_back

#: Below this many stock cards the deal may end any moment: go out when allowed, dump spare wild cards.
LOW_STOCK: Final = 16
#: The contract's last dirty books are forced (wild cards onto natural melds) only with this many stock cards or
#: fewer: earlier, a wild card is worth more in a wild book (1,500 for seven) and a natural meld more as a clean
#: book (500) than as a dirty one (300).
DIRTY_STOCK: Final = 30


def discard_score(rank: int, n: int, own: MeldTable, others: list[MeldTable]) -> int:
    """How much a natural ``rank`` held ``n`` times is worth keeping (the lowest is discarded): greedy's
    :func:`~simcli.strategies.heuristics.greedy.keep_score`, but a rank an opponent team has an open meld of
    counts 100 *less* for each such team. Taking the pile needs a natural pair of its top card from the hand, and a
    team with an open meld of a rank lays every natural of it as it comes, so it holds no pair of it: the discard
    is the safest there is (greedy keeps such cards instead, as a pile it could take onto its meld)."""
    score = CARD_VALUES[rank] + 10 * n
    if own[rank] is not None:
        score += 200
    for table in others:
        if table[rank] is not None:
            score -= 100
    return score


def contract_need(requirement: tuple[tuple[str, int], ...], canastas: dict[str, int], kind: str) -> int:
    """How many more books of ``kind`` (``NATURAL``, ``MIXED``, ``WILD``) the contract ``requirement`` (a rule
    set's ``go_out_requirement``) needs, given the team's ``canastas`` by kind."""
    for k, n in requirement:
        if k == kind:
            have = canastas.get(kind, 0)
            return n - have if n > have else 0
    return 0


# User strategies subclass the built-ins (README): compiled by mypyc, the class must allow interpreted
# subclasses (their overrides are then found by attribute lookup, at a small cost per call).
@mypyc_attr(allow_interpreted_subclasses=True)
class HandAndFoot(Greedy):
    """Plays the contract's books by kind, runs into the foot, asks to go out when it pays."""

    name = "handfoot"

    #: The contract's needs when choose_melds started: dirty books and clean books still to make.
    _need_dirty = 0
    _need_clean = 0
    #: Whether spare wild cards go onto any meld (going out, or the deal about to end).
    _dump_wilds = False
    #: Whether the player had picked up its foot when choose_melds started.
    _in_foot = False
    #: Whether the contract's wild book is made (or not needed), and the stock's size, when choose_melds started.
    _wild_done = False
    _stock = 0

    def choose_melds(self, view: PlayerView) -> list[Meld]:
        """Greedy's melds with the contract's use of wild cards; into the foot at once; in the foot, two cards kept
        unless going out (asked for, or allowed without asking)."""
        rules = view.rules
        canastas = view.canastas()
        requirement = rules.go_out_requirement
        self._need_dirty = contract_need(requirement, canastas, "MIXED")
        self._need_clean = contract_need(requirement, canastas, "NATURAL")
        self._wild_done = canastas["WILD"] > 0 or contract_need(requirement, canastas, "WILD") == 0
        self._stock = view.stock_size
        in_foot = view.pony_picked[view.seat]
        asked = rules.ask_partner_permission == "REQUIRED"
        going_out = in_foot and (view.partner_permission is True or not asked)
        self._dump_wilds = view.stock_size <= LOW_STOCK or going_out
        self._in_foot = in_foot
        plan = super().choose_melds(view)
        if not plan or not in_foot or view.hand_size - cards_in(plan) > 1 or going_out:
            return plan  # cards kept anyway, the foot still down (running or walking into it), or going out
        return hold_back(view, plan)

    def _place_wilds(self, rules: RuleSet, table: tuple, sizes: dict[int, int], left: list[int],
                     plan: list[Meld], cap: int) -> None:
        """Dirty books the contract needs first, then the wild book(s); spare wild cards on melds when dumping."""
        if self._need_dirty and self._stock <= DIRTY_STOCK and self._wild_done and not self._need_clean and (
                table[WILD_MELD] is None):
            self._complete_dirty(rules, table, sizes, left, plan, cap)
        if left[TWO] + left[JOKER]:
            super()._place_wilds(rules, table, sizes, left, plan, cap)
        wilds = left[TWO] + left[JOKER]
        if not wilds:
            return
        if not self._in_foot and sum(left) - wilds <= 1:  # into the foot: every meld may take them
            self._spread_wilds(rules, table, sizes, left, plan, cap, 0)
        elif self._dump_wilds:
            self._spread_wilds(rules, table, sizes, left, plan, cap, self._need_clean)

    def _open_melds(self, rules: RuleSet, table: tuple, sizes: dict[int, int],
                    cap: int) -> list[tuple[int, int, int]]:
        """The team's open natural melds once the plan's naturals are laid: ``(rank, size, wild cards)``. A meld
        the plan closes starts a new one of the rank with the naturals left (``new_meld_after_closed_canasta``)."""
        out: list[tuple[int, int, int]] = []
        for r, total in sizes.items():
            m = table[r]
            wilds = 0 if m is None else m[1] + m[2]
            size = total
            while size >= cap:
                size -= cap
                wilds = 0
            if size > 0:
                out.append((r, size, wilds))
        return out

    def _complete_dirty(self, rules: RuleSet, table: tuple, sizes: dict[int, int], left: list[int],
                        plan: list[Meld], cap: int) -> None:
        """Complete open melds into the dirty books the contract still needs, with the fewest wild cards first
        (called once the contract's clean books are made)."""
        book = rules.canasta_size
        max_wilds = rules.max_wilds_per_meld
        options: list[tuple[int, int, int]] = []  # (wild cards needed, -size, rank)
        for r, size, wilds in self._open_melds(rules, table, sizes, cap):
            short = book - size
            naturals = size - wilds
            if short <= 0 or short + wilds > max_wilds or naturals <= short + wilds:
                continue  # already a book, too many wild cards, or naturals not in the majority
            options.append((short, -size, r))
        options.sort()
        made = 0
        for short, _, r in options:
            if made >= self._need_dirty or left[TWO] + left[JOKER] < short:
                break
            tw, jk = take_wilds(left, short)
            plan.append(meld_of(r, 0, tw, jk))
            sizes[r] += short
            made += 1

    def _spread_wilds(self, rules: RuleSet, table: tuple, sizes: dict[int, int], left: list[int],
                      plan: list[Meld], cap: int, spared: int) -> None:
        """Spare wild cards onto open melds (largest first) within the wild rule: laid, they count for the team;
        held at the end of the deal, against it. The ``spared`` largest clean melds stay clean (the contract's
        clean books still to make, but when the wild cards take the player into the foot)."""
        max_wilds = rules.max_wilds_per_meld
        book = rules.canasta_size
        melds = self._open_melds(rules, table, sizes, cap)
        melds.sort(key=lambda m: -m[1])
        for r, size, wilds in melds:
            if spared and wilds == 0:
                spared -= 1
                continue
            count = left[TWO] + left[JOKER]
            if not count:
                return
            naturals = size - wilds
            room = min(book - size, max_wilds - wilds, naturals - wilds - 1, count)
            if room > 0:
                tw, jk = take_wilds(left, room)
                plan.append(meld_of(r, 0, tw, jk))
                sizes[r] += room

    def ask_to_go_out(self, view: PlayerView) -> bool:
        """Greedy's ask (:func:`~simcli.players.asking.asks_to_go_out`: ask when the plan after a "yes" goes out),
        skipped while this player or a partner is still in the hand: no plan could go out then (a plan that picks
        the foot up is no going out, and every partner must be in the foot), so the answer is the same without
        working out the plan. Most turns of a deal are played from the hand: this halves the meld plans made."""
        picked = view.pony_picked
        if not picked[view.seat]:
            return False
        if view.rules.go_out_partners_in_pony != "OFF":
            for s in range(view.team, view.n_players, view.n_teams):  # the team's seats (s % teams == team)
                if not picked[s]:
                    return False
        return asks_to_go_out(view, self.choose_melds)

    def choose_discard(self, view: PlayerView) -> int | None:
        """Red threes first under RED_PENALTY, then black threes, then the natural least worth keeping, where a rank
        an opponent team has an open meld of is the safest (:func:`discard_score`); wild cards last."""
        hand = view.hand
        rules = view.rules
        if rules.discard_restrictions or rules.empty_pile_no_dead_card:  # house rules: legal cards only
            legal = view.legal_discards()
            hand = tuple(n if r in legal else 0 for r, n in enumerate(hand))
        if view.hand_size > 1:
            if hand[RED_THREE] and rules.threes_mode == "RED_PENALTY":
                return RED_THREE
            if hand[BLACK_THREE]:
                return BLACK_THREE
        team = view.team
        own = view.meld_table()
        others = [view.meld_table(t) for t in range(view.n_teams) if t != team]
        best = -1
        best_score = 1 << 30
        for r in NATURAL_RANKS:
            n = hand[r]
            if n:
                score = discard_score(r, n, own, others)
                if score < best_score:
                    best, best_score = r, score
        if best >= 0:
            return best
        return super().choose_discard(view)  # no natural left: greedy's order of the rest


# Asked only where the rules require asking (not called under OPTIONAL), as greedy's.
asks_only_when_required(HandAndFoot.ask_to_go_out)

STRATEGY = HandAndFoot
