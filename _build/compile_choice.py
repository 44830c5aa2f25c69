"""Whether a build of simcli compiles the engine with mypyc: ``SIMCLI_COMPILE``, the kind of install, the tools.

Shared by the build backend (:mod:`backend`, which adds mypy to the build requirements when it compiles) and
``setup.py`` (which compiles, or falls back), so that the two never disagree. The rules:

* ``SIMCLI_COMPILE=0`` (or false/no/off): the pure-Python package, whatever is installed.
* ``SIMCLI_COMPILE=1`` (or true/yes/on): compiled, and a build that cannot compile fails (the user asked for it).
* unset, empty or ``auto``: a wheel (``pip install .``) is compiled where a C compiler and the Python headers are
  found, else pure with one line that says why and how to get the compiled build. An editable install
  (``pip install -e .``) is pure: the compiled modules would sit beside the sources and shadow them, so an edited
  ``.py`` file would silently not run until rebuilt.

Like PyYAML, msgpack and markupsafe, the speed-up is built when it can be and its absence is never an error
unless asked for. The build's choice is recorded in the package (``simcli/engine/build.json``), so that
``simcli --version`` and ``simcli bench`` can say which build runs and why.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass

#: The environment variable that asks for a build.
COMPILE_ENV = "SIMCLI_COMPILE"
ON = ("1", "true", "yes", "on")
OFF = ("0", "false", "no", "off")
AUTO = ("", "auto")

#: What the fallback line tells a user who wants the compiled build (the same games, several times faster).
HOW_TO_COMPILE = ("install a C compiler and the Python headers (Debian/Ubuntu: apt install gcc python3-dev), "
                  "then: pip install --force-reinstall --no-deps .")


@dataclass(frozen=True)
class Choice:
    """A build's decision: compile or not, whether a failure to compile is an error, and why it is pure."""

    compile: bool
    #: SIMCLI_COMPILE=1: the user asked for the compiled build, so not getting it is an error, not a fallback.
    required: bool = False
    #: Why the build is pure (empty when it compiles): recorded in the package and said by the fallback line.
    reason: str = ""

    def fallback_line(self) -> str:
        """The one line a build that falls back to pure Python prints (empty when it compiles or was told not to)."""
        if self.compile or not self.reason or self.reason.startswith(COMPILE_ENV):
            return ""
        return f"simcli: building the pure-Python package ({self.reason}); for the compiled build: {HOW_TO_COMPILE}"


def c_compiler() -> str | None:
    """The C compiler the build would call (``$CC``, else Python's configured ``CC``) if it is on PATH, else None."""
    words = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    return shutil.which(words[0]) if words else None


def python_headers() -> str | None:
    """The path of this Python's ``Python.h`` if the headers are installed, else None."""
    header = os.path.join(sysconfig.get_paths()["include"], "Python.h")
    return header if os.path.isfile(header) else None


def choose(setting: str | None, editable: bool, compiler: str | None, headers: str | None) -> Choice:
    """The decision for ``SIMCLI_COMPILE=setting`` (None: unset), an editable install or a wheel, and the compiler
    and headers found (None: missing). Raises ValueError for a setting that is none of on, off or auto."""
    value = (setting or "").strip().lower()
    if value in OFF:
        return Choice(False, reason=f"{COMPILE_ENV}={setting}")
    if value in ON:
        return Choice(True, required=True)
    if value not in AUTO:
        raise ValueError(f"{COMPILE_ENV}={setting!r}: use 1 (compile), 0 (pure Python) or auto (compile where a C "
                         "compiler and the Python headers are found; the default)")
    if editable:
        return Choice(False, reason=f"an editable install is pure Python unless {COMPILE_ENV}=1")
    if compiler is None:
        return Choice(False, reason="no C compiler found")
    if headers is None:
        return Choice(False, reason="the Python headers (Python.h) are not installed")
    return Choice(True)


def choose_here(editable: bool, env: Mapping[str, str] | None = None) -> Choice:
    """:func:`choose` for this process: its environment, compiler and headers."""
    env = os.environ if env is None else env
    return choose(env.get(COMPILE_ENV), editable, c_compiler(), python_headers())
