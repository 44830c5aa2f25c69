"""Games over the rule space (issue 52 item 4, issue 53 item 2): hypothesis draws valid combinations of knobs of
every kind (tests/rule_space.py) and plays random and heuristic games under each, checked for crashes, hangs,
the engine's invariants and the no-leak twins. A game that stops in play (an illegal decision of a built-in
strategy, an engine error, a deal that does not end) is counted and none is allowed.

The default run plays a short sample; the ``slow`` tests play the long one (``pytest -m slow
tests/test_rule_space.py``; tests/rule_space.py run as a script prints its counts)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from rule_space import (
    DRAWN_KNOBS,
    HEURISTICS,
    INTERACTING,
    KINDS,
    load_drawn,
    play_checked,
    rule_sets,
    run,
    seats,
)

from simcli.rules.knobs import KNOB_BY_NAME, KNOBS

SHORT = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))


def _play(drawn: tuple[str, dict[str, str]], heuristic: str, mix: int, game_seed: int) -> Counter[str]:
    variant, overrides = drawn
    rules, kept, _ = load_drawn(variant, overrides)
    stats: Counter[str] = Counter()
    why = play_checked(rules, seats(rules, heuristic, mix), game_seed, stats)
    assert why is None, f"{variant} {kept}: the game stopped in play: {why}"
    assert stats["played_to_end"] == 1 and stats["deals"] >= 1
    return stats


@SHORT
@given(drawn=rule_sets(), heuristic=hs.sampled_from(HEURISTICS), mix=hs.integers(0, 2),
       game_seed=hs.integers(0, 10**6))
def test_random_rule_sets_play_to_their_end_with_every_invariant(
        drawn: tuple[str, dict[str, str]], heuristic: str, mix: int, game_seed: int) -> None:
    _play(drawn, heuristic, mix, game_seed)


@settings(max_examples=30, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(drawn=rule_sets(variants=("americana",), threes_mode="RED_BONUS"), mix=hs.integers(0, 2),
       game_seed=hs.integers(0, 10**6))
def test_americana_under_red_bonus_plays_to_its_end(drawn: tuple[str, dict[str, str]], mix: int,
                                                    game_seed: int) -> None:
    """Issue 53: Americana with threes_mode=RED_BONUS stopped in 21 of 40 games (no legal discard)."""
    _play(drawn, "americana", mix, game_seed)


def test_every_kind_of_knob_is_drawn() -> None:
    assert {k.kind for k in KNOBS} <= set(KINDS)
    assert set(INTERACTING) <= {k.name for k in DRAWN_KNOBS}


def test_a_refused_combination_is_one_line_naming_both_knobs() -> None:
    _, kept, refused = load_drawn("ponytail", {"new_meld_after_closed_canasta": "true",
                                               "closed_rank_dead_for_all": "true", "max_hands": "1"})
    assert len(refused) == 1 and "\n" not in refused[0]
    assert "new_meld_after_closed_canasta" in refused[0] and "closed_rank_dead_for_all" in refused[0]


#: Knobs that change what other knobs do, and the knobs each one's help must name (issue 52: every knob's help says
#: what it does in combination with the knobs it touches).
TOUCHES = {
    "initial_pile_faceup": ("initial_pile_facedown",),
    "initial_pile_facedown": ("initial_pile_faceup",),
    "aces_special": ("mixed_aces_only_in_opening", "canasta_bonus.natural_aces", "incomplete_penalty.pure_aces"),
    "mixed_aces_only_in_opening": ("aces_special",),
    "threes_mode": ("may_hold_one_three_before_opening", "black_three_in_hand_value", "american_threes_table",
                    "discard_restrictions"),
    "may_hold_one_three_before_opening": ("threes_mode",),
    "red_three_from_pile_replaced": ("threes_mode",),
    "black_three_in_hand_value": ("threes_mode",),
    "discard_restrictions": ("threes_mode", "empty_pile_no_dead_card"),
    "empty_pile_no_dead_card": ("discard_restrictions",),
    "upcard_freeze_ranks": ("upcard_cover_effect",),
    "upcard_cover_facedown": ("upcard_cover_ranks",),
    "partial_draw_allowed": ("draw_count",),
    "initial_meld_basis": ("initial_meld_table",),
    "go_out_not_same_turn_as_required_canasta": ("go_out_wait_event",),
    "new_meld_after_closed_canasta": ("closed_rank_dead_for_all", "meld_max_size"),
    "allow_8th_card_when_going_out": ("meld_max_size", "new_meld_after_closed_canasta"),
    "canasta_bonus.wild": ("wild_melds_allowed",),
    "incomplete_penalty.sevens": ("canasta_bonus.sevens",),
    "pony_unlock": ("pony_size",),
    "wing_after_pile_opening": ("wing_denied_if_opened_via_pile",),
    "special_hand_waives_minimum": ("special_hands",),
}


@pytest.mark.parametrize("name", sorted(TOUCHES))
def test_the_help_of_a_knob_that_touches_others_names_them(name: str) -> None:
    help_text = KNOB_BY_NAME[name].help
    missing = [other for other in TOUCHES[name] if other not in help_text]
    assert not missing, f"{name}'s help does not say what it does with {missing}: {help_text!r}"


# ------------------------------------------------------------------------------------------ the long version
@pytest.mark.slow
def test_the_long_rule_space_run() -> None:
    """1000 drawn rule sets over two hypothesis seeds, one checked game each: none may stop in play."""
    for seed in (1, 2):
        stats = run(500, seed)
        assert stats["stopped"] == 0 and stats["played_to_end"] == 500, dict(stats)


@pytest.mark.slow
def test_the_long_red_bonus_run() -> None:
    """Issue 53: every variant under threes_mode=RED_BONUS (Americana's dead end) and AMERICAN_COLOUR_TABLE."""
    for mode in ("RED_BONUS", "AMERICAN_COLOUR_TABLE"):
        stats = run(250, 7, threes_mode=mode)
        assert stats["stopped"] == 0 and stats["played_to_end"] == 250, dict(stats)
