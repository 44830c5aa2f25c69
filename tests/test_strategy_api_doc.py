"""docs/strategy-api.md is generated from the code (scripts/strategy_api.py) and must not go stale: every public
attribute and method of PlayerView, every decision of Strategy and every action type is on it, as the code gives
them now."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import strategy_api  # noqa: E402  (scripts/ is not a package)

from simcli.engine.view import PlayerView  # noqa: E402
from simcli.strategy import Strategy  # noqa: E402


def test_the_page_is_what_the_code_gives() -> None:
    assert strategy_api.main(["--check"]) == 0, "docs/strategy-api.md is stale: run python scripts/strategy_api.py"


def test_every_public_member_of_the_view_is_documented_with_its_type() -> None:
    page = strategy_api.PAGE.read_text(encoding="utf-8")
    for name in (n for n in dir(PlayerView) if not n.startswith("_")):
        member = inspect.getattr_static(PlayerView, name)
        if type(member) in (str, int):
            assert f"| `{name}` | `{member!r}` |" in page, name
        elif isinstance(member, property):
            ret = strategy_api._annotation(inspect.signature(member.fget).return_annotation)
            assert f"| `{name}` | `{ret}` |" in page, name
        else:
            assert f"#### `{name}(" in page, name
    for name in ("choose_draw", "choose_melds", "choose_discard", "hold_three", "ask_to_go_out", "answer_go_out"):
        assert hasattr(Strategy, name) and f"#### `{name}(" in page


def test_a_stale_page_fails_naming_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "docs" / "strategy-api.md"
    stale.parent.mkdir()
    lines = strategy_api.render().splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("| `pile_top` |"))
    lines[at] = "| `pile_top` | `int` | The top card. |"
    stale.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(strategy_api, "PAGE", stale)
    monkeypatch.setattr(strategy_api, "ROOT", tmp_path)
    assert strategy_api.main(["--check"]) == 1
    assert capsys.readouterr().out.startswith(f"docs/strategy-api.md:{at + 1}: the page says ")
