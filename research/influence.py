"""The 50/50 influence of a guess: the layouts in which a cell would sit in a 50/50 met later anyway.

A 50/50 shape is two side-by-side undecided cells (a pair) or a 2x2 block of them (a box) with
two ways to hold its mines, A and its mirror A' (a pair: one cell or the other; a box: one
diagonal or the other), such that nothing outside can ever tell them apart: every cell touching
the shape sees as many mines of A as of A', except its ends (a pair: the three cells beyond each
end; a box: its four diagonal corners), which see a different number and so must be mines.
In the layouts where A holds with its ends mines (counted here exactly, by the one counting engine
with those cells put in as flags), the same layouts with A' hold as often (swapping the two is a
bijection no number notices), and the shape must be guessed sooner or later at even odds. A
guess at a cell of A now loses those layouts, but a player that waits loses as many later: that
share of the cell's danger is no extra risk, and the look-ahead may count it as safety (a
score factor; nothing is decided by it). A cell that is an end of a shape (an enabler: its mine
completes the 50/50) gets the shape's count too: of the layouts where it is a mine and the shape
closes, a player that waits loses half.

The shapes, their ends and the limits on how many undecided ends a shape may still need (3 for a
pair, 2 for a box; one for an enabler's pair) are DavidNHill's JSMinesweeper's long-term risk
(docs/benchmarks.md credits it); the counting is sweeplab's.

Research: `strong` had it off by default and it measured no better there (paired runs), so it
lives here, outside the package, as `InfluencePlayer`.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np

from sweeplab import grid
from sweeplab.grid import DOWN, LEFT, RIGHT, UP
from sweeplab.solver.complete import Analysis, analyse
from sweeplab.solver.frontier import InconsistentPositionError, TooComplexError
from sweeplab.solver.players import StrongPlayer
from sweeplab.view import FLAG, HIDDEN, View

BOXES = ((0, UP, LEFT), (2, UP, RIGHT), (5, DOWN, LEFT), (7, DOWN, RIGHT))  # (diagonal, its two sides)
PAIR_ENDS, BOX_ENDS, ENABLER_ENDS = 3, 2, 1  # most undecided ends a shape may still need


class Shape(NamedTuple):
    """A 50/50 shape at one of its two ways: `mines` hold its mines, `safe` are its other cells,
    `ends` the undecided cells that must be mines for nothing to tell the two ways apart."""

    mines: tuple[int, ...]
    safe: tuple[int, ...]
    ends: tuple[int, ...]


@lru_cache(maxsize=16)
def _neighbour_sets(width: int, height: int, topology: str) -> tuple[frozenset, ...]:
    return tuple(frozenset(int(j) for j in row if j >= 0) for row in grid.neighbour_table(width, height, topology))


class Influence:
    """The 50/50 shapes of one position and the layouts they hold in, counted once and shared by
    every cell scored on it. `a`: the position's analysis; `base`: its flat cells with the known
    mines as flags (every other hidden cell undecided: a guess is due, so none is known safe)."""

    def __init__(self, view: View, a: Analysis, base: np.ndarray):
        self.view, self.a, self.base = view, a, base
        self.cells = base.tolist()
        self.nbr = view.neighbours
        self.near = _neighbour_sets(view.width, view.height, view.topology)
        self.mines_left = view.mine_count - self.cells.count(FLAG)
        self.counts: dict[frozenset, int] = {}
        self._reach: np.ndarray | None = None

    def shape(self, a: tuple[int, ...], mirror: tuple[int, ...], most_ends: int) -> Shape | None:
        """The shape whose mines sit at `a` or at `mirror`, or None where it cannot become a 50/50:
        a cell of it not undecided, an open number that would tell the two ways apart, more
        undecided ends than `most_ends`, or more mines needed than are left."""
        cells = self.cells
        if any(cells[c] != HIDDEN for c in a) or any(cells[c] != HIDDEN for c in mirror):
            return None
        inside = set(a) | set(mirror)
        ends = []
        for o in set().union(*(self.near[c] for c in inside)) - inside:
            if cells[o] == FLAG:
                continue  # a mine: it shows nothing
            ns = self.near[o]
            if sum(c in ns for c in a) == sum(c in ns for c in mirror):
                continue  # it sees as many mines either way
            if cells[o] != HIDDEN:
                return None  # an open number that would tell the two ways apart
            ends.append(o)
            if len(ends) > most_ends:
                return None
        if len(ends) + len(a) > self.mines_left:
            return None
        return Shape(tuple(a), tuple(sorted(mirror)), tuple(sorted(ends)))

    def shapes_of(self, c: int) -> tuple[list[Shape], list[Shape], list[Shape]]:
        """The shapes cell c is in, as (pairs, boxes) with c among the mines, and the pairs it
        enables (c their one undecided end)."""
        row, nbr, cells = self.nbr[c], self.nbr, self.cells
        pairs, boxes, enables = [], [], []
        for side in (UP, LEFT, RIGHT, DOWN):
            if row[side] >= 0:
                s = self.shape((c,), (int(row[side]),), PAIR_ENDS)
                if s is not None:
                    pairs.append(s)
        for diag, s1, s2 in BOXES:
            if min(row[diag], row[s1], row[s2]) >= 0:
                s = self.shape((c, int(row[diag])), (int(row[s1]), int(row[s2])), BOX_ENDS)
                if s is not None:
                    boxes.append(s)
        near = self.near[c]
        seen = set()
        for n in near:  # a pair c enables: one cell beside c, the other not (c sees only one of them)
            if cells[n] != HIDDEN:
                continue
            for side in (UP, LEFT, RIGHT, DOWN):
                m = int(nbr[n][side])
                if m < 0 or m == c or m in near or cells[m] != HIDDEN or (n, m) in seen:
                    continue
                seen.add((n, m))
                s = self.shape((n,), (m,), ENABLER_ENDS)
                if s is not None and s.ends == (c,):
                    enables.append(s)
        return pairs, boxes, enables

    def layouts(self, s: Shape) -> int:
        """The layouts in which `s` holds its mines at `s.mines` with its other cells safe and its
        ends mines: by inclusion-exclusion over its other cells, each term the engine's exact count
        of the layouts with a set of cells put in as flags. Both ways of a shape hold in as many
        layouts (swapping them is a bijection no number notices), so one count serves both."""
        key = frozenset(s.mines + s.safe)
        if key in self.counts:
            return self.counts[key]
        total = 0
        for k in range(len(s.safe) + 1):
            for extra in combinations(s.safe, k):
                n = self.flagged_layouts(s.mines + s.ends + extra)
                if k == 0 and n == 0:
                    break
                total += -n if k % 2 else n
            else:
                continue
            break
        self.counts[key] = total
        return total

    def flagged_layouts(self, mines: tuple[int, ...]) -> int:
        """The layouts of the position with these cells mines (the engine's exact count)."""
        trial = self.base.copy()
        trial[list(mines)] = FLAG
        view = self.view
        try:
            return analyse(View(trial.reshape(view.cells.shape), view.mine_count, view.topology),
                           trust_flags=True).layouts
        except InconsistentPositionError:  # no layout has them all mines
            return 0

    def reach(self) -> np.ndarray:
        """Flat bool: the undecided cells some shape could count (a pair or box they are in, or a
        pair whose one undecided end they are, with no open cell among its ends), found at once over
        the board from the neighbour table's geometry; `of` counts them exactly (and may find less)."""
        b, nbr = self.base, self.nbr
        und = np.append(b == HIDDEN, False)  # index -1 (off a bounded grid): neither undecided nor open
        opn = np.append(b >= 0, False)
        out = np.zeros(b.size + 1, dtype=np.bool_)
        idx = np.arange(b.size)
        # (the other cell's slot, the slots of the first cell's ends, of the other's ends)
        for side, near, far in ((RIGHT, [0, 3, 5], [2, 4, 7]), (DOWN, [0, 1, 2], [5, 6, 7])):
            q = nbr[:, side]
            ends = np.concatenate([nbr[:, near], nbr[q][:, far]], axis=1)
            closed = und[idx] & und[q] & ~opn[ends].any(axis=1)
            left = und[ends].sum(axis=1)
            pair = closed & (left <= PAIR_ENDS)
            out[idx[pair]] = out[q[pair]] = True
            one = ends[closed & (left == ENABLER_ENDS)]
            out[one[und[one]]] = True
        tr, bl = nbr[:, RIGHT], nbr[:, DOWN]
        br = nbr[:, 7]
        box = np.stack([idx, tr, bl, br], axis=1)
        corners = np.stack([nbr[:, 0], nbr[tr, 2], nbr[bl, 5], nbr[br, 7]], axis=1)
        ok = und[box].all(axis=1) & ~opn[corners].any(axis=1) & (und[corners].sum(axis=1) <= BOX_ENDS)
        out[box[ok].reshape(-1)] = True
        return out[:-1]

    def of(self, c: int) -> int:
        """The layouts in which c is a mine that a 50/50 would cost anyway: the pairs it is in,
        added, the most of the boxes it is in, and the pairs it enables, added; at most the layouts
        where it is a mine, and at most those where it is safe."""
        if self._reach is None:
            self._reach = self.reach()
        if not self._reach[c]:
            return 0  # no shape can count it: not worth looking at each
        pairs, boxes, enables = self.shapes_of(c)
        got = sum(map(self.layouts, pairs)) + max(map(self.layouts, boxes), default=0) + sum(map(self.layouts, enables))
        if not got:
            return 0
        p = float(self.a.probability.reshape(-1)[c])
        total = self.a.layouts
        if got < total * min(p, 1.0 - p) * (1.0 - 1e-9):
            return got
        mine = self.flagged_layouts((c,))  # near the cap: count it exactly
        return min(got, mine, total - mine)


class InfluencePlayer(StrongPlayer):
    """`strong` with each look-ahead score raised by the guess's 50/50 influence: score x (1 +
    `fifty_influence` x the share of its safe layouts that the influence adds), and up to
    `influence_cells` cells outside the candidates that it lifts near them looked at too. At
    JSMinesweeper's weight (0.9) it measured no better than `strong` on expert (paired runs), so
    it stays out of the package."""

    name = "strong-influence"
    fifty_influence = 0.9
    influence_cells = 0

    def _candidates(self, view, a, base, p, undecided):
        cands = super()._candidates(view, a, base, p, undecided)
        self._shapes = Influence(view, a, base) if self.fifty_influence else None  # shapes counted once
        if self.influence_cells and self._shapes is not None:
            cands += self._influenced(a, self._shapes, cands, p, (1.0 - p.min()) * (1.0 - self.wide_near))
        return cands

    def _score(self, view, a, base, c, p, undecided, beat=None, looks=None):
        # no guess is cut short here: the influence can raise a score past its guess's safety
        score = super()._score(view, a, base, c, p, undecided, None, looks)
        if self.fifty_influence and score > 0:
            score *= self._influence_factor(a, self._shapes, c)
        return score

    def _influenced(self, a, shapes, cands, p, floor) -> list[int]:
        """Cells outside `cands` whose safety with their 50/50 influence counted (as in the score)
        reaches `floor`, the safest first, at most `influence_cells` of them."""
        more = np.flatnonzero(shapes.reach())
        more = more[np.argsort(p[more], kind="stable")]
        out = []
        for c in more.tolist():
            if c in cands or 1.0 - p[c] >= floor:
                continue  # (a cell as safe as that, left out, was left out as one of a kind)
            if (1.0 - p[c]) * self._influence_factor(a, shapes, c) >= floor:
                out.append(c)
                if len(out) == self.influence_cells:
                    break
        return out

    def _influence_factor(self, a, shapes, c) -> float:
        """1 + `fifty_influence` x (c's 50/50 influence / the layouts where c is safe): the
        layouts where c is a mine that a 50/50 would cost anyway, counted as partly safe."""
        try:
            i = shapes.of(c)
        except TooComplexError:
            return 1.0
        if not i:
            return 1.0
        q = float(a.probability.reshape(-1)[c])  # a ratio of counts: a float is exact enough for a score
        return 1.0 + self.fifty_influence * (i / a.layouts) / (1.0 - q)
