"""The sections of ``simcli report``: game and deal summaries, per team-deal figures, the exact cut and the Spanish
records (the pony pickups are :mod:`simcli.stats.ponies`'), and :func:`run_report`, which joins them into one long
table. The deal sections read the deals table as a :class:`~simcli.stats.streams.DealSource`, a few columns at a
time, and summarise per-game sums (:mod:`simcli.stats.sums`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.confidence import CONFIDENCE
from simcli.stats.estimators import Rate, StatsError, cut_exact_probability, rate, rate_of
from simcli.stats.feet import handfoot_summary
from simcli.stats.metrics import STRATEGY_METRICS, Metric, metric
from simcli.stats.ponies import pony_summary
from simcli.stats.rows import label_grouping, report_groups
from simcli.stats.rows import mean_row as _mean_row
from simcli.stats.rows import mean_sums as _mean_sums
from simcli.stats.rows import rate_row as _rate_row
from simcli.stats.rows import rate_sums as _rate_sums
from simcli.stats.streams import (
    DealSource,
    Quantity,
    as_source,
    deal_source,
    reduce_deals,
    reduce_in_passes,
    team_sums,
)
from simcli.stats.summaries import observations, summarize
from simcli.stats.tables import (
    KEYS,
    RunLike,
    integer_counts,
    is_rotated,
    n_teams,
    rules_of,
    unit_clusters,
)
from simcli.stats.wins import win_rates

__all__ = [
    "game_summary", "deal_end_shares", "TEAM_DEAL_FIGURES", "team_deal_summary",
    "exact_cut_summary", "exact_cut_decided", "bonus_decided", "spanish_summary", "REPORT_COLUMNS", "SECTION_TITLES",
    "metric_rows", "run_report"
]


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


def deal_end_shares(deals: pd.DataFrame | DealSource) -> pd.DataFrame:
    """How deals end: shares of went_out, concealed (going out concealed) and stock_out, one obs per deal."""
    went_out, concealed, stock_out, turns = reduce_deals(as_source(deals), [
        Quantity(("end_reason",), lambda d: d["end_reason"] == "went_out", per="deal"),
        Quantity(("concealed",), lambda d: d["concealed"], per="any"),
        Quantity(("stock_out",), lambda d: d["stock_out"], per="deal"),
        Quantity(("turns",), lambda d: d["turns"], per="deal"),
    ])
    rotated = went_out.rotated  # a deal of a twin: the deals of one game index are one unit
    return integer_counts(pd.DataFrame([
        _rate_sums("went_out", "all deals", went_out, clustered=rotated),
        _rate_sums("concealed", "all deals", concealed, clustered=rotated),
        _rate_sums("stock_out", "all deals", stock_out, clustered=rotated),
        _mean_sums("deal_turns", "all deals", turns, None, "turns"),
    ]))


def _canastas(d: pd.DataFrame) -> Any:
    return d["canastas_natural"] + d["canastas_mixed"] + d["canastas_wild"]


def _cards_per_take(d: pd.DataFrame) -> Any:
    return d["pile_cards_taken"].to_numpy(float) / np.maximum(d["pile_takes"].to_numpy(float), 1)


#: The team-deal figures of the report: (metric, unit, quantity).
TEAM_DEAL_FIGURES: list[tuple[str, str, Quantity]] = [
    ("deal_score", "points", Quantity(("score_total",), lambda d: d["score_total"])),
    ("going_out_score", "points", Quantity(("score_total", "went_out"), lambda d: d["score_total"],
                                           lambda d: d["went_out"].astype(bool))),
    ("other_team_score", "points", Quantity(("score_total", "went_out"), lambda d: d["score_total"],
                                            lambda d: ~d["went_out"].astype(bool))),
    ("canastas", "canastas", Quantity(("canastas_natural", "canastas_mixed", "canastas_wild"), _canastas)),
    ("canastas_natural", "canastas", Quantity(("canastas_natural",), lambda d: d["canastas_natural"])),
    ("canastas_mixed", "canastas", Quantity(("canastas_mixed",), lambda d: d["canastas_mixed"])),
    ("canastas_wild", "canastas", Quantity(("canastas_wild",), lambda d: d["canastas_wild"])),
    ("red_threes", "cards", Quantity(("red_threes",), lambda d: d["red_threes"])),
    ("first_meld_turn", "turn", Quantity(("first_meld_turn",), lambda d: d["first_meld_turn"],
                                         lambda d: d["first_meld_turn"] >= 0)),
    ("pile_takes", "takes", Quantity(("pile_takes",), lambda d: d["pile_takes"])),
    ("pile_cards_taken", "cards", Quantity(("pile_cards_taken",), lambda d: d["pile_cards_taken"])),
    ("pile_cards_per_take", "cards", Quantity(("pile_cards_taken", "pile_takes"), _cards_per_take,
                                              lambda d: d["pile_takes"] > 0)),
    ("pile_take_max", "cards", Quantity(("pile_take_max", "pile_takes"), lambda d: d["pile_take_max"],
                                        lambda d: d["pile_takes"] > 0)),
]


def team_deal_summary(games: pd.DataFrame, deals: pd.DataFrame | DealSource, by: str = "team") -> pd.DataFrame:
    """Per team-deal: deal scores, canastas by type, red threes, first meld turn, pile takes and sizes.

    Each metric is given over all team-deals and per group (team, or the team's strategies with
    ``by='strategy'``); intervals are cluster-robust by game.
    """
    source = as_source(deals)
    grouping = label_grouping(games, source, "strategy" if by == "strategy" else "team")
    figures: list[tuple[str, str, Quantity]] = []
    for figure in TEAM_DEAL_FIGURES:
        figures.append(figure)
        if figure[0] == "first_meld_turn":  # the rate of never melding, after the turn of the first meld
            figures.append(("never_melded", "share", Quantity(("first_meld_turn",),
                                                              lambda d: d["first_meld_turn"] < 0)))
    rows: list[dict[str, Any]] = []
    groups: list[tuple[str, int | None]] = []
    rotated = False
    # Each figure's per-game sums are summarised as its pass ends and let go: a run of millions of games holds
    # the sums of a pass, not of every figure.
    for (name, unit, _), red in zip(figures, reduce_in_passes(source, [q for _, _, q in figures], grouping),
                                    strict=True):
        if not groups:
            groups, rotated = report_groups(red), red.rotated
        if name == "never_melded":
            rows += [_rate_sums(name, label, red, i, clustered=rotated) for label, i in groups]
        else:
            rows += [_mean_sums(name, label, red, i, unit) for label, i in groups]
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
    source = deal_source(run)
    (cuts,) = reduce_deals(source, [Quantity(("cut_exact",), lambda d: d["cut_exact"].astype(bool), per="deal",
                                             twins=True)])
    sums, counts, _ = cuts.group()
    freq = rate(int(sums.sum()), int(counts.sum()), "exact")
    return integer_counts(pd.DataFrame([
        _rate_row("exact_cut", "all deals", freq, expected=cut_exact_probability(sigma)),
        _rate_row("exact_cut_decided_game", "games with a winner", exact_cut_decided(run.games, source)),
        _rate_row("exact_cut_decided_net", "games with a winner", _decided_net(run)),
    ]))


def _decided_net(run: RunLike) -> Rate:
    """The ``exact_cut_decided_net`` metric's share, as a report row's rate (clustered by unit when rotated)."""
    obs = observations(run, metric("exact_cut_decided_net"))
    return rate_of(obs["value"].astype(bool), clusters=unit_clusters(obs))


def exact_cut_decided(games: pd.DataFrame, deals: pd.DataFrame | DealSource) -> Rate:
    """Share of games (with a single winner) whose margin is below the winner's exact-cut points."""
    return bonus_decided(games, deals, "score_exact_cut")


