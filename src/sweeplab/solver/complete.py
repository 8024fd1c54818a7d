"""Complete deduction and exact mine probabilities by counting consistent layouts: the engine's
analysis of a View.

The View is read into a position (solver.frontier.view_position) and the local rules settle what
they settle (solver.rules: sound, so they only shrink the counting, and decided cells leaving the
frontier often split a big component). The constraints of what is left are built and split into
components (solver.frontier); each component is swept forwards in floats (solver.sweep), giving
its layouts per number of mines k; the components and the U cells off the frontier are combined
under the mine total with weights C(U, M - k) (solver.total); the backward sweep under those
weights gives every cell's probability, in time linear in the table.

Decisions are made by counting, never by a float that happens to be 0: a cell is safe iff no
consistent layout of the whole board (numbers and mine total) has a mine on it; a mine iff no
layout leaves it safe. The sweep tracks that existence exactly (a count is zero iff no layout
reaches it). Probabilities are ratios of the counts in float64 (relative error ~1e-13).
`Analysis.layouts` is the exact big integer: counts below 2**53 are exact in the table; larger ones
are counted again in integers modulo primes near 2**61 and joined by Chinese remainders.
A component whose table would pass sweep.MAX_CELLS entries (numbers packed densely in two
dimensions; never seen in real games) raises TooComplexError rather than run for minutes.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .._numba_cache import njit
from ..errors import InconsistentPositionError, TooComplexError
from ..kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE
from ..view import FLAG, View
from .deduction import WHY_COMPONENT, WHY_PAIR, WHY_TOTAL
from .frontier import constraints, view_position
from .rules import BROKEN, settle
from .state import (
    EV_A,
    EV_B,
    EV_WHY,
    FLAGGED,
    REST_A,
    REST_B,
    ST,
    TM,
    grid_tables,
    new_play,
    new_scratch,
    push,
    scratch_for,
)
from .sweep import MAX_CELLS, OK, backward, sweep, workspace
from .total import combine, join, moduli, whole_board


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
        """Why the engine decided cell (x, y), as it decided it; None for a cell it did not decide."""
        if self._reasons is None or not self.decided[y, x]:
            return None
        why, a, b, rest_a, rest_b = (int(v) for v in self._reasons[y * self.safe.shape[1] + x])
        return Reason(why, a, b, rest_a, rest_b)

    @property
    def layouts(self) -> int:
        """Consistent layouts of the whole board: sum over j of (frontier layouts with j mines) * C(U, M - j)."""
        if self._layouts is None:
            counts = np.asarray(self._polys, dtype=np.float64)  # (components, mine counts)
            big = {}  # floats are not exact past 2**53: those components are counted again in integers
            if counts.max(initial=0) >= 2 ** 53:
                view = self._view
                if not isinstance(view, View):  # (a look-ahead's trial: its view built only now)
                    like, cells = view
                    view = self._view = View(cells.reshape(like.cells.shape), like.mine_count, like.topology)
                big = {k: exact_counts(view, self.trust_flags, k, int(np.log2(row.max())) + 8)
                       for k, row in enumerate(counts) if row.max(initial=0) >= 2 ** 53}
            self._layouts = whole_board(counts, big, self._U, self._M)
        return self._layouts

    @property
    def decided(self) -> np.ndarray:
        return self.safe | self.mines

    def __repr__(self) -> str:
        return (f"<Analysis safe={int(self.safe.sum())} mines={int(self.mines.sum())} "
                f"components={self.components} mine_range={self.mine_range}>")


@njit
def _settled(cells, nbr, trust_flags, mine_count, si, sm):
    """The View read into a position and the local rules run to a fixed point. Returns (status,
    bad cell or known mines, the log (pi, pb, meta)): status 0, 1 a number no layout satisfies,
    2 more trusted flags than mines, 3 numbers that contradict each other."""
    n = cells.shape[0]
    pi, pb, meta = new_play(n)
    status, bad, known = view_position(cells, nbr, trust_flags, pi, pb, np.empty(0, dtype=np.int8))
    if status:
        return 1, bad, pi, pb, meta
    if known > mine_count:
        return 2, known, pi, pb, meta
    sb = np.zeros((5, n), dtype=np.bool_)
    wtop = np.int64(0)  # (literals would compile settle again, for them: it shares the plays' signature)
    for i in range(n - 1, -1, -1):  # every number waits, the first on top
        if pb[ST, i] == OPEN_STATE:
            wtop = push(si, sb, wtop, i)
    if settle(cells, nbr, (pi, pb, meta), (si, sb, sm), wtop, np.int64(-1)) == BROKEN:
        return 3, 0, pi, pb, meta
    return 0, known, pi, pb, meta


@njit
def _analyse(cells, nbr, trust_flags, mine_count, si, sm):
    """The whole analysis in one compiled call: the local rules, constraints, components, sweeps,
    the total, decisions and probabilities. Status: 0 ok, 1 bad number, 2 too many trusted
    flags, 3 numbers contradict, 4 mine total fits no layout, 6 a component past the table budget."""
    n = cells.shape[0]
    prob = np.full(n, np.nan)
    safe = np.zeros(n, dtype=np.bool_)
    mines = np.zeros(n, dtype=np.bool_)
    counts = np.zeros((0, 1))
    reason = np.full((n, 5), -1, dtype=np.int64)
    status, bad, pi, pb, meta = _settled(cells, nbr, trust_flags, mine_count, si, sm)
    if status:
        return status, bad, prob, safe, mines, counts, 0, 0, 0, 0, 0, reason
    M = mine_count - bad  # (bad: the trusted flags)
    st = pb[ST]
    forced = meta[FLAGGED]
    M -= forced
    if M < 0:
        return 4, M + forced, prob, safe, mines, counts, 0, 0, 0, M + forced, 0, reason
    cs = constraints(cells, nbr, pi, pb)
    fidx, U, comp_start, order = cs.fidx, cs.off, cs.comp_start, cs.order
    nv = cs.front.shape[0]
    C = comp_start.shape[0] - 1
    L = 1
    for k in range(C):
        L = max(L, comp_start[k + 1] - comp_start[k] + 1)
    counts = np.zeros((C, L))
    polys = np.zeros((C, L))
    top = np.zeros(C)
    sizes = np.empty(C, dtype=np.int64)
    tables = []
    for k in range(C):
        n_k = comp_start[k + 1] - comp_start[k]
        sizes[k] = n_k
        st_k, F, ws = sweep(cs, k, np.zeros((64, n_k + 1)), 0.0,
                            workspace(np.int64(64), n_k, cs.cstart[k + 1] - cs.cstart[k], n_k + 1))
        tables.append((F, ws))
        if st_k != OK:  # too wide or too big: floats do not overflow
            return 6, k, prob, safe, mines, counts, 0, 0, 0, 0, C, reason
        layer = ws.layer
        if layer[n_k + 1] == layer[n_k]:
            return 3, k, prob, safe, mines, counts, 0, 0, 0, 0, C, reason
        fin = layer[n_k]
        t = 0.0
        for j in range(ws.flo[fin], ws.fhi[fin] + 1):
            counts[k, j] = F[fin, j]
            t = max(t, F[fin, j])
        top[k] = t
        for j in range(L):
            polys[k, j] = counts[k, j] / t
    supp = counts > 0
    # (np.bool_, np.int64: no literal, so a play's combination and this one share one compile)
    ratio, feasible, p_off, off_safe, off_mine, lo, hi, ok, _ = combine(polys, supp, sizes, U, M, np.bool_(True), np.int64(0))
    if not ok:
        return 4, M + forced, prob, safe, mines, counts, 0, 0, U, M + forced, C, reason
    p_var = np.zeros(nv)
    can_mine = np.zeros(nv, dtype=np.bool_)
    can_safe = np.zeros(nv, dtype=np.bool_)
    wfin = np.zeros(L)
    for k in range(C):
        F, ws = tables[k]
        for j in range(L):
            wfin[j] = ratio[k, j] / top[k]
        backward(cs, k, F, ws, wfin[:sizes[k] + 1], feasible[k, :sizes[k] + 1], (p_var, can_mine, can_safe), np.bool_(True))
    # a counted cell's reason: its component's layouts alone, unless the total ruled out some of
    # their mine counts
    alone = np.ones(C, dtype=np.bool_)
    for k in range(C):
        for j in range(sizes[k] + 1):
            if supp[k, j] and not feasible[k, j]:
                alone[k] = False
    comp_of = np.empty(nv, dtype=np.int64)
    for k in range(C):
        for q in range(comp_start[k], comp_start[k + 1]):
            comp_of[order[q]] = k
    for c in range(n):
        s = st[c]
        if s == OPEN_STATE or (cells[c] == FLAG and trust_flags):
            continue  # a number, or a mine the player's flag says is one
        if s != HIDDEN_STATE:  # decided by the local rules: the number(s) that did it
            mine = s == FLAG_STATE
            safe[c] = not mine
            mines[c] = mine
            prob[c] = 1.0 if mine else 0.0
            e = pi[TM, c]
            reason[c, 0] = pb[EV_WHY, e]
            reason[c, 1] = pi[EV_A, e]
            reason[c, 2] = pi[EV_B, e]
            reason[c, 3] = si[REST_A, c]
            reason[c, 4] = si[REST_B, c] if pb[EV_WHY, e] == WHY_PAIR else -1
        elif fidx[c] < 0:  # off the frontier: only the total decides
            prob[c] = 0.0 if off_safe else (1.0 if off_mine else p_off)
            safe[c] = off_safe
            mines[c] = off_mine
            if off_safe or off_mine:
                reason[c, 0] = WHY_TOTAL
        else:
            v = fidx[c]
            safe[c] = not can_mine[v]
            mines[c] = not can_safe[v]
            prob[c] = 0.0 if safe[c] else (1.0 if mines[c] else min(max(p_var[v], 0.0), 1.0))
            if safe[c] or mines[c]:
                reason[c, 0] = WHY_COMPONENT if alone[comp_of[v]] else WHY_TOTAL
    return 0, -1, prob, safe, mines, counts, lo + forced, hi + forced, U, M, C, reason


@functools.lru_cache(maxsize=4)
def _scratch(width: int, height: int, topology: str):
    """An analysis's scratch on this grid: its work rows are rewritten by every analysis (one at a
    time: numba holds the interpreter lock), its tables read."""
    si, _, _ = scratch_for(width, height, topology)
    return si, grid_tables(width, height, topology)[2]


_SCRATCH_OF: dict = {}


def analyse_kernel(cells, nbr, trust_flags, mine_count):
    """The whole analysis on flat cells and a neighbour table, without a View (for batch work):
    (status, bad cell, probabilities, safe, mines, counts, lo, hi, U, M, components, reasons) as
    `analyse` reads them. Status: 0 ok, 1 bad number, 2 too many trusted flags, 3 numbers
    contradict, 4 mine total fits no layout, 6 a component past the table budget."""
    held = _SCRATCH_OF.get(id(nbr))
    if held is None or held[0] is not nbr:  # (the grid's tables, built once per neighbour table)
        si, _, sm = new_scratch(nbr)
        held = _SCRATCH_OF[id(nbr)] = (nbr, si, sm)
    return _analyse(cells, nbr, bool(trust_flags), mine_count, held[1], held[2])


def analyse(view: View, *, trust_flags: bool = False) -> Analysis:
    """Complete deduction with the mine total, and exact probabilities, for `view`.

    Flags count as unknown hidden cells unless `trust_flags` (a player's flags may be wrong).
    Raises InconsistentPositionError when no layout fits the numbers and the mine total.
    """
    if not isinstance(view, View):
        raise TypeError(f"solvers take only a sweeplab View (what a player sees), not {type(view).__name__}")
    return _analysis(view, view.flat, bool(trust_flags), view)


def analyse_trial(view: View, cells: np.ndarray) -> Analysis:
    """`analyse(..., trust_flags=True)` of the view with its flat cells replaced by `cells` (same grid
    and mine total; cells a View would take): no View is built unless the exact count needs one,
    since a look-ahead analyses thousands of trials."""
    return _analysis(view, cells, True, (view, cells))


def _analysis(view: View, cells: np.ndarray, trust_flags: bool, source) -> Analysis:
    """The analysis of `cells` on the grid and mine total of `view`; `source`: the Analysis's view,
    or (view, cells) for one built on demand."""
    si, sm = _scratch(view.width, view.height, view.topology)
    status, bad, prob, safe, mines, counts, lo, hi, U, M, C, reason = _analyse(
        cells, view.neighbours, trust_flags, view.mine_count, si, sm)
    if status == 0:
        shape = (view.height, view.width)
        return Analysis(safe.reshape(shape), mines.reshape(shape), prob.reshape(shape), (int(lo), int(hi)), int(C),
                        trust_flags, counts, int(U), int(M), source, reason)
    if status == 1:
        x, y = bad % view.width, bad // view.width
        raise InconsistentPositionError(
            f"the {cells[bad]} at ({x}, {y}) cannot be satisfied by its hidden neighbours"
            + (" and flags" if trust_flags else "") + "; every number must equal the mines around it")
    if status == 2:
        raise InconsistentPositionError(f"{bad} trusted flags exceed the mine total {view.mine_count}; "
                                        "flags must not outnumber the mines")
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


@njit
def component_residues(cells, nbr, trust_flags, si, sm, k, mods):
    """The layouts of component k of the analysis by mine count, modulo each of `mods` (primes below
    2**61): (status, residues (len(mods), cells + 1))."""
    status, _, pi, pb, meta = _settled(cells, nbr, trust_flags, np.int64(1 << 40), si, sm)  # (not a literal: one compile)
    cs = constraints(cells, nbr, pi, pb)
    n_k = cs.comp_start[k + 1] - cs.comp_start[k]
    out = np.zeros((mods.shape[0], n_k + 1), dtype=np.int64)
    for r in range(mods.shape[0]):
        st_k, F, ws = sweep(cs, k, np.zeros((64, n_k + 1), dtype=np.int64), mods[r],
                            workspace(np.int64(64), n_k, cs.cstart[k + 1] - cs.cstart[k], n_k + 1))
        if st_k != OK:
            return st_k, out
        layer = ws.layer
        if layer[n_k + 1] > layer[n_k]:
            out[r] = F[layer[n_k]]
    return OK, out


def exact_counts(view: View, trust_flags: bool, k: int, bits: int) -> list[int]:
    """Exact layouts of component k of the view's analysis by mine count, as Python integers, when
    they need up to `bits` bits: counted modulo several primes near 2**61 and joined."""
    mods = moduli(bits // 60 + 2)
    si, sm = _scratch(view.width, view.height, view.topology)
    status, residues = component_residues(view.flat, view.neighbours, bool(trust_flags), si, sm, k,
                                          np.array(mods, dtype=np.int64))
    if status != OK:
        raise TooComplexError(f"a frontier component of this position is past the counting budget "
                              f"({MAX_CELLS:,} table entries)")
    return join(mods, [[int(x) for x in row] for row in residues])


__all__ = ["Analysis", "Reason", "analyse", "analyse_kernel", "analyse_trial", "exact_counts"]
