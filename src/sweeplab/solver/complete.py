"""Complete deduction and exact mine probabilities by counting consistent layouts.

Each frontier component is counted by a memoised sweep (numba): its cells are assigned in a
narrow order and partial layouts that leave the open numbers in the same state are merged,
so a long frontier costs time linear in its length, not exponential. The forward sweep
gives, per number of mines k, the component's layouts count; the components and the U cells
off the frontier are combined under the mine total with weights C(U, M - k); a backward
sweep under those weights gives every cell's probability, in time linear in the table.

Decisions are made by counting, never by a float that happens to be 0: a cell is safe iff no
consistent layout of the whole board (numbers and mine total) has a mine on it, i.e. its mine
count is 0; a mine iff no layout leaves it safe, i.e. its count equals the layouts count.
The sweep tracks that existence exactly (a count is zero iff no layout reaches it).
Probabilities are ratios of the counts in float64 (relative error ~1e-13).
`Analysis.layouts` is the exact big integer: counts below 2**53 are exact in the table;
larger ones are counted again in integers modulo primes near 2**61 and joined by Chinese
remainders. `analyse_frontier` is a second, all-integer implementation (int64 tables, exact per-cell mine
counts by convolution, Python integers past 64 bits), kept as a cross-check for the tests.
A component whose table would pass MAX_CELLS entries (numbers packed densely in two
dimensions; never seen in real games) raises TooComplexError rather than run for minutes.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._numba_cache import njit
from ..errors import InconsistentPositionError, TooComplexError
from ..view import View
from .deduction import WHY_COMPONENT, WHY_TOTAL
from .frontier import Frontier, build_constraints, frontier, propagate, split_components

KEY_BITS = 64  # a state packs each half-assigned number's partial sum in just enough bits for its
# target (a 1 in one bit, a 2 or 3 in two, ...), so typically 30+ numbers fit in one key
MAX_CELLS = 4_000_000  # table entries per component (32 MB a table); past it, TooComplexError

OK, OVERFLOW, TOO_WIDE, TOO_BIG = 0, 1, 2, 3


@njit
def _grow_rows(a, need):
    if need <= a.shape[0]:
        return a
    b = np.zeros((max(need, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit
def _forward(vars_, cons, con_vars, con_target, con_size, pos, F, modulus):
    """The forward sweep of one component. `vars_` in order; `cons` its constraints; pos: var ->
    local index. Layer i holds the distinct states (partial sums of the half-assigned numbers)
    before var i; F[s, a] counts the partial layouts with a mines reaching state s.

    F comes in as a zeroed (rows, n + 1) table: int64 to count exactly (overflow is reported, or
    with modulus > 0 counts are kept modulo it, for exact big counts by Chinese remainders),
    float64 for the fast path (exact below 2**53, then 16 significant digits; never 0 by
    rounding, so reachability stays exact).
    Returns (status, F, flo, fhi, child, layer): rows of layer i are layer[i]..layer[i+1];
    [flo, fhi] bounds the mines of a row; child[s, b] is the row reached by var i = b.
    """
    n = vars_.shape[0]
    L = n + 1
    cap = F.shape[0]
    keys = np.zeros(cap, dtype=np.int64)
    flo = np.zeros(cap, dtype=np.int64)
    fhi = np.zeros(cap, dtype=np.int64)
    child = np.full((cap, 2), -1, dtype=np.int64)
    layer = np.zeros(n + 2, dtype=np.int64)
    nc = cons.shape[0]
    # per var: incidences (slot, target, remaining after, last?)
    inc_n = np.zeros(n, dtype=np.int64)
    inc = np.zeros((n, 8, 5), dtype=np.int64)
    first = np.empty(nc, dtype=np.int64)
    last = np.empty(nc, dtype=np.int64)
    for q in range(nc):
        c = cons[q]
        lo = n
        hi = -1
        for s in range(con_size[c]):
            p = pos[con_vars[c, s]]
            lo = min(lo, p)
            hi = max(hi, p)
        first[q] = lo
        last[q] = hi
    # bit fields: a number holds one from its first var to its last
    by_first = np.argsort(first)
    slot = np.empty(nc, dtype=np.int64)
    width = np.empty(nc, dtype=np.int64)
    for q in range(nc):
        t = con_target[cons[q]]
        w = 0
        while (1 << w) <= t:
            w += 1
        width[q] = w
    free = np.ones(KEY_BITS, dtype=np.bool_)
    ptr = 0
    closing = np.zeros(n, dtype=np.int64)
    for q in range(nc):
        closing[last[q]] += 1
    ends = np.zeros((n + 1), dtype=np.int64)
    for i in range(n):
        ends[i + 1] = ends[i] + closing[i]
    end_list = np.empty(nc, dtype=np.int64)
    fillp = ends[:n].copy()
    for q in range(nc):
        end_list[fillp[last[q]]] = q
        fillp[last[q]] += 1
    for i in range(n):
        while ptr < nc and first[by_first[ptr]] == i:
            q = by_first[ptr]
            ptr += 1
            got = -1
            w = width[q]
            for z in range(KEY_BITS - w + 1):  # first fit
                fits = True
                for y in range(z, z + w):
                    if not free[y]:
                        fits = False
                        break
                if fits:
                    got = z
                    break
            if got < 0:
                return TOO_WIDE, F, flo, fhi, child, layer
            for y in range(got, got + w):
                free[y] = False
            slot[q] = got
        for e in range(ends[i], ends[i + 1]):
            q = end_list[e]
            for y in range(slot[q], slot[q] + width[q]):
                free[y] = True
    for q in range(nc):
        c = cons[q]
        size = con_size[c]
        for s in range(size):
            p = pos[con_vars[c, s]]
            rem = 0
            for s2 in range(size):
                if pos[con_vars[c, s2]] > p:
                    rem += 1
            k = inc_n[p]
            inc[p, k, 0] = slot[q]
            inc[p, k, 1] = con_target[c]
            inc[p, k, 2] = rem
            inc[p, k, 3] = 1 if p == last[q] else 0
            inc[p, k, 4] = (1 << width[q]) - 1
            inc_n[p] = k + 1

    # forward sweep
    F[0, 0] = 1
    flo[0] = 0
    fhi[0] = 0
    layer[0] = 0
    layer[1] = 1
    cand = np.empty(128, dtype=np.int64)
    for i in range(n):
        a0 = layer[i]
        a1 = layer[i + 1]
        ns = a1 - a0
        cand = _grow(cand, 2 * ns)
        ck = np.empty(2 * ns, dtype=np.int64)
        cv = np.zeros(2 * ns, dtype=np.bool_)
        nvalid = 0
        for s in range(ns):
            for b in range(2):
                key = keys[a0 + s]
                ok = True
                for e in range(inc_n[i]):
                    sh = inc[i, e, 0]
                    mask = inc[i, e, 4]
                    v = ((key >> sh) & mask) + b
                    t = inc[i, e, 1]
                    if v > t or v + inc[i, e, 2] < t:
                        ok = False
                        break
                    key = key & ~(mask << sh)
                    if inc[i, e, 3] == 0:
                        key = key | (v << sh)
                if ok:
                    ck[2 * s + b] = key
                    cv[2 * s + b] = True
                    cand[nvalid] = key
                    nvalid += 1
        uniq = np.unique(cand[:nvalid])
        nu = uniq.shape[0]
        b0 = a1
        if (b0 + nu) * L > MAX_CELLS:
            return TOO_BIG, F, flo, fhi, child, layer
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
            for b in range(2):
                if not cv[2 * s + b]:
                    continue
                dst = b0 + np.searchsorted(uniq, ck[2 * s + b])
                child[src, b] = dst
                for a in range(flo[src], fhi[src] + 1):
                    x = F[dst, a + b] + F[src, a]
                    if modulus > 0:
                        x = x % modulus
                    elif x < 0:
                        return OVERFLOW, F, flo, fhi, child, layer
                    F[dst, a + b] = x
                lo = flo[src] + b
                hi = fhi[src] + b
                if lo < flo[dst]:
                    flo[dst] = lo
                if hi > fhi[dst]:
                    fhi[dst] = hi
        layer[i + 2] = b0 + nu
    return OK, F, flo, fhi, child, layer


@njit
def _count_component(vars_, cons, con_vars, con_target, con_size, pos, counts, cellmine):
    """Count one component exactly: counts[k] (layouts with k mines) and cellmine[var, k]
    (those with var a mine). Returns a status code."""
    n = vars_.shape[0]
    L = n + 1
    status, F, flo, fhi, child, layer = _forward(vars_, cons, con_vars, con_target, con_size, pos,
                                                 np.zeros((64, L), dtype=np.int64), 0)
    if status != OK:
        return status
    last_a = layer[n]
    last_b = layer[n + 1]
    if last_b == last_a:  # no consistent layout in this component
        return OK
    fin = last_a  # one state: every number closed
    for k in range(flo[fin], fhi[fin] + 1):
        counts[k] = F[fin, k]
    # backward sweep: B[s, j] = completions from state s with j mines among the vars still to come
    rows = last_b
    B = np.zeros((rows, L), dtype=np.int64)
    blo = np.full(rows, L, dtype=np.int64)
    bhi = np.full(rows, -1, dtype=np.int64)
    B[fin, 0] = 1
    blo[fin] = 0
    bhi[fin] = 0
    for i in range(n - 1, -1, -1):
        v = vars_[i]
        for src in range(layer[i], layer[i + 1]):
            for b in range(2):
                d = child[src, b]
                if d < 0 or bhi[d] < 0:
                    continue
                for j in range(blo[d], bhi[d] + 1):
                    x = B[src, j + b] + B[d, j]
                    if x < 0:
                        return OVERFLOW
                    B[src, j + b] = x
                if blo[d] + b < blo[src]:
                    blo[src] = blo[d] + b
                if bhi[d] + b > bhi[src]:
                    bhi[src] = bhi[d] + b
                if b == 1:  # layouts through this state with var i a mine
                    for a in range(flo[src], fhi[src] + 1):
                        fa = F[src, a]
                        if fa == 0:
                            continue
                        for j in range(blo[d], bhi[d] + 1):
                            cellmine[v, a + 1 + j] += fa * B[d, j]
    return OK


@njit
def _weighted(F, flo, fhi, child, layer, n, wfin, feas, vars_, p_out, can_mine, can_safe):
    """The backward sweep under the whole board's weights, in time linear in the table.

    W[s, a]: total weight of the completions of state s reached with a mines (the weight of a
    finished layout with k mines is wfin[k]); E[s, a]: some completion reaches a mine total the
    board allows (feas). Then var i's probability is sum F[s, a] * W[child1, a + 1], and it can
    be a mine (safe) iff some reachable state has a feasible completion with it a mine (safe).
    """
    L = F.shape[1]
    rows = layer[n + 1]
    W = np.zeros((rows, L))
    E = np.zeros((rows, L), dtype=np.bool_)
    fin = layer[n]
    for a in range(L):
        W[fin, a] = wfin[a]
        E[fin, a] = feas[a]
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
                    w += W[d0, a]
                    if E[d0, a]:
                        e = True
                        if fa > 0:
                            cs = True
                if d1 >= 0:
                    w1 = W[d1, a + 1]
                    w += w1
                    if fa > 0:
                        p += fa * w1
                    if E[d1, a + 1]:
                        e = True
                        if fa > 0:
                            cm = True
                W[src, a] = w
                E[src, a] = e
        p_out[v] = p
        can_mine[v] = cm
        can_safe[v] = cs


@njit
def _component_index(order, comp_start, con_comp, nv):
    """Per-component bookkeeping: (longest mine-count axis L, each var's place in its component,
    start of each component's constraints in clist, the constraints grouped by component)."""
    ncomp = comp_start.shape[0] - 1
    L = 1
    for k in range(ncomp):
        L = max(L, comp_start[k + 1] - comp_start[k] + 1)
    pos = np.empty(nv, dtype=np.int64)
    for k in range(ncomp):
        for q in range(comp_start[k], comp_start[k + 1]):
            pos[order[q]] = q - comp_start[k]
    m = con_comp.shape[0]
    cstart = np.zeros(ncomp + 1, dtype=np.int64)
    for c in range(m):
        cstart[con_comp[c] + 1] += 1
    for k in range(ncomp):
        cstart[k + 1] += cstart[k]
    clist = np.empty(m, dtype=np.int64)
    fill = cstart[:ncomp].copy()
    for c in range(m):
        clist[fill[con_comp[c]]] = c
        fill[con_comp[c]] += 1
    return L, pos, cstart, clist


@njit
def count_layouts(order, comp_start, con_vars, con_target, con_size, con_comp, nv):
    """Count every component. Returns (counts (C, L), cellmine (nv, L), status per component)."""
    ncomp = comp_start.shape[0] - 1
    L, pos, cstart, clist = _component_index(order, comp_start, con_comp, nv)
    counts = np.zeros((ncomp, L), dtype=np.int64)
    cellmine = np.zeros((nv, L), dtype=np.int64)
    status = np.zeros(ncomp, dtype=np.int64)
    for k in range(ncomp):
        status[k] = _count_component(order[comp_start[k]:comp_start[k + 1]], clist[cstart[k]:cstart[k + 1]],
                                     con_vars, con_target, con_size, pos, counts[k], cellmine)
    return counts, cellmine, status


@njit
def _count_mod(vars_, cons, con_vars, con_target, con_size, nv, modulus):
    """Layouts of one component by number of mines, modulo `modulus` (< 2**62)."""
    n = vars_.shape[0]
    pos = np.zeros(nv, dtype=np.int64)
    for q in range(n):
        pos[vars_[q]] = q
    st, F, flo, fhi, child, layer = _forward(vars_, cons, con_vars, con_target, con_size, pos,
                                             np.zeros((64, n + 1), dtype=np.int64), modulus)
    out = np.zeros(n + 1, dtype=np.int64)
    if st == OK and layer[n + 1] > layer[n]:
        out[:] = F[layer[n]]
    return st, out


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):  # deterministic below 3.3e24
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


