"""The Windows 7 "no guess" patch, emulated: Windows 7's placement, redrawn until three local rules open the board.

One of the documents sweeplab is built on describes a patched Windows 7 Minesweeper whose
`Board::placeMines` is a generate-and-verify loop:

    save the rand() state; srand(randSeed)           # the board's own time(0) seed, as in win7
    repeat up to 500 times:
        lay the mines as Windows 7 does: rand() % len(candidates) over the cells outside the
        first click's 3x3 block, each picked cell leaving the list
        if the patch's solver opens the board completely from the click: keep it, stop
    (after 500 failures the last board is kept, and the game says nothing)
    restore the rand() state

The attempts continue one rand() stream, so the first attempt is the `win7` board of the same
seed and click. Mines are clamped to width*height - 9 as in Windows 7 ("Too many mines for tile
count"). The patch's solver sees no mine total and knows three rules:
- a number whose unknown neighbours must all be mines (its mines left equal them): all mines;
- a satisfied number (its flagged neighbours equal it): its unknown neighbours are all safe;
- the subset rule: when one number's unknown cells A are a subset of another's B, the cells of
  B \\ A hold exactly the difference of their mines left; if that is 0 they are safe, if it is
  |B \\ A| they are mines. (Weaker than the pair rule on any two overlapping numbers that
  sweeplab's solvers use: that is why this solver lives here, as the emulation of one.)
Cells found safe are opened (a 0 opens its neighbours, as in play) and mines are flagged, until
no rule applies.

Where the description leaves a detail open, the default is the reading closest to the Windows 7
code, and the others are parameters:
- `removal`: a picked cell leaves the list by shifting the later ones down, order kept, as in
  Windows 7 (`shift`), or by taking the last one into its place (`swap`): this changes the boards;
- `order`: the solver visits the numbers in row-major order (`rows`), like Windows 7's list, or
  column by column (`columns`);
- `progress`: after a rule makes progress the solver goes on with the next number (`sweep`,
  repeating sweeps until one changes nothing), or starts again from the first (`restart`).
Every conclusion of the three rules stays true, and stays derivable, as cells are opened and
flagged, so they reach one fixed point whatever the order: `order` and `progress` change the
time taken, never the board (the tests check both claims).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..board import Board
from ..errors import InvalidBoardError
from ..kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE, count_numbers, flood_open
from ..solver.deduction import ALL_SAFE, UNDECIDED, number_rule
from . import GeneratorInfo, Limits, register
from .win7 import MAX_HEIGHT, MAX_WIDTH, MIN_SIDE, Win7, candidates, lay_from

ATTEMPTS = 500
REMOVALS = ("shift", "swap")
ORDERS = ("rows", "columns")
PROGRESS = ("sweep", "restart")

# What `decide` found at a number: nothing, cells that are safe, cells that are mines.
NOTHING, SAFE, MINES = 0, 1, 2


@njit
def _unknown(cells, nbr, c, out):
    """The unknown (hidden, not flagged) neighbours of c into `out`: (how many, flagged neighbours)."""
    k = 0
    flags = 0
    for t in range(8):
        j = nbr[c, t]
        if j < 0:
            continue
        if cells[j] == FLAG_STATE:
            flags += 1
        elif cells[j] == HIDDEN_STATE:
            out[k] = j
            k += 1
    return k, flags


@njit
def decide(cells, numbers, nbr, width, c, found, a_cells, b_cells):
    """What the three rules conclude at the open number c: (NOTHING, SAFE or MINES; how many cells,
    written to `found`). The single-number rules first, then the subset rule with c's unknown cells
    the subset, against each open number within two cells of c (the only ones that can share one)."""
    na, flags = _unknown(cells, nbr, c, a_cells)
    if na == 0:
        return NOTHING, 0
    rest_a = numbers[c] - flags
    rule = number_rule(rest_a, na)
    if rule != UNDECIDED:
        for s in range(na):
            found[s] = a_cells[s]
        return (SAFE if rule == ALL_SAFE else MINES), na
    n = cells.shape[0]
    height = n // width
    cx, cy = c % width, c // width
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            x, y = cx + dx, cy + dy
            if (dx == 0 and dy == 0) or x < 0 or y < 0 or x >= width or y >= height:
                continue
            d = y * width + x
            if cells[d] != OPEN_STATE or numbers[d] == 0:
                continue
            nb, flags_b = _unknown(cells, nbr, d, b_cells)
            if nb <= na:  # B \ A must hold a cell
                continue
            subset = True
            for s in range(na):  # an unknown cell of c is one of d's iff it touches d
                u = a_cells[s]
                if abs(u % width - x) > 1 or abs(u // width - y) > 1:
                    subset = False
                    break
            if not subset:
                continue
            rule = number_rule(numbers[d] - flags_b - rest_a, nb - na)  # rule 1 on B \ A
            if rule == UNDECIDED:
                continue
            k = 0
            for s in range(nb):
                v = b_cells[s]
                if abs(v % width - cx) > 1 or abs(v // width - cy) > 1:  # not one of c's
                    found[k] = v
                    k += 1
            return (SAFE if rule == ALL_SAFE else MINES), k
    return NOTHING, 0


@njit
def propagate(cells, numbers, nbr, width, order, restart, queue, scratch):
    """Apply the three rules from the position in `cells` (hidden, open, flagged: changed in place),
    visiting the numbers in `order`, opening the cells found safe (with the cascade of a 0) and
    flagging the mines, until no rule applies. Returns the cells it opened."""
    found, a_cells, b_cells = scratch[0], scratch[1], scratch[2]
    opened = 0
    progress = True
    while progress:
        progress = False
        for c in order:
            if cells[c] != OPEN_STATE or numbers[c] == 0:
                continue
            what, k = decide(cells, numbers, nbr, width, c, found, a_cells, b_cells)
            if what == NOTHING:
                continue
            for s in range(k):
                if what == SAFE:
                    opened += flood_open(cells, numbers, nbr, found[s], queue)
                else:
                    cells[found[s]] = FLAG_STATE
            progress = True
            if restart:
                break
    return opened


@njit
def opens_completely(mines, numbers, nbr, width, click, order, restart, cells, queue, scratch):
    """Whether the patch's solver opens every safe cell from the click (its state is left in `cells`)."""
    cells[:] = HIDDEN_STATE
    opened = flood_open(cells, numbers, nbr, click, queue)
    opened += propagate(cells, numbers, nbr, width, order, restart, queue, scratch)
    return opened == mines.shape[0] - np.count_nonzero(mines)


