"""Uniform boards: every layout of the mine count equally likely, seeded, with cells kept free."""

from __future__ import annotations

import numpy as np

from .. import grid
from ..board import Board
from ..kernels import lay_uniform
from ..rng import Seed, seed_key


def uniform_board(width: int, height: int, mines: int, seed: Seed, *, topology: str = "bounded",
                  exclude: np.ndarray | None = None) -> Board:
    """A uniformly random board; `exclude` (flat bool mask) marks cells that must stay free."""
    grid.check_size(width, height, topology)
    n = width * height
    if exclude is None:
        exclude = np.zeros(n, dtype=np.bool_)
    grid.check_mines(width, height, mines, int(np.count_nonzero(exclude)))
    flat, _ = lay_uniform(n, mines, exclude, np.uint64(seed_key(seed)))
    return Board._from_flat(width, height, flat, topology)
