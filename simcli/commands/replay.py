"""``simcli replay``: a game's trace as a page to follow it step by step (docs/replay.md)."""

from __future__ import annotations

from pathlib import Path

import click

from simcli.viewer.page import write_page
from simcli.viewer.replay import ReplayError, replay_file
from simcli.viewer.words import plural


@click.command()
@click.argument("trace", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="the HTML page to write (one self-contained file: open it in any browser, offline)")
def replay(trace: Path, out: Path) -> None:
    """Write the replay page of a game from its trace (simcli play --trace TRACE.jsonl).

    The page shows the table after every event (each seat's hand, all open or one seat's view, the melds and
    canastas, threes, the pile, the stock, ponies and wings, the scores) with the event in words; step with
    the buttons or the arrow keys. The trace is replayed first: a trace that disagrees with itself is refused.
    """
    try:
        game = replay_file(trace)
    except ReplayError as exc:
        raise click.ClickException(f"{trace}: {exc}") from None
    try:
        write_page(game, out)
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror}") from None
    click.echo(f"wrote {out}: {len(game.frames)} steps over {plural(game.frames[-1].deal + 1, 'deal')}, final totals "
               f"{', '.join(f'{game.words.team(t)} {x}' for t, x in enumerate(game.totals))}")
