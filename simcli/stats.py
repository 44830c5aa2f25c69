"""Statistics over run tables: intervals, run summaries, paired and unpaired comparisons.

Pure functions over the ``games`` / ``deals`` DataFrames of ``docs/results-format.md``; the ``report``,
``compare``, ``sweep``, ``plot`` and ``balance`` commands call the same functions. Every rate comes
with ``n``, ``k``, ``rate``, ``ci_low``, ``ci_high`` and every mean with ``n`` and its interval (95% by
default). The methods are documented in ``docs/analysis.md``.

Units of observation:

* **game** -- one row of ``games`` (a game and rotation).
* **deal** -- one observation per deal (the team-0 row of ``deals``).
* **team-deal** -- one row of ``deals`` (a team's result in a deal).

The independent **unit** is the ``game_index``: without ``--rotate-seats`` a game, with it a game and its
seat-swapped twin (same deals, partnerships swapped), whose results are correlated. Deals of one game are not
independent either (scores carry over), so means over deals and team-deals use a cluster-robust standard error
with the unit as cluster; in a rotated run means and rates over games do too (rates with a Wilson interval on
the design-effect sample size). Rates over deals of a run without rotation use Wilson (or Clopper-Pearson)
intervals with the deal as the trial; the exact cut and pick are the same in both twins of a deal, so a rotated
run counts each such deal once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd
from scipy import stats as st

CONFIDENCE = 0.95
KEYS = ["game_index", "rotation"]
DEAL_KEYS = ["game_index", "rotation", "deal_index"]
PONY_PREFIX = "pony_pickup_turn_seat_"
QUANTILES = {"q05": 0.05, "q25": 0.25, "median": 0.5, "q75": 0.75, "q95": 0.95}


class StatsError(ValueError):
    """Bad input to a statistic: unknown metric, runs that cannot be paired, missing columns."""


class RunLike(Protocol):
    """What the statistics need from a run (:class:`simcli.results.Run` fits)."""

    games: pd.DataFrame
    deals: pd.DataFrame
    manifest: dict[str, Any]


# ----------------------------------------------------------------------------------------- intervals
def _floats(values: Iterable[Any]) -> pd.Series:
    """Values as a float Series with a fresh 0..n-1 index (positions, not labels, align with clusters)."""
    arr = values.to_numpy() if isinstance(values, pd.Series) else values
    return pd.Series(np.asarray(arr if isinstance(arr, np.ndarray) else list(arr), dtype=float))


def _z(confidence: float) -> float:
    return float(st.norm.ppf(0.5 + confidence / 2))


def wilson_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``k/n`` (``(nan, nan)`` when ``n == 0``)."""
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 <= k <= n:
        raise StatsError(f"k={k} is not between 0 and n={n}")
    z = _z(confidence)
    p = k / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, center - half)
    high = 1.0 if k == n else min(1.0, center + half)
    return (low, high)


def clopper_pearson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for ``k/n`` via ``scipy.stats.binomtest`` (``(nan, nan)`` if ``n == 0``)."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = st.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="exact")
    return (float(ci.low), float(ci.high))


