"""The engine's layout (issue 20): each variant feature's rule in one module, shared by the judge and the turn.

These pin what a reader relies on: a feature knob is named in one module of simcli (beside its declaration in
knobs.py), the judge uses the feature modules' predicates themselves rather than copies, and the feature modules
sit below the judge, the view and the turn (so the judge can import them and they never import back).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import simcli
from simcli.engine import deal, judge, meld_legality, view
from simcli.engine.features import ponies, spanish_pile, special, threes
from simcli.engine.state import DealState
from simcli.primitives.cards import KING, RED_THREE
from simcli.rules.presets import load_rules

SIMCLI = Path(simcli.__file__).resolve().parent

#: Feature knobs and the one module of simcli that reads each (knobs.py declares them all, and ruleset.py, generated
#: from knobs.py, declares their typed attributes).
ONE_HOME = {
    "pony_unlock": "engine/features/ponies.py",
    "pony_partner_pickup": "engine/features/ponies.py",
    "castigado_requirement": "engine/features/spanish_pile.py",
    "wing_timing": "engine/features/wings.py",
    "wing_denied_if_opened_via_pile": "engine/features/wings.py",
    "wing_cutoff_stock_remaining": "engine/features/wings.py",
    "special_hand_waives_minimum": "engine/features/special.py",
}

#: The feature modules and the engine core they build on: below the judge, the view, the turn and the loader.
BELOW_JUDGE = ("engine/core", "engine/features/threes", "engine/features/ponies", "engine/features/wings",
               "engine/features/special", "engine/features/spanish_pile", "engine/features/handfoot",
               "engine/trace_json", "engine/dealing")
ABOVE = {"simcli.engine.judge", "simcli.engine.view", "simcli.engine.deal", "simcli.players.loading",
         "simcli.players.specs", "simcli.players.forward", "simcli.engine.melding",
         "simcli.engine.ending", "simcli.engine.game"}


def _naming(knob: str) -> set[str]:
    pattern = re.compile(rf"\b{knob}\b")
    return {p.relative_to(SIMCLI).as_posix() for p in SIMCLI.rglob("*.py")
            if p.name not in ("knobs.py", "ruleset.py") and pattern.search(p.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("knob", sorted(ONE_HOME))
def test_a_feature_knob_is_read_in_one_module(knob: str) -> None:
    assert _naming(knob) == {ONE_HOME[knob]}


def _imports(module: str) -> set[str]:
    """Every simcli module ``module`` imports, at the top, in functions or under TYPE_CHECKING."""
    tree = ast.parse((SIMCLI / f"{module}.py").read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)  # from simcli.engine import deal
    return {m for m in out if m.startswith("simcli.")}


@pytest.mark.parametrize("module", BELOW_JUDGE)
def test_feature_modules_sit_below_the_judge(module: str) -> None:
    assert not _imports(module) & ABOVE


def test_the_judge_and_the_engine_share_each_predicate() -> None:
    """The judge (and through it the view) uses the feature modules' own functions, not copies of the rule."""
    assert judge.empty_hand_takes_pony is ponies.empty_hand_takes_pony
    assert meld_legality.pony_gain is ponies.pony_gain  # the judge's meld steps
    assert meld_legality.empty_hand_takes_pony is ponies.empty_hand_takes_pony
    assert judge.crossed_take_error is spanish_pile.crossed_take_error
    assert judge.special_hand_error is view.special_hand_error is special.special_hand_error
    # ... and the turn reads them from the same modules.
    turn = (SIMCLI / "engine" / "deal.py").read_text(encoding="utf-8")
    assert "ponies.empty_hand_takes_pony(" in turn and "special.lay_special_hand(" in turn
    assert deal.ponies is ponies


def _pony_state(unlock: str, picked: bool = False) -> DealState:
    st = DealState(load_rules("ponytail", {"pony_unlock": unlock}), 0, 3, [0, 0])
    st.ponies[0][KING] = 3
    st.pony_picked[0] = picked
    return st


@pytest.mark.parametrize(("unlock", "team", "own", "seats"), [
    ("TEAM_FIRST_CANASTA", 1, False, (0, 2)),
    ("TEAM_FIRST_CANASTA", 0, True, ()),
    ("OWN_FIRST_CANASTA", 1, False, ()),
    ("OWN_FIRST_CANASTA", 1, True, (0,)),
    ("HAND_EMPTY", 2, True, ()),
])
def test_what_melds_unlock(unlock: str, team: int, own: bool, seats: tuple[int, ...]) -> None:
    """RULES.md §2.2: a team canasta unlocks the team's ponies, an own canasta the player's; HAND_EMPTY neither."""
    st = _pony_state(unlock)
    assert ponies.unlocked_by_melds(st, 0, team, own) == seats
    assert ponies.pony_gain(st, 0, team, own, hand_after=3) == (3 if seats else 0)


