"""The sections of ``simcli report``: game and deal summaries, per team-deal figures, the exact cut, pony pickups
and the Spanish records, and :func:`run_report`, which joins them into one long table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.confidence import CONFIDENCE
from simcli.stats.estimators import Rate, StatsError, cut_exact_probability, describe, rate, rate_of
from simcli.stats.metrics import STRATEGY_METRICS, Metric, metric
from simcli.stats.summaries import observations, summarize
from simcli.stats.tables import (
    DEAL_KEYS,
    KEYS,
    PONY_PREFIX,
    RunLike,
    game_cluster,
    integer_counts,
    is_rotated,
    n_teams,
    one_per_deal,
    pony_columns,
    pony_per_deal,
    rules_of,
    team_groups,
    twin_deals,
    unit_clusters,
)
from simcli.stats.wins import win_rates

__all__ = [
    "game_summary", "deal_end_shares", "team_deal_summary", "exact_cut_summary", "exact_cut_decided", "bonus_decided",
    "pony_summary", "pony_distribution", "spanish_summary", "REPORT_COLUMNS", "SECTION_TITLES", "metric_rows",
    "run_report"
]


def _mean_row(metric_name: str, group: str, values: Any, clusters: Any, unit: str,
              **extra: Any) -> dict[str, Any]:
    return {"metric": metric_name, "group": group, "unit": unit, "k": None,
            **describe(values, clusters), **extra}


def _rate_row(metric_name: str, group: str, r: Rate, **extra: Any) -> dict[str, Any]:
    return {"metric": metric_name, "group": group, "unit": "share", **r.as_dict(), **extra}


def game_summary(games: pd.DataFrame) -> pd.DataFrame:
    """Final margins, score difference and game length (deals, turns), one observation per game (clustered by
    unit in a rotated run)."""
    units = unit_clusters(games)
    rows = [
        _mean_row("margin", "all", games["margin"], units, "points"),
        _mean_row("deals", "all", games["deals"], units, "deals"),
        _mean_row("turns", "all", games["turns"], units, "turns"),
    ]
    if n_teams(games) == 2:
        rows.insert(1, _mean_row("score_diff", "team 0 - team 1", games["score_team_0"] - games["score_team_1"],
                                 units, "points"))
    for t in range(n_teams(games)):
        won = games["winner_team"] == t
        if won.any():
            rows.append(_mean_row("margin", f"won by team {t}", games.loc[won, "margin"],
                                  None if units is None else units[won], "points"))
    rows.append(_rate_row("last_deal_stock_out", "all", rate_of(games["last_deal_end"] == "stock_out",
                                                                clusters=units)))
    return integer_counts(pd.DataFrame(rows))


def deal_end_shares(deals: pd.DataFrame) -> pd.DataFrame:
    """How deals end: shares of went_out, concealed (going out concealed) and stock_out, one obs per deal."""
    per_deal = deals.groupby(DEAL_KEYS, sort=True).agg(
        end_reason=("end_reason", "first"), concealed=("concealed", "any"), stock_out=("stock_out", "first"),
        turns=("turns", "first")).reset_index()
    units = unit_clusters(per_deal)
    return integer_counts(pd.DataFrame([
        _rate_row("went_out", "all deals", rate_of(per_deal["end_reason"] == "went_out", clusters=units)),
        _rate_row("concealed", "all deals", rate_of(per_deal["concealed"], clusters=units)),
        _rate_row("stock_out", "all deals", rate_of(per_deal["stock_out"], clusters=units)),
        _mean_row("deal_turns", "all deals", per_deal["turns"], game_cluster(per_deal), "turns"),
    ]))


def team_deal_summary(games: pd.DataFrame, deals: pd.DataFrame, by: str = "team") -> pd.DataFrame:
    """Per team-deal: deal scores, canastas by type, red threes, first meld turn, pile takes and sizes.

    Each metric is given over all team-deals and per group (team, or the team's strategies with
    ``by='strategy'``); intervals are cluster-robust by game.
    """
    group = team_groups(games, deals, "strategy" if by == "strategy" else "team").to_numpy()
    cluster = game_cluster(deals).to_numpy()
    units = unit_clusters(deals)
    col = {c: deals[c].to_numpy(float) for c in (
        "score_total", "canastas_natural", "canastas_mixed", "canastas_wild", "red_threes", "first_meld_turn",
        "pile_takes", "pile_cards_taken", "pile_take_max")}
    col["canastas"] = col["canastas_natural"] + col["canastas_mixed"] + col["canastas_wild"]
    took = col["pile_takes"] > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        col["pile_cards_per_take"] = np.where(took, col["pile_cards_taken"] / np.maximum(col["pile_takes"], 1), np.nan)
    went_out = deals["went_out"].to_numpy(bool)
    melded = col["first_meld_turn"] >= 0
    every = np.ones(len(deals), dtype=bool)
    specs: list[tuple[str, str, str, np.ndarray]] = [
        ("deal_score", "score_total", "points", every),
        ("going_out_score", "score_total", "points", went_out),
        ("other_team_score", "score_total", "points", ~went_out),
        ("canastas", "canastas", "canastas", every),
        ("canastas_natural", "canastas_natural", "canastas", every),
        ("canastas_mixed", "canastas_mixed", "canastas", every),
        ("canastas_wild", "canastas_wild", "canastas", every),
        ("red_threes", "red_threes", "cards", every),
        ("first_meld_turn", "first_meld_turn", "turn", melded),
        ("pile_takes", "pile_takes", "takes", every),
        ("pile_cards_taken", "pile_cards_taken", "cards", every),
        ("pile_cards_per_take", "pile_cards_per_take", "cards", took),
        ("pile_take_max", "pile_take_max", "cards", took),
    ]
    labels = pd.Series(group).dropna().unique()
    groups: list[tuple[str, np.ndarray]] = [("all", every), *((str(g), group == g) for g in sorted(labels))]
    rows = []
    for name, column, unit, where in specs:
        for label, in_group in groups:
            sel = where & in_group
            rows.append(_mean_row(name, label, col[column][sel], cluster[sel], unit))
        if name == "first_meld_turn":
            rows += [_rate_row("never_melded", label, rate_of(~melded[in_group], clusters=None if units is None
                                                               else cluster[in_group]))
                     for label, in_group in groups]
    return integer_counts(pd.DataFrame(rows))


def exact_cut_summary(run: RunLike) -> pd.DataFrame:
    """Exact-cut frequency (Clopper-Pearson, one observation per deal) and how often the bonus decided the game.

    Empty unless the run's rules pay an exact-cut bonus (``exact_cut_bonus > 0``). The bonus decided a game
    (``exact_cut_decided_game``) when the winner's final margin is smaller than the exact-cut points the winner
    received over the game (the sum of ``score_exact_cut`` over the winner's deal rows); ``n`` is the games with
    a single winner. That counts the winner's points only, and the cutter changes team every deal, so both teams
    are often paid: ``exact_cut_decided_net`` (the metric of that name) asks whether the winner would still be
    alone in front with every team's exact-cut points taken away, and follows it.
    """
    rules = rules_of(run)
    if int(float(rules.get("exact_cut_bonus", "0") or 0)) <= 0:
        return pd.DataFrame()
    sigma = float(rules.get("cut_sigma", "4") or 4)
    deals = twin_deals(one_per_deal(run.deals))
    freq = rate(int(deals["cut_exact"].astype(bool).sum()), len(deals), "exact")
    return integer_counts(pd.DataFrame([
        _rate_row("exact_cut", "all deals", freq, expected=cut_exact_probability(sigma)),
        _rate_row("exact_cut_decided_game", "games with a winner", exact_cut_decided(run.games, run.deals)),
        _rate_row("exact_cut_decided_net", "games with a winner", _decided_net(run)),
    ]))


def _decided_net(run: RunLike) -> Rate:
    """The ``exact_cut_decided_net`` metric's share, as a report row's rate (clustered by unit when rotated)."""
    obs = observations(run, metric("exact_cut_decided_net"))
    return rate_of(obs["value"].astype(bool), clusters=unit_clusters(obs))


def exact_cut_decided(games: pd.DataFrame, deals: pd.DataFrame) -> Rate:
    """Share of games (with a single winner) whose margin is below the winner's exact-cut points."""
    return bonus_decided(games, deals, "score_exact_cut")


def bonus_decided(games: pd.DataFrame, deals: pd.DataFrame, part: str) -> Rate:
    """Share of games (with a single winner) whose margin is below the points of score ``part`` the winner got."""
    g = games[games["winner_team"] >= 0][[*KEYS, "winner_team", "margin"]]
    pts = deals.groupby([*KEYS, "team"])[part].sum().rename("pts").reset_index()
    m = g.merge(pts, left_on=[*KEYS, "winner_team"], right_on=[*KEYS, "team"], how="left")
    return rate_of(m["margin"] < m["pts"].fillna(0), clusters=unit_clusters(m))


def pony_summary(deals: pd.DataFrame) -> pd.DataFrame:
    """Pony pickup timing per seat and pooled: share never picked up (-1) and quartiles of the pickup turn.

    One observation per deal and seat (see :func:`pony_per_deal`). Empty without pony columns.
    """
    cols = pony_columns(deals)
    if not cols:
        return pd.DataFrame()
    d = pony_per_deal(deals)
    rows = []
    pooled_vals, pooled_clusters, pooled_never, pooled_units = [], [], [], []
    for c in cols:
        seat = f"seat {c[len(PONY_PREFIX):]}"
        present = d[c].notna()
        v = d.loc[present, c]
        picked = v >= 0
        rows.append(_rate_row("pony_never_picked_up", seat, rate_of(~picked, clusters=unit_clusters(d.loc[v.index]))))
        rows.append(_mean_row("pony_pickup_turn", seat, v[picked], game_cluster(d.loc[v[picked].index]), "turn"))
        pooled_vals.append(v[picked])
        pooled_clusters.append(game_cluster(d.loc[v[picked].index]))
        pooled_never.append(~picked)
        pooled_units.append(game_cluster(d.loc[v.index]))
    rotated = is_rotated(d)
    rows.append(_rate_row("pony_never_picked_up", "all seats", rate_of(
        pd.concat(pooled_never), clusters=pd.concat(pooled_units) if rotated else None)))
    rows.append(_mean_row("pony_pickup_turn", "all seats", pd.concat(pooled_vals), pd.concat(pooled_clusters),
                          "turn"))
    return integer_counts(pd.DataFrame(rows))


def pony_distribution(deals: pd.DataFrame) -> pd.DataFrame:
    """Counts and shares of the pony pickup turn over deals x seats (-1 = never picked up)."""
    cols = pony_columns(deals)
    if not cols:
        return pd.DataFrame(columns=["turn", "count", "share"])
    v = pd.Series(pony_per_deal(deals)[cols].to_numpy().ravel()).dropna()
    counts = v.value_counts().sort_index()
    return pd.DataFrame({"turn": counts.index.astype(int), "count": counts.to_numpy(),
                         "share": counts.to_numpy() / counts.sum()})


def spanish_summary(run: RunLike, by: str = "team") -> pd.DataFrame:
    """Spanish records: hidden canastas, the premiado and crossed piles and how long they lasted, exact picks,
    canasta-count bonuses, black-three canastas, corte rápido and terremoto.

    Empty for runs without these columns, or whose rules have none of hidden canastas, a premiado pile or a
    face-down initial pile (the other variants).
    """
    games, deals = run.games, run.deals
    needed = ("hidden_canastas", "pile_premiado", "crossed_piles", "pick_exact", "black_three_canasta")
    if any(c not in deals.columns for c in needed):
        return pd.DataFrame()
    rules = rules_of(run)
    spanish_rules = (rules.get("hidden_canasta_bonus", "null") not in ("null", "")
                     or rules.get("upcard_cover_effect") == "PREMIADO"
                     or int(float(rules.get("initial_pile_facedown", "0") or 0)) > 0)
    if not spanish_rules:
        return pd.DataFrame()
    per_deal = one_per_deal(deals)
    rows = [*_spanish_team_rows(games, deals, by), *_spanish_pile_rows(per_deal)]
    if per_deal["pick_target"].any():
        sigma = float(rules.get("cut_sigma", "4") or 4)
        picks = twin_deals(per_deal)
        rows.append(_rate_row("exact_pick", "all deals", rate(int(picks["pick_exact"].astype(bool).sum()),
                                                                len(picks), "exact"),
                              expected=cut_exact_probability(sigma)))
        rows.append(_rate_row("exact_pick_decided_game", "games with a winner",
                              bonus_decided(games, deals, "score_exact_pick")))
    out_deals = per_deal["end_reason"] == "went_out"
    for flag in ("quick_finish", "terremoto"):
        # one team per deal can go out: the share of deals ended by going out whose going-out team did it
        hit = deals[deals[flag].astype(bool)].groupby(DEAL_KEYS).size().rename("hit")
        ended = per_deal[out_deals].merge(hit.reset_index(), on=DEAL_KEYS, how="left")
        rows.append(_rate_row(flag, "deals ended by going out", rate_of(ended["hit"].fillna(0) > 0,
                                                                        clusters=unit_clusters(ended))))
    win3 = (games["black_three_canasta_win"].astype(bool) if "black_three_canasta_win" in games.columns
            else pd.Series(False, index=games.index))
    rows.append(_rate_row("black_three_canasta_win", "games", rate_of(win3, clusters=unit_clusters(games))))
    return integer_counts(pd.DataFrame(rows))


def _spanish_team_rows(games: pd.DataFrame, deals: pd.DataFrame, by: str) -> list[dict[str, Any]]:
    """Per team-deal, over all and per group: hidden canastas, the five-canasta bonus, black-three canastas."""
    group = team_groups(games, deals, "strategy" if by == "strategy" else "team").to_numpy()
    cluster = game_cluster(deals)
    units = unit_clusters(deals)

    def by_unit(sel: Any) -> Any:  # the units of the selected team-deal rows (None without twins)
        return None if units is None else units.to_numpy()[sel]
    every = np.ones(len(deals), dtype=bool)
    groups = [("all", every), *((str(g), group == g) for g in sorted(pd.Series(group).dropna().unique()))]
    rows: list[dict[str, Any]] = []
    hidden = deals["hidden_canastas"].to_numpy(float)
    count_bonus = deals["score_canasta_count"].to_numpy(float)
    for label, sel in groups:
        rows.append(_mean_row("hidden_canastas", label, hidden[sel], cluster[sel], "canastas"))
        rows.append(_rate_row("five_canasta_bonus", label, rate_of(count_bonus[sel] > 0, clusters=by_unit(sel))))
        rows.append(_rate_row("black_three_canasta", label, rate_of(deals["black_three_canasta"].to_numpy(bool)[sel],
                                                                    clusters=by_unit(sel))))
    return rows


def _spanish_pile_rows(per_deal: pd.DataFrame) -> list[dict[str, Any]]:
    """Per deal: the premiado pile (how often, never taken, turns until taken) and the piles crossed by a wild."""
    premiado = per_deal["pile_premiado"].astype(bool)
    rows = [_rate_row("pile_premiado", "all deals", rate_of(premiado, clusters=unit_clusters(per_deal)))]
    if premiado.any():
        p = per_deal[premiado]
        rows.append(_rate_row("premiado_never_taken", "premiado deals", rate_of(~p["premiado_taken"].astype(bool),
                                                                               clusters=unit_clusters(p))))
        taken = p[p["premiado_taken"].astype(bool)]
        rows.append(_mean_row("premiado_turns", "premiado taken", taken["premiado_turns"], game_cluster(taken),
                              "turns"))
    rows.append(_mean_row("crossed_piles", "all deals", per_deal["crossed_piles"], game_cluster(per_deal), "piles"))
    crossed = per_deal[per_deal["crossed_piles"] > 0]
    if not crossed.empty:
        rows.append(_mean_row("crossed_turns_per_pile", "deals with a crossed pile",
                              crossed["crossed_turns"] / crossed["crossed_piles"], game_cluster(crossed), "turns"))
    return rows


REPORT_COLUMNS = ["section", "metric", "group", "unit", "n", "n_units", "k", "value", "ci_low", "ci_high", "method",
                  "sd", "min", "q05", "q25", "median", "q75", "q95", "max", "expected"]


SECTION_TITLES = {
    "win_rates": "Win rates",
    "games": "Final margins and game length (one observation per game)",
    "deal_end": "How deals end (one observation per deal)",
    "team_deals": "Per team and deal: scores, canastas, red threes, first meld, pile takes",
    "exact_cut": "Exact cut",
    "pony": "Pony pickup",
    "spanish": "Spanish: hidden canastas, premiado and crossed piles, exact pick, bonuses",
    "metrics": "Chosen metrics (--metric)",
}


def metric_rows(run: RunLike, metrics: Sequence[Metric], confidence: float = CONFIDENCE) -> pd.DataFrame:
    """The report's ``metrics`` section: each chosen metric summarized (:func:`summarize`) in one row."""
    rows = []
    for m in metrics:
        s = summarize(run, m, confidence)
        group = "pairs of twins" if m.name.partition(":")[0] in STRATEGY_METRICS and is_rotated(run.games) else "all"
        rows.append({**{k: v for k, v in s.items() if k not in ("label", "level")}, "group": group})
    return integer_counts(pd.DataFrame(rows))


def run_report(run: RunLike, by: str = "team", metrics: Sequence[Metric] = ()) -> pd.DataFrame:
    """Everything ``simcli report`` shows, as one long table (columns :data:`REPORT_COLUMNS`); ``metrics`` adds
    a ``metrics`` section with those metrics (e.g. ``strategy_win:greedy``)."""
    if by not in ("team", "seat", "strategy"):
        raise StatsError(f"unknown grouping '{by}'; allowed: strategy, seat, team")
    games, deals = run.games, run.deals
    if games.empty:
        raise StatsError("the run has no games")
    parts = {
        "win_rates": win_rates(games, by),
        "games": game_summary(games),
        "deal_end": deal_end_shares(deals),
        "team_deals": team_deal_summary(games, deals, by),
        "exact_cut": exact_cut_summary(run),
        "pony": pony_summary(deals),
        "spanish": spanish_summary(run, by),
        "metrics": metric_rows(run, metrics) if metrics else pd.DataFrame(),
    }
    frames = [df.assign(section=name) for name, df in parts.items() if not df.empty]
    out = pd.concat(frames, ignore_index=True)
    if "unit" in out.columns:
        out["unit"] = out["unit"].fillna("share")
    for c in REPORT_COLUMNS:
        if c not in out.columns:
            out[c] = None
    return integer_counts(out[REPORT_COLUMNS])
