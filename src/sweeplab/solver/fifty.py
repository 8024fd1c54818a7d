"""Unavoidable guesses: a few hidden cells around one number, holding some but not all of its
mines, that no later reveal, outside the set or inside it, can ever tell apart; the commonest is a
50/50 pair.

Such a set must be guessed sooner or later at the same odds, so guessing it at once costs nothing
and, when it goes well, leaves the rest of the game with fewer unknowns. A set whose own cells can
tell the others apart (a cell beside some of them but not all) is not one: which of its cells is
opened first then matters, and the end game or the look-ahead chooses.
"""

from __future__ import annotations

import numpy as np

from .. import grid
from ..view import View


def unavoidable_sets(view: View, mines: np.ndarray, undecided: np.ndarray) -> list[tuple[int, ...]]:
    """Each set T of flat cell indexes such that: a number sees exactly these undecided cells and
    needs some but not all of them to be mines; every hidden cell outside T that could still be
    opened and touches a cell of T touches all of them (its number would tell only their total,
    which is known); and every open number touching some but not all of T sees no undecided cell
    outside T (nothing outside T can ever be learnt that would tell its cells apart); and every cell
    of T touches all of T's other cells or none (its own number, once it is opened, tells their
    total, which is known, or nothing about them)."""
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    known = mines.reshape(-1)
    und = view.hidden.reshape(-1) & ~known  # hidden cells a reveal could still show (safe ones too)
    n_und = grid.around(undecided.reshape(-1), nbr).sum(axis=1)
    n_known = grid.around(known, nbr).sum(axis=1)
    need = cells - n_known
    out, seen = [], set()
    for i in np.flatnonzero((cells > 0) & (n_und >= 2) & (need > 0) & (need < n_und)):
        ns = nbr[i][nbr[i] >= 0]
        t = tuple(sorted(int(c) for c in ns[und[ns]]))
        if len(t) != n_und[i] or t in seen:  # a safe hidden cell beside it as well, or already found
            continue
        seen.add(t)
        members = set(t)
        inside = [{int(j) for j in nbr[c] if j >= 0} & members for c in t]
        if any(s and len(s) != len(t) - 1 for s in inside):  # beside some of the others, not all
            continue
        around: set[int] = set()
        for c in t:
            around.update(int(j) for j in nbr[c] if j >= 0)
        around -= members
        ok = True
        for c in around:
            touches = {int(j) for j in nbr[c] if j >= 0} & members
            if touches == members:
                continue  # sees all of T: learns only their total
            if und[c]:  # a hidden cell beside only some of them could show which
                ok = False
                break
            if cells[c] >= 0:
                others = [int(j) for j in nbr[c] if j >= 0 and und[j] and int(j) not in members]
                if others:
                    ok = False
                    break
        if ok:
            out.append(t)
    return out


def forced_pairs(view: View, mines: np.ndarray, undecided: np.ndarray) -> list[tuple[int, int]]:
    """The unavoidable sets of two cells: 50/50s (the number that sees just the two needs one)."""
    return [t for t in unavoidable_sets(view, mines, undecided) if len(t) == 2]
