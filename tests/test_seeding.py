"""The cheap stream builder of simcli.primitives.seeding gives numpy's own streams, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcli.primitives.seed_state import seed_words
from simcli.primitives.seeding import _rng, deal_rng, first_dealer

SEEDS = [0, 1, 2, 7, 31337, 2**32 - 1, 2**32, 2**40 + 7, 2**64 + 3, 2**100 + 5]
KEYS = [(), (0,), (0, 0), (5, 1, 3), (123456, 2), (2**33, 0), (1, 1, 1, 1, 1, 1)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("key", KEYS)
def test_seed_words_are_numpys(seed: int, key: tuple[int, ...]) -> None:
    expected = np.random.SeedSequence(seed, spawn_key=key).generate_state(8, np.uint32).tolist()
    assert seed_words(seed, key, 8) == expected


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**70), key=st.lists(st.integers(0, 2**40), max_size=5))
def test_streams_are_numpys(seed: int, key: list[int]) -> None:
    ours = _rng(seed, *key)
    theirs = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=tuple(key)))
    assert ours.bit_generator.state == theirs.bit_generator.state
    assert ours.integers(0, 2**31, 20).tolist() == theirs.integers(0, 2**31, 20).tolist()


def test_game_streams_keep_their_keys() -> None:
    deck = list(range(108))
    ours = deal_rng(3, 17)
    ours.shuffle(deck)
    again = list(range(108))
    np.random.default_rng(np.random.SeedSequence(3, spawn_key=(17, 0))).shuffle(again)
    assert deck == again and deck != list(range(108))
    assert first_dealer(3, 17, 4) == int(np.random.default_rng(
        np.random.SeedSequence(3, spawn_key=(17, 2))).integers(4))


def test_negative_seed_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="seed -1 is negative"):
        seed_words(-1, (0,), 8)
