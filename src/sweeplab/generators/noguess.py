"""No-guess boards: certified solvable by logic (with the mine total) from the first click, uniform over them.

The law: uniform over the *certified boards* of a level and its first click, the layouts of the
mines outside the click's 3x3 block from which complete deduction (`certify.py`) opens every safe
cell; a verdict is the board's own (`certify.settle` plays a board afresh wherever a leaf budget
stopped a play). Two samplers draw it (docs/findings/noguess-uniformity.md):

- Rejection: uniform boards until one certifies. Exact. `auto` uses it while it is cheap: at most
  as many boards as the chain's moves would cost, then the chain.
- The chain: a Metropolis chain over certified boards. A move takes a uniform mine to a uniform
  free cell (outside the click's block) and is kept iff the board it gives certifies. Each move is
  undone by one move back, so the proposal is symmetric and the acceptance depends on the new
  board alone: the uniform law over the certified boards is stationary from any start. That every
  certified board is reached is checked exhaustively on small boards (tests/test_noguess_exact.py).
  It starts from a plain insertion (mines added one at a time, each kept iff the board still
  certifies) or, where that stalls, the repair (repair.py); both are biased, and the chain's length
  is what forgets them.

How long the chain runs, for a board and between a batch's boards, and where `auto` leaves
rejection, is chain_length.py's, measured by the mixing study. A batch (`boards`) runs one warm
chain and hands out a board every `batch_spacing` moves after the first board's; a single board
pays its own chain. Every board returned is certified; if none is found within the tries,
GenerationError (or, with `allow_uncertified=True`, the last board tried, marked
`certified=False`). The same seed, level and click give the same board. The chain's parts, `Level`,
`start_chain` and `chain`, are what `generate` runs, and what the mixing study runs step by step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .. import grid
from .._numba_cache import njit
from .._tiers import compile_here
from ..board import Board
from ..errors import GenerationError, InvalidBoardError
from ..firstclick import FirstClick
from ..kernels import lay_uniform
from ..rng import below, seed_key, stream_key
from . import GeneratorInfo, Limits, register
from .certify import (
    BUDGET,
    DEFAULT_LEAF_BUDGET,
    SOLVED,
    keep,
    position,
    set_mine,
    settle,
    start,
    try_move,
    try_pair,
    undo,
    workspace,
)
from .chain_length import batch_spacing, chain_moves, corner_click, rejection_tries
from .repair import repair

METHODS = ("auto", "rejection", "chain")
STARTS = ("insert", "repair")
DEFAULT_TRIES = 20_000  # rejection: boards laid before giving up; the chain's start: repair moves
REPAIRS_PER_BOARD = 2_000  # repair moves on one board before a fresh one (mines walled in can circle)
PAIR_SHARE = 8  # of the chain's proposals, one in PAIR_SHARE moves two mines at once
FRESH_SHARE = 64  # ... and one in FRESH_SHARE lays a fresh uniform board
INSERT_TRIES_PER_MINE = 16  # adds the insertion tries before the repair starts instead
INSERT_STALL = 64  # the insertion shakes its board with as many chain moves after this many failed adds in a row
INTERPRETED_MOVES = 10_000  # a longer chain takes longer as Python (~7 ms a move) than the kernels' compile


@dataclass(frozen=True)
class NoGuessResult:
    """A generated board and how it came to be."""

    board: Board
    certified: bool
    method: str  # "rejection" or "chain"
    tries: int  # rejection: boards laid; chain: repair moves of the start (0 after an insertion)
    accepted: int  # chain: moves kept
    steps: int  # chain: moves proposed
    start: str = ""  # chain: what made its first board, "insert" or "repair" ("batch": a batch's later board)


# Rejection, and where a batch picks up its first board: a board played from its click.

@njit(inline='always')
def _played(mines, nbr, click, budget, room):
    """The board `mines` played from its click: (position, certified). Where the leaf budget stopped
    the play, the verdict is the play's, not the board's, so `settle` plays the board afresh."""
    p = position(mines, nbr, click, budget, room)
    status = start(p)
    if status == BUDGET and settle(p) == SOLVED:
        return keep(p), True
    return p, status == SOLVED


@njit
def _rejection(n, count, excluded, nbr, click, state, tries, budget, room):
    """Lay uniform boards until one certifies. Returns (position, state, boards laid, certified)."""
    p = position(np.zeros(n, dtype=np.bool_), nbr, click, budget, room)
    for t in range(tries):
        mines, state = lay_uniform(n, count, excluded, state)
        p, ok = _played(mines, nbr, click, budget, room)
        if ok:
            return p, state, t + 1, True
    return p, state, tries, False


# The chain. _verdict, _move, _pair and _fresh are inlined into the chain, the one kernel that calls
# them (through each other): as kernels of their own, each of the four would link in and optimize
# again the whole certifier below it (both plays).

@njit(inline='always')
def _verdict(p, status):
    """A replay's verdict made the board's own: whether a replay meets a component past the leaf
    budget depends on the old board's log, so there `settle` plays the board afresh."""
    return settle(p) if status == BUDGET else status


