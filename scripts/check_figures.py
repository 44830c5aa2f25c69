"""Check that the figures quoted in README.md, docs/ and results/ still come out of the commands beside them.

Usage: ``python scripts/check_figures.py [--slow] [--only ID|PATTERN ...] [--list] [--keep DIR]``

* The quoted figures are declared in ``scripts/figures.toml`` (the quote's pattern, its command and where the
  figure is in the command's output). Each command runs in a fresh empty folder with the checkout's ``simcli``
  first on ``PATH``; the check fails when a quoted value differs from the one printed now.
* With ``--slow`` also the expensive ones: the search players' matches (docs/strategies.md) and every published
  study (``results/studies/*.csv``): each page's "Regenerate" command is run and the CSV it writes is compared
  line by line with the committed one (the page's table and findings are read off that table).

Every mismatch is one line, ``FILE:LINE: NAME quoted 'OLD', the command gives 'NEW' (COMMAND)``, and the exit
status is 1 when there is any (2 for a declaration that is itself wrong: a quote not found, a command not beside
its quote). ``tests/test_figures.py`` runs the cheap checks in the default test run.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "scripts" / "figures.toml"
STUDIES = Path("results") / "studies"
#: How far (in lines) a figure's command may be from the quote, unless the figure says otherwise.
DEFAULT_NEAR = 12


class DeclarationError(ValueError):
    """A figure declaration that cannot be checked: its quote is missing or repeated, its command is not beside it."""


@dataclass(frozen=True)
class Figure:
    """One quote in a file and where the same values are in the command's output."""

    file: str
    doc: str
    out: str
    near: int = DEFAULT_NEAR
    digits: int | None = None


@dataclass(frozen=True)
class Check:
    """A shell command and the quotes it must reproduce (or, for a study, the CSV file it must rewrite)."""

    id: str
    command: str
    figures: tuple[Figure, ...] = ()
    slow: bool = False
    #: For a study: the committed CSV (relative to the root) that the command writes again (same relative path).
    csv: str | None = None


@dataclass
class Mismatch:
    """A quoted value that the command no longer gives (or a broken declaration, ``declaration=True``)."""

    file: str
    line: int
    name: str
    quoted: str
    now: str
    command: str
    declaration: bool = field(default=False)

    def __str__(self) -> str:
        if self.declaration:
            return f"{self.file}:{self.line}: {self.name}: {self.now} ({self.command})"
        return f"{self.file}:{self.line}: {self.name} quoted '{self.quoted}', the command gives '{self.now}' " \
               f"({self.command})"


# ------------------------------------------------------------------------------------------ declarations
def load_checks(registry: Path = REGISTRY, root: Path = ROOT, *, studies: bool = True) -> list[Check]:
    """The checks of ``registry`` followed (with ``studies``) by one per published study under ``root``."""
    data = tomllib.loads(registry.read_text(encoding="utf-8"))
    checks = [Check(id=c["id"], command=c["command"], slow=bool(c.get("slow", False)),
                    figures=tuple(Figure(file=f["file"], doc=f["doc"], out=f["out"],
                                         near=int(f.get("near", DEFAULT_NEAR)), digits=f.get("digits"))
                                  for f in c.get("figure", [])))
              for c in data.get("check", [])]
    return checks + (study_checks(root) if studies else [])


def study_commands(page: str) -> list[str]:
    """The ``simcli`` commands of a study page's "Regenerate" paragraph (or of the code block it introduces)."""
    _, sep, rest = page.partition("Regenerate")
    if not sep:
        return []
    paragraphs = rest.split("\n\n", 2)
    if paragraphs[0].rstrip().endswith(":") and len(paragraphs) > 1 and paragraphs[1].lstrip().startswith("```"):
        code = paragraphs[1].split("```", 2)[1]
        return [line.strip() for line in code.splitlines() if line.strip().startswith("simcli ")]
    return re.findall(r"`(simcli [^`]+)`", paragraphs[0])


def study_checks(root: Path = ROOT) -> list[Check]:
    """One slow check per ``results/studies/NAME.csv``: the commands of ``NAME.md`` must write it again."""
    checks = []
    for table in sorted((root / STUDIES).glob("*.csv")):
        page = table.with_suffix(".md")
        commands = study_commands(page.read_text(encoding="utf-8")) if page.exists() else []
        if not commands:
            raise DeclarationError(f"{page.relative_to(root)}: no 'Regenerate' command for {table.name}")
        checks.append(Check(id=f"study:{table.stem}", command=" && ".join(commands), slow=True,
                            csv=str(table.relative_to(root))))
    return checks


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def locate(figure: Figure, command: str, root: Path) -> re.Match[str]:
    """The quote's match in its file; a missing or repeated quote, or a command that is not within
    ``figure.near`` lines of it, is a :class:`DeclarationError`."""
    text = (root / figure.file).read_text(encoding="utf-8")
    found = list(re.finditer(figure.doc, text))
    if len(found) != 1:
        raise DeclarationError(f"{figure.file}: the quote /{figure.doc}/ is found {len(found)} times, not once")
    match = found[0]
    line = _line_of(text, match.start())
    lines = text.splitlines()
    window = " ".join(lines[max(0, line - 1 - figure.near): line + figure.near + _line_of(match.group(0), 0)])
    if _squash(command) not in _squash(window):
        raise DeclarationError(f"{figure.file}:{line}: the command `{command}` is not within {figure.near} lines "
                               "of its figure: write it beside the figure")
    return match


# ------------------------------------------------------------------------------------------ running
def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _rounded(text: str, digits: int | None) -> str:
    if digits is None:
        return text
    return re.sub(r"\d+\.\d+", lambda m: f"{float(m.group(0)):.{digits}f}", text)


