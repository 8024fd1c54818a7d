"""The C runtime rand(): published values, jump-ahead, positions, the numba path, the low-bits fact."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sweeplab.errors import SweeplabError
from sweeplab.msvc import MsvcRand, divisor_magic, jump, jump_params, position, rand_many

states = st.integers(0, 2**32 - 1)


def plain_rand(state, n):
    """rand() written straight from the spec, one step at a time."""
    out = []
    for _ in range(n):
        state = (state * 214013 + 2531011) % 2**32
        out.append((state >> 16) & 0x7FFF)
    return out, state


def test_published_sequence_for_the_default_seed():
    # The well-known first outputs of Microsoft's rand() after srand(1) (the C default).
    r = MsvcRand(1)
    assert [r.rand() for _ in range(10)] == [41, 18467, 6334, 26500, 19169, 15724, 11478, 29358, 26962, 24464]


@given(states, st.integers(0, 3000))
def test_jump_equals_stepping(state, n):
    _, after = plain_rand(state, n)
    assert jump(state, n) == after
    r = MsvcRand(state)
    r.jump(n)
    assert r.state == after


@given(states, st.integers(0, 2**64), st.integers(0, 2**64))
def test_jumps_compose(state, a, b):
    assert jump(jump(state, a), b) == jump(state, a + b)


def test_full_period_jump():
    # the generator has full period 2**32 (and 2**k on the low k bits)
    assert jump_params(2**32) == (1, 0)
    assert jump(12345, 2**19, bits=19) == 12345 % 2**19


@given(states, st.integers(1, 32))
def test_position_is_the_inverse_of_jump(state, bits):
    p = position(state, bits)
    assert 0 <= p < 2**bits
    assert jump(0, p, bits) == state % 2**bits


@given(states, st.integers(1, 200))
def test_numba_rand_matches_plain(state, n):
    values, after = rand_many(np.uint32(state), n)
    want, want_after = plain_rand(state, n)
    assert values.tolist() == want and int(after) == want_after


@given(states, st.integers(0, 14), st.integers(0, 2**16 - 1))
def test_low_bits_of_output_depend_on_low_bits_of_state(state, j, high):
    # rand() % 2**j sees only state mod 2**(16 + j): change every higher bit and nothing moves
    other = (state % 2 ** (16 + j)) | ((high << (16 + j)) % 2**32)
    a, _ = plain_rand(state, 30)
    b, _ = plain_rand(other, 30)
    assert [v % 2**j for v in a] == [v % 2**j for v in b]


def test_divisor_magic_is_exact_for_every_rand_value():
    r = np.arange(32768, dtype=np.uint64)
    for d in range(1, 1025):
        q = (r * np.uint64(divisor_magic(d))) >> np.uint64(32)
        assert np.array_equal(q, r // np.uint64(d)), d


@pytest.mark.parametrize("bad", [-1, 2**32, 1.5, True, "7"])
def test_bad_states_are_refused(bad):
    with pytest.raises(SweeplabError, match="state"):
        MsvcRand(bad)


def test_negative_jump_is_refused():
    with pytest.raises(SweeplabError, match="forward"):
        jump(0, -1)
