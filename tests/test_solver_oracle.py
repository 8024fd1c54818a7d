"""Probabilities against ms-toollib (an independent implementation) on expert positions from real
games; large positions that must not blow up; and the solver's blindness to the mines."""

from __future__ import annotations

import gc
import time

import ms_toollib
import numpy as np
import pytest

from sweeplab import Board, Game, View, make_rule
from sweeplab.solver import TooComplexError, analyse, deduce_rules, hint

from .counting_oracle import exact_analysis
from .solver_positions import play_positions, toollib_board

N_POSITIONS = 300  # the benchmark checks 1,000


def toollib_probability(view: View, trust_flags: bool) -> np.ndarray:
    board = toollib_board(view)
    if not trust_flags:  # our default: a flag is just a hidden cell
        board = [[10 if c == 11 else c for c in row] for row in board]
    p, _ = ms_toollib.cal_probability_onboard(board, float(view.mine_count))
    return np.array(p)


@pytest.fixture(scope="module")
def positions():
    return play_positions(N_POSITIONS, seed=7)


@pytest.mark.slow
def test_expert_positions_agree_with_ms_toollib(positions):
    worst = 0.0
    for v in positions:
        a = analyse(v)
        p = toollib_probability(v, False)
        unknown = v.cells < 0
        worst = max(worst, float(np.abs(p[unknown] - a.probability[unknown]).max()))
        # certain cells by counting agree with ms-toollib's 0 and 1 (to its float precision)
        assert not (a.safe & (p > 1e-9)).any() and not (a.mines & (p < 1 - 1e-9)).any()
    assert worst < 1e-9


@pytest.mark.slow
def test_flags_change_nothing_by_default():
    """A player's flags (here on real mines; brute force covers wrong ones) never steer the default analysis."""
    for v in play_positions(60, seed=8, flags=True):
        a = analyse(v)
        plain = View(np.where(v.cells == -2, -1, v.cells), v.mine_count)
        b = analyse(plain)
        assert np.array_equal(a.safe, b.safe) and np.array_equal(a.mines, b.mines) and a.layouts == b.layouts
        assert np.array_equal(a.probability, b.probability, equal_nan=True)
        q = toollib_probability(plain, False)
        assert np.abs(q[v.cells < 0] - a.probability[v.cells < 0]).max() < 1e-9


def test_rules_never_contradict_complete_deduction(positions):
    for v in positions[:150]:
        a = analyse(v)
        safe, mines = deduce_rules(v)
        assert not (safe & ~a.safe).any() and not (mines & ~a.mines).any()


def agrees_with_the_oracle(v, a):
    """The analysis `a` of v against the tests' Python-integer count: the same layouts, every cell
    decided exactly where its count is 0 or all, probabilities to 1e-12 (relative)."""
    layouts, mines, _ = exact_analysis(v)
    assert a.layouts == layouts
    for c, k in mines.items():
        y, x = divmod(c, v.width)
        assert a.safe[y, x] == (k == 0) and a.mines[y, x] == (k == layouts)
        assert a.probability[y, x] == pytest.approx(k / layouts, rel=1e-12, abs=1e-300)


def test_engine_and_python_integer_counts_agree_on_expert(positions):
    for v in positions[:40]:
        agrees_with_the_oracle(v, analyse(v))


def ring_view(width=30, height=16, mines=99, margin=2, seed=0) -> View:
    """Everything inside a margin opened, mines only in the margin: one long ring-shaped frontier."""
    rng = np.random.default_rng(seed)
    inner = np.zeros((height, width), dtype=bool)
    inner[margin:height - margin, margin:width - margin] = True
    outer = np.flatnonzero(~inner.reshape(-1))
    lay = np.zeros(width * height, dtype=bool)
    lay[rng.choice(outer, size=min(mines, len(outer) - 1), replace=False)] = True
    board = Board(lay.reshape(height, width))
    cells = np.where(inner, board.flat_numbers.reshape(height, width), -1).astype(np.int8)
    return View(cells, int(lay.sum()))


