"""The mine total, written once: the components combined with the cells off the frontier.

A layout of the whole board is one layout of each component plus a choice of the cells off the
frontier for the mines left over: with j frontier mines, C(U, M - j) of them (U cells off the
frontier, M mines unknown). `combine` gives, for each component and each mine count k it can
hold, whether some layout of the rest fits the total with it (exact: which counts each
component reaches is tracked apart from the floats) and, with weights, the share of the other
components' weight (R_c(k) / Z) that the backward sweep turns into probabilities.

Counts past 2**53 are counted again modulo primes just below 2**61 and joined by Chinese
remainders (`moduli`, `join`); the whole board's count is then combined in Python integers.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba_cache import njit


@njit
def combine(polys, supp, sizes, U, M, weighted):
    """Combine components under the mine total.

    polys: (C, L) float counts (each row scaled by its own constant; unused without `weighted`);
    supp: (C, L) which mine counts each component reaches. Returns (ratio (C, L): R_c(k) / Z,
    feasible (C, L), P(mine) off the frontier, off safe, off mine, lo, hi, ok): lo..hi the
    frontier's mine counts that fit the total; ok False when none does.
    """
    C, L = supp.shape
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
            if weighted:
                lw[j + 1] = lw[j] + math.log(M - j) - math.log(U - M + j + 1)
            valid[j + 1] = True
    # prefix / suffix products of the component polynomials (float and support)
    F = C + 1 if weighted else 0
    pre = np.zeros((F, tot))
    spre = np.zeros((C + 1, tot), dtype=np.bool_)
    suf = np.zeros((F, tot))
    ssuf = np.zeros((C + 1, tot), dtype=np.bool_)
    if weighted:
        pre[0, 0] = 1.0
        suf[C, 0] = 1.0
    spre[0, 0] = True
    ssuf[C, 0] = True
    for c in range(C):
        for i in range(pre_n[c] + 1):
            if not spre[c, i]:
                continue
            for k in range(sizes[c] + 1):
                if supp[c, k]:
                    if weighted:
                        pre[c + 1, i + k] += pre[c, i] * polys[c, k]
                    spre[c + 1, i + k] = True
    for c in range(C - 1, -1, -1):
        for i in range(pre_n[C] - pre_n[c + 1] + 1):
            if not ssuf[c + 1, i]:
                continue
            for k in range(sizes[c] + 1):
                if supp[c, k]:
                    if weighted:
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
        w[j] = math.exp(lw[j] - lmax) if valid[j] and weighted else 0.0
    Z = 0.0
    zoff = 0.0
    off_safe = True
    off_mine = True
    for j in range(lo, hi + 1):
        if spre[C, j] and valid[j]:
            if weighted:
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
                    if weighted:
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
                    if weighted:
                        r += oth_f[K] * w[k + K]
                    f = True
            if weighted:
                ratio[c, k] = r / Z
            feasible[c, k] = f
    return ratio, feasible, (zoff / Z if U > 0 and weighted else 0.0), off_safe, off_mine, lo, hi, True


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


def moduli(count: int) -> list[int]:
    """Primes just below 2**61: sums of two stay inside int64."""
    p = (_MODULI[-1] if _MODULI else (1 << 61)) - 1
    while len(_MODULI) < count:
        if _is_prime(p):
            _MODULI.append(p)
        p -= 1
    return _MODULI[:count]


def join(mods: list[int], residues: list[list[int]]) -> list[int]:
    """Each position's integer from its residues modulo `mods` (Chinese remainders)."""
    big = math.prod(mods)
    out = []
    for j in range(len(residues[0])):
        x = 0
        for m, res in zip(mods, residues):
            q = big // m
            x += res[j] * q * pow(q, -1, m)
        out.append(x % big)
    return out


def whole_board(polys, U: int, M: int) -> int:
    """Layouts of the whole board: sum over j of (frontier layouts with j mines) * C(U, M - j),
    from each component's layouts by mine count (Python integers: products exceed 64 bits)."""
    total, base = [1], 0  # total[i]: frontier layouts with base + i mines
    for p in polys:
        nz = [k for k in range(len(p)) if p[k]]
        lo = nz[0]
        p = [int(c) for c in p[lo:nz[-1] + 1]]
        out = [0] * (len(total) + len(p) - 1)
        for i, a in enumerate(total):
            if a:
                for k, b in enumerate(p):
                    out[i + k] += a * b
        total, base = out, base + lo
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
    return layouts
