"""Grid geometry: sizes, topologies, flat indices and neighbour tables shared by every kernel."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .errors import InvalidBoardError

TOPOLOGIES = ("bounded", "torus")
MAX_SIDE = 1000


def check_topology(topology: str) -> str:
    if topology not in TOPOLOGIES:
        raise InvalidBoardError(f"unknown topology {topology!r}; allowed: {', '.join(TOPOLOGIES)}")
    return topology


def check_size(width: int, height: int, topology: str = "bounded") -> None:
    """Raise InvalidBoardError unless width x height is a grid sweeplab can hold."""
    check_topology(topology)
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InvalidBoardError(f"{name} must be an integer, got {value!r}")
        low = 3 if topology == "torus" else 1
        if not low <= value <= MAX_SIDE:
            raise InvalidBoardError(f"{name} {value} is out of range; allowed {low}..{MAX_SIDE} on a {topology} grid")


def check_click(x: int, y: int, width: int, height: int) -> tuple[int, int]:
    """(x, y), or InvalidBoardError if the click is off the width x height board."""
    if not (0 <= x < width and 0 <= y < height):
        raise InvalidBoardError(f"click ({x}, {y}) is off the {width}x{height} board; x in 0..{width - 1}, "
                                f"y in 0..{height - 1}")
    return x, y


def check_mines(width: int, height: int, mines: int, reserved: int = 0) -> None:
    """Raise unless `mines` fits on the grid with `reserved` cells kept free (the first click)."""
    if isinstance(mines, bool) or not isinstance(mines, (int, np.integer)):
        raise InvalidBoardError(f"mines must be an integer, got {mines!r}")
    room = width * height - reserved
    if not 0 <= mines <= room:
        why = f" ({reserved} cells kept free for the first click)" if reserved else ""
        raise InvalidBoardError(f"{mines} mines do not fit on {width}x{height}{why}; allowed 0..{room}")


# slots of a neighbour_table row: (dy, dx) in reading order, the centre left out
UP, LEFT, RIGHT, DOWN = 1, 3, 4, 6


def around(flat: np.ndarray, nbr: np.ndarray) -> np.ndarray:
    """`flat`'s values at the cells `nbr` names (rows of `neighbour_table`, or some of them), with
    False (0) where it names -1, off a bounded grid."""
    return np.append(flat, False)[nbr]


@lru_cache(maxsize=64)
def neighbour_table(width: int, height: int, topology: str = "bounded") -> np.ndarray:
    """Flat neighbour indices, shape (width*height, 8), padded with -1 off a bounded grid.

    Read-only and cached: every kernel takes this table instead of recomputing offsets.
    """
    check_size(width, height, topology)
    torus = topology == "torus"
    ys, xs = np.divmod(np.arange(width * height), width)
    table = np.full((width * height, 8), -1, dtype=np.int32)
    k = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == 0 and dy == 0:
                continue
            nx, ny = xs + dx, ys + dy
            if torus:
                nx %= width
                ny %= height
                table[:, k] = ny * width + nx
            else:
                ok = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height)
                table[ok, k] = (ny * width + nx)[ok]
            k += 1
    table.setflags(write=False)
    return table


def block_mask(width: int, height: int, x: int, y: int, topology: str = "bounded") -> np.ndarray:
    """Flat bool mask of the 3x3 block centred on (x, y) (wrapping on a torus)."""
    mask = np.zeros(width * height, dtype=np.bool_)
    i = y * width + x
    mask[i] = True
    nb = neighbour_table(width, height, topology)[i]
    mask[nb[nb >= 0]] = True
    return mask
