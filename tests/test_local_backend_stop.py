"""Stopping local worker processes early never hangs (simcli.runs.backends._kill_workers).

A worker killed while it writes a result leaves half a message in the pool's result pipe; without closing the
parent's write end, the pool's manager thread (and so ``shutdown`` and the interpreter's exit) waited forever.
Big results make that likely on the first try, so the check runs in a subprocess with a timeout: a hang fails
the test instead of hanging the test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    from simcli.runs.backends import LocalBackend

    def play(size, k):
        return b"x" * size  # several pipe writes a result: a kill lands mid-message

    if __name__ == "__main__":
        backend = LocalBackend(2)
        for _ in range(5):
            results = backend.results(play, 4_000_000, list(range(40)))
            next(results)
            next(results)
            results.close()  # stopped early: the chunks in flight are killed
        print("stopped 5 times")
""")


def test_closing_a_local_run_early_with_big_results_in_flight_does_not_hang() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stopped 5 times"
