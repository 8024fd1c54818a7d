"""The mine total, written once: the components combined with the cells off the frontier.

A layout of the whole board is one layout of each component plus a choice of the cells off the
frontier for the mines left over: with j frontier mines, C(U, M - j) of them (U cells off the
frontier, M mines unknown). `combine` gives, for each component and each mine count k it can
hold, whether some layout of the rest fits the total with it (exact: which counts each
component reaches is tracked apart from the floats) and, with weights, the share of the other
components' weight (R_c(k) / Z) that the backward sweep turns into probabilities.

Counts past 2**53 are counted again modulo primes just below 2**61 and joined by Chinese
remainders (`moduli`, `join`). The whole board's exact count (`whole_board`) is `combine` modulo
as many primes below 2**31 as its size needs, joined the same way; each prime's factorial tables
are built once and kept, since a look-ahead asks for thousands of counts.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba_cache import njit


@njit(inline='always')
def _times(x, y, p):
    return (x * y) % p if p > 0 else x * y


@njit(inline='always')
def _plus(x, y, p):
    return (x + y) % p if p > 0 else x + y


@njit
def _power(x, e, p):
    out = 1
    x %= p
    while e:
        if e & 1:
            out = out * x % p
        x = x * x % p
        e >>= 1
    return out


@njit
def factorials(n, p):
    """Factorials and inverse factorials of 0..n modulo the prime p (the inverses from one power)."""
    fact = np.empty(n + 1, dtype=np.int64)
    fact[0] = 1
    for i in range(1, n + 1):
        fact[i] = fact[i - 1] * i % p
    inv = np.empty(n + 1, dtype=np.int64)
    inv[n] = _power(fact[n], p - 2, p)
    for i in range(n, 0, -1):
        inv[i - 1] = inv[i] * i % p
    return fact, inv


@njit
def _weights(tot, U, M, weighted, modular, w, valid):
    """The weight of j frontier mines, C(U, M - j) (valid for max(0, M - U) <= j <= M): exactly
    modulo `modulus` (modular = (modulus, fact, inv): its factorial tables, at least U + 1 long),
    else (with `weighted`) as log-weights relative to the first (returned)."""
    modulus, fact, inv = modular
    jlo = max(0, M - U)
    lw = np.full(tot, -np.inf)
    if jlo >= tot:
        return lw
    lw[jlo] = 0.0
    valid[jlo] = jlo <= M
    for j in range(jlo, min(M, tot - 1)):
        if weighted and modulus == 0:
            lw[j + 1] = lw[j] + math.log(M - j) - math.log(U - M + j + 1)
        valid[j + 1] = True
    if modulus > 0:
        for j in range(jlo, tot):
            if valid[j]:
                k = M - j
                w[j] = fact[U] * inv[k] % modulus * inv[U - k] % modulus
    return lw


@njit(inline='always')
def _convolve(a, sa, na, b, sb, nb, out, sout, arith, p):
    """out (+)= the product of the polynomials a[:na + 1] and b[:nb + 1] (a mine count each), in the
    arithmetic (modulo p > 0; floats or counts; nothing but the support without `arith`), and
    sout |= which counts the product reaches, from the supports sa and sb."""
    for i in range(na + 1):
        if not sa[i]:
            continue
        for k in range(nb + 1):
            if sb[k]:
                if arith:
                    out[i + k] = _plus(out[i + k], _times(a[i], b[k], p), p)
                sout[i + k] = True


@njit
def combine(polys, supp, sizes, U, M, weighted, modulus):
    """`combine_with` for one call: the factorial tables of a modulus built here."""
    if modulus > 0:
        fact, inv = factorials(U, modulus)
    else:
        fact = inv = np.zeros(0, dtype=np.int64)
    return combine_with(polys, supp, sizes, U, M, weighted, (np.int64(modulus), fact, inv))  # (not a literal)


@njit
def combine_with(polys, supp, sizes, U, M, weighted, modular):
    """Combine components under the mine total, in the arithmetic of `polys`: floats (each row
    scaled by its own constant; `weighted`), int64 counts modulo `modulus` (a prime below 2**31),
    or only which mine counts fit (neither).

    polys: (C, L) counts; supp: (C, L) which mine counts each component reaches. Returns (ratio
    (C, L): R_c(k) / Z, feasible (C, L), P(mine) off the frontier, off safe, off mine, lo, hi, ok,
    Z): lo..hi the frontier's mine counts that fit the total; ok False when none does; Z the
    weight of every layout (modulo `modulus`: the layouts of the whole board; floats: relative).
    modular = (modulus, fact, inv): with a modulus (0: none) only Z is computed, from the modulus's
    factorials `fact` and inverse factorials `inv` of 0..U at least (`factorials`; held by the
    caller across calls).
    """
    modulus = modular[0]
    C, L = supp.shape
    arith = weighted or modulus > 0
    pre_n = np.zeros(C + 1, dtype=np.int64)  # most mines the first c components can hold
    for c in range(C):
        pre_n[c + 1] = pre_n[c] + sizes[c]
    tot = pre_n[C] + 1
    w = np.zeros(tot, dtype=polys.dtype)
    valid = np.zeros(tot, dtype=np.bool_)
    lw = _weights(tot, U, M, weighted, modular, w, valid)
    # prefix / suffix products of the component polynomials (in the arithmetic, and support)
    F = C + 1 if arith else 1
    pre = np.zeros((F, tot), dtype=polys.dtype)
    spre = np.zeros((C + 1, tot), dtype=np.bool_)
    suf = np.zeros((F if modulus == 0 else 1, tot), dtype=polys.dtype)
    ssuf = np.zeros((C + 1, tot), dtype=np.bool_)
    pre[0, 0] = 1
    suf[-1, 0] = 1
    spre[0, 0] = True
    ssuf[C, 0] = True
    for c in range(C):
        _convolve(pre[c if arith else 0], spre[c], pre_n[c], polys[c], supp[c], sizes[c],
                  pre[c + 1 if arith else 0], spre[c + 1], arith, modulus)
    lo = -1
    hi = -1
    lmax = -np.inf
    for j in range(tot):
        if spre[C, j] and valid[j]:
            if lo < 0:
                lo = j
            hi = j
            lmax = max(lmax, lw[j])
    ratio = np.zeros((C, L))
    feasible = np.zeros((C, L), dtype=np.bool_)
    Z = np.zeros(1, dtype=polys.dtype)
    if lo < 0:
        return ratio, feasible, 0.0, False, False, lo, hi, False, Z[0]
    if modulus > 0:
        for j in range(lo, hi + 1):
            if spre[C, j] and valid[j]:
                Z[0] = _plus(Z[0], _times(pre[C, j], w[j], modulus), modulus)
        return ratio, feasible, 0.0, False, False, lo, hi, True, Z[0]
    for c in range(C - 1, -1, -1):
        _convolve(suf[c + 1 if weighted else 0], ssuf[c + 1], pre_n[C] - pre_n[c + 1], polys[c], supp[c], sizes[c],
                  suf[c if weighted else 0], ssuf[c], weighted, 0)
    for j in range(tot):
        w[j] = math.exp(lw[j] - lmax) if valid[j] and weighted else 0.0
    zoff = 0.0
    off_safe = True
    off_mine = True
    for j in range(lo, hi + 1):
        if spre[C, j] and valid[j]:
            if weighted:
                Z[0] += pre[C, j] * w[j]
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
        # the components other than c together, from the prefix before it and the suffix after
        _convolve(pre[c if weighted else 0], spre[c], pre_n[c], suf[c + 1 if weighted else 0], ssuf[c + 1],
                  pre_n[C] - pre_n[c + 1], oth_f, oth_s, weighted, 0)
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
                ratio[c, k] = r / Z[0]
            feasible[c, k] = f
    return ratio, feasible, (zoff / Z[0] if U > 0 and weighted else 0.0), off_safe, off_mine, lo, hi, True, Z[0]


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


_SMALL_MODULI: list[int] = []


def moduli(count: int, small: bool = False) -> list[int]:
    """Primes just below 2**61 (sums of two stay inside int64), or with `small` below 2**31 (so do
    products of two)."""
    found = _SMALL_MODULI if small else _MODULI
    p = (found[-1] if found else (1 << (31 if small else 61))) - 1
    while len(found) < count:
        if _is_prime(p):
            found.append(p)
        p -= 1
    return found[:count]


def join(mods: list[int], residues: list[list[int]]) -> list[int]:  # (each position on its own)
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


@njit
def _residues(counts, big, U, M, primes, fact, inv):
    """The whole board's layouts modulo each prime: counts (C, L) each component's layouts by mine
    count in floats, exact below 2**53; big (P, C, L): the residues modulo each prime of the counts
    that are not exact (-1 where they are; no rows when none is); fact, inv: each prime's factorial tables (a row each)."""
    C, L = counts.shape
    supp = counts > 0
    sizes = np.zeros(C, dtype=np.int64)
    for c in range(C):
        for k in range(L):
            if supp[c, k]:
                sizes[c] = k
    res = np.empty((C, L), dtype=np.int64)
    out = np.zeros(primes.shape[0], dtype=np.int64)
    for r in range(primes.shape[0]):
        p = primes[r]
        for c in range(C):
            for k in range(L):
                exact = big.shape[0] > 0 and big[r, c, k] >= 0
                res[c, k] = big[r, c, k] if exact else np.int64(counts[c, k]) % p
        out[r] = combine_with(res, supp, sizes, U, M, np.bool_(False), (p, fact[r], inv[r]))[8]
    return out


