"""A ladder of players rated on one Elo scale (greedy = 0) from duplicate matches between neighbouring rungs.

The rungs are strategy specs from weak to strong (by default random, greedy, the variant's heuristic, the learnt
``net`` where its model fits the rules, ``mc`` at two budgets, ``ismcts`` when it is installed, and ``oracle`` as
the ceiling). :func:`schedule` pairs every rung with the next one (the **neighbour** matches) and with the one after
next (the **jump** matches, ``i`` against
``i + 2``), so every rating rests on two matches and the chain checks itself once. Each match is played on its own
seed, derived from the ladder's seed and the two rungs (:func:`match_seed`), so ``simcli match A B --seed
<that seed> --games <2 x pairs>`` replays it on its own. Matches are stored, verified and resumed by the shared
series storage of :mod:`simcli.duplicate.tournament` (``ladder.json`` and ``matches/match-I-J.json``).

The statistics of a finished ladder (ratings, upset rates, span, gap share) and its Markdown report are in
:mod:`simcli.duplicate.ladder_results`; the roles they compare (:func:`roles`) are defined here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from simcli.players.best_heuristic import best_heuristic
from simcli.players.loading import load_strategy
from simcli.players.specs import StrategyLookupError, split_spec
from simcli.rules.presets import load_rules
from simcli.rules.ruleset import RuleSet

MANIFEST = "ladder.json"
SCHEMA = "simcli.ladder/1"
#: The rung rated 0: every ladder (of any variant) is on the same scale, with greedy at its zero.
ANCHOR = "greedy"
#: Strategy names of the search players (the gap share's "best search player" is the strongest of them).
SEARCH_PLAYERS = ("mc", "ismcts")
#: The Monte Carlo budgets of the default ladder: 4 sampled worlds a decision, and mc's default (16).
MC_BUDGETS = ("mc:samples=4", "mc")
#: The default bootstrap resamples.
DEFAULT_BOOTSTRAP = 1000


class LadderError(ValueError):
    """Rungs or results a ladder cannot be built from: too few rungs, a repeated rung, no greedy to anchor on."""


# ------------------------------------------------------------------------------------------------ rungs
def optional_rung(name: str) -> bool:
    """Whether the strategy ``name`` can be loaded here (``ismcts`` is a rung only where it is installed)."""
    try:
        load_strategy(name)
    except StrategyLookupError:
        return False
    return True


def learnt_rung(variant: str, rules: RuleSet | None = None) -> bool:
    """Whether the learnt player ``net`` is a rung: a shipped model was trained under ``rules`` (``None``: the
    preset of ``variant``) and loads. Under other rules ``net`` refuses to play (strategies/learnt/net.py), so a ladder
    of changed rules leaves it out rather than fail; ``--rungs`` with ``net:any_rules=true`` puts it back."""
    try:
        from simcli.strategies.learnt.model import model_for_rules  # numpy's model code, only when a ladder is built

        played = rules if rules is not None else load_rules(variant)
        model = model_for_rules(played)
    except (ValueError, OSError):  # no such variant, a bad model file
        return False
    return model.refusal(played) is None


def default_rungs(variant: str, rules: RuleSet | None = None) -> list[str]:
    """The default ladder of ``variant``, weak to strong: random, greedy, the variant's best heuristic (unless it
    is greedy), the learnt player ``net`` where its model plays these rules (:func:`learnt_rung`), ``mc`` at the
    budgets of :data:`MC_BUDGETS`, ``ismcts`` when it loads, and ``oracle`` last."""
    heuristic = best_heuristic(variant)
    rungs = ["random", ANCHOR, *([heuristic] if heuristic != ANCHOR else [])]
    if learnt_rung(variant, rules):
        rungs.append("net")
    rungs.extend(MC_BUDGETS)
    if optional_rung("ismcts"):
        rungs.append("ismcts")
    return [*rungs, "oracle"]


def check_rungs(rungs: Sequence[str]) -> None:
    """Refuse a ladder it cannot rate: fewer than two rungs, a rung given twice, or no greedy (the anchor).

    Without greedy the ladder would have to be anchored elsewhere, and its numbers would not be comparable with
    another ladder's: it is refused rather than anchored at its first rung.
    """
    if len(rungs) < 2:
        raise LadderError(f"a ladder needs at least two rungs: got {', '.join(rungs) or 'none'}")
    repeated = sorted({r for r in rungs if list(rungs).count(r) > 1})
    if repeated:
        raise LadderError(f"every rung must be different: {', '.join(repeated)} is given twice")
    if ANCHOR not in rungs:
        raise LadderError(f"the ladder is rated with {ANCHOR} = 0: add {ANCHOR} to the rungs (got "
                          f"{', '.join(rungs)})")


def schedule(k: int, jumps: bool = True) -> list[tuple[int, int]]:
    """The matches of a ladder of ``k`` rungs: the neighbours (0, 1), (1, 2), ..., (k-2, k-1), then (``jumps``)
    the jumps over one rung (0, 2), (1, 3), ..., (k-3, k-1). The lower rung is A in each."""
    neighbours = [(i, i + 1) for i in range(k - 1)]
    return neighbours + ([(i, i + 2) for i in range(k - 2)] if jumps else [])


def match_seed(seed: int, a: str, b: str) -> int:
    """The master seed of the match of rung ``a`` (side A) against ``b`` in a ladder of ``seed``: the first 63 bits
    of a SHA-256 of the three, so that it depends on nothing else (not the other rungs, not the order of play)."""
    digest = hashlib.sha256(json.dumps([seed, a, b]).encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


@dataclass(frozen=True)
class LadderSpec:
    """Everything that determines a ladder's results (and must agree to resume it).

    ``pairs`` is the pairs of each neighbour match, ``jump_pairs`` of each jump match (0: no jumps);
    ``bootstrap`` and ``bootstrap_seed`` set the resampling of the intervals.
    """

    kind: ClassVar[str] = "ladder"
    manifest: ClassVar[str] = MANIFEST
    schema: ClassVar[str] = SCHEMA

    variant: str
    rules: dict[str, str]
    rungs: tuple[str, ...]
    seed: int
    pairs: int
    jump_pairs: int
    bootstrap: int = DEFAULT_BOOTSTRAP
    bootstrap_seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        d = asdict(self)
        d["rungs"] = list(self.rungs)
        return d

    def schedule(self) -> list[tuple[int, int]]:
        """The matches to play, in order (:func:`schedule`)."""
        return schedule(len(self.rungs), jumps=self.jump_pairs > 0)

    def match_kind(self, i: int, j: int) -> str:
        """``neighbour`` or ``jump``."""
        return "neighbour" if j == i + 1 else "jump"

    def match_pairs(self, i: int, j: int) -> int:
        """The pairs of the match of rungs ``i`` and ``j``."""
        return self.pairs if j == i + 1 else self.jump_pairs

    def match_seed(self, i: int, j: int) -> int:
        """The master seed of the match of rungs ``i`` and ``j`` (:func:`match_seed`)."""
        return match_seed(self.seed, self.rungs[i], self.rungs[j])

    def match_spec(self, i: int, j: int) -> dict[str, Any]:
        """The settings of the match of rungs ``i`` and ``j`` (as stored in its file)."""
        return {"variant": self.variant, "rules": self.rules, "ladder_seed": self.seed,
                "seed": self.match_seed(i, j), "pairs": self.match_pairs(i, j), "kind": self.match_kind(i, j),
                "a": self.rungs[i], "b": self.rungs[j], "i": i, "j": j}


# ------------------------------------------------------------------------------------------------ roles
def fair(rung: str) -> bool:
    """Whether a rung plays on what its seat may see (``oracle`` and any strategy with ``cheat = True`` do not)."""
    return not bool(getattr(load_strategy(rung), "cheat", False))


def is_search(rung: str) -> bool:
    """Whether a rung is a fair search player (``mc`` or ``ismcts`` with any options)."""
    return split_spec(rung)[0] in SEARCH_PLAYERS and fair(rung)


@dataclass(frozen=True)
class Roles:
    """Which rungs the summary statistics compare (positions in the ladder; None where the ladder has none)."""

    anchor: int
    random: int | None
    heuristic: int | None
    search: tuple[int, ...]
    ceiling: int | None
    fair: tuple[int, ...]


def roles(variant: str, rungs: Sequence[str]) -> Roles:
    """The anchor (greedy), random, the variant's heuristic, the search players, the ceiling (the first rung that
    sees hidden cards: oracle) and the fair rungs, by their specs."""
    heuristic = best_heuristic(variant)
    cheats = [n for n, r in enumerate(rungs) if not fair(r)]
    return Roles(anchor=list(rungs).index(ANCHOR), random=_find(rungs, "random"), heuristic=_find(rungs, heuristic),
                 search=tuple(n for n, r in enumerate(rungs) if is_search(r)),
                 ceiling=cheats[0] if cheats else None,
                 fair=tuple(n for n in range(len(rungs)) if n not in cheats))


def _find(rungs: Sequence[str], name: str) -> int | None:
    return list(rungs).index(name) if name in rungs else None
