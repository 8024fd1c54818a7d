"""Complete deduction and probabilities against brute force over every layout (exact integers)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import Board, Game, View
from sweeplab.errors import InconsistentPositionError
from sweeplab.grid import neighbour_table
from sweeplab.solver import analyse
from sweeplab.solver.complete import analyse_trial

from .counting_oracle import exact_analysis


def brute_force(view: View, trust_flags: bool = False):
    """Every layout of the unknown cells that fits the numbers and the mine total: (layouts, mine counts)."""
    cells = view.cells.reshape(-1)
    nbr = neighbour_table(view.width, view.height, view.topology)
    unknown = (cells == -1) | ((cells == -2) & (not trust_flags))
    u = np.flatnonzero(unknown)
    bit = {int(c): k for k, c in enumerate(u)}
    masks = np.arange(1 << len(u), dtype=np.int64)
    mines = view.mine_count - (int(np.count_nonzero(cells == -2)) if trust_flags else 0)
    ok = np.bitwise_count(masks) == mines
    for i in np.flatnonzero(cells >= 0):
        cm = 0
        t = int(cells[i])
        for j in nbr[i]:
            if j < 0:
                continue
            if unknown[j]:
                cm |= 1 << bit[int(j)]
            elif cells[j] == -2:
                t -= 1
        ok &= np.bitwise_count(masks & cm) == t
    good = masks[ok]
    counts = {int(c): int(((good >> k) & 1).sum()) for k, c in enumerate(u)}
    return len(good), counts


@st.composite
def small_views(draw, max_unknown=16):
    w = draw(st.integers(2, 6))
    h = draw(st.integers(2, 5))
    topology = draw(st.sampled_from(["bounded", "torus"])) if min(w, h) >= 3 else "bounded"
    n = w * h
    m = draw(st.integers(1, max(1, n // 3)))
    mines = np.zeros(n, dtype=bool)
    mines[draw(st.permutations(range(n)))[:m]] = True
    board = Board(mines.reshape(h, w), topology)
    game = Game(board)
    safe = np.flatnonzero(~mines)
    for i in draw(st.lists(st.sampled_from(list(safe)), min_size=1, max_size=6)):
        if game.status == "playing" or game.status == "ready":
            game.open(int(i) % w, int(i) // w)
    if game.over:
        game = Game(board)
        game.open(int(safe[0]) % w, int(safe[0]) // w)
        if game.over:
            return None
    cells = game.view().cells.copy()
    hidden = np.flatnonzero(cells.reshape(-1) == -1)
    if len(hidden) > max_unknown:
        # open more safe cells until brute force stays small
        for i in hidden:
            if not mines[i] and np.count_nonzero(cells == -1) > max_unknown:
                cells.reshape(-1)[i] = board.flat_numbers[i]
        if np.count_nonzero(cells == -1) > max_unknown:
            return None
    # flags, right or wrong, on some hidden cells
    hidden = np.flatnonzero(cells.reshape(-1) == -1)
    for i in draw(st.lists(st.sampled_from(list(hidden)), max_size=3)) if len(hidden) else []:
        cells.reshape(-1)[i] = -2
    return View(cells, m, topology)


def check_against_brute(view, a, trust_flags=False):
    total, counts = brute_force(view, trust_flags)
    assert a.layouts == total
    for c, k in counts.items():
        y, x = divmod(c, view.width)
        assert a.safe[y, x] == (k == 0), (x, y)
        assert a.mines[y, x] == (k == total), (x, y)
        assert a.probability[y, x] == pytest.approx(float(Fraction(k, total)), abs=1e-12)
    assert np.isnan(a.probability[view.cells >= 0]).all()
    assert not (a.safe | a.mines)[view.cells >= 0].any()


@pytest.mark.slow
@settings(max_examples=300)
@given(small_views())
def test_matches_brute_force(view):
    if view is None:
        return
    a = analyse(view)
    check_against_brute(view, a)


@pytest.mark.slow
@settings(max_examples=120)
@given(small_views())
def test_the_python_integer_oracle_matches_brute_force(view):
    """The tests' second count (tests/counting_oracle.py: its own sweep over dicts, Python
    integers) agrees with brute force, so it can vouch for the engine where brute force cannot go."""
    if view is None:
        return
    total, counts = brute_force(view)
    layouts, mines, _ = exact_analysis(view)
    assert layouts == total
    if total:
        assert mines == counts


@pytest.mark.slow
@settings(max_examples=150)
@given(small_views())
def test_trusted_flags_match_brute_force(view):
    if view is None:
        return
    try:
        a = analyse(view, trust_flags=True)
    except InconsistentPositionError:
        assert brute_force(view, True)[0] == 0
        return
    check_against_brute(view, a, True)


@pytest.mark.slow
@settings(max_examples=150)
@given(small_views(), st.integers(-3, 3))
def test_wrong_mine_total_is_refused_or_counted(view, delta):
    """With another mine total the count still matches brute force, or the position is refused."""
    if view is None:
        return
    m = view.mine_count + delta
    if not 0 <= m <= view.size:
        return
    v2 = View(view.cells, m, view.topology)
    if brute_force(v2)[0] == 0:
        with pytest.raises(InconsistentPositionError):
            analyse(v2)
    else:
        check_against_brute(v2, analyse(v2))


def test_contradictory_numbers_raise():
    with pytest.raises(InconsistentPositionError, match="cannot be satisfied"):
        analyse(View.from_text("mines: 2\n4#\n##\n"))
    with pytest.raises(InconsistentPositionError, match="contradict"):
        analyse(View.from_text("mines: 1\n0#1\n1##\n"))  # the 0 and the lower 1 disagree
    with pytest.raises(InconsistentPositionError, match="no layout fits"):
        analyse(View.from_text("mines: 0\n1#\n##\n"))  # the 1 needs a mine, the total has none


def same_analysis(a, b):
    assert np.array_equal(a.safe, b.safe) and np.array_equal(a.mines, b.mines)
    assert np.array_equal(a.probability, b.probability, equal_nan=True)
    assert a.layouts == b.layouts and a.mine_range == b.mine_range


@settings(max_examples=60)
@given(small_views(), st.integers(0, 8))
def test_a_trial_on_flat_cells_is_the_analysis_of_its_view(view, number):
    """analyse_trial (the look-ahead's trials: no View built) gives what analyse gives, flags
    trusted, for the View of the same cells, or refuses the same positions."""
    if view is None:
        return
    hidden = np.flatnonzero(view.cells.reshape(-1) == -1)
    if not hidden.size:
        return
    trial = view.cells.reshape(-1).copy()
    trial[hidden[0]] = number
    try:
        want = analyse(View(trial.reshape(view.cells.shape), view.mine_count, view.topology), trust_flags=True)
    except InconsistentPositionError:
        with pytest.raises(InconsistentPositionError):
            analyse_trial(view, trial)
        return
    same_analysis(analyse_trial(view, trial), want)


def test_a_trial_past_2_53_layouts_counts_exactly():
    """A trial whose component passes 2**53 layouts: its exact count needs the View, built late."""
    rng = np.random.default_rng(0)
    opened = np.zeros((3, 80), dtype=bool)
    opened[1::2, ::2] = True  # numbers on every other cell of every other row: one wide tangle
    lay = np.zeros(240, dtype=bool)
    lay[rng.choice(np.flatnonzero(~opened.reshape(-1)), size=48, replace=False)] = True
    board = Board(lay.reshape(3, 80))
    view = View(np.where(opened, board.flat_numbers.reshape(3, 80), -1).astype(np.int8), 48)
    trial = view.cells.reshape(-1).copy()
    end = int(np.flatnonzero(~lay[:80])[-1])  # the top row's last safe cell shows its number
    trial[end] = board.flat_numbers[end]
    got = analyse_trial(view, trial)
    assert got.layouts > 2 ** 64 and max(max(p) for p in got._polys) > 2 ** 53
    same_analysis(got, analyse(View(trial.reshape(3, 80), 48), trust_flags=True))