def ones_view(width=30, extra=5, seed=0) -> View:
    """A row of 1s between hidden ground (mines every third cell of the row below, a few
    further down): one long component whose three phases no local rule can tell apart."""
    rng = np.random.default_rng(seed)
    lay = np.zeros((5, width), dtype=bool)
    lay[2, 1::3] = True
    lay[4, rng.choice(width, size=extra, replace=False)] = True
    board = Board(lay)
    cells = np.full((5, width), -1, dtype=np.int8)
    cells[1, 1:-1] = board.flat_numbers.reshape(5, width)[1, 1:-1]
    return View(cells, int(lay.sum()))


@pytest.mark.slow
@pytest.mark.parametrize("make", [lambda: ring_view(margin=1, mines=60), lambda: ring_view(margin=2, mines=99),
                                  lambda: ring_view(margin=3, mines=150, seed=3), lambda: ones_view(30),
                                  lambda: ones_view(400), lambda: lattice_view(30, 9, 50), lambda: lattice_view(200, 3, 120)])
def test_large_components_finish_quickly(make):
    v = make()
    _ = analyse(v).layouts  # compile
    t = time.process_time()  # (CPU time: a loaded machine stretches the wall clock, not this)
    a = analyse(v)
    assert a.layouts > 0
    took = time.process_time() - t
    assert took < 2.0, took  # an exhaustive count of these components would take years
    if v.width <= 30 and v.height <= 5:  # ms-toollib takes seconds on the 30x9 tangle
        p = toollib_probability(v, False)
        u = v.cells < 0
        assert np.abs(p[u] - a.probability[u]).max() < 1e-9


def test_long_wall_of_ones_is_one_component():
    a = analyse(ones_view(400))
    assert a.components == 1 and a.layouts > 10 ** 50 and not a.decided.any()


def lattice_view(width=30, height=3, mines=40, seed=0) -> View:
    """Numbers on every other cell of every other row: a two-dimensional tangle of constraints."""
    rng = np.random.default_rng(seed)
    opened = np.zeros((height, width), dtype=bool)
    opened[1::2, ::2] = True
    free = np.flatnonzero(~opened.reshape(-1))
    lay = np.zeros(width * height, dtype=bool)
    lay[rng.choice(free, size=mines, replace=False)] = True
    board = Board(lay.reshape(height, width))
    return View(np.where(opened, board.flat_numbers.reshape(height, width), -1).astype(np.int8), mines)


def test_huge_counts_are_exact():
    """A component with more than 2**53 layouts: probabilities in floats, layouts exact (Chinese remainders)."""
    v = lattice_view(80, 3, 48)
    a = analyse(v)
    assert max(max(p) for p in a._polys) > 2 ** 53  # the fast path's floats are not exact here
    layouts, _, parts = exact_analysis(v)  # Python integers throughout
    assert parts == 1 and layouts > 2 ** 64
    agrees_with_the_oracle(v, a)


def test_two_dimensional_tangle_reports_its_bound_quickly():
    """Numbers packed densely over the whole expert board: a clear TooComplexError, not a hang
    (ms-toollib ran for over 9 minutes on this one without an answer)."""
    v = lattice_view(30, 16, 99)
    t = time.perf_counter()
    with pytest.raises(TooComplexError, match="table entries"):
        analyse(v)
    assert time.perf_counter() - t < 30


# --- the solver cannot see the mines ---------------------------------------------------------

def test_solvers_take_only_a_view():
    game = Game(rule=make_rule("opening", 9, 9, 10, 1))
    game.open(4, 4)
    for f in (analyse, deduce_rules, hint):
        with pytest.raises(TypeError, match="View"):
            f(game)
        with pytest.raises(TypeError, match="View"):
            f(game.board)


def test_view_holds_nothing_that_leads_to_the_mines():
    game = Game(rule=make_rule("opening", 30, 16, 99, 5))
    game.open(3, 3)
    view = game.view()
    assert not hasattr(view, "__dict__")
    seen, todo = set(), [view]
    while todo:  # everything reachable from the view: arrays of what is visible, ints, strings
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        assert not isinstance(obj, (Game, Board)), type(obj)
        if isinstance(obj, np.ndarray):
            base = obj.base
            assert base is None or (isinstance(base, np.ndarray) and not np.shares_memory(base, game.board.flat_mines))
            assert not np.shares_memory(obj, game.board.flat_mines)
            continue
        todo.extend(gc.get_referents(obj))
    hidden = view.cells < 0
    assert (view.cells[hidden] == -1).all() or (view.cells[hidden] <= -1).all()
