"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from scoring_paths import api_scores, cli_scores


def pytest_sessionstart(session: pytest.Session) -> None:
    """With SIMCLI_EXPECT_COMPILED=1 (tests/test_compiled.py runs engine tests on the compiled build this way),
    refuse to run unless the engine and the built-in strategies really are imported from the compiled build."""
    if os.environ.get("SIMCLI_EXPECT_COMPILED") == "1":
        import simcli.engine.deal

        if (simcli.engine.deal.__file__ or "").endswith(".py"):
            raise pytest.UsageError(f"SIMCLI_EXPECT_COMPILED=1 but simcli.engine.deal is {simcli.engine.deal.__file__}")
        from simcli.players.loading import load_strategy, strategy_build

        if strategy_build(load_strategy("greedy")) != "compiled":  # the built-ins by name: the compiled ones too
            raise pytest.UsageError("SIMCLI_EXPECT_COMPILED=1 but load_strategy('greedy') is not compiled")


@pytest.fixture(params=["api", "cli"])
def scorer(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Score a position through the Python API or through ``simcli score --json``."""
    if request.param == "api":
        return api_scores
    return lambda position: cli_scores(tmp_path, position)
