"""numpy's :class:`~numpy.random.SeedSequence` state, computed with plain integers (compiled by mypyc).

A game builds three or four random streams, each ``default_rng(SeedSequence(seed, spawn_key=key))``; numpy's
SeedSequence spends most of the 13 microseconds a stream costs on small arrays and Python-level calls, not on its
arithmetic, about 4% of a heuristic game. :func:`seed_words` is the same arithmetic (numpy's ``bit_generator.pyx``:
``_coerce_to_uint32_array``, ``get_assembled_entropy``, ``mix_entropy``, ``hashmix``, ``mix`` and
``generate_state``) on integers kept below 2**34, so the compiled build never leaves machine words
(:func:`_mul32`).
:mod:`simcli.primitives.seeding` hands the words to ``PCG64``; tests/test_seeding.py compares them with numpy's own
over many seeds and keys, so a numpy that changed its (documented, stable) algorithm would be caught.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64

MASK32: Final = 0xFFFFFFFF
POOL_SIZE: Final = 4
INIT_A: Final = 0x43B0D7E5
MULT_A: Final = 0x931E8875
INIT_B: Final = 0x8B51F9DD
MULT_B: Final = 0x58F38DED
MIX_MULT_L: Final = 0xCA01F9DD
MIX_MULT_R: Final = 0x4973F715
XSHIFT: Final = 16


def _mul32(a: i64, b: i64) -> i64:
    """``(a * b) mod 2**32`` for ``a, b < 2**32``, from products of 16-bit halves (no product reaches 2**63: the
    words are native 64-bit integers on the compiled build, ``i64``, whose arithmetic is the machine's)."""
    a_low, a_high = a & 0xFFFF, a >> 16
    b_low, b_high = b & 0xFFFF, b >> 16
    return (a_low * b_low + (((a_high * b_low + a_low * b_high) & 0xFFFF) << 16)) & MASK32


def _words(value: int) -> list[int]:
    """A non-negative integer as 32-bit words, least significant first (``[0]`` for zero)."""
    if value < 0:
        raise ValueError(f"seed {value} is negative: a seed and its key words must be at least 0")
    if value == 0:
        return [0]
    out: list[int] = []
    while value:
        out.append(value & MASK32)
        value >>= 32
    return out


def _mix(x: i64, y: i64) -> i64:
    """numpy's ``mix`` of two 32-bit words."""
    # + 2**32 keeps the difference positive: & of a negative integer leaves the compiled fast path
    result = (_mul32(MIX_MULT_L, x) + (1 << 32) - _mul32(MIX_MULT_R, y)) & MASK32
    return result ^ (result >> XSHIFT)


def seed_words(seed: int, key: tuple[int, ...], n_words: int) -> list[int]:
    """The first ``n_words`` 32-bit words of ``SeedSequence(seed, spawn_key=key).generate_state(n_words)``."""
    entropy = _words(seed)
    spawn: list[int] = []
    for part in key:
        spawn.extend(_words(part))
    if spawn and len(entropy) < POOL_SIZE:
        entropy.extend([0] * (POOL_SIZE - len(entropy)))
    entropy.extend(spawn)
    # mix_entropy: hashmix's running constant is threaded through by hand (a closure or a callable object would
    # cost a Python call a word on the compiled build).
    hash_const: i64 = INIT_A
    value: i64 = 0
    pool: list[i64] = [0] * POOL_SIZE
    for i in range(POOL_SIZE):
        value = (entropy[i] if i < len(entropy) else 0) ^ hash_const
        hash_const = _mul32(hash_const, MULT_A)
        value = _mul32(value, hash_const)
        pool[i] = value ^ (value >> XSHIFT)
    for src in range(POOL_SIZE):  # the pool mixed with itself, every word into every other
        for dst in range(POOL_SIZE):
            if src != dst:
                value = pool[src] ^ hash_const
                hash_const = _mul32(hash_const, MULT_A)
                value = _mul32(value, hash_const)
                pool[dst] = _mix(pool[dst], value ^ (value >> XSHIFT))
    for src in range(POOL_SIZE, len(entropy)):  # then the entropy beyond the pool's size, into every pool word
        for dst in range(POOL_SIZE):
            value = entropy[src] ^ hash_const
            hash_const = _mul32(hash_const, MULT_A)
            value = _mul32(value, hash_const)
            pool[dst] = _mix(pool[dst], value ^ (value >> XSHIFT))
    const: i64 = INIT_B
    out: list[int] = []
    for i in range(n_words):
        value = pool[i % POOL_SIZE] ^ const
        const = _mul32(const, MULT_B)
        value = _mul32(value, const)
        out.append(value ^ (value >> XSHIFT))
    return out
