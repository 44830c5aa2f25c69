"""Issue 50: every file a user hands simcli is checked at its reader against a schema, and a bad one is one clear line.

Two parts. The schemas and the docs name the same fields: the trace's events (docs/trace-format.md's table, and
the fields the engine writes), run.json and the done-markers (docs/results-format.md), the duplicate-play
manifests and a sweep's table (docs/analysis.md); and every real file fits its schema. Then the property: real
files of every kind (made once for the module with small games by ``scripts/fuzz_readers.py``) are mutated by
hypothesis (a field deleted, a value of another type, a line cut or dropped, two lines swapped, the file truncated,
bytes changed) and fed to the commands that read them (score, replay, report, compare, verify, plot, run/match/
tournament/ladder ``--resume``, train fit/eval, ``--rules``, ``net:model=``): each exits 0 (the mutation left a valid
file) or 1/2 with at most three lines on stderr, one ``Error:`` line and no traceback, and a failing command changes
no file of the folder it was handed and writes no output. A few examples per reader by default; ``-m slow`` runs
many more.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import load_script
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from test_trace_format_doc import documented

from simcli.duplicate.stored_schema import BATCH, LADDER_JSON, MATCH_JSON, STORED_MATCH, TOURNAMENT_JSON
from simcli.engine.trace_schema import DECISION_VALUES, EVENTS, line_problem
from simcli.primitives.schema import Record, problem, schema_fields
from simcli.reporting.sweep_schema import SWEEPS
from simcli.runs.run_schema import MARKER, RUN_JSON

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATA = Path(__file__).parent / "data"
fuzz = load_script("fuzz_readers")


# ---------------------------------------------------------------------------------------------- docs
def _top_level(text: str) -> set[str]:
    """The backticked field names of ``text`` outside parentheses (``a`` (``x``, ``y``), ``b`` -> a, b)."""
    depth, out = 0, []
    for ch in text:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")" and depth > 0
    return {t for t in re.findall(r"`([^`]+)`", "".join(out)) if re.fullmatch(r"\w+", t)}


def _all_names(text: str) -> set[str]:
    """Every backticked name of ``text`` and the quoted keys inside them."""
    out: set[str] = set()
    for tok in re.findall(r"`([^`]+)`", text):
        out.add(tok)
        out |= set(re.findall(r"\w+", tok))
    return out


def test_the_trace_schema_names_the_docs_fields() -> None:
    """Each event of docs/trace-format.md's table has a schema, and each schema field (nested ones too) is in its
    row; the doc test (test_trace_format_doc.py) checks that the engine writes nothing the rows lack."""
    rows, meld_keys = documented((DOCS / "trace-format.md").read_text("utf-8"))
    assert set(rows) == set(EVENTS)
    for kind, record in EVENTS.items():
        allowed = rows[kind] | (meld_keys if "MELD" in rows[kind] else set())
        assert schema_fields(record) - allowed == set(), kind
    for value in DECISION_VALUES.values():
        assert schema_fields(value) - rows["decision"] - meld_keys == set()


def test_every_real_trace_fits_the_schema() -> None:
    """The playthrough traces of every variant (search lines too) fit, line by line, with the fields the engine
    writes being exactly those the schema names (no field of a line left unchecked)."""
    seen: dict[str, set[str]] = {}
    for path in sorted(DATA.glob("playthrough-*.jsonl")):
        for i, line in enumerate(path.read_text("utf-8").splitlines()):
            ev = json.loads(line)
            assert line_problem(ev, i) is None, (path.name, i, line_problem(ev, i))
            seen.setdefault(ev["event"], set()).update(set(ev) - {"seq", "event"})
    for kind, keys in seen.items():
        assert keys <= EVENTS[kind].names(), kind
        assert set(EVENTS[kind].fields) <= keys, kind


def _section(doc: str, heading: str) -> str:
    return doc.split(heading, 1)[1].split("\n## ", 1)[0]


def test_the_run_schemas_name_the_docs_fields() -> None:
    """run.json: the top-level fields of docs/results-format.md's list are the schema's, and every nested field
    (spec, tables, repairs, rebuilt, build) is named in the section; a done-marker's are its example's."""
    doc = (DOCS / "results-format.md").read_text("utf-8")
    section = _section(doc, "## `run.json`")
    listing = section.split("\n\n")[1]
    assert _top_level(listing) == RUN_JSON.names()
    assert schema_fields(RUN_JSON) - _all_names(section) == set()
    example = json.loads(doc.split("### Done-markers", 1)[1].split("```json", 1)[1].split("```", 1)[0])
    assert set(example) == MARKER.names()
    assert problem(example, MARKER) is None
    assert set(example["files"]["games"]) <= schema_fields(MARKER)


@pytest.mark.parametrize(("name", "schema"), [("match.json", MATCH_JSON), ("tournament.json", TOURNAMENT_JSON),
                                              ("ladder.json", LADDER_JSON)])
def test_the_duplicate_manifests_name_the_docs_fields(name: str, schema: Record) -> None:
    doc = (DOCS / "analysis.md").read_text("utf-8")
    row = next(line for line in doc.splitlines() if line.startswith(f"| `{name}` |"))
    cell = row.split("|")[2]
    assert _top_level(cell) | {"schema"} == schema.names()
    spec = schema.fields["spec"]
    assert isinstance(spec, Record)
    assert spec.names() <= _all_names(cell)


@pytest.mark.parametrize(("name", "schema"), [("batches/batch-KKKKK.json", BATCH),
                                              ("matches/match-I-J.json", STORED_MATCH)])
def test_the_stored_matches_name_the_docs_fields(name: str, schema: Record) -> None:
    doc = (DOCS / "analysis.md").read_text("utf-8")
    row = next(line for line in doc.splitlines() if line.startswith(f"| `{name}` |"))
    assert _top_level(row.split("|")[2]) | {"schema"} == schema.names()


@pytest.mark.parametrize("kind", ["simcli.sweep/1", "simcli.sweep-levels/1"])
def test_the_sweep_schemas_name_the_docs_fields(kind: str) -> None:
    doc = " ".join((DOCS / "analysis.md").read_text("utf-8").split())
    listing = doc.split(f"`{kind}`: ", 1)[1]
    listing = listing[:listing.index("`rows`") + len("`rows`")]
    assert _top_level(listing) | {"schema"} == SWEEPS[kind].names()


# ---------------------------------------------------------------------------------------------- mutations
@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real files of every kind, made once: a trace, a run, a match, a tournament, a ladder, a sweep, a training
    data folder and its model, a position and a rules TOML."""
    root = tmp_path_factory.mktemp("fuzz")
    fuzz.make_files(root / "base")
    return root


