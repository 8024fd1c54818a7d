"""The engine's sweep over one component, in each of its arithmetics, against every layout."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab.solver.frontier import Constraints
from sweeplab.solver.sweep import OK, backward, sweep, workspace


def strip(m, width, seed):
    """A strip of m cells with one or two numbers starting at each cell, each over up to `width`
    consecutive cells (as numbers along a frontier), needing the mines of a random layout:
    (the numbers' cells, what they need, every layout that meets them, as an (L, m) bool array)."""
    rng = np.random.default_rng(seed)
    truth = rng.random(m) < 0.4
    cons = []
    for lo in range(m):
        for _ in range(int(rng.integers(1, 3))):
            hi = min(m, lo + int(rng.integers(1, width + 1)))
            cons.append(sorted(set(int(c) for c in rng.integers(lo, hi, size=hi - lo)) | {lo}))
    need = np.array([int(truth[c].sum()) for c in cons], dtype=np.int64)
    every = ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1).astype(bool)
    ok = np.ones(len(every), dtype=bool)
    for cells, k in zip(cons, need):
        ok &= every[:, cells].sum(axis=1) == k
    return cons, need, every[ok]


def strip_constraints(m, cons, need):
    """The strip as the engine's constraints: one component, its cells in strip order."""
    i32 = np.zeros(0, dtype=np.int32)
    con_start = np.zeros(len(cons) + 1, dtype=np.int32)
    con_start[1:] = np.cumsum([len(c) for c in cons])
    con_front = np.array([c for cells in cons for c in cells], dtype=np.int32)
    cells, numbers = np.arange(m, dtype=np.int64), np.arange(len(cons), dtype=np.int64)
    return Constraints(i32, cells.astype(np.int32), 0, i32, need.astype(np.int32), i32, con_start, con_front,
                       np.zeros((0, 8), dtype=np.int32), i32, np.array([0, m], dtype=np.int64), cells, cells,
                       np.zeros(len(cons), dtype=np.int64), np.array([0, len(cons)], dtype=np.int64), numbers,
                       np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_))


def swept(m, cons, need, F, modulus=0):
    """The engine's sweep of the strip (by mine count unless F has one column), from a workspace of
    two states (so it must grow)."""
    cs = strip_constraints(m, cons, need)
    status, F, ws = sweep(cs, 0, F, modulus, workspace(2, m, len(cons), F.shape[1]))
    assert status == OK
    return cs, F, ws


@given(m=st.integers(1, 14), width=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_the_sweep_decides_counts_and_weighs_every_layout(m, width, seed):
    cons, need, layouts = strip(m, width, seed)
    # exists, without the mine count: which cells some layout makes a mine, which safe
    cs, F, ws = swept(m, cons, need, np.zeros((8, 1), dtype=np.bool_))
    can_mine, can_safe = np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    yes = np.ones(1, dtype=bool)
    backward(cs, 0, F, ws, yes, yes, (np.zeros(m), can_mine, can_safe), False)
    assert (can_mine == layouts.any(axis=0)).all() and (can_safe == (~layouts).any(axis=0)).all()
    # exact counts by mine count, and the same modulo a small prime
    by_k = np.bincount(layouts.sum(axis=1), minlength=m + 1)
    _, F, ws = swept(m, cons, need, np.zeros((8, m + 1), dtype=np.int64))
    fin = ws.layer[m]
    assert (F[fin] == by_k).all()
    _, F, ws = swept(m, cons, need, np.zeros((8, m + 1), dtype=np.int64), modulus=7)
    assert (F[ws.layer[m]] == by_k % 7).all()
    # floats under weights per mine count, with some counts ruled out: each cell's weight and
    # what it can be among the layouts allowed
    rng = np.random.default_rng(seed)
    wfin = rng.random(m + 1)
    feas = rng.random(m + 1) < 0.7
    cs, F, ws = swept(m, cons, need, np.zeros((8, m + 1)))
    p = np.zeros(m)
    backward(cs, 0, F, ws, wfin, feas, (p, can_mine, can_safe), True)
    weight = wfin[layouts.sum(axis=1)]
    assert np.allclose(p, (layouts * weight[:, None]).sum(axis=0), rtol=1e-12, atol=0)
    allowed = layouts[feas[layouts.sum(axis=1)]]
    assert (can_mine == allowed.any(axis=0)).all() and (can_safe == (~allowed).any(axis=0)).all()
