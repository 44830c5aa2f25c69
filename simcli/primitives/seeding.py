"""Random streams: every stream of a game derives from (master seed, game index) alone.

Stream keys under ``SeedSequence(master_seed, spawn_key=...)``:

* ``(game, 0)``       -- the deals of the game, in order: each deal's shuffle, then its cuts;
* ``(game, 1, seat)`` -- the strategy in ``seat``;
* ``(game, 2)``       -- the first dealer.

So game ``i`` plays the same whatever ran before it, in whichever process, and the
global ``random`` / ``np.random`` states are never touched.
"""

from __future__ import annotations

import numpy as np
from numpy.random.bit_generator import ISeedSequence

from simcli.primitives.seed_state import seed_words


class _SeedState:
    """The state words of ``SeedSequence(master_seed, spawn_key=key)``, computed by
    :func:`~simcli.primitives.seed_state.seed_words`, in the shape ``PCG64`` asks of a seed sequence.

    ``PCG64(SeedSequence(...))`` costs about 13 microseconds, mostly numpy's SeedSequence machinery; this one
    about 5 on the compiled build (and twice numpy's in the pure package), for the same stream
    (tests/test_seeding.py). It is no SeedSequence: a generator built on it cannot ``spawn``; none of ours does.
    """

    __slots__ = ("_words",)

    def __init__(self, master_seed: int, key: tuple[int, ...]) -> None:
        self._words = seed_words(master_seed, key, 8)  # PCG64 asks for 4 uint64 words: 8 uint32

    def generate_state(self, n_words: int, dtype: type = np.uint32) -> np.ndarray:
        """The first ``n_words`` words as ``dtype`` (``numpy.uint32`` or ``numpy.uint64``), as SeedSequence's."""
        kind = np.dtype(dtype)
        if kind == np.uint64 and n_words <= 4:
            return np.array(self._words[:2 * n_words], dtype="<u4").view("<u8").astype(np.uint64, copy=False)
        if kind == np.uint32 and n_words <= 8:
            return np.array(self._words[:n_words], dtype=np.uint32)
        raise ValueError(f"{n_words} words of {kind} asked of a seed state that holds 8 uint32 words")


ISeedSequence.register(_SeedState)


#: Whether :func:`~simcli.primitives.seed_state.seed_words` is compiled (a compiled function has no ``__code__``).
#: In the pure package numpy's own SeedSequence is the faster of the two, and the streams are the same.
COMPILED_SEED_WORDS = not hasattr(seed_words, "__code__")


def seed_state_rng(master_seed: int, key: tuple[int, ...]) -> np.random.Generator:
    """``default_rng(SeedSequence(master_seed, spawn_key=key))`` built from :class:`_SeedState` (the same stream)."""
    return np.random.Generator(np.random.PCG64(_SeedState(master_seed, key)))  # type: ignore[arg-type]


def _rng(master_seed: int, *key: int) -> np.random.Generator:
    """``default_rng(SeedSequence(master_seed, spawn_key=key))``: on the compiled build through
    :func:`seed_state_rng`, at half the cost; in the pure package through numpy's SeedSequence itself."""
    if COMPILED_SEED_WORDS:
        return seed_state_rng(master_seed, key)
    return np.random.default_rng(np.random.SeedSequence(master_seed, spawn_key=key))


def deal_rng(master_seed: int, game_index: int) -> np.random.Generator:
    """The stream that shuffles and cuts the deals of game ``game_index``, one deal after another."""
    return _rng(master_seed, game_index, 0)


class LazyGenerator:
    """A :class:`numpy.random.Generator` built on first use (most strategies never draw a number).

    Attribute access is forwarded to the real generator, so ``rng.integers(...)`` works as usual;
    the stream is the same as building it eagerly.
    """

    __slots__ = ("_key", "_gen")

    def __init__(self, *key: int):
        self._key = key
        self._gen: np.random.Generator | None = None

    def __getattr__(self, name: str) -> object:
        gen = self._gen
        if gen is None:
            gen = self._gen = _rng(*self._key)
        return getattr(gen, name)


def seat_rng(master_seed: int, game_index: int, seat: int) -> np.random.Generator:
    """The stream of the strategy in ``seat`` for game ``game_index`` (built lazily, on first use)."""
    return LazyGenerator(master_seed, game_index, 1, seat)  # type: ignore[return-value]


def first_dealer(master_seed: int, game_index: int, num_players: int) -> int:
    """The first dealer of game ``game_index``, drawn uniformly."""
    return int(_rng(master_seed, game_index, 2).integers(num_players))


def shuffled_deck(rng: np.random.Generator, pack: list[int]) -> list[int]:
    """A uniformly shuffled copy of ``pack`` (``result[0]`` is the top card)."""
    # rng.shuffle of a list makes the same swaps, from the same draws, as rng.permutation(len(pack)) does of its
    # indices, so this is pack[rng.permutation(len(pack))] at half the cost (no array to build and index).
    deck = list(pack)
    rng.shuffle(deck)
    return deck


def human_cut(rng: np.random.Generator, target: int, sigma: float, deck_size: int) -> int:
    """The human-grab cut model of RULES.md §1.14: ``round(target + e)``, ``e ~ Normal(0, sigma)``."""
    count = target if sigma == 0 else int(round(target + rng.normal(0.0, sigma)))
    return max(1, min(deck_size - 1, count))
