"""Seeds: every random thing in sweeplab flows from one 64-bit key through splitmix64.

splitmix64 is tiny, fast inside numba and fixed forever, so the same seed gives the
same board on every machine and in every later version (golden vectors pin it).
"""

from __future__ import annotations

import numpy as np

from ._numba_cache import njit
from .errors import SweeplabError

MASK64 = (1 << 64) - 1
# What a seed may be: an int (its low 64 bits are the key) or a numpy Generator (draws the key)
Seed = int | np.integer | np.random.Generator
GOLDEN = 0x9E3779B97F4A7C15


def seed_key(seed: Seed | None) -> int:
    """Turn an int seed or a numpy Generator into the 64-bit key the kernels use."""
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 1 << 63, dtype=np.int64)) * 2 + int(seed.integers(0, 2))
    if seed is None:
        raise SweeplabError("a seed is required (an int or a numpy.random.Generator); sweeplab never draws one silently")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise SweeplabError(f"seed must be an int or a numpy.random.Generator, got {seed!r}")
    if seed < 0:
        raise SweeplabError(f"seed must be a non-negative integer, got {seed}")
    return int(seed) & MASK64


def stream_key(key: int, index: int) -> int:
    """The key of game `index` of a batch seeded with `key`: the same whatever the batching."""
    return mix64((key + (index + 1) * GOLDEN) & MASK64)


def mix64(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK64
    return z ^ (z >> 31)


@njit(inline="always")
def next_u64(state):
    """One splitmix64 step: returns (new state, output)."""
    state = (state + np.uint64(GOLDEN)) & np.uint64(MASK64)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(inline="always")
def below(state, n):
    """A uniform integer in [0, n) by rejection (no modulo bias); returns (state, value)."""
    n64 = np.uint64(n)
    limit = np.uint64(MASK64) - (np.uint64(MASK64) % n64)
    while True:
        state, r = next_u64(state)
        if r < limit:
            return state, np.int64(r % n64)