@njit(inline='always')
def _move(p, src, dst):
    """The mine at `src` to the free cell `dst`, kept iff the board certifies. Returns (kept, position)."""
    if _verdict(p, try_move(p, src, dst)) == SOLVED:
        return True, keep(p)
    undo(p, src, dst)
    return False, p


@njit(inline='always')
def _pair(p, a1, b1, a2, b2):
    """Two mines moved at once (a1 to b1, a2 to b2), kept iff the board certifies; the board between
    is never played. Returns (kept, position)."""
    if _verdict(p, try_pair(p, a1, b1, a2, b2)) == SOLVED:
        return True, keep(p)
    undo(p, a2, b2)
    undo(p, a1, b1)
    return False, p


@njit(inline='always')
def _fresh(p, excluded, state):
    """A fresh uniform board in place of the position's, kept iff it certifies. Returns (state, kept, position)."""
    n = p.mines.shape[0]
    old = p.mines.copy()
    board, state = lay_uniform(n, int(old.sum()), excluded, state)
    for i in range(n):
        if board[i] != old[i]:
            set_mine(p.mines, p.numbers, p.nbr, i, board[i])
    if settle(p) == SOLVED:  # (a fresh play, into the spare log)
        return state, True, keep(p)
    for i in range(n):
        if board[i] != old[i]:
            set_mine(p.mines, p.numbers, p.nbr, i, old[i])
    return state, False, p


@njit(inline='always')
def _mines_and_free(mines, excluded, mpos, fpos):
    """List the board's mines in `mpos` and its free cells (outside `excluded`) in `fpos`; their counts."""
    nm = nfr = 0
    for i in range(mines.shape[0]):
        if mines[i]:
            mpos[nm] = i
            nm += 1
        elif not excluded[i]:
            fpos[nfr] = i
            nfr += 1
    return nm, nfr


@njit
def chain(p, excluded, state, steps):
    """`steps` proposals from the certified position `p`, each symmetric: mostly a uniform mine to a
    uniform free cell; one in PAIR_SHARE two distinct such mines to two distinct such cells (a few
    boards are reached by no single move); one in FRESH_SHARE a fresh uniform board (so that every
    certified board is reached). Returns (state, proposals kept, position); a chain goes on from it."""
    n = p.mines.shape[0]
    mpos = np.empty(n, dtype=np.int32)
    fpos = np.empty(n, dtype=np.int32)
    nm, nfr = _mines_and_free(p.mines, excluded, mpos, fpos)
    if nm == 0 or nfr == 0:
        return state, 0, p
    accepted = 0
    for _ in range(steps):
        state, kind = below(state, FRESH_SHARE)
        if kind == 0:
            state, kept, p = _fresh(p, excluded, state)
            if kept:  # a new board: its mines and free cells listed afresh
                nm, nfr = _mines_and_free(p.mines, excluded, mpos, fpos)
            accepted += kept
            continue
        state, a = below(state, nm)
        state, b = below(state, nfr)
        if kind <= FRESH_SHARE // PAIR_SHARE and nm > 1 and nfr > 1:
            state, a2 = below(state, nm - 1)
            state, b2 = below(state, nfr - 1)
            a2 += a2 >= a  # a second mine and a second cell, each drawn from the rest
            b2 += b2 >= b
            kept, p = _pair(p, mpos[a], fpos[b], mpos[a2], fpos[b2])
            if kept:
                mpos[a], fpos[b] = fpos[b], mpos[a]
                mpos[a2], fpos[b2] = fpos[b2], mpos[a2]
        else:
            kept, p = _move(p, mpos[a], fpos[b])
            if kept:
                mpos[a], fpos[b] = fpos[b], mpos[a]
        accepted += kept
    return state, accepted, p


# The chain's first board: the insertion, or the repair where it stalls.

