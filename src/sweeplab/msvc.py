"""The Microsoft C runtime rand()/srand(): a 32-bit linear congruential generator, with jump-ahead.

    state = (state * 214013 + 2531011) mod 2**32
    rand() = (state >> 16) & 0x7FFF

Only bits 16..30 of the state reach rand(), and the low k bits of the state evolve on their
own, so `rand() % 2**j` depends only on `state mod 2**(16 + j)`: the root of the board cycles.
n steps compose to one LCG step (a**n, c * (a**n - 1) / (a - 1)), computed in O(log n).
"""

from __future__ import annotations

import numpy as np

from ._numba_cache import njit
from .errors import SweeplabError

MULTIPLIER = 214013
INCREMENT = 2531011
STATE_BITS = 32
MASK32 = (1 << 32) - 1
RAND_MAX = 0x7FFF


def check_state(state: int, bits: int = STATE_BITS) -> int:
    """A rand() state as a Python int, or a clear error."""
    if isinstance(state, bool) or not isinstance(state, (int, np.integer)):
        raise SweeplabError(f"a rand() state must be an integer, got {state!r}")
    if not 0 <= state < (1 << bits):
        raise SweeplabError(f"rand() state {state} is out of range; allowed 0..{(1 << bits) - 1}")
    return int(state)


def jump_params(n: int, bits: int = STATE_BITS) -> tuple[int, int]:
    """(A, C) with state -> (A * state + C) mod 2**bits equal to n rand() steps; O(log n)."""
    if n < 0:
        raise SweeplabError(f"cannot jump {n} steps; the generator only runs forward (n >= 0)")
    mask = (1 << bits) - 1
    acc_a, acc_c = 1, 0           # the identity map
    step_a, step_c = MULTIPLIER, INCREMENT  # 2**i steps, squared as i grows
    while n:
        if n & 1:
            acc_a, acc_c = (acc_a * step_a) & mask, (acc_c * step_a + step_c) & mask
        step_a, step_c = (step_a * step_a) & mask, (step_c * step_a + step_c) & mask
        n >>= 1
    return acc_a, acc_c


def jump(state: int, n: int, bits: int = STATE_BITS) -> int:
    """The state n rand() calls after `state` (mod 2**bits)."""
    a, c = jump_params(n, bits)
    return (a * state + c) & ((1 << bits) - 1)


def position(state: int, bits: int = STATE_BITS) -> int:
    """How many steps after state 0 the sequence mod 2**bits reaches `state` (a discrete log).

    The generator has full period 2**bits for every bits (c odd, a = 1 mod 4), and the low j bits
    of the state fix the position mod 2**j, so the position is found one bit at a time.
    """
    target = state & ((1 << bits) - 1)
    n = 0
    for j in range(bits):
        m = (1 << (j + 1)) - 1
        if jump(0, n, j + 1) != target & m:
            n += 1 << j
    return n


class MsvcRand:
    """srand()/rand() as the C runtime has them, with the state open to read and set.

    >>> r = MsvcRand(0)
    >>> [r.rand() for _ in range(3)]
    [38, 7719, 21238]
    """

    __slots__ = ("state",)

    def __init__(self, seed: int = 1):
        self.state = check_state(seed)

    def srand(self, seed: int) -> None:
        self.state = check_state(seed)

    def rand(self) -> int:
        self.state = (self.state * MULTIPLIER + INCREMENT) & MASK32
        return (self.state >> 16) & RAND_MAX

    def jump(self, n: int) -> None:
        """Skip n rand() calls in O(log n)."""
        self.state = jump(self.state, n)

    def __repr__(self) -> str:
        return f"MsvcRand({self.state})"


# --- numba side ------------------------------------------------------------------------------

@njit(inline="always")
def step(state):
    """One rand() call on a uint32 state: returns (new state, rand())."""
    state = np.uint32(state * np.uint32(MULTIPLIER) + np.uint32(INCREMENT))
    return state, np.int64((state >> np.uint32(16)) & np.uint32(RAND_MAX))


@njit
def rand_many(state, n):
    """n rand() values from `state`; returns (values int32[n], new state)."""
    out = np.empty(n, dtype=np.int32)
    s = np.uint32(state)
    for i in range(n):
        s, r = step(s)
        out[i] = r
    return out, s


def divisor_magic(d: int) -> int:
    """M with (r * M) >> 32 == r // d for every rand() value r < 2**15 and 1 <= d <= 2**16.

    Lets the kernels replace a division by a run-time width with a multiply and a shift.
    """
    return (1 << 32) // d + 1
