"""The deduction rules as scalar kernels, each written once, and the reasons the engine gives.

- the single-number rule (`number_rule`): a number whose unknown mines are 0 has only safe
  hidden neighbours; one whose unknown mines equal its hidden neighbours has only mines;
- the subset rule (`subset_rule`): for two numbers a and b, if b's mines beyond a's must fill
  b's hidden cells outside a, those are mines and a's own are safe (a subset a of b is the case
  "a's own cells: none");
- the walk over layouts one at a time (`next_layout`, on the count check `fits` / `place`):
  backtracking, safe before mine, so that the end game can list the layouts themselves
  (solver.layouts); deciding and counting are the sweep's (solver.sweep);
- union-find (`find_root`), which splits a frontier into independent components.

Their callers (solver.rules, solver.frontier, solver.layouts) apply them to a position; numba
inlines them there.
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit

# Why a cell was decided: the reasons the engine gives, from a play's log to the hints (the click
# itself; one number; the subset rule on two; counting the layouts of the cell's frontier
# component; counting them under the mine total).
WHY_CLICK = np.int8(0)
WHY_NUMBER = np.int8(1)
WHY_PAIR = np.int8(2)
WHY_COMPONENT = np.int8(3)
WHY_TOTAL = np.int8(4)

# What the single-number rule says about a number's hidden neighbours.
UNDECIDED = -1
ALL_SAFE = 0
ALL_MINES = 1


@njit(inline='always')
def number_rule(rest, hidden):
    """The single-number rule on a number with `hidden` (> 0) hidden neighbours of which `rest`
    are mines: ALL_SAFE, ALL_MINES, or UNDECIDED."""
    if rest == 0:
        return ALL_SAFE
    if rest == hidden:
        return ALL_MINES
    return UNDECIDED


@njit(inline='always')
def subset_rule(rest_a, rest_b, b_only):
    """The subset rule on numbers a and b, needing rest_a / rest_b more mines, where b has
    `b_only` hidden cells that a does not touch: True when those must all be mines (b's mines
    beyond a's fill them), and then a's hidden cells that b does not touch are all safe. Ask
    it both ways round for both conclusions."""
    return rest_b - rest_a == b_only


@njit(inline='always')
def fits(cell_cons, cell_ncons, need, nfree, pos, v):
    """Can the cell at `pos` take value v (1 mine, 0 safe), with every one of its constraints
    (cell_cons[pos, :cell_ncons[pos]]; `need` mines among `nfree` unassigned cells) still
    satisfiable?"""
    for t in range(cell_ncons[pos]):
        c = cell_cons[pos, t]
        if need[c] - v < 0 or need[c] - v > nfree[c] - 1:
            return False
    return True


@njit(inline='always')
def place(cell_cons, cell_ncons, need, nfree, pos, v, by):
    """Assign (by=1) or unassign (by=-1) value v to the cell at `pos` in its constraints' counts."""
    for t in range(cell_ncons[pos]):
        c = cell_cons[pos, t]
        nfree[c] -= by
        need[c] -= by * v


@njit(inline='always')
def next_layout(m, cons, walk, pos, mines):
    """The walk over every layout of m cells (positions 0..m-1; cons = (cell_cons, cell_ncons,
    need, nfree), cell p's constraints cell_cons[p, :cell_ncons[p]] as in `fits`), safe before mine
    at each position, advanced to its next layout. Returns (pos, mines): pos == m at a layout
    (walk = (cur, nxt, assigned, bits): cur[:m] its values, `bits` its mines as a bitset of uint64
    words, `mines` how many), or -1 when the walk is over (then `need` and `nfree` are as they
    came).

    Start with pos = 0 after `start_layouts`; go on with pos - 1 and the mines it returned. Each
    step costs a few operations whatever m is, so a caller can afford many layouts. cur, nxt,
    assigned: scratch of length >= m + 1, owned by the walk between calls."""
    cell_cons, cell_ncons, need, nfree = cons
    cur, nxt, assigned, bits = walk
    while pos >= 0:
        if pos == m:
            return pos, mines
        if assigned[pos]:
            v = cur[pos]
            place(cell_cons, cell_ncons, need, nfree, pos, v, -1)
            mines -= v
            if v:
                bits[pos // 64] ^= np.uint64(1) << np.uint64(pos % 64)
            assigned[pos] = False
        v = nxt[pos]
        if v > 1:
            pos -= 1
            continue
        nxt[pos] = v + 1
        if not fits(cell_cons, cell_ncons, need, nfree, pos, v):
            continue
        place(cell_cons, cell_ncons, need, nfree, pos, v, 1)
        cur[pos] = v
        mines += v
        if v:
            bits[pos // 64] ^= np.uint64(1) << np.uint64(pos % 64)
        assigned[pos] = True
        pos += 1
        if pos < m:
            nxt[pos] = 0
            assigned[pos] = False
    return pos, mines


@njit(inline='always')
def start_layouts(m, walk):
    """Set the walk of `next_layout` (cur, nxt, assigned, bits) at its start (no cell assigned, no
    mine in `bits`)."""
    _, nxt, assigned, bits = walk
    for w in range((m + 63) // 64):
        bits[w] = 0
    nxt[0] = 0
    assigned[0] = False


@njit(inline='always')
def find_root(parent, a):
    """Union-find with path halving: the root of a's set in `parent`. Inlined: a call would cost
    a reference-counted caller two atomic operations per lookup."""
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a
