"""Two moves of look-ahead: a guess scored by the best guess that can follow each number it shows.

For a candidate c and each number v it can show (weighted by its exact share of the layouts),
the position after v is worth 1 when it has a certain cell (progress), else the one-move score
of the best next guess there: for that guess d and each number w it can show, its share of the
layouts after v, times 1 when w leads to a certain cell, else the best safety then. Every count
comes from the exact analysis (`analyse`) of the view with the numbers put in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from ..errors import InconsistentPositionError
from ..view import FLAG, HIDDEN, View
from .complete import Analysis, analyse


def trial_view(view: View, base: np.ndarray, c: int, v: int) -> View:
    """The view with cell c showing number v (`base`: the flat cells, known mines as flags)."""
    trial = base.copy()
    trial[c] = v
    return View(trial.reshape(view.cells.shape), view.mine_count, view.topology)


def flagged(view: View, a: Analysis) -> np.ndarray:
    """The view's flat cells with the mines `a` proved put in as flags: the same layouts, fewer unknowns."""
    base = view.cells.reshape(-1).copy()
    base[a.mines.reshape(-1) & (base == HIDDEN)] = FLAG
    return base


def outcomes(view: View, a: Analysis, base: np.ndarray, c: int) -> Iterator[tuple[float, View, Analysis]]:
    """Each number cell c can show, as (its exact share of the layouts of `a`, the view showing it,
    the analysis of that view)."""
    nbr = view.neighbours
    ns = nbr[c][nbr[c] >= 0]
    known = int(np.count_nonzero(base[ns] == FLAG))
    unknown = int(np.count_nonzero(base[ns] == HIDDEN))
    for v in range(known, known + unknown + 1):
        tv = trial_view(view, base, c, v)
        try:
            b = analyse(tv, trust_flags=True)
        except InconsistentPositionError:  # no layout shows v there
            continue
        weight = b.layouts / a.layouts
        if weight:
            yield weight, tv, b


class Progress(NamedTuple):
    """The one-move look at a guess c: its score, how many numbers it can show, the chance that it
    is safe and its number leaves some other cell certain (progress), and the expected count of
    cells that are then certain (both over all layouts, c a mine counting as none)."""

    score: float
    shown: int
    progress: float
    clears: float


def progress_detail(view: View, a: Analysis, base: np.ndarray, c: int, blend: float = 0.0) -> Progress:
    """The one-move look at c (see `progress_score`), with its progress and expected clears."""
    hidden = base == HIDDEN
    hidden[c] = False
    score, shown, progress, clears = 0.0, 0, 0.0, 0.0
    for weight, _, b in outcomes(view, a, base, c):
        shown += 1
        certain = int(np.count_nonzero(b.safe.reshape(-1) & hidden))
        if certain:
            progress += weight
            clears += weight * certain
        if not hidden.any():
            score += weight
            continue
        q = b.probability.reshape(-1)[hidden]
        if blend == 0.0 or q.size == 1:
            score += weight * (1.0 - float(q.min()))
        else:
            two = np.partition(q, 1)[:2]
            score += weight * (1.0 - (1.0 - blend) * float(two[0]) - blend * float(two[1]))
    return Progress(score, shown, progress, clears)


def progress_score(view: View, a: Analysis, base: np.ndarray, c: int, blend: float = 0.0) -> tuple[float, int]:
    """(one-move score of guessing c, how many numbers it can show): each number's share x the
    safety of the best next move then (1 for a certain cell), blended with the second best:
    (1 - blend) x best + blend x second (two next moves that are both good are worth more than one
    good move beside poor ones)."""
    d = progress_detail(view, a, base, c, blend)
    return d.score, d.shown


def safe_whenever(view: View, a: Analysis, base: np.ndarray, c: int) -> np.ndarray:
    """Flat bool: the hidden cells other than c that are safe in every layout where c is safe. Such a
    cell d dominates c: it is at least as safe, and opening d first loses nothing, since c can
    still be opened after it, at no more risk than before."""
    common = base == HIDDEN
    common[c] = False
    for _, _, b in outcomes(view, a, base, c):
        common &= b.safe.reshape(-1)
    return common


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