@njit
def _insert(p, excluded, state, extra, stall, tries):
    """Add `extra` mines to the certified position `p`, each at a uniform free cell, kept iff the
    board still certifies; after `stall` failed adds in a row, `stall` chain moves shake the board
    before the next. Returns (state, mines added, position); it gives up after `tries` adds tried."""
    n = p.mines.shape[0]
    cells, mined = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
    _, nfr = _mines_and_free(p.mines, excluded, mined, cells)
    added = failed = 0
    for _ in range(tries):
        if added == extra:
            break
        state, r = below(state, nfr)
        c = cells[r]
        if try_move(p, -1, c) == SOLVED:
            p = keep(p)
            nfr -= 1
            cells[r] = cells[nfr]
            added += 1
            failed = 0
            continue
        undo(p, -1, c)
        failed += 1
        if failed == stall:
            state, _, p = chain(p, excluded, state, stall)
            _, nfr = _mines_and_free(p.mines, excluded, mined, cells)  # (the moves changed which cells are free)
            failed = 0
    return state, added, p


class Level:
    """A level and its first click, checked, with what its kernels need."""

    def __init__(self, width, height, mines, x, y, topology, budget):
        grid.check_size(width, height, topology)
        grid.check_click(x, y, width, height)
        self.excluded = grid.block_mask(width, height, x, y, topology)
        grid.check_mines(width, height, mines, int(np.count_nonzero(self.excluded)))
        self.width, self.height, self.mines, self.x, self.y, self.topology = width, height, mines, x, y, topology
        self.n, self.click, self.budget = width * height, y * width + x, budget
        self.free = self.n - int(np.count_nonzero(self.excluded))
        self.corner = corner_click(width, height, x, y, topology)
        self.nbr = grid.neighbour_table(width, height, topology)
        self.room = workspace(width, height, topology)

    def board(self, flat) -> Board:
        return Board._from_flat(self.width, self.height, flat.copy(), self.topology)

    def error(self, tries, method) -> GenerationError:
        return GenerationError(
            f"no certified no-guess board with {self.mines} mines on {self.width}x{self.height} from ({self.x}, "
            f"{self.y}) within {tries} {'boards' if method == 'rejection' else 'repair moves'} ({method}); use "
            f"fewer mines (at most about {max_density_hint(self.width, self.height)}) or more tries")


def start_chain(level: Level, state, tries: int, how: str, insert_tries: int | None = None):
    """The chain's first board: (position, state, certified, repair moves, "insert" or "repair").
    The insertion tries `insert_tries` adds (default INSERT_TRIES_PER_MINE a mine), then the repair
    REPAIRS_PER_BOARD moves on a fresh uniform board, in turn until `tries` repair moves are spent."""
    used = 0
    while True:
        if how == "insert":
            empty = position(np.zeros(level.n, dtype=np.bool_), level.nbr, level.click, level.budget, level.room)
            start(empty)  # (an empty board opens from any click)
            state, added, p = _insert(empty, level.excluded, np.uint64(state), level.mines, INSERT_STALL,
                                      INSERT_TRIES_PER_MINE * level.mines if insert_tries is None else insert_tries)
            if added == level.mines:
                return p, state, True, used, "insert"
        flat, state = lay_uniform(level.n, level.mines, level.excluded, np.uint64(state))
        chunk = min(REPAIRS_PER_BOARD, tries - used)
        state, spent, ok, p = repair(flat, level.excluded, level.nbr, level.click, np.uint64(state), chunk,
                                     level.budget, level.room)
        used += spent
        if ok or used >= tries:
            return p, state, ok, used, "repair"


# One board, and a batch.

