"""Build the optional compiled (mypyc) simcli into a folder, to run beside the pure-Python install.

    python scripts/compiled.py build [DIR]     # default DIR: build/compiled
    PYTHONPATH=build/compiled simcli ...       # this interpreter, the compiled engine
    python scripts/compiled.py clean           # remove compiled modules from the source tree (after -e builds)

``build`` makes a wheel as ``pip install .`` does by default (setup.py compiles the modules in its COMPILED list
where a C compiler and the Python headers are found) and unpacks it into DIR without dependencies: the interpreter
that runs it needs simcli's dependencies already (the project's venv has them). It fails, with the build's reason,
when the wheel fell back to pure Python, so that CI checks the default install's compiled build.
tests/test_compiled.py finds the folder through ``SIMCLI_COMPILED_PATH`` and compares its games with the
pure-Python package's, byte for byte.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(target: Path) -> None:
    """Compile simcli into a wheel (the default build, SIMCLI_COMPILE=auto) and install it (no dependencies) into
    ``target``; exit with the build's reason when it fell back to pure Python."""
    env = {**os.environ, "SIMCLI_COMPILE": "auto"}
    with tempfile.TemporaryDirectory() as wheels:
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", wheels, str(ROOT)],
                              env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
            raise SystemExit(f"pip wheel failed (exit {done.returncode})")
        fell_back = [line.strip() for line in done.stdout.splitlines() + done.stderr.splitlines()
                     if "simcli: building the pure-Python package" in line]
        if fell_back:
            raise SystemExit(f"the build fell back to pure Python: {fell_back[0]}")
        (wheel,) = Path(wheels).glob("simcli-*.whl")
        shutil.rmtree(target, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                        str(wheel)], check=True)
    compiled = sorted(p.name for p in (target / "simcli").rglob("*.so"))
    if not compiled:
        raise SystemExit(f"the wheel in {target} holds no compiled module (pip wheel -v . says why)")
    print(f"compiled simcli in {target}: {len(compiled)} compiled modules under simcli/ "
          f"(run it with PYTHONPATH={target})")


def clean() -> None:
    """Remove the compiled modules an editable compiled build left beside the sources."""
    gone = [p for pattern in ("simcli/**/*.so", "strategies/**/*.so", "*__mypyc*.so") for p in ROOT.glob(pattern)]
    for p in gone:
        p.unlink()
    print(f"removed {len(gone)} compiled module(s)")


def main(argv: list[str]) -> int:
    """Command-line entry: ``build [DIR]`` or ``clean``."""
    if argv[:1] == ["build"] and len(argv) <= 2:
        build(Path(argv[1]) if len(argv) == 2 else ROOT / "build" / "compiled")
        return 0
    if argv == ["clean"]:
        clean()
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
