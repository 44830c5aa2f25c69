"""Files written whole or not at all: a temporary file beside the target, renamed over it once complete.

Runs write their chunks and manifests this way (:func:`simcli.runs.storage.atomic_write_bytes`); ``play --trace``
and the replay pages write through :class:`AtomicText`, so a game that fails half-way leaves no partial trace (and
an earlier file of the same name as it was).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import IO


class AtomicText:
    """A text file written to ``.NAME.tmp-PID`` beside ``path``: :meth:`commit` renames it to ``path``;
    :meth:`close` without a commit removes it (the target is untouched). A context manager commits when its block
    ends without an exception."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        self._fh: IO[str] | None = open(self.tmp, "w", encoding="utf-8", newline="\n")  # noqa: SIM115

    @property
    def stream(self) -> IO[str]:
        """The temporary file, for writers that take a text stream."""
        assert self._fh is not None, f"{self.path} is closed"
        return self._fh

    def write(self, text: str) -> int:
        """Write ``text`` to the temporary file."""
        assert self._fh is not None, f"{self.path} is closed"
        return self._fh.write(text)

    def flush(self) -> None:
        """Flush the temporary file."""
        if self._fh is not None:
            self._fh.flush()

    def commit(self) -> None:
        """Finish the file: flush it to disk and rename it over ``path``."""
        if self._fh is None:
            return
        fh, self._fh = self._fh, None
        try:
            fh.flush()
            os.fsync(fh.fileno())
            fh.close()
            os.replace(self.tmp, self.path)
        except BaseException:
            fh.close()
            self.tmp.unlink(missing_ok=True)
            raise

    def close(self) -> None:
        """Drop an uncommitted file (nothing is written at ``path``); a no-op after :meth:`commit`."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
            self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> AtomicText:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None:
            self.commit()
        self.close()


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (UTF-8, ``\\n`` line ends)."""
    with AtomicText(path) as fh:
        fh.write(text)