# the factorial tables of the primes of `moduli(small=True)`, a row each, grown on demand: built
# once, not once per count (a look-ahead asks for thousands of counts)
_TABLES: list[np.ndarray] = [np.zeros((0, 1), dtype=np.int64)] * 2
_JOIN: dict = {}


def _tables(count: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, list[int], list[int]]:
    """The first `count` small primes (as an array), their factorial tables up to n at least, and
    what joins residues modulo them: their product and each one's Chinese-remainder coefficient."""
    fact, inv = _TABLES
    if fact.shape[0] < count or fact.shape[1] <= n:
        rows, cols = max(count, fact.shape[0]), max(n + 1, 2 * fact.shape[1], 512)
        built = [factorials(cols - 1, m) for m in moduli(rows, small=True)]
        _TABLES[:] = [np.stack([f for f, _ in built]), np.stack([i for _, i in built])]
    if count not in _JOIN:  # x = sum of r_i * c_i modulo the product, c_i = 1 mod m_i and 0 mod the rest
        mods = moduli(count, small=True)
        big_m = math.prod(mods)
        _JOIN[count] = (np.array(mods, dtype=np.int64), big_m, [big_m // m * pow(big_m // m, -1, m) for m in mods],
                        mods)
    primes, big_m, coef, mods = _JOIN[count]
    return primes, _TABLES[0], _TABLES[1], big_m, coef, mods


@njit
def _primes_needed(counts, U, M):
    """How many primes below 2**31 the whole board's count needs: it is below (the frontier's
    layouts) x the largest C(U, k) the total allows, with a prime to spare."""
    C, L = counts.shape
    k = min(max(U // 2, M - C * (L - 1)), M, U)
    bits = (math.lgamma(U + 1) - math.lgamma(k + 1) - math.lgamma(U - k + 1)) / math.log(2) if k >= 0 else 0.0
    for c in range(C):
        t = 0.0
        for j in range(L):
            t += counts[c, j]
        bits += math.log2(max(t, 1.0))
    return int(bits) // 30 + 2


_EXACT = np.zeros((0, 0, 0), dtype=np.int64)  # (no component's counts past 2**53)


def whole_board(counts: np.ndarray, big: dict, U: int, M: int) -> int:
    """Layouts of the whole board: sum over j of (frontier layouts with j mines) * C(U, M - j), from
    each component's layouts by mine count (`counts`: (C, L) floats, exact below 2**53; `big`:
    component -> its exact counts as Python integers where they are not): `combine` in arithmetic
    modulo enough primes below 2**31, joined by Chinese remainders."""
    count = _primes_needed(counts, U, M)
    primes, fact, inv, big_m, coef, mods = _tables(count, U)
    rows = _EXACT
    if big:
        C, L = counts.shape
        rows = np.full((count, C, L), -1, dtype=np.int64)
        counts = counts.copy()
        for c, row in big.items():
            counts[c, :] = 0.0
            counts[c, :len(row)] = [1.0 if x else 0.0 for x in row]  # (only which counts it reaches)
            rows[:, c, :] = 0
            rows[:, c, :len(row)] = [[x % m for x in row] for m in mods]
    residues = _residues(counts, rows, U, M, primes, fact, inv).tolist()
    return sum(r * c for r, c in zip(residues, coef)) % big_m
