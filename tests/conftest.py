"""Fixtures shared by the test modules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scoring_paths import api_scores, cli_scores


@pytest.fixture(params=["api", "cli"])
def scorer(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Score a position through the Python API or through ``simcli score --json``."""
    if request.param == "api":
        return api_scores
    return lambda position: cli_scores(tmp_path, position)
