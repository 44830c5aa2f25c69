"""Feed every reader of a user's file mutated copies of real files, and count what is not one clean line (issue 50).

Real files are made once with small games (a trace, a run, a match, a tournament, a ladder, a sweep, a training
data folder and its model, a position, a rules TOML); then each case copies them, changes one to three things in
one file (a field deleted, a value of another type, a line cut, the file truncated, two lines swapped, a line
dropped) and runs the command that reads it, in this process (click's test runner). A case is

* ``ok``: exit 0 (the mutation left a valid file, or one the reader does not need);
* ``clean``: exit 1 or 2 (verify: also 3 and 4, its documented statuses), at most three lines on stderr, one of them
  starting ``Error:``, and no exception escaping the command;
* ``bad``: anything else: a traceback (an exception escaping), another exit status, more lines, no ``Error:`` line,
  or (issue 50, part 3) a failing command that changed a file of the folder it was handed.

    python scripts/fuzz_readers.py                       # every reader, the issue's counts, seed 50
    python scripts/fuzz_readers.py --readers replay,run --count 40 --seed 7 --show 3

The table printed is the issue's: mutated inputs per reader and how many were not one clean line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from simcli.cli import main

FAST = ["--rule", "max_hands=1"]

POSITION = {"variant": "classic", "rules": {"going_out_bonus": 100}, "teams": [
    {"melds": ["K K K K K K K", "8 8 8 8 8 2 JK", "5 5 5"], "threes": ["R3"], "hands": [[], ["9", "4"]],
     "went_out": True, "concealed": False},
    {"melds": ["Q Q Q 2", "6 6 6"], "threes": ["R3"], "hands": [["A", "JK", "7"], ["B3", "10"]], "went_out": False}]}
RULES_TOML = 'going_out_bonus = 150\nwild_rule = "WIKI"\n"canasta_bonus.natural" = 600\nmax_hands = 1\n'


def cli(args: list[str]) -> Any:
    """``simcli ARGS`` in this process."""
    return CliRunner().invoke(main, [str(a) for a in args])


def make_files(root: Path) -> None:
    """The real files every reader is fuzzed with, under ``root`` (a few seconds)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "position.json").write_text(json.dumps(POSITION, indent=1))
    (root / "rules.toml").write_text(RULES_TOML)
    steps = [
        ["play", "--seed", "7", "--strategies", "greedy,random", "--trace", root / "trace.jsonl", *FAST],
        # Hand and Foot (issue 48): a deal with the self-deal grabs, a buried upcard, walking and running into the foot
        ["play", "--variant", "handfoot", "--seed", "26", "--trace", root / "trace-handfoot.jsonl", *FAST],
        ["run", "--games", "4", "--seed", "1", "--jobs", "1", "--out", root / "run", "--quiet", *FAST],
        ["match", "greedy", "random", "-n", "4", "--jobs", "1", "--out", root / "match", *FAST],
        ["tournament", "greedy,random", "-n", "2", "--jobs", "1", "--out", root / "tour", *FAST],
        ["ladder", "--rungs", "random,greedy", "--pairs", "2", "--jump-pairs", "0", "--jobs", "1", "--out",
         root / "ladder", *FAST],
        ["sweep", "--rule", "going_out_bonus=100,200", "-n", "2", "--jobs", "1", "--set", "max_hands=1", "--out",
         root / "sweep", "--quiet"],
        ["train", "data", root / "data", "-n", "10", "--search", "mc:samples=2", "--strategies",
         "mc:samples=2,random,mc:samples=2,random", "--chunk", "5", "-q", *FAST],
        ["train", "fit", root / "data", root / "model.npz", "--epochs", "2"],
    ]
    for args in steps:
        res = cli(args)
        if res.exit_code != 0:
            raise SystemExit(f"cannot make the files: simcli {' '.join(map(str, args))}: {res.output}")


