"""Peak memory and time of ``simcli report`` and ``simcli compare`` on Classic runs of growing size (issue 36).

    python scripts/report_bench.py [--games 10000,100000,1000000] [--dir results/runs/report-bench]
                                   [--synthetic-from 100000] [--reference OLD_TREE [--reference-max 100000]]

For each N it uses (or plays, with ``nice``) two Classic runs of N greedy games on seed 1, the preset and
``going_out_bonus=300``, in ``DIR/classic-N-base`` and ``DIR/classic-N-bonus300``, then runs ``simcli report`` of
the first and ``simcli compare`` of the two in a fresh interpreter each and prints its peak resident memory
(``/usr/bin/time``'s maximum resident set size) and wall time. With ``--reference`` the same commands run on another
source tree too (the code before issue 36: ``git worktree add /tmp/old COMMIT``), up to ``--reference-max`` games.

A size of ``--synthetic-from`` times K (here 10^6 from 10^5) is not played (40 minutes of both cores) but built
from the smaller runs: their tables copied K times, game indices shifted by N/K each time (in row groups as
``simcli run`` writes them, or with ``--old-layout`` the copied runs' own, one a chunk as runs were written before
issue 36), with ``run.json`` recording the new tables' rows, sizes and checksums, so the run passes ``simcli
verify``. Its games are not the games the seeds would deal (game i + k N/K repeats game i), so its statistics mean
nothing; its tables have the size, shape and value distribution of a real run of N games, which is what the time
and memory of an analysis depend on. Its ``run.json`` says so (``synthetic``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = {"base": [], "bonus300": ["--rule", "going_out_bonus=300"]}


def run_dir(folder: Path, games: int, name: str) -> Path:
    """Where the benchmark keeps the run of ``games`` games with rules ``name``."""
    return folder / f"classic-{games}-{name}"


def complete(path: Path) -> bool:
    """Whether ``path`` holds a finished run."""
    try:
        return json.loads((path / "run.json").read_text()).get("status") == "complete"
    except (OSError, ValueError):
        return False


def play(path: Path, games: int, name: str, jobs: int | None) -> None:
    """Play (or finish) a benchmark run with ``nice``."""
    cmd = ["nice", "-n", "10", sys.executable, "-m", "simcli", "run", "--games", str(games), "--seed", "1",
           *RULES[name], "--quiet", "--out", str(path), *(["--jobs", str(jobs)] if jobs else [])]
    if (path / "run.json").exists():
        cmd.append("--resume")
    print("playing: " + " ".join(cmd[3:]), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)


def replicate(source: Path, target: Path, copies: int, row_group_rows: int | None = None) -> None:
    """A synthetic run of ``copies`` times ``source``'s games (see the module's doc), written into ``target``: in
    row groups of ``row_group_rows`` rows, as ``simcli run`` writes its tables now (default), or 0 to copy the
    source's row groups as they are (the layout of runs written before issue 36: one row group a chunk)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from simcli.runs.run_files import file_digest
    from simcli.runs.storage import ROW_GROUP_ROWS

    group_rows = ROW_GROUP_ROWS if row_group_rows is None else row_group_rows

    manifest = json.loads((source / "run.json").read_text())
    shift = int(manifest["spec"]["games"])
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    tables = {}
    for name in ("games", "deals"):
        reader = pq.ParquetFile(source / f"{name}.parquet")
        out = tmp / f"{name}.parquet"
        with pq.ParquetWriter(out, reader.schema_arrow, compression="zstd") as writer:
            pending: list[pa.Table] = []
            for k in range(copies):
                for group in range(reader.num_row_groups):
                    table = reader.read_row_group(group)
                    index = table.column("game_index")
                    shifted = pc.add(index, pa.scalar(k * shift, index.type))
                    pending.append(table.set_column(table.schema.get_field_index("game_index"), "game_index",
                                                    shifted))
                    if sum(t.num_rows for t in pending) >= group_rows:
                        writer.write_table(pa.concat_tables(pending), row_group_size=group_rows or None)
                        pending = []
            if pending:
                writer.write_table(pa.concat_tables(pending), row_group_size=group_rows or None)
        tables[name] = {"file": out.name, "rows": pq.ParquetFile(out).metadata.num_rows,
                        "bytes": out.stat().st_size, "sha256": file_digest(out)}
    spec = {**manifest["spec"], "games": shift * copies}
    manifest.update(spec=spec, games=shift * copies, games_played=manifest["games_played"] * copies,
                    hands=manifest["hands"] * copies, chunks=manifest.get("chunks", 0) * copies, tables=tables)
    if copies > 1:
        manifest["synthetic"] = (f"{copies} copies of {source} with game indices shifted by {shift} each: not the "
                                 f"games of seed {spec['seed']}, only tables of this size for timing analyses "
                                 f"(scripts/report_bench.py)")
    else:
        manifest["relaid"] = (f"the tables of {source} rewritten in the row groups simcli run writes now (the same "
                              f"rows; scripts/report_bench.py --relayout)")
    (tmp / "run.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)


def small_groups(path: Path) -> bool:
    """Whether a run's deals table has the small row groups of runs written before issue 36 (one a chunk)."""
    import pyarrow.parquet as pq

    from simcli.runs.storage import ROW_GROUP_ROWS

    meta = pq.read_metadata(path / "deals.parquet")
    return meta.num_row_groups > 1 and meta.num_rows / meta.num_row_groups < ROW_GROUP_ROWS / 2


def measure(tree: Path, args: list[str]) -> tuple[float, float]:
    """Peak resident memory (MB) and wall seconds of ``python -m simcli ARGS`` with ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-P", "-m", "simcli", *args]  # -P: the working folder's simcli must not shadow tree's
    start = time.perf_counter()
    if Path("/usr/bin/time").exists():
        out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], env=env, cwd=ROOT, capture_output=True, text=True,
                             check=True)
        return int(out.stderr.strip().splitlines()[-1]) / 1024, time.perf_counter() - start
    import psutil  # without GNU time: sample the process's resident memory

    proc = psutil.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, proc.memory_info().rss)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.02)
    return peak / 2 ** 20, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="10000,100000,1000000", help="run sizes, comma-separated")
    parser.add_argument("--dir", type=Path, default=ROOT / "results" / "runs" / "report-bench")
    parser.add_argument("--synthetic-from", type=int, default=100000,
                        help="build larger runs from the runs of this size (0: play every size)")
    parser.add_argument("--reference", type=Path, help="another source tree to measure too (the code before)")
    parser.add_argument("--reference-max", type=int, default=100000, help="largest N to measure the reference on")
    parser.add_argument("--jobs", type=int, help="worker processes when playing")
    parser.add_argument("--relayout", action="store_true",
                        help="rewrite played runs written before issue 36 (a row group a chunk) in the row groups "
                             "simcli run writes now: the same rows")
    parser.add_argument("--old-layout", action="store_true",
                        help="build synthetic runs with the row groups of the copied runs (one a chunk, as runs "
                             "were written before issue 36), not those simcli run writes now")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON lines")
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.games.split(",")]
    trees = [("after", ROOT)] + ([("before", args.reference)] if args.reference else [])
    rows = []
    for n in sizes:
        synthetic = args.synthetic_from and n > args.synthetic_from and n % args.synthetic_from == 0
        for name in RULES:
            path = run_dir(args.dir, n, name)
            if complete(path):
                if args.relayout and not synthetic and small_groups(path):
                    print(f"rewriting {path} in the row groups simcli run writes now", flush=True)
                    replicate(path, path, 1)
                continue
            if synthetic:
                small = run_dir(args.dir, args.synthetic_from, name)
                if not complete(small):
                    play(small, args.synthetic_from, name, args.jobs)
                print(f"building {path} from {n // args.synthetic_from} copies of {small}", flush=True)
                replicate(small, path, n // args.synthetic_from, 0 if args.old_layout else None)
            else:
                play(path, n, name, args.jobs)
        base, bonus = run_dir(args.dir, n, "base"), run_dir(args.dir, n, "bonus300")
        commands = {"report": ["report", str(base)], "compare": ["compare", str(bonus), str(base)]}
        for label, tree in trees:
            if label == "before" and n > args.reference_max:
                continue
            for command, cmd_args in commands.items():
                mb, seconds = measure(tree, cmd_args)
                row = {"games": n, "synthetic": bool(synthetic), "command": command, "code": label,
                       "peak_mb": round(mb, 1), "seconds": round(seconds, 2)}
                rows.append(row)
                print(json.dumps(row) if args.json else
                      f"{n:>9,} games{' (synthetic)' if synthetic else '':12s} {command:8s} {label:6s} "
                      f"peak {mb:8.1f} MB  {seconds:7.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
