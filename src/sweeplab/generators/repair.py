"""The repair: the no-guess chain's first board where the insertion stalls. Where the player gets
stuck on a uniform board, a mine it cannot decide is moved off the frontier, and the board played
again, until it certifies. The boards it makes are biased (too many mines in the corners, too few
boards that need the mine total); the chain's length is what forgets them (noguess.py).
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..rng import below
from .certify import SOLVED, hidden, keep, position, revealed, start, try_move


@njit(inline='always')
def _by_open(p, i):
    """Does cell i touch a cell the last play opened?"""
    for k in range(8):
        j = p.nbr[i, k]
        if j >= 0 and revealed(p, j):
            return True
    return False


@njit
def repair(mines, excluded, nbr, click, state, repairs, budget, room):
    """Where the player gets stuck, move a random hidden mine beside an opened cell to a random
    hidden cell beside none, until the board certifies: a cell the player could not decide becomes
    safe. Returns (state, moves, certified, position)."""
    n = mines.shape[0]
    cand = np.empty(n, dtype=np.int32)
    p = position(mines, nbr, click, budget, room)
    status = start(p)
    for r in range(repairs + 1):
        if status == SOLVED:
            return state, r, True, p
        if r == repairs:
            break
        nc = 0
        for i in range(n):
            if hidden(p, i) and mines[i] and _by_open(p, i):
                cand[nc] = i
                nc += 1
        if nc == 0:  # a component over budget with no frontier mine: move any hidden mine
            for i in range(n):
                if hidden(p, i) and mines[i]:
                    cand[nc] = i
                    nc += 1
        if nc == 0:
            break
        state, r1 = below(state, nc)
        src = cand[r1]
        # not to a frontier cell (the mine would just swap places with it: a 50/50 again); one time in
        # four to any free cell, so that walled-in mines cannot circle
        state, coin = below(state, 4)
        nd = 0
        if coin > 0:
            for i in range(n):
                if hidden(p, i) and not mines[i] and not excluded[i] and not _by_open(p, i):
                    cand[nd] = i
                    nd += 1
        if nd == 0:
            for i in range(n):
                if not mines[i] and not excluded[i]:
                    cand[nd] = i
                    nd += 1
        if nd == 0:
            break
        state, r2 = below(state, nd)
        status = try_move(p, src, cand[r2])
        p = keep(p)
    return state, repairs, False, p
