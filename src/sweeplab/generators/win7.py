"""Windows Vista and 7, bit for bit: a time(0) seed per board, mines laid at the first click.

    srand(randSeed)       # randSeed = time(0) when the board was created
    candidates = every cell y*width + x in row-major order, except the 3x3 block on the click
    while fewer than `mines` mines and candidates remain:
        i = rand() % len(candidates); mine at candidates[i]; remove it, keeping the order

The rand() state of the rest of the program is saved and restored around this, so a board
is a pure function of (seed, click): "Restart this game" gives the same board. A board that
asks for more than width*height - 9 mines is clamped, with the message
"Too many mines for tile count", which this module surfaces as a Win7Notice warning.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..board import Board
from ..errors import InvalidBoardError
from ..firstclick import FirstClick
from ..msvc import INCREMENT, MULTIPLIER, RAND_MAX
from . import GeneratorInfo, Limits, register

CLAMP_MESSAGE = "Too many mines for tile count"
MIN_SIDE, MAX_WIDTH, MAX_HEIGHT = 9, 30, 24


class Win7Notice(UserWarning):
    """Windows 7 changed what was asked for (and said so); sweeplab says so too."""


@njit
def candidates(width, height, cx, cy):
    """Every cell y*width + x in row-major order except the 3x3 block on (cx, cy): (int32[n], count)."""
    cand = np.empty(width * height, dtype=np.int32)
    k = 0
    for y in range(height):
        for x in range(width):
            if abs(x - cx) <= 1 and abs(y - cy) <= 1:
                continue
            cand[k] = y * width + x
            k += 1
    return cand, k


@njit
def lay_from(state, cand, k, mines, out, swap):
    """Lay up to `mines` mines into `out` (cleared first) with rand() from uint32 `state`, picking from
    the first k entries of `cand` (consumed); returns the state after. Windows 7 removes a picked
    candidate by shifting the later ones down (order kept); `swap` moves the last one into its place
    instead (a reading the Windows 7 no-guess patch's description leaves open)."""
    out[:] = False
    s = np.uint32(state)
    placed = 0
    while placed < mines and k > 0:
        s = np.uint32(s * np.uint32(MULTIPLIER) + np.uint32(INCREMENT))
        i = np.int64((s >> np.uint32(16)) & np.uint32(RAND_MAX)) % k
        out[cand[i]] = True
        if swap:
            cand[i] = cand[k - 1]
        else:
            for j in range(i, k - 1):  # order-preserving removal
                cand[j] = cand[j + 1]
        k -= 1
        placed += 1
    return s


@njit
def lay_win7(seed, width, height, mines, cx, cy):
    """The Windows 7 board for time seed `seed` and first click (cx, cy): bool[width*height]."""
    cand, k = candidates(width, height, cx, cy)
    out = np.zeros(width * height, dtype=np.bool_)
    lay_from(np.uint32(seed), cand, k, mines, out, False)
    return out


class Win7(FirstClick):
    """`win7`: the board of time seed `seed`, laid at the first click, never a mine in its 3x3 block."""

    name = "win7"

    def __init__(self, width: int, height: int, mines: int, seed: int, topology: str = "bounded"):
        grid.check_topology(topology)
        if topology != "bounded":
            raise InvalidBoardError("Windows 7 boards are bounded; allowed topology: bounded")
        for what, value, high in (("width", width, MAX_WIDTH), ("height", height, MAX_HEIGHT)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not MIN_SIDE <= value <= high:
                raise InvalidBoardError(f"Windows 7 {what} {value!r} is out of range; allowed {MIN_SIDE}..{high}")
        if isinstance(mines, bool) or not isinstance(mines, (int, np.integer)) or mines < 0:
            raise InvalidBoardError(f"mines must be a non-negative integer, got {mines!r}")
        self.asked = int(mines)
        self.notice = None
        room = width * height - 9
        if mines > room:
            self.notice = f"{CLAMP_MESSAGE}: {mines} mines asked on {width}x{height}, {room} laid (width*height - 9)"
            warnings.warn(self.notice, Win7Notice, stacklevel=2)
            mines = room
        super().__init__(width, height, int(mines), topology)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 1 << 32:
            raise InvalidBoardError(f"a Windows 7 seed is its time(0) value, allowed 0..4294967295, got {seed!r}")
        self.seed = int(seed)

    def board_for(self, x, y):
        grid.check_click(x, y, self.width, self.height)
        flat = lay_win7(np.uint32(self.seed), self.width, self.height, self.mines, int(x), int(y))
        return Board._from_flat(self.width, self.height, flat), True

    def restart(self, x: int, y: int) -> Board:
        """"Restart this game": the same seed and click give the same board again."""
        return self.board_for(x, y)[0]

    def spec(self) -> dict:
        return {"rule": self.name, "seed": self.seed}


def win7_board(seed: int, width: int, height: int, mines: int, x: int, y: int) -> Board:
    """The Windows 7 board for time seed `seed` and first click (x, y)."""
    return Win7(width, height, mines, seed).board_for(x, y)[0]


def _factory(width, height, mines, seed, *, first_click="win7", topology="bounded", state=None):
    if state is not None:
        raise InvalidBoardError("win7 is seeded per board with its time(0) value: give seed (--seed T), not state")
    return Win7(width, height, mines, seed, topology=topology)


# Windows 7's Custom dialog, like XP's, asks for at least 10 mines (the generator lays any count)
register(GeneratorInfo("win7", "Windows Vista/7: a time(0) seed per board, mines laid at the first click "
                               "outside its 3x3 block", ("win7",), _factory, aliases=("vista", "windows7"),
                       limits=Limits(MIN_SIDE, MAX_WIDTH, MAX_HEIGHT, 10), rules=("win7",), seed_bits=32))
