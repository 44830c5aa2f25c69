"""The analysis commands print and save the same bytes as before simcli/stats.py became a package (issue 20).

tests/analysis_outputs.py plays a few small runs (Classic plain, with a house rule and rotated; Ponytail; Spanish)
and collects every output of report, compare, sweep, balance, tournament and plot in each format; each must equal
its file in tests/data/analysis/ byte for byte (about 20 s), except that a JSON or CSV file's floats may differ in
their last digits (FIT_TOLERANCE: an iterative fit's result moves with the numpy and scipy releases, and a mean or
interval added up from per-game sums, issue 36, in another order than from the observations).
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import pytest
from analysis_outputs import DATA, png_size, produce, same_plotting_library

#: JSON numbers that come out of an iterative fit (the tournament's ratings) may move in their last digits with
#: another numpy or scipy release; such a file is compared value by value at this relative tolerance instead.
FIT_TOLERANCE = 1e-9


def same_json(a: Any, b: Any, path: str = "") -> str | None:
    """Where two parsed JSON documents differ beyond :data:`FIT_TOLERANCE` for floats (None when they agree)."""
    if isinstance(a, float) or isinstance(b, float):
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
        if numbers and (math.isclose(a, b, rel_tol=FIT_TOLERANCE, abs_tol=FIT_TOLERANCE)
                        or (math.isnan(a) and math.isnan(b))):
            return None
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        return next((d for k in a if (d := same_json(a[k], b[k], f"{path}.{k}")) is not None), None)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        diffs = (same_json(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True)))
        return next((d for d in diffs if d is not None), None)
    return None if a == b else f"{path}: {a!r} != {b!r}"


def csv_cells(data: bytes) -> list[list[Any]]:
    """A CSV file's cells, numbers as floats: compared as JSON is (:func:`same_json`), because a mean or interval
    computed from per-game sums (issue 36) may differ from the observations' in its last digits."""
    def cell(text: str) -> Any:
        try:
            return float(text)
        except ValueError:
            return text
    return [[cell(c) for c in row] for row in csv.reader(io.StringIO(data.decode("utf-8")))]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return produce(tmp_path_factory.mktemp("analysis-outputs"))


def test_every_pinned_output_is_produced(outputs: dict[str, bytes]) -> None:
    assert sorted(outputs) == sorted(p.name for p in DATA.iterdir())


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.iterdir()))
def test_output_is_byte_identical(outputs: dict[str, bytes], name: str) -> None:
    expected = (DATA / name).read_bytes()
    got = outputs.get(name)
    assert got is not None, f"{name} is no longer produced"
    if name.endswith(".png") and not same_plotting_library():
        # PNG bytes carry matplotlib's version and its rendering: with another release than the one that made the
        # golden files, only the picture's size is compared (regenerate with python tests/analysis_outputs.py
        # --update after checking the pictures by eye).
        assert png_size(got) == png_size(expected), f"{name}: size {png_size(got)}, golden {png_size(expected)}"
        return
    if got != expected and name.endswith(".json"):
        where = same_json(json.loads(expected), json.loads(got))
        assert where is None, f"{name} differs at {where}"
        return
    if got != expected and name.endswith(".csv"):
        where = same_json(csv_cells(expected), csv_cells(got))
        assert where is None, f"{name} differs at {where}"
        return
    if got != expected:
        at = next((i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b),
                  min(len(expected), len(got)))
        pytest.fail(f"{name} differs from byte {at}: expected {expected[max(0, at - 60):at + 60]!r}, "
                    f"got {got[max(0, at - 60):at + 60]!r}")



def test_csv_cells_compare_at_the_fit_tolerance() -> None:
    a = csv_cells(b"metric,value,method\nmargin,13.387967355795006,t\n")
    assert a == [["metric", "value", "method"], ["margin", 13.387967355795006, "t"]]
    assert same_json(a, csv_cells(b"metric,value,method\nmargin,13.387967355795004,t\n")) is None
    assert same_json(a, csv_cells(b"metric,value,method\nmargin,13.39,t\n")) is not None
    assert same_json(a, csv_cells(b"metric,value,method\nmargin,13.387967355795006,wilson\n")) is not None


def test_json_floats_compare_at_the_fit_tolerance_and_nothing_else_does() -> None:
    assert same_json({"r": [49.063571372607065, 1]}, {"r": [49.06357137260707, 1]}) is None
    assert same_json({"r": 49.0636}, {"r": 49.0637}) == ".r: 49.0636 != 49.0637"
    assert same_json({"n": 3}, {"n": 4}) == ".n: 3 != 4"
    assert same_json([float("nan")], [float("nan")]) is None and same_json([float("nan")], [1.0]) is not None
    assert same_json({"s": "a"}, {"s": "b"}) is not None
    assert same_json({"a": 1, "b": 2}, {"b": 2, "a": 1}) is not None  # key order is part of the bytes
