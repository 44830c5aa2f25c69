"""The results of a finished ladder (:mod:`simcli.duplicate.ladder`): ratings on one Elo scale, upset rates, span
and gap share, and their Markdown report.

Statistics (:func:`results`; definitions in docs/analysis.md, "Ladder"):

* ratings: Bradley-Terry on the logistic Elo curve (:func:`simcli.duplicate.ratings.fit_ratings`) over every
  match, shifted so that greedy is exactly 0; 95% percentile intervals from a bootstrap that resamples the pairs of
  each match on its own (the matches have different deals, so they are independent);
* per neighbour match, the weaker rung's game-win share (wins plus half the shared wins, per game), the
  **upset rate**, with a t-interval over its pairs (:func:`simcli.duplicate.pairs.summarize_pairs`);
* the **span**: Elo of the best fair rung (the strongest that does not see hidden cards) minus Elo of random;
* the **gap share**: ``(Elo best search - Elo heuristic) / (Elo oracle - Elo heuristic)``, the part of the
  heuristic-to-oracle gap that the best search player closes; both with bootstrap intervals.

:func:`markdown_report` renders the results as Markdown (``ladder.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from simcli.duplicate.ladder import ANCHOR, LadderSpec, Roles, check_rungs, roles
from simcli.duplicate.pairs import summarize_pairs
from simcli.duplicate.ratings import PRIOR_DRAWS, MatchCount, fit_ratings
from simcli.duplicate.tournament import StoredMatch
from simcli.rules.presets import load_rules
from simcli.stats.confidence import CONFIDENCE

RESULTS_SCHEMA = "simcli.ladder-ratings/1"


def anchored_ratings(k: int, matches: Sequence[tuple[int, int, Sequence[int]]], anchor: int,
                     prior: float = PRIOR_DRAWS) -> np.ndarray:
    """Maximum-likelihood Elo of ``k`` rungs from ``(a, b, A's half-points per pair)`` matches, shifted so that
    rung ``anchor`` is exactly 0 (the fit itself is centred on mean 0)."""
    counts = [MatchCount(a, b, float(sum(h)) / 2, 2 * len(h)) for a, b, h in matches]
    r = np.asarray(fit_ratings(k, counts, prior=prior).rating, dtype=float)
    return r - r[anchor]


def bootstrap_ratings(k: int, matches: Sequence[tuple[int, int, Sequence[int]]], anchor: int, n_boot: int,
                      seed: int) -> np.ndarray:
    """``n_boot`` anchored rating vectors (rows), each fitted to the matches with every match's pairs resampled on
    its own (with replacement, as many as it has), from ``numpy.random.default_rng(seed)`` in match order."""
    rng = np.random.default_rng(seed)
    halves = [np.asarray(h, dtype=int) for _, _, h in matches]
    draws = np.empty((n_boot, k))
    for n in range(n_boot):
        resampled = [(a, b, h[rng.integers(0, h.size, h.size)].tolist())
                     for (a, b, _), h in zip(matches, halves, strict=True)]
        draws[n] = anchored_ratings(k, resampled, anchor)
    return draws


def percentile_interval(draws: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of bootstrap draws (NaN draws left out; NaN when every draw is NaN)."""
    finite = draws[~np.isnan(draws)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2.0
    return float(np.quantile(finite, tail)), float(np.quantile(finite, 1.0 - tail))


def gap_share(heuristic: float, search: float, ceiling: float) -> float:
    """The share of the heuristic-to-ceiling gap a search player closes: ``(search - heuristic) / (ceiling -
    heuristic)`` (1: as strong as the ceiling, 0: no better than the heuristic; NaN when the gap is not positive,
    where the share means nothing)."""
    gap = ceiling - heuristic
    return (search - heuristic) / gap if gap > 0 else math.nan


@dataclass(frozen=True)
class Upset:
    """How the weaker rung of a match did: its game-win share (ties half) with its interval over pairs."""

    weaker: str
    stronger: str
    pairs: int
    wins: int
    ties: int
    losses: int
    share: float
    ci_low: float
    ci_high: float


def upset(m: StoredMatch, a: str, b: str, a_is_weaker: bool) -> Upset:
    """The weaker rung's share of the games of match ``m`` (A is ``a``): wins plus half the shared wins over the
    games, with the t-interval over pairs of :func:`simcli.duplicate.pairs.summarize_pairs`."""
    half = m.half_points if a_is_weaker else [4 - h for h in m.half_points]
    wins, losses = (m.wins, m.losses) if a_is_weaker else (m.losses, m.wins)
    s = summarize_pairs(half)
    return Upset(weaker=a if a_is_weaker else b, stronger=b if a_is_weaker else a, pairs=s.pairs, wins=wins,
                 ties=m.ties, losses=losses, share=s.score, ci_low=s.score_ci_low, ci_high=s.score_ci_high)


def _finite(x: float) -> float | None:
    return None if math.isnan(x) or math.isinf(x) else float(x)


def results(spec: LadderSpec, matches: Sequence[StoredMatch]) -> dict[str, Any]:
    """Ratings, upset rates, span and gap share as one JSON-ready object (the ``ratings.json`` contents).

    ``matches`` are the finished matches in schedule order (the bootstrap draws from its stream in that order).
    """
    check_rungs(spec.rungs)
    k = len(spec.rungs)
    role = roles(spec.variant, spec.rungs)
    triples = [(m.i, m.j, m.half_points) for m in matches]
    r = anchored_ratings(k, triples, role.anchor)
    draws = bootstrap_ratings(k, triples, role.anchor, spec.bootstrap, spec.bootstrap_seed)
    games = [0] * k
    for m in matches:
        games[m.i] += 2 * len(m.half_points)
        games[m.j] += 2 * len(m.half_points)
    ratings = []
    for n, rung in enumerate(spec.rungs):
        low, high = percentile_interval(draws[:, n])
        ratings.append({"rung": rung, "elo": float(r[n]), "ci_low": low, "ci_high": high,
                        "se": float(draws[:, n].std()), "fair": n in role.fair, "games": games[n]})
    rows, neighbours, weaker_half = [], [], []
    for m in matches:
        a, b = spec.rungs[m.i], spec.rungs[m.j]
        s = summarize_pairs(m.half_points, wins=m.wins, ties=m.ties, losses=m.losses)
        rows.append({"a": a, "b": b, "kind": spec.match_kind(m.i, m.j), "seed": spec.match_seed(m.i, m.j),
                     "games": s.games, "pairs": s.pairs, "wins": m.wins, "ties": m.ties, "losses": m.losses,
                     "score": s.score, "score_ci_low": s.score_ci_low, "score_ci_high": s.score_ci_high,
                     "elo": _finite(s.elo), "elo_ci_low": _finite(s.elo_ci_low),
                     "elo_ci_high": _finite(s.elo_ci_high), "pentanomial": s.pentanomial})
        if m.j == m.i + 1:
            # Weaker by the ladder's ratings (the lower rung on a tie): an upset rate above 1/2 then says that
            # the match disagrees with the rest of the ladder.
            u = upset(m, a, b, a_is_weaker=r[m.i] <= r[m.j])
            weaker_half += m.half_points if u.weaker == a else [4 - h for h in m.half_points]
            neighbours.append(asdict(u))
    pooled = summarize_pairs(weaker_half) if weaker_half else None
    preset = load_rules(spec.variant).formatted()
    changed = {knob: value for knob, value in sorted(spec.rules.items()) if preset.get(knob) != value}
    return {"schema": RESULTS_SCHEMA, "spec": spec.as_dict(), "changed_rules": changed, "anchor": ANCHOR,
            "confidence": CONFIDENCE,
            "prior_draws": PRIOR_DRAWS, "method": f"bootstrap-{spec.bootstrap}", "ratings": ratings,
            "neighbours": neighbours,
            "upset_pooled": None if pooled is None else {"pairs": pooled.pairs, "share": pooled.score,
                                                         "ci_low": pooled.score_ci_low,
                                                         "ci_high": pooled.score_ci_high},
            "span": _span(spec.rungs, role, r, draws), "gap": _gap(spec.rungs, role, r, draws), "matches": rows}


def _span(rungs: Sequence[str], role: Roles, r: np.ndarray, draws: np.ndarray) -> dict[str, Any] | None:
    """Random to the best fair rung (chosen by the point estimates, kept fixed in the bootstrap draws)."""
    if role.random is None:
        return None
    best = max(role.fair, key=lambda n: r[n])
    low, high = percentile_interval(draws[:, best] - draws[:, role.random])
    return {"low": rungs[role.random], "high": rungs[best], "elo": float(r[best] - r[role.random]),
            "ci_low": low, "ci_high": high}


def _gap(rungs: Sequence[str], role: Roles, r: np.ndarray, draws: np.ndarray) -> dict[str, Any] | None:
    """The gap share of the best search player (by the point estimates, kept fixed in the bootstrap draws)."""
    if role.heuristic is None or role.ceiling is None or not role.search:
        return None
    h, c = role.heuristic, role.ceiling
    best = max(role.search, key=lambda n: r[n])
    per_draw = np.array([gap_share(d[h], d[best], d[c]) for d in draws])
    low, high = percentile_interval(per_draw)
    return {"heuristic": rungs[h], "search": rungs[best], "ceiling": rungs[c],
            "share": _finite(gap_share(r[h], r[best], r[c])), "ci_low": _finite(low), "ci_high": _finite(high),
            "gap_elo": float(r[c] - r[h])}


# ------------------------------------------------------------------------------------------------ reports
def _elo(x: float) -> str:
    return f"{x:+.0f}"


def markdown_report(data: dict[str, Any]) -> str:
    """The ladder as Markdown: header naming the variant and rungs, ratings, neighbour upsets, span and gap, and
    every match."""
    spec = data["spec"]
    changed = data["changed_rules"]
    rules = (f"the {spec['variant']} preset with " + ", ".join(f"{k}={v}" for k, v in changed.items())
             if changed else f"the {spec['variant']} preset")
    lines = [f"# Ladder: {spec['variant']}, rungs {', '.join(spec['rungs'])}", "",
             f"Seed {spec['seed']}, {spec['pairs']} pairs a neighbour match, {spec['jump_pairs']} a jump match; "
             f"Elo anchored at {data['anchor']} = 0, 95% intervals from {spec['bootstrap']} bootstrap resamples "
             f"of the pairs (seed {spec['bootstrap_seed']}). Rules: {rules}.", "",
             "| rung | Elo | 95% interval | games |", "|---|---:|---|---:|"]
    for row in data["ratings"]:
        mark = "" if row["fair"] else " (sees hidden cards)"
        lines.append(f"| {row['rung']}{mark} | {_elo(row['elo'])} | [{_elo(row['ci_low'])}, "
                     f"{_elo(row['ci_high'])}] | {row['games']:,} |")
    lines += ["", "Neighbour matches: how often the weaker rung still wins a game (ties half; 95% t-interval over "
              "pairs):", "", "| weaker | stronger | games | weaker won | tied | lost | upset rate |",
              "|---|---|---:|---:|---:|---:|---|"]
    for u in data["neighbours"]:
        lines.append(f"| {u['weaker']} | {u['stronger']} | {2 * u['pairs']:,} | {u['wins']} | {u['ties']} | "
                     f"{u['losses']} | {u['share']:.3f} [{u['ci_low']:.3f}, {u['ci_high']:.3f}] |")
    pooled = data["upset_pooled"]
    if pooled is not None:
        lines.append(f"| all neighbours | | {2 * pooled['pairs']:,} | | | | {pooled['share']:.3f} "
                     f"[{pooled['ci_low']:.3f}, {pooled['ci_high']:.3f}] |")
    span, gap = data["span"], data["gap"]
    lines.append("")
    lines.append(f"Span: {span['low']} -> {span['high']} {_elo(span['elo'])} Elo [{_elo(span['ci_low'])}, "
                 f"{_elo(span['ci_high'])}]." if span is not None else "Span: not measured (no random rung).")
    if gap is not None and gap["share"] is not None:
        lines.append(f"Gap share: {gap['search']} closes {gap['share']:.2f} [{_fmt(gap['ci_low'])}, "
                     f"{_fmt(gap['ci_high'])}] of the {gap['heuristic']} -> {gap['ceiling']} gap "
                     f"({_elo(gap['gap_elo'])} Elo).")
    elif gap is not None:
        lines.append(f"Gap share: not measured ({gap['ceiling']} is not above {gap['heuristic']}).")
    else:
        lines.append("Gap share: not measured (it needs the heuristic, a search player and oracle).")
    lines += ["", "| match | kind | seed | games | score of A | Elo of A | pairs 0/0.5/1/1.5/2 |",
              "|---|---|---:|---:|---|---|---|"]
    for m in data["matches"]:
        elo = ("-" if m["elo"] is None else _elo(m["elo"]))
        lines.append(f"| {m['a']} vs {m['b']} | {m['kind']} | {m['seed']} | {m['games']:,} | {m['score']:.3f} "
                     f"[{m['score_ci_low']:.3f}, {m['score_ci_high']:.3f}] | {elo} | "
                     + "/".join(str(c) for c in m["pentanomial"]) + " |")
    return "\n".join(lines) + "\n"


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"

