"""Shared by the golden tests: score a position through the Python API and through ``simcli score --json``,
expected breakdowns, positions with knob overrides, and a stand-in deal that returns fixed totals (for
end-of-game tests)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from simcli.cli import main
from simcli.engine.deal import DealResult
from simcli.engine.scoring import SCORE_PARTS, score_deal
from simcli.engine.state import CANASTA_KINDS
from simcli.positions.reader import parse_position

Scores = list[tuple[int, dict[str, int]]]


def breakdown(**nonzero: int) -> dict[str, int]:
    """An expected full breakdown: every part of ``SCORE_PARTS`` 0 except the ones given."""
    assert set(nonzero) <= set(SCORE_PARTS), set(nonzero) - set(SCORE_PARTS)
    return {p: nonzero.get(p, 0) for p in SCORE_PARTS}


def with_rules(position: dict[str, Any], **rules: Any) -> dict[str, Any]:
    """A copy of ``position`` with knob overrides (dotted names: ``**{"canasta_bonus.natural": 700}``)."""
    out = copy.deepcopy(position)
    out.setdefault("rules", {}).update(rules)
    return out


def api_scores(position: dict[str, Any]) -> Scores:
    """Score through the Python API; return (total, breakdown) per team."""
    rules, teams = parse_position(position)
    return [(s["total"], {p: s[p] for p in SCORE_PARTS}) for s in score_deal(rules, teams)]


def cli_scores(tmp_path: Path, position: dict[str, Any]) -> Scores:
    """Score through ``simcli score --json``; return (total, breakdown) per team."""
    path = tmp_path / "position.json"
    path.write_text(json.dumps(position), encoding="utf-8")
    result = CliRunner().invoke(main, ["score", "--json", str(path)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"teams"}
    out = []
    for team in doc["teams"]:
        assert set(team) == {"total", "breakdown"}
        assert list(team["breakdown"]) == list(SCORE_PARTS)
        assert team["total"] == sum(team["breakdown"].values())
        out.append((team["total"], team["breakdown"]))
    return out


def fake_deal(per_deal: list[list[int]]) -> type:
    """A stand-in for :class:`simcli.engine.deal.Deal` whose deal ``i`` scores ``per_deal[i]`` (totals only)."""

    class FakeDeal:
        def __init__(self, st: Any, strategies: Any, emit: Any = None, ctx: Any = None):
            self.st = st
            self.decisions = 0

        def play(self) -> DealResult:
            st = self.st
            scores = [{"total": x} for x in per_deal[st.deal_index]]
            n = len(scores)
            return DealResult(
                deal_index=st.deal_index, dealer=st.dealer, first_player=st.first_player, scores=scores,
                end_reason="stock_out", went_out_seat=None, concealed=False, turns=1,
                canastas=[dict.fromkeys(CANASTA_KINDS, 0) for _ in scores], red_threes=[0] * n,
                first_meld_turn=[None] * n, pile_takes=[[] for _ in scores], cut_count=0,
                cut_target=st.cut_target, exact_cut=False, exact_cut_team=None)

    return FakeDeal
