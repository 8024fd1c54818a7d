"""A second count of a position's layouts, in Python integers, for the tests: each frontier
component counted by a plain memoised sweep over dicts (its own states and arithmetic, nothing of
solver.sweep), then combined with the cells off the frontier under the mine total exactly. It
shares only the constraint builder with the engine (brute force on small boards checks that).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from sweeplab.kernels import HIDDEN_STATE
from sweeplab.solver.frontier import constraints, view_position
from sweeplab.solver.state import ST, new_play


def count_component(vars_, cons):
    """(counts[k], {var: cellmine[k]}): layouts of one component with k mines, and those with each
    var a mine. `vars_`: var ids in order; `cons`: list of (var ids, target)."""
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


def _convolve(a, b):
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def exact_analysis(view, trust_flags: bool = False):
    """(layouts, {flat cell: layouts with it a mine} for every unknown cell, frontier components)
    of the view, all exact integers; layouts 0 when none fits."""
    cells = view.cells.reshape(-1)
    n = len(cells)
    pi, pb, _ = new_play(n)
    status, _, known = view_position(cells, view.neighbours, trust_flags, pi, pb, np.empty(0, dtype=np.int8))
    unknown = [int(i) for i in np.flatnonzero(pb[ST] == HIDDEN_STATE)]
    if status:
        return 0, {c: 0 for c in unknown}, 0
    cs = constraints(cells, view.neighbours, pi, pb)
    fidx, front, off, order, comp_start, con_comp = cs.fidx, cs.front, cs.off, cs.order, cs.comp_start, cs.con_comp
    need, con_start, con_front = cs.need, cs.con_start, cs.con_front
    M = view.mine_count - int(known)
    polys, cms = [], []
    for k in range(len(comp_start) - 1):
        vs = [int(v) for v in order[comp_start[k]:comp_start[k + 1]]]
        cons = [([int(v) for v in con_front[con_start[c]:con_start[c + 1]]], int(need[c]))
                for c in np.flatnonzero(con_comp == k)]
        cnt, cm = count_component(vs, cons)
        polys.append(cnt)
        cms.append(cm)

    def weight(j):  # ways to place the other mines off the frontier
        return math.comb(off, M - j) if 0 <= M - j <= off else 0

    def others(skip):  # layouts of every component but `skip`, by frontier mines
        total = [1]
        for k, p in enumerate(polys):
            if k != skip:
                total = _convolve(total, p)
        return total

    everything = others(-1)
    layouts = sum(c * weight(j) for j, c in enumerate(everything))
    mines = {}
    for k, cm in enumerate(cms):
        rest = others(k)
        for v, row in cm.items():
            both = _convolve(row, rest)
            mines[int(front[v])] = sum(c * weight(j) for j, c in enumerate(both))
    off_cells = [c for c in unknown if fidx[c] < 0]
    if off_cells:
        # each off-frontier cell is a mine in C(off - 1, M - j - 1) of the C(off, M - j) ways
        per = sum(c * math.comb(off - 1, M - j - 1) for j, c in enumerate(everything) if 0 <= M - j - 1 <= off - 1)
        for c in off_cells:
            mines[c] = per
    return layouts, mines, len(comp_start) - 1


def exact_probabilities(view, trust_flags: bool = False):
    """{flat cell: P(mine) as a Fraction} for every unknown cell, and the layouts (None when none fits)."""
    layouts, mines, _ = exact_analysis(view, trust_flags)
    if layouts == 0:
        return None, 0
    return {c: Fraction(m, layouts) for c, m in mines.items()}, layouts