@dataclass(frozen=True)
class Rate:
    """A proportion ``k/n`` with its interval."""

    n: int
    k: int | None
    rate: float
    ci_low: float
    ci_high: float
    method: str = "wilson"
    n_units: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (``rate`` also as ``value``; ``n_units`` defaults to ``n``)."""
        d = asdict(self)
        d["value"] = self.rate
        if d["n_units"] is None:
            d["n_units"] = self.n
        return d


def rate(k: int, n: int, method: str = "wilson", confidence: float = CONFIDENCE) -> Rate:
    """``k/n`` with a Wilson (``method='wilson'``) or Clopper-Pearson (``'exact'``) interval."""
    k, n = int(k), int(n)
    if method == "wilson":
        low, high = wilson_interval(k, n, confidence)
    elif method == "exact":
        low, high = clopper_pearson(k, n, confidence)
    else:
        raise StatsError(f"unknown interval method '{method}'; allowed: wilson, exact")
    return Rate(n=n, k=k, rate=k / n if n else math.nan, ci_low=low, ci_high=high,
                method="wilson" if method == "wilson" else "clopper-pearson")


def rate_of(flags: Iterable[Any], method: str = "wilson", confidence: float = CONFIDENCE,
            clusters: Iterable[Any] | None = None) -> Rate:
    """The share of true values among ``flags`` (missing values dropped) with its interval.

    With ``clusters`` (one unit id per flag, e.g. the ``game_index`` of a rotated run) the interval is
    :func:`cluster_rate`'s: correlated observations of one unit count as less than independent trials.
    """
    if clusters is not None:
        s = pd.Series(list(flags) if not isinstance(flags, pd.Series) else flags.to_numpy())
        keep = s.notna().to_numpy()
        return cluster_rate(s[keep].astype(bool).astype(float), np.asarray(_ids(clusters))[keep], method,
                            confidence)
    s = pd.Series(list(flags) if not isinstance(flags, pd.Series) else flags).dropna()
    return rate(int(s.astype(bool).sum()), len(s), method, confidence)


def _ids(clusters: Iterable[Any]) -> np.ndarray:
    """Cluster ids as a numpy array (positions, not index labels)."""
    if isinstance(clusters, np.ndarray):
        return clusters
    return np.asarray(clusters.to_numpy() if isinstance(clusters, pd.Series | pd.Index) else list(clusters))


def _wilson(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p`` observed on a (possibly fractional, effective) ``n``."""
    z = _z(confidence)
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def _clopper_pearson_float(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Clopper-Pearson bounds (beta quantiles) for ``k = p n`` successes in an effective ``n`` trials."""
    alpha, k = 1 - confidence, p * n
    low = 0.0 if k <= 0 else float(st.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k >= n else float(st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return (low, high)


def cluster_rate(values: Iterable[float], clusters: Iterable[Any] | None = None, method: str = "wilson",
                 confidence: float = CONFIDENCE) -> Rate:
    """A share with an interval that respects units: clustered 0/1 outcomes, or scores in [0, 1] (half points).

    ``values`` are 0/1 outcomes or scores between 0 and 1 (a tie as 0.5; a pair of twins as their mean);
    ``clusters`` gives each value's unit (``None``: every value is its own unit). The variance of the share
    is the cluster-robust one of :func:`mean_interval`, ``G/(G-1) * sum_g(sum_{i in g}(y_i - p))^2 / n^2``
    over the ``G`` units, and the interval is Wilson's (``method='exact'``: Clopper-Pearson's) on the
    design-effect sample size ``n_eff = p (1 - p) / var``, the number of independent trials that would give
    that variance (Kish). A share of 0 or 1 uses ``n_eff = G``; a share that is the same in every unit (zero
    variance, 0 < p < 1) gives the interval ``[p, p]``. ``k`` is the count for 0/1 outcomes, else ``None``;
    ``n_units`` is ``G``. 0/1 outcomes without clusters give exactly :func:`rate`.
    """
    if method not in ("wilson", "exact"):
        raise StatsError(f"unknown interval method '{method}'; allowed: wilson, exact")
    y = _floats(values).to_numpy()
    g = None if clusters is None else _ids(clusters)
    if g is not None and len(g) != len(y):
        raise StatsError(f"{len(y)} values but {len(g)} cluster ids")
    keep = ~np.isnan(y)
    y = y[keep]
    if ((y < 0) | (y > 1)).any():
        raise StatsError("a share needs values between 0 and 1")
    n = len(y)
    binary = bool(np.all((y == 0) | (y == 1)))
    k = int(y.sum()) if binary else None
    if g is None and binary:
        return rate(int(y.sum()), n, method, confidence)
    codes, uniques = pd.factorize(g[keep]) if g is not None else (np.arange(n), np.arange(n))
    units = len(uniques)
    name = "wilson-cluster" if method == "wilson" else "clopper-pearson-cluster"
    if n == 0 or units < 2:
        return Rate(n, k, float(y.mean()) if n else math.nan, math.nan, math.nan, name, units)
    p = float(y.mean())
    resid = np.bincount(codes, weights=y - p, minlength=units)
    var = units / (units - 1) * float((resid ** 2).sum()) / n ** 2
    if p in (0.0, 1.0):
        n_eff: float = units
    elif var <= 1e-15:  # every unit scores the same
        return Rate(n, k, p, p, p, name, units)
    else:
        n_eff = p * (1 - p) / var
    low, high = _wilson(p, n_eff, confidence) if method == "wilson" else _clopper_pearson_float(p, n_eff, confidence)
    return Rate(n, k, p, low, high, name, units)


@dataclass(frozen=True)
class Mean:
    """A mean with its t-interval (cluster-robust when ``clusters`` is set)."""

    n: int
    mean: float
    sd: float
    ci_low: float
    ci_high: float
    method: str = "t"
    clusters: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (``mean`` also as ``value``; ``n_units``: the clusters, else ``n``)."""
        d = asdict(self)
        d["value"] = self.mean
        d["n_units"] = self.n if self.clusters is None else self.clusters
        return d


def mean_interval(values: Iterable[float], clusters: Iterable[Any] | None = None,
                  confidence: float = CONFIDENCE) -> Mean:
    """Mean of ``values`` with a t-interval (n-1 df); with ``clusters`` a cluster-robust interval (G-1 df).

    The cluster-robust variance of the mean is ``G/(G-1) * sum_g(sum_{i in g}(y_i - mean))^2 / n^2``; with
    one observation per cluster it equals the usual ``s^2/n``. Missing values are dropped.
    """
    y = _floats(values).to_numpy()
    g = None if clusters is None else _ids(clusters)
    if g is not None and len(g) != len(y):
        raise StatsError(f"{len(y)} values but {len(g)} cluster ids")
    keep = ~np.isnan(y)
    y = y[keep]
    n = len(y)
    if n == 0:
        return Mean(0, math.nan, math.nan, math.nan, math.nan)
    m = float(y.mean())
    sd = float(y.std(ddof=1)) if n > 1 else math.nan
    if g is None:
        if n < 2:
            return Mean(n, m, sd, math.nan, math.nan)
        se, df, method, n_clusters = sd / math.sqrt(n), n - 1, "t", None
    else:
        codes, uniques = pd.factorize(g[keep])
        n_clusters = len(uniques)
        if n_clusters < 2:
            return Mean(n, m, sd, math.nan, math.nan, "t-cluster", n_clusters)
        resid = np.bincount(codes, weights=y - m, minlength=n_clusters)
        var = n_clusters / (n_clusters - 1) * float((resid ** 2).sum()) / n ** 2
        se, df, method = math.sqrt(var), n_clusters - 1, "t-cluster"
    half = float(st.t.ppf(0.5 + confidence / 2, df)) * se
    return Mean(n, m, sd, m - half, m + half, method, n_clusters)