def generate(width: int, height: int, mines: int, x: int, y: int, seed, *, topology: str = "bounded",
             method: str = "auto", steps: int | None = None, tries: int | None = None,
             budget: int = DEFAULT_LEAF_BUDGET, allow_uncertified: bool = False,
             chain_start: str = "insert") -> NoGuessResult:
    """A board certified no-guess from the first click (x, y), whose 3x3 block is mine-free, drawn
    uniformly over such boards.

    `method`: "rejection", "chain", or "auto" (rejection for up to `rejection_tries` boards, then the
    chain). `steps`: the chain's moves (default: `chain_moves`, the rule). `chain_start`: "insert"
    (the repair where it stalls) or "repair". `tries`: rejection's boards, or the repair's moves.
    Raises GenerationError when nothing certifies within them, unless `allow_uncertified`, which
    returns the last board marked `certified=False`.
    """
    level = Level(width, height, mines, x, y, topology, budget)
    if method not in METHODS:
        raise InvalidBoardError(f"unknown no-guess method {method!r}; allowed: {', '.join(METHODS)}")
    if chain_start not in STARTS:
        raise InvalidBoardError(f"unknown chain start {chain_start!r}; allowed: {', '.join(STARTS)}")
    state = np.uint64(seed_key(seed))
    limit = DEFAULT_TRIES if tries is None else tries
    if method != "chain":
        laid = min(limit, rejection_tries(level.free, mines, level.corner)) if method == "auto" else limit
        p, state, used, ok = _rejection(level.n, mines, level.excluded, level.nbr, level.click, state, laid, budget,
                                        level.room)
        if ok or method == "rejection":
            if not ok and not allow_uncertified:
                raise level.error(laid, "rejection")
            return NoGuessResult(level.board(p.mines), ok, "rejection", int(used), 0, 0)
    p, state, ok, used, how = start_chain(level, state, limit, chain_start)
    if not ok:
        if not allow_uncertified:
            raise level.error(limit, "chain")
        return NoGuessResult(level.board(p.mines), False, "chain", int(used), 0, 0, how)
    steps = chain_moves(level.free, mines, level.corner) if steps is None else steps
    if steps > INTERPRETED_MOVES:
        compile_here()  # (on the first run after an install: _tiers.py)
    state, accepted, p = chain(p, level.excluded, np.uint64(state), steps)
    return NoGuessResult(level.board(p.mines), True, "chain", int(used), int(accepted), int(steps), how)


def boards(width: int, height: int, mines: int, x: int, y: int, seed, count: int, *, topology: str = "bounded",
           method: str = "auto", spacing: int | None = None, **options) -> Iterator[NoGuessResult]:
    """`count` boards for one level and click, seeded once for the batch. The first is `generate`'s
    for the seed stream_key(seed, 0). Where that one came by rejection, board i is generate's for
    stream_key(seed, i) (independent, exact); where it came from the chain, the chain goes on from
    it, warm, and hands out a board every `spacing` moves (default `batch_spacing`)."""
    key = seed_key(seed)
    first = generate(width, height, mines, x, y, stream_key(key, 0), topology=topology, method=method, **options)
    yield first
    if first.method == "rejection" or not first.certified:
        for i in range(1, count):
            yield generate(width, height, mines, x, y, stream_key(key, i), topology=topology, method=method,
                           **options)
        return
    level = Level(width, height, mines, x, y, topology, options.get("budget", DEFAULT_LEAF_BUDGET))
    spacing = batch_spacing(level.free, mines) if spacing is None else spacing
    p, _ = _played(first.board.flat_mines.copy(), level.nbr, level.click, level.budget, level.room)
    state = np.uint64(stream_key(key, count))
    for _ in range(1, count):
        state, accepted, p = chain(p, level.excluded, np.uint64(state), spacing)
        yield NoGuessResult(level.board(p.mines), True, "chain", 0, int(accepted), int(spacing), "batch")


def max_density_hint(width: int, height: int) -> int:
    """A rough mine count up to which generation succeeded in benchmarks (about 60% of the free cells
    on 30x16 and 30x24; see docs/benchmarks.md)."""
    return int(0.6 * (width * height - 9))


class NoGuess(FirstClick):
    """`noguess`: mines laid at the first click so that logic alone, with the mine total, opens the board."""

    name = "noguess"

    def __init__(self, width, height, mines, seed, topology="bounded", **options):
        super().__init__(width, height, mines, topology)
        grid.check_mines(width, height, mines, min(9, width * height))
        seed_key(seed)  # a bad seed fails now, not at the first click
        self.seed = seed
        self.options = options
        self.last: NoGuessResult | None = None

    def board_for(self, x, y):
        self.last = generate(self.width, self.height, self.mines, x, y, self.seed, topology=self.topology,
                             **self.options)
        return self.last.board, True

    def spec(self):
        return {"rule": self.name, "seed": self.seed, **self.options}


def _factory(width, height, mines, seed, *, first_click="noguess", topology="bounded", **options):
    return NoGuess(width, height, mines, seed, topology=topology, **options)


register(GeneratorInfo("noguess", "certified solvable by logic (with the mine total) from the first click, "
                       "whose 3x3 opens; uniform over such boards: rejection where cheap, else a Metropolis "
                       "chain over certified boards", ("noguess",), _factory,
                       aliases=("ng", "no-guess", "noguessing"), rules=("noguess",),
                       limits=Limits(9, 30, 24, 1, mines_limit=max_density_hint,
                                     why="denser boards cannot be made solvable without guessing in good time")))