_MODULI: list[int] = []


def _moduli(count: int) -> list[int]:
    """Primes just below 2**61: sums of two stay inside int64."""
    p = (_MODULI[-1] if _MODULI else (1 << 61)) - 1
    while len(_MODULI) < count:
        if _is_prime(p):
            _MODULI.append(p)
        p -= 1
    return _MODULI[:count]


def count_component_big(fr: Frontier, k: int, bits: int) -> list[int]:
    """Exact layouts of component k by mines, as Python integers, when they need up to `bits` bits:
    counted in numba modulo several primes near 2**61, then joined by Chinese remainders."""
    vs = fr.order[fr.comp_start[k]:fr.comp_start[k + 1]]
    cons = np.flatnonzero(fr.con_comp == k)
    mods = _moduli(bits // 60 + 2)
    residues = []
    for m in mods:
        st, row = _count_mod(vs, cons, fr.con_vars, fr.con_target, fr.con_size, len(fr.var_cell), m)
        if st != OK:
            raise TooComplexError(f"a frontier component of {len(vs)} cells is past the counting budget "
                                  f"({MAX_CELLS:,} table entries)")
        residues.append([int(x) for x in row])
    big = math.prod(mods)
    out = []
    for j in range(len(vs) + 1):
        x = 0
        for m, res in zip(mods, residues):
            q = big // m
            x += res[j] * q * pow(q, -1, m)
        out.append(x % big)
    return out


def count_component_exact(vars_, cons):
    """The same memoised count with Python integers: (counts[k], {var: cellmine[k]}).

    `vars_`: var ids in order; `cons`: list of (var ids, target). Used when 64 bits overflow,
    and as a second implementation in tests.
    """
    n = len(vars_)
    pos = {v: i for i, v in enumerate(vars_)}
    cs = [(sorted(pos[v] for v in vs), t) for vs, t in cons]
    last = [c[0][-1] for c in cs]
    incid = [[] for _ in range(n)]
    for q, (ps, t) in enumerate(cs):
        for r, p in enumerate(ps):
            incid[p].append((q, t, len(ps) - r - 1, p == last[q]))
    # states: tuple of (constraint, partial sum) for open constraints, sorted by constraint
    layers = [{(): {0: 1}}]
    children = []
    for i in range(n):
        nxt: dict = {}
        ch = {}
        for key, poly in layers[-1].items():
            sums = dict(key)
            for b in (0, 1):
                new = dict(sums)
                ok = True
                for q, t, rem, is_last in incid[i]:
                    v = new.get(q, 0) + b
                    if v > t or v + rem < t:
                        ok = False
                        break
                    if is_last:
                        new.pop(q, None)
                    else:
                        new[q] = v
                if not ok:
                    continue
                nk = tuple(sorted(new.items()))
                ch[key, b] = nk
                dst = nxt.setdefault(nk, {})
                for a, c in poly.items():
                    dst[a + b] = dst.get(a + b, 0) + c
        layers.append(nxt)
        children.append(ch)
    counts = [0] * (n + 1)
    for poly in layers[n].values():
        for a, c in poly.items():
            counts[a] += c
    back = {key: {0: 1} for key in layers[n]}
    cellmine = {}
    for i in range(n - 1, -1, -1):
        prev = {}
        cm = [0] * (n + 1)
        for key, fpoly in layers[i].items():
            acc: dict = {}
            for b in (0, 1):
                nk = children[i].get((key, b))
                if nk is None or nk not in back:
                    continue
                for j, c in back[nk].items():
                    acc[j + b] = acc.get(j + b, 0) + c
                if b == 1:
                    for a, fa in fpoly.items():
                        for j, c in back[nk].items():
                            cm[a + 1 + j] += fa * c
            if acc:
                prev[key] = acc
        back = prev
        cellmine[vars_[i]] = cm
    return counts, cellmine


@njit
def combine(polys, supp, sizes, U, M):
    """Combine components under the mine total: C(U, M - j) weights for j frontier mines.

    polys: (C, L) float counts (each row scaled by its own constant); supp: exact support.
    Returns (ratio (C, L): R_c(k) / Z, feasible (C, L), off probability, off safe, off mine,
    lo, hi, ok) where R_c(k) is the weight of everything but component c given it holds k.
    """
    C, L = polys.shape
    pre_n = np.zeros(C + 1, dtype=np.int64)  # most mines the first c components can hold
    for c in range(C):
        pre_n[c + 1] = pre_n[c] + sizes[c]
    tot = pre_n[C] + 1
    # relative log-weights of C(U, M - j); valid for max(0, M - U) <= j <= M
    w = np.zeros(tot, dtype=np.float64)
    valid = np.zeros(tot, dtype=np.bool_)
    jlo = max(0, M - U)
    lw = np.full(tot, -np.inf)
    if jlo < tot:
        lw[jlo] = 0.0
        valid[jlo] = jlo <= M
        for j in range(jlo, min(M, tot - 1)):
            lw[j + 1] = lw[j] + math.log(M - j) - math.log(U - M + j + 1)
            valid[j + 1] = True
    # prefix / suffix products of the component polynomials (float and support)
    pre = np.zeros((C + 1, tot))
    spre = np.zeros((C + 1, tot), dtype=np.bool_)
    suf = np.zeros((C + 1, tot))
    ssuf = np.zeros((C + 1, tot), dtype=np.bool_)
    pre[0, 0] = 1.0
    spre[0, 0] = True
    suf[C, 0] = 1.0
    ssuf[C, 0] = True
    for c in range(C):
        for i in range(pre_n[c] + 1):
            if not spre[c, i]:
                continue
            for k in range(sizes[c] + 1):
                if supp[c, k]:
                    pre[c + 1, i + k] += pre[c, i] * polys[c, k]
                    spre[c + 1, i + k] = True
    for c in range(C - 1, -1, -1):
        for i in range(pre_n[C] - pre_n[c + 1] + 1):
            if not ssuf[c + 1, i]:
                continue
            for k in range(sizes[c] + 1):
                if supp[c, k]:
                    suf[c, i + k] += suf[c + 1, i] * polys[c, k]
                    ssuf[c, i + k] = True
    lmax = -np.inf
    lo = -1
    hi = -1
    for j in range(tot):
        if spre[C, j] and valid[j]:
            if lo < 0:
                lo = j
            hi = j
            lmax = max(lmax, lw[j])
    ratio = np.zeros((C, L))
    feasible = np.zeros((C, L), dtype=np.bool_)
    if lo < 0:
        return ratio, feasible, 0.0, False, False, lo, hi, False
    for j in range(tot):
        w[j] = math.exp(lw[j] - lmax) if valid[j] else 0.0
    Z = 0.0
    zoff = 0.0
    off_safe = True
    off_mine = True
    for j in range(lo, hi + 1):
        if spre[C, j] and valid[j]:
            Z += pre[C, j] * w[j]
            if U > 0:
                zoff += pre[C, j] * w[j] * (M - j) / U
            if M - j > 0:
                off_safe = False
            if M - j != U:
                off_mine = False
    oth_f = np.zeros(tot)
    oth_s = np.zeros(tot, dtype=np.bool_)
    for c in range(C):
        oth_f[:] = 0.0
        oth_s[:] = False
        for i in range(pre_n[c] + 1):
            if not spre[c, i]:
                continue
            for i2 in range(pre_n[C] - pre_n[c + 1] + 1):
                if ssuf[c + 1, i2]:
                    oth_f[i + i2] += pre[c, i] * suf[c + 1, i2]
                    oth_s[i + i2] = True
        rest = pre_n[C] - sizes[c]
        for k in range(sizes[c] + 1):
            if not supp[c, k]:
                continue
            r = 0.0
            f = False
            for K in range(rest + 1):
                if oth_s[K] and valid[k + K]:
                    r += oth_f[K] * w[k + K]
                    f = True
            ratio[c, k] = r / Z
            feasible[c, k] = f
    return ratio, feasible, (zoff / Z if U > 0 else 0.0), off_safe, off_mine, lo, hi, True


def reduced_frontier(view: View, trust_flags: bool = False) -> Frontier:
    """The constraint system `analyse_kernel` counts: after the local rules, split as it splits."""
    fr = frontier(view, trust_flags=trust_flags)
    nv = len(fr.var_cell)
    ok, fixed, con_vars, con_target, con_size, _ = propagate(nv, fr.con_vars, fr.con_target, fr.con_size)
    if not ok:
        raise InconsistentPositionError("the numbers contradict each other: no layout of mines fits them")
    order, comp_start, con_comp = split_components(nv, con_vars, con_size, fixed >= 0)
    return Frontier(fr.width, fr.height, fr.var_cell, con_vars, con_target, con_size, order, comp_start, con_comp,
                    fr.unknown, fr.off_cells, fr.mines_left - int(np.count_nonzero(fixed == 1)))


class Reason(NamedTuple):
    """Why the engine decided a cell (`Analysis.reason`): `why` one of deduction's WHY_NUMBER (the
    number at flat cell a, needing rest_a more mines then, settled all its hidden neighbours),
    WHY_PAIR (the subset rule on the numbers at a and b, needing rest_a and rest_b: b's hidden
    cells away from a were mines, a's away from b safe), WHY_COMPONENT (counting the layouts of
    the cell's frontier component) or WHY_TOTAL (counting them under the mine total); a, b -1
    where not used."""

    why: int
    a: int
    b: int
    rest_a: int
    rest_b: int


class Analysis:
    """What complete deduction knows about a position.

    safe, mines: bool (h, w), hidden cells safe / a mine in every consistent layout.
    probability: float64 (h, w), exact P(mine) for each unknown cell; NaN on open cells.
    layouts: the number of consistent layouts of the whole board (exact, computed on demand).
    mine_range: (lo, hi) mines the frontier can hold (over layouts that fit the mine total).
    components: independent frontier components left to count once the local rules have
    settled what they settle (0 when they settle the whole frontier).
    """

    __slots__ = ("safe", "mines", "probability", "mine_range", "components", "trust_flags", "_polys", "_U", "_M",
                 "_layouts", "_view", "_reasons")

    def __init__(self, safe, mines, probability, mine_range, components, trust_flags, polys, U, M, view=None,
                 reasons=None):
        self.safe, self.mines, self.probability = safe, mines, probability
        self.mine_range, self.components, self.trust_flags = mine_range, components, trust_flags
        self._polys, self._U, self._M, self._layouts, self._view = polys, U, M, None, view
        self._reasons = reasons

    def reason(self, x: int, y: int) -> Reason | None:
        """Why the engine decided cell (x, y), as it decided it; None for a cell it did not decide
        (or an analysis made without reasons: `analyse_frontier`)."""
        if self._reasons is None or not self.decided[y, x]:
            return None
        why, a, b, rest_a, rest_b = (int(v) for v in self._reasons[y * self.safe.shape[1] + x])
        return Reason(why, a, b, rest_a, rest_b)

    @property
    def layouts(self) -> int:
        """Consistent layouts of the whole board: sum over j of (frontier layouts with j mines) * C(U, M - j)."""
        if self._layouts is None and self._view is not None:
            big = [k for k, p in enumerate(self._polys) if max(p, default=0) >= 2 ** 53]
            if big:  # floats are not exact there: count those components again, in integers
                fr = reduced_frontier(self._view, self.trust_flags)
                polys = list(self._polys)
                for k in big:
                    polys[k] = count_component_big(fr, k, int(math.log2(max(polys[k]))) + 8)
                self._polys = polys
        if self._layouts is None:
            total, base = [1], 0  # total[i]: frontier layouts with base + i mines
            for p in self._polys:
                nz = [k for k in range(len(p)) if p[k]]
                lo = nz[0]
                p = [int(c) for c in p[lo:nz[-1] + 1]]  # Python integers: products exceed 64 bits
                out = [0] * (len(total) + len(p) - 1)
                for i, a in enumerate(total):
                    if a:
                        for k, b in enumerate(p):
                            out[i + k] += a * b
                total, base = out, base + lo
            U, M = self._U, self._M
            js = [j for j in range(len(total)) if total[j] and 0 <= M - base - j <= U]
            layouts = 0
            if js:
                w = math.comb(U, M - base - js[0])  # C(U, M - j), stepped down exactly as j grows
                m = M - base - js[0]
                for j in range(js[0], js[-1] + 1):
                    layouts += total[j] * w
                    if m > 0:
                        w = w * m // (U - m + 1)
                    m -= 1
            self._layouts = layouts
        return self._layouts

    @property
    def decided(self) -> np.ndarray:
        return self.safe | self.mines

    def __repr__(self) -> str:
        return (f"<Analysis safe={int(self.safe.sum())} mines={int(self.mines.sum())} "
                f"components={self.components} mine_range={self.mine_range}>")


@njit
def analyse_kernel(cells, nbr, trust_flags, mine_count):
    """The whole analysis in one compiled call: constraints, components, counts, combination,
    decisions and probabilities. Status: 0 ok, 1 bad number, 2 too many trusted flags,
    3 numbers contradict, 4 mine total fits no layout, 6 a component past the table budget."""
    n = cells.shape[0]
    prob = np.full(n, np.nan)
    safe = np.zeros(n, dtype=np.bool_)
    mines = np.zeros(n, dtype=np.bool_)
    status, bad, var_cell, con_vars, con_target, con_size, unknown, known, con_cell = build_constraints(
        cells, nbr, trust_flags)
    counts = np.zeros((0, 1))
    reason = np.full((n, 5), -1, dtype=np.int64)
    if status:
        return 1, bad, prob, safe, mines, counts, 0, 0, 0, 0, 0, reason
    M = mine_count - known
    if M < 0:
        return 2, known, prob, safe, mines, counts, 0, 0, 0, 0, 0, reason
    nv = var_cell.shape[0]
    # settle what local rules settle first: sound, and it splits and shrinks the components
    ok, fixed, con_vars, con_target, con_size, why = propagate(nv, con_vars, con_target, con_size)
    if not ok:
        return 3, 0, prob, safe, mines, counts, 0, 0, 0, 0, 0, reason
    forced = 0
    for v in range(nv):
        if fixed[v] == 1:
            forced += 1
    M -= forced
    if M < 0:
        return 4, M + forced, prob, safe, mines, counts, 0, 0, 0, M + forced, 0, reason
    order, comp_start, con_comp = split_components(nv, con_vars, con_size, fixed >= 0)
    C = comp_start.shape[0] - 1
    L, pos, cstart, clist = _component_index(order, comp_start, con_comp, nv)
    counts = np.zeros((C, L))
    polys = np.zeros((C, L))
    top = np.zeros(C)
    tables = []
    for k in range(C):
        n_k = comp_start[k + 1] - comp_start[k]
        st, F, flo, fhi, child, layer = _forward(order[comp_start[k]:comp_start[k + 1]], clist[cstart[k]:cstart[k + 1]],
                                                 con_vars, con_target, con_size, pos, np.zeros((64, n_k + 1)), 0.0)
        tables.append((F, flo, fhi, child, layer))
        if st != OK:  # too wide or too big: floats do not overflow
            return 6, k, prob, safe, mines, counts, 0, 0, 0, 0, C, reason
        if layer[n_k + 1] == layer[n_k]:
            return 3, k, prob, safe, mines, counts, 0, 0, 0, 0, C, reason
        fin = layer[n_k]
        t = 0.0
        for j in range(flo[fin], fhi[fin] + 1):
            counts[k, j] = F[fin, j]
            t = max(t, F[fin, j])
        top[k] = t
        for j in range(L):
            polys[k, j] = counts[k, j] / t
    supp = counts > 0
    U = 0
    for i in range(n):
        if unknown[i]:
            U += 1
    U -= nv
    sizes = np.empty(C, dtype=np.int64)
    for k in range(C):
        sizes[k] = comp_start[k + 1] - comp_start[k]
    ratio, feasible, p_off, off_safe, off_mine, lo, hi, ok = combine(polys, supp, sizes, U, M)
    if not ok:
        return 4, M + forced, prob, safe, mines, counts, 0, 0, U, M + forced, C, reason
    for i in range(n):
        if unknown[i]:
            prob[i] = 0.0 if off_safe else (1.0 if off_mine else p_off)
            safe[i] = off_safe
            mines[i] = off_mine
            if off_safe or off_mine:  # off the frontier only the total decides (frontier cells: below)
                reason[i, 0] = WHY_TOTAL
    p_var = np.zeros(nv)
    can_mine = fixed == 1  # decided by the local rules
    can_safe = fixed == 0
    wfin = np.zeros(L)
    for k in range(C):
        F, flo, fhi, child, layer = tables[k]
        for j in range(L):
            wfin[j] = ratio[k, j] / top[k]
        _weighted(F, flo, fhi, child, layer, sizes[k], wfin[:sizes[k] + 1], feasible[k, :sizes[k] + 1],
                  order[comp_start[k]:comp_start[k + 1]], p_var, can_mine, can_safe)
    # a counted cell's reason: its component's layouts alone, unless the total ruled out some of
    # their mine counts
    alone = np.ones(C, dtype=np.bool_)
    comp_of = np.empty(nv, dtype=np.int64)
    for k in range(C):
        for j in range(sizes[k] + 1):
            if supp[k, j] and not feasible[k, j]:
                alone[k] = False
        for q in range(comp_start[k], comp_start[k + 1]):
            comp_of[order[q]] = k
    for v in range(nv):
        c = var_cell[v]
        safe[c] = not can_mine[v]
        mines[c] = not can_safe[v]
        prob[c] = 0.0 if safe[c] else (1.0 if mines[c] else min(max(p_var[v], 0.0), 1.0))
        if fixed[v] >= 0:  # by the local rules: the number(s) that did it
            reason[c, 0] = why[v, 0]
            reason[c, 1] = con_cell[why[v, 1]]
            reason[c, 2] = con_cell[why[v, 2]] if why[v, 2] >= 0 else -1
            reason[c, 3] = why[v, 3]
            reason[c, 4] = why[v, 4]
        elif safe[c] or mines[c]:
            reason[c, 0] = WHY_COMPONENT if alone[comp_of[v]] else WHY_TOTAL
        else:
            reason[c, 0] = -1  # (the cells off the frontier were marked above, this one too)
    return 0, -1, prob, safe, mines, counts, lo + forced, hi + forced, U, M, C, reason


def analyse(view: View, *, trust_flags: bool = False) -> Analysis:
    """Complete deduction with the mine total, and exact probabilities, for `view`.

    Flags count as unknown hidden cells unless `trust_flags` (a player's flags may be wrong).
    Raises InconsistentPositionError when no layout fits the numbers and the mine total.
    """
    if not isinstance(view, View):
        raise TypeError(f"solvers take only a sweeplab View (what a player sees), not {type(view).__name__}")
    trust_flags = bool(trust_flags)
    status, bad, prob, safe, mines, counts, lo, hi, U, M, C, reason = analyse_kernel(
        view.cells.reshape(-1), view.neighbours, trust_flags, view.mine_count)
    if status == 0:
        shape = (view.height, view.width)
        return Analysis(safe.reshape(shape), mines.reshape(shape), prob.reshape(shape), (int(lo), int(hi)), int(C),
                        trust_flags, counts, int(U), int(M), view, reason)
    if status == 1 or status == 2:  # the error message, with its cell
        frontier(view, trust_flags=trust_flags)
    if status == 3:
        raise InconsistentPositionError("the numbers contradict each other: no layout of mines fits them")
    if status == 6:
        raise TooComplexError(
            f"a frontier component of this position needs more than {MAX_CELLS:,} counting-table entries "
            "(numbers packed densely in two dimensions); sweeplab counts exactly up to that bound. Real games "
            "stay far below it: open more cells, or split the position")
    raise InconsistentPositionError(
        f"no layout fits the numbers with {M} mines among the unknown cells; the mine total must lie between "
        "what the numbers need and what the hidden cells can hold")


def analyse_frontier(fr: Frontier, width: int, height: int, *, trust_flags: bool = False,
                     force_exact: bool = False) -> Analysis:
    nv = len(fr.var_cell)
    ncomp = fr.components
    counts, cellmine, status = count_layouts(fr.order, fr.comp_start, fr.con_vars, fr.con_target, fr.con_size,
                                                fr.con_comp, nv)
    L = counts.shape[1]
    exact_polys: list = []
    polys = np.zeros((ncomp, L))
    supp = counts > 0
    cm_f = cellmine.astype(np.float64)
    exact_rows = {}
    for k in range(ncomp):
        if status[k] in (TOO_WIDE, TOO_BIG) and not force_exact:
            raise TooComplexError(f"a frontier component of {fr.comp_start[k + 1] - fr.comp_start[k]} cells is past "
                                  f"the counting budget ({MAX_CELLS:,} table entries)")
        if status[k] != OK or force_exact:
            vs = [int(v) for v in fr.order[fr.comp_start[k]:fr.comp_start[k + 1]]]
            cons = [([int(v) for v in fr.con_vars[c, :fr.con_size[c]]], int(fr.con_target[c]))
                    for c in np.flatnonzero(fr.con_comp == k)]
            cnt, cm = count_component_exact(vs, cons)
            top = max(cnt) or 1
            polys[k, :len(cnt)] = [c / top for c in cnt]
            supp[k, :] = False
            supp[k, :len(cnt)] = [c > 0 for c in cnt]
            for v, row in cm.items():
                cm_f[v, :] = 0.0
                cm_f[v, :len(row)] = [c / top for c in row]
            exact_rows[k] = (cnt, cm)
            exact_polys.append(cnt)
        else:
            top = counts[k].max()
            if top == 0:
                raise InconsistentPositionError("the numbers contradict each other: no layout of mines fits them")
            polys[k] = counts[k] / top
            comp_vars = fr.order[fr.comp_start[k]:fr.comp_start[k + 1]]
            cm_f[comp_vars] /= top
            exact_polys.append(counts[k])
        if not supp[k].any():
            raise InconsistentPositionError("the numbers contradict each other: no layout of mines fits them")
    U, M = fr.off_cells, fr.mines_left
    sizes = np.diff(fr.comp_start)
    ratio, feasible, p_off, off_safe, off_mine, lo, hi, ok = combine(polys, supp, sizes, U, M)
    if not ok:
        raise InconsistentPositionError(
            f"no layout fits the numbers with {M} mines among the unknown cells; the mine total must lie between "
            "what the numbers need and what the hidden cells can hold")
    comp_of = np.empty(nv, dtype=np.int64)
    for k in range(ncomp):
        comp_of[fr.order[fr.comp_start[k]:fr.comp_start[k + 1]]] = k
    p_var = (cm_f * ratio[comp_of]).sum(axis=1) if nv else np.zeros(0)
    feas = feasible[comp_of]
    safe_v = ~((cellmine != 0) & feas).any(axis=1)
    mine_v = ~((cellmine != counts[comp_of]) & feas).any(axis=1)
    for k, (cnt, cm) in exact_rows.items():  # decisions from the Python-integer counts
        fk = feasible[k]
        for v, row in cm.items():
            safe_v[v] = all(row[j] == 0 for j in range(len(row)) if j < L and fk[j])
            mine_v[v] = all(row[j] == cnt[j] for j in range(len(row)) if j < L and fk[j])
    n = width * height
    prob = np.full(n, np.nan)
    safe = np.zeros(n, dtype=np.bool_)
    mines = np.zeros(n, dtype=np.bool_)
    off = fr.unknown.copy()
    off[fr.var_cell] = False
    if U:
        prob[off] = p_off
        safe[off] = off_safe
        mines[off] = off_mine
    prob[fr.var_cell] = np.clip(p_var, 0.0, 1.0)
    safe[fr.var_cell] = safe_v
    mines[fr.var_cell] = mine_v
    prob[safe] = 0.0
    prob[mines] = 1.0
    shape = (height, width)
    return Analysis(safe.reshape(shape), mines.reshape(shape), prob.reshape(shape), (int(lo), int(hi)), ncomp,
                    trust_flags, exact_polys, U, M)
