"""Local rules, one level: the single-number rule and the subset (set-difference) rule.

Each number alone, then each pair of numbers whose hidden neighbours overlap (the pair rule,
stronger than the subset rule alone of the Windows 7 "no guess" patch, whose solver
generators/win7_noguess.py emulates). It sees no mine total and never iterates; call it again
after acting on what it found.
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..errors import InconsistentPositionError
from ..view import View
from .deduction import ALL_SAFE, UNDECIDED, number_rule, subset_rule
from .frontier import build_constraints, holds, numbers_touching, own_cells


@njit
def local_rules(nv, con_vars, con_target, con_size):
    """Per frontier var: 1 safe, 2 mine, 0 unknown, by the single-number and pair rules."""
    out = np.zeros(nv, dtype=np.int8)
    m = con_vars.shape[0]
    for c in range(m):  # single number: all its mines found, or all its hidden cells needed
        rule = number_rule(con_target[c], con_size[c])
        if rule != UNDECIDED:
            for s in range(con_size[c]):
                out[con_vars[c, s]] = 1 if rule == ALL_SAFE else 2
    touch, deg = numbers_touching(nv, con_vars, con_size)
    undecided = np.full(nv, -1, dtype=np.int8)  # (one level: every cell counts)
    for c in range(m):
        for s in range(con_size[c]):
            v = con_vars[c, s]
            for e in range(deg[v]):
                d = touch[v, e]
                if d == c:
                    continue
                # pair (A=c, B=d): if B's own cells must hold t_B - t_A = |B \ A| mines, they all
                # are mines and A's own cells are all safe (a subset A of B is the case A \ B empty)
                if not subset_rule(con_target[c], con_target[d], own_cells(con_vars, con_size, c, d, undecided)):
                    continue
                for s2 in range(con_size[d]):
                    w = con_vars[d, s2]
                    if not holds(con_vars, con_size, c, w):
                        out[w] = 2
                for s2 in range(con_size[c]):
                    w = con_vars[c, s2]
                    if not holds(con_vars, con_size, d, w):
                        out[w] = 1
    return out


@njit
def local_rules_board(cells, nbr, trust_flags):
    """(status, bad cell, safe, mines) over the flat board in one compiled call."""
    n = cells.shape[0]
    safe = np.zeros(n, dtype=np.bool_)
    mines = np.zeros(n, dtype=np.bool_)
    status, bad, var_cell, con_vars, con_target, con_size, _, _, _ = build_constraints(cells, nbr, trust_flags)
    if status:
        return status, bad, safe, mines
    out = local_rules(var_cell.shape[0], con_vars, con_target, con_size)
    for v in range(var_cell.shape[0]):
        if out[v] == 1:
            safe[var_cell[v]] = True
        elif out[v] == 2:
            mines[var_cell[v]] = True
    return 0, -1, safe, mines


def deduce_rules(view: View, *, trust_flags: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(safe, mines): bool (h, w) arrays of what the single-number and pair rules decide now.

    Like `analyse`, flags are unknown hidden cells unless `trust_flags`.
    """
    if not isinstance(view, View):
        raise TypeError(f"solvers take only a sweeplab View (what a player sees), not {type(view).__name__}")
    cells = view.cells.reshape(-1)
    status, bad, safe, mines = local_rules_board(cells, view.neighbours, bool(trust_flags))
    if status:
        x, y = bad % view.width, bad // view.width
        raise InconsistentPositionError(f"the {cells[bad]} at ({x}, {y}) cannot be satisfied by its hidden "
                                        "neighbours; every number must equal the mines around it")
    shape = (view.height, view.width)
    return safe.reshape(shape), mines.reshape(shape)
