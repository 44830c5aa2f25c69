"""RULES.md A-X-6: ``initial_meld_basis=DEAL_NUMBER`` takes only a table keyed by deal number; a table banded by
team score is refused on load in one line naming both knobs and the tables allowed."""

from __future__ import annotations

import pytest
from cli_helpers import cli, error_line

from simcli.engine.melds import initial_meld_minimum
from simcli.rules.knobs import BY_DEAL_TABLES
from simcli.rules.presets import RuleError, load_rules

SCORE_TABLES = ["CLASSIC", "AM_PAGAT", "AM_MODERN_2020S", "PENNIES", "neg:15,0:50,1500:90"]


@pytest.mark.parametrize("variant", ["classic", "ponytail", "americana", "spanish"])
@pytest.mark.parametrize("table", SCORE_TABLES)
def test_a_score_table_by_deal_number_is_refused(variant: str, table: str) -> None:
    with pytest.raises(RuleError) as info:
        load_rules(variant, {"initial_meld_basis": "DEAL_NUMBER", "initial_meld_table": table})
    message = str(info.value)
    assert "initial_meld_basis=DEAL_NUMBER" in message and "initial_meld_table=" in message
    assert all(name in message for name in BY_DEAL_TABLES)


def test_the_preset_table_by_deal_number_is_refused_on_the_command_line() -> None:
    line = error_line("rules", "show", "classic", "--rule", "initial_meld_basis=DEAL_NUMBER")
    assert "initial_meld_table=CLASSIC" in line and "HF_BY_DEAL" in line and "BY_DEAL_NUMBER" in line
    line = error_line("run", "--games", 1, "--rule", "initial_meld_basis=DEAL_NUMBER", "--rule",
                      "initial_meld_table=PENNIES", "-q")
    assert "initial_meld_table=PENNIES" in line


@pytest.mark.parametrize("table", [*BY_DEAL_TABLES, "1:60,2:90,3:120,4:150"])
def test_a_table_by_deal_number_gives_the_minimum_of_each_deal(table: str) -> None:
    rules = load_rules("ponytail", {"initial_meld_basis": "DEAL_NUMBER", "initial_meld_table": table})
    first = 60 if table.startswith("1:") else 50
    assert [initial_meld_minimum(rules, 4000, deal) for deal in (1, 2, 3, 4, 5)] == [first, 90, 120, 150, 150]
    cli("rules", "show", "ponytail", "--rule", "initial_meld_basis=DEAL_NUMBER", "--rule",
        f"initial_meld_table={table}")
