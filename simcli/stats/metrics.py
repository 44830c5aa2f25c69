"""The metric registry: :class:`Metric`, how each metric's observations are extracted from a run, the built-in
:data:`METRICS`, the strategy-qualified metrics (``strategy_win:NAME``, ``pony_never:NAME``, ...) and the parsing of
``--metric`` lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcli.stats.estimators import StatsError, cut_exact_probability
from simcli.stats.tables import (
    DEAL_KEYS,
    KEYS,
    PONY_PREFIX,
    RunLike,
    n_seats,
    n_teams,
    one_per_deal,
    pony_columns,
    pony_per_deal,
    rules_of,
    run_strategies,
    strategy_sides,
    twin_deals,
    twin_pairs,
)
from simcli.stats.wins import first_deal_team_wins

__all__ = [
    "Metric", "pony_seat_deals", "METRICS", "STRATEGY_METRICS", "SEAT_STRATEGY_METRICS", "QUALIFIED_METRICS",
    "strategy_metric", "seat_strategy_metric", "metric", "split_metric_names", "parse_metrics", "check_strategy_metrics"
]


@dataclass(frozen=True)
class Metric:
    """A quantity measured on a run.

    ``extract(run)`` returns a DataFrame with ``game_index``, ``rotation`` and ``value`` (one row per
    observation at ``level`` game, deal, team-deal or seat-deal). ``kind`` is ``rate`` (a share: 0/1 values, or
    scores in [0, 1] when ``binary`` is false, e.g. half a point for a tie) or ``mean``. ``expected(run)``, when
    set, is a model's value of the metric under the run's rules (the cut model's exact-cut probability).
    """

    name: str
    label: str
    unit: str
    kind: str
    level: str
    extract: Callable[[RunLike], pd.DataFrame]
    interval: str = "wilson"
    description: str = ""
    binary: bool = True
    expected: Callable[[RunLike], float] | None = None


def _obs(df: pd.DataFrame, values: Any) -> pd.DataFrame:
    out = df[KEYS].copy()
    out["value"] = np.asarray(values, dtype=float)
    return out.reset_index(drop=True)


def _games(col: str) -> Callable[[RunLike], pd.DataFrame]:
    return lambda run: _obs(run.games, run.games[col])


def _team_deals(col: str, where: Callable[[pd.DataFrame], pd.Series] | None = None
                ) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        d = run.deals
        if where is not None:
            d = d[where(d)]
        return _obs(d, d[col])
    return extract


def _deals(fn: Callable[[pd.DataFrame], Any], same_in_twins: bool = False) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        d = one_per_deal(run.deals)
        if same_in_twins:
            d = twin_deals(d)
        return _obs(d, fn(d))
    return extract


def _win_team(t: int) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        if t >= n_teams(run.games):
            raise StatsError(f"metric win_team_{t}: the run has {n_teams(run.games)} teams")
        return _obs(run.games, run.games["winner_team"] == t)
    return extract


def _first_deal(column: str) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        won = first_deal_team_wins(run.games, run.deals, column)
        return _obs(won.index.to_frame(index=False), won.to_numpy())
    return extract


def _score_diff(run: RunLike) -> pd.DataFrame:
    return _obs(run.games, run.games["score_team_0"] - run.games["score_team_1"])


def _deal_concealed(run: RunLike) -> pd.DataFrame:
    any_conc = run.deals.groupby(DEAL_KEYS, sort=True)["concealed"].any().reset_index()
    return _obs(any_conc, any_conc["concealed"])


def _pony(run: RunLike) -> pd.DataFrame:
    cols = pony_columns(run.deals)
    if not cols:
        raise StatsError("metric pony_pickup: the deals table has no pony_pickup_turn_seat_* columns")
    long = pony_per_deal(run.deals)[KEYS + cols].melt(id_vars=KEYS, value_name="value")
    long = long[long["value"] >= 0]
    return _obs(long, long["value"])


def _canastas(d: pd.DataFrame) -> pd.Series:
    return d["canastas_natural"] + d["canastas_mixed"] + d["canastas_wild"]


def _cut_expected(run: RunLike) -> float:
    """The cut model's exact-cut (or exact-pick) probability under the run's ``cut_sigma``."""
    return cut_exact_probability(float(rules_of(run).get("cut_sigma", "4") or 4))


def _decided(part: str, net: bool) -> Callable[[RunLike], pd.DataFrame]:
    """Per game with a single winner: did the points of score ``part`` decide it?

    ``net=False`` (as the report's ``exact_cut_decided_game``): the winner's margin is below the points the winner
    received. ``net=True``: the winner would not be alone in front without every team's points of ``part``, i.e.
    its total minus its points is below some other team's total minus that team's points (with two teams:
    the margin is below the winner's points minus the loser's).
    """
    def extract(run: RunLike) -> pd.DataFrame:
        games = run.games
        g = games[games["winner_team"] >= 0]
        teams = n_teams(games)
        pts = (run.deals.groupby([*KEYS, "team"])[part].sum().unstack("team")
               .reindex(columns=range(teams)).fillna(0))
        pts = g[KEYS].merge(pts.reset_index(), on=KEYS, how="left").fillna(0)
        own_pts = pts[list(range(teams))].to_numpy(float)
        rows = np.arange(len(g))
        winner = g["winner_team"].to_numpy(int)
        if not net:
            return _obs(g, g["margin"].to_numpy(float) < own_pts[rows, winner])
        totals = g[[f"score_team_{t}" for t in range(teams)]].to_numpy(float) - own_pts
        others = totals.copy()
        others[rows, winner] = -np.inf
        return _obs(g, totals[rows, winner] < others.max(axis=1))
    return extract


def pony_seat_deals(run: RunLike) -> pd.DataFrame:
    """One row per deal and seat: ``game_index``, ``rotation``, ``deal_index``, ``seat``, ``team``, ``strategy`` (the
    seat's strategy in that game) and ``turn`` (the pony pickup turn, -1 never, NaN when not recorded)."""
    cols = pony_columns(run.deals)
    if not cols:
        raise StatsError("pony metrics: the deals table has no pony_pickup_turn_seat_* columns")
    long = pony_per_deal(run.deals)[DEAL_KEYS + cols].melt(id_vars=DEAL_KEYS, var_name="column", value_name="turn")
    long["seat"] = long["column"].str.slice(len(PONY_PREFIX)).astype(int)
    games = run.games
    strat = games[KEYS + [f"strategy_seat_{s}" for s in range(n_seats(games))]].melt(
        id_vars=KEYS, var_name="column", value_name="strategy")
    strat["seat"] = strat["column"].str.slice(len("strategy_seat_")).astype(int)
    long = long.merge(strat[[*KEYS, "seat", "strategy"]], on=[*KEYS, "seat"], how="left")
    long["team"] = long["seat"] % max(n_teams(games), 1)
    return (long.sort_values([*DEAL_KEYS, "seat"]).reset_index(drop=True)
            [[*DEAL_KEYS, "seat", "team", "strategy", "turn"]])


def _pony_seats(never: bool, who: str | None = None, metric_name: str = "") -> Callable[[RunLike], pd.DataFrame]:
    """Seat-deal observations: the pickup turn (seat-deals with a pickup) or ``never`` (1 = not picked up), of
    every seat or of the seats playing strategy ``who``."""
    def extract(run: RunLike) -> pd.DataFrame:
        d = pony_seat_deals(run)
        d = d[d["turn"].notna()]
        if who is not None:
            present = run_strategies(run.games)
            if who not in present:
                raise StatsError(f"metric {metric_name}: strategy '{who}' is not in the run; "
                                 f"its strategies: {', '.join(present) or 'none'}")
            d = d[d["strategy"].astype(str) == who]
        if never:
            return _obs(d, d["turn"] < 0)
        d = d[d["turn"] >= 0]
        return _obs(d, d["turn"])
    return extract


def _pony_order(which: str) -> Callable[[RunLike], pd.DataFrame]:
    """Team-deal observations of partner order: the turn of the team's ``first`` or ``second`` pony pickup, or the
    ``gap`` between them (team-deals with at least one, or with two, pickups)."""
    def extract(run: RunLike) -> pd.DataFrame:
        d = pony_seat_deals(run)
        d = d[d["turn"] >= 0].sort_values([*DEAL_KEYS, "team", "turn"])
        d["order"] = d.groupby([*DEAL_KEYS, "team"]).cumcount()
        first = d[d["order"] == 0].set_index([*DEAL_KEYS, "team"])["turn"]
        if which == "first":
            return _obs(first.reset_index(), first.to_numpy())
        second = d[d["order"] == 1].set_index([*DEAL_KEYS, "team"])["turn"]
        if which == "second":
            return _obs(second.reset_index(), second.to_numpy())
        gap = (second - first.reindex(second.index)).reset_index()
        return _obs(gap, gap["turn"])
    return extract


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("win_team_0", "team 0 win rate", "share", "rate", "game", _win_team(0),
           description="games won by team 0 (seats 0, 2)"),
    Metric("win_team_1", "team 1 win rate", "share", "rate", "game", _win_team(1),
           description="games won by team 1 (seats 1, 3)"),
    Metric("first_player_win", "first-player team win rate", "share", "rate", "game",
           _first_deal("first_player_team"), description="the team that played first in deal 0 won the game"),
    Metric("dealer_win", "dealer team win rate", "share", "rate", "game", _first_deal("dealer_team"),
           description="the team that dealt deal 0 won the game"),
    Metric("margin", "final margin", "points", "mean", "game", _games("margin"),
           description="winner's final total minus the runner-up's"),
    Metric("score_diff", "team 0 minus team 1 final score", "points", "mean", "game", _score_diff),
    Metric("deals", "deals per game", "deals", "mean", "game", _games("deals")),
    Metric("turns", "turns per game", "turns", "mean", "game", _games("turns")),
    Metric("deal_turns", "turns per deal", "turns", "mean", "deal", _deals(lambda d: d["turns"])),
    Metric("deal_score", "deal score per team", "points", "mean", "team-deal", _team_deals("score_total")),
    Metric("going_out_score", "deal score of the team going out", "points", "mean", "team-deal",
           _team_deals("score_total", lambda d: d["went_out"].astype(bool))),
    Metric("went_out", "deals ended by going out", "share", "rate", "deal",
           _deals(lambda d: d["end_reason"] == "went_out")),
    Metric("concealed", "deals ended by going out concealed", "share", "rate", "deal", _deal_concealed),
    Metric("stock_out", "deals ended on the stock", "share", "rate", "deal", _deals(lambda d: d["stock_out"])),
    Metric("canastas", "canastas per team and deal", "canastas", "mean", "team-deal",
           lambda run: _obs(run.deals, _canastas(run.deals))),
    Metric("canastas_natural", "natural canastas per team and deal", "canastas", "mean", "team-deal",
           _team_deals("canastas_natural")),
    Metric("canastas_mixed", "mixed canastas per team and deal", "canastas", "mean", "team-deal",
           _team_deals("canastas_mixed")),
    Metric("canastas_wild", "wild canastas per team and deal", "canastas", "mean", "team-deal",
           _team_deals("canastas_wild")),
    Metric("red_threes", "red threes per team and deal", "cards", "mean", "team-deal", _team_deals("red_threes")),
    Metric("first_meld_turn", "turn of a team's first meld", "turn", "mean", "team-deal",
           _team_deals("first_meld_turn", lambda d: d["first_meld_turn"] >= 0),
           description="team-deals in which the team melded"),
    Metric("pile_takes", "pile takes per team and deal", "takes", "mean", "team-deal", _team_deals("pile_takes")),
    Metric("pile_cards_taken", "cards taken from the pile per team and deal", "cards", "mean", "team-deal",
           _team_deals("pile_cards_taken")),
    Metric("pile_take_max", "largest pile taken", "cards", "mean", "team-deal",
           _team_deals("pile_take_max", lambda d: d["pile_takes"] > 0),
           description="team-deals with at least one take"),
    Metric("exact_cut", "exact cuts", "share", "rate", "deal", _deals(lambda d: d["cut_exact"], True),
           interval="exact", expected=_cut_expected),
    Metric("exact_cut_decided_game", "games decided by the exact-cut points", "share", "rate", "game",
           _decided("score_exact_cut", net=False),
           description="games with a winner whose margin is below the winner's exact-cut points (as the report)"),
    Metric("exact_cut_decided_net", "games decided by the net exact-cut points", "share", "rate", "game",
           _decided("score_exact_cut", net=True),
           description="games with a winner that would not be alone in front without every team's exact-cut "
                       "points"),
    Metric("exact_cut_score", "exact-cut points per team and deal", "points", "mean", "team-deal",
           _team_deals("score_exact_cut")),
    Metric("pony_pickup", "pony pickup turn (when picked up)", "turn", "mean", "seat-deal", _pony,
           description="deals x seats in which the pony was picked up"),
    Metric("pony_never", "ponies never picked up", "share", "rate", "seat-deal", _pony_seats(never=True),
           description="deals x seats in which the seat never picked up its pony"),
    Metric("pony_pickup_first", "turn of a team's first pony pickup", "turn", "mean", "team-deal",
           _pony_order("first"), description="team-deals in which a partner picked up the pony"),
    Metric("pony_pickup_second", "turn of a team's second pony pickup", "turn", "mean", "team-deal",
           _pony_order("second"), description="team-deals in which both partners picked up the pony"),
    Metric("pony_pickup_gap", "turns between partners' pony pickups", "turns", "mean", "team-deal",
           _pony_order("gap"), description="second minus first pickup turn, team-deals with two pickups"),
    Metric("hidden_canastas", "hidden canastas per team and deal", "canastas", "mean", "team-deal",
           _team_deals("hidden_canastas"), description="Spanish: complete canastas laid from the hand at once"),
    Metric("crossed_piles", "piles crossed by a wild discard per deal", "piles", "mean", "deal",
           _deals(lambda d: d["crossed_piles"])),
    Metric("exact_pick", "exact picks of the initial pile", "share", "rate", "deal",
           _deals(lambda d: d["pick_exact"], True), interval="exact", expected=_cut_expected),
    Metric("exact_pick_score", "exact-pick points per team and deal", "points", "mean", "team-deal",
           _team_deals("score_exact_pick")),
]}


STRATEGY_METRICS = ("strategy_win", "strategy_score")


SEAT_STRATEGY_METRICS = ("pony_pickup", "pony_never")  # NAME:STRATEGY: the seats playing STRATEGY


QUALIFIED_METRICS = STRATEGY_METRICS + SEAT_STRATEGY_METRICS


def _strategy_win(name: str, metric_name: str) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        g, team = strategy_sides(run.games, name, metric_name)
        w = g["winner_team"].to_numpy()
        return twin_pairs(_obs(g, np.where(w == team, 1.0, np.where(w < 0, 0.5, 0.0))))
    return extract


def _strategy_score(name: str, metric_name: str) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        g, team = strategy_sides(run.games, name, metric_name)
        scores = g[[f"score_team_{t}" for t in range(n_teams(g))]].to_numpy(float)
        own = scores[np.arange(len(g)), team]
        others = scores.copy()
        others[np.arange(len(g)), team] = -np.inf
        return twin_pairs(_obs(g, own - others.max(axis=1)))
    return extract


def strategy_metric(name: str) -> Metric:
    """``strategy_win:NAME`` or ``strategy_score:NAME`` (NAME is a strategy as the run names it, options included).

    Over the games in which NAME sits on exactly one team: ``strategy_win`` scores 1 when NAME's team wins,
    1/2 for a shared win, 0 otherwise; ``strategy_score`` is NAME's team's final total minus the best other
    team's. In a rotated run the observation is the pair of twins (their mean: the duplicate score).
    """
    kind, _, who = name.partition(":")
    who = who.strip()
    if kind not in STRATEGY_METRICS or not who:
        raise StatsError(f"bad metric '{name}'; expected strategy_win:NAME or strategy_score:NAME")
    full = f"{kind}:{who}"
    if kind == "strategy_win":
        return Metric(full, f"{who} win share", "share", "rate", "game", _strategy_win(who, full),
                      description=f"games won by the team playing {who} (a shared win counts 1/2; "
                                  "per pair of twins in a rotated run)", binary=False)
    return Metric(full, f"{who} score margin", "points", "mean", "game", _strategy_score(who, full),
                  description=f"final total of the team playing {who} minus its opponents' (per pair of twins "
                              "in a rotated run)")


def seat_strategy_metric(name: str) -> Metric:
    """``pony_pickup:NAME`` or ``pony_never:NAME``: the pony metric over the seat-deals of the seats playing NAME."""
    kind, _, who = name.partition(":")
    who = who.strip()
    if kind not in SEAT_STRATEGY_METRICS or not who:
        raise StatsError(f"bad metric '{name}'; expected pony_pickup:NAME or pony_never:NAME")
    full = f"{kind}:{who}"
    base = METRICS[kind]
    return Metric(full, f"{base.label}, {who}", base.unit, base.kind, base.level,
                  _pony_seats(never=kind == "pony_never", who=who, metric_name=full),
                  description=f"{base.description}, seats playing {who}")


def metric(name: str) -> Metric:
    """Look a metric up by name (or ``strategy_win:NAME`` / ``strategy_score:NAME`` / ``pony_pickup:NAME`` /
    ``pony_never:NAME``); an unknown name fails with one line listing the allowed names."""
    name = name.strip()
    kind, colon, _ = name.partition(":")
    if kind in STRATEGY_METRICS:
        return strategy_metric(name)
    if colon and kind in SEAT_STRATEGY_METRICS:
        return seat_strategy_metric(name)
    found = METRICS.get(name)
    if found is None:
        raise StatsError(f"unknown metric '{name}'; allowed: {', '.join(METRICS)}, "
                         f"{':NAME, '.join(QUALIFIED_METRICS)}:NAME")
    return found


def split_metric_names(text: str) -> list[str]:
    """Metric names from ``a,b,strategy_win:mc:samples=32,depth=2``: a ``key=value`` piece without a colon after a
    strategy metric continues that strategy's options (as in ``--strategies``)."""
    names: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if (names and "=" in piece and ":" not in piece and ":" in names[-1]
                and names[-1].partition(":")[0] in QUALIFIED_METRICS):
            names[-1] += "," + piece
        else:
            names.append(piece)
    return names


def parse_metrics(text: str | Sequence[str] | None, default: Sequence[str]) -> list[Metric]:
    """Metrics from a comma-separated string or a list (repeatable options), or ``default``."""
    if text is None or (not isinstance(text, str) and not text):
        names = list(default)
    else:
        parts = [text] if isinstance(text, str) else list(text)
        names = [n for p in parts for n in split_metric_names(p)]
    return [metric(n) for n in dict.fromkeys(names)]


def check_strategy_metrics(metrics: Sequence[Metric], strategies: Sequence[str]) -> None:
    """Before playing: every ``strategy_*:NAME`` (``pony_*:NAME``) metric must name one of ``strategies``
    (one-line error)."""
    for m in metrics:
        kind, colon, who = m.name.partition(":")
        if colon and kind in QUALIFIED_METRICS and who not in strategies:
            raise StatsError(f"metric {m.name}: strategy '{who}' is not in the run; its strategies: "
                             + ", ".join(sorted(set(strategies))))
