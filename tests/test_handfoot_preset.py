"""The Hand and Foot preset (RULES-hand-and-foot.md §3.8.2): its values, its player-count tables and full games."""

from __future__ import annotations

import pytest

from simcli.players.seating import play_game
from simcli.rules.presets import list_variants, load_rules


def test_handfoot_is_listed() -> None:
    assert "handfoot" in list_variants()


def test_preset_values_of_3_8_2() -> None:
    r = load_rules("handfoot")
    assert (r.num_players, r.team_size, r.decks, r.hand_size, r.pony_size) == (4, 2, 5, 11, 11)
    assert r.pony_unlock == "HAND_EMPTY" and r.pile_always_frozen
    assert r.initial_meld_basis == "DEAL_NUMBER"
    assert dict(r.go_out_requirement) == {"NATURAL": 2, "MIXED": 2, "WILD": 1}
    assert (r.canasta_bonus_natural, r.canasta_bonus_mixed, r.canasta_bonus_wild) == (500, 300, 1500)
    assert r.canasta_bonus_sevens is None and r.black_three_meld_when_going_out is None
    assert (r.going_out_bonus, r.black_three_in_hand_value, r.max_hands) == (100, -5, 4)
    assert r.ask_partner_permission == "REQUIRED"


@pytest.mark.parametrize(("players", "team_size", "decks", "contract"), [
    (2, 1, 3, {"NATURAL": 1, "MIXED": 1}),
    (3, 1, 4, {"NATURAL": 1, "MIXED": 1}),
    (4, 2, 5, {"NATURAL": 2, "MIXED": 2, "WILD": 1}),
    (5, 1, 6, {"NATURAL": 1, "MIXED": 1}),
    (6, 3, 7, {"NATURAL": 2, "MIXED": 2, "WILD": 1}),
])
def test_player_count_tables(players: int, team_size: int, decks: int, contract: dict[str, int]) -> None:
    r = load_rules("handfoot", {"num_players": players})
    assert (r.team_size, r.decks, dict(r.go_out_requirement)) == (team_size, decks, contract)


def test_six_players_in_three_teams_of_two_by_override() -> None:
    r = load_rules("handfoot", {"num_players": 6, "team_size": 2})
    assert r.n_teams == 3


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_full_games_at_every_table_size(players: int, strategy: str) -> None:
    rules = load_rules("handfoot", {"num_players": players})
    result = play_game(rules, [strategy] * players, 7)
    assert len(result.deals) == 4  # no target: always 4 deals (ties aside)
