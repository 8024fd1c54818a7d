"""The sweep over one frontier component, written once: the arithmetic is the only thing that varies.

The component's cells are assigned in their narrow order (frontier.components); a state is the
partial sums of the numbers that have begun and not yet ended, packed in one 64-bit key (each in
just enough bits for its target), so partial layouts that leave the open numbers alike are
merged, and a long frontier costs time linear in its length. The forward pass fills a table
F[state, mines so far]; its arithmetic is F's type:

- float64: how many, as a float (exact below 2**53, then 16 significant digits; never 0 by
  rounding, so whether a layout exists stays exact): the probabilities, and deciding cells;
- int64: how many, exactly (an overflow is reported) or modulo a prime (`Analysis.layouts` past
  64 bits, joined by Chinese remainders);
- bool: whether any partial layout reaches the state, and nothing more.

A table of one column folds the mine-count axis away (a layout with any number of mines will do:
deciding without the mine total). The backward pass then gives, per cell, whether some layout of the whole
board (with the mine counts `feas` allows) makes it a mine and whether some leaves it safe, and,
under weights per mine count, its share of the weight (its probability).

A component whose table would pass MAX_CELLS entries (numbers packed densely in two dimensions;
never seen in real games) or whose open numbers need more than 64 bits is reported, not swept.

The passes run on a workspace the caller holds (`workspace`), allocate nothing and keep no
reference counts (numba's `_nrt=False`): a round of complete deduction sweeps many small
components, and per-call bookkeeping would otherwise cost more than the sweeps.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._numba_cache import njit

KEY_BITS = 64
MAX_CELLS = 4_000_000  # table entries per component (32 MB a float table); past it, TOO_BIG

OK, OVERFLOW, TOO_WIDE, TOO_BIG, GROW = 0, 1, 2, 3, 4  # (GROW: the workspace needs more rows)

unrefcounted = njit(_nrt=False)


# Room for sweeping: the keys of the states and their rows of F (keys, flo / fhi: the mines
# their rows reach, child: each state's two successors, layer: where each layer's rows begin),
# per position the numbers it touches (inc, inc_n), each layer's candidate keys, their validity
# and the unique ones (ck, cv, uniq), the slots' work (ints), and the backward pass's tables (E, W).
Workspace = namedtuple("Workspace", "keys flo fhi child layer inc inc_n ck cv uniq ints E W")


@njit
def workspace(rows, n, nc, L):
    """Room for sweeping components of up to n cells and nc numbers with L mine-count columns,
    with `rows` states to begin with (`sweep` grows what it needs)."""
    return Workspace(np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64),
                     np.full((rows, 2), -1, dtype=np.int64), np.zeros(n + 2, dtype=np.int64),
                     np.zeros((n, 8, 5), dtype=np.int64), np.zeros(n, dtype=np.int64),
                     np.empty(2 * rows, dtype=np.int64), np.zeros(2 * rows, dtype=np.bool_),
                     np.empty(2 * rows, dtype=np.int64), np.empty(8 * nc + 2 * n + 204, dtype=np.int64),
                     np.zeros((rows, L), dtype=np.bool_), np.zeros((rows, L)))


@njit
def grow(ws, F):
    """The workspace and a zeroed table with twice the rows."""
    out = workspace(2 * ws.keys.shape[0], ws.inc.shape[0], np.int64(0), ws.E.shape[1])  # (np.int64: a literal is compiled for)
    return (Workspace(out.keys, out.flo, out.fhi, out.child, ws.layer, ws.inc, ws.inc_n, out.ck, out.cv, out.uniq,
                      ws.ints, out.E, out.W), np.zeros((2 * ws.keys.shape[0], F.shape[1]), dtype=F.dtype))


@njit(inline='always')
def _argsort(a, out, stack):
    """np.argsort(a) into `out`, as numba sorts (an insertion sort below 16 items, else quicksort on
    a median of three), so that equal items come out in the same order; `stack`: room for the
    quicksort's pending parts (100 pairs)."""
    n = a.shape[0]
    for i in range(n):
        out[i] = i
    top = 0
    low, high = 0, n - 1
    while True:
        while high - low >= 15:  # partition until an insertion sort pays
            mid = (low + high) >> 1
            if a[out[mid]] < a[out[low]]:
                out[low], out[mid] = out[mid], out[low]
            if a[out[high]] < a[out[mid]]:
                out[high], out[mid] = out[mid], out[high]
            if a[out[mid]] < a[out[low]]:
                out[low], out[mid] = out[mid], out[low]
            pivot = a[out[mid]]
            out[high], out[mid] = out[mid], out[high]
            i = low
            j = high - 1
            while True:
                while i < high and a[out[i]] < pivot:
                    i += 1
                while j >= low and pivot < a[out[j]]:
                    j -= 1
                if i >= j:
                    break
                out[i], out[j] = out[j], out[i]
                i += 1
                j -= 1
            out[i], out[high] = out[high], out[i]
            if high - i > i - low:  # the larger part waits on the stack
                if high > i:
                    stack[2 * top], stack[2 * top + 1] = i + 1, high
                    top += 1
                high = i - 1
            else:
                if i > low:
                    stack[2 * top], stack[2 * top + 1] = low, i - 1
                    top += 1
                low = i + 1
        for i in range(low + 1, high + 1):
            k = out[i]
            v = a[k]
            j = i
            while j > low and v < a[out[j - 1]]:
                out[j] = out[j - 1]
                j -= 1
            out[j] = k
        if top == 0:
            return out[:n]
        top -= 1
        low, high = stack[2 * top], stack[2 * top + 1]


