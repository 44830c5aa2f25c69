"""How a command prints or saves what the reporting package returns, and says when it cannot."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from simcli.commands.common import show_traceback
from simcli.reporting.errors import ReportError
from simcli.reporting.summaries import Study, save_study


def reported(f: Callable[..., Any]) -> Callable[..., Any]:
    """A command whose :class:`~simcli.reporting.errors.ReportError` (a run or sweep it cannot read, a file it
    cannot write) is its one-line error, after the failing strategy's traceback with ``--debug``."""
    @functools.wraps(f)
    def command(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except ReportError as exc:
            show_traceback(exc.traceback)
            raise click.ClickException(str(exc)) from None

    return command


def emit(text: str, out: Path | None) -> None:
    """Write ``text`` to ``out`` (creating its folder) or to stdout."""
    if out is None:
        click.echo(text)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror or exc}") from None
    click.echo(f"wrote {out}", err=True)


def save_and_print(prefix: Path, study: Study) -> None:
    """Save a study as PREFIX.md/.csv/.json/.png, print it on stdout and name the files saved on stderr."""
    paths = save_study(prefix, study)
    emit(study.printed, None)
    click.echo("saved " + ", ".join(map(str, paths)), err=True)
