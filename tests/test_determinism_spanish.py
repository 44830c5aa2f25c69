"""Spanish Canasta (juego): determinism in every mode (2x1, 3x1, 4x1, 4x2, 6x3), and bonuses that never touch the cards.

* A game is a function of (rules, strategies, master seed, game index): the same (seed, game) gives the same
  GameResult (scores, every field of every deal, positions included) and the same event stream, bit for bit,
  whether it is played alone or after other games (of this mode, of other modes, with other seeds).
* ``simcli run`` writes byte-identical ``games.parquet`` and ``deals.parquet`` with ``--jobs 1`` and ``--jobs 2``,
  and its rows are the games that :func:`simcli.players.seating.play_game` plays.
* The exact-cut and exact-pick grabs are drawn from the deal stream whatever their bonuses are: changing
  ``exact_pile_pick_bonus`` or ``exact_cut_bonus`` changes no card of any deal (decks, hands, upcards, grab
  counts), but it changes the score of the first deal where the bonus is paid by exactly the difference, with
  the §2.4 sign (negative without a canasta), and nothing else about that deal.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from helpers import Events, digest, record_game

from simcli.cli import main
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules

MODES = {"2x1": (2, 1), "3x1": (3, 1), "4x1": (4, 1), "4x2": (4, 2), "6x3": (6, 3)}
MAX_HANDS = 3


def spanish(mode: str, **knobs: Any) -> Any:
    n, k = MODES[mode]
    return load_rules("spanish", {"num_players": n, "team_size": k, "max_hands": MAX_HANDS, **knobs})


def mixed(mode: str) -> list[str]:
    """Random and greedy seats alternating (team 0 plays greedy, so games also end on the target)."""
    n, k = MODES[mode]
    return ["greedy" if s % (n // k) == 0 else "random" for s in range(n)]




# ---------------------------------------------------------------------------------------------- same seed, same game
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("strategies", ["random", "mixed"])
def test_same_seed_same_game(mode: str, strategies: str) -> None:
    rules = spanish(mode)
    names = mixed(mode) if strategies == "mixed" else ["random"] * rules.num_players
    a, ev_a = record_game(rules, names, 2718, 4)
    b, ev_b = record_game(rules, names, 2718, 4)
    kinds = Counter(kind for kind, _ in ev_a)
    assert kinds["deal_scored"] == kinds["pile_pick"] == len(a.deals) >= 1
    assert kinds["take_pile"] >= 1 and kinds["canasta"] >= 1
    assert a == b  # every field of every DealResult, positions included
    assert [dataclasses.asdict(d) for d in a.deals] == [dataclasses.asdict(d) for d in b.deals]
    assert ev_a == ev_b and digest(ev_a) == digest(ev_b)
    c, ev_c = record_game(rules, names, 2719, 4)
    assert ev_c != ev_a and [d.scores for d in c.deals] != [d.scores for d in a.deals]


@pytest.mark.parametrize("mode", list(MODES))
def test_game_alone_equals_game_after_others(mode: str) -> None:
    rules = spanish(mode)
    names = mixed(mode)
    alone, ev_alone = record_game(rules, names, 31337, 3)
    for g in range(3):
        play_game(rules, names, 31337, g)
    for other in MODES:  # other modes, seeds, strategies and rule objects in between
        o = spanish(other, exact_pile_pick_bonus=0)
        play_game(o, ["random"] * o.num_players, 8, 3)
    play_game(spanish(mode), ["random"] * rules.num_players, 31337, 3)
    after, ev_after = record_game(rules, names, 31337, 3)
    assert after == alone and ev_after == ev_alone
    again, ev_again = record_game(spanish(mode), names, 31337, 3)  # an equal rule set built anew
    assert again == alone and ev_again == ev_alone


@pytest.mark.parametrize("mode", ["2x1", "6x3"])
def test_listener_does_not_change_play(mode: str) -> None:
    rules = spanish(mode)
    with_emit, _ = record_game(rules, mixed(mode), 77, 1)
    assert play_game(rules, mixed(mode), 77, 1) == with_emit


# ---------------------------------------------------------------------------------------------- jobs 1 vs jobs 2
def _run(mode: str, out: Path, jobs: int, strategies: str, games: int = 6, seed: int = 12) -> None:
    n, k = MODES[mode]
    args = ["run", "--variant", "spanish", "--rule", f"num_players={n}", "--rule", f"team_size={k}", "--rule",
            f"max_hands={MAX_HANDS}", "--strategies", strategies, "--games", str(games), "--seed", str(seed),
            "--jobs", str(jobs), "--chunk-size", "2", "--quiet", "--out", str(out)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("mode", list(MODES))
def test_run_jobs_1_and_2_write_identical_tables(mode: str, tmp_path: Path) -> None:
    strategies = ",".join(mixed(mode))
    for jobs in (1, 2):
        _run(mode, tmp_path / f"j{jobs}", jobs, strategies)
    for table in ("games", "deals"):
        one = (tmp_path / "j1" / f"{table}.parquet").read_bytes()
        two = (tmp_path / "j2" / f"{table}.parquet").read_bytes()
        assert one == two, f"{table}.parquet differs between --jobs 1 and --jobs 2"
    games = pd.read_parquet(tmp_path / "j1" / "games.parquet")
    deals = pd.read_parquet(tmp_path / "j1" / "deals.parquet")
    assert sorted(games["game_index"]) == list(range(6))
    rules = spanish(mode)
    n_teams = rules.num_players // rules.team_size
    assert len(deals) == n_teams * games["deals"].sum()
    for column in ("hidden_canastas", "pile_premiado", "premiado_turns", "crossed_piles", "crossed_turns",
                   "pick_exact", "exact_pick_bonus_team", "black_three_canasta", "quick_finish", "terremoto"):
        assert column in deals.columns
    for _, row in games.iterrows():  # the rows are the games play_game plays
        result = play_game(rules, strategies.split(","), 12, int(row["game_index"]))
        assert [row[f"score_team_{t}"] for t in range(n_teams)] == result.totals
        assert (row["deals"], row["winner_team"]) == (len(result.deals), result.winner_team)


# ---------------------------------------------------------------------------------------------- bonuses and cards
BONUS_KNOBS = {"exact_pile_pick_bonus": ("exact_pick", 700), "exact_cut_bonus": ("exact_cut", 100)}


def _cards(events: Events) -> list[Any]:
    """What was dealt in each deal: the shuffled pack, the hands, the upcards, and the two grabs."""
    out: list[Any] = []
    for kind, data in events:
        d = json.loads(data)
        if kind == "deal":
            out.append([d["deck"], d["hands"], d["upcards"]])
        elif kind in ("cut", "pile_pick"):
            out[-1].append(d["count"])
    return out


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("knob", list(BONUS_KNOBS))
def test_bonus_values_do_not_change_the_cards(mode: str, knob: str) -> None:
    """Every deal of a game gets the same cards and grabs whatever the bonus (0, the preset's, a large one)."""
    compared = 0
    for game in range(3):
        streams = [_cards(record_game(spanish(mode, **{knob: value}), mixed(mode), 5, game)[1])
                   for value in (BONUS_KNOBS[knob][1], 0, 4321)]
        common = min(map(len, streams))
        assert common >= 1
        for other in streams[1:]:
            assert other[:common] == streams[0][:common]
        compared += common
        assert all(len(deal) == 5 for deal in streams[0])  # deck, hands, upcards, cut count, pick count
    assert compared >= 3


def _first_paid(mode: str, part: str) -> tuple[int, int]:
    """The first (game, deal) of seed 6 where the default rules pay ``part`` (all-random seats)."""
    rules = spanish(mode)
    for game in range(60):
        result = play_game(rules, ["random"] * rules.num_players, 6, game)
        for i, deal in enumerate(result.deals):
            if any(s[part] for s in deal.scores):
                return game, i
    raise AssertionError(f"no {part} paid in 60 games of {mode}")


def _play(events: Events, deal: int) -> Events:
    """The deals, decisions, melds and discards of a game's events up to the scoring of deal ``deal``."""
    end = [k for k, (kind, _) in enumerate(events) if kind == "deal_scored"][deal]
    return [(kind, data) for kind, data in events[:end] if kind in ("decision", "deal", "meld", "discard")]


#: DealResult fields that may differ when only a bonus value differs.
BONUS_FIELDS = {"scores", "positions", "exact_cut_team", "exact_pick_team"}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("knob", list(BONUS_KNOBS))
def test_bonus_value_changes_only_the_score_it_pays(mode: str, knob: str) -> None:
    part, default = BONUS_KNOBS[knob]
    game, i = _first_paid(mode, part)
    names = ["random"] * MODES[mode][0]
    base, ev_base = record_game(spanish(mode), names, 6, game)
    for value in (0, 2500):
        other, ev_other = record_game(spanish(mode, **{knob: value}), names, 6, game)
        assert other.deals[:i] == base.deals[:i]
        a, b = base.deals[i], other.deals[i]
        for f in dataclasses.fields(a):
            if f.name not in BONUS_FIELDS:
                assert getattr(a, f.name) == getattr(b, f.name), f.name
        paid = [t for t, s in enumerate(a.scores) if s[part]]
        assert len(paid) == 1
        team = paid[0]
        assert team == a.dealer % len(a.scores)  # the dealer's team (A-ES-1, A-ES-2)
        sign = 1 if sum(a.canastas[team].values()) else -1
        assert a.scores[team][part] == sign * default
        assert b.scores[team][part] == sign * value
        assert b.scores[team]["total"] - a.scores[team]["total"] == sign * (value - default)
        for t, (sa, sb) in enumerate(zip(a.scores, b.scores, strict=True)):
            same = {p: v for p, v in sa.items() if p not in (part, "total")}
            assert same == {p: v for p, v in sb.items() if p not in (part, "total")}, t
            if t != team:
                assert sa == sb
        assert _play(ev_other, i) == _play(ev_base, i)  # every decision up to that deal's scoring