def test_an_empty_hand_takes_the_pony_only_under_hand_empty() -> None:
    assert ponies.empty_hand_takes_pony(_pony_state("HAND_EMPTY"), 0)
    assert not ponies.empty_hand_takes_pony(_pony_state("HAND_EMPTY", picked=True), 0)
    assert not ponies.empty_hand_takes_pony(_pony_state("TEAM_FIRST_CANASTA"), 0)
    assert ponies.pony_gain(_pony_state("HAND_EMPTY"), 0, 0, False, hand_after=0) == 3
    assert ponies.pony_gain(_pony_state("HAND_EMPTY"), 0, 0, False, hand_after=1) == 0


def test_a_crossed_pile_needs_three_naturals() -> None:
    """RULES.md A-ES-4's alternative: a pile crossed by a wild card is taken with three naturals from the hand."""
    st = DealState(load_rules("spanish", {"castigado_requirement": "THREE_FROM_HAND"}), 0, 3, [0, 0])
    assert spanish_pile.crossed_take_error(st, KING, 2) is None  # not crossed
    st.castigado_since = 1
    assert "three natural K" in (spanish_pile.crossed_take_error(st, KING, 2) or "")
    assert spanish_pile.crossed_take_error(st, KING, 3) is None
    lenient = DealState(load_rules("spanish", {"castigado_requirement": "PAIR"}), 0, 3, [0, 0])
    lenient.castigado_since = 1
    assert spanish_pile.crossed_take_error(lenient, KING, 2) is None


def test_a_three_may_be_kept_only_before_opening() -> None:
    """Americana: one three may stay in the hand until the team opens; Classic keeps none."""
    st = DealState(load_rules("americana"), 0, 3, [0, 0])
    assert threes.may_keep_three(st, 0)
    st.hands[0][RED_THREE] = 1
    assert not threes.may_keep_three(st, 0)  # one three at most
    st.hands[0][RED_THREE] = 0
    st.opened[st.team_of[0]] = True
    assert not threes.may_keep_three(st, 0)
    assert not threes.may_keep_three(DealState(load_rules("classic"), 0, 3, [0, 0]), 0)


# ---------------------------------------------------------------- size: modules and functions a reader can hold
ROOT = SIMCLI.parent
#: Engine modules beyond setup.py's COMPILED list: the knob table and its value kinds and the rules loader (the
#: forward model, simcli/players/forward.py, is compiled: every rollout starts there).
ENGINE_EXTRA = ("simcli/rules/knobs.py", "simcli/rules/knob_values.py", "simcli/rules/presets.py")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
#: The marker that lets a function run longer, on its def line or the line above it (or above its decorators),
#: with the reason after it: a hand-inlined hot path, where splitting would cost speed.
HOT_PATH = "# hot path:"


def engine_modules() -> list[Path]:
    """setup.py's COMPILED modules of simcli plus ENGINE_EXTRA (the compiled built-in strategies of
    ``simcli/strategies/`` are players, not the engine)."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    compiled = next(ast.literal_eval(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets))
    names = [c for c in compiled if not c.startswith("simcli/strategies/")] + list(ENGINE_EXTRA)
    return [ROOT / n for n in names]


def long_functions(source: str) -> list[str]:
    """The functions of ``source`` over MAX_FUNCTION_LINES lines (def line to last line) without HOT_PATH."""
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = node.end_lineno - node.lineno + 1 if node.end_lineno else 0
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        marked = HOT_PATH in lines[node.lineno - 1] or (first >= 2 and HOT_PATH in lines[first - 2])
        if length > MAX_FUNCTION_LINES and not marked:
            out.append(f"{node.name} (line {node.lineno}, {length} lines)")
    return out


def test_the_engine_modules_are_found() -> None:
    modules = engine_modules()
    assert all(p.is_file() for p in modules), [str(p) for p in modules if not p.is_file()]
    assert {"judge.py", "meld_legality.py", "state.py", "meld_book.py", "knobs.py"} <= {p.name for p in modules}


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_engine_module_size(path: Path) -> None:
    """Issue 20: every engine module under 400 lines, and no function over 60 unless marked as a hot path."""
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MAX_MODULE_LINES
    assert long_functions(source) == []


def test_a_long_function_needs_the_marker() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    long_one = f"def f() -> None:\n{body}"
    assert long_functions(long_one) == [f"f (line 1, {MAX_FUNCTION_LINES + 1} lines)"]
    assert long_functions(f"{HOT_PATH} straight-line on purpose\n{long_one}") == []
    assert long_functions(f"def f() -> None:  {HOT_PATH} why\n{body}") == []
    assert long_functions(f"{HOT_PATH} why\n@staticmethod\n{long_one}") == []
    assert long_functions(f"def f() -> None:\n{body[:-len('    x59 = 59')-1]}") == []  # 60 lines: fine
