"""In-tree build backend: setuptools, plus mypy when ``SIMCLI_COMPILE=1`` asks for the compiled build.

The pure-Python package is the default install and the reference. With ``SIMCLI_COMPILE=1`` in the environment,
``pip install .`` (or ``pip install -e .``) also compiles the engine and the built-in strategies with mypyc
(setup.py), so the build environment needs mypy then, and only then.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the PEP 517 hooks we do not change)

#: mypyc ships inside mypy; the version is pinned so that a compiled build is reproducible.
MYPYC_REQUIREMENT = "mypy==2.4.1"


def _compiling() -> bool:
    return os.environ.get("SIMCLI_COMPILE", "").strip().lower() in ("1", "true", "yes", "on")


def get_requires_for_build_wheel(config_settings=None):  # noqa: ANN001, ANN201 (PEP 517 signature)
    """Setuptools' requirements, plus mypy for a compiled build."""
    extra = [MYPYC_REQUIREMENT] if _compiling() else []
    return _setuptools.get_requires_for_build_wheel(config_settings) + extra


def get_requires_for_build_editable(config_settings=None):  # noqa: ANN001, ANN201
    """Setuptools' requirements, plus mypy for a compiled build."""
    extra = [MYPYC_REQUIREMENT] if _compiling() else []
    return _setuptools.get_requires_for_build_editable(config_settings) + extra