def bonus_decided(games: pd.DataFrame, deals: pd.DataFrame | DealSource, part: str) -> Rate:
    """Share of games (with a single winner) whose margin is below the points of score ``part`` the winner got."""
    g = games[games["winner_team"] >= 0][[*KEYS, "winner_team", "margin"]]
    teams = n_teams(games)
    wide = team_sums(as_source(deals), part, teams)
    pts = pd.concat([wide[KEYS].assign(team=t, pts=wide[t]) for t in range(teams)], ignore_index=True)
    m = g.astype({k: np.int64 for k in KEYS}).merge(pts, left_on=[*KEYS, "winner_team"], right_on=[*KEYS, "team"],
                                                      how="left")
    return rate_of(m["margin"] < m["pts"].fillna(0), clusters=unit_clusters(m))


def spanish_summary(run: RunLike, by: str = "team") -> pd.DataFrame:
    """Spanish records: hidden canastas, the premiado and crossed piles and how long they lasted, exact picks,
    canasta-count bonuses, black-three canastas, corte rápido and terremoto.

    Empty for runs without these columns, or whose rules have none of hidden canastas, a premiado pile or a
    face-down initial pile (the other variants).
    """
    games, source = run.games, deal_source(run)
    needed = ("hidden_canastas", "pile_premiado", "crossed_piles", "pick_exact", "black_three_canasta")
    if any(c not in source.columns for c in needed):
        return pd.DataFrame()
    rules = rules_of(run)
    spanish_rules = (rules.get("hidden_canasta_bonus", "null") not in ("null", "")
                     or rules.get("upcard_cover_effect") == "PREMIADO"
                     or int(float(rules.get("initial_pile_facedown", "0") or 0)) > 0)
    if not spanish_rules:
        return pd.DataFrame()
    rows = [*_spanish_team_rows(games, source, by), *_spanish_pile_rows(source)]
    went_out = ("end_reason",), lambda d: d["end_reason"] == "went_out"
    picks, targets, quick, quake = reduce_deals(source, [
        Quantity(("pick_exact",), lambda d: d["pick_exact"].astype(bool), per="deal", twins=True),
        Quantity(("pick_target",), lambda d: d["pick_target"] != 0, per="deal"),
        # one team per deal can go out: the share of deals ended by going out whose going-out team did it
        Quantity(("quick_finish", *went_out[0]), lambda d: d["quick_finish"].astype(bool), went_out[1], per="any"),
        Quantity(("terremoto", *went_out[0]), lambda d: d["terremoto"].astype(bool), went_out[1], per="any"),
    ])
    if targets.sums.any():
        sigma = float(rules.get("cut_sigma", "4") or 4)
        sums, counts, _ = picks.group()
        rows.append(_rate_row("exact_pick", "all deals", rate(int(sums.sum()), int(counts.sum()), "exact"),
                              expected=cut_exact_probability(sigma)))
        rows.append(_rate_row("exact_pick_decided_game", "games with a winner",
                              bonus_decided(games, source, "score_exact_pick")))
    rows.append(_rate_sums("quick_finish", "deals ended by going out", quick))
    rows.append(_rate_sums("terremoto", "deals ended by going out", quake))
    win3 = (games["black_three_canasta_win"].astype(bool) if "black_three_canasta_win" in games.columns
            else pd.Series(False, index=games.index))
    rows.append(_rate_row("black_three_canasta_win", "games", rate_of(win3, clusters=unit_clusters(games))))
    return integer_counts(pd.DataFrame(rows))