@njit
def attempt(state, pool, k, count, swap, nbr, width, click, order, restart, mines, cand, cells, queue, scratch):
    """One attempt: lay `count` mines into `mines` from rand() state `state` over the k cells of `pool`,
    then ask the solver. Returns (the state after, whether it opened the board)."""
    cand[:k] = pool[:k]
    state = lay_from(state, cand, k, count, mines, swap)
    numbers = count_numbers(mines, nbr)
    return state, opens_completely(mines, numbers, nbr, width, click, order, restart, cells, queue, scratch)


@njit
def _generate(seed, width, height, count, cx, cy, attempts, swap, nbr, order, restart):
    """(mines bool[n], attempts laid, whether the last one opened) for the patch's loop."""
    n = width * height
    pool, k = candidates(width, height, cx, cy)
    mines = np.zeros(n, dtype=np.bool_)
    cand = np.empty(n, dtype=np.int32)
    cells = np.empty(n, dtype=np.int8)
    queue = np.empty(n, dtype=np.int32)
    scratch = np.empty((3, 8), dtype=np.int32)
    state = np.uint32(seed)
    for a in range(attempts):
        state, ok = attempt(state, pool, k, count, swap, nbr, width, cx + cy * width, order, restart, mines,
                            cand, cells, queue, scratch)
        if ok:
            return mines, a + 1, True
    return mines, attempts, False


def visit_order(width: int, height: int, order: str) -> np.ndarray:
    """The flat cells in the order the solver visits them: row by row, or column by column."""
    if order not in ORDERS:
        raise InvalidBoardError(f"unknown solver order {order!r}; allowed: {', '.join(ORDERS)}")
    cells = np.arange(width * height, dtype=np.int32).reshape(height, width)
    return np.ascontiguousarray(cells if order == "rows" else cells.T).reshape(-1)


