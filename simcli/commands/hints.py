"""What the commands tell a person at a terminal: how to call simcli again, progress bars, the faster build.

Shared by every command that plays games, so that their progress bars, interrupt messages and hints read alike.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from simcli.reporting.errors import StudyInterrupted

#: A run that plays at least this many games (or any game of a search player) is "long": worth the build hint.
LONG_RUN_GAMES = 1000
#: Strategies whose games take seconds each, so that even a few of them are a long run.
SEARCH_PLAYERS = ("mc", "oracle", "ismcts")
#: Set to 1 to silence the compiled-build hint (scripts, CI logs).
NO_HINT_ENV = "SIMCLI_NO_BUILD_HINT"

_hinted = False


def prog() -> str:
    """How to call simcli again in a message: ``simcli`` when that name finds this program on PATH, else the path
    it was started by (``.venv/bin/simcli`` from a shell that has not activated the venv), or ``python -m simcli``."""
    argv0 = sys.argv[0] if sys.argv else ""
    name = Path(argv0).name
    if name == "__main__.py" and Path(argv0).parent.name == "simcli":  # not another package's (python -m pytest)
        return "python -m simcli"
    if name != "simcli":  # inside another program (a test runner, a notebook): the documented name
        return "simcli"
    found = shutil.which("simcli")
    try:
        if found is not None and Path(found).resolve() == Path(argv0).resolve():
            return "simcli"
    except OSError:
        pass
    return shlex.quote(argv0) if os.sep in argv0 else "simcli"


def again(args: Sequence[str]) -> str:
    """The command line ``simcli ARGS`` as the user can type it (with :func:`prog` for the program)."""
    return " ".join([prog(), *(shlex.quote(str(a)) for a in args)])


def interrupted_nothing_kept(what: str) -> NoReturn:
    """Ctrl-C in a command whose work is one piece (``play``'s game, ``bench``'s timing): nothing is kept, so say
    so and give the command that does it again; exit 130 as every command that plays games does."""
    print(f"\ninterrupted: {what} keeps nothing; do it again with:\n  {again(sys.argv[1:])}", file=sys.stderr)
    sys.exit(130)


def pure_build() -> bool:
    """Whether the rules core runs as pure Python (the compiled build imports C extensions instead of .py files)."""
    from simcli.engine.builds import engine_build

    return engine_build() == "pure"


def is_long(games: int, strategies: Sequence[str]) -> bool:
    """A run worth the compiled-build hint: many games, or any played by a search player."""
    return games >= LONG_RUN_GAMES or any(s.split(":", 1)[0] in SEARCH_PLAYERS for s in strategies)


def build_hint(games: int, strategies: Sequence[str], *, shown: bool) -> None:
    """Once per process, on stderr: a long run on the pure-Python build could play the same games 2-4x faster.

    ``shown`` is whether progress goes to a person (a terminal, not ``--quiet``); a log or a pipe gets no hint.
    """
    global _hinted
    if _hinted or not shown or os.environ.get(NO_HINT_ENV) == "1" or not is_long(games, strategies):
        return
    if not pure_build():
        return
    _hinted = True
    from simcli.engine.builds import describe

    # describe() says why this install is pure and how to get the compiled build (README, 'Speed: ...').
    print(f"note: this is the {describe()}; the compiled build plays the same games 2-4x faster (README, 'Speed: "
          "the compiled build')", file=sys.stderr)


def on_terminal(quiet: bool) -> bool:
    """Whether progress is shown: stderr is a terminal and ``--quiet`` is not given."""
    return not quiet and sys.stderr.isatty()


def progress_bar(total: int, desc: str, *, quiet: bool, unit: str = "game", initial: int = 0) -> Any:
    """A tqdm bar with rate and ETA on stderr (disabled off a terminal or with ``--quiet``)."""
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit=unit, desc=desc, disable=not on_terminal(quiet),
                dynamic_ncols=True, smoothing=0.1, file=sys.stderr)


def study_bar(total: int, label: str, names: Sequence[str]) -> Any:
    """The progress bar of one run of a study (``sweep``, ``balance``), and the build hint (once)."""
    # The hint first: a terminal's bar line ends without a newline, so a line written after it would be glued on.
    build_hint(total, names, shown=on_terminal(False))
    return progress_bar(total, label, quiet=False)


def tell(line: str) -> None:
    """A line for the person at the terminal, on stderr (stdout holds what the command prints)."""
    print(line, file=sys.stderr)


def study_progress(quiet: bool) -> dict[str, Any]:
    """The ``bar`` and ``say`` of a study's runs (``sweep``, ``balance``: :func:`simcli.reporting.studies.play_all`):
    a progress bar and a line per run on stderr, or with ``--quiet`` neither (as ``run --quiet``: no bar, no build
    hint; the table still goes to stdout and errors to stderr)."""
    if quiet:
        return {"bar": lambda total, label, names: progress_bar(total, label, quiet=True), "say": lambda line: None}
    return {"bar": study_bar, "say": tell}


@contextmanager
def study_interrupts(cmd: str) -> Iterator[None]:
    """Ctrl-C (or SIGTERM) while a study plays its runs: say what is kept and the command ``cmd`` that continues,
    then exit 128 + the signal, as ``run`` does."""
    try:
        yield
    except StudyInterrupted as exc:
        what = "interrupted" if exc.signum == signal.SIGINT else f"stopped by {signal.Signals(exc.signum).name}"
        print(f"\n{what}: {exc.finished} finished run(s) and the finished chunks of the next are kept in {exc.out}; "
              f"continue with the same command:\n  {again(shlex.split(cmd)[1:])}", file=sys.stderr)
        sys.exit(128 + exc.signum)
