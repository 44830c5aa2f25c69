"""The runs of a study (``sweep``, ``balance``): one run per setting, on one master seed and N, each played into
its own folder of the study's ``--out`` or reused from there, and the command that regenerates the study.

The playing lives here rather than in :mod:`simcli.runs` because it is the study's: its folder layout
(``OUT/<label>``, beside the study's own PREFIX.md/.csv/.json/.png) and the runs it opens for its tables. What
a person at a terminal sees while it plays (progress bars, a line a run) is the command's: it passes ``bar`` and
``say`` in.
"""

from __future__ import annotations

import re
import shlex
import signal
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from simcli.players.loading import parse_strategy_list
from simcli.players.specs import StrategyLookupError
from simcli.reporting.errors import ReportError, StudyInterrupted
from simcli.reporting.runs import open_run
from simcli.rules.knobs import RuleError
from simcli.rules.presets import load_rules, rules_diff
from simcli.runs.backends import ClusterLost
from simcli.runs.errors import RunError
from simcli.runs.execute import execute_run
from simcli.runs.integrity import MANIFEST
from simcli.runs.preflight import check_strategies
from simcli.runs.spec import RunSpec, default_chunk_size
from simcli.runs.unplayed import unplayed_status

if TYPE_CHECKING:
    from simcli.rules.ruleset import RuleSet
    from simcli.runs.backends import Backend
    from simcli.runs.results import Run

#: One setting of a study: its key (a knob's value, a variant), its rules and the seats' strategies.
Setting = tuple[str, "RuleSet", list[str]]


class Bar(Protocol):
    """A progress display of one run (a tqdm bar): games played so far, closed when the run ends."""

    def update(self, n: int) -> Any: ...

    def close(self) -> None: ...


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def no_bar(total: int, label: str, names: Sequence[str]) -> Bar:
    """No progress display (the default of :func:`play_all`)."""
    return _NoBar()


def safe_name(text: str) -> str:
    """A folder name for a run label (knob=value)."""
    return re.sub(r"[^A-Za-z0-9._=,+-]", "_", text)


def default_out(kind: str, name: str) -> Path:
    """``results/runs/<kind>-<name>-<time>``."""
    return Path("results") / "runs" / f"{kind}-{safe_name(name)}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def check_out(out: Path, labels: Sequence[str], kind: str) -> None:
    """Refuse an ``--out`` that holds anything but this study's own runs and tables (a folder of other files),
    before anything is played or written, as ``run`` refuses a non-empty folder that is not a run."""
    if not out.is_dir():
        if out.exists():
            raise ReportError(f"--out {out} is a file; give a folder for the runs")
        return
    own = {safe_name(label) for label in labels} | {f"{kind}{ext}" for ext in (".md", ".csv", ".json", ".png")}
    strangers = sorted(p.name for p in out.iterdir() if p.name not in own)
    if strangers:
        shown = ", ".join(strangers[:3]) + (", ..." if len(strangers) > 3 else "")
        raise ReportError(f"--out {out} holds files that are not this {kind}'s runs ({shown}); choose an empty or "
                          f"new folder")


def command_line(name: str, args: Sequence[tuple[str, Any]]) -> str:
    """The canonical command that regenerates a sweep or balance (options with values, in order)."""
    parts = ["simcli", name]
    for opt, value in args:
        if value is None or value == () or value is False:
            continue
        for v in value if isinstance(value, tuple) else (value,):
            parts += [opt] if v is True else [opt, str(v)]
    return shlex.join(parts)


def study_setting(variant: str, overrides: dict[str, Any], strategies: str) -> tuple[RuleSet, list[str]]:
    """A rule set and the seat strategies of one setting; a rule or strategy error is a :class:`ReportError`."""
    try:
        rs = load_rules(variant, overrides)
        names = parse_strategy_list(strategies, rs.num_players, rs.n_teams)
        check_strategies([rs], names, label=variant)  # before any run of the study is played
        return rs, names
    except (RuleError, StrategyLookupError) as exc:
        raise ReportError(str(exc)) from None


def play_or_reuse(rs: RuleSet, names: Sequence[str], seed: int, games: int, run_dir: Path, jobs: int,
                  label: str, command: list[str], rotate_seats: bool = False, backend: str | Backend = "local", *,
                  bar: Callable[[int, str, Sequence[str]], Bar] = no_bar,
                  say: Callable[[str], None] = lambda line: None) -> Run:
    """Play a run into ``run_dir``, or reuse/finish the one there when its settings match exactly (on ``backend``:
    the command's open backend, or a name opened for this run); ``bar`` shows its progress, ``say`` gets a line
    when it is played or reused. A failing run is a :class:`ReportError` naming ``label``."""
    spec = RunSpec(variant=rs.variant, rules=rs.formatted(), strategies=tuple(names), seed=seed, games=games,
                   rotate_seats=rotate_seats, chunk_size=default_chunk_size(games))
    total = games * (2 if rotate_seats else 1)
    progress = bar(total, label, names)
    try:
        resume = (run_dir / MANIFEST).exists() and unplayed_status(run_dir) is None  # a failed first try: anew
        outcome = execute_run(spec, run_dir, jobs=jobs, backend=backend, resume=resume,
                              command=command,
                              progress=progress.update, rules_diff=rules_diff(rs))
    except RunError as exc:
        raise ReportError(f"{label}: {exc}", getattr(exc, "traceback", "")) from None
    finally:
        progress.close()
    kept = f" (and kept {outcome.kept:,} an earlier run had finished)" if outcome.kept else ""
    what = (f"played {outcome.games - outcome.kept:,} games{kept} in {outcome.wall_seconds:.1f} s"
            if outcome.hands_per_s else "reused the finished run (nothing played)")
    say(f"{label}: {what} -> {run_dir}")
    return open_run(run_dir)


def play_all(settings: Sequence[Setting], seed: int, games: int, out: Path, jobs: int, cmd: str,
             labels: Sequence[str], rotate_seats: bool = False, backend: str | Backend = "local", *,
             bar: Callable[[int, str, Sequence[str]], Bar] = no_bar,
             say: Callable[[str], None] = lambda line: None) -> list[tuple[str, Run]]:
    """Play (or reuse) one run per setting ``(key, rules, seats)`` into ``out/<label>``, all on ``backend`` (the
    command's open backend). Ctrl-C (or SIGTERM) keeps every finished run and chunk and raises
    :class:`StudyInterrupted`: the same command continues."""
    runs: list[tuple[str, Run]] = []
    try:
        for (key, rs, names), label in zip(settings, labels, strict=True):
            runs.append((key, play_or_reuse(rs, names, seed, games, out / safe_name(label), jobs, label,
                                            shlex.split(cmd), rotate_seats, backend, bar=bar, say=say)))
    except KeyboardInterrupt as exc:
        raise StudyInterrupted(len(runs), out, int(getattr(exc, "signum", signal.SIGINT))) from None
    except ClusterLost as exc:  # the same command reuses every finished run and chunk
        raise exc.keep(f"{len(runs)} finished run(s) and the finished chunks of the next are kept in {out}",
                       shlex.split(cmd)[1:], override=True) from None
    return runs
