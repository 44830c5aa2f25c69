"""scripts/net_reads_mc.py (issue 32): the learnt model read as an opponent model of the player whose discards it
rates. Its values must be the ones ``net`` plays by: a ``net`` that always takes its best-rated discard is ranked
first by them at every natural discard, where another player is not."""

from __future__ import annotations

import numpy as np
from helpers import load_script


def test_the_net_values_read_a_net_player_exactly_and_another_player_not() -> None:
    nr = load_script("net_reads_mc")
    one = np.array([1.0])
    net_rows = nr.record("classic", "net:margin=0", 7, 1)
    greedy_rows = nr.record("classic", "greedy", 7, 1)
    assert len(net_rows) > 50 and len(greedy_rows) > 50
    _, _, top_net = nr.mean_loglik(one, nr.design(net_rows, "net"))
    _, _, top_greedy = nr.mean_loglik(one, nr.design(greedy_rows, "net"))
    assert top_net == 1.0  # its own argmax, at every natural discard
    assert top_greedy < 0.9
    # every row is a choice among more than one natural, the chosen one among them, with the logit's features
    for x, v, k in net_rows:
        assert x.shape == (len(v), 5) and 0 <= k < len(v) > 1
    # the fit finds a positive weight on the values (a higher value, a likelier discard)
    assert nr.fit(nr.design(net_rows, "net"))[0] > 0
