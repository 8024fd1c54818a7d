"""A ceiling on perfect play: the most any player could win from a position too large to solve.

Perfect play opens a certain cell before any guess (a safe reveal only adds knowledge), so from a
game's first click the position where a guess is first due is fixed by the board, and perfect
play's chance to win the game is the average, over boards, of its chance from there. When few
layouts remain the exact end game (`solver.endgame`) gives that chance. Past it, a bound: a guess
at c wins at most the sum, over each number v it can show, of P(c safe and shows v) times 1 when
v leaves a certain cell, else perfect play's chance after v by the end game where it fits, else
the best safety after v (the next guess must survive). A forced 50/50 (`solver.fifty`: a pair
holding one mine that no reveal can ever tell apart, so every layout has a twin with the two
swapped) that c is not in is still one after c, and is got through by luck alone: each such pair
halves those terms. The most over every undecided cell bounds perfect play from above. Cells are
taken safest first, and the search stops at the first that could not beat the best found even
with every number worth 1. (Bounding the position after v the same way instead of by its best
safety changed nothing on intermediate positions, at minutes a position: the slack is in the
numbers that leave a certain cell, counted as 1.)

Every count is exact (the analysis's); the value is their ratio as a float, for measuring.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sweeplab.solver.complete import Analysis
from sweeplab.solver.endgame import endgame_search
from sweeplab.solver.fifty import forced_pairs
from sweeplab.solver.lookahead import flagged, outcomes
from sweeplab.view import HIDDEN, View


class Ceiling(NamedTuple):
    """Perfect play from a position wins at most `value` of its layouts; exactly that when `exact`."""

    value: float
    exact: bool


def ceiling(view: View, a: Analysis, *, exact_layouts: int = 20_000, budget: int = 2_000_000,
            memo: dict | None = None) -> Ceiling:
    """The ceiling of a position that needs a guess (`a`: its analysis, no certain cell): exact when
    its end game has at most `exact_layouts` layouts and fits `budget` states, else the bound above.
    `memo` (a dict) keeps results by view, for positions met again (the same first click's number)."""
    key = (view.cells.tobytes(), view.mine_count, exact_layouts, budget)
    if memo is not None and key in memo:
        return memo[key]
    value = _exact(view, a, exact_layouts, budget)
    if value is not None:
        found = Ceiling(value, True)
    else:
        found = Ceiling(_bound(view, a, exact_layouts, budget), False)
    if memo is not None:
        memo[key] = found
    return found


def _bound(view: View, a: Analysis, exact_layouts: int, budget: int) -> float:
    base = flagged(view, a)
    p = a.probability.reshape(-1)
    undecided = view.hidden & ~a.mines
    pairs = _apart(forced_pairs(view, a.mines, undecided))
    cells = np.flatnonzero(undecided.reshape(-1))
    best = 0.0
    for c in cells[np.argsort(p[cells], kind="stable")].tolist():
        if 1.0 - p[c] <= best:
            break  # (safest first: no later cell can do better)
        # the 50/50s c is not in stay so after its reveal (it sees both cells of a pair or neither)
        most = 0.5 ** sum(c not in t for t in pairs)
        others = base == HIDDEN
        others[c] = False
        score = 0.0
        for weight, tv, b in outcomes(view, a, base, c):
            left = others & ~b.mines.reshape(-1)
            if not left.any():
                score += weight  # the game is won
            elif (b.safe.reshape(-1) & left).any():
                score += weight * most  # a certain cell follows
            else:
                value = _exact(tv, b, exact_layouts, budget)
                safety = 1.0 - float(b.probability.reshape(-1)[left].min())
                score += weight * (value if value is not None else min(safety, most))
        best = max(best, score)
    return best


def _apart(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs that share no cell (each then a coin of its own)."""
    out: list = []
    used: set = set()
    for t in pairs:
        if used.isdisjoint(t):
            used.update(t)
            out.append(t)
    return out


def _exact(view: View, a: Analysis, exact_layouts: int, budget: int) -> float | None:
    """Perfect play's chance from the position by the end game, or None when it is too large."""
    if a.layouts > exact_layouts:
        return None
    e = endgame_search(view, a.mines, view.hidden & ~a.mines, a.layouts, budget)
    return None if e is None else e.wins / e.layouts
