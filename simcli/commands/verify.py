"""``simcli verify RUN_DIR``: check that a run's files hold what its manifest and done-markers say."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from simcli.commands.hints import prog

# Exit codes: 0 complete and intact; 1 damaged (or not a run); 3 intact but not finished; 4 in use.
NOT_FINISHED = 3
IN_USE = 4


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="no output on success")
def verify(run_dir: Path, quiet: bool) -> None:
    """Check RUN_DIR: manifest, done-markers, chunk files, tables (row counts, game indices, checksums, columns).

    Exits 0 for a complete, intact run; 1 for a damaged one (each problem on a line, then the fix); 3 for an
    intact run that is not finished (interrupted, failed or killed: finish it with --resume); 4 for a run
    that another process is writing.
    """
    from simcli.runs.integrity import check_run
    from simcli.runs.rebuild import missing_markers

    _refuse_no_run(run_dir)
    _exit_if_in_use(run_dir)
    check = check_run(run_dir)
    if not check.ok:
        for problem in check.problems:
            click.echo(f"{run_dir}/{problem}", err=True)
        raise click.ClickException(f"run {run_dir} is damaged ({len(check.problems)} problem(s)); "
                                   f"{check.fix_hint()}")
    manifest = check.manifest or {}
    per_game = 2 if manifest.get("rotate_seats") else 1
    total = int(manifest.get("games") or 0) * per_game
    if check.status != "complete":
        killed = " (killed while running)" if check.status == "running" else ""
        click.echo(f"{run_dir}: intact but not finished: status {check.status}{killed}, {check.games_kept:,} of "
                   f"{total:,} games in {len(check.good_chunks)} finished chunk(s); finish it with: "
                   f"{prog()} run --resume --out {run_dir}")
        sys.exit(NOT_FINISHED)
    if not quiet:
        errors = int(manifest.get("errors") or 0)
        lost = missing_markers(run_dir, manifest)
        # A finished run's tables are checked against run.json, not its done-markers: a lost marker is named, as
        # what it still serves (rebuilding a lost run.json), not counted as damage.
        note = (f"; {', '.join(lost[:3])}{' and more' if len(lost) > 3 else ''} missing: not needed by a finished "
                f"run, only to rebuild a lost run.json" if lost else "")
        click.echo(f"ok: {run_dir} is a complete run of {total:,} games ({check.games_kept:,} played, "
                   f"{errors:,} failed), {int(manifest.get('hands') or 0):,} deals; every file matches run.json"
                   + note)


def _refuse_no_run(run_dir: Path) -> None:
    """A one-line error for a folder that is not there or holds no run.json (saying how to rebuild a lost one)."""
    from simcli.runs.integrity import MANIFEST
    from simcli.runs.rebuild import describe, recovered_settings

    if not run_dir.is_dir():
        raise click.ClickException(f"no run directory at {run_dir}")
    if not (run_dir / MANIFEST).exists():
        found = recovered_settings(run_dir)
        if found is not None:  # the settings are lost, the games are not: say how to get the manifest back
            raise click.ClickException(
                f"{run_dir} has lost its {MANIFEST}, but its done-markers and tables are there ({describe(found[0])})"
                f"; rebuild {MANIFEST} with: {prog()} run --resume --out {run_dir} and the --variant and --rule "
                "options it was played with (no table stores them; a game played again checks them)")
        raise click.ClickException(f"{run_dir} is not a run directory (no {MANIFEST})")


def _exit_if_in_use(run_dir: Path) -> None:
    """Exit 4 (:data:`IN_USE`) when another process holds the run's lock (a stale lock is nobody's)."""
    from simcli.runs.errors import RunInUse
    from simcli.runs.integrity import LOCK
    from simcli.runs.lock import run_lock

    if (run_dir / LOCK).exists():
        try:
            with run_lock(run_dir):
                pass  # a stale lock of a killed run: nobody holds it
        except RunInUse as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(IN_USE)
        except OSError:
            pass  # a read-only run directory cannot be locked, nor written by anyone
