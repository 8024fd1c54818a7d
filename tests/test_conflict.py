"""A position read without its mine total, and a contradiction's minimal core, checked against every
layout of the unknown cells on small boards (bounded and torus, flags trusted or not)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sweeplab import View
from sweeplab.errors import InconsistentPositionError, TooComplexError
from sweeplab.grid import neighbour_table
from sweeplab.solver import analyse_without_total, conflict_core
from sweeplab.view import FLAG, HIDDEN


def every_layout(cells: np.ndarray, topology: str, trust_flags: bool) -> list[tuple[int, int]]:
    """(mines of the whole board, bit mask of the unknown cells that are mines) for every layout of
    the unknown cells that fits the numbers; trusted flags are mines, counted in the total."""
    h, w = cells.shape
    flat = cells.reshape(-1)
    nbr = neighbour_table(w, h, topology)
    mine_ok = (flat == HIDDEN) | ((flat == FLAG) & (not trust_flags))
    unknown = [int(i) for i in np.flatnonzero(mine_ok)]
    flags = int((flat == FLAG).sum()) if trust_flags else 0
    numbers = [(int(i), int(flat[i]), [int(j) for j in set(nbr[i]) if j >= 0]) for i in np.flatnonzero(flat >= 0)]
    out = []
    for bits in range(1 << len(unknown)):
        mine = {c for k, c in enumerate(unknown) if bits >> k & 1}
        if all(sum(1 for j in around if j in mine or (trust_flags and flat[j] == FLAG)) == k
               for _, k, around in numbers):
            out.append((flags + len(mine), sum(1 << c for c in mine)))
    return out


@st.composite
def small_views(draw, max_unknown=12):
    topology = draw(st.sampled_from(["bounded", "bounded", "torus"]))
    low = 3 if topology == "torus" else 1
    w, h = draw(st.integers(low, 4)), draw(st.integers(low, 4))
    cells = draw(st.lists(st.sampled_from([HIDDEN] * 3 + [FLAG, 0, 1, 1, 2, 3, 4]), min_size=w * h, max_size=w * h))
    cells = np.array(cells, dtype=np.int8).reshape(h, w)
    if (cells < 0).sum() > max_unknown:
        cells[cells < 0] = 1
    return View(cells, draw(st.integers(0, w * h)), topology)


@settings(max_examples=300, deadline=None)
@given(small_views(), st.booleans())
def test_without_a_total_the_cells_and_totals_are_those_of_every_layout(view, trust_flags):
    layouts = every_layout(view.cells, view.topology, trust_flags)
    if not layouts:
        with pytest.raises(InconsistentPositionError):
            analyse_without_total(view, trust_flags=trust_flags)
        return
    a = analyse_without_total(view, trust_flags=trust_flags)
    totals = {m for m, _ in layouts}
    assert (a.low, a.high) == (min(totals), max(totals))
    assert [a.fits(m) for m in range(-1, view.size + 2)] == [m in totals for m in range(-1, view.size + 2)]
    w = view.width
    flat = view.cells.reshape(-1)
    unknown = (flat == HIDDEN) | ((flat == FLAG) & (not trust_flags))
    for i in range(flat.size):
        mine_in = [bool(mask >> i & 1) for _, mask in layouts]
        x, y = i % w, i // w
        assert bool(a.safe[y, x]) == (bool(unknown[i]) and not any(mine_in))
        assert bool(a.mines[y, x]) == (bool(unknown[i]) and all(mine_in))


def test_a_total_in_a_gap_between_the_lowest_and_highest_does_not_fit():
    # every unknown cell is beside a number and the numbers allow 5 or 7 mines, never 6
    view = View.from_text("mines: 0\n#21#\n#4#1\n##31\n3###\n")
    totals = {m for m, _ in every_layout(view.cells, "bounded", False)}
    assert totals == {5, 7}
    a = analyse_without_total(view)
    assert (a.low, a.high) == (5, 7) and a.fits(5) and not a.fits(6) and a.fits(7)


def test_past_the_exact_count_s_bound_a_position_without_total_says_so():
    from .test_analyse_api import lattice

    view = lattice(20, 1).view()
    with pytest.raises(TooComplexError, match="counting-table entries"):
        analyse_without_total(view)
    with pytest.raises(TooComplexError, match="counting-table entries"):
        conflict_core(view)


def holds(cells: np.ndarray, topology: str, trust_flags: bool, keep: set[int]) -> bool:
    """Whether some layout fits the numbers at `keep`, every other open cell unopened."""
    flat = cells.reshape(-1).copy()
    flat[[i for i in np.flatnonzero(flat >= 0) if i not in keep]] = HIDDEN
    return bool(every_layout(flat.reshape(cells.shape), topology, trust_flags))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(small_views(), st.booleans())
# the 0s on the right touch no unopened cell, yet the core needs one of them: unopened, it could be
# the 1's mine
@example(View(np.array([[-1, 0, 0], [0, 1, 0]], dtype=np.int8), 0), False)
def test_a_core_cannot_hold_and_needs_each_of_its_numbers(view, trust_flags):
    core = conflict_core(view, trust_flags=trust_flags)
    w = view.width
    opened = {int(i) for i in np.flatnonzero(view.cells.reshape(-1) >= 0)}
    if holds(view.cells, view.topology, trust_flags, opened):
        assert core == []
        return
    named = {y * w + x for x, y in core}
    assert core == sorted(core, key=lambda c: (c[1], c[0])) and named <= opened
    assert not holds(view.cells, view.topology, trust_flags, named)
    assert all(holds(view.cells, view.topology, trust_flags, named - {i}) for i in named)


def holds_by_search(view: View, trust_flags: bool, keep: set[int]) -> bool:
    """Whether some layout fits the numbers at `keep`, every other open cell unopened: a plain search
    over the unknown cells beside them, each number checked as its cells are set
    (for boards too big to list every layout). A dead end is remembered by what the rest of the
    search can see of it: the cell reached and what the numbers still open on both sides of it need,
    so a contradiction far along is met once, not once for every layout before it."""
    flat = view.cells.reshape(-1)
    nbr = neighbour_table(view.width, view.height, view.topology)
    numbers = {}
    for i in keep:
        around = {int(j) for j in nbr[i] if j >= 0}
        mines = sum(1 for j in around if trust_flags and flat[j] == FLAG)
        numbers[i] = (int(flat[i]) - mines, [j for j in around if j not in keep and not (trust_flags and flat[j] == FLAG)])
    of: dict[int, list[int]] = {}
    for i, (_, around) in numbers.items():
        for j in around:
            of.setdefault(j, []).append(i)
    # each next cell the one that most continues the numbers begun, so few are open at a time (on a
    # torus a reading order would keep the numbers of the first and last rows open throughout)
    cells, begun, unplaced = [], set(), set(of)
    while unplaced:
        j = max(sorted(unplaced), key=lambda c: sum(i in begun for i in of[c]))
        cells.append(j)
        unplaced.remove(j)
        begun.update(of[j])
    need = {i: t for i, (t, _) in numbers.items()}
    left = {i: len(around) for i, (_, around) in numbers.items()}
    if any(t < 0 or t > left[i] for i, t in need.items()):
        return False
    place = {j: k for k, j in enumerate(cells)}
    span = {i: (min(place[j] for j in around), max(place[j] for j in around))
            for i, (_, around) in numbers.items() if around}
    # the numbers set in part before cell k: all that the cells from k on can still meet
    open_at = [tuple(i for i, (a, b) in span.items() if a < k <= b) for k in range(len(cells))]
    dead: set[tuple] = set()

    def search(k: int) -> bool:
        if k == len(cells):
            return True
        state = (k, tuple(need[i] for i in open_at[k]))
        if state in dead:
            return False
        for mine in (1, 0):
            touched = of[cells[k]]
            for i in touched:
                need[i] -= mine
                left[i] -= 1
            if all(0 <= need[i] <= left[i] for i in touched) and search(k + 1):
                return True
            for i in touched:
                need[i] += mine
                left[i] += 1
        dead.add(state)
        return False

    return search(0)


def one_wrong_number(width: int, height: int, topology: str, density: float, seed: int) -> tuple[View, int]:
    """A seeded board with about 60% of its safe cells open and a few of its mines flagged, one open
    number then made one more or one less than it is."""
    rng = np.random.default_rng(seed)
    n = width * height
    mine = rng.random(n) < density
    nbr = neighbour_table(width, height, topology)
    number = np.array([mine[list({int(j) for j in row if j >= 0})].sum() for row in nbr])
    cells = np.where(~mine & (rng.random(n) < 0.6), number, HIDDEN)
    cells[mine & (rng.random(n) < 0.2)] = FLAG
    opened = np.flatnonzero(cells >= 0)
    wrong = int(rng.choice(opened))
    cells[wrong] += 1 if cells[wrong] == 0 or (cells[wrong] < 8 and rng.random() < 0.5) else -1
    return View(cells.astype(np.int8).reshape(height, width), 0, topology), wrong


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["bounded", "bounded", "torus"]), st.integers(9, 30), st.integers(9, 30),
       st.floats(0.1, 0.3), st.booleans(), st.integers(0, 2**32 - 1))
@example("torus", 30, 30, 0.234375, False, 30)  # every window round the wrong number too tangled to count
def test_one_wrong_number_is_in_a_core_that_cannot_hold_and_needs_each_of_its_numbers(
        topology, width, height, density, trust_flags, seed):
    view, wrong = one_wrong_number(width, height, topology, density, seed)
    try:
        core = conflict_core(view, trust_flags=trust_flags)
    except TooComplexError as e:  # the bounded answer for a position past the counting budget
        assert "counting-table entries" in str(e)
        return
    if not core:  # (a number made one less can still fit; a search over the whole board would be long)
        analyse_without_total(view, trust_flags=trust_flags)
        return
    named = {y * width + x for x, y in core}
    assert wrong in named  # without it, the numbers are the board's own, which its mines fit
    assert not holds_by_search(view, trust_flags, named)
    assert all(holds_by_search(view, trust_flags, named - {i}) for i in named)


def test_one_wrong_number_on_a_large_board_is_found_in_a_core_near_it():
    view, wrong = one_wrong_number(100, 100, "bounded", 0.2, 7)
    with pytest.raises(InconsistentPositionError):
        analyse_without_total(view)
    core = conflict_core(view)
    named = {y * 100 + x for x, y in core}
    assert wrong in named
    assert not holds_by_search(view, False, named) and all(holds_by_search(view, False, named - {i}) for i in named)
    assert max(abs(x - wrong % 100) + abs(y - wrong // 100) for x, y in core) <= 16