@dataclass(frozen=True)
class Reader:
    """A command that reads users' files: the files mutated (globs under the copy) and its command lines."""

    name: str
    files: tuple[str, ...]
    commands: tuple[Callable[[Path], list[Any]], ...]
    #: Extra exit statuses that are answers, not errors (verify's 3 and 4).
    statuses: frozenset[int] = frozenset()
    #: Paths (under the copy) a command may write even when it fails: none by default.
    outputs: tuple[str, ...] = ()


READERS: dict[str, Reader] = {r.name: r for r in (
    Reader("score", ("position.json",), (lambda d: ["score", d / "position.json"],)),
    Reader("rules", ("rules.toml",), (lambda d: ["rules", "show", "classic", "--rules", d / "rules.toml"],)),
    Reader("net-model", ("model.npz",), (lambda d: ["play", "--seed", "3", "--strategies",
                                                    f"net:model={d / 'model.npz'},greedy", *FAST],)),
    Reader("replay", ("trace.jsonl",), (lambda d: ["replay", d / "trace.jsonl", "--out", d / "page.html"],),
           outputs=("page.html",)),
    Reader("replay-handfoot", ("trace-handfoot.jsonl",), (
        lambda d: ["replay", d / "trace-handfoot.jsonl", "--out", d / "page.html"],), outputs=("page.html",)),
    Reader("run", ("run/run.json", "run/chunks/done-*.json"), (
        lambda d: ["report", d / "run"], lambda d: ["verify", d / "run"],
        lambda d: ["run", "--resume", "--out", d / "run", "--games", "4", "--seed", "1", "--jobs", "1", "--quiet",
                   *FAST],
        lambda d: ["compare", d / "run", d / "run"], lambda d: ["plot", d / "run", "--out", d / "plot.png"]),
           statuses=frozenset({3, 4}), outputs=("plot.png",)),
    Reader("sweep", ("sweep/sweep.json", "sweep/*/run.json"), (
        lambda d: ["compare", d / "sweep", d / "sweep" / "sweep.json"],
        lambda d: ["sweep", "--rule", "going_out_bonus=100,200", "-n", "2", "--jobs", "1", "--set", "max_hands=1",
                   "--out", d / "sweep", "--quiet"])),
    Reader("match", ("match/match.json", "match/batches/*.json"), (
        lambda d: ["match", "--resume", "--out", d / "match", "--jobs", "1"],)),
    Reader("tournament", ("tour/tournament.json", "tour/matches/*.json"), (
        lambda d: ["tournament", "--resume", "--out", d / "tour", "--jobs", "1"],)),
    Reader("ladder", ("ladder/ladder.json", "ladder/matches/*.json"), (
        lambda d: ["ladder", "--resume", "--out", d / "ladder", "--jobs", "1"],)),
    Reader("training", ("data/data.json", "data/done-*.json", "data/chunk-*.parquet"), (
        lambda d: ["train", "fit", d / "data", d / "fit.npz", "--epochs", "1"],
        lambda d: ["train", "eval", d / "model.npz", d / "data"]), outputs=("fit.npz",)),
)}

#: The issue's counts of mutated inputs per reader.
COUNTS = {"score": 150, "rules": 40, "net-model": 20, "replay": 150, "replay-handfoot": 60, "run": 120, "sweep": 40,
          "match": 40, "tournament": 40, "ladder": 40, "training": 40}


# ---------------------------------------------------------------------------------------------- mutations
ODD_VALUES: list[Any] = [0, -1, 7, 3.5, "K K", "x", "", [], [1, 2], {}, {"a": 1}, None, True, False]


def _place(doc: Any, rng: random.Random) -> tuple[Any, ...]:
    """A place in a JSON value: a key (or index) at the top, then, half the time each level, one inside it; so
    top-level fields (a run.json's ``rules``, its counts) are hit as often as the knobs inside ``rules``."""
    path: tuple[Any, ...] = ()
    value = doc
    while isinstance(value, (dict, list)) and value:
        key = rng.choice(list(value)) if isinstance(value, dict) else rng.randrange(len(value))
        path, value = (*path, key), value[key]
        if rng.random() < 0.5:
            break
    return path


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path[:-1]:
        doc = doc[p]
    return doc


