"""The metric registry: :class:`Metric`, how each metric's observations are extracted from a run, the built-in
:data:`METRICS`, the strategy-qualified metrics (``strategy_win:NAME``, ``pony_never:NAME``, ...) and the parsing of
``--metric`` lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcli.stats.estimators import StatsError
from simcli.stats.extracts import (
    any_in_deal,
    deal_values,
    expected_exact_cut,
    first_deal_wins,
    game_values,
    observation_frame,
    points_decided,
    score_difference,
    team_values,
    win_team,
)
from simcli.stats.ponies import pony_order_values, pony_pickups, pony_seat_values
from simcli.stats.tables import RunLike, n_teams, strategy_sides, twin_pairs

__all__ = [
    "Metric", "METRICS", "STRATEGY_METRICS", "SEAT_STRATEGY_METRICS", "QUALIFIED_METRICS",
    "strategy_metric", "seat_strategy_metric", "metric", "split_metric_names", "parse_metrics", "check_strategy_metrics"
]


@dataclass(frozen=True)
class Metric:
    """A quantity measured on a run.

    ``extract(run)`` returns a DataFrame with ``game_index``, ``rotation`` and ``value`` (one row per
    observation at ``level`` game, deal, team-deal or seat-deal). ``kind`` is ``rate`` (a share: 0/1 values, or
    scores in [0, 1] when ``binary`` is false, e.g. half a point for a tie) or ``mean``. ``expected(run)``, when
    set, is a model's value of the metric under the run's rules (the cut model's exact-cut probability).

    A metric of the deals table has an ``extract`` that names the columns it reads and adds its observations up
    per game as the deals are read (a :class:`~simcli.stats.extracts.DealExtract`); any other callable works too,
    over the run's whole tables.
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


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("win_team_0", "team 0 win rate", "share", "rate", "game", win_team(0),
           description="games won by team 0 (seats 0, 2)"),
    Metric("win_team_1", "team 1 win rate", "share", "rate", "game", win_team(1),
           description="games won by team 1 (seats 1, 3)"),
    Metric("first_player_win", "first-player team win rate", "share", "rate", "game",
           first_deal_wins("first_player_team"), description="the team that played first in deal 0 won the game"),
    Metric("dealer_win", "dealer team win rate", "share", "rate", "game", first_deal_wins("dealer_team"),
           description="the team that dealt deal 0 won the game"),
    Metric("margin", "final margin", "points", "mean", "game", game_values("margin"),
           description="winner's final total minus the runner-up's"),
    Metric("score_diff", "team 0 minus team 1 final score", "points", "mean", "game", score_difference),
    Metric("deals", "deals per game", "deals", "mean", "game", game_values("deals")),
    Metric("turns", "turns per game", "turns", "mean", "game", game_values("turns")),
    Metric("deal_turns", "turns per deal", "turns", "mean", "deal", deal_values("turns")),
    Metric("deal_score", "deal score per team", "points", "mean", "team-deal", team_values("score_total")),
    Metric("going_out_score", "deal score of the team going out", "points", "mean", "team-deal",
           team_values("score_total", lambda d: d["went_out"].astype(bool), ("went_out",))),
    Metric("went_out", "deals ended by going out", "share", "rate", "deal",
           deal_values("end_reason", lambda v: v == "went_out")),
    Metric("concealed", "deals ended by going out concealed", "share", "rate", "deal", any_in_deal("concealed")),
    Metric("stock_out", "deals ended on the stock", "share", "rate", "deal", deal_values("stock_out")),
    Metric("canastas", "canastas per team and deal", "canastas", "mean", "team-deal",
           team_values(("canastas_natural", "canastas_mixed", "canastas_wild"))),
    Metric("canastas_natural", "natural canastas per team and deal", "canastas", "mean", "team-deal",
           team_values("canastas_natural")),
    Metric("canastas_mixed", "mixed canastas per team and deal", "canastas", "mean", "team-deal",
           team_values("canastas_mixed")),
    Metric("canastas_wild", "wild canastas per team and deal", "canastas", "mean", "team-deal",
           team_values("canastas_wild")),
    Metric("red_threes", "red threes per team and deal", "cards", "mean", "team-deal", team_values("red_threes")),
    Metric("first_meld_turn", "turn of a team's first meld", "turn", "mean", "team-deal",
           team_values("first_meld_turn", lambda d: d["first_meld_turn"] >= 0),
           description="team-deals in which the team melded"),
    Metric("pile_takes", "pile takes per team and deal", "takes", "mean", "team-deal", team_values("pile_takes")),
    Metric("pile_cards_taken", "cards taken from the pile per team and deal", "cards", "mean", "team-deal",
           team_values("pile_cards_taken")),
    Metric("pile_take_max", "largest pile taken", "cards", "mean", "team-deal",
           team_values("pile_take_max", lambda d: d["pile_takes"] > 0, ("pile_takes",)),
           description="team-deals with at least one take"),
    Metric("exact_cut", "exact cuts", "share", "rate", "deal", deal_values("cut_exact", twins=True),
           interval="exact", expected=expected_exact_cut),
    Metric("exact_cut_decided_game", "games decided by the exact-cut points", "share", "rate", "game",
           points_decided("score_exact_cut", net=False),
           description="games with a winner whose margin is below the winner's exact-cut points (as the report)"),
    Metric("exact_cut_decided_net", "games decided by the net exact-cut points", "share", "rate", "game",
           points_decided("score_exact_cut", net=True),
           description="games with a winner that would not be alone in front without every team's exact-cut "
                       "points"),
    Metric("exact_cut_score", "exact-cut points per team and deal", "points", "mean", "team-deal",
           team_values("score_exact_cut")),
    Metric("pony_pickup", "pony pickup turn (when picked up)", "turn", "mean", "seat-deal", pony_pickups(),
           description="deals x seats in which the pony was picked up"),
    Metric("pony_never", "ponies never picked up", "share", "rate", "seat-deal", pony_seat_values(never=True),
           description="deals x seats in which the seat never picked up its pony"),
    Metric("pony_pickup_first", "turn of a team's first pony pickup", "turn", "mean", "team-deal",
           pony_order_values("first"), description="team-deals in which a partner picked up the pony"),
    Metric("pony_pickup_second", "turn of a team's second pony pickup", "turn", "mean", "team-deal",
           pony_order_values("second"), description="team-deals in which both partners picked up the pony"),
    Metric("pony_pickup_gap", "turns between partners' pony pickups", "turns", "mean", "team-deal",
           pony_order_values("gap"), description="second minus first pickup turn, team-deals with two pickups"),
    Metric("hidden_canastas", "hidden canastas per team and deal", "canastas", "mean", "team-deal",
           team_values("hidden_canastas"), description="Spanish: complete canastas laid from the hand at once"),
    Metric("crossed_piles", "piles crossed by a wild discard per deal", "piles", "mean", "deal",
           deal_values("crossed_piles")),
    Metric("exact_pick", "exact picks of the initial pile", "share", "rate", "deal",
           deal_values("pick_exact", twins=True), interval="exact", expected=expected_exact_cut),
    Metric("exact_pick_score", "exact-pick points per team and deal", "points", "mean", "team-deal",
           team_values("score_exact_pick")),
]}


STRATEGY_METRICS = ("strategy_win", "strategy_score")


SEAT_STRATEGY_METRICS = ("pony_pickup", "pony_never")  # NAME:STRATEGY: the seats playing STRATEGY


QUALIFIED_METRICS = STRATEGY_METRICS + SEAT_STRATEGY_METRICS


def _strategy_win(name: str, metric_name: str) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        g, team = strategy_sides(run.games, name, metric_name)
        w = g["winner_team"].to_numpy()
        return twin_pairs(observation_frame(g, np.where(w == team, 1.0, np.where(w < 0, 0.5, 0.0))))
    return extract


def _strategy_score(name: str, metric_name: str) -> Callable[[RunLike], pd.DataFrame]:
    def extract(run: RunLike) -> pd.DataFrame:
        g, team = strategy_sides(run.games, name, metric_name)
        scores = g[[f"score_team_{t}" for t in range(n_teams(g))]].to_numpy(float)
        own = scores[np.arange(len(g)), team]
        others = scores.copy()
        others[np.arange(len(g)), team] = -np.inf
        return twin_pairs(observation_frame(g, own - others.max(axis=1)))
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
                  pony_seat_values(never=kind == "pony_never", who=who, metric_name=full),
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