def quantiles(values: Iterable[float], qs: dict[str, float] | None = None) -> dict[str, float]:
    """Named quantiles (default q05, q25, median, q75, q95) plus ``min`` and ``max``; NaN for no data."""
    y = _floats(values).dropna()
    qs = QUANTILES if qs is None else qs
    if y.empty:
        return {"min": math.nan, **{k: math.nan for k in qs}, "max": math.nan}
    return {"min": float(y.min()), **{k: float(y.quantile(q)) for k, q in qs.items()}, "max": float(y.max())}


def describe(values: Iterable[float], clusters: Iterable[Any] | None = None,
             confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Mean with interval, sd and quantiles of ``values`` as one flat dict."""
    values = _floats(values)
    return {**mean_interval(values, clusters, confidence).as_dict(), **quantiles(values)}


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (same order as given; NaN stays NaN)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(len(p), math.nan)
    idx = [i for i in np.argsort(p, kind="stable") if not math.isnan(p[i])]
    m = len(idx)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out.tolist()


# ------------------------------------------------------------------------------------ table helpers
def n_teams(games: pd.DataFrame) -> int:
    """Number of teams in a games table (from its ``score_team_*`` columns)."""
    return len([c for c in games.columns if re.fullmatch(r"score_team_\d+", c)])


def n_seats(games: pd.DataFrame) -> int:
    """Number of seats in a games table (from its ``strategy_seat_*`` columns)."""
    return len([c for c in games.columns if re.fullmatch(r"strategy_seat_\d+", c)])


def team_seats(games: pd.DataFrame, team: int) -> list[int]:
    """Seats of ``team`` (seat ``s`` plays for team ``s % n_teams``)."""
    t = n_teams(games)
    return [s for s in range(n_seats(games)) if s % t == team]


def team_strategy_label(games: pd.DataFrame, team: int) -> pd.Series:
    """Per game, the strategies of ``team``'s seats joined by '+' (duplicates once, in seat order)."""
    cols = [f"strategy_seat_{s}" for s in team_seats(games, team)]
    codes, combos = pd.factorize(pd.Series(list(zip(*(games[c].astype(str) for c in cols), strict=True))))
    labels = np.array(["+".join(dict.fromkeys(combo)) for combo in combos], dtype=object)
    return pd.Series(labels[codes], index=games.index)


def one_per_deal(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per deal: the team-0 rows (deal-level columns repeat on every team's row)."""
    if "team" in deals.columns:
        return deals[deals["team"] == 0].reset_index(drop=True)
    return deals.drop_duplicates(DEAL_KEYS).reset_index(drop=True)


def game_cluster(df: pd.DataFrame) -> pd.Series:
    """A cluster id per row: its unit, the ``game_index`` (a game and its seat-swapped twin form one unit)."""
    return df["game_index"].astype(np.int64)


def is_rotated(df: pd.DataFrame) -> bool:
    """Whether a table holds seat-swapped twins (rows of ``rotation`` 1, from ``--rotate-seats``)."""
    return "rotation" in df.columns and bool((df["rotation"] != 0).any())


def unit_clusters(df: pd.DataFrame) -> pd.Series | None:
    """The unit (``game_index``) of each row of a rotated table, for twin-aware intervals; ``None`` without twins.

    Without rotation the games are independent and the usual one-observation-per-trial intervals apply.
    """
    return game_cluster(df) if is_rotated(df) else None


def twin_deals(per_deal: pd.DataFrame) -> pd.DataFrame:
    """Deals counted once per ``(game_index, deal_index)``: the twins of a rotated run are dealt the same cards
    and cuts (one random stream per game), so a cut or pick outcome repeats in both; the other rows stay."""
    if not is_rotated(per_deal):
        return per_deal
    # rotation 0 for the kept rows: each is now one independent deal, not one of a pair of twins
    return (per_deal.drop_duplicates(["game_index", "deal_index"], keep="first").reset_index(drop=True)
            .assign(rotation=0))


def rules_of(run: RunLike) -> dict[str, str]:
    """The run's rule knobs as formatted strings (from ``run.json``)."""
    return dict(run.manifest.get("rules") or {})


def cut_exact_probability(sigma: float) -> float:
    """P(exact cut) under the human cut model: ``2 Phi(0.5/sigma) - 1`` (1 for ``sigma == 0``)."""
    return 1.0 if sigma <= 0 else float(2 * st.norm.cdf(0.5 / sigma) - 1)


# ---------------------------------------------------------------------------------------- win rates
def _win_row(group: str, flags: pd.Series, metric: str = "win_rate", units: pd.Series | None = None,
             **extra: Any) -> dict[str, Any]:
    clusters = None if units is None else units.loc[flags.index]
    return {"metric": metric, "group": group, **rate_of(flags, clusters=clusters).as_dict(), **extra}


def win_rates(games: pd.DataFrame, by: str = "team") -> pd.DataFrame:
    """Win rates per team, seat or strategy: columns metric, group, n, k, rate, value, ci_low, ci_high, method.

    * ``team``: team ``t`` wins the games with ``winner_team == t``.
    * ``seat``: a seat wins when its team wins (partners have the same rate).
    * ``strategy``: a strategy wins a game when the winning team has a seat playing it; ``n`` is the
      games in which it plays. A mixed team's win counts for each of its strategies, and a game in which a
      strategy sits on both teams counts as a win for it whoever wins; ``head_to_head`` rows restrict to
      the games where the strategy sits on exactly one team (the comparable rate against other strategies).

    A shared win (``winner_team == -1``) is a win for nobody; a ``shared_win`` row gives its rate. In a
    rotated run a game and its twin are one unit (``n_units`` counts them), with :func:`cluster_rate`'s intervals.
    """
    if games.empty:
        return pd.DataFrame(columns=["metric", "group", "n", "k", "rate", "value", "ci_low", "ci_high", "method"])
    teams = n_teams(games)
    winner = games["winner_team"]
    units = unit_clusters(games)
    rows = []
    if by == "team":
        for t in range(teams):
            seats = ",".join(map(str, team_seats(games, t)))
            rows.append(_win_row(f"team {t} (seats {seats})", winner == t, units=units))
    elif by == "seat":
        for s in range(n_seats(games)):
            rows.append(_win_row(f"seat {s} (team {s % teams})", winner == s % teams, units=units))
    elif by == "strategy":
        seat_cols = [f"strategy_seat_{s}" for s in range(n_seats(games))]
        names = sorted(set(games[seat_cols].astype(str).to_numpy().ravel()))
        for name in names:
            on_team = pd.DataFrame({t: (games[[f"strategy_seat_{s}" for s in team_seats(games, t)]] == name)
                                   .any(axis=1) for t in range(teams)})
            present = on_team.any(axis=1)
            w = winner.to_numpy()
            hit = on_team.to_numpy()[np.arange(len(w)), np.clip(w, 0, None)]
            won = pd.Series((w >= 0) & hit, index=games.index)
            rows.append(_win_row(name, won[present], units=units))
            one_side = on_team.sum(axis=1) == 1
            rows.append(_win_row(name, won[one_side], metric="head_to_head_win_rate", units=units))
    else:
        raise StatsError(f"unknown grouping '{by}'; allowed: strategy, seat, team")
    if (winner < 0).any():
        rows.append(_win_row("all", winner < 0, metric="shared_win", units=units))
    return integer_counts(pd.DataFrame(rows))


def first_deal_team_wins(games: pd.DataFrame, deals: pd.DataFrame, column: str) -> pd.Series:
    """Per game, whether the team flagged by ``column`` (``first_player_team`` / ``dealer_team``) in deal 0 won."""
    first = deals[(deals["deal_index"] == 0) & deals[column].astype(bool)][[*KEYS, "team"]]
    merged = games[[*KEYS, "winner_team"]].merge(first, on=KEYS, how="inner")
    return pd.Series((merged["winner_team"] == merged["team"]).to_numpy(), index=pd.MultiIndex.from_frame(
        merged[KEYS]), name=column)


# ------------------------------------------------------------------------------------------ metrics
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


def run_strategies(games: pd.DataFrame) -> list[str]:
    """The strategy names that play in a games table (any seat, any rotation), sorted."""
    cols = [f"strategy_seat_{s}" for s in range(n_seats(games))]
    return sorted(set(games[cols].astype(str).to_numpy().ravel())) if cols else []


def strategy_sides(games: pd.DataFrame, name: str, metric_name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The games in which strategy ``name`` sits on exactly one team, and that team (per game).

    Fails with one line when ``name`` is not in the run, or sits on every team of every game.
    """
    present = run_strategies(games)
    if name not in present:
        raise StatsError(f"metric {metric_name}: strategy '{name}' is not in the run; "
                         f"its strategies: {', '.join(present) or 'none'}")
    on_team = np.column_stack([(games[[f"strategy_seat_{s}" for s in team_seats(games, t)]].astype(str) == name)
                               .any(axis=1).to_numpy() for t in range(n_teams(games))])
    one_side = on_team.sum(axis=1) == 1
    if not one_side.any():
        raise StatsError(f"metric {metric_name}: strategy '{name}' sits on both teams in every game, so no game "
                         "pits it against another strategy")
    return games[one_side], on_team[one_side].argmax(axis=1)


def twin_pairs(obs: pd.DataFrame) -> pd.DataFrame:
    """Observations of a rotated run averaged over each pair of twins (one row per ``game_index``, rotation 0).

    The pair is the unit of a duplicate comparison: the same deals played from both seatings. A game whose
    twin failed (``--on-error skip``) stands alone. Observations without twins come back unchanged.
    """
    if not is_rotated(obs):
        return obs
    out = obs.groupby("game_index", sort=True)["value"].mean().reset_index()
    out.insert(1, "rotation", 0)
    return out


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


def observations(run: RunLike, m: Metric) -> pd.DataFrame:
    """The metric's observations (``game_index``, ``rotation``, ``value``); raises :class:`StatsError`."""
    try:
        return m.extract(run)
    except KeyError as exc:
        raise StatsError(f"metric {m.name}: the run has no column {exc}") from None


def summarize(run: RunLike, m: Metric, confidence: float = CONFIDENCE) -> dict[str, Any]:
    """One run's value of a metric with its interval: a rate (n, k) or a mean (n, sd, quantiles).

    ``n_units`` counts the independent units behind the interval: the game indices when observations of one unit
    are correlated (deals of a game; the twins of a rotated run), else ``n``.
    """
    obs = observations(run, m)
    base: dict[str, Any] = {"metric": m.name, "label": m.label, "unit": m.unit, "level": m.level,
                            "expected": None if m.expected is None else m.expected(run)}
    units = unit_clusters(obs)
    if m.level == "seat-deal":  # the seats of a deal are not independent (partners unlock together)
        units = game_cluster(obs)
    if m.kind == "rate":
        if units is None and m.binary:
            r = rate(int(obs["value"].sum()), len(obs), m.interval, confidence)
        else:
            r = cluster_rate(obs["value"], units, m.interval, confidence)
        return {**base, **r.as_dict()}
    clusters = units if m.level == "game" else game_cluster(obs)
    return {**base, "k": None, **describe(obs["value"], clusters, confidence)}


def per_game(run: RunLike, m: Metric) -> pd.Series:
    """The metric per game (mean over the game's observations), indexed by (game_index, rotation)."""
    obs = observations(run, m)
    return obs.groupby(KEYS, sort=True)["value"].mean()


def per_unit(run: RunLike, m: Metric) -> pd.Series:
    """The metric per unit: per game (:func:`per_game`) without rotation; in a rotated run the mean of the two
    twins' per-game values, indexed by ``game_index`` (each game weighs the same, each pair of twins too)."""
    g = per_game(run, m)
    if not is_rotated(run.games):
        return g
    return g.groupby(level="game_index", sort=True).mean()


# ----------------------------------------------------------------------------------------- sections
def _mean_row(metric_name: str, group: str, values: Any, clusters: Any, unit: str,
              **extra: Any) -> dict[str, Any]:
    return {"metric": metric_name, "group": group, "unit": unit, "k": None,
            **describe(values, clusters), **extra}


def _rate_row(metric_name: str, group: str, r: Rate, **extra: Any) -> dict[str, Any]:
    return {"metric": metric_name, "group": group, "unit": "share", **r.as_dict(), **extra}


def team_groups(games: pd.DataFrame, deals: pd.DataFrame, by: str) -> pd.Series:
    """A group label for each row of ``deals``: its team, or its team's strategies with ``by='strategy'``."""
    if by == "strategy":
        labels = pd.concat([pd.DataFrame({"game_index": games["game_index"], "rotation": games["rotation"],
                                          "team": t, "label": team_strategy_label(games, t)})
                            for t in range(n_teams(games))], ignore_index=True)
        merged = deals[[*KEYS, "team"]].merge(labels, on=[*KEYS, "team"], how="left")
        return pd.Series(merged["label"].to_numpy(), index=deals.index)
    return "team " + deals["team"].astype(str)


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
    when the winner's final margin is smaller than the exact-cut points the winner received over the game
    (the sum of ``score_exact_cut`` over the winner's deal rows); ``n`` is the games with a single winner.
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
    ]))


def exact_cut_decided(games: pd.DataFrame, deals: pd.DataFrame) -> Rate:
    """Share of games (with a single winner) whose margin is below the winner's exact-cut points."""
    return bonus_decided(games, deals, "score_exact_cut")


def pony_columns(deals: pd.DataFrame) -> list[str]:
    """The deals table's ``pony_pickup_turn_seat_*`` columns, in seat order."""
    cols = [c for c in deals.columns if c.startswith(PONY_PREFIX) and c[len(PONY_PREFIX):].isdigit()]
    return sorted(cols, key=lambda c: int(c[len(PONY_PREFIX):]))


def pony_per_deal(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per deal with each seat's pony pickup turn (-1 = never picked up).

    A seat's value may sit on its own team's row only (NaN on the others) or repeat on every row: the first
    non-missing value of the deal is used. Deals without any value for a seat stay NaN for it.
    """
    cols = pony_columns(deals)
    return deals.groupby(DEAL_KEYS, sort=True)[cols].first().reset_index()


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
    group = team_groups(games, deals, "strategy" if by == "strategy" else "team").to_numpy()
    cluster = game_cluster(deals)
    units = unit_clusters(deals)
    deal_units = unit_clusters(per_deal)

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
    premiado = per_deal["pile_premiado"].astype(bool)
    rows.append(_rate_row("pile_premiado", "all deals", rate_of(premiado, clusters=deal_units)))
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


def bonus_decided(games: pd.DataFrame, deals: pd.DataFrame, part: str) -> Rate:
    """Share of games (with a single winner) whose margin is below the points of score ``part`` the winner got."""
    g = games[games["winner_team"] >= 0][[*KEYS, "winner_team", "margin"]]
    pts = deals.groupby([*KEYS, "team"])[part].sum().rename("pts").reset_index()
    m = g.merge(pts, left_on=[*KEYS, "winner_team"], right_on=[*KEYS, "team"], how="left")
    return rate_of(m["margin"] < m["pts"].fillna(0), clusters=unit_clusters(m))


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


def integer_counts(df: pd.DataFrame, columns: Sequence[str] = ("n", "n_units", "n_pairs", "k", "n_a", "n_b", "a_only",
                                                               "b_only")) -> pd.DataFrame:
    """Count columns as nullable integers (``Int64``), so CSV and JSON show 96, not 96.0."""
    df = df.copy()
    for c in columns:
        if c in df.columns:
            df[c] = pd.to_numeric(df[c], errors="coerce").round().astype("Int64")
    return df


# --------------------------------------------------------------------------------------- comparisons
PAIRING_FIELDS = ("seed", "games", "rotate_seats")


def pairing_differences(manifest_a: dict[str, Any], manifest_b: dict[str, Any]) -> list[str]:
    """What keeps two runs from being paired game by game: master seed, N or rotation structure."""
    names = {"seed": "master seed", "games": "N (games)", "rotate_seats": "rotate_seats"}
    return [f"{names[f]} ({manifest_a.get(f)!r} vs {manifest_b.get(f)!r})" for f in PAIRING_FIELDS
            if manifest_a.get(f) != manifest_b.get(f)]


def mcnemar_exact(b: int, c: int) -> float:
    """Exact McNemar p-value: two-sided binomial test of ``b`` successes in ``b + c`` discordant pairs (p=1/2)."""
    if b + c == 0:
        return 1.0
    return float(st.binomtest(int(b), int(b + c), 0.5).pvalue)


def paired_proportion_diff(n11: int, n10: int, n01: int, n00: int,
                           confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Difference ``p_A - p_B`` of paired proportions with Newcombe's square-and-add interval (method 10).

    ``n10`` pairs are a success in A only, ``n01`` in B only. Returns ``(diff, low, high)``.
    """
    n = n11 + n10 + n01 + n00
    if n == 0:
        return (math.nan, math.nan, math.nan)
    a_succ, b_succ = n11 + n10, n11 + n01
    p1, p2 = a_succ / n, b_succ / n
    l1, u1 = wilson_interval(a_succ, n, confidence)
    l2, u2 = wilson_interval(b_succ, n, confidence)
    margins = [a_succ, n - a_succ, b_succ, n - b_succ]
    phi = 0.0
    if min(margins) > 0:
        prod = math.sqrt(float(np.prod(np.asarray(margins, dtype=float))))
        a = n11 * n00 - n10 * n01
        phi = (a - n / 2) / prod if a > n / 2 else (0.0 if a >= 0 else a / prod)
    diff = p1 - p2
    low = diff - math.sqrt(max(0.0, (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)))
    high = diff + math.sqrt(max(0.0, (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1)))
    return (diff, max(-1.0, low), min(1.0, high))


def independent_proportion_diff(k1: int, n1: int, k2: int, n2: int,
                                confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Difference ``k1/n1 - k2/n2`` of independent proportions with Newcombe's hybrid score interval."""
    if n1 == 0 or n2 == 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, confidence)
    l2, u2 = wilson_interval(k2, n2, confidence)
    diff = p1 - p2
    return (diff, max(-1.0, diff - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)),
            min(1.0, diff + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)))


def paired_binary(a: Sequence[Any], b: Sequence[Any], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Paired 0/1 outcomes: McNemar exact test and Newcombe interval for the difference in rates."""
    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    n11, n10 = int((x & y).sum()), int((x & ~y).sum())
    n01, n00 = int((~x & y).sum()), int((~x & ~y).sum())
    diff, low, high = paired_proportion_diff(n11, n10, n01, n00, confidence)
    return {"test": "mcnemar-exact", "n": len(x), "a": x.mean() if len(x) else math.nan,
            "b": y.mean() if len(y) else math.nan, "diff": diff, "ci_low": low, "ci_high": high,
            "p": mcnemar_exact(n10, n01), "a_only": n10, "b_only": n01}


def _paired_differences(test: str, a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, dict[str, Any]]:
    """The differences ``a - b`` and the fields every paired mean test reports (test, n, means, mean difference)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = x - y
    n = len(d)
    return d, {"test": test, "n": n, "a": float(x.mean()) if n else math.nan,
               "b": float(y.mean()) if n else math.nan, "diff": float(d.mean()) if n else math.nan}


def paired_mean_diff(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Paired t-interval and t-test for the mean of ``a - b`` (``scipy.stats.ttest_rel``; identical pairs give
    0, [0, 0], p = 1)."""
    d, out = _paired_differences("paired-t", a, b)
    if len(d) < 2:
        return {**out, "ci_low": math.nan, "ci_high": math.nan, "p": math.nan}
    sd = float(d.std(ddof=1))
    if sd == 0:
        m = float(d.mean())
        return {**out, "ci_low": m, "ci_high": m, "p": 1.0 if m == 0 else 0.0}
    res = st.ttest_rel(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    ci = res.confidence_interval(confidence_level=confidence)
    return {**out, "ci_low": float(ci.low), "ci_high": float(ci.high), "p": float(res.pvalue)}


def bootstrap_mean_diff(a: Sequence[float], b: Sequence[float], n_boot: int = 2000, seed: int = 0,
                        confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Paired bootstrap (resampling pairs with ``numpy.random.default_rng(seed)``) for the mean of ``a - b``.

    Percentile interval; two-sided p-value from the null-shifted bootstrap distribution,
    ``(1 + #{|mean* - mean| >= |mean|}) / (1 + n_boot)``.
    """
    d, out = _paired_differences("paired-bootstrap", a, b)
    n = len(d)
    if n < 2:
        return {**out, "ci_low": math.nan, "ci_high": math.nan, "p": math.nan}
    m = float(d.mean())
    if np.all(d == d[0]):
        return {**out, "ci_low": m, "ci_high": m, "p": 1.0 if m == 0 else 0.0}
    res = st.bootstrap((d,), np.mean, n_resamples=n_boot, confidence_level=confidence, method="percentile",
                       rng=np.random.default_rng(seed))
    means = res.bootstrap_distribution
    p = float((1 + np.sum(np.abs(means - m) >= abs(m))) / (1 + n_boot))
    return {**out, "ci_low": float(res.confidence_interval.low), "ci_high": float(res.confidence_interval.high),
            "p": p}


def unpaired_binary(a: Sequence[Any], b: Sequence[Any], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Two independent samples of 0/1 outcomes: Fisher's exact test and Newcombe's hybrid score interval."""
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    k1, n1, k2, n2 = int(x.sum()), len(x), int(y.sum()), len(y)
    diff, low, high = independent_proportion_diff(k1, n1, k2, n2, confidence)
    p = float(st.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue) if n1 and n2 else math.nan
    return {"test": "fisher-exact", "n": n1 + n2, "n_a": n1, "n_b": n2, "a": k1 / n1 if n1 else math.nan,
            "b": k2 / n2 if n2 else math.nan, "diff": diff, "ci_low": low, "ci_high": high, "p": p}


def welch_mean_diff(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Two independent samples: Welch's t-test and interval for ``mean(a) - mean(b)``."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    out: dict[str, Any] = {"test": "welch-t", "n": len(x) + len(y), "n_a": len(x), "n_b": len(y),
           "a": float(x.mean()) if len(x) else math.nan, "b": float(y.mean()) if len(y) else math.nan}
    out["diff"] = out["a"] - out["b"]
    if len(x) < 2 or len(y) < 2:
        return {**out, "ci_low": math.nan, "ci_high": math.nan, "p": math.nan}
    if x.std() == 0 and y.std() == 0:
        return {**out, "ci_low": out["diff"], "ci_high": out["diff"], "p": 1.0 if out["diff"] == 0 else 0.0}
    res = st.ttest_ind(x, y, equal_var=False)
    ci = res.confidence_interval(confidence_level=confidence)
    return {**out, "ci_low": float(ci.low), "ci_high": float(ci.high), "p": float(res.pvalue)}


DEFAULT_COMPARE = ("win_team_0", "margin", "deals", "deal_score")
COMPARE_COLUMNS = ["metric", "label", "unit", "test", "n", "a", "b", "diff", "ci_low", "ci_high", "p", "p_holm"]


def compare_runs(run_a: RunLike, run_b: RunLike, metrics: Sequence[Metric] | None = None, paired: bool = True,
                 bootstrap: int = 0, seed: int = 0, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Compare two runs metric by metric, with Holm-adjusted p-values over the metrics compared.

    Paired (default): the runs must share master seed, N and rotation structure; games are joined on
    (game_index, rotation), or in rotated runs on the unit ``game_index`` (the mean of a game and its twin,
    :func:`per_unit`). A game-level 0/1 rate of runs without rotation uses McNemar's exact test and Newcombe's
    paired interval; every other metric compares per-unit values (per-game means for deal metrics) with a
    paired t-interval, or a paired bootstrap with ``bootstrap`` resamples. Unpaired: Fisher's exact test for
    game-level 0/1 rates without rotation, else Welch's t-test on the per-unit values.
    """
    metrics = list(metrics) if metrics else [metric(m) for m in DEFAULT_COMPARE]
    if paired:
        diffs = pairing_differences(run_a.manifest, run_b.manifest)
        if diffs:
            raise StatsError("runs cannot be paired, they differ in " + ", ".join(diffs)
                             + "; use --unpaired for two-sample tests")
    twins = is_rotated(run_a.games) or is_rotated(run_b.games)
    rows = []
    for m in metrics:
        xa, xb = per_unit(run_a, m), per_unit(run_b, m)
        binary = m.kind == "rate" and m.level == "game" and m.binary and not twins
        if paired:
            joined = pd.concat([xa.rename("a"), xb.rename("b")], axis=1, join="inner").dropna()
            if binary:
                res = paired_binary(joined["a"], joined["b"], confidence)
            elif bootstrap:
                res = bootstrap_mean_diff(joined["a"], joined["b"], bootstrap, seed, confidence)
            else:
                res = paired_mean_diff(joined["a"], joined["b"], confidence)
        else:
            xa, xb = xa.dropna(), xb.dropna()
            res = unpaired_binary(xa, xb, confidence) if binary else welch_mean_diff(xa, xb, confidence)
        rows.append({"metric": m.name, "label": m.label, "unit": m.unit, **res})
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].tolist())
    cols = COMPARE_COLUMNS + [c for c in out.columns if c not in COMPARE_COLUMNS]
    return integer_counts(out[cols])


# ------------------------------------------------------------------------------------ sweep, balance
SUMMARY_COLUMNS = ["metric", "label", "unit", "n", "n_units", "k", "value", "ci_low", "ci_high", "method",
                   "expected"]


def summary_table(runs: Sequence[tuple[str, RunLike]], metrics: Sequence[Metric], key: str = "run",
                  confidence: float = CONFIDENCE) -> pd.DataFrame:
    """One row per (run, metric): the metric's value and interval in each labelled run."""
    rows = []
    for label, run in runs:
        for m in metrics:
            s = summarize(run, m, confidence)
            rows.append({key: label, **{c: s.get(c) for c in SUMMARY_COLUMNS}})
    return integer_counts(pd.DataFrame(rows, columns=[key, *SUMMARY_COLUMNS]))


DIFF_COLUMNS = ["baseline", "metric", "test", "n", "diff", "diff_ci_low", "diff_ci_high", "p", "p_holm"]


def baseline_differences(runs: Sequence[tuple[str, RunLike]], metrics: Sequence[Metric], key: str = "run",
                         bootstrap: int = 0, seed: int = 0, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Each run against the first (the baseline), paired game by game, for every metric.

    One row per (later run, metric) with the paired difference ``run - baseline`` and its interval and test as
    :func:`compare_runs` gives them (McNemar and Newcombe for 0/1 game rates without rotation, else a paired t
    on per-unit values), and ``p_holm``: Holm's adjustment over every value and metric of the table.
    """
    if len(runs) < 2:
        return pd.DataFrame(columns=[key, *DIFF_COLUMNS])
    base_label, base = runs[0]
    parts = []
    for label, run in runs[1:]:
        cmp = compare_runs(run, base, metrics, paired=True, bootstrap=bootstrap, seed=seed, confidence=confidence)
        parts.append(cmp.assign(**{key: label, "baseline": base_label}))
    out = pd.concat(parts, ignore_index=True).rename(columns={"ci_low": "diff_ci_low", "ci_high": "diff_ci_high"})
    out["p_holm"] = holm(out["p"].tolist())
    return integer_counts(out[[key, *DIFF_COLUMNS]])


def with_differences(table: pd.DataFrame, diffs: pd.DataFrame, key: str) -> pd.DataFrame:
    """A :func:`summary_table` with the baseline differences joined on (``key``, metric) (null on the baseline)."""
    extra = diffs.rename(columns={"test": "diff_test", "n": "n_pairs"})
    extra[key] = extra[key].astype(str)
    merged = table.assign(**{key: table[key].astype(str)}).merge(extra, on=[key, "metric"], how="left")
    return integer_counts(merged)


BALANCE_METRICS = ("first_player_win", "dealer_win", "win_team_0", "margin", "deals", "stock_out", "went_out")


def balance_table(runs: Sequence[tuple[str, RunLike]], confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Seat-balance figures per variant: first-player and dealer team win rates (deal 0), team 0 win rate,
    mean margin (always >= 0: winner minus runner-up), deals per game, stock-out and going-out shares of deals."""
    return summary_table(runs, [metric(m) for m in BALANCE_METRICS], key="variant", confidence=confidence)


def split_values(text: str) -> list[str]:
    """Sweep values from ``v1,v2,v3`` (or ``v1;v2`` when values themselves contain commas)."""
    sep = ";" if ";" in text else ","
    return [v.strip() for v in text.split(sep) if v.strip()]