def mutate_json(doc: Any, rng: random.Random) -> tuple[Any, str]:
    """``doc`` with a field deleted or a value of another type."""
    path = _place(doc, rng)
    if not path:
        return rng.choice(ODD_VALUES), "the whole value replaced"
    parent = _parent(doc, path)
    if rng.random() < 0.4 and isinstance(parent, dict):
        del parent[path[-1]]
        return doc, f"deleted {path}"
    old = parent[path[-1]]
    new = rng.choice([v for v in ODD_VALUES if type(v) is not type(old)])
    parent[path[-1]] = new
    return doc, f"{path}: {old!r:.30} -> {new!r}"


def mutate_text(text: str, rng: random.Random, jsonl: bool) -> tuple[str, str]:
    """One mutation of a text file: a JSON field (a line of a JSON-lines file, or the document), or a line cut,
    dropped or swapped, or the file truncated."""
    lines = text.split("\n")
    op = rng.choice(["field", "field", "field", "cut", "truncate", "swap", "drop"])
    if op == "field":
        try:
            if jsonl:
                i = rng.randrange(len([x for x in lines if x.strip()]))
                doc, what = mutate_json(json.loads(lines[i]), rng)
                lines[i] = json.dumps(doc, sort_keys=True, separators=(",", ":"))
                return "\n".join(lines), f"line {i + 1}: {what}"
            doc, what = mutate_json(json.loads(text), rng)
            return json.dumps(doc, indent=2), what
        except ValueError:
            op = "cut"
    if op == "truncate":
        n = rng.randrange(len(text) + 1)
        return text[:n], f"truncated at {n} of {len(text)}"
    i = rng.randrange(len(lines))
    if op == "cut":
        n = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:n]
        return "\n".join(lines), f"line {i + 1} cut at {n}"
    if op == "drop":
        del lines[i]
        return "\n".join(lines), f"line {i + 1} dropped"
    j = rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines), f"lines {i + 1} and {j + 1} swapped"


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A binary file (Parquet, .npz) truncated or with bytes changed."""
    if rng.random() < 0.5 or not data:
        n = rng.randrange(len(data) + 1)
        return data[:n], f"truncated at {n} of {len(data)}"
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out), "bytes changed"


def mutate_file(path: Path, rng: random.Random) -> str:
    """Change ``path`` in place once; what was done."""
    if path.suffix in (".parquet", ".npz"):
        data, what = mutate_bytes(path.read_bytes(), rng)
        path.write_bytes(data)
        return what
    text, what = mutate_text(path.read_text("utf-8"), rng, path.suffix == ".jsonl")
    path.write_text(text, "utf-8")
    return what


# ---------------------------------------------------------------------------------------------- a case
def _digests(folder: Path, skip: set[Path]) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p not in skip and p.name != "run.lock"}


@dataclass
class Outcome:
    """One mutated input and what the reader made of it."""

    reader: str
    mutations: list[str]
    args: list[str]
    verdict: str  # ok, clean or bad
    why: str = ""
    stderr: str = ""


def judge(reader: Reader, res: Any, before: dict[str, str], after: dict[str, str]) -> tuple[str, str]:
    """``(verdict, why)`` of a command's result."""
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        return "bad", f"traceback: {type(res.exception).__name__}: {str(res.exception)[:200]}"
    if res.exit_code == 0 or res.exit_code in reader.statuses:
        return "ok", ""
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    if res.exit_code not in (1, 2):
        return "bad", f"exit status {res.exit_code}"
    if "Traceback" in res.stderr:
        return "bad", "a traceback on stderr"
    if len(lines) > 3 or sum(x.startswith("Error:") for x in lines) != 1:
        return "bad", f"{len(lines)} lines on stderr, {sum(x.startswith('Error:') for x in lines)} Error: lines"
    if before != after:
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        return "bad", f"failed but changed {', '.join(changed[:3])}"
    return "clean", ""


