"""The engine's kernels are compiled once whoever calls them: numba compiles a kernel again for each
type it meets, and a read-only array is another type than a writable one. The analysis of a View and
a look-ahead's trials hand the kernels the cells as the no-guess plays hand them their numbers, so
what one of them compiled the others load from the cache."""

from __future__ import annotations

import numba
import numpy as np

from sweeplab import grid
from sweeplab.game import Game
from sweeplab.generators import make_rule
from sweeplab.generators.certify import position, workspace


def test_a_views_cells_reach_the_kernels_typed_as_a_plays_numbers():
    game = Game(rule=make_rule("opening", 16, 16, 40, 3))
    game.open(8, 8)
    view = game.view()
    room = workspace(16, 16)
    played = position(game.board.flat_mines.copy(), grid.neighbour_table(16, 16), 8 * 16 + 8, 1000, room)
    assert numba.typeof(view.flat) == numba.typeof(played.numbers)
    flat = view.flat
    flat[:] = 0  # a copy: the view stays as it was
    assert np.array_equal(view.flat, view.cells.reshape(-1)) and (view.cells != 0).any()
