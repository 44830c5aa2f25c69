"""Canasta Americana: determinism, whole games through the CLI, and the Americana columns of the records.

* A game (or a deal driven directly) is a function of (rules, strategies, master seed, game index): the same
  seed gives the same event stream and the same results; game i played alone equals game i played after others;
  ``simcli run`` writes the same tables with 1 and 2 jobs.
* ``simcli play`` / ``simcli run`` finish Americana games whenever a team has a scoring strategy; all-random games
  never reach the target (random play loses points every deal), so they need ``--rule max_hands=N``.
* The records columns black_threes, special_hand, wing_*, incomplete_*, players_holding_3_*, dead_ranks and
  canastas_aces exist and agree with the score parts of the same rows.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from helpers import Events, digest, record_game
from helpers_americana import stack_am_deck

from simcli.cli import main
from simcli.engine.deal import Deal, new_deal
from simcli.engine.game import GameResult, prepare_deal
from simcli.engine.scoring import SCORE_PARTS
from simcli.players.seating import make_strategies, play_game
from simcli.primitives.cards import deck_cards
from simcli.primitives.errors import EngineError, GameContext
from simcli.primitives.seeding import deal_rng
from simcli.rules.presets import load_rules
from simcli.runs.records import deal_rows

AMERICANA = load_rules("americana")
CAPPED = load_rules("americana", {"max_hands": 3})
MIX = ["americana", "random", "greedy", "random"]  # team 0 scores, team 1 plays at random
PACK = deck_cards(AMERICANA.decks, AMERICANA.jokers_per_deck)
AMERICANA_COLUMNS = ["black_threes", "special_hand", "wing_seat", "wing_size", "wing_turn", "incomplete_aces",
                     "incomplete_sevens", "incomplete_wild", "players_holding_3_aces", "players_holding_3_sevens",
                     "dead_ranks", "canastas_aces"]
SPECIAL_VALUE = {"STRAIGHT": 3000, "PAIRS_NATURAL": 2500, "PAIRS_WITH_2_7_A": 2000, "GARBAGE": 2000}




# ---------------------------------------------------------------------------------------------- determinism
@pytest.mark.parametrize(("rules", "names"), [
    (AMERICANA, MIX),
    (load_rules("americana", {"draw_count": 2}), ["greedy", "americana", "greedy", "random"]),
    (CAPPED, ["random"] * 4),
], ids=["mixed", "draw2", "random-capped"])
def test_same_seed_same_game(rules: Any, names: list[str]) -> None:
    a, ev_a = record_game(rules, names, 2718, 4)
    b, ev_b = record_game(rules, names, 2718, 4)
    kinds = Counter(kind for kind, _ in ev_a)
    assert kinds["deal_scored"] == len(a.deals) >= 1 and kinds["wing"] >= 1 and kinds["black_three"] >= 1
    assert a == b  # every field of every DealResult, positions included
    assert ev_a == ev_b and digest(ev_a) == digest(ev_b)
    _, ev_c = record_game(rules, names, 2719, 4)
    assert ev_c != ev_a


def test_listener_does_not_change_play() -> None:
    with_emit, _ = record_game(AMERICANA, MIX, 77, 1)
    assert play_game(AMERICANA, MIX, 77, 1) == with_emit


def test_a_deal_driven_directly_is_reproducible() -> None:
    """prepare_deal + Deal(...).play(): the same (seed, game) gives the same events; another game another deal."""
    def run(game: int) -> tuple[Any, Events]:
        events: Events = []
        st = prepare_deal(AMERICANA, PACK, deal_rng(99, game), 0, 3, [0, 0])
        result = Deal(st, make_strategies(["random"] * 4, 99, game),
                      lambda kind, data: events.append((kind, json.dumps(data, sort_keys=True))),
                      GameContext(game_index=game, seed=99)).play()
        return result, events

    (r1, e1), (r2, e2), (_, e3) = run(5), run(5), run(6)
    assert r1 == r2 and e1 == e2 and len(e1) > 100
    assert e1 != e3


def test_game_alone_equals_game_after_others() -> None:
    alone, ev_alone = record_game(AMERICANA, MIX, 31337, 3)
    for g in range(3):
        play_game(AMERICANA, MIX, 31337, g)
    play_game(CAPPED, ["random"] * 4, 8, 3)  # another seed, other strategies and rules in between
    after, ev_after = record_game(AMERICANA, MIX, 31337, 3)
    assert after == alone and ev_after == ev_alone


def _run(args: list[str], out: Path) -> None:
    res = CliRunner().invoke(main, ["run", "--variant", "americana", "--quiet", "--out", str(out), *args])
    assert res.exit_code == 0, res.output


def test_run_jobs_1_and_2_write_identical_tables(tmp_path: Path) -> None:
    for jobs in ("1", "2"):
        _run(["--games", "20", "--seed", "12", "--jobs", jobs], tmp_path / f"j{jobs}")
    for table in ("games", "deals"):
        one = pd.read_parquet(tmp_path / "j1" / f"{table}.parquet")
        two = pd.read_parquet(tmp_path / "j2" / f"{table}.parquet")
        pd.testing.assert_frame_equal(one, two)
    games = pd.read_parquet(tmp_path / "j1" / "games.parquet")
    assert sorted(games["game_index"]) == list(range(20))
    assert (games[["score_team_0", "score_team_1"]].max(axis=1) > 8500).all()


# ---------------------------------------------------------------------------------------------- through the CLI
def test_simcli_play_americana_to_the_end() -> None:
    res = CliRunner().invoke(main, ["play", "--variant", "americana", "--strategies",
                                    "americana,greedy,americana,greedy", "--seed", "4"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("americana game, seed 4, game 0; seats 0:americana(team 0), 1:greedy(team 1)")
    deals = [x for x in lines if x.startswith("deal ")]
    assert deals and lines[-1].startswith("winner: team")
    totals = [int(part.rsplit("=", 1)[1]) for part in deals[-1].split("|")[1:]]
    assert max(totals) > 8500  # target_comparison GT: more than 8500
    assert all(max(int(p.rsplit("=", 1)[1]) for p in d.split("|")[1:]) <= 8500 for d in deals[:-1])


def test_simcli_run_random_with_greedy_partners_finishes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(["--strategies", "random,greedy,random,greedy", "--games", "4", "--seed", "8", "--jobs", "1"], out)
    games = pd.read_parquet(out / "games.parquet")
    deals = pd.read_parquet(out / "deals.parquet")
    assert len(games) == 4 and (games["winner_team"] >= 0).all()
    assert (games[["score_team_0", "score_team_1"]].max(axis=1) > 8500).all()
    assert len(deals) == 2 * games["deals"].sum()
    check_americana_columns(deals)


def test_all_random_run_needs_max_hands(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(["--strategies", "random", "--games", "2", "--rule", "max_hands=3", "--jobs", "1"], out)
    games = pd.read_parquet(out / "games.parquet")
    deals = pd.read_parquet(out / "deals.parquet")
    assert len(games) == 2 and (games["deals"] == 3).all()
    assert sorted(deals.groupby("game_index")["deal_index"].nunique()) == [3, 3]
    check_americana_columns(deals)


def test_all_random_game_without_a_cap_stops_with_a_hint() -> None:
    """Random play loses points every deal: no team ever reaches 8500, and the loop says how to cap it."""
    with pytest.raises(EngineError, match=r"--rule max_hands=N") as info:
        play_game(AMERICANA, ["random"] * 4, 1, 0)
    assert "did not finish in 400 deals" in str(info.value)


# ---------------------------------------------------------------------------------------------- records
def _threes(count: int, canastas: int) -> int:
    value = {0: 0, 1: 100, 2: 300, 3: 500}.get(count, 1000)
    return -value if canastas == 0 else 0 if canastas == 1 else value


def check_americana_columns(deals: pd.DataFrame) -> dict[str, int]:
    """The Americana columns exist and agree with the score parts; returns counts of what was seen."""
    missing = [c for c in AMERICANA_COLUMNS if c not in deals.columns]
    assert not missing, f"missing columns {missing}"
    seen: Counter[str] = Counter()
    kinds = ["natural", "mixed", "wild", "sevens", "aces"]
    for _, row in deals.iterrows():
        where = f"game {row['game_index']} deal {row['deal_index']} team {row['team']}"
        parts = {p: int(row[f"score_{p}"]) for p in SCORE_PARTS}
        assert sum(parts.values()) == row["score_total"], where
        canastas = sum(int(row[f"canastas_{k}"]) for k in kinds)
        if row["special_hand"] != "none":
            seen["special_hand"] += 1
            value = SPECIAL_VALUE[row["special_hand"]]
            assert row["went_out"] and row["score_total"] == parts["special_hand"] == value, where
            assert all(v == 0 for p, v in parts.items() if p != "special_hand"), where
            continue
        assert parts["special_hand"] == 0, where
        penalty = -2500 * row["incomplete_aces"] - 2500 * row["incomplete_sevens"] - 2000 * row["incomplete_wild"]
        assert parts["incomplete_melds"] == penalty, where
        if row["incomplete_aces"] > 0 or row["incomplete_sevens"] > 0 or row["incomplete_wild"] > 0:
            assert parts["incomplete_melds"] < 0, where
            seen["incomplete"] += 1
        holders = row["players_holding_3_aces"] + row["players_holding_3_sevens"]
        assert 0 <= row["players_holding_3_aces"] <= 2 and 0 <= row["players_holding_3_sevens"] <= 2, where
        assert parts["hand_rank_penalty"] == -1500 * holders, where
        seen["hand_rank_penalty"] += holders > 0
        assert parts["black_threes"] == _threes(int(row["black_threes"]), canastas), where
        assert parts["red_threes"] == _threes(int(row["red_threes"]), canastas), where
        seen["black_threes"] += row["black_threes"] > 0
        assert parts["canasta_aces"] == 2500 * row["canastas_aces"], where
        assert parts["canasta_sevens"] == 2500 * row["canastas_sevens"], where
        seen["canastas_aces"] += row["canastas_aces"] > 0
        if row["went_out"]:
            assert canastas >= 2 and parts["going_out"] == 100, where
        else:
            assert parts["going_out"] == 0, where
        assert (row["wing_size"] == 0) == (row["wing_seat"] == -1) == (row["wing_turn"] == -1), where
        if row["wing_size"]:
            assert row["wing_size"] in (3, 4) and row["wing_seat"] % 2 == row["team"] and row["wing_turn"] >= 1, where
            seen["wing"] += 1
    for (game, rotation, deal), rows in deals.groupby(["game_index", "rotation", "deal_index"]):
        where = f"game {game} rotation {rotation} deal {deal}"
        assert len(rows) == 2, where
        # [0, 3]: a team opened via the pile, so the other one took the 3 (wing_after_pile_opening=THREE)
        assert sorted(rows["wing_size"]) in ([0, 0], [0, 4], [0, 3], [3, 4]), where
        assert rows["dead_ranks"].nunique() == 1, where
        dead = int(rows["dead_ranks"].iloc[0])
        natural_rank = rows["canastas_natural"] + rows["canastas_mixed"] + rows["canastas_sevens"] + rows[
            "canastas_aces"]
        assert natural_rank.max() <= dead <= natural_rank.sum() <= 11, where
        seen["dead_ranks"] += dead > 0
        assert rows["special_hand"].ne("none").sum() <= 1, where
    return dict(seen)


def test_records_columns_agree_with_the_scores(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(["--strategies", "americana,random,greedy,random", "--games", "30", "--seed", "5", "--jobs", "1",
          "--rotate-seats"], out)
    deals = pd.read_parquet(out / "deals.parquet")
    seen = check_americana_columns(deals)
    print(f"\n{len(deals) // 2} deals: {seen}")
    for what in ("incomplete", "hand_rank_penalty", "black_threes", "canastas_aces", "wing", "dead_ranks"):
        assert seen.get(what, 0) > 0, f"no '{what}' over {len(deals) // 2} deals: {seen}"


def test_records_of_a_special_hand() -> None:
    """A stacked straight: the americana strategy keeps the B3, lays the hand; the rows say so."""
    deck = stack_am_deck(AMERICANA, hands={0: "A 2 B3 4 5 6 7 8 9 10 J Q K"}, stock="JK")
    st = new_deal(AMERICANA, deck, 3, 0, [0, 0], cut_count=0)
    deal = Deal(st, make_strategies(["americana", "random", "random", "random"], 1, 0)).play()
    result = GameResult(game_index=0, seed=1, strategies=["americana"] + ["random"] * 3, totals=[0, 0],
                        winner_team=0, deals=[deal])
    rows = pd.DataFrame(deal_rows(result, 0, 2, [0, 1, 0, 1]))
    assert list(rows["special_hand"]) == ["STRAIGHT", "none"]
    assert list(rows["score_total"]) == [3000, rows["score_hand"].iloc[1]]
    assert rows["score_special_hand"].iloc[0] == 3000 and bool(rows["went_out"].iloc[0])
    assert list(rows["black_threes"]) == [0, 0] and list(rows["wing_size"]) == [0, 0]
    check_americana_columns(rows)