def run_case(reader: Reader, base: Path, work: Path, rng: random.Random) -> Outcome:
    """Copy the files, mutate one of them one to three times, run one of the reader's commands."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(base, work)
    files = sorted(p for g in reader.files for p in work.glob(g))
    target = rng.choice(files)
    mutations = [f"{target.relative_to(work)}: {mutate_file(target, rng)}" for _ in range(rng.randint(1, 3))]
    args = [str(a) for a in rng.choice(reader.commands)(work)]
    skip = {work / o for o in reader.outputs}
    before = _digests(work, skip)
    res = cli(args)
    verdict, why = judge(reader, res, before, _digests(work, skip))
    if verdict != "ok" and any((work / o).exists() for o in reader.outputs) and res.exit_code != 0:
        verdict, why = "bad", f"failed but wrote {', '.join(o for o in reader.outputs if (work / o).exists())}"
    return Outcome(reader.name, mutations, args, verdict, why, res.stderr)


@dataclass
class Tally:
    """Counts of one reader."""

    cases: int = 0
    ok: int = 0
    clean: int = 0
    bad: list[Outcome] = field(default_factory=list)


def fuzz(readers: list[str], counts: dict[str, int], seed: int, base: Path, work: Path) -> dict[str, Tally]:
    """Run ``counts[r]`` mutated cases of every reader ``r``; the same seed gives the same cases."""
    out: dict[str, Tally] = {}
    for name in readers:
        rng = random.Random(f"{seed}-{name}")
        tally = out[name] = Tally()
        for _ in range(counts[name]):
            o = run_case(READERS[name], base, work, rng)
            tally.cases += 1
            if o.verdict == "ok":
                tally.ok += 1
            elif o.verdict == "clean":
                tally.clean += 1
            else:
                tally.bad.append(o)
    return out


def table(tallies: dict[str, Tally]) -> str:
    """The issue's table: mutated inputs, valid runs, clean refusals and what was not one clean line."""
    rows = ["| reader | mutated inputs | ran (valid) | one clean line | not one clean line |",
            "|---|---:|---:|---:|---:|"]
    for name, t in tallies.items():
        pct = f" ({100 * len(t.bad) / t.cases:.0f}%)" if t.bad and t.cases else ""
        rows.append(f"| {name} | {t.cases} | {t.ok} | {t.clean} | {len(t.bad)}{pct} |")
    return "\n".join(rows)


def main_(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readers", default=",".join(READERS), help="comma-separated readers (default: all)")
    ap.add_argument("--count", type=int, help="cases per reader (default: the issue's counts)")
    ap.add_argument("--seed", type=int, default=50)
    ap.add_argument("--show", type=int, default=2, help="failures shown per reader")
    args = ap.parse_args(argv)
    names = args.readers.split(",")
    counts = {n: args.count if args.count is not None else COUNTS[n] for n in names}
    with tempfile.TemporaryDirectory(prefix="fuzz-readers-") as tmp:
        t0 = time.monotonic()
        make_files(Path(tmp) / "base")
        tallies = fuzz(names, counts, args.seed, Path(tmp) / "base", Path(tmp) / "case")
    print(table(tallies))
    print(f"\nseed {args.seed}, {time.monotonic() - t0:.0f} s")
    for name, t in tallies.items():
        for o in t.bad[:args.show]:
            print(f"\n{name}: {o.why}\n  mutations: {'; '.join(o.mutations)}\n  command: simcli {' '.join(o.args)}\n"
                  f"  stderr: {o.stderr.strip()[-400:]}")
    return 1 if any(t.bad for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main_())