def test_the_real_files_fit_their_schemas(files: Path) -> None:
    """Before any mutation every reader runs, and the files fit their schemas."""
    from simcli.duplicate.stored_schema import manifest_problem
    from simcli.training.data_schema import folder_problems

    base = files / "base"
    assert problem(json.loads((base / "run" / "run.json").read_text()), RUN_JSON) is None
    for name, folder in (("match.json", "match"), ("tournament.json", "tour"), ("ladder.json", "ladder")):
        assert manifest_problem(json.loads((base / folder / name).read_text()), name) is None
    assert folder_problems(base / "data") == []
    doc = json.loads((base / "sweep" / "sweep.json").read_text())
    assert problem(doc, SWEEPS[doc["schema"]]) is None
    res = fuzz.cli(["replay", base / "trace.jsonl", "--out", files / "page.html"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize(("key", "value"), [("rules", 5), ("rules_diff", 3.5), ("tables", [[1]]), ("strategies", 4),
                                            ("chunks", "x")])
def test_a_run_json_of_wrong_types_is_one_line(files: Path, key: str, value: Any) -> None:
    """The issue's run.json failures (report, compare, verify and resume raised AttributeError or TypeError on
    these before): each is one line naming the key, and the resume changes nothing."""
    run = files / "wrong-types"
    commands = (["report", run], ["compare", run, run], ["verify", run], ["run", "--resume", "--jobs", 1, "--out", run])
    for args in commands:
        if run.exists():
            shutil.rmtree(run)
        shutil.copytree(files / "base" / "run", run)
        manifest = json.loads((run / "run.json").read_text())
        manifest[key] = value
        (run / "run.json").write_text(json.dumps(manifest))
        before = (run / "run.json").read_bytes()
        res = fuzz.cli(args)
        assert res.exit_code == 1 and (res.exception is None or isinstance(res.exception, SystemExit)), args
        lines = res.stderr.splitlines()
        assert lines[-1].startswith("Error:") and len(lines) <= 2 and f"key '{key}" in res.stderr, res.stderr
        assert (run / "run.json").read_bytes() == before


class Draws:
    """The random choices of ``scripts/fuzz_readers.py``'s mutations, drawn by hypothesis (so they shrink)."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def randrange(self, n: int) -> int:
        return int(self.data.draw(hs.integers(0, max(n - 1, 0))))

    def randint(self, a: int, b: int) -> int:
        return int(self.data.draw(hs.integers(a, b)))

    def random(self) -> float:
        return float(self.data.draw(hs.floats(0, 1, exclude_max=True)))

    def choice(self, seq: Any) -> Any:
        return seq[self.randrange(len(seq))]


def _one_case(files: Path, reader: str, data: Any) -> None:
    outcome = fuzz.run_case(fuzz.READERS[reader], files / "base", files / "case", Draws(data))
    assert outcome.verdict in ("ok", "clean"), (outcome.why, outcome.mutations, outcome.args, outcome.stderr)


READER_NAMES = sorted(fuzz.READERS)
FAST = settings(max_examples=4, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SLOW = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("reader", READER_NAMES)
@FAST
@given(data=hs.data())
def test_a_mutated_file_is_one_clean_line(files: Path, reader: str, data: Any) -> None:
    _one_case(files, reader, data)


@pytest.mark.slow
@pytest.mark.parametrize("reader", READER_NAMES)
@SLOW
@given(data=hs.data())
def test_many_mutated_files_are_one_clean_line(files: Path, reader: str, data: Any) -> None:
    _one_case(files, reader, data)