def _check_choice(what: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidBoardError(f"unknown {what} {value!r}; allowed: {', '.join(allowed)}")


@dataclass(frozen=True)
class PatchResult:
    """A board of the patch and how it came to be."""

    board: Board
    attempts: int  # boards laid, 1..500
    fell_back: bool  # no attempt opened: the last one was kept unchecked

    def note(self) -> str:
        """One sentence for the player, said after the game."""
        if self.fell_back:
            return (f"This board was the patch's fallback: none of its {self.attempts} attempts could be opened by its "
                    "three rules, so the last one was kept unchecked and may have needed a guess.")
        return (f"The patch's three rules open this board: attempt {self.attempts} of at most {ATTEMPTS}.")


class Win7NoGuess(Win7):
    """`win7-noguess`: the patched Windows 7 of the documents; at the first click, up to 500 Windows 7
    boards from the board's seed, the first that three local rules open kept, else the last."""

    name = "win7-noguess"

    def __init__(self, width: int, height: int, mines: int, seed: int, topology: str = "bounded", *,
                 attempts: int = ATTEMPTS, removal: str = "shift", order: str = "rows", progress: str = "sweep"):
        super().__init__(width, height, mines, seed, topology)
        if isinstance(attempts, bool) or not isinstance(attempts, (int, np.integer)) or attempts < 1:
            raise InvalidBoardError(f"attempts must be a positive integer (the patch makes {ATTEMPTS}), "
                                    f"got {attempts!r}")
        _check_choice("removal", removal, REMOVALS)
        _check_choice("solver order", order, ORDERS)
        _check_choice("progress rule", progress, PROGRESS)
        self.options: dict[str, Any] = {"attempts": int(attempts), "removal": removal, "order": order,
                                        "progress": progress}
        self.last: PatchResult | None = None

    def result(self, x: int, y: int) -> PatchResult:
        """The patch's board for a first click on (x, y), with its attempts and whether it fell back."""
        grid.check_click(x, y, self.width, self.height)
        o = self.options
        flat, used, ok = _generate(np.uint32(self.seed), self.width, self.height, self.mines, int(x), int(y),
                                   o["attempts"], o["removal"] == "swap", grid.neighbour_table(self.width, self.height),
                                   visit_order(self.width, self.height, o["order"]), o["progress"] == "restart")
        return PatchResult(Board._from_flat(self.width, self.height, flat), int(used), not ok)

    def each_attempt(self, x: int, y: int):
        """The patch's attempts for a first click on (x, y), in order and without end (the stream goes on
        past the 500th): (board, whether the three rules open it) for each."""
        grid.check_click(x, y, self.width, self.height)
        w, h, n = self.width, self.height, self.width * self.height
        pool, k = candidates(w, h, int(x), int(y))
        nbr, order = grid.neighbour_table(w, h), visit_order(w, h, self.options["order"])
        swap, restart = self.options["removal"] == "swap", self.options["progress"] == "restart"
        mines, cand, cells = np.zeros(n, dtype=np.bool_), np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int8)
        queue, scratch = np.empty(n, dtype=np.int32), np.empty((3, 8), dtype=np.int32)
        state = np.uint32(self.seed)
        while True:
            state, ok = attempt(state, pool, k, self.mines, swap, nbr, w, y * w + x, order, restart, mines, cand,
                                cells, queue, scratch)
            yield Board._from_flat(w, h, mines.copy()), bool(ok)

    def board_for(self, x, y):
        self.last = self.result(x, y)
        return self.last.board, True

    def board_note(self) -> str | None:
        """After the game: whether the board was one the rules opened, or the silent fallback."""
        return None if self.last is None else self.last.note()

    def spec(self) -> dict:
        defaults = {"attempts": ATTEMPTS, "removal": "shift", "order": "rows", "progress": "sweep"}
        return {"rule": self.name, "seed": self.seed, **{k: v for k, v in self.options.items() if defaults[k] != v}}


def patch_board(seed: int, width: int, height: int, mines: int, x: int, y: int, **options) -> PatchResult:
    """The patched Windows 7 board for time seed `seed` and first click (x, y)."""
    return Win7NoGuess(width, height, mines, seed, **options).result(x, y)


def patch_play(board: Board, x: int, y: int, *, order: str = "rows", progress: str = "sweep") -> np.ndarray:
    """Where the patch's solver stops on `board` from a first click on (x, y): the cell states (h, w)
    (kernels' hidden, open, flag). The click must not be a mine."""
    w, h = board.width, board.height
    _check_choice("progress rule", progress, PROGRESS)
    if board.mines[y, x]:
        raise InvalidBoardError(f"the click ({x}, {y}) is a mine; the patch's solver starts from a safe click")
    cells = np.empty(w * h, dtype=np.int8)
    opens_completely(board.flat_mines, board.flat_numbers, grid.neighbour_table(w, h), w, y * w + x,
                     visit_order(w, h, order), progress == "restart", cells, np.empty(w * h, dtype=np.int32),
                     np.empty((3, 8), dtype=np.int32))
    return cells.reshape(h, w)


def _factory(width, height, mines, seed, *, first_click="win7-noguess", topology="bounded", state=None, **options):
    if state is not None:
        raise InvalidBoardError("win7-noguess is seeded per board with its time(0) value: give seed (--seed T), "
                                "not state")
    return Win7NoGuess(width, height, mines, seed, topology=topology, **options)


register(GeneratorInfo("win7-noguess", "the Windows 7 no-guess patch of the documents: up to 500 Windows 7 boards "
                                       "from one seed, the first that three local rules (no mine total) open, else "
                                       "the last, unchecked", ("win7-noguess",), _factory,
                       aliases=("win7-patch", "win7ng"), limits=Limits(MIN_SIDE, MAX_WIDTH, MAX_HEIGHT, 10),
                       rules=("win7-noguess",), seed_bits=32))
