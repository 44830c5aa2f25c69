"""Golden playthroughs: every pinned game and run (scripts/playthroughs.py) replays byte for byte.

The golden files in tests/data were recorded before the engine redesign of issue 20 and must stay identical through
any change not meant to change the games; ``python scripts/playthroughs.py --update`` rewrites them when a rule
change is intended (say which and why in the commit). ``test_compiled.py`` replays the same files on the compiled
build.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from helpers import load_script

ROOT = Path(__file__).resolve().parent.parent


def playthroughs() -> ModuleType:
    """scripts/playthroughs.py as a module (scripts/ is not a package)."""
    return load_script("playthroughs")


PT = playthroughs()
NAMES = [*PT.GAMES, *PT.RUNS]


def check(name: str, work: Path, env: dict[str, str] | None = None) -> None:
    """Replay playthrough ``name`` and compare every file with its golden copy."""
    for file, data in PT.produce(name, work, env).items():
        golden = (PT.DATA / file).read_bytes()
        assert data == golden, f"{file}: {PT.first_difference(golden, data)}"


@pytest.mark.parametrize("name", NAMES)
def test_playthrough_replays_byte_for_byte(name: str, tmp_path: Path) -> None:
    check(name, tmp_path)


def test_a_changed_game_is_caught(tmp_path: Path) -> None:
    """The check has power: the same game under another knob value differs from its golden file."""
    trace = tmp_path / "t.jsonl"
    PT.simcli(["play", *PT.GAMES["classic-greedy"], "--rule", "going_out_bonus=300", "--trace", str(trace)], tmp_path)
    golden = (PT.DATA / "playthrough-classic-greedy.jsonl").read_bytes()
    now = trace.read_bytes()
    assert now.splitlines()[1:] != golden.splitlines()[1:]  # the play itself differs, not only the header's knobs
    assert PT.first_difference(golden, now).startswith("line 1:")


def test_every_golden_file_belongs_to_a_playthrough() -> None:
    """No stale golden file lingers in tests/data after a playthrough is renamed or dropped."""
    expected = {f"playthrough-{n}.jsonl" for n in PT.GAMES}
    expected |= {f"playthrough-{n}-{t}" for n in PT.RUNS for t in PT.RUN_TABLES}
    assert {p.name for p in PT.DATA.glob("playthrough-*")} == expected
