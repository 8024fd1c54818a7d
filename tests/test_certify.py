"""The certifier's Candidate on the engine: where the leaf budget stopped a play, `settle` gives the
board its own verdict, the one brute force gives, and `keep` makes that play the position's."""

from __future__ import annotations

import numpy as np

from sweeplab import Board, grid
from sweeplab.generators.certify import (
    BUDGET,
    NO_BUDGET,
    SOLVED,
    STUCK,
    certify,
    keep,
    position,
    revealed,
    settle,
    start,
    try_move,
    undo,
    workspace,
)
from sweeplab.generators.uniform import uniform_board

from .test_noguess import brute_force_no_guess


def _board(seed, w=5, h=5, m=6):
    rng = np.random.default_rng(seed)
    x, y = int(rng.integers(w)), int(rng.integers(h))
    exclude = np.zeros(w * h, dtype=bool)
    exclude[y * w + x] = True
    return uniform_board(w, h, m, int(rng.integers(2**62)), exclude=exclude), x, y, rng


def _opened_every_safe_cell(p, mines):
    return all(revealed(p, i) for i in np.flatnonzero(~mines))


def test_settle_gives_a_board_stopped_by_the_budget_its_own_verdict():
    stopped = 0
    for seed in range(60):
        board, x, y, _ = _board(seed)
        w, h = board.width, board.height
        p = position(board.flat_mines.copy(), grid.neighbour_table(w, h), y * w + x, 1, workspace(w, h))
        status = start(p)  # a budget of one layout: any component left to count stops the play
        if status == BUDGET:
            stopped += 1
            status = settle(p)
            p = keep(p)
        truth = brute_force_no_guess(board, x, y)
        assert status == (SOLVED if truth else STUCK)
        assert status == (SOLVED if certify(board, x, y, budget=NO_BUDGET)[0] else STUCK)
        assert _opened_every_safe_cell(p, board.flat_mines) == truth
    assert stopped >= 5  # (the budget did stop plays, so settle was asked: 8 of these 60)


def test_settle_after_a_moved_mine_then_undo_or_keep():
    stopped = 0
    for seed in range(40):
        board, x, y, rng = _board(seed + 1000)
        w, h = board.width, board.height
        mines = board.flat_mines.copy()
        p = position(mines, grid.neighbour_table(w, h), y * w + x, 1, workspace(w, h))
        if start(p) == BUDGET:
            settle(p)
            p = keep(p)
        before = mines.copy()
        src = int(rng.choice(np.flatnonzero(mines)))
        dst = int(rng.choice(np.flatnonzero(~mines & (np.arange(w * h) != y * w + x))))
        status = try_move(p, src, dst)
        if status == BUDGET:
            stopped += 1
            status = settle(p)
        moved = mines.copy()
        truth = brute_force_no_guess(Board(moved.reshape(h, w)), x, y)
        assert status == (SOLVED if truth else STUCK)
        if seed % 2:
            undo(p, src, dst)
            assert (mines == before).all()
        else:
            p = keep(p)
            assert _opened_every_safe_cell(p, moved) == truth
    assert stopped >= 5
