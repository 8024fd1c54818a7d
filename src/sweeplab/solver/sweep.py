"""The sweep over one frontier component, written once: the arithmetic is the only thing that varies.

The component's cells are assigned in their narrow order (frontier.components); a state is the
partial sums of the numbers that have begun and not yet ended, packed in one 64-bit key (each in
just enough bits for its target), so partial layouts that leave the open numbers alike are
merged, and a long frontier costs time linear in its length. The forward pass fills a table
F[state, mines so far]; its arithmetic is F's type:

- bool: does some partial layout reach the state (with that many mines)? (deciding cells);
- int64: how many (exact counts: the certifier's leaf budget, `Analysis.layouts` modulo primes
  joined by Chinese remainders for counts past 64 bits);
- float64: how many, as a float (exact below 2**53, then 16 significant digits; never 0 by
  rounding, so whether a state is reached stays exact): the probabilities.

`by_mines=False` folds the mine-count axis away (a layout with any number of mines will do: deciding
without the mine total). The backward pass then gives, per cell, whether some layout of the whole
board (with the mine counts `feas` allows) makes it a mine and whether some leaves it safe, and,
under weights per mine count, its share of the weight (its probability).

A component whose table would pass MAX_CELLS entries (numbers packed densely in two dimensions;
never seen in real games) or whose open numbers need more than 64 bits is reported, not swept.
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit

KEY_BITS = 64
MAX_CELLS = 4_000_000  # table entries per component (32 MB a float table); past it, TOO_BIG

OK, OVERFLOW, TOO_WIDE, TOO_BIG = 0, 1, 2, 3


@njit
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit
def _grow_rows(a, need):
    if need <= a.shape[0]:
        return a
    b = np.zeros((max(need, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit
def workspace(rows, n, nc):
    """Room for sweeping components of up to n cells and nc numbers (rows: a first guess at the
    states; the sweep grows what it needs)."""
    return (np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64),
            np.full((rows, 2), -1, dtype=np.int64), np.zeros(n + 2, dtype=np.int64),
            np.zeros((n, 8, 5), dtype=np.int64), np.zeros(n, dtype=np.int64), np.empty(2 * rows, dtype=np.int64),
            np.zeros(2 * rows, dtype=np.bool_), np.empty(2 * rows, dtype=np.int64),
            np.empty(5 * nc + 2 * n + 2, dtype=np.int64), np.ones(KEY_BITS, dtype=np.bool_))


@njit
def _slots(n, cons, need, con_start, con_front, pos, inc, inc_n, ints, free):
    """Give each number of the component a bit field of the key from its first cell to its last
    (first fit), and list per position the numbers it touches: inc[p, e] = (field shift, target,
    cells still to come after p, whether p is its last cell, field mask). False when the open
    numbers need more than 64 bits."""
    nc = cons.shape[0]
    first = ints[:nc]
    last = ints[nc:2 * nc]
    width = ints[2 * nc:3 * nc]
    slot = ints[3 * nc:4 * nc]
    end_list = ints[4 * nc:5 * nc]
    closing = ints[5 * nc:5 * nc + n + 1]
    fill = ints[5 * nc + n + 1:5 * nc + 2 * n + 1]
    closing[:] = 0
    for q in range(nc):
        c = cons[q]
        lo = n
        hi = -1
        for s in range(con_start[c], con_start[c + 1]):
            p = pos[con_front[s]]
            lo = min(lo, p)
            hi = max(hi, p)
        first[q] = lo
        last[q] = hi
        closing[hi + 1] += 1
        w = 0
        while (1 << w) <= need[c]:
            w += 1
        width[q] = w
    for i in range(n):
        closing[i + 1] += closing[i]
    fill[:n] = closing[:n]
    for q in range(nc):
        end_list[fill[last[q]]] = q
        fill[last[q]] += 1
    by_first = np.argsort(first)
    free[:] = True
    ptr = 0
    for i in range(n):
        while ptr < nc and first[by_first[ptr]] == i:
            q = by_first[ptr]
            ptr += 1
            got = -1
            w = width[q]
            for z in range(KEY_BITS - w + 1):
                fits = True
                for y in range(z, z + w):
                    if not free[y]:
                        fits = False
                        break
                if fits:
                    got = z
                    break
            if got < 0:
                return False
            for y in range(got, got + w):
                free[y] = False
            slot[q] = got
        for e in range(closing[i], closing[i + 1]):
            q = end_list[e]
            for y in range(slot[q], slot[q] + width[q]):
                free[y] = True
    inc_n[:n] = 0
    for q in range(nc):
        c = cons[q]
        for s in range(con_start[c], con_start[c + 1]):
            p = pos[con_front[s]]
            rem = 0
            for s2 in range(con_start[c], con_start[c + 1]):
                if pos[con_front[s2]] > p:
                    rem += 1
            k = inc_n[p]
            inc[p, k, 0] = slot[q]
            inc[p, k, 1] = need[c]
            inc[p, k, 2] = rem
            inc[p, k, 3] = 1 if p == last[q] else 0
            inc[p, k, 4] = (1 << width[q]) - 1
            inc_n[p] = k + 1
    return True


@njit(inline='always')
def _next_key(key, inc, inc_n, i, b):
    """The state after the cell at position i takes value b (1 a mine) in state `key`, and
    whether every number it touches can still be met."""
    for e in range(inc_n[i]):
        sh = inc[i, e, 0]
        mask = inc[i, e, 4]
        v = ((key >> sh) & mask) + b
        t = inc[i, e, 1]
        if v > t or v + inc[i, e, 2] < t:
            return key, False
        key = key & ~(mask << sh)
        if inc[i, e, 3] == 0:
            key = key | (v << sh)
    return key, True


@njit
def forward(n, cons, need, con_start, con_front, pos, F, modulus, by_mines, ws):
    """The forward pass over a component of n cells (positions 0..n-1: `pos` maps a frontier cell
    to its position; `cons` its numbers, `need` their mines still needed). F: a zeroed table
    (rows, n + 1) (rows, 1 without `by_mines`) of the arithmetic wanted (see the module); int64
    counts are exact (an overflow is reported) or, with modulus > 0, kept modulo it. ws: room from
    `workspace` for n cells and the component's numbers.

    Returns (status, F, ws), both grown where the states needed more rows; in ws, rows of layer i
    are layer[i]..layer[i + 1], [flo, fhi] bounds the mines of a row, child[s, b] is the row
    reached from s when the cell at position i is b. The last layer holds one state (every
    number met) unless no layout fits.
    """
    keys, flo, fhi, child, layer, inc, inc_n, ck, cv, uniq, ints, free = ws
    L = F.shape[1]
    step = 1 if by_mines else 0
    if not _slots(n, cons, need, con_start, con_front, pos, inc, inc_n, ints, free):
        return TOO_WIDE, F, ws
    keys[0] = 0
    flo[0] = 0
    fhi[0] = 0
    F[0, 0] = 1
    layer[0] = 0
    layer[1] = 1
    for i in range(n):
        a0 = layer[i]
        a1 = layer[i + 1]
        ns = a1 - a0
        ck = _grow(ck, 2 * ns)
        cv = _grow(cv, 2 * ns)
        uniq = _grow(uniq, 2 * ns)
        nvalid = 0
        for s in range(ns):
            for b in range(2):
                key, ok = _next_key(keys[a0 + s], inc, inc_n, i, b)
                cv[2 * s + b] = ok
                if ok:
                    ck[2 * s + b] = key
                    uniq[nvalid] = key
                    nvalid += 1
        if nvalid > 1:
            uniq[:nvalid].sort()
        nu = 0
        for u in range(nvalid):
            if nu == 0 or uniq[u] != uniq[nu - 1]:
                uniq[nu] = uniq[u]
                nu += 1
        b0 = a1
        if (b0 + nu) * L > MAX_CELLS:
            return TOO_BIG, F, (keys, flo, fhi, child, layer, inc, inc_n, ck, cv, uniq, ints, free)
        if b0 + nu > keys.shape[0]:
            newcap = max(b0 + nu, 2 * keys.shape[0])
            keys = _grow(keys, newcap)
            flo = _grow(flo, newcap)
            fhi = _grow(fhi, newcap)
            F = _grow_rows(F, newcap)
            child = _grow_rows(child, newcap)
        for u in range(nu):
            keys[b0 + u] = uniq[u]
            flo[b0 + u] = L
            fhi[b0 + u] = -1
            child[b0 + u, 0] = -1
            child[b0 + u, 1] = -1
        for s in range(ns):
            src = a0 + s
            child[src, 0] = -1
            child[src, 1] = -1
            for b in range(2):
                if not cv[2 * s + b]:
                    continue
                dst = b0 + np.searchsorted(uniq[:nu], ck[2 * s + b])
                child[src, b] = dst
                d = b * step
                for a in range(flo[src], fhi[src] + 1):
                    x = F[dst, a + d] + F[src, a]
                    if modulus > 0:
                        x = x % modulus
                    elif x < 0:
                        return OVERFLOW, F, (keys, flo, fhi, child, layer, inc, inc_n, ck, cv, uniq, ints, free)
                    F[dst, a + d] = x
                if flo[src] + d < flo[dst]:
                    flo[dst] = flo[src] + d
                if fhi[src] + d > fhi[dst]:
                    fhi[dst] = fhi[src] + d
        layer[i + 2] = b0 + nu
    return OK, F, (keys, flo, fhi, child, layer, inc, inc_n, ck, cv, uniq, ints, free)


@njit
def clear(F, ws, n):
    """Zero the rows of F a sweep of n cells used, for the next component."""
    layer = ws[4]
    for r in range(layer[n + 1] if n >= 0 else 0):
        F[r, :] = 0


@njit
def backward(F, ws, n, wfin, feas, vars_, p_out, can_mine, can_safe, weighted):
    """The backward pass, in time linear in the table: for the cell at each position (vars_[i]),
    can_mine / can_safe: some layout of the component reached with a mine count that `feas` allows
    (at the end: feas[k]) makes it a mine / leaves it safe; with `weighted`, p_out: its share of the
    weight, a finished layout with k mines weighing wfin[k] (F and wfin floats).

    W[s, a]: the weight of the completions of state s reached with a mines; E[s, a]: some
    completion reaches a mine count feas allows. Then the cell's weight is sum F[s, a] *
    W[child1, a + 1], and it can be a mine (safe) iff a reachable state has an allowed completion
    with it a mine (safe)."""
    flo, fhi, child, layer = ws[1], ws[2], ws[3], ws[4]
    L = F.shape[1]
    rows = layer[n + 1]
    if rows == layer[n]:  # no layout at all (an inconsistent position): nothing can be anything
        for i in range(n):
            can_mine[vars_[i]] = False
            can_safe[vars_[i]] = False
        return
    W = np.zeros((rows if weighted else 0, L))
    E = np.zeros((rows, L), dtype=np.bool_)
    fin = layer[n]
    for a in range(L):
        if weighted:
            W[fin, a] = wfin[a]
        E[fin, a] = feas[a]
    step = 1 if L > 1 else 0
    for i in range(n - 1, -1, -1):
        v = vars_[i]
        p = 0.0
        cm = False
        cs = False
        for src in range(layer[i], layer[i + 1]):
            d0 = child[src, 0]
            d1 = child[src, 1]
            for a in range(flo[src], fhi[src] + 1):
                fa = F[src, a]
                w = 0.0
                e = False
                if d0 >= 0:
                    if weighted:
                        w += W[d0, a]
                    if E[d0, a]:
                        e = True
                        if fa > 0:
                            cs = True
                if d1 >= 0:
                    if weighted:
                        w1 = W[d1, a + step]
                        w += w1
                        if fa > 0:
                            p += fa * w1
                    if E[d1, a + step]:
                        e = True
                        if fa > 0:
                            cm = True
                if weighted:
                    W[src, a] = w
                E[src, a] = e
        if weighted:
            p_out[v] = p
        can_mine[v] = cm
        can_safe[v] = cs
