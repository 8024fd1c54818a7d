"""No-guess boards: every board certified solvable by logic (with the mine total) from its first click.

Method, by density:
- `rejection`: lay uniform boards (the click's 3x3 kept free) until one certifies. Exactly
  uniform over the boards our certifier accepts; `auto` uses it where it is cheap: up to 22%
  mines (expert's 99 needs about 7 boards), and only if one of the first 200 certifies (its
  success rate falls with the area too: 100x100 at 22% needs thousands), else the chain.
- `mcmc`: a Metropolis chain whose move takes one mine to a random free cell and is accepted
  iff the board still certifies. The proposal is symmetric, so the chain's stationary law is
  uniform over certifiable boards; it starts from a certified board that is already close:
  - the ladder: a rejection sample with 20% mines, to which mines are added one at a time,
    each at a free cell drawn with a weight, kept iff the board still certifies. Adds on the rim
    (edges and corners) and next to other mines fail more often, so uniform draws left the
    boards short of mines on the edge and of clumping, with a little more 3BV (a deficit the
    chain took about 390 moves to wash out at 130 mines). The weight leans against both: by
    the cell's ring from the edge, times (a clump base + the cell's mine neighbours), measured
    on 30x16 against rejection references at 130 mines and long chains at 170 and 200
    (`LADDER_SHAPES`, docs/benchmarks.md); and the two rings around the click's block
    (adds there change the first opening, and fail more often) weigh apart. The kept adds also
    lean to boards that need the mine total, so an add whose play uses the total is kept only
    with a probability (`KEEP_TOTAL`), and to boards with fewer openings (adds into open ground
    certify more easily), so an add that leaves the board fewer openings is too
    (`KEEP_OPENINGS`). This only shapes the start: the chain's stationary law is uniform
    whatever the start. At 130 mines on 30x16 and 200 on 30x24, first click in the centre, the
    ladder's boards alone pass the measurements (against four rejection references, and two long
    chains), so there the board is the ladder's, with no chain (`LADDER_ALONE`): its law is
    uniform by measurement, not by construction; at 130 each cell's weight has a scale of its own,
    fitted to long chains (`cell_scales`). 200 mines on 30x16 is such a level too, with its
    own weights, a taper by the distance from the click, and adds that lower 3BV thinned: its
    figures match three long chains, its per-cell rates as closely as the chain's did. So is
    170 mines on 30x16, with its own weights in finer steps (of 64) and both thinnings: its
    figures and per-cell rates match three long chains;
  - where the ladder stalls (very dense boards), the repair: move a stuck frontier mine of a
    uniform board to a cell off the frontier until it certifies (mines pile at the edges,
    3BV is low).
  Each add and move is certified from the current board's play log (`certify.try_move`).
  The number of chain moves is a parameter; by default a number per cell the ladder tried, by
  the density (two at 130 and 200 mines on 30x16, one at 170; none at the levels of
  `LADDER_ALONE`: 130, 170 and 200 mines on 30x16 and 200 on 30x24, from the centre), or three
  per mine after a repair: `docs/benchmarks.md` measures the bias left against rejection
  references and long chains.

Every board returned has been certified (`certify.start` / `try_move`) from its click;
if none does within the budget, `GenerationError` (or, only when asked with
`allow_uncertified=True`, the last board tried, marked `certified=False`). The same seed, size
and click give the same board.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..board import Board
from ..errors import GenerationError, InvalidBoardError
from ..firstclick import FirstClick
from ..kernels import lay_uniform
from ..rng import below, seed_key
from ..stats import openings_and_bbbv
from . import GeneratorInfo, Limits, register
from .certify import (
    DEFAULT_LEAF_BUDGET,
    SOLVED,
    hidden,
    keep,
    position,
    revealed,
    set_mine,
    start,
    tried_uses_total,
    try_move,
    undo,
    workspace,
)

METHODS = ("auto", "rejection", "mcmc")
CHAIN_STARTS = ("auto", "repair")  # auto: the ladder, the repair where it stalls; repair: always the repair
REJECTION_MAX_DENSITY = 0.22  # above this share of mines, rejection's success rate collapses
DEFAULT_TRIES = 20_000  # rejection: uniform boards tried before giving up
AUTO_REJECTION_TRIES = 200  # auto: rejection boards tried before the chain takes over (30x16/99 needs about 7)
DEFAULT_REPAIRS = 20_000  # mcmc: repair moves allowed before giving up
REPAIRS_PER_START = 2_000  # mcmc: repair moves on one board before starting afresh
LADDER_BASE_DENSITY = 0.2  # mcmc: the ladder starts from a rejection sample with this share of mines
LADDER_BASE_TRIES = 2_000  # ... found within this many uniform boards, or the repair starts instead
LADDER_TRIES_PER_MINE = 64  # the ladder stalls (and the repair starts) when this many cells in a row fail
# The ladder's draws lean against what its kept adds lack (docs/benchmarks.md): adds on
# the rim fail more often, and adds next to mines too, so uniform draws left the chain's boards
# short of mines on the edge (0.1979 of them against 0.2029 at 130 mines) and of clumping, and
# the rings just inside the edge off (too few mines on the second, too many on the third). A
# cell's weight is its ring's (edge, second, third ring; corners apart; INNER_WEIGHT inside)
# times (clump base + its mine neighbours). Adds just outside the click's block fail more often
# too (they change the first opening), which left those 16 cells 2% short of mines and the ring
# after them over-filled: the two rings around the block scale a cell's weight by their own
# (INNER_WEIGHT: unchanged). All were measured on 30x16 at 130 mines against two rejection
# references and at 170 and 200 against long chains (the rim's and the corners' weights grow
# steeply with the density: at 200 mines 170's weights left the edge share 18 se short); between
# two measured densities (by mines per cell) they are interpolated, and held at the nearer end
# outside.
INNER_WEIGHT = 16
# The ladder's kept adds also lean to boards that need the mine total (at 170 mines the ladder
# alone gives 0.90 of them against 0.78 in the long chains, and the chain washes that out slowest
# of all figures: 0.82 after two moves per try, 0.79 after eight). An add whose play uses the
# total is kept only with a probability, of 16: one per density of LADDER_SHAPES, interpolated
# like them (docs/benchmarks.md).
KEEP_TOTAL = (12, 8, 6)
# And to boards with fewer openings: an add into open ground certifies more easily, so the ladder
# alone left 130-mine boards 5 to 6 se short of openings (and 3BV high), a deficit only the chain
# undid, at 40 to 50 moves per e-fold, and no draw weight touched. An add that leaves the board
# fewer openings (zero regions) is kept only with a probability, of 256, by density like
# KEEP_TOTAL: at 130 mines 220 of 256, measured for the ladder alone (LADDER_ALONE);
# 170 and 200 keep all, as measured before.
KEEP_OPENINGS = (220, 256, 256)
# The levels (width, height, mines, first click) where the ladder's boards alone pass the
# measurements (against rejection references at 130 mines, long chains at 30x24/200), so that the
# board is the ladder's, with no chain (two to three times faster there), each with what it needs
# on top of LADDER_SHAPES: its edge cells' and its corners' weights scaled (of 64; corners are edge
# cells too), and of its adds those kept that use the total (of 16) and that close openings (of
# 256) (docs/benchmarks.md). The 130 row's weights alone measured biased on
# 16x16 with 69 mines (corner rate -2.4 se, openings +3.0): the fit is to a level and its click,
# so everywhere else the chain runs as LADDER_SHAPES says. At 130 a fourth rejection reference, five
# times the others, showed the ladder's boards alone biased after all (chi-square per
# dof 1.21, needs-total +2 to +3.4 se), with an excess of about 0.002 of a cell's mine rate spread
# over the board, too thin for groups of cells to take and for 16,000 reference boards to steer. So
# that level has a table of per-cell scales (`cell_scales`), fitted to long chains' mine rates
# (1.7 million samples). Its boards then held 0.3 more 3BV than the references (and 0.1 more than
# the chains), which fewer adds that close openings kept would have lowered only by adding openings;
# so it keeps 252 of 256 adds that raise 3BV, 226 of 256 that close openings, and 23/2 of 16 that
# use the total.
# At 200 mines on 30x16 the ladder's boards alone came out 3BV-poor at every weight and openings
# thinning tried (-6 se and worse), so that level also thins its adds that lower 3BV, and has its
# own row of weights (LADDER_SHAPES's 200 row is measured for the chain after it).
# At 170 mines on 30x16 the ladder's boards alone need both thinnings and a row of their own, and
# that row's steps of 1/16 were too coarse (one step of the click's second ring moved its cells from
# +1.6 to -1.1 se), so its weights and scales are of 64. Measured against a third,
# larger reference its boards were over-clumped (+2.5 se, as the chain's were), and the
# cells that one scale of a ring lumps together were off in opposite directions: of those two king
# steps from a corner, the ones on the rim short and the diagonal one over (+-3.5 se); of the click's
# first ring, the corners over and the cells above and below short (+4.2, -3.5). So that row has a
# clump base between whole numbers (21/4) and scales of its own for those cells (`FINE_GROUPS`); and
# as 9 of 16 adds that use the total left its boards short of needing it (-1.3 to -2.0 se) and 10
# overshot (+2.6), it keeps 37/4 of 16.
Alone = namedtuple("Alone", "edge corner keep_total keep_openings keep_bbbv row taper inner fine cells keep_bbbv_up",
                   defaults=(256, None, 0, INNER_WEIGHT, (), False, 256))
Alone.__doc__ = """A level of LADDER_ALONE: its edge and corner scales (of 64), its adds kept (of 16, a Fraction
for finer steps) that use the total, (of 256) that leave fewer openings and that lower 3BV, its own
row of LADDER_SHAPES's form (None: LADDER_SHAPES by density), its taper (of 256 off a weight per king
step from the click past 3, the rim's cells untapered; 0: none), the weight past the rings that its
row's weights and scales are of (INNER_WEIGHT, or more for finer steps), and scales (of 64) of groups
of FINE_GROUPS ((name, scale) pairs), whether it has a table of per-cell scales (of CELL_UNIT,
`cell_scales`, applied last), and its adds kept (of 256) that raise 3BV."""
LADDER_ALONE = {(30, 16, 130, 15, 8): Alone(64, 64, Fraction(23, 2), 226, cells=True, keep_bbbv_up=252),
                (30, 24, 200, 15, 12): Alone(61, 56, 11, 228),
                (30, 16, 170, 15, 8): Alone(64, 64, Fraction(37, 4), 231, 245,
                                            (170 / 480, (121, 79, 57), 200, Fraction(21, 4), (76, 61), (80, 60), 0.0),
                                            0, 64, (("corner2 rim", 69), ("corner2 inside", 60),
                                                    ("corner2 diagonal", 52), ("click1 corners", 58),
                                                    ("click1 above and below", 69), ("click2 facing", 67),
                                                    ("click2 corners", 61))),
                (30, 16, 200, 15, 8): Alone(64, 64, 9, 222, 183,
                                            (200 / 480, (49, 26, 17), 235, 1, (18, 14), (28, 18), 0.0), 4)}
# At 170 and 200 mines the cells around a corner were short of mines, or over-filled, whatever the
# corner's own weight: the cells one and two king steps from a corner scale their weight by their
# own (of INNER_WEIGHT).
# The chain after the ladder makes moves per cell the ladder tried (it tries more, and leaves more
# bias, the denser the board): at 170 one is enough with the weights measured for it, and the
# chain is two thirds of a board's time there (docs/benchmarks.md).
# A row: (mines per cell, ring weights, corner weight, clump base, the two rings around the
# click's block, the two rings around a corner, chain moves per ladder try).
# The 130 row's weights were measured for the ladder alone: at that level the ladder's
# boards need no chain (LADDER_ALONE).
LADDER_SHAPES = ((130 / 480, (22, 18, 14), 26, 21, (17, 15), (18, 15), 2.0),
                 (170 / 480, (33, 22, 14), 64, 4, (19, 14), (21, 15), 1.0),
                 (200 / 480, (67, 32, 14), 1200, 1, (16, 13), (19, 19), 2.0))


@dataclass(frozen=True)
class NoGuessResult:
    """A generated board and how it came to be."""

    board: Board
    certified: bool
    method: str
    tries: int  # rejection: boards laid; mcmc: repair moves (0 when the ladder made the start)
    accepted: int  # mcmc: chain moves accepted
    steps: int  # mcmc: chain moves proposed
    start: str = ""  # mcmc: what made the chain's first board, "ladder" or "repair"
    ladder_tries: int = 0  # mcmc: cells the ladder tried, mines added and not


@njit
def _rejection(n, count, excluded, nbr, click, state, tries, budget, room):
    """Lay uniform boards until one certifies. Returns (position, state, boards laid, certified)."""
    p = position(np.zeros(n, dtype=np.bool_), nbr, click, budget, room)
    for t in range(tries):
        mines, state = lay_uniform(n, count, excluded, state)
        p = position(mines, nbr, click, budget, room)
        if start(p) == SOLVED:
            return p, state, t + 1, True
    return p, state, tries, False


@njit
def _pick(mines, excluded, weight, clump, near, r):
    """The free cell at which r (in 0..the sum of the weights) falls, each free cell c taking
    weight[c] * (clump + near[c]) values in turn."""
    for i in range(mines.shape[0]):
        if not mines[i] and not excluded[i]:
            r -= weight[i] * (clump + near[i])
            if r < 0:
                return i
    return -1


@njit
def _ladder(p, excluded, state, extra, tries_per_mine, weight, clump, nbr, keep_total, keep_openings, keep_bbbv,
            per_mine=1, total_of=16, keep_bbbv_up=256):
    """Add `extra` mines to the certified position `p` one at a time, each at a free cell c drawn
    with probability proportional to weight[c] * (clump + per_mine * mines next to c), kept iff the
    board still certifies (tried again elsewhere if not); an add whose play uses the mine total
    is kept only with probability keep_total / total_of, one that leaves the board fewer openings only
    with probability keep_openings / 256, one that lowers its 3BV only with probability keep_bbbv / 256
    and one that raises it only with probability keep_bbbv_up / 256 (a thinned add counts as no try).
    Returns (state, mines added, cells tried, position); it stops early when `tries_per_mine` cells
    in a row fail.
    """
    n = p.mines.shape[0]
    near = np.zeros(n, dtype=np.int64)  # mines next to each cell, times per_mine
    for i in range(n):
        if p.mines[i]:
            for k in range(8):
                j = nbr[i, k]
                if j >= 0:
                    near[j] += per_mine
    total = 0
    nfr = 0
    for i in range(n):
        if not p.mines[i] and not excluded[i]:
            total += weight[i] * (clump + near[i])
            nfr += 1
    looks = keep_openings < 256 or keep_bbbv < 256 or keep_bbbv_up < 256  # at the layout the add leaves
    openings, bbbv = openings_and_bbbv(p.mines, p.numbers, nbr) if looks else (0, 0)
    tried = 0
    for added in range(extra):
        placed = False
        for _ in range(min(tries_per_mine, nfr)):
            tried += 1
            state, r = below(state, total)
            c = _pick(p.mines, excluded, weight, clump, near, r)
            kept = True
            if looks:  # the layout's coins first: a thinned add costs no play
                set_mine(p.mines, p.numbers, nbr, c, True)
                now_openings, now_bbbv = openings_and_bbbv(p.mines, p.numbers, nbr)
                set_mine(p.mines, p.numbers, nbr, c, False)
                if now_openings < openings:
                    state, coin = below(state, 256)
                    kept = coin < keep_openings
                if kept and now_bbbv < bbbv:
                    state, coin = below(state, 256)
                    kept = coin < keep_bbbv
                if kept and now_bbbv > bbbv and keep_bbbv_up < 256:  # (no coin where all are kept: boards as before)
                    state, coin = below(state, 256)
                    kept = coin < keep_bbbv_up
                if not kept:
                    tried -= 1
                    continue
            kept = try_move(p, -1, c) == SOLVED
            if kept and keep_total < total_of and tried_uses_total(p):
                state, coin = below(state, total_of)
                kept = coin < keep_total
                tried -= not kept
            if kept:
                if looks:
                    openings, bbbv = now_openings, now_bbbv
                total -= weight[c] * (clump + near[c])
                for k in range(8):
                    j = nbr[c, k]
                    if j >= 0:
                        near[j] += per_mine
                        if not p.mines[j] and not excluded[j]:
                            total += weight[j] * per_mine
                nfr -= 1
                p = keep(p)
                placed = True
                break
            undo(p, -1, c)
        if not placed:
            return state, added, tried, p
    return state, extra, tried, p


def _between(cells: int, mines: int) -> tuple[int, float]:
    """The two neighbouring measured densities of LADDER_SHAPES that `mines` on `cells` cells lies
    between (the lower one's index), and where between them (0 to 1, held at the ends)."""
    d = mines / cells
    i = 0
    while i + 2 < len(LADDER_SHAPES) and d > LADDER_SHAPES[i + 1][0]:
        i += 1
    d0, d1 = LADDER_SHAPES[i][0], LADDER_SHAPES[i + 1][0]
    return i, min(max((d - d0) / (d1 - d0), 0.0), 1.0)


def _at_density(cells: int, mines: int, values) -> float:
    """`values` (one per row of LADDER_SHAPES) at the density of `mines` on `cells` cells:
    interpolated between the two measured densities around it, held at the ends."""
    i, t = _between(cells, mines)
    return values[i] + t * (values[i + 1] - values[i])


def ladder_keep_total(cells: int, mines: int) -> int:
    """Of 16 adds whose play uses the mine total, how many the ladder keeps, for `mines` on
    `cells` cells (KEEP_TOTAL)."""
    return int(round(_at_density(cells, mines, KEEP_TOTAL)))


def ladder_keep_openings(cells: int, mines: int) -> int:
    """Of 256 adds that leave the board fewer openings, how many the ladder keeps, for `mines` on
    `cells` cells (KEEP_OPENINGS)."""
    return int(round(_at_density(cells, mines, KEEP_OPENINGS)))


def ladder_shape(nbr, mines: int, excluded=None, row=None,
                 inner: int = INNER_WEIGHT) -> tuple[np.ndarray, int | Fraction]:
    """The ladder's weight for adding a mine at each cell, before its mine neighbours count, and
    the clump base, for `mines` on the grid `nbr`: by a cell's ring, the steps to the nearest cell
    with fewer than eight neighbours (a corner, with three, apart), INNER_WEIGHT past the rings;
    the cells one and two king steps from a corner scaled by their own weights; with `excluded`
    (the click's block), the two rings around it scaled by their own weights. Between two measured
    densities each cell's weight is interpolated (so it moves with the density one way only). A
    `row` of LADDER_SHAPES's form, given, is taken as it is instead, its weights and scales of `inner`
    (the weight past the rings: above INNER_WEIGHT, finer steps), its clump base too (a whole number
    or a Fraction)."""
    if row is None:
        i, t = _between(nbr.shape[0], mines)
        rows = LADDER_SHAPES[i:i + 2]
        clump = _at_density(nbr.shape[0], mines, [r[3] for r in LADDER_SHAPES])
    else:
        rows, t, clump = (row, row), 0.0, row[3]

    def around(cells):
        grown = np.zeros(nbr.shape[0], dtype=np.bool_)
        grown[nbr[cells][nbr[cells] >= 0]] = True
        return grown

    def scale(weight, first, scales, seen):
        """Scale the ring `first` and the rings after it (outwards, past `seen`) by `scales`, of `inner`."""
        ring, seen = first, seen | first
        for s in scales:
            weight[ring] = (weight[ring] * s + inner // 2) // inner
            ring = around(ring) & ~seen
            seen |= ring

    degree = (nbr >= 0).sum(axis=1)
    corner = degree == 3
    shapes = []
    for _, rings, corner_weight, _, click, near, _ in rows:
        weight = np.full(nbr.shape[0], inner, dtype=np.int64)
        ring = degree < 8
        seen = ring.copy()
        for w in rings:
            weight[ring] = w
            ring = around(ring) & ~seen
            seen |= ring
        weight[corner] = corner_weight
        scale(weight, around(corner) & ~corner, near, corner)
        if excluded is not None:
            scale(weight, around(excluded) & ~excluded, click, excluded)
        shapes.append(weight)
    lo, hi = shapes
    return np.rint(lo + t * (hi - lo)).astype(np.int64), row[3] if row is not None else int(round(clump))


FINE_GROUPS = ("corner2 rim", "corner2 inside", "corner2 diagonal", "click1 corners", "click1 above and below",
               "click2 facing", "click2 corners")


def fine_groups(width: int, height: int, x: int, y: int) -> dict[str, np.ndarray]:
    """The cells of each of FINE_GROUPS on a bounded width x height grid clicked at (x, y): the cells
    two king steps from a corner on the rim, next to the rim and on the corner's diagonal; the
    corners of the ring round the click's block, and its cells above and below the block; of the
    second ring round the block, the cells facing the block's sides and those towards its corners."""
    col, row = np.arange(width * height) % width, np.arange(width * height) // width
    kx, ky = np.minimum(col, width - 1 - col), np.minimum(row, height - 1 - row)  # steps to the nearest sides
    near, far = np.minimum(kx, ky), np.maximum(kx, ky)
    dx, dy = abs(col - x), abs(row - y)
    return {"corner2 rim": (far == 2) & (near == 0), "corner2 inside": (far == 2) & (near == 1),
            "corner2 diagonal": (far == 2) & (near == 2), "click1 corners": (dx == 2) & (dy == 2),
            "click1 above and below": (dy == 2) & (dx < 2),
            "click2 facing": (np.maximum(dx, dy) == 3) & (np.minimum(dx, dy) <= 1),
            "click2 corners": (np.maximum(dx, dy) == 3) & (np.minimum(dx, dy) >= 2)}


CELL_UNIT = 1024  # a per-cell scale of 1
CELL_TABLES = Path(__file__).with_name("ladder_cells")


def cell_scales(width: int, height: int, mines: int, x: int, y: int) -> np.ndarray:
    """A LADDER_ALONE level's per-cell scales (of CELL_UNIT): fitted to long chains' per-cell mine rates
    by `benchmarks/fit_ladder_cells.py`, where the ladder's excess is spread too thin for any group of
    cells to take it (docs/benchmarks.md)."""
    return np.load(CELL_TABLES / f"{width}x{height}_{mines}_{x}_{y}.npy").astype(np.int64)


@functools.lru_cache(maxsize=64)
def _ladder_shape_for(width: int, height: int, topology: str, mines: int, x: int,
                      y: int) -> tuple[np.ndarray, int | Fraction]:
    """`ladder_shape` for a level and its click, made once: its numpy work costs about 90 µs, 3% of a
    130-mine board (docs/benchmarks.md); at a level of LADDER_ALONE, from its own
    row if it has one, with its edge and corners scaled, its taper and its fine scales as it says. The
    weights come back read-only (shared)."""
    nbr = grid.neighbour_table(width, height, topology)
    alone = ladder_alone(width, height, mines, x, y, topology)
    row, inner = (alone.row, alone.inner) if alone is not None else (None, INNER_WEIGHT)
    weight, clump = ladder_shape(nbr, mines, grid.block_mask(width, height, x, y, topology), row, inner)
    degree = (nbr >= 0).sum(axis=1)  # the rim as ladder_shape finds it: edge < 8 neighbours, corner 3
    if alone is not None and (alone.edge, alone.corner) != (64, 64):  # (x 4 first: the scales keep their resolution)
        weight *= 4
        weight[degree < 8] = weight[degree < 8] * alone.edge // 64
        weight[degree == 3] = weight[degree == 3] * alone.corner // 64
    if alone is not None and alone.taper:  # weight x (256 - taper x king steps past 3): x 256 keeps its resolution
        far = np.arange(width * height)
        far = np.maximum(abs(far % width - x), abs(far // width - y))  # king steps from the click
        far[degree < 8] = 3  # not the rim: its ends fell short where it was tapered too
        weight = weight * (256 - alone.taper * np.maximum(far - 3, 0))
    if alone is not None and alone.fine:  # x 64 off the groups: their scales keep their resolution
        groups, scale = fine_groups(width, height, x, y), np.full(width * height, 64, dtype=np.int64)
        for name, by in alone.fine:
            scale[groups[name]] = by
        weight = weight * scale
    if alone is not None and alone.cells:
        weight = weight * cell_scales(width, height, mines, x, y)
    weight.setflags(write=False)
    return weight, clump


@njit
def _repair(mines, excluded, nbr, click, state, repairs, budget, room):
    """Move stuck frontier mines until the board certifies. Returns (state, moves, certified, position).

    Where the player gets stuck, one random hidden frontier mine moves to a random hidden
    cell off the frontier (or, now and then or when there is none, to any free cell): a cell
    the player could not decide becomes safe. The changed board is then certified again from
    the old play's log.
    """
    n = mines.shape[0]
    cand = np.empty(n, dtype=np.int32)
    p = position(mines, nbr, click, budget, room)
    status = start(p)
    for r in range(repairs + 1):
        if status == SOLVED:
            return state, r, True, p
        if r == repairs:
            break
        # a hidden mine the player touches (its neighbour is open)
        nc = 0
        for i in range(n):
            if hidden(p, i) and mines[i]:
                for k in range(8):
                    j = nbr[i, k]
                    if j >= 0 and revealed(p, j):
                        cand[nc] = i
                        nc += 1
                        break
        if nc == 0:  # a component over budget with no frontier mine: move any hidden mine
            for i in range(n):
                if hidden(p, i) and mines[i]:
                    cand[nc] = i
                    nc += 1
        if nc == 0:
            break
        state, r1 = below(state, nc)
        src = cand[r1]
        # a hidden safe cell off the frontier, else any free cell
        # now and then any free cell, so that mines walled in together cannot swap forever
        state, coin = below(state, 4)
        nd = 0
        for i in range(n):
            if coin > 0 and hidden(p, i) and not mines[i] and not excluded[i]:
                inner = True
                for k in range(8):
                    j = nbr[i, k]
                    if j >= 0 and revealed(p, j):
                        inner = False
                        break
                if inner:
                    cand[nd] = i
                    nd += 1
        if nd == 0:  # (a hidden safe frontier cell would just swap places with the mine: a 50/50 again)
            for i in range(n):
                if not mines[i] and not excluded[i]:
                    cand[nd] = i
                    nd += 1
        if nd == 0:
            break
        state, r2 = below(state, nd)
        dst = cand[r2]
        status = try_move(p, src, dst)
        p = keep(p)
    return state, repairs, False, p


@njit
def _chain(p, excluded, state, steps):
    """Metropolis moves over certified boards: one mine to a uniform free cell, kept iff it certifies.

    The position `p` must be certified; it stays certified. Each move is certified from the
    current play's log. Returns (state, moves accepted, position): the position returned, not `p`,
    holds the last board's play, so a chain goes on from it.
    """
    n = p.mines.shape[0]
    mpos = np.empty(n, dtype=np.int32)
    fpos = np.empty(n, dtype=np.int32)
    nm = 0
    nfr = 0
    for i in range(n):
        if p.mines[i]:
            mpos[nm] = i
            nm += 1
        elif not excluded[i]:
            fpos[nfr] = i
            nfr += 1
    if nm == 0 or nfr == 0:
        return state, 0, p
    accepted = 0
    for _ in range(steps):
        state, a = below(state, nm)
        state, b = below(state, nfr)
        src = mpos[a]
        dst = fpos[b]
        if try_move(p, src, dst) == SOLVED:
            mpos[a] = dst
            fpos[b] = src
            accepted += 1
            p = keep(p)
        else:
            undo(p, src, dst)
    return state, accepted, p


STEPS_PER_MINE = 3  # chain moves after a repair, per mine: less leaves the repair's bias (docs/benchmarks.md)


@dataclass(frozen=True)
class _Start:
    """A certified board for the chain to start from, as a position with its play."""

    position: tuple  # certify.Position
    state: int  # the RNG's, after the start
    certified: bool
    ladder: bool  # made by the ladder (else by the repair)
    ladder_tries: int  # cells the ladder tried
    repairs: int


def ladder(p, excluded, state, extra: int, shape, nbr):
    """`_ladder` drawing by `shape` (weights, clump base, and the four keeps, as `_start` takes it),
    its fractions passed as whole numbers: a clump base a/b as a with b per mine next to a cell, a
    keep of the total a/b of 16 as a of 16b."""
    weight, clump, keep_total, keep_openings, keep_bbbv, keep_bbbv_up = shape
    clump, keep_total = Fraction(clump), Fraction(keep_total)
    return _ladder(p, excluded, np.uint64(state), extra, LADDER_TRIES_PER_MINE, weight, clump.numerator, nbr,
                   keep_total.numerator, keep_openings, keep_bbbv, clump.denominator, 16 * keep_total.denominator,
                   keep_bbbv_up)


def _start(n, mines, excluded, nbr, click, state, tries, budget, room, shape=None) -> _Start:
    """A rejection sample where rejection is cheap, with mines added one at a time (the ladder,
    drawing by `shape`: `ladder_shape`'s weights and clump base, and `ladder_keeps`); where that
    stalls (or without a `shape`), a uniform board repaired."""
    if shape is not None:
        base = min(mines, int(LADDER_BASE_DENSITY * n))
        p, state, _, ok = _rejection(n, base, excluded, nbr, click, np.uint64(state), LADDER_BASE_TRIES, budget, room)
        if ok:
            state, added, tried, p = ladder(p, excluded, state, mines - base, shape, nbr)
            if added == mines - base:
                return _Start(p, state, True, True, tried, 0)
    # a repair can circle (mines walled in together); a fresh board now and then gets it out
    used = 0
    while True:
        flat, state = lay_uniform(n, mines, excluded, np.uint64(state))
        chunk = min(REPAIRS_PER_START, tries - used)
        state, spent, ok, p = _repair(flat, excluded, nbr, click, np.uint64(state), chunk, budget, room)
        used += spent
        if ok or used >= tries:
            return _Start(p, state, ok, False, 0, used)


def ladder_alone(width: int, height: int, mines: int, x: int, y: int, topology: str = "bounded") -> Alone | None:
    """Where the ladder's board is the board, with no chain: that level's entry of LADDER_ALONE;
    else None."""
    return LADDER_ALONE.get((width, height, mines, x, y)) if topology == "bounded" else None


def ladder_keeps(width: int, height: int, mines: int, x: int, y: int,
                 topology: str = "bounded") -> tuple[int | Fraction, int, int, int]:
    """Of the ladder's adds, how many it keeps (of 16; a Fraction where finer) of those whose play uses
    the mine total, (of 256) of those that leave the board fewer openings, and (of 256) of those that
    lower its 3BV and that raise it: by density (3BV: all), or as LADDER_ALONE says."""
    alone = ladder_alone(width, height, mines, x, y, topology)
    if alone is not None:
        return alone.keep_total, alone.keep_openings, alone.keep_bbbv, alone.keep_bbbv_up
    return ladder_keep_total(width * height, mines), ladder_keep_openings(width * height, mines), 256, 256


def ladder_draws(width: int, height: int, mines: int, x: int, y: int, topology: str = "bounded") -> tuple:
    """The ladder's `shape` for a level and its click, as `_start` takes it: its weights and clump base
    (`_ladder_shape_for`) and its four keeps (`ladder_keeps`)."""
    return _ladder_shape_for(width, height, topology, mines, x, y) + ladder_keeps(width, height, mines, x, y, topology)


def chain_steps(width: int, height: int, mines: int, x: int, y: int, topology: str, ladder: bool,
                ladder_tries: int) -> int:
    """The chain's moves by default: none at a level of LADDER_ALONE whose start the ladder made,
    else `default_steps`."""
    if ladder and ladder_alone(width, height, mines, x, y, topology) is not None:
        return 0
    return default_steps(width * height, mines, ladder, ladder_tries)


def default_steps(cells: int, mines: int, ladder: bool, ladder_tries: int) -> int:
    """Chain moves for `mcmc`, enough to wash out the start's bias as measured against rejection
    references and long chains (docs/benchmarks.md): per cell the ladder tried, by the density
    (LADDER_SHAPES, interpolated), or three per mine after a repair."""
    if not ladder:
        return max(50, STEPS_PER_MINE * mines)
    per_try = _at_density(cells, mines, [row[6] for row in LADDER_SHAPES])
    return max(50, int(round(per_try * ladder_tries)))


def generate(width: int, height: int, mines: int, x: int, y: int, seed, *, topology: str = "bounded",
             method: str = "auto", steps: int | None = None, tries: int | None = None,
             budget: int = DEFAULT_LEAF_BUDGET, allow_uncertified: bool = False,
             chain_start: str = "auto") -> NoGuessResult:
    """A board certified no-guess from the first click (x, y), whose 3x3 block is mine-free.

    `chain_start` ("auto" or "repair") picks what makes the chain's first board for `mcmc`: the
    ladder (the repair where it stalls), or always the repair (a start with other biases, for
    long-chain references: docs/benchmarks.md).

    Raises GenerationError when no board certifies within `tries` (rejection: boards laid;
    mcmc: repair moves), unless `allow_uncertified`, which returns the last board marked
    `certified=False`.
    """
    grid.check_size(width, height, topology)
    n = width * height
    if not (0 <= x < width and 0 <= y < height):
        raise InvalidBoardError(f"click ({x}, {y}) is off the {width}x{height} board; x in 0..{width - 1}, "
                                f"y in 0..{height - 1}")
    excluded = grid.block_mask(width, height, x, y, topology)
    grid.check_mines(width, height, mines, int(np.count_nonzero(excluded)))
    if method not in METHODS:
        raise InvalidBoardError(f"unknown no-guess method {method!r}; allowed: {', '.join(METHODS)}")
    if chain_start not in CHAIN_STARTS:
        raise InvalidBoardError(f"unknown chain start {chain_start!r}; allowed: {', '.join(CHAIN_STARTS)}")
    auto = method == "auto"
    if auto:
        method = "rejection" if mines <= REJECTION_MAX_DENSITY * n else "mcmc"
    nbr = grid.neighbour_table(width, height, topology)
    click = y * width + x
    state = np.uint64(seed_key(seed))
    accepted = ladder_tries = 0
    made_by = ""
    room = workspace(width, height, topology)
    if method == "rejection":
        limit = DEFAULT_TRIES if tries is None else tries
        if auto:
            limit = min(limit, AUTO_REJECTION_TRIES)
        p, state, used, ok = _rejection(n, mines, excluded, nbr, click, state, limit, budget, room)
        flat = p.mines
        if ok or not auto:
            tries, steps = limit, 0
        else:  # a large board: rejection's success rate falls with the area as well as the density
            method = "mcmc"
    if method == "mcmc":
        tries = DEFAULT_REPAIRS if tries is None else tries
        shape = None
        if chain_start == "auto":
            shape = ladder_draws(width, height, mines, x, y, topology)
        begun = _start(n, mines, excluded, nbr, click, state, tries, budget, room, shape)
        flat, state, ok, used, ladder_tries = (begun.position.mines, begun.state, begun.certified, begun.repairs,
                                               begun.ladder_tries)
        made_by = "ladder" if begun.ladder else "repair"
        if steps is None:
            steps = chain_steps(width, height, mines, x, y, topology, begun.ladder, ladder_tries)
        if ok and steps > 0:
            state, accepted, _ = _chain(begun.position, excluded, np.uint64(state), steps)
    if not ok and not allow_uncertified:
        raise GenerationError(
            f"no certified no-guess board with {mines} mines on {width}x{height} from ({x}, {y}) within "
            f"{tries} {'boards' if method == 'rejection' else 'repair moves'} ({method}); use fewer mines "
            f"(at most about {max_density_hint(width, height)}) or a larger budget")
    board = Board._from_flat(width, height, flat, topology)
    return NoGuessResult(board, bool(ok), method, int(used), int(accepted), int(steps) if ok else 0, made_by,
                         int(ladder_tries))


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
                       "whose 3x3 opens; rejection where cheap, else a Metropolis chain over certified boards",
                       ("noguess",), _factory, aliases=("ng", "no-guess", "noguessing"), rules=("noguess",),
                       limits=Limits(9, 30, 24, 1, mines_limit=max_density_hint,
                                     why="denser boards cannot be made solvable without guessing in good time")))
