"""Invoking ``simcli`` in-process for the CLI tests: a command that must succeed, or fail with one error line."""

from __future__ import annotations

import sys
import traceback
from typing import Any

from click.testing import CliRunner, Result

from simcli.cli import main


def cli(*args: Any, code: int = 0) -> Result:
    """Invoke ``simcli ARGS``; fail with output and traceback unless it exits with ``code``."""
    res = CliRunner().invoke(main, [str(a) for a in args])
    if res.exit_code != code:
        tb = "".join(traceback.format_exception(*res.exc_info)) if res.exc_info else ""
        raise AssertionError(f"exit {res.exit_code}, wanted {code}\nstdout: {res.stdout}\nstderr: {res.stderr}\n{tb}")
    return res


def error_line(*args: Any) -> str:
    """Run a command that must fail with exactly one line on stderr and no traceback; return the line."""
    res = cli(*args, code=1)
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr
    return lines[0]


class FakeTty:
    """Stands in for ``sys`` in a module (monkeypatched over a command's ``sys``).

    The same, except that stderr claims to be a terminal (progress bars and hints shown only at a terminal).
    """

    class _Tty:
        def __init__(self, stream: Any) -> None:
            self._stream = stream

        def isatty(self) -> bool:
            return True

        def __getattr__(self, name: str) -> Any:
            return getattr(self._stream, name)

    def __getattr__(self, name: str) -> Any:
        return getattr(sys, name)

    @property
    def stderr(self) -> Any:
        return self._Tty(sys.stderr)
