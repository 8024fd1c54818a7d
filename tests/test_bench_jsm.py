"""The layout resampler of benchmarks/bench_jsm.py: every layout it returns is consistent with the
position, and one of its moves keeps the uniform distribution over those layouts (the property its
judging of JSMinesweeper's and strong's choices rests on), checked against the full enumeration."""

import sys
from pathlib import Path

import numpy as np

from sweeplab.board import Board
from sweeplab.game import Game
from sweeplab.solver.complete import analyse
from sweeplab.solver.layouts import enumerate_layouts

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_jsm import resample  # noqa: E402


def _position(seed, w=6, h=4, m=5, clicks=2):
    """A position with numbers, frontier and off-frontier cells, and between 30 and 400 layouts."""
    rng = np.random.default_rng(seed)
    while True:
        mines = rng.choice(w * h, m, replace=False)
        g = Game(Board.from_indices(w, h, mines))
        for c in rng.permutation([c for c in range(w * h) if c not in mines])[:clicks]:
            if not g.over and g.cell_state(int(c) % w, int(c) // w) == "hidden":
                g.open(int(c) % w, int(c) // w)
        if g.over:
            continue
        v = g.view()
        a = analyse(v)
        off = (v.cells.reshape(-1) < 0) & ~np.append(v.cells.reshape(-1) >= 0, False)[v.neighbours].any(axis=1)
        if 30 <= a.layouts <= 400 and off.any() and not (a.safe.any() or a.mines.any()):
            return v


def _layouts(view):
    hidden = view.cells < 0
    L = enumerate_layouts(view, np.zeros_like(hidden), hidden, 10_000)
    full = np.zeros((len(L), hidden.size), dtype=bool)
    full[:, np.flatnonzero(hidden.reshape(-1))] = L
    return full


def test_resampled_layouts_are_consistent_and_uniform():
    for seed in (2, 3):
        view = _position(seed)
        L = _layouts(view)
        index = {row.tobytes(): k for k, row in enumerate(L)}
        rng = np.random.default_rng(seed)
        n = 40 * len(L)
        seen = np.zeros(len(L))
        for _ in range(n):
            start = L[rng.integers(len(L))]  # a uniform draw: one move must leave it uniform
            got = resample(view, start, rng, 1)
            key = got.tobytes()
            assert key in index, "a layout that breaks a number or the mine total"
            seen[index[key]] += 1
        # chi-square against uniform: a biased move (e.g. the off-frontier count ignored) fails
        expected = n / len(L)
        chi2 = ((seen - expected) ** 2 / expected).sum()
        dof = len(L) - 1
        assert chi2 < dof + 5 * np.sqrt(2 * dof), (chi2, dof)


def test_resampling_moves_away_from_the_start():
    view = _position(4)
    L = _layouts(view)
    rng = np.random.default_rng(4)
    lay = L[0]
    reached = {resample(view, lay, rng, 5).tobytes() for _ in range(200)}
    assert len(reached) > len(L) // 3
