"""Records: flat rows for ``games`` and ``deals`` tables, made from game results.

This is the one place that turns engine results into columns; ``docs/results-format.md``
documents every column. Rows are plain dicts so workers stay free of pandas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simcli.engine.game import GameResult
from simcli.engine.scoring import SCORE_PARTS


def game_row(result: GameResult, rotation: int, n_teams: int) -> dict[str, Any]:
    """One row of ``games``: the outcome of a whole game."""
    totals = result.totals
    ranked = sorted(totals, reverse=True)
    last = result.deals[-1]
    row: dict[str, Any] = {
        "game_index": result.game_index,
        "rotation": rotation,
        "seed": result.seed,
        "winner_team": result.winner_team,
        "margin": ranked[0] - ranked[1],
        "deals": len(result.deals),
        "turns": result.turns,
        "decisions": result.decisions,
        "first_dealer": result.first_dealer,
        "last_deal_end": last.end_reason,
        "black_three_canasta_win": last.black_three_canasta_team is not None,
    }
    for t in range(n_teams):
        row[f"score_team_{t}"] = totals[t]
    for s, name in enumerate(result.strategies):
        row[f"strategy_seat_{s}"] = name
    return row


def deal_rows(result: GameResult, rotation: int, n_teams: int, team_of: Sequence[int]) -> list[dict[str, Any]]:
    """Rows of ``deals``: one per deal and team."""
    rows = []
    cumulative = [0] * n_teams
    for d in result.deals:
        for t in range(n_teams):
            s = d.scores[t]
            cumulative[t] += s["total"]
            takes = d.pile_takes[t]
            row: dict[str, Any] = {
                "game_index": result.game_index,
                "rotation": rotation,
                "deal_index": d.deal_index,
                "team": t,
                "dealer": d.dealer,
                "first_player": d.first_player,
                "dealer_team": team_of[d.dealer] == t,
                "first_player_team": team_of[d.first_player] == t,
                "end_reason": d.end_reason,
                "went_out": d.went_out_seat is not None and team_of[d.went_out_seat] == t,
                "went_out_seat": d.went_out_seat if d.went_out_seat is not None else -1,
                "concealed": bool(d.concealed and d.went_out_seat is not None and team_of[d.went_out_seat] == t),
                "stock_out": d.end_reason == "stock_out",
                "turns": d.turns,
                "first_meld_turn": d.first_meld_turn[t] if d.first_meld_turn[t] is not None else -1,
                "canastas_natural": d.canastas[t]["NATURAL"],
                "canastas_mixed": d.canastas[t]["MIXED"],
                "canastas_wild": d.canastas[t]["WILD"],
                "canastas_sevens": d.canastas[t]["SEVENS"],
                "canastas_aces": d.canastas[t]["ACES"],
                "required_set_turn": d.required_set_turn[t] if d.required_set_turn[t] is not None else -1,
                "red_threes": d.red_threes[t],
                "pile_takes": len(takes),
                "pile_cards_taken": sum(takes),
                "pile_take_max": max(takes) if takes else 0,
                "cut_count": d.cut_count,
                "cut_target": d.cut_target,
                "cut_exact": d.exact_cut,
                "exact_cut_bonus_team": d.exact_cut_team == t,
                "cumulative": cumulative[t],
            }
            pos = d.positions[t] if d.positions else None
            row.update(_americana_columns(d, t, pos, team_of))
            row.update(_spanish_columns(d, t, team_of))
            if d.pony_pickup_turns:
                # One column per seat, filled on the rows of that seat's team only (NaN on the others),
                # so each seat counts once per deal: the turn it picked up its pony, or -1 for never.
                for seat, turn in enumerate(d.pony_pickup_turns):
                    row[f"pony_pickup_turn_seat_{seat}"] = (
                        (turn if turn is not None else -1) if team_of[seat] == t else None)
                # Hand and Foot: how each seat got into its foot (its team's rows only, as the pickup turn).
                for seat, walked in enumerate(d.foot_walked):
                    row[f"foot_entry_seat_{seat}"] = (
                        ("never" if walked is None else "walking" if walked else "running")
                        if team_of[seat] == t else None)
                row["pony_cut_count"] = d.pony_cut_count
                row["pony_cut_exact"] = d.pony_exact
            for part in SCORE_PARTS:
                row[f"score_{part}"] = s[part]
            row["score_total"] = s["total"]
            rows.append(row)
    return rows


def _americana_columns(d: Any, team: int, pos: Any, team_of: Sequence[int]) -> dict[str, Any]:
    """Threes by colour, special hands, wings, penalties by kind and dead ranks (zero elsewhere)."""
    from simcli.primitives.cards import ACE, SEVEN, WILD_MELD

    wing = next(((seat, size, turn) for seat, size, turn in d.wings if team_of[seat] == team), None)
    incomplete = {"aces": 0, "sevens": 0, "wild": 0}
    aces_players = sevens_players = 0
    if pos is not None:
        for rank, naturals, twos, jokers in pos.melds:
            if naturals + twos + jokers >= 7:
                continue
            if rank == WILD_MELD:
                incomplete["wild"] += 1
            elif rank == ACE and twos + jokers == 0:
                incomplete["aces"] += 1
            elif rank == SEVEN:
                incomplete["sevens"] += 1
        aces_players = sum(1 for h in pos.hands if h[ACE] >= 3)
        sevens_players = sum(1 for h in pos.hands if h[SEVEN] >= 3)
    went_out_team = d.went_out_seat is not None and team_of[d.went_out_seat] == team
    return {
        "black_threes": d.black_threes[team] if d.black_threes else 0,
        "special_hand": d.special_hand if (d.special_hand and went_out_team) else "none",
        "wing_seat": wing[0] if wing else -1,
        "wing_size": wing[1] if wing else 0,
        "wing_turn": wing[2] if wing else -1,
        "incomplete_aces": incomplete["aces"],
        "incomplete_sevens": incomplete["sevens"],
        "incomplete_wild": incomplete["wild"],
        "players_holding_3_aces": aces_players,
        "players_holding_3_sevens": sevens_players,
        "dead_ranks": d.dead_ranks,
    }


def _spanish_columns(d: Any, team: int, team_of: Sequence[int]) -> dict[str, Any]:
    """Hidden canastas, the premiado and crossed piles and how long they lasted, the exact pick, canasta
    counts, black-three canastas, corte rápido and terremoto (zero / false elsewhere)."""
    went_out_team = d.went_out_seat is not None and team_of[d.went_out_seat] == team
    crossed = [end - start for start, end in d.crossed]
    premiado_turns = 0
    if d.premiado:
        premiado_turns = (d.premiado_end_turn if d.premiado_end_turn is not None else d.turns)
    return {
        "canastas_total": sum(d.canastas[team].values()),
        "hidden_canastas": d.hidden_canastas[team] if d.hidden_canastas else 0,
        "pile_premiado": d.premiado,
        "premiado_taken": d.premiado and d.premiado_end_turn is not None,
        "premiado_turns": premiado_turns,
        "crossed_piles": len(crossed),
        "crossed_turns": sum(crossed),
        "crossed_max_turns": max(crossed, default=0),
        "pick_count": d.pick_count,
        "pick_target": d.pick_target,
        "pick_exact": d.exact_pick,
        "exact_pick_bonus_team": d.exact_pick_team == team,
        "black_three_canasta": d.black_three_canasta_team == team,
        "quick_finish": bool(d.quick_finish and went_out_team),
        "terremoto": bool(d.terremoto and went_out_team),
    }