@njit(inline='always')
def _sort_unique(keys, n):
    """Sort keys[:n] in place (insertion sort while short, else heapsort) and keep each key once;
    how many are left."""
    if n <= 32:
        for i in range(1, n):
            v = keys[i]
            j = i
            while j > 0 and v < keys[j - 1]:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = v
    else:
        for start in range(n // 2 - 1, -1, -1):
            _sift(keys, start, n)
        for end in range(n - 1, 0, -1):
            keys[0], keys[end] = keys[end], keys[0]
            _sift(keys, 0, end)
    nu = 0
    for u in range(n):
        if nu == 0 or keys[u] != keys[nu - 1]:
            keys[nu] = keys[u]
            nu += 1
    return nu


@njit(inline='always')
def _sift(keys, root, end):
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and keys[child] < keys[child + 1]:
            child += 1
        if keys[root] >= keys[child]:
            return
        keys[root], keys[child] = keys[child], keys[root]
        root = child


@njit(inline='always')
def _lower_bound(keys, lo, hi, key):
    """The first position in the sorted keys[lo:hi] whose key is not below `key`."""
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline='always')
def _field(w):
    return (np.int64(1) << w) - 1 if w < 64 else np.int64(-1)


@unrefcounted
def _slots(cs, k, ws):
    """Give each number of the component a bit field of the key from its first cell to its last
    (the lowest free bits that fit its target), and list per position the numbers it touches:
    inc[p, e] = (field shift, target, cells still to come after p, whether p is its last cell,
    field mask). False when the open numbers need more than 64 bits."""
    n = cs.comp_start[k + 1] - cs.comp_start[k]
    cons = cs.clist[cs.cstart[k]:cs.cstart[k + 1]]
    need, con_start, con_front, pos = cs.need, cs.con_start, cs.con_front, cs.pos
    inc, inc_n, ints = ws.inc, ws.inc_n, ws.ints
    nc = cons.shape[0]
    first = ints[:nc]
    last = ints[nc:2 * nc]
    width = ints[2 * nc:3 * nc]
    slot = ints[3 * nc:4 * nc]
    closing = ints[4 * nc:4 * nc + n]  # the numbers whose last cell is at each position, linked
    after = ints[4 * nc + n:5 * nc + n]
    for i in range(n):
        closing[i] = -1
        inc_n[i] = 0
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
        after[q] = closing[hi]
        closing[hi] = q
        w = 0
        while (1 << w) <= need[c]:
            w += 1
        width[q] = w
    by_first = _argsort(first, ints[5 * nc + n:6 * nc + n], ints[6 * nc + n:6 * nc + n + 200])
    used = np.int64(0)  # the key's bits held by open numbers
    ptr = 0
    for i in range(n):
        while ptr < nc and first[by_first[ptr]] == i:
            q = by_first[ptr]
            ptr += 1
            w = width[q]
            z = 0
            while z <= KEY_BITS - w and (used >> z) & _field(w) != 0:
                z += 1
            if z > KEY_BITS - w:
                return False
            used |= _field(w) << z
            slot[q] = z
        q = closing[i]
        while q >= 0:
            used &= ~(_field(width[q]) << slot[q])
            q = after[q]
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
            inc[p, k, 4] = _field(width[q])
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


