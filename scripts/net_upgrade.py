"""Upgrade a learnt model of feature version 1 to version 2 (issue 47), playing exactly as before.

Version 2 added the match's state under the rules at the end of a row's state part
(strategies/learnt/net_features.py, ``match_counts``: 8 columns). A version-1 model gets zero weights for them (their
scaling mean 0, deviation 1), so every value it gives, and every game it plays, is the same as before:

    python scripts/net_upgrade.py MODEL.npz [MORE.npz ...]      # rewrites each file in place

The metadata records ``"upgraded_from": 1``; the fit and data commands stay the ones that made the model (their data,
played again today, would be of version 2: `simcli train fit` on it makes a model of its own).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simcli.strategies.learnt.net_features import STATE_COLUMNS  # noqa: E402
from simcli.training.fit import save_model  # noqa: E402

#: The state columns of version 1 (version 2 appends the match columns after them).
OLD_STATE = 98


def upgrade(path: Path) -> bool:
    """Upgrade ``path`` in place; False when it is not of version 1 (left as it is)."""
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: np.asarray(npz[k]) for k in npz.files}
    meta = json.loads(str(arrays["meta"]))
    if meta.get("feature_version") != 1:
        return False
    new = STATE_COLUMNS - OLD_STATE

    def widen(a: np.ndarray, fill: float) -> np.ndarray:
        pad = np.full((new, *a.shape[1:]), fill, dtype=a.dtype)
        return np.concatenate([a[:OLD_STATE], pad, a[OLD_STATE:]])

    n = sum(1 for k in arrays if k.startswith("W"))
    layers = [(arrays[f"W{i}"], arrays[f"b{i}"]) for i in range(n)]
    layers[0] = (widen(layers[0][0], 0.0), layers[0][1])
    meta["feature_version"], meta["upgraded_from"] = 2, 1
    save_model(path, layers, widen(arrays["x_mean"], 0.0), widen(arrays["x_scale"], 1.0), float(arrays["y_scale"]),
               meta)
    return True


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: {'upgraded to feature version 2' if upgrade(Path(name)) else 'not of version 1: left'}")
