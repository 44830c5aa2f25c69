"""The analysis commands' outputs on small runs, pinned byte for byte (issue 20, item 5).

``produce(work)`` plays a few small runs into ``work`` and returns every output of ``report``, ``compare``,
``sweep``, ``balance``, ``tournament`` and ``plot`` it makes (text, Markdown, CSV, JSON and PNG), with the
temporary folder's path replaced by ``WORK``. tests/test_analysis_outputs.py compares them with
tests/data/analysis/; ``python tests/analysis_outputs.py --update`` rewrites those files, which is only right
when an output is meant to change (the statistics package was split into modules with every output kept).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from simcli.cli import main
from simcli.runs.storage import git_commit

DATA = Path(__file__).resolve().parent / "data" / "analysis"
SMALL = ["--jobs", "1"]
#: Metrics that reach every part of the metric registry: rates, means, clustered strategy metrics, pony order.
METRICS = "win_team_0,margin,deal_score,stock_out,strategy_win:greedy,strategy_score:greedy,first_player_win"
PONY_METRICS = "pony_pickup,pony_never,pony_pickup_first,pony_pickup_gap,pony_never:ponytail,deal_turns"
SPANISH_METRICS = "hidden_canastas,crossed_piles,exact_pick,exact_pick_score,went_out,canastas"


def simcli(*args: object) -> bytes:
    """``simcli ARGS`` in-process; its stdout (fails with the output unless it exits 0)."""
    argv = [str(a) for a in args]
    saved, sys.argv = sys.argv, ["simcli", *argv]  # commands record their command line (tournament.json)
    try:
        res = CliRunner().invoke(main, argv)
    finally:
        sys.argv = saved
    if res.exit_code != 0:
        raise AssertionError(f"simcli {' '.join(map(str, args))}: exit {res.exit_code}\n{res.output}")
    return res.stdout_bytes


def _runs(work: Path) -> dict[str, Path]:
    """The small runs the reports read: Classic plain and with a house rule, rotated mixed, Ponytail, Spanish."""
    specs = {
        "base": ["--games", "24", "--seed", "5"],
        "bonus": ["--games", "24", "--seed", "5", "--rule", "going_out_bonus=300", "--rule", "exact_cut_bonus=100"],
        "mixed": ["--games", "12", "--seed", "6", "--strategies", "greedy,random,greedy,random", "--rotate-seats"],
        "pony": ["--variant", "ponytail", "--games", "8", "--seed", "7", "--strategies",
                 "ponytail,greedy,ponytail,greedy", "--rotate-seats"],
        "spanish": ["--variant", "spanish", "--games", "8", "--seed", "8", "--strategies", "spanish"],
    }
    out = {}
    for name, args in specs.items():
        out[name] = work / name
        simcli("run", *args, *SMALL, "--quiet", "--out", out[name])
    return out


def _reports(runs: dict[str, Path], work: Path) -> dict[str, bytes]:
    got: dict[str, bytes] = {}
    for name, run in runs.items():
        for fmt in ("table", "markdown", "csv", "json"):
            got[f"report-{name}.{fmt}"] = simcli("report", run, "--format", fmt)
    got["report-mixed-strategy.json"] = simcli("report", runs["mixed"], "--by", "strategy", "--metric", METRICS,
                                               "--format", "json")
    got["report-mixed-seat.table"] = simcli("report", runs["mixed"], "--by", "seat", "--metric", METRICS)
    got["report-pony-metrics.json"] = simcli("report", runs["pony"], "--by", "strategy", "--metric", PONY_METRICS,
                                             "--json")
    got["report-spanish-metrics.table"] = simcli("report", runs["spanish"], "--by", "strategy", "--metric",
                                                 SPANISH_METRICS)
    return got


def _comparisons(runs: dict[str, Path]) -> dict[str, bytes]:
    base, bonus = runs["base"], runs["bonus"]
    metrics = "win_team_0,margin,deals,deal_score,stock_out,exact_cut,going_out_score"
    return {
        "compare.table": simcli("compare", bonus, base),
        "compare.json": simcli("compare", bonus, base, "--metric", metrics, "--json"),
        "compare.csv": simcli("compare", bonus, base, "--metric", metrics, "--format", "csv"),
        "compare-bootstrap.markdown": simcli("compare", bonus, base, "--metric", metrics, "--bootstrap", "200",
                                             "--bootstrap-seed", "3", "--format", "markdown"),
        "compare-unpaired.json": simcli("compare", runs["mixed"], base, "--unpaired", "--metric", metrics, "--json"),
    }


def _played(work: Path) -> dict[str, bytes]:
    """Commands that play their own games: sweep, balance, tournament (and the files they save)."""
    got: dict[str, bytes] = {}
    sweep = ["sweep", "--rule", "going_out_bonus=100,300,500", "--games", "10", "--seed", "9", "--metric",
             "win_team_0,margin,deals", *SMALL, "--out", work / "sweep"]
    got["sweep.table"] = simcli(*sweep)
    got["sweep.json"] = simcli(*sweep, "--json")
    got["sweep-rotated.csv"] = simcli("sweep", "--rule", "pony_size=11,13", "--variant", "ponytail", "--games", "4",
                                      "--seed", "9", "--rotate-seats", "--strategies",
                                      "ponytail,greedy,ponytail,greedy", "--metric",
                                      "strategy_win:ponytail,pony_pickup", *SMALL, "--out", work / "sweep-rot",
                                      "--format", "csv")
    balance = ["balance", "--variants", "classic,ponytail", "--games", "10", "--seed", "4", *SMALL,
               "--out", work / "balance"]
    got["balance.table"] = simcli(*balance, "--save", work / "balance-saved")
    got["balance.markdown"] = simcli(*balance, "--format", "markdown")
    for suffix in (".md", ".csv", ".json", ".png"):
        got[f"balance-saved{suffix}"] = (work / f"balance-saved{suffix}").read_bytes()
    tour = ["tournament", "greedy,random,ponytail", "--games", "4", "--seed", "3", *SMALL, "--quiet"]
    got["tournament.text"] = simcli(*tour, "--out", work / "tour")
    got["tournament.json"] = simcli(*tour, "--out", work / "tour-b", "--bootstrap", "50", "--json")
    return got


def _plots(runs: dict[str, Path], work: Path) -> dict[str, bytes]:
    got: dict[str, bytes] = {}
    cases = {
        "plot-margin-hist.png": [runs["base"], runs["bonus"], "--metric", "margin"],
        "plot-win-ci.png": [runs["base"], runs["bonus"], "--metric", "win_team_0", "--kind", "ci"],
        "plot-strategy-ecdf.png": [runs["mixed"], "--metric", "strategy_score:greedy", "--kind", "ecdf"],
        "plot-pony-box.png": [runs["pony"], "--metric", "pony_pickup", "--kind", "box"],
    }
    for name, args in cases.items():
        out = work / name
        got[f"{name}.stdout"] = simcli("plot", *args, "--out", out)
        got[name] = out.read_bytes()
    return got


def produce(work: Path) -> dict[str, bytes]:
    """Every pinned output, by file name, with ``work`` (the runs' folder) written as ``WORK``."""
    runs = _runs(work)
    got = {**_reports(runs, work), **_comparisons(runs), **_played(work), **_plots(runs, work)}
    # Folder names (run_dir, hints) and the source commit (run.json's git_commit, 12 digits in balance's notes)
    # appear in texts and JSON; a PNG holds neither (its bytes are left alone).
    prefix, commit = str(work).encode(), (git_commit() or "no commit").encode()
    return {k: v if k.endswith(".png") else v.replace(prefix, b"WORK").replace(commit, b"COMMIT")
            .replace(commit[:12], b"COMMIT") for k, v in got.items()}


#: The matplotlib release that drew the golden PNGs (their bytes hold its version and its rendering).
PLOTTING_LIBRARY = DATA.parent / "analysis-matplotlib-version.txt"


def same_plotting_library() -> bool:
    """Whether this matplotlib is the release that drew the golden PNGs."""
    import matplotlib

    return PLOTTING_LIBRARY.is_file() and PLOTTING_LIBRARY.read_text().strip() == matplotlib.__version__


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels (from its IHDR chunk)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def main_update() -> int:
    """Rewrite tests/data/analysis/ from the current code (``--update``); otherwise report what differs."""
    with tempfile.TemporaryDirectory() as tmp:
        got = produce(Path(tmp))
    if "--update" in sys.argv[1:]:
        DATA.mkdir(parents=True, exist_ok=True)
        for old in DATA.iterdir():
            old.unlink()
        for name, data in got.items():
            (DATA / name).write_bytes(data)
        import matplotlib

        PLOTTING_LIBRARY.write_text(matplotlib.__version__ + "\n")
        print(f"wrote {len(got)} files to {DATA}")
        return 0
    differ = [n for n, d in got.items() if not (DATA / n).is_file() or (DATA / n).read_bytes() != d]
    print(f"{len(got)} outputs, {len(differ)} differ" + (": " + ", ".join(differ) if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main_update())
