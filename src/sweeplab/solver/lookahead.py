"""Looking one move ahead at a guess: each number it can show, with its exact share of the layouts
and the exact analysis of the view with that number put in (`outcomes`); what `strong` scores a
guess by (`progress_detail`, cut short once the guess can no longer beat a given score), and which
cells are safe whenever a guess is (`safe_whenever`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from .._numba_cache import njit
from ..errors import InconsistentPositionError
from ..view import FLAG, HIDDEN, View
from .complete import Analysis, analyse_trial


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
    for v, weight, b in _trials(view, a, base, c):
        yield weight, trial_view(view, base, c, v), b


def _trials(view: View, a: Analysis, base: np.ndarray, c: int) -> Iterator[tuple[int, float, Analysis]]:
    """`outcomes` as (the number, its share, the analysis), without building the views."""
    for v in _numbers(view, base, c):
        got = _trial(view, a, base, c, v)
        if got is not None:
            yield v, got[0], got[1]


def _numbers(view: View, base: np.ndarray, c: int) -> range:
    """The numbers cell c could show: its flagged neighbours, up to all its hidden ones too."""
    nbr = view.neighbours
    ns = nbr[c][nbr[c] >= 0]
    known = int(np.count_nonzero(base[ns] == FLAG))
    unknown = int(np.count_nonzero(base[ns] == HIDDEN))
    return range(known, known + unknown + 1)


def _trial(view: View, a: Analysis, base: np.ndarray, c: int, v: int) -> tuple[float, Analysis] | None:
    """(the share of the layouts of `a` where c shows v, the analysis of the view showing it), or
    None when no layout shows v there."""
    trial = base.copy()
    trial[c] = v
    try:
        b = analyse_trial(view, trial)
    except InconsistentPositionError:  # no layout shows v there
        return None
    weight = b.layouts / a.layouts
    return (weight, b) if weight else None


class Progress(NamedTuple):
    """The one-move look at a guess c: its score, how many numbers it can show, the chance that it
    is safe and its number leaves some other cell certain (progress), the expected count of
    cells that are then certain (both over all layouts, c a mine counting as none), and the hidden
    cells other than c that are safe whenever c is (flat bool, `safe_whenever`)."""

    score: float
    shown: int
    progress: float
    clears: float
    whenever: np.ndarray


# What the float sums of a look may differ by from their exact values (each share is a correctly
# rounded ratio of counts, the analysis's probabilities have a relative error ~1e-13): a bound that
# cuts a look short is widened by this, so the cut never drops a guess that could have won.
SLACK = 1e-9


def progress_detail(view: View, a: Analysis, base: np.ndarray, c: int, blend: float = 0.0,
                    beat: float | None = None, progress_weight: float = 0.0) -> Progress | None:
    """The one-move look at c: each number it can show, weighted by its exact share of the layouts,
    times the safety of the best next move then (1 for a certain cell), blended with the second
    best: (1 - blend) x best + blend x second (two next moves that are both good are worth more
    than one good move beside poor ones); how many numbers it can show; its progress and expected
    clears; the cells safe whenever c is.

    With `beat`: None as soon as score x (1 + `progress_weight` x progress) can no longer pass it
    (each number still to look at adds at most its share to both, and the shares add up to c's
    safety), so a guess that cannot beat the best one found is not analysed to the end."""
    hidden = base == HIDDEN
    hidden[c] = False
    whenever = hidden.copy()
    any_hidden = bool(hidden.any())
    safe_left = 1.0 - float(a.probability.reshape(-1)[c])  # the shares not yet looked at
    score, shown, progress, clears = 0.0, 0, 0.0, 0.0
    for v in _numbers(view, base, c):
        if beat is not None:
            room = safe_left + SLACK
            if (score + room) * (1.0 + progress_weight * (progress + room)) <= beat:
                return None
        got = _trial(view, a, base, c, v)
        if got is None:
            continue
        weight, b = got
        safe_left -= weight
        b_safe = b.safe.reshape(-1)
        whenever &= b_safe
        shown += 1
        certain = int(np.count_nonzero(b_safe & hidden))
        if certain:
            progress += weight
            clears += weight * certain
        if not any_hidden:
            score += weight
            continue
        least, second = _two_least(b.probability.reshape(-1), hidden)
        if blend == 0.0 or second == np.inf:
            score += weight * (1.0 - least)
        else:
            score += weight * (1.0 - (1.0 - blend) * least - blend * second)
    return Progress(score, shown, progress, clears, whenever)


@njit
def _two_least(p, where):
    """The least and the second least of p over the cells `where` is true (inf where there are
    fewer), in one pass: the two safest next moves of a trial."""
    least, second = np.inf, np.inf
    for i in range(p.shape[0]):
        if where[i]:
            v = p[i]
            if v < least:
                least, second = v, least
            elif v < second:
                second = v
    return least, second


def safe_whenever(view: View, a: Analysis, base: np.ndarray, c: int) -> np.ndarray:
    """Flat bool: the hidden cells other than c that are safe in every layout where c is safe. Such a
    cell d dominates c: it is at least as safe, and opening d first loses nothing, since c can
    still be opened after it, at no more risk than before."""
    look = progress_detail(view, a, base, c)
    assert look is not None  # (no bound to beat)
    return look.whenever
