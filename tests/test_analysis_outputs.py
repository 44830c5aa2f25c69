"""The analysis commands print and save the same bytes as before simcli/stats.py became a package (issue 20).

tests/analysis_outputs.py plays a few small runs (Classic plain, with a house rule and rotated; Ponytail; Spanish)
and collects every output of report, compare, sweep, balance, tournament and plot in each format; each must equal
its file in tests/data/analysis/ byte for byte (about 20 s).
"""

from __future__ import annotations

import pytest
from analysis_outputs import DATA, png_size, produce, same_plotting_library


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
    if got != expected:
        at = next((i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b),
                  min(len(expected), len(got)))
        pytest.fail(f"{name} differs from byte {at}: expected {expected[max(0, at - 60):at + 60]!r}, "
                    f"got {got[max(0, at - 60):at + 60]!r}")