def run_command(command: str, workdir: Path, bindir: Path) -> str:
    """Run ``command`` in ``workdir`` with ``bindir`` (the checkout's simcli) first on PATH; its stdout."""
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", "-c", f"set -e; {command}"], cwd=workdir, env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"`{command}` failed with exit {done.returncode}: {tail}")
    return done.stdout


def compare_output(check: Check, output: str, root: Path) -> list[Mismatch]:
    """The figures of ``check`` whose values differ in ``output`` (a figure missing from it is a mismatch too)."""
    problems = []
    for figure in check.figures:
        match = locate(figure, check.command, root)
        got = re.search(figure.out, output, re.S)
        for name, quoted in match.groupdict().items():
            now = "(not in the output)" if got is None else _rounded(_squash(got.group(name)), figure.digits)
            if _squash(quoted) != now:
                line = _line_of(match.string, match.start(name))
                problems.append(Mismatch(figure.file, line, name, _squash(quoted), now, check.command))
    return problems


def _rows(path: Path) -> tuple[list[str], dict[tuple[str, ...], tuple[int, dict[str, str]]]]:
    """A study CSV's columns and its rows by key (every column up to the metric: the level, the swept knob's value
    or the variant, then the metric), each with its line number. A sweep by level has a row per level, value and
    metric: keyed by level and metric alone, a level's rows of every value but the last would be lost."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        columns = list(reader.fieldnames or [])
        keys = columns[:columns.index("metric") + 1] if "metric" in columns[1:] else columns[:1]
        rows = {tuple(row[k] for k in keys): (n, row) for n, row in enumerate(reader, 2)}
    return columns, rows


def compare_csv(check: Check, workdir: Path, root: Path) -> list[Mismatch]:
    """Values of the study's committed CSV that the regenerated one does not reproduce: one mismatch per row and
    column (columns added since are not compared), and one per row missing on either side."""
    assert check.csv is not None
    new_path = workdir / check.csv
    if not new_path.exists():
        return [Mismatch(check.csv, 1, "table", "(committed)", f"the command wrote no {check.csv}", check.command)]
    old_columns, old = _rows(root / check.csv)
    _, new = _rows(new_path)
    problems = []
    for key, (line, row) in old.items():
        if key not in new:
            problems.append(Mismatch(check.csv, line, "/".join(key), "(row)", "(no such row)", check.command))
            continue
        fresh = new[key][1]
        for column in old_columns:
            if column in fresh and row[column] != fresh[column]:
                problems.append(Mismatch(check.csv, line, f"{'/'.join(key)} {column}", row[column], fresh[column],
                                         check.command))
    for key in new:
        if key not in old:
            problems.append(Mismatch(check.csv, len(old) + 2, "/".join(key), "(no such row)", "(row)", check.command))
    return problems


def run_check(check: Check, root: Path = ROOT, bindir: Path | None = None, keep: Path | None = None) -> list[Mismatch]:
    """Run one check in a fresh folder (temporary, or ``keep/ID`` to keep what it wrote, e.g. a regenerated
    study); its mismatches (none when every figure holds)."""
    bindir = bindir or Path(sys.executable).parent
    for figure in check.figures:  # a broken declaration is found before the command spends any time
        locate(figure, check.command, root)
    with tempfile.TemporaryDirectory(prefix="figures-") as tmp:
        workdir = Path(tmp) if keep is None else keep / re.sub(r"[^A-Za-z0-9._-]", "_", check.id)
        workdir.mkdir(parents=True, exist_ok=True)
        output = run_command(check.command, workdir, bindir)
        if check.csv is not None:
            return compare_csv(check, workdir, root)
        return compare_output(check, output, root)


def select(checks: Iterable[Check], *, slow: bool, only: Sequence[str] = ()) -> list[Check]:
    """The checks to run: the cheap ones, all with ``slow``, or those named in ``only``."""
    checks = list(checks)
    if only:
        unknown = [pattern for pattern in only if not any(fnmatch(c.id, pattern) for c in checks)]
        if unknown:
            raise SystemExit(f"no check matches {', '.join(unknown)}: known are {', '.join(c.id for c in checks)}")
        return [c for c in checks if any(fnmatch(c.id, pattern) for pattern in only)]
    return [c for c in checks if slow or not c.slow]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the selected checks and print each mismatch; 0 when every figure holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", action="store_true", help="also the expensive checks (studies, search players)")
    parser.add_argument("--only", nargs="+", default=(), metavar="ID",
                        help="only the checks matching these ids or patterns (study:*; see --list)")
    parser.add_argument("--list", action="store_true", help="list the checks and their commands")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="run each check in DIR/ID and keep what it wrote (a regenerated study's files)")
    args = parser.parse_args(argv)
    try:
        checks = select(load_checks(), slow=args.slow, only=args.only)
    except DeclarationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for c in checks:
            print(f"{c.id}{' (slow)' if c.slow else ''}: {c.command}")
        return 0
    failed = broken = 0
    for c in checks:
        print(f"{c.id}: {shlex.split(c.command)[1] if c.command else ''} ...", file=sys.stderr, flush=True)
        try:
            problems = run_check(c, keep=args.keep)
        except (DeclarationError, RuntimeError) as exc:
            print(f"error: {c.id}: {exc}")
            broken += 1
            continue
        for p in problems:
            print(p)
        failed += bool(problems)
    print(f"{len(checks) - failed - broken} of {len(checks)} checks hold", file=sys.stderr)
    return 2 if broken else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