@unrefcounted
def forward(cs, k, F, modulus, ws):
    """The forward pass over component k of the constraints `cs` (frontier.Constraints; its n cells
    in their narrow order, positions 0..n-1), in place in the workspace `ws` and the table F, a
    zeroed (rows, n + 1) table (rows, 1: mine counts folded away) of the arithmetic wanted (see the
    module); int64 counts are exact (an overflow is reported) or, with modulus > 0, kept modulo
    it (of F's type: one signature per arithmetic). Returns a status (GROW: more rows needed).

    Rows of layer i are layer[i]..layer[i + 1]; [flo, fhi] bounds the mines of a row; child[s, b]
    is the row reached from s when the cell at position i is b. The last layer holds one state
    (every number met) unless no layout fits.
    """
    n = cs.comp_start[k + 1] - cs.comp_start[k]
    keys, flo, fhi, child, layer, inc, inc_n, ck, cv, uniq = (ws.keys, ws.flo, ws.fhi, ws.child, ws.layer, ws.inc,
                                                              ws.inc_n, ws.ck, ws.cv, ws.uniq)
    L = F.shape[1]
    cap = keys.shape[0]
    step = 1 if L > 1 else 0
    if not _slots(cs, k, ws):
        return TOO_WIDE
    keys[0] = 0
    flo[0] = 0
    fhi[0] = 0
    child[0, 0] = -1
    child[0, 1] = -1
    F[0, 0] = 1
    layer[0] = 0
    layer[1] = 1
    for i in range(n):
        a0 = layer[i]
        a1 = layer[i + 1]
        ns = a1 - a0
        if 2 * ns > ck.shape[0]:
            return GROW
        nvalid = 0
        for s in range(ns):
            for b in range(2):
                key, ok = _next_key(keys[a0 + s], inc, inc_n, i, b)
                cv[2 * s + b] = ok
                if ok:
                    ck[2 * s + b] = key
                    uniq[nvalid] = key
                    nvalid += 1
        nu = _sort_unique(uniq, nvalid)
        b0 = a1
        if (b0 + nu) * L > MAX_CELLS:
            return TOO_BIG
        if b0 + nu > cap:
            return GROW
        for u in range(nu):
            keys[b0 + u] = uniq[u]
            flo[b0 + u] = L
            fhi[b0 + u] = -1
            child[b0 + u, 0] = -1
            child[b0 + u, 1] = -1
        for s in range(ns):
            src = a0 + s
            for b in range(2):
                if not cv[2 * s + b]:
                    continue
                dst = b0 + _lower_bound(uniq, 0, nu, ck[2 * s + b])
                child[src, b] = dst
                d = b * step
                for a in range(flo[src], fhi[src] + 1):
                    x = F[dst, a + d] + F[src, a]
                    if modulus > 0:
                        x = x % modulus
                    elif x < 0:
                        return OVERFLOW
                    F[dst, a + d] = x
                if flo[src] + d < flo[dst]:
                    flo[dst] = flo[src] + d
                if fhi[src] + d > fhi[dst]:
                    fhi[dst] = fhi[src] + d
        layer[i + 2] = b0 + nu
    return OK


@njit(inline='always')
def sweep(cs, k, F, modulus, ws):
    """`forward` over component k on the workspace `ws`, grown with the table until the states fit:
    (status, F, ws)."""
    while True:  # (one call of forward: each call passes both tuples, a few hundred arguments)
        status = forward(cs, k, F, modulus, ws)
        if status != GROW:
            return status, F, ws
        ws, F = grow(ws, F)


@njit(inline='always')
def clear(F, ws, n, status):
    """Zero the rows of F a sweep of n cells used (all of them after a sweep that stopped), for
    the next component."""
    rows = ws.layer[n + 1] if status == OK else F.shape[0]
    for r in range(rows):
        for a in range(F.shape[1]):
            F[r, a] = 0


@unrefcounted
def backward(cs, k, F, ws, wfin, feas, out, weighted):
    """The backward pass over component k after `forward`, in time linear in the table: for each of
    its cells v (a frontier index), out = (p, can_mine, can_safe): can_mine[v] / can_safe[v], some
    layout of the component reached with a mine count that `feas` allows (at the end: feas[j])
    makes it a mine / leaves it safe; with `weighted`, p[v]: its share of the weight, a finished
    layout with j mines weighing wfin[j] (F and wfin floats).

    W[s, a]: the weight of the completions of state s reached with a mines; E[s, a]: some
    completion reaches a mine count feas allows. Then the cell's weight is sum F[s, a] *
    W[child1, a + 1], and it can be a mine (safe) iff a reachable state has an allowed completion
    with it a mine (safe)."""
    p_out, can_mine, can_safe = out
    flo, fhi, child, layer, E, W = ws.flo, ws.fhi, ws.child, ws.layer, ws.E, ws.W
    at = cs.comp_start[k]
    n = cs.comp_start[k + 1] - at
    vars_ = cs.order
    L = F.shape[1]
    rows = layer[n + 1]
    if rows == layer[n]:  # no layout at all (an inconsistent position): nothing can be anything
        for i in range(n):
            can_mine[vars_[at + i]] = False
            can_safe[vars_[at + i]] = False
        return
    fin = layer[n]
    for a in range(L):
        if weighted:
            W[fin, a] = wfin[a]
        E[fin, a] = feas[a]
    step = 1 if L > 1 else 0
    for i in range(n - 1, -1, -1):
        v = vars_[at + i]
        p = 0.0
        cm = False
        cf = False
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
                            cf = True
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
        can_safe[v] = cf


__all__ = ["OK", "OVERFLOW", "TOO_WIDE", "TOO_BIG", "GROW", "MAX_CELLS", "Workspace", "workspace", "grow",
           "forward", "sweep", "backward", "clear"]
