"""Model files for the learnt player's tests (issue 31): a model of random weights for any rule set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from simcli.rules.presets import load_rules
from simcli.strategies.learnt.catalogue import Catalogue
from simcli.strategies.learnt.model import rules_digest
from simcli.strategies.learnt.net_features import CANDIDATE_COLUMNS, COUNT_LAYOUT, FEATURE_VERSION, STATE_COLUMNS
from simcli.training.fit import save_model


def random_model(path: Path, variant: str = "classic", seed: int = 0, catalogue: dict[str, Any] | None = None,
                 **rules: object) -> Path:
    """A model of random weights for ``variant`` (with ``rules`` overridden): it picks candidates arbitrarily. With
    ``catalogue`` (a catalogue's table) a general model, whose rows end with that catalogue's rule features."""
    rng = np.random.default_rng(seed)
    width = STATE_COLUMNS + CANDIDATE_COLUMNS
    ruleset = load_rules(variant, dict(rules))
    meta: dict[str, Any] = {"variant": variant, "rules": ruleset.formatted(), "rules_digest": rules_digest(ruleset),
                            "feature_version": FEATURE_VERSION, "margin": 0.0}
    if catalogue is not None:
        meta["catalogue"] = catalogue
        width += len(Catalogue.from_dict(catalogue).columns())
    layers = [(rng.normal(size=(width, 8)), rng.normal(size=8)), (rng.normal(size=(8, 1)), np.zeros(1))]
    save_model(path, layers, np.zeros(width), np.ones(width), 50.0, meta)
    return path


def floats_of_counts(counts: np.ndarray) -> np.ndarray:
    """The float rows (simcli.strategies.learnt.net_features.decision_features) that rows of counts stand for
    (COUNT_LAYOUT)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.empty((counts.shape[0], len(COUNT_LAYOUT)))
    for j, (divisor, terms) in enumerate(COUNT_LAYOUT):
        total = sum(coefficient * counts[:, column] for column, coefficient in terms)
        out[:, j] = [int(t) / divisor for t in total]  # as the features divide: an int over an int
    return out
