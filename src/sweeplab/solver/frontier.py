"""Constraints from a View: the frontier (hidden cells next to a number), its numbers, and its
independent components, each with a variable order that keeps the counting narrow.

Only a `View` goes in, so nothing here can see a mine. By default a flag is an unknown hidden
cell (a player's flags may be wrong); with `trust_flags` it is a mine and numbers count it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._numba_cache import njit
from ..errors import InconsistentPositionError, TooComplexError
from ..view import FLAG, HIDDEN, View
from .deduction import ALL_MINES, UNDECIDED, WHY_NUMBER, WHY_PAIR, find_root, number_rule, subset_rule


@njit
def build_constraints(cells, nbr, trust_flags):
    """Numbers as constraints over unknown cells.

    Returns (status, bad cell, var_cell, con_vars (m, 8) padded -1, con_target, con_size,
    unknown mask, known mines, con_cell: each constraint's number). Status 0 ok; 1 a number that
    no layout can satisfy (`bad cell`).
    """
    n = cells.shape[0]
    unknown = np.zeros(n, dtype=np.bool_)
    known = 0
    for i in range(n):
        c = cells[i]
        if c == HIDDEN or (c == FLAG and not trust_flags):
            unknown[i] = True
        elif c == FLAG:
            known += 1
    var_of = np.full(n, -1, dtype=np.int64)
    var_cell = np.empty(n, dtype=np.int64)
    nv = 0
    con_vars = np.full((n, 8), -1, dtype=np.int64)
    con_target = np.empty(n, dtype=np.int64)
    con_size = np.empty(n, dtype=np.int64)
    con_cell = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        c = cells[i]
        if c < 0:
            continue
        t = np.int64(c)
        u = 0
        for k in range(8):
            j = nbr[i, k]
            if j < 0:
                continue
            if unknown[j]:
                u += 1
            elif cells[j] == FLAG:
                t -= 1
        if t < 0 or t > u:
            return 1, i, var_cell[:0], con_vars[:0], con_target[:0], con_size[:0], unknown, known, con_cell[:0]
        if u == 0:
            continue
        s = 0
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and unknown[j]:
                if var_of[j] < 0:
                    var_of[j] = nv
                    var_cell[nv] = j
                    nv += 1
                con_vars[m, s] = var_of[j]
                s += 1
        con_target[m] = t
        con_size[m] = s
        con_cell[m] = i
        m += 1
    return 0, -1, var_cell[:nv], con_vars[:m], con_target[:m], con_size[:m], unknown, known, con_cell[:m]


@njit
def holds(con_vars, con_size, c, w):
    """Is variable w among constraint c's cells?"""
    for s in range(con_size[c]):
        if con_vars[c, s] == w:
            return True
    return False


@njit(inline='always')
def own_cells(con_vars, con_size, c, d, fixed):
    """How many undecided cells (fixed < 0) constraint d has that c has not."""
    only = 0
    for s in range(con_size[d]):
        w = con_vars[d, s]
        if fixed[w] < 0 and not holds(con_vars, con_size, c, w):
            only += 1
    return only


@njit
def numbers_touching(nv, con_vars, con_size):
    """For each hidden cell (variable): the numbers (constraints) around it, as (touch, deg):
    touch[v, :deg[v]]. A cell has at most 8 numbers around it."""
    deg = np.zeros(nv, dtype=np.int64)
    touch = np.full((nv, 8), -1, dtype=np.int64)
    for c in range(con_vars.shape[0]):
        for s in range(con_size[c]):
            v = con_vars[c, s]
            touch[v, deg[v]] = c
            deg[v] += 1
    return touch, deg


@njit
def propagate(nv, con_vars, con_target, con_size):
    """Settle what the local rules (single number, and pairs of numbers) settle, to a fixpoint.

    They are sound, so this only shrinks the counting: decided cells leave the frontier, which
    often splits a big component. Returns (ok, fixed: -1 open question, 0 safe, 1 mine, the
    remaining constraints (vars, targets, sizes) over the undecided vars, and each fixed var's
    reason: why[v, :] = (WHY_NUMBER, the constraint, -1, its mines still needed then, -1) or
    (WHY_PAIR, a, b, a's and b's mines still needed then), where b's own cells were the mines
    and a's own the safe ones). ok is False when the numbers contradict each other.
    """
    m = con_vars.shape[0]
    fixed = np.full(nv, -1, dtype=np.int8)
    why = np.full((nv, 5), -1, dtype=np.int64)
    touch, deg = numbers_touching(nv, con_vars, con_size)
    t_left = con_target.copy()
    u_left = con_size.copy()
    dirty = np.ones(m, dtype=np.bool_)
    queue = np.empty(m * 128 + 1, dtype=np.int64)  # pairs: (a, b, rest of a, rest of b)
    while True:
        changed = False
        for c in range(m):
            if not dirty[c]:
                continue
            dirty[c] = False
            t = t_left[c]
            u = u_left[c]
            if t < 0 or t > u:
                return False, fixed, con_vars[:0], con_target[:0], con_size[:0], why
            if u == 0:
                continue
            rule = number_rule(t, u)
            if rule == UNDECIDED:
                continue
            val = 1 if rule == ALL_MINES else 0
            for s in range(con_size[c]):
                v = con_vars[c, s]
                if fixed[v] < 0:
                    fixed[v] = val
                    why[v, 0] = WHY_NUMBER
                    why[v, 1] = c
                    why[v, 3] = t
                    changed = True
                    for e in range(deg[v]):
                        d = touch[v, e]
                        u_left[d] -= 1
                        t_left[d] -= val
                        dirty[d] = True
        if changed:
            continue
        # pairs: if B's own undecided cells must hold t_B - t_A = |B \ A| mines, they are all
        # mines and A's own are all safe
        nq = 0
        for c in range(m):
            if u_left[c] == 0:
                continue
            for s in range(con_size[c]):
                v = con_vars[c, s]
                if fixed[v] >= 0:
                    continue
                for e in range(deg[v]):
                    d = touch[v, e]
                    if d == c or u_left[d] == 0:
                        continue
                    only_b = own_cells(con_vars, con_size, c, d, fixed)
                    if not subset_rule(t_left[c], t_left[d], only_b) or (only_b == 0 and u_left[c] == u_left[d]):
                        continue  # (the second: the same cells twice, nothing to gain)
                    queue[nq] = c
                    queue[nq + 1] = d
                    queue[nq + 2] = t_left[c]
                    queue[nq + 3] = t_left[d]
                    nq += 4
                    break
                if nq >= queue.shape[0] - 4:
                    break
        if nq == 0:
            break
        for q in range(0, nq, 4):
            c = queue[q]
            d = queue[q + 1]
            for side in range(2):
                a_ = c if side == 0 else d
                b_ = d if side == 0 else c
                val = 1 if side == 0 else 0  # B \ A mines, A \ B safe
                for s2 in range(con_size[b_]):
                    w = con_vars[b_, s2]
                    if fixed[w] >= 0:
                        continue
                    if holds(con_vars, con_size, a_, w):
                        continue
                    fixed[w] = val
                    why[w, 0] = WHY_PAIR
                    why[w, 1] = c
                    why[w, 2] = d
                    why[w, 3] = queue[q + 2]
                    why[w, 4] = queue[q + 3]
                    changed = True
                    for e in range(deg[w]):
                        g = touch[w, e]
                        u_left[g] -= 1
                        t_left[g] -= val
                        dirty[g] = True
        if not changed:
            break
    # the remaining system over undecided vars
    keep = 0
    for c in range(m):
        if u_left[c] > 0:
            keep += 1
    nvars = np.full((keep, 8), -1, dtype=np.int64)
    ntarget = np.empty(keep, dtype=np.int64)
    nsize = np.empty(keep, dtype=np.int64)
    k = 0
    for c in range(m):
        if u_left[c] == 0:
            continue
        z = 0
        for s in range(con_size[c]):
            v = con_vars[c, s]
            if fixed[v] < 0:
                nvars[k, z] = v
                z += 1
        ntarget[k] = t_left[c]
        nsize[k] = z
        k += 1
    return True, fixed, nvars, ntarget, nsize, why


@njit
def split_components(nv, con_vars, con_size, skip):
    """Independent components and a narrow variable order in each (vars marked in `skip`,
    already decided, are left out).

    Returns (order: vars grouped by component, each in a greedy narrow order from a
    pseudo-peripheral var; comp_start offsets; con_comp: component of each constraint).
    """
    m = con_vars.shape[0]
    parent = np.arange(nv)
    for c in range(m):
        a = find_root(parent, con_vars[c, 0])
        for s in range(1, con_size[c]):
            b = find_root(parent, con_vars[c, s])
            if a != b:
                parent[b] = a
    # var -> constraints (CSR)
    deg = np.zeros(nv + 1, dtype=np.int64)
    for c in range(m):
        for s in range(con_size[c]):
            deg[con_vars[c, s] + 1] += 1
    start = np.cumsum(deg)
    fill = start[:-1].copy()
    vc = np.empty(start[-1], dtype=np.int64)
    for c in range(m):
        for s in range(con_size[c]):
            v = con_vars[c, s]
            vc[fill[v]] = c
            fill[v] += 1
    root = np.empty(nv, dtype=np.int64)
    for v in range(nv):
        root[v] = find_root(parent, v)
    dist = np.full(nv, -1, dtype=np.int64)
    queue = np.empty(nv, dtype=np.int64)
    order = np.empty(nv, dtype=np.int64)
    comp_start = np.zeros(nv + 1, dtype=np.int64)
    ncomp = 0
    placed = 0
    seen = np.zeros(nv, dtype=np.bool_)
    assigned = np.zeros(nv, dtype=np.bool_)
    rem = con_size.copy()
    opened = np.zeros(m, dtype=np.bool_)
    for v0 in range(nv):
        if skip[v0] or seen[root[v0]]:
            continue
        seen[root[v0]] = True
        # BFS twice: the var farthest from v0 is a pseudo-peripheral start, so the order sweeps
        # along the frontier and few numbers are half-assigned at any time
        first = v0
        for sweep in range(2):
            head = 0
            tail = 1
            queue[0] = first
            dist[first] = 0
            while head < tail:
                v = queue[head]
                head += 1
                for e in range(start[v], start[v + 1]):
                    c = vc[e]
                    for s in range(con_size[c]):
                        w = con_vars[c, s]
                        if dist[w] < 0:
                            dist[w] = dist[v] + 1
                            queue[tail] = w
                            tail += 1
            if sweep == 0:
                first = queue[tail - 1]
                for q in range(tail):
                    dist[queue[q]] = -1
        # greedy order from that start: next the var that leaves the fewest numbers
        # half-assigned (closes most, opens fewest), nearer the start on ties
        for step in range(tail):
            best = -1
            best_score = 1 << 30
            best_dist = 1 << 30
            for q in range(tail):
                v = queue[q]
                if assigned[v]:
                    continue
                touched = step == 0
                score = 0
                for e in range(start[v], start[v + 1]):
                    c = vc[e]
                    if opened[c]:
                        touched = True
                    if rem[c] == 1:
                        if opened[c]:
                            score -= 1
                    elif not opened[c]:
                        score += 1
                if not touched:
                    continue
                if score < best_score or (score == best_score and dist[v] < best_dist):
                    best, best_score, best_dist = v, score, dist[v]
            if best < 0:  # cannot happen in a connected component; keep the BFS order then
                for q in range(tail):
                    if not assigned[queue[q]]:
                        best = queue[q]
                        break
            assigned[best] = True
            for e in range(start[best], start[best + 1]):
                c = vc[e]
                rem[c] -= 1
                opened[c] = rem[c] > 0
            order[placed + step] = best
        placed += tail
        ncomp += 1
        comp_start[ncomp] = placed
    con_comp = np.empty(m, dtype=np.int64)
    comp_of = np.empty(nv, dtype=np.int64)
    for k in range(ncomp):
        for q in range(comp_start[k], comp_start[k + 1]):
            comp_of[order[q]] = k
    for c in range(m):
        con_comp[c] = comp_of[con_vars[c, 0]]
    return order[:placed], comp_start[:ncomp + 1], con_comp


@dataclass(frozen=True)
class Frontier:
    """The constraint system of a position: numbers over unknown cells, split into components."""

    width: int
    height: int
    var_cell: np.ndarray      # flat board cell of each frontier var
    con_vars: np.ndarray      # (m, 8) var indices, -1 padded
    con_target: np.ndarray    # mines each number still needs among its unknown neighbours
    con_size: np.ndarray
    order: np.ndarray         # vars grouped by component, in counting order
    comp_start: np.ndarray
    con_comp: np.ndarray
    unknown: np.ndarray       # flat bool: cells whose content is unknown (hidden; flags unless trusted)
    off_cells: int            # unknown cells next to no number
    mines_left: int           # mines among the unknown cells

    @property
    def components(self) -> int:
        return len(self.comp_start) - 1


def frontier(view: View, *, trust_flags: bool = False) -> Frontier:
    """The constraints of `view`; raises InconsistentPositionError for a number no layout can satisfy."""
    if not isinstance(view, View):
        raise TypeError(f"solvers take only a sweeplab View (what a player sees), not {type(view).__name__}")
    cells = view.cells.reshape(-1)
    status, bad, var_cell, con_vars, con_target, con_size, unknown, known, _ = build_constraints(
        cells, view.neighbours, bool(trust_flags))
    if status:
        x, y = bad % view.width, bad // view.width
        raise InconsistentPositionError(
            f"the {cells[bad]} at ({x}, {y}) cannot be satisfied by its hidden neighbours"
            + (" and flags" if trust_flags else "") + "; every number must equal the mines around it")
    mines_left = view.mine_count - int(known)
    if mines_left < 0:
        raise InconsistentPositionError(f"{known} trusted flags exceed the mine total {view.mine_count}; "
                                        "flags must not outnumber the mines")
    order, comp_start, con_comp = split_components(len(var_cell), con_vars, con_size,
                                                   np.zeros(len(var_cell), dtype=np.bool_))
    off = int(np.count_nonzero(unknown)) - len(var_cell)
    return Frontier(view.width, view.height, var_cell, con_vars, con_target, con_size, order, comp_start, con_comp,
                    unknown, off, mines_left)


__all__ = ["Frontier", "InconsistentPositionError", "TooComplexError", "frontier", "FLAG", "HIDDEN"]
