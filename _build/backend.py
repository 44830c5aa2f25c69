"""In-tree build backend: setuptools, plus mypy (mypyc) when the build compiles the engine.

A wheel (``pip install .``) is compiled by default where a C compiler and the Python headers are found, and falls
back to the pure-Python package otherwise; an editable install (``pip install -e .``) is pure unless
``SIMCLI_COMPILE=1``; ``SIMCLI_COMPILE=0`` forces pure. :mod:`compile_choice` decides (setup.py asks it too), and
this backend adds mypy to the build requirements exactly when the decision is to compile.
"""

from __future__ import annotations

import os
import sys

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the PEP 517 hooks we do not change)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # compile_choice beside this file
from compile_choice import choose_here  # noqa: E402

#: mypyc ships inside mypy; the version is pinned so that a compiled build is reproducible.
MYPYC_REQUIREMENT = "mypy==2.4.1"


def _extra(editable: bool) -> list[str]:
    """mypy when this build compiles, else nothing."""
    return [MYPYC_REQUIREMENT] if choose_here(editable).compile else []


def get_requires_for_build_wheel(config_settings=None):  # noqa: ANN001, ANN201 (PEP 517 signature)
    """Setuptools' requirements, plus mypy for a compiled build."""
    return _setuptools.get_requires_for_build_wheel(config_settings) + _extra(editable=False)


def get_requires_for_build_editable(config_settings=None):  # noqa: ANN001, ANN201
    """Setuptools' requirements, plus mypy for a compiled build (an editable one only with SIMCLI_COMPILE=1)."""
    return _setuptools.get_requires_for_build_editable(config_settings) + _extra(editable=True)
