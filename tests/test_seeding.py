"""The cheap stream builder of simcli.primitives.seeding gives numpy's own streams, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcli.primitives.seed_state import seed_words
from simcli.primitives.seeding import _rng, deal_rng, first_dealer, seed_state_rng

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
    theirs = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=tuple(key)))
    expected = theirs.bit_generator.state
    draws = theirs.integers(0, 2**31, 20).tolist()
    for ours in (seed_state_rng(seed, tuple(key)), _rng(seed, *key)):  # the builder, and the one games use
        assert ours.bit_generator.state == expected
        assert ours.integers(0, 2**31, 20).tolist() == draws


def test_game_streams_keep_their_keys() -> None:
    deck = list(range(108))
    ours = deal_rng(3, 17)
    ours.shuffle(deck)
    again = list(range(108))
    np.random.default_rng(np.random.SeedSequence(3, spawn_key=(17, 0))).shuffle(again)
    assert deck == again and deck != list(range(108))
    assert first_dealer(3, 17, 4) == int(np.random.default_rng(
        np.random.SeedSequence(3, spawn_key=(17, 2))).integers(4))


def test_the_compiled_build_builds_streams_from_seed_words() -> None:
    """Compiled, the games' streams come from the compiled seed words; pure, from numpy's SeedSequence (the faster
    there). tests/test_compiled.py runs this file on the compiled build too."""
    from simcli.primitives import seed_state, seeding

    assert seeding.COMPILED_SEED_WORDS == seed_state.__file__.endswith((".so", ".pyd"))


def test_negative_seed_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="seed -1 is negative"):
        seed_words(-1, (0,), 8)
