"""Adamatzky's 1997 Minesweeper cellular automaton: its rule, boards for it, the batched evolution, and a View player.

Each cell holds (status, nu): status CLOSED, OPEN or MARKED, nu the mines among its 8
neighbours (readable by a neighbour only once the cell is open): 3 x 9 = 27 states. A closed
cell x, all cells at once (the rule reads neighbours of neighbours: a 5x5 neighbourhood):

- opens if some open neighbour y has nu(y) = 0 or nu(y) = marked cells around y;
- becomes marked if some open neighbour y has exactly one closed neighbour (x) and
  nu(y) - marked cells around y = 1;
- otherwise stays closed. Open and marked cells never change.

It starts with three random mine-free cells open and stops at the first step that changes
nothing. Both clauses are sound, so it never opens a mine; when a cell would satisfy both
(impossible while every mark is a mine) opening wins.

Because a cell changes at most once, a whole evolution is stored as the final status plus the
step at which each cell changed (`changed_at`, -1 for never; 0 for the three starting cells):
the board at step k is "final status where changed_at <= k, closed elsewhere".

The batch kernel updates only the frontier (open cells whose surroundings changed in the last
step); it is checked against a plain full-scan transcription of the rule in the tests.

The paper's experiments on it (sweeps over the density, confidence intervals, the comparison
with a complete solver) are in `lab/automaton.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from . import grid
from ._numba_cache import njit
from .errors import AutomatonError
from .kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE, count_numbers
from .rng import next_u64, seed_key, stream_key
from .view import FLAG, View

CLOSED = HIDDEN_STATE  # the paper's words for the game's cell states (kernels.py)
OPEN = OPEN_STATE
MARKED = FLAG_STATE
STATUS_NAMES = ("closed", "open", "marked")
START_CELLS = 3
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


# --- random boards ----------------------------------------------------------------------------

@njit
def _lay_batch(keys, n, density, nbr, mines, nu, starts, start_count):
    """Board b: each site mined with probability `density` from its own splitmix64 stream
    `keys[b]`, then up to three distinct mine-free starting cells chosen uniformly from the same
    stream. Site i of game b reads the i-th draw of the stream whatever the density, so sweeps
    over density reuse the same uniforms (common random numbers): a cell mined at p is mined at
    every higher p."""
    free = np.empty(n, dtype=np.int32)
    for b in range(keys.shape[0]):
        state = keys[b]
        m = 0
        for i in range(n):
            state, r = next_u64(state)
            u = np.float64(r >> np.uint64(11)) * _TO_UNIT
            mine = u < density
            mines[b, i] = mine
            if not mine:
                free[m] = i
                m += 1
        for i in range(n):
            c = 0
            for k in range(8):
                j = nbr[i, k]
                if j >= 0 and mines[b, j]:
                    c += 1
            nu[b, i] = c
        want = min(START_CELLS, m)
        start_count[b] = want
        for k in range(want):  # partial Fisher-Yates over the free cells
            state, r = next_u64(state)
            span = np.uint64(m - k)
            limit = np.uint64(0xFFFFFFFFFFFFFFFF) - (np.uint64(0xFFFFFFFFFFFFFFFF) % span)
            while r >= limit:
                state, r = next_u64(state)
            j = k + np.int64(r % span)
            t = free[k]
            free[k] = free[j]
            free[j] = t
            starts[b, k] = free[k]
        for k in range(want, START_CELLS):
            starts[b, k] = -1


def game_keys(seed, games: int, first: int = 0) -> np.ndarray:
    """The splitmix64 keys of games first..first+games-1 of a run seeded with `seed`."""
    key = seed_key(seed)
    return np.array([stream_key(key, first + i) for i in range(games)], dtype=np.uint64)


@dataclass(frozen=True)
class Batch:
    """A batch of random boards on one lattice: mines and nu (games, n), starting cells (games, 3)."""

    size: int
    topology: str
    density: float
    mines: np.ndarray
    nu: np.ndarray
    starts: np.ndarray

    @property
    def games(self) -> int:
        return self.mines.shape[0]

    def layout(self, game: int) -> np.ndarray:
        """Mines of one game as a (size, size) bool array, for `Board(layout, topology)`."""
        return self.mines[game].reshape(self.size, self.size)

    def start_cells(self, game: int) -> list[tuple[int, int]]:
        """The starting cells of one game as (x, y)."""
        return [(int(i) % self.size, int(i) // self.size) for i in self.starts[game] if i >= 0]


def check_density(density: float) -> float:
    if isinstance(density, bool) or not isinstance(density, (int, float, np.floating)) or not 0 <= density < 1:
        raise AutomatonError(f"density {density!r} is not a probability the automaton can start with; allowed 0 <= p < 1")
    return float(density)


def random_batch(size: int, density: float, seed, games: int, *, topology: str = "bounded", first: int = 0) -> Batch:
    """Games first..first+games-1 of a run: size x size lattices, each site mined with probability
    `density`; the same seed gives the same layouts on both topologies."""
    grid.check_size(size, size, topology)
    density = check_density(density)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise AutomatonError(f"games must be a positive integer, got {games!r}")
    n = size * size
    nbr = grid.neighbour_table(size, size, topology)
    mines = np.empty((games, n), dtype=np.bool_)
    nu = np.empty((games, n), dtype=np.int8)
    starts = np.empty((games, START_CELLS), dtype=np.int32)
    count = np.empty(games, dtype=np.int32)
    _lay_batch(game_keys(seed, games, first), n, density, nbr, mines, nu, starts, count)
    return Batch(size, topology, density, mines, nu, starts)


# --- the automaton ------------------------------------------------------------------------------

@njit
def _evolve_one(nu, nbr, starts, status, changed_at, closed, marked, dirty, changed, stamp, queued, to_open,
                to_mark):
    """Run one board to its fixed point in place; returns the number of steps that changed something."""
    n = nu.shape[0]
    for i in range(n):
        status[i] = CLOSED
        changed_at[i] = -1
        marked[i] = 0
        stamp[i] = -1
        queued[i] = -1
        c = 0
        for k in range(8):
            if nbr[i, k] >= 0:
                c += 1
        closed[i] = c
    nd = 0
    for k in range(starts.shape[0]):
        s = starts[k]
        if s >= 0 and status[s] == CLOSED:
            status[s] = OPEN
            changed_at[s] = 0
            dirty[nd] = s
            nd += 1
            for d in range(8):
                j = nbr[s, d]
                if j >= 0:
                    closed[j] -= 1
    step = 0
    while nd > 0:
        step += 1
        # Read phase: every dirty open cell y pushes its clause to its closed neighbours,
        # using counts of the current state only (synchronous update).
        no = 0
        nm = 0
        for a in range(nd):
            y = dirty[a]
            left = nu[y] - marked[y]
            if nu[y] == 0 or left == 0:
                for d in range(8):
                    x = nbr[y, d]
                    if x >= 0 and status[x] == CLOSED and stamp[x] != step:
                        stamp[x] = step
                        to_open[no] = x
                        no += 1
            elif left == 1 and closed[y] == 1:
                for d in range(8):
                    x = nbr[y, d]
                    if x >= 0 and status[x] == CLOSED:
                        to_mark[nm] = x
                        nm += 1
        # Write phase: opening wins over marking; the stamp de-duplicates marks.
        nc = 0
        for a in range(no):
            x = to_open[a]
            status[x] = OPEN
            changed_at[x] = step
            changed[nc] = x
            nc += 1
        for a in range(nm):
            x = to_mark[a]
            if stamp[x] != step:
                stamp[x] = step
                status[x] = MARKED
                changed_at[x] = step
                changed[nc] = x
                nc += 1
        if nc == 0:
            return step - 1
        # Next frontier: the new open cells and every open neighbour of a changed cell.
        nd = 0
        for a in range(nc):
            x = changed[a]
            if status[x] == OPEN and queued[x] != step:
                queued[x] = step
                dirty[nd] = x
                nd += 1
            for d in range(8):
                y = nbr[x, d]
                if y < 0:
                    continue
                closed[y] -= 1
                if status[x] == MARKED:
                    marked[y] += 1
                if status[y] == OPEN and queued[y] != step:
                    queued[y] = step
                    dirty[nd] = y
                    nd += 1
    return step  # only reached with no starting cell: nothing ever changes


@njit
def _evolve_range(nu, nbr, starts, status, changed_at, steps, lo, hi):
    n = nu.shape[1]
    closed = np.empty(n, dtype=np.int16)
    marked = np.empty(n, dtype=np.int16)
    dirty = np.empty(n, dtype=np.int32)
    changed = np.empty(n, dtype=np.int32)
    stamp = np.empty(n, dtype=np.int32)
    queued = np.empty(n, dtype=np.int32)
    to_open = np.empty(n, dtype=np.int32)
    to_mark = np.empty(8 * n, dtype=np.int32)
    for b in range(lo, hi):
        steps[b] = _evolve_one(nu[b], nbr, starts[b], status[b], changed_at[b], closed, marked, dirty, changed,
                               stamp, queued, to_open, to_mark)


@njit(parallel=True)
def _evolve_batch(nu, nbr, starts, status, changed_at, steps, chunks):
    games = nu.shape[0]
    per = (games + chunks - 1) // chunks
    for c in nb.prange(chunks):
        lo = c * per
        hi = min(games, lo + per)
        if lo < hi:
            _evolve_range(nu, nbr, starts, status, changed_at, steps, lo, hi)


@dataclass(frozen=True)
class Evolution:
    """Fixed points of a batch: final status and step of change per cell (games, n); steps per game."""

    size: int
    topology: str
    status: np.ndarray
    changed_at: np.ndarray
    steps: np.ndarray

    @property
    def solved_share(self) -> np.ndarray:
        """Share of each board that ends open or marked."""
        return np.count_nonzero(self.status != CLOSED, axis=1) / self.status.shape[1]

    @property
    def closed_share(self) -> np.ndarray:
        return 1.0 - self.solved_share

    def at(self, game: int, step: int) -> np.ndarray:
        """Status (size, size) of one game after `step` steps (0: the start)."""
        st = np.where(self.changed_at[game] <= step, self.status[game], CLOSED)
        return st.reshape(self.size, self.size).astype(np.int8)


def evolve(nu: np.ndarray, starts: np.ndarray, size: int, topology: str = "bounded", *,
           chunks: int | None = None) -> Evolution:
    """Run every board of a batch to its fixed point. `nu` (games, n) int8, `starts` (games, k) flat
    indices (-1 for none). The update is synchronous; steps count the updates that changed a cell.
    The boards are cut into `chunks` slices run in parallel (default: 4 per numba thread)."""
    grid.check_size(size, size, topology)
    nu = np.ascontiguousarray(nu, dtype=np.int8)
    starts = np.ascontiguousarray(starts, dtype=np.int32)
    if nu.ndim != 2 or nu.shape[1] != size * size:
        raise AutomatonError(f"nu must have shape (games, {size * size}), got {nu.shape}")
    if starts.ndim != 2 or starts.shape[0] != nu.shape[0]:
        raise AutomatonError(f"starts must have shape ({nu.shape[0]}, k), got {starts.shape}")
    if starts.size and (starts.max() >= size * size or starts.min() < -1):
        raise AutomatonError(f"starting cells must be flat indices 0..{size * size - 1} (or -1 for none)")
    games = nu.shape[0]
    status = np.empty_like(nu)
    changed_at = np.empty((games, size * size), dtype=np.int32)
    steps = np.empty(games, dtype=np.int32)
    chunks = max(1, min(games, chunks if chunks else nb.get_num_threads() * 4))
    _evolve_batch(nu, grid.neighbour_table(size, size, topology), starts, status, changed_at, steps, chunks)
    return Evolution(size, topology, status, changed_at, steps)


def run_batch(batch: Batch) -> Evolution:
    """The automaton on every board of a batch, from its three starting cells."""
    return evolve(batch.nu, batch.starts, batch.size, batch.topology)


def run_board(mines: np.ndarray, starts, topology: str = "bounded") -> Evolution:
    """The automaton on one square board (a (size, size) bool array) from the given (x, y) cells."""
    mines = np.asarray(mines, dtype=np.bool_)
    if mines.ndim != 2 or mines.shape[0] != mines.shape[1]:
        raise AutomatonError(f"the automaton runs on square n x n lattices; got shape {mines.shape}")
    size = mines.shape[0]
    flat = []
    for x, y in starts:
        if not (0 <= x < size and 0 <= y < size):
            raise AutomatonError(f"starting cell ({x}, {y}) is off the {size}x{size} lattice")
        if mines[y, x]:
            raise AutomatonError(f"starting cell ({x}, {y}) holds a mine; the automaton starts from mine-free cells")
        flat.append(y * size + x)
    nbr = grid.neighbour_table(size, size, topology)
    nu = count_numbers(np.ascontiguousarray(mines.reshape(-1)), nbr)
    return evolve(nu[None, :], np.array([flat], dtype=np.int32).reshape(1, -1), size, topology)


# --- the automaton as a player of a Game --------------------------------------------------------

def automaton_moves(view: View) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """One synchronous step of the rule read off a View: (cells to open, cells to flag) as (x, y).

    Open numbers are open cells with their nu, flags are marked cells, hidden cells are closed.
    It trusts the flags as the automaton trusts its marks.
    """
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    status = np.where(cells >= 0, OPEN, np.where(cells == FLAG, MARKED, CLOSED)).astype(np.int8)
    nu = np.where(cells >= 0, cells, 0).astype(np.int8)
    opens, marks = _one_step(status, nu, nbr)
    w = view.width
    return ([(int(i) % w, int(i) // w) for i in np.flatnonzero(opens)],
            [(int(i) % w, int(i) // w) for i in np.flatnonzero(marks)])


@njit
def _one_step(status, nu, nbr):
    n = status.shape[0]
    opens = np.zeros(n, dtype=np.bool_)
    marks = np.zeros(n, dtype=np.bool_)
    for y in range(n):
        if status[y] != OPEN:
            continue
        closed = 0
        marked = 0
        for d in range(8):
            j = nbr[y, d]
            if j >= 0:
                if status[j] == CLOSED:
                    closed += 1
                elif status[j] == MARKED:
                    marked += 1
        left = nu[y] - marked
        for d in range(8):
            x = nbr[y, d]
            if x >= 0 and status[x] == CLOSED:
                if nu[y] == 0 or left == 0:
                    opens[x] = True
                elif left == 1 and closed == 1:
                    marks[x] = True
    for i in range(n):
        if opens[i]:
            marks[i] = False
    return opens, marks


class AutomatonPlayer:
    """The automaton as a player: given a View, the cells its rule opens and marks in one step."""

    name = "automaton"

    def moves(self, view: View) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        return automaton_moves(view)

    def __call__(self, view: View) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        return automaton_moves(view)


def play(game, starts=(), *, max_rounds: int | None = None) -> int:
    """Play a Game with the automaton: open `starts`, then apply its rule to the View until it
    stalls or the game ends. Returns the number of rounds that changed something.

    The Game cascades through zeros when it opens a cell, as Minesweeper does; the automaton
    would open the same cells over several steps, so the position it stalls in is the same.
    """
    for x, y in starts:
        if not game.over:
            game.open(x, y)
    rounds = 0
    while not game.over and (max_rounds is None or rounds < max_rounds):
        opens, marks = automaton_moves(game.view())
        if not opens and not marks:
            break
        for x, y in opens:
            if game.over:
                break
            game.open(x, y)
        for x, y in marks:
            if game.over:
                break
            if game.cell_state(x, y) == "hidden":
                game.flag(x, y)
        rounds += 1
    return rounds


__all__ = ["CLOSED", "OPEN", "MARKED", "AutomatonError", "AutomatonPlayer", "Batch", "Evolution",
           "automaton_moves", "check_density", "evolve", "game_keys", "play", "random_batch", "run_batch", "run_board"]
