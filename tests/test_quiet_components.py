"""The engine's rounds that skip what did not change: a component that a round swept to no avail
and that has not changed since is not swept again, and nothing a play decides differs for it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import grid
from sweeplab._numba_cache import njit
from sweeplab.generators.certify import (
    DEFAULT_LEAF_BUDGET,
    SOLVED,
    keep,
    position,
    start,
    try_move,
    undo,
    workspace,
)
from sweeplab.kernels import count_numbers
from sweeplab.solver import analyse
from sweeplab.solver.deduction import WHY_TOTAL
from sweeplab.solver.frontier import constraints, view_position
from sweeplab.solver.playthrough import complete_step, mark_quiet, quiet
from sweeplab.solver.state import (
    EV_A,
    EV_B,
    EV_CELL,
    EV_WHY,
    EVENTS,
    HMASK,
    MINE_OUT,
    ROUNDS,
    SAFE_OUT,
    SKIPPED,
    ST,
    new_play,
    reuse_quiet,
    scratch_for,
)
from sweeplab.view import FLAG, HIDDEN, View


def random_board(w, h, density, rng):
    """Mines laid uniformly away from a random click's block; (mines, click)."""
    n = w * h
    click = int(rng.integers(n))
    free = np.flatnonzero(~grid.block_mask(w, h, click % w, click // w, "bounded").reshape(-1))
    mines = np.zeros(n, dtype=np.bool_)
    mines[rng.choice(free, size=min(len(free), max(1, int(density * n))), replace=False)] = True
    return mines, click


def log_of(play):
    """What a play's log says: each event's cell, reason and numbers, and every cell's state."""
    pi, pb, meta = play
    ev = int(meta[EVENTS])
    return (pi[EV_CELL, :ev].tolist(), pb[EV_WHY, :ev].tolist(), pi[EV_A, :ev].tolist(), pi[EV_B, :ev].tolist(),
            pb[ST].tolist(), meta.tolist())


def chain(mines, click, w, h, moves, seed, reuse):
    """A fresh play of the board, then `moves` mine moves certified from the last play's log (kept
    when certified, else undone): every play's verdict and log, and how many sweeps were skipped."""
    nbr = grid.neighbour_table(w, h)
    room = workspace(w, h)
    reuse_quiet(room[2], reuse)
    p = position(mines.copy(), nbr, click, DEFAULT_LEAF_BUDGET, room)
    out = [(int(start(p)), log_of(p.play))]
    rng = np.random.default_rng(seed)
    block = grid.block_mask(w, h, click % w, click // w, "bounded").reshape(-1)
    for _ in range(moves):
        src = int(rng.choice(np.flatnonzero(p.mines)))
        dst = int(rng.choice(np.flatnonzero(~p.mines & ~block)))
        verdict = int(try_move(p, src, dst))
        out.append((verdict, log_of(p.spare)))
        if verdict == SOLVED:
            p = keep(p)
        else:
            undo(p, src, dst)
    return out, int(room[2][0][ROUNDS, SKIPPED])


@given(w=st.integers(5, 10), h=st.integers(5, 10), density=st.floats(0.1, 0.3), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_a_play_skipping_quiet_components_logs_what_a_play_sweeping_every_one_logs(w, h, density, seed):
    mines, click = random_board(w, h, density, np.random.default_rng(seed))
    reused, _ = chain(mines, click, w, h, 6, seed, True)
    swept, skipped = chain(mines, click, w, h, 6, seed, False)
    assert reused == swept
    assert skipped == 0


def test_plays_on_dense_boards_do_skip_quiet_components():
    """(So that the test above compares something: such boards skip sweeps, and log the same.)"""
    rng = np.random.default_rng(7)
    skipped = 0
    for _ in range(12):
        mines, click = random_board(12, 10, 0.22, rng)
        reused, n = chain(mines, click, 12, 10, 8, 3, True)
        assert reused == chain(mines, click, 12, 10, 8, 3, False)[0]
        skipped += n
    assert skipped > 0


def constraint_sets(cs, pi):
    """Each component's constraints as a set of (number's cell, its hidden neighbours, mines it
    still needs)."""
    return [frozenset((int(cs.con_cell[c]), int(pi[HMASK, cs.con_cell[c]]), int(cs.need[c]))
                      for c in cs.clist[cs.cstart[k]:cs.cstart[k + 1]])
            for k in range(len(cs.comp_start) - 1)]


def position_of(mines, numbers, opened, flagged, nbr):
    """The engine's position of a board with the cells `opened` showing their numbers and the
    mines `flagged` known."""
    cells = np.where(opened, numbers, np.where(flagged, FLAG, HIDDEN)).astype(np.int8)
    pi, pb, _ = new_play(len(cells))
    status, _, _ = view_position(cells, nbr, True, pi, pb, np.empty(0, dtype=np.int8))
    assert status == 0
    return cells, pi, pb


@given(w=st.integers(4, 9), h=st.integers(4, 9), density=st.floats(0.1, 0.35), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_a_component_found_quiet_has_the_constraints_of_one_marked_quiet(w, h, density, seed):
    """Mark every component of a position quiet, open and flag more cells (a newly opened number
    may join an old component through a hidden cell without touching its numbers), and a component
    is found quiet exactly when its constraints are those of a component marked."""
    rng = np.random.default_rng(seed)
    mines, _ = random_board(w, h, density, rng)
    nbr = grid.neighbour_table(w, h)
    numbers = count_numbers(mines, nbr)
    opened = ~mines & (rng.random(w * h) < 0.4)
    flagged = mines & (rng.random(w * h) < 0.2)
    si = scratch_for(w, h)[0]
    cells, pi, pb = position_of(mines, numbers, opened, flagged, nbr)
    before = constraints(cells, nbr, pi, pb)
    for k in range(len(before.comp_start) - 1):
        mark_quiet(before, k, pi, si)
    marked = set(constraint_sets(before, pi))
    opened |= ~mines & (rng.random(w * h) < 0.15)
    flagged |= mines & (rng.random(w * h) < 0.15)
    cells, pi, pb = position_of(mines, numbers, opened, flagged, nbr)
    after = constraints(cells, nbr, pi, pb)
    for k, cons in enumerate(constraint_sets(after, pi)):
        assert bool(quiet(after, k, pi, si)) == (cons in marked)


@njit
def _round(numbers, nbr, pi, pb, si, sb, mines_left):
    return complete_step(numbers, nbr, pi, pb, si, sb, mines_left, DEFAULT_LEAF_BUDGET)


def total_round_starts(mines, click, w, h):
    """The positions (opened, flagged) at which a play of the board starts a round that decides
    cells with the mine total: what its log had decided before that round's first event."""
    room = workspace(w, h)
    p = position(mines.copy(), grid.neighbour_table(w, h), click, DEFAULT_LEAF_BUDGET, room)
    start(p)
    pi, pb, meta = p.play
    ev = int(meta[EVENTS])
    cells, why = pi[EV_CELL, :ev], pb[EV_WHY, :ev]
    out = []
    for e in range(ev):
        if why[e] == WHY_TOTAL and (e == 0 or why[e - 1] != WHY_TOTAL):
            known = np.zeros(w * h, dtype=np.bool_)
            known[cells[:e]] = True
            out.append((known & ~mines, known & mines))
    return out


def check_round(mines, shown, flagged, w, h):
    """One round on the position against `analyse`: a round under the total decides every hidden
    cell analyse finds certain, one without it only such cells, one deciding nothing none. Whether
    the round used the total."""
    nbr = grid.neighbour_table(w, h)
    numbers = count_numbers(mines, nbr)
    cells, pi, pb = position_of(mines, numbers, shown, flagged, nbr)
    si, sb, _ = scratch_for(w, h)
    got, status, used = _round(numbers, nbr, pi, pb, si, sb, int(mines.sum() - flagged.sum()))
    a = analyse(View(cells.reshape(h, w), int(mines.sum())), trust_flags=True)
    unknown = cells == HIDDEN
    sure_safe = a.safe.reshape(-1) & unknown
    sure_mine = a.mines.reshape(-1) & unknown
    assert status == SOLVED
    safe, mine = sb[SAFE_OUT], sb[MINE_OUT]
    assert got == int(safe.sum() + mine.sum())
    if used:
        assert (safe == sure_safe).all() and (mine == sure_mine).all()
    elif got == 0:  # (the total, the round found, could not help)
        assert not sure_safe.any() and not sure_mine.any()
    else:
        assert not (safe & ~sure_safe).any() and not (mine & ~sure_mine).any()
    return bool(used)


@given(w=st.integers(5, 9), h=st.integers(5, 9), density=st.floats(0.15, 0.3), known=st.floats(0.85, 0.97),
       seed=st.integers(0, 2**32 - 1))
@settings(max_examples=150, deadline=None)
def test_a_round_under_the_mine_total_decides_every_cell_the_complete_analysis_finds(w, h, density, known, seed):
    """A round that comes to the mine total sweeps back only the components whose mine counts the
    total narrows; at each position where a play of a random board starts such a round, and where
    a share `known` of the cells is open or flagged (the total is often needed then), it decides
    what `analyse` (which sweeps every component back) finds certain (`check_round`)."""
    rng = np.random.default_rng(seed)
    mines, click = random_board(w, h, density, rng)
    for shown, flagged in total_round_starts(mines, click, w, h):
        assert check_round(mines, shown, flagged, w, h)
    seen = rng.random(w * h) < known
    check_round(mines, ~mines & seen, mines & seen, w, h)


def test_rounds_on_nearly_open_boards_do_come_to_the_mine_total():
    """(So that the test above compares something: plays of random boards and nearly open
    positions do start rounds under the total.)"""
    rng = np.random.default_rng(11)
    starts = under_total = 0
    for _ in range(100):
        mines, click = random_board(7, 7, 0.25, rng)
        starts += len(total_round_starts(mines, click, 7, 7))
        seen = rng.random(49) < 0.95
        under_total += check_round(mines, ~mines & seen, mines & seen, 7, 7)
    assert starts > 0 and under_total > 0
