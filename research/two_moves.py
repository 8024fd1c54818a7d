"""Two moves of look-ahead: a guess scored by the best guess that can follow each number it shows.

For a candidate c and each number v it can show (weighted by its exact share of the layouts),
the position after v is worth 1 when it has a certain cell (progress), else the one-move score
of the best next guess there: for that guess d and each number w it can show, its share of the
layouts after v, times 1 when w leads to a certain cell, else the best safety then. Every count
comes from the exact analysis (`analyse`) of the view with the numbers put in.

Research: used only by benchmarks and tests, so it lives here, outside the package, as
`TwoMovePlayer` (`strong` with this score in place of its one-move look).
"""

from __future__ import annotations

import numpy as np

from sweeplab.solver.complete import Analysis
from sweeplab.solver.lookahead import flagged, outcomes, progress_detail
from sweeplab.solver.players import StrongPlayer
from sweeplab.view import HIDDEN, View


def progress_score(view: View, a: Analysis, base: np.ndarray, c: int, blend: float = 0.0) -> tuple[float, int]:
    """(one-move score of guessing c, how many numbers it can show): each number's share x the
    safety of the best next move then (1 for a certain cell), blended with the second best:
    (1 - blend) x best + blend x second (two next moves that are both good are worth more than one
    good move beside poor ones)."""
    d = progress_detail(view, a, base, c, blend)
    return d.score, d.shown


def next_guesses(b: Analysis, base: np.ndarray, c: int, count: int, near: float) -> np.ndarray:
    """The `count` safest hidden cells after c is opened (those within `near` of the best safety)."""
    p = np.where(base == HIDDEN, b.probability.reshape(-1), np.inf)
    p[c] = np.inf
    order = np.argsort(p, kind="stable")[:count]
    order = order[np.isfinite(p[order])]
    if order.size == 0:
        return order
    best = 1.0 - p[order[0]]
    return order[1.0 - p[order] >= best * near]


def two_move_score(view: View, a: Analysis, base: np.ndarray, c: int, count: int = 3,
                   near: float = 0.9) -> tuple[float, int]:
    """(two-move score of guessing c, how many numbers it can show): each number's share x (1 when
    a certain cell follows, else the best one-move score among the `count` safest next guesses)."""
    score, shown = 0.0, 0
    for weight, tv, b in outcomes(view, a, base, c):
        shown += 1
        if b.safe.any():
            score += weight
            continue
        nb = flagged(tv, b)
        cands = next_guesses(b, nb, c, count, near)
        if cands.size == 0:
            score += weight
            continue
        best = max(progress_score(tv, b, nb, int(d))[0] for d in cands)
        score += weight * best
    return score, shown



class TwoMovePlayer(StrongPlayer):
    """`strong` scoring each look-ahead candidate by `two_move_score` (the best of the `next_guesses`
    safest next guesses within `next_near` of the best safety, after each number)."""

    name = "strong-two"
    next_guesses = 3
    next_near = 0.9

    def _score_progress(self, view, a, base, c, beat=None, looks=None) -> float:  # (no cut: every guess in full)
        score, shown = two_move_score(view, a, base, c, self.next_guesses, self.next_near)
        if shown == 1:  # a dead cell: its number is known in advance, so opening it tells nothing
            score *= 1.0 - self.dead_penalty
        return score
