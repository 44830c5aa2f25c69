"""The deal-by-deal summary of one game that ``simcli play`` prints, and the help text explaining its lines.

Each line is one deal: its number, dealer and turns, how it ended, and each team's score, canastas, threes and
running total; :data:`simcli.viewer.words.SUMMARY_LEGEND` says what each abbreviation means.
"""

from __future__ import annotations

import textwrap

from simcli.engine.deal import DealResult
from simcli.engine.game import GameResult
from simcli.rules.presets import rules_diff, scores_concealed
from simcli.rules.ruleset import RuleSet
from simcli.viewer.words import SPECIAL_WORDS, SUMMARY_LEGEND


def deal_ending(d: DealResult, concealed_scored: bool) -> str:
    """How a deal ended, for the summary: a special hand, going out, or the stock running out.

    "concealed" is said only where the rules define concealed going out (``concealed_scored``, see
    :func:`simcli.rules.presets.scores_concealed`): the ``concealed`` flag itself records RULES.md §1.10's conditions in
    every variant, e.g. for a Spanish terremoto.
    """
    if d.special_hand:
        how = f"seat {d.went_out_seat}: {SPECIAL_WORDS.get(d.special_hand, d.special_hand.lower())}"  # as the page
    elif d.end_reason == "went_out":
        how = f"seat {d.went_out_seat} went out{' concealed' if d.concealed and concealed_scored else ''}"
    else:
        how = "stock ran out"
    if d.black_three_canasta_team is not None:
        how += " (black-three canasta)"
    return how


def legend() -> str:
    """The help's explanation of the per-deal line (one entry per abbreviation)."""
    lines = ["\b", "The per-deal line, e.g. 'deal  2 dealer 0 turns  46 seat 2 went out | team 0 +1875",
             "(canastas 1n/2m, R3 2) = 2730', says:"]
    for abbreviation, meaning in SUMMARY_LEGEND:
        wrapped = textwrap.wrap(meaning, 58)
        lines += [f"  {abbreviation:16} {wrapped[0]}", *(f"  {'':16} {more}" for more in wrapped[1:])]
    return "\n".join(lines)


def deal_line(d: DealResult, running: list[int], concealed_scored: bool) -> str:
    """One deal's line; adds the deal's scores to ``running`` (each team's total so far)."""
    for t, s in enumerate(d.scores):
        running[t] += s["total"]
    how = deal_ending(d, concealed_scored)
    parts = []
    for t, s in enumerate(d.scores):
        kinds = "/".join(f"{n}{k[0].lower()}" for k, n in d.canastas[t].items() if n) or "none"
        hidden = d.hidden_canastas[t] if d.hidden_canastas else 0
        if hidden:
            kinds += f" incl. {hidden} hidden"
        black = d.black_threes[t] if d.black_threes else 0
        threes = f"R3 {d.red_threes[t]}" + (f" B3 {black}" if black else "")
        parts.append(f"team {t} {s['total']:+6d} (canastas {kinds}, {threes}) = {running[t]:6d}")
    return f"deal {d.deal_index + 1:2d} dealer {d.dealer} turns {d.turns:3d} {how:24s} | " + " | ".join(parts)


def game_summary(rules: RuleSet, variant: str, seed: int, game_index: int, names: list[str],
                 result: GameResult) -> list[str]:
    """The lines ``simcli play`` prints after a game: the seats, the rules changed from the preset, a line per
    deal and the winner."""
    teams = rules.n_teams
    seats = ", ".join(f"{s}:{n}(team {s % teams})" for s, n in enumerate(names))
    lines = [f"{variant} game, seed {seed}, game {game_index}; seats {seats}"]
    changed = rules_diff(rules)
    if changed:
        lines.append("rules changed from the preset: " + ", ".join(f"{k}={v}" for k, v in changed.items()))
    running = [0] * teams
    concealed_scored = scores_concealed(rules)  # "concealed" is a Classic notion (RULES.md §1.10)
    lines += [deal_line(d, running, concealed_scored) for d in result.deals]
    last = result.deals[-1]
    if last.black_three_canasta_team is not None:
        lines.append(f"team {last.black_three_canasta_team} made a canasta of black threes: it wins the game")
    if result.winner_team >= 0:
        margin = result.totals[result.winner_team] - max(
            x for t, x in enumerate(result.totals) if t != result.winner_team)
        lines.append(f"winner: team {result.winner_team} by {margin} after {len(result.deals)} deals, "
                     f"{result.turns} turns")
    else:
        lines.append(f"shared win at {result.totals} after {len(result.deals)} deals")
    return lines