def _spanish_team_rows(games: pd.DataFrame, source: DealSource, by: str) -> list[dict[str, Any]]:
    """Per team-deal, over all and per group: hidden canastas, the five-canasta bonus, black-three canastas."""
    grouping = label_grouping(games, source, "strategy" if by == "strategy" else "team")
    hidden, bonus, black = reduce_deals(source, [
        Quantity(("hidden_canastas",), lambda d: d["hidden_canastas"]),
        Quantity(("score_canasta_count",), lambda d: d["score_canasta_count"] > 0),
        Quantity(("black_three_canasta",), lambda d: d["black_three_canasta"].astype(bool)),
    ], grouping)
    rotated = hidden.rotated  # the units of the team-deal rows (a game index, with twins)
    rows: list[dict[str, Any]] = []
    for label, i in report_groups(hidden):
        rows.append(_mean_sums("hidden_canastas", label, hidden, i, "canastas"))
        rows.append(_rate_sums("five_canasta_bonus", label, bonus, i, clustered=rotated))
        rows.append(_rate_sums("black_three_canasta", label, black, i, clustered=rotated))
    return rows


def _spanish_pile_rows(source: DealSource) -> list[dict[str, Any]]:
    """Per deal: the premiado pile (how often, never taken, turns until taken) and the piles crossed by a wild."""
    def premiado(d: pd.DataFrame) -> Any:
        return d["pile_premiado"].astype(bool)

    def taken(d: pd.DataFrame) -> Any:
        return premiado(d) & d["premiado_taken"].astype(bool)
    pile, never, turns, crossed, per_pile = reduce_deals(source, [
        Quantity(("pile_premiado",), premiado, per="deal"),
        Quantity(("pile_premiado", "premiado_taken"), lambda d: ~d["premiado_taken"].astype(bool), premiado,
                 per="deal"),
        Quantity(("pile_premiado", "premiado_taken", "premiado_turns"), lambda d: d["premiado_turns"], taken,
                 per="deal"),
        Quantity(("crossed_piles",), lambda d: d["crossed_piles"], per="deal"),
        Quantity(("crossed_piles", "crossed_turns"), lambda d: d["crossed_turns"] / d["crossed_piles"],
                 lambda d: d["crossed_piles"] > 0, per="deal"),
    ])
    rows = [_rate_sums("pile_premiado", "all deals", pile)]
    if pile.sums.any():
        rows.append(_rate_sums("premiado_never_taken", "premiado deals", never))
        rows.append(_mean_sums("premiado_turns", "premiado taken", turns, None, "turns"))
    rows.append(_mean_sums("crossed_piles", "all deals", crossed, None, "piles"))
    if per_pile.counts.any():
        rows.append(_mean_sums("crossed_turns_per_pile", "deals with a crossed pile", per_pile, None, "turns"))
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
    "handfoot": "Hand and Foot: contracts met, running and walking into the foot (per team and deal)",
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
    games = run.games
    if games.empty:
        raise StatsError("the run has no games")
    deals = deal_source(run)  # read a few columns at a time, each section adding up what it needs per game
    parts = {
        "win_rates": win_rates(games, by),
        "games": game_summary(games),
        "deal_end": deal_end_shares(deals),
        "team_deals": team_deal_summary(games, deals, by),
        "exact_cut": exact_cut_summary(run),
        "pony": pony_summary(deals),
        "spanish": spanish_summary(run, by),
        "handfoot": handfoot_summary(run, by),
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
