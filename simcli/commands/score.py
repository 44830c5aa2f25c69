"""``simcli score``: score an end-of-deal position given as JSON (docs/position-format.md)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from simcli.commands.common import json_option
from simcli.engine.position import PositionError, team_label
from simcli.engine.scoring import SCORE_PARTS, score_deal
from simcli.positions.reader import parse_position
from simcli.rules.knobs import RuleError


def read_position_text(source: str) -> str:
    """Read the position text from the file ``source``, or from stdin when ``source`` is ``-``."""
    try:
        if source == "-":
            raw = getattr(sys.stdin, "buffer", None)  # bytes, so that non-UTF-8 input is reported, not a traceback
            return raw.read().decode("utf-8") if raw is not None else sys.stdin.read()
        with open(source, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise click.ClickException(
            f"cannot read position file '{source}': not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise click.ClickException(f"cannot read position file '{source}': {exc.strerror or exc}") from None


def score_position_text(text: str, source: str = "<position>") -> list[dict[str, int]]:
    """Parse, validate and score a position given as JSON text; errors become one-line ClickExceptions."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.ClickException(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    try:
        rules, teams = parse_position(data)
    except (PositionError, RuleError) as exc:
        raise click.ClickException(_one_line(str(exc))) from None
    return score_deal(rules, teams)


def _one_line(message: str) -> str:
    return " ".join(message.split())


def scores_to_json(scores: Sequence[dict[str, int]]) -> dict[str, Any]:
    """The ``--json`` document: ``{"teams": [{"total": int, "breakdown": {part: int}}]}``."""
    return {
        "teams": [
            {"total": s["total"], "breakdown": {p: s[p] for p in SCORE_PARTS}} for s in scores
        ]
    }


#: Score parts the text table shows even when they are 0 for every team.
ALWAYS_SHOWN = frozenset({"going_out", "canasta_natural", "canasta_mixed", "melded", "hand"})


def format_table(scores: Sequence[dict[str, int]]) -> str:
    """A plain-text table: one column per team, one row per score part, then the total.

    Parts that are 0 for every team are left out (``--json`` lists them all), except the ones every
    deal has: going out, natural and mixed canastas, melded cards and hands.
    """
    headers = [team_label(i) for i in range(len(scores))]
    rows = [(part, [s[part] for s in scores]) for part in SCORE_PARTS
            if part in ALWAYS_SHOWN or any(s[part] for s in scores)]
    label_w = max(len(p) for p in (*SCORE_PARTS, "total"))
    col_w = max([len(h) for h in headers] + [len(str(s[p])) for s in scores for p in (*SCORE_PARTS, "total")])
    lines = [" " * label_w + "".join(f"  {h:>{col_w}}" for h in headers)]
    for part, values in rows:
        lines.append(f"{part:<{label_w}}" + "".join(f"  {v:>{col_w}}" for v in values))
    lines.append("-" * (label_w + (col_w + 2) * len(scores)))
    lines.append(f"{'total':<{label_w}}" + "".join(f"  {s['total']:>{col_w}}" for s in scores))
    return "\n".join(lines)


@click.command("score")
@click.argument("position", metavar="POSITION")
@json_option
def score(position: str, as_json: bool) -> None:
    """Score the end-of-deal POSITION (a JSON file, or - for stdin).

    The format is described in docs/position-format.md. Prints one column per team
    with the score parts of RULES.md §1.12 (docs/rules.md) and the deal total.
    """
    source = "stdin" if position == "-" else position
    scores = score_position_text(read_position_text(position), source)
    if as_json:
        click.echo(json.dumps(scores_to_json(scores)))
    else:
        click.echo(format_table(scores))
