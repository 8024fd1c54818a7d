"""Positions from real games for the solver's tests and benchmark: seeded uniform games, first
click opening at (3, 3), then safe cells opened (mostly next to the open area) for a while."""

from __future__ import annotations

import numpy as np

from sweeplab import Game, View, make_rule


def play_positions(count: int, seed: int = 0, *, width: int = 30, height: int = 16, mines: int = 99,
                   moves=(5, 60), flags: bool = False) -> list[View]:
    """`count` views after a random number of safe moves in `moves`; the board is used only to pick
    safe moves (this is a position generator, not a player). With `flags`, some mines get flagged."""
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        rule = make_rule("opening", width, height, mines, seed * 1_000_003 + g)
        g += 1
        game = Game(rule=rule)
        game.open(3, 3)
        board = game.board
        todo = int(rng.integers(moves[0], moves[1] + 1))
        for _ in range(todo):
            if game.over:
                break
            v = game.view()
            hidden = (v.cells.reshape(-1) < 0) & ~board.flat_mines
            if not hidden.any():
                break
            open_ = v.cells >= 0
            near = np.zeros_like(open_)
            near[:-1] |= open_[1:]
            near[1:] |= open_[:-1]
            near[:, :-1] |= open_[:, 1:]
            near[:, 1:] |= open_[:, :-1]
            edge = hidden & near.reshape(-1)
            pick = np.flatnonzero(edge if edge.any() and rng.random() < 0.85 else hidden)
            i = int(rng.choice(pick))
            game.open(i % width, i // width)
        if game.over:
            continue
        v = game.view()
        if flags:
            cells = v.cells.copy().reshape(-1)
            mine_hidden = np.flatnonzero(board.flat_mines & (cells == -1))
            if len(mine_hidden):
                cells[rng.choice(mine_hidden, size=min(5, len(mine_hidden)), replace=False)] = -2
            v = View(cells.reshape(height, width), mines)
        out.append(v)
    return out


def toollib_board(view: View) -> list[list[int]]:
    """ms-toollib's board: rows of 10 hidden, 11 flag, 0..8 open."""
    c = view.cells.astype(int)
    c[c == -1] = 10
    c[c == -2] = 11
    return c.tolist()
