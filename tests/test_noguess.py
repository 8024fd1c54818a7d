"""No-guess boards: the certifier against brute force, the project solver and ms-toollib; the generator's promises."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import grid
from sweeplab import kernels as K
from sweeplab.board import Board
from sweeplab.errors import GenerationError, InvalidBoardError
from sweeplab.game import Game
from sweeplab.generators import lookup, make
from sweeplab.generators.certify import (
    EVENTS,
    SOLVED,
    ST,
    certify,
    move_mine,
    new_play,
    new_scratch,
    play_fresh,
    play_moved,
    set_mine,
)
from sweeplab.generators.noguess import (
    AUTO_REJECTION_TRIES,
    INNER_WEIGHT,
    LADDER_BASE_DENSITY,
    LADDER_SHAPES,
    default_steps,
    generate,
)
from sweeplab.generators.uniform import uniform_board
from sweeplab.view import View

# --- independent oracles ---------------------------------------------------------------------

_LAYOUTS: dict = {}


def _all_layouts(n, m):
    if (n, m) not in _LAYOUTS:
        combos = np.array(list(itertools.combinations(range(n), m)), dtype=np.int64)
        layouts = np.zeros((len(combos), n), dtype=bool)
        layouts[np.arange(len(combos))[:, None], combos] = True
        _LAYOUTS[(n, m)] = layouts
    return _LAYOUTS[(n, m)]


def brute_force_no_guess(board: Board, x: int, y: int) -> bool:
    """The definition, by enumerating every layout with the board's mine total: open every cell
    that is safe in all layouts consistent with what is open, until stuck or done."""
    w, h, n = board.width, board.height, board.size
    layouts = _all_layouts(n, board.mine_count)
    nbr = grid.neighbour_table(w, h, board.topology).copy()
    nbr[nbr < 0] = n
    padded = np.concatenate([layouts, np.zeros((len(layouts), 1), dtype=bool)], axis=1)
    numbers = padded[:, nbr].sum(axis=2)
    truth = board.flat_numbers
    opened = np.zeros(n, dtype=bool)

    def flood(i):
        stack = [i]
        while stack:
            c = stack.pop()
            if opened[c]:
                continue
            opened[c] = True
            if truth[c] == 0:
                stack.extend(j for j in nbr[c] if j < n and not opened[j])

    flood(y * w + x)
    while opened.sum() < n - board.mine_count:
        fits = ~layouts[:, opened].any(axis=1) & (numbers[:, opened] == truth[opened]).all(axis=1)
        safe = ~layouts[fits].any(axis=0) & ~opened
        if not safe.any():
            return False
        for i in np.flatnonzero(safe):
            flood(i)
    return True


def play_with_project_solver(board: Board, x: int, y: int) -> bool:
    """Certify with sweeplab.solver.analyse (the project's complete solver, written apart from the
    generator): open every safe cell and flag every mine it finds, from what a View shows."""
    from sweeplab.solver import analyse

    n = board.size
    nbr = board.neighbours
    numbers, mines = board.flat_numbers, board.flat_mines
    state = np.zeros(n, dtype=np.int8)
    queue = np.empty(n, dtype=np.int32)
    K.flood_open(state, numbers, nbr, y * board.width + x, queue)
    while np.count_nonzero(state == K.OPEN_STATE) < n - board.mine_count:
        cells = np.full(n, -1, dtype=np.int8)
        cells[state == K.OPEN_STATE] = numbers[state == K.OPEN_STATE]
        cells[state == K.FLAG_STATE] = -2
        a = analyse(View(cells.reshape(board.height, board.width), board.mine_count), trust_flags=True)
        hidden = state == K.HIDDEN_STATE
        safe = a.safe.reshape(-1) & hidden
        sure = a.mines.reshape(-1) & hidden
        if not safe.any() and not sure.any():
            return False
        assert not (safe & mines).any() and (mines[sure]).all(), "the project solver decided a cell wrongly"
        state[sure] = K.FLAG_STATE
        for i in np.flatnonzero(safe):
            K.flood_open(state, numbers, nbr, int(i), queue)
    return True


def _ms_toollib_board(board: Board) -> list:
    cells = board.numbers.astype(int)
    cells[board.mines] = -1
    return cells.tolist()


# --- the certifier ---------------------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=120)
@given(size=st.sampled_from([(5, 4, 5), (4, 4, 4), (5, 5, 6), (6, 3, 5)]), seed=st.integers(0, 2**32),
       cx=st.integers(0, 5), cy=st.integers(0, 4))
def test_certifier_matches_brute_force_on_every_layout_it_is_shown(size, seed, cx, cy):
    w, h, m = size
    x, y = cx % w, cy % h
    exclude = np.zeros(w * h, dtype=bool)
    exclude[y * w + x] = True  # only the click is kept free, so some clicks open no zero at once
    board = uniform_board(w, h, m, seed, exclude=exclude)
    assert certify(board, x, y)[0] == brute_force_no_guess(board, x, y)


@pytest.mark.slow
@settings(max_examples=40)
@given(size=st.sampled_from([(5, 5, 4), (6, 5, 5), (5, 6, 4)]), seed=st.integers(0, 2**32),
       cx=st.integers(0, 5), cy=st.integers(0, 5))
def test_certifier_matches_brute_force_on_a_torus(size, seed, cx, cy):
    # 5 wide and tall is the smallest torus on which the pair rule runs (its frames would alias below)
    w, h, m = size
    x, y = cx % w, cy % h
    exclude = np.zeros(w * h, dtype=bool)
    exclude[y * w + x] = True
    board = uniform_board(w, h, m, seed, topology="torus", exclude=exclude)
    assert certify(board, x, y)[0] == brute_force_no_guess(board, x, y)


def brute_force_without_total(board: Board, x: int, y: int) -> bool:
    """As brute_force_no_guess, but a player who ignores the mine total: layouts of any count."""
    n = board.size
    layouts = np.array(list(itertools.product((False, True), repeat=n)), dtype=bool)
    saved = _LAYOUTS.copy()
    try:
        _LAYOUTS[(n, board.mine_count)] = layouts
        return brute_force_no_guess(board, x, y)
    finally:
        _LAYOUTS.clear()
        _LAYOUTS.update(saved)


@pytest.mark.slow
@settings(max_examples=60)
@given(size=st.sampled_from([(4, 4, 4), (5, 3, 4), (4, 4, 6), (4, 3, 3)]), seed=st.integers(0, 2**32),
       cx=st.integers(0, 4), cy=st.integers(0, 3))
def test_needs_the_total_flag_matches_brute_force_without_the_total(size, seed, cx, cy):
    w, h, m = size
    x, y = cx % w, cy % h
    board = uniform_board(w, h, m, seed, exclude=grid.block_mask(w, h, x, y))
    ok, needed = certify(board, x, y)
    if ok:
        assert needed == (not brute_force_without_total(board, x, y))


def test_a_board_that_needs_the_total():
    # From (0, 0) the numbers leave the bottom-right 2x2 open to doubt; the total (5 mines, all
    # found elsewhere) says it is safe.
    b = Board("..*.\n..**\n.*..\n.*..\n")
    assert certify(b, 0, 0) == (True, True)
    assert brute_force_no_guess(b, 0, 0) and not brute_force_without_total(b, 0, 0)


def test_certifier_share_needing_the_total_matches_the_spec_and_ms_toollib():
    """ms-toollib's is_solvable works without the mine total: on random expert boards it must say
    yes exactly where we certify without needing the total."""
    import ms_toollib as ms
    seen = {True: 0, False: 0}
    for s in range(150):
        b = uniform_board(30, 16, 99, s, exclude=grid.block_mask(30, 16, 15, 8))
        ok, needed = certify(b, 15, 8)
        theirs = bool(ms.is_solvable(_ms_toollib_board(b), 8, 15))
        assert theirs == (ok and not needed), f"seed {s}: ours {ok, needed}, ms-toollib {theirs}"
        if ok:
            seen[needed] += 1
    assert seen[True] >= 1 and seen[False] >= 1  # both kinds occurred, so both branches were compared


def test_certifier_agrees_with_the_project_solver_on_random_boards():
    for m, seeds in ((99, range(15)), (60, range(5)), (130, range(5))):
        for s in seeds:
            b = uniform_board(30, 16, m, s, exclude=grid.block_mask(30, 16, 15, 8))
            assert certify(b, 15, 8)[0] == play_with_project_solver(b, 15, 8), (m, s)


@pytest.mark.slow
def test_certifier_agrees_with_the_project_solver_after_moves_on_dense_boards():
    """Dense certified boards with a mine moved are where the frontier gets long (searched for
    witnesses rather than enumerated) and where the total is needed mid-game."""
    rng = np.random.default_rng(8)
    free = ~grid.block_mask(30, 16, 15, 8)
    verdicts = []
    for m in (130, 170):
        for s in range(10):
            mines = generate(30, 16, m, 15, 8, s, steps=0).board.flat_mines.copy()
            a = int(rng.choice(np.flatnonzero(mines)))
            b = int(rng.choice(np.flatnonzero(~mines & free)))
            mines[a], mines[b] = False, True
            board = Board._from_flat(30, 16, mines, "bounded")
            ours = certify(board, 15, 8)[0]
            assert ours == play_with_project_solver(board, 15, 8), (m, s)
            verdicts.append(ours)
    assert any(verdicts) and not all(verdicts)


@pytest.mark.slow
def test_a_moved_mine_replayed_from_the_old_log_gets_a_fresh_plays_verdict():
    """`play_moved` keeps the old play's deductions whose reasons still hold; the verdict must be a
    fresh play's, for accepted and rejected moves, chained one after another as the generator does."""
    w, h = 30, 16
    n = w * h
    nbr = grid.neighbour_table(w, h)
    click = 8 * w + 15
    free_cells = ~grid.block_mask(w, h, 15, 8)
    rng = np.random.default_rng(5)
    scratch, fresh_scratch = new_scratch(nbr), new_scratch(nbr)
    verdicts = set()
    for m in (99, 130, 170):
        mines = generate(w, h, m, 15, 8, 11, steps=0).board.flat_mines.copy()
        numbers = K.count_numbers(mines, nbr)
        cur, nxt = new_play(n), new_play(n)
        assert play_fresh(mines, numbers, nbr, click, 200_000, *cur, *scratch) == SOLVED
        for step in range(80):
            b = int(rng.choice(np.flatnonzero(~mines & free_cells)))
            if step % 4 == 0:  # a mine added, as the ladder does
                a = -1
                set_mine(mines, numbers, nbr, b, True)
            else:
                a = int(rng.choice(np.flatnonzero(mines)))
                move_mine(mines, numbers, nbr, a, b)
            assert (numbers == K.count_numbers(mines, nbr)).all()
            moved = play_moved(mines, numbers, nbr, click, 200_000, *cur, *nxt, *scratch, a, b)
            fresh = play_fresh(mines, K.count_numbers(mines, nbr), nbr, click, 200_000, *new_play(n), *fresh_scratch)
            assert moved == fresh
            verdicts.add((moved, a < 0))
            if moved == SOLVED:  # go on from the new board, as the chain does
                cur, nxt = nxt, cur
            elif a < 0:
                set_mine(mines, numbers, nbr, b, False)
            else:
                move_mine(mines, numbers, nbr, b, a)
    # accepted and rejected moves and adds were all checked
    assert verdicts == {(SOLVED, False), (1, False), (SOLVED, True), (1, True)}


def _log_holds(mines, numbers, nbr, pi, pb, events):
    """Each single-number and pair event of a play log, checked in its position by counting
    (written apart from the certifier): the reason's numbers must decide the cell as logged."""
    from sweeplab.generators.certify import EV_A, EV_B, EV_CELL, EV_WHY, WHY_NUMBER, WHY_PAIR
    known = np.zeros(len(mines), dtype=np.int8)  # 0 hidden, 1 open, 2 mine

    def hidden_and_rest(c):
        around = [j for j in nbr[c] if j >= 0]
        return {j for j in around if known[j] == 0}, int(numbers[c]) - sum(known[j] == 2 for j in around)

    for e in range(events):
        x, why, a, b = pi[EV_CELL, e], pb[EV_WHY, e], pi[EV_A, e], pi[EV_B, e]
        mine = bool(mines[x])
        if (pb[ST, x] == 2) != mine or known[x] != 0:
            return False
        if why == WHY_NUMBER:
            h, r = hidden_and_rest(a)
            if known[a] != 1 or x not in h or r != (len(h) if mine else 0):
                return False
        elif why == WHY_PAIR:
            (ha, ra), (hb, rb) = hidden_and_rest(a), hidden_and_rest(b)
            a_only, b_only = ha - hb, hb - ha
            b_fills = rb - ra == len(b_only)  # b's mines outside a fill b_only, so a_only is safe
            a_fills = ra - rb == len(a_only)
            mines_side = (b_only if b_fills else set()) | (a_only if a_fills else set())
            safe_side = (a_only if b_fills else set()) | (b_only if a_fills else set())
            if known[a] != 1 or known[b] != 1 or x not in (mines_side if mine else safe_side):
                return False
        known[x] = 2 if mine else 1
    return True


@pytest.mark.slow
@given(m=st.integers(13, 16), width=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_a_long_components_sweep_matches_brute_force(m, width, seed):
    """The sweep that decides long components (and the witness searches it falls back to) must
    find, for every cell, exactly the values some layout meeting every constraint gives it:
    checked against all 2^m layouts, on strips of cells where each constraint covers up to
    `width` consecutive ones (as numbers along a frontier do)."""
    from sweeplab.generators.certify import _backbone, _sweep
    rng = np.random.default_rng(seed)
    truth = rng.random(m) < 0.4
    cons = []
    for lo in range(m):  # one or two constraints start at each cell
        for _ in range(int(rng.integers(1, 3))):
            hi = min(m, lo + int(rng.integers(1, width + 1)))
            cells = sorted(set(int(c) for c in rng.integers(lo, hi, size=hi - lo)) | {lo})
            cons.append(cells)
    cell_cons = np.zeros((m, 8), dtype=np.int32)
    cell_ncons = np.zeros(m, dtype=np.int32)
    kept = []
    for cells in cons:  # a cell takes part in at most 8 constraints, as on a grid
        if all(cell_ncons[c] < 8 for c in cells):
            for c in cells:
                cell_cons[c, cell_ncons[c]] = len(kept)
                cell_ncons[c] += 1
            kept.append(cells)
    need = np.array([int(truth[c].sum()) for c in kept], dtype=np.int32)
    every = ((np.arange(2**m)[:, None] >> np.arange(m)) & 1).astype(bool)
    ok = np.ones(len(every), dtype=bool)
    for cells, k in zip(kept, need):
        ok &= every[:, cells].sum(axis=1) == k
    can_mine, can_safe = np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    assert _sweep(m, cell_cons, cell_ncons, need, can_mine, can_safe, 4096) == 1
    assert (can_mine == every[ok].any(axis=0)).all()
    assert (can_safe == (~every[ok]).any(axis=0)).all()
    # past its state limit it says so, and the witness searches that take over agree
    assert _sweep(m, cell_cons, cell_ncons, need, can_mine, can_safe, 1) == -1
    nfree = np.array([len(cells) for cells in kept], dtype=np.int32)
    assert _backbone(m, cell_cons, cell_ncons, need.copy(), nfree, can_mine, can_safe, 5_000) == 1
    assert (can_mine == every[ok].any(axis=0)).all()
    assert (can_safe == (~every[ok]).any(axis=0)).all()


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(shape=st.sampled_from([(6, 6, "bounded"), (7, 5, "bounded"), (8, 8, "bounded"), (6, 6, "torus"), (9, 9, "torus")]),
       density=st.floats(0.15, 0.35), seed=st.integers(0, 2**32 - 1))
def test_play_moved_reaches_a_fresh_plays_position_from_any_log(shape, density, seed):
    """From any logged play (solved or stuck), the replay of a moved or added mine must end where a fresh play
    ends (the closure of sound deductions is unique): same verdict, same cells known (for a
    solved board, the same cells open). Every single-number and pair deduction it logs must
    hold where it stands. The chain goes on from each new log, solved or not."""
    w, h, topology = shape
    n = w * h
    rng = np.random.default_rng(seed)
    nbr = grid.neighbour_table(w, h, topology)
    cx, cy = int(rng.integers(w)), int(rng.integers(h))
    free_cells = ~grid.block_mask(w, h, cx, cy, topology)
    m = max(1, min(int(density * n), int(free_cells.sum()) - 1))
    mines = np.zeros(n, dtype=bool)
    mines[rng.choice(np.flatnonzero(free_cells), m, replace=False)] = True
    numbers = K.count_numbers(mines, nbr)
    click = cy * w + cx
    scratch = new_scratch(nbr)
    cur, nxt, fresh = new_play(n), new_play(n), new_play(n)
    play_fresh(mines, numbers, nbr, click, 200_000, *cur, *scratch)
    for _ in range(12):
        space = np.flatnonzero(~mines & free_cells)
        if space.size == 0:
            break
        b = int(rng.choice(space))
        if rng.random() < 0.3:  # the ladder's step: a mine added at b
            a = -1
            set_mine(mines, numbers, nbr, b, True)
        else:
            a = int(rng.choice(np.flatnonzero(mines)))
            move_mine(mines, numbers, nbr, a, b)
        moved = play_moved(mines, numbers, nbr, click, 200_000, *cur, *nxt, *scratch, a, b)
        want = play_fresh(mines, numbers, nbr, click, 200_000, *fresh, *scratch)
        assert moved == want
        # a solved play may leave mines unflagged once every safe cell is open
        got, wanted = nxt[1][ST], fresh[1][ST]
        same = (got == 1) == (wanted == 1) if want == SOLVED else got == wanted
        assert same.all(), "the replay stopped somewhere else than a fresh play"
        assert _log_holds(mines, numbers, nbr, nxt[0], nxt[1], nxt[2][EVENTS])
        cur, nxt = nxt, cur


# --- the generator ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("method", ["rejection", "mcmc"])
def test_generated_small_boards_are_no_guess_by_brute_force(method):
    for s in range(12):
        x, y = s % 5, (s * 3) % 4
        r = generate(5, 4, 6, x, y, s, method=method, steps=20, tries=100_000)
        assert r.certified and r.board.mine_count == 6
        assert brute_force_no_guess(r.board, x, y)


def test_generated_expert_boards_pass_the_project_solver():
    for m, seeds in ((99, range(6)), (130, range(3)), (170, range(2))):
        for s in seeds:
            r = generate(30, 16, m, 15, 8, s, steps=30)
            assert r.certified and r.board.mine_count == m
            assert play_with_project_solver(r.board, 15, 8), (m, s)


@pytest.mark.parametrize("click", [(0, 0), (29, 15), (15, 8), (0, 9), (29, 0)])
def test_first_click_block_is_free_and_opens(click):
    x, y = click
    r = generate(30, 16, 99, x, y, 3)
    assert not r.board.flat_mines[grid.block_mask(30, 16, x, y)].any()
    g = Game(rule=make("noguess", 30, 16, 99, 3))
    g.open(x, y)
    assert g.board == r.board and g.status == "playing"
    assert g.view().cells[y, x] == 0


def test_same_seed_same_board_and_seeds_differ():
    for kw in ({"method": "rejection"}, {"method": "mcmc", "steps": 40}):
        a = generate(30, 16, 99, 15, 8, 42, **kw).board
        assert a == generate(30, 16, 99, 15, 8, 42, **kw).board
        assert a != generate(30, 16, 99, 15, 8, 43, **kw).board
        assert a != generate(30, 16, 99, 14, 8, 42, **kw).board
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    assert generate(16, 16, 40, 3, 3, rng_a).board == generate(16, 16, 40, 3, 3, rng_b).board


def test_the_ladder_alone_makes_the_board_where_measured_elsewhere_it_starts_the_chain():
    """At the levels of LADDER_ALONE (130, 170 and 200 mines on 30x16, 200 on 30x24, from the centre) the ladder's
    board is the board (its draws and thinnings are measured to need no chain there); from another
    click, or on another size, the chain follows with its moves per cell the ladder tried."""
    from sweeplab.generators.noguess import LADDER_ALONE, ladder_alone
    assert set(LADDER_ALONE) == {(30, 16, 130, 15, 8), (30, 16, 170, 15, 8), (30, 16, 200, 15, 8),
                                 (30, 24, 200, 15, 12)}
    for w, h, m in ((30, 16, 130), (30, 16, 170), (30, 16, 200), (30, 24, 200)):
        r = generate(w, h, m, w // 2, h // 2, 5)
        assert (r.method, r.start, r.tries, r.steps, r.accepted) == ("mcmc", "ladder", 0, 0, 0)
        assert r.ladder_tries >= m - int(LADDER_BASE_DENSITY * w * h)  # each added mine took a try at least
        assert r.board.mine_count == m and certify(r.board, w // 2, h // 2)[0]
    r = generate(30, 16, 130, 3, 3, 5)
    assert r.start == "ladder" and r.steps == max(50, round(LADDER_SHAPES[0][6] * r.ladder_tries)) == 2 * r.ladder_tries
    assert r.board.mine_count == 130 and certify(r.board, 3, 3)[0]
    assert generate(30, 16, 130, 15, 8, 5, steps=7).steps == 7  # asked for: the chain runs
    assert ladder_alone(30, 16, 130, 15, 8, "torus") is None and ladder_alone(30, 16, 131, 15, 8) is None
    assert generate(30, 16, 131, 15, 8, 5).steps >= 50


def test_the_ladder_alone_levels_scale_their_rim_and_set_their_thinnings():
    """A LADDER_ALONE level's weights are LADDER_SHAPES's (interpolated), or its own row's, with its
    edge cells, then its corners, scaled (of 64, after x4), then its cells off the rim tapered by the
    king steps from the click past 3 (of 256 a step, after x256); its thinnings are its own; its row's
    weights and scales are of its `inner` weight. 130 mines on 30x16 needs nothing on top: its
    weights and thinnings are those of the 130 row."""
    from sweeplab.generators.noguess import (
        LADDER_ALONE,
        _ladder_shape_for,
        cell_scales,
        ladder_keep_openings,
        ladder_keep_total,
        ladder_keeps,
        ladder_shape,
    )

    def fine(alone, w, h, x, y, cx, cy):
        """The scale (of 64) of the cell's group in `alone.fine`, the groups found by walking from the
        corners and the click: 64 where the cell is in none of them."""
        to_corner = min(max(abs(cx - kx), abs(cy - ky)) for kx in (0, w - 1) for ky in (0, h - 1))
        on_rim, next_to_rim = cx in (0, w - 1) or cy in (0, h - 1), cx in (1, w - 2) or cy in (1, h - 2)
        dx, dy = abs(cx - x), abs(cy - y)
        group = ("corner2 rim" if to_corner == 2 and on_rim else
                 "corner2 inside" if to_corner == 2 and next_to_rim else
                 "corner2 diagonal" if to_corner == 2 else
                 "click1 corners" if dx == dy == 2 else
                 "click1 above and below" if dy == 2 and dx < 2 else
                 "click2 facing" if max(dx, dy) == 3 and min(dx, dy) <= 1 else
                 "click2 corners" if max(dx, dy) == 3 else None)
        return dict(alone.fine).get(group, 64) if alone.fine else 1

    for (w, h, m, x, y), alone in LADDER_ALONE.items():
        cells = cell_scales(w, h, m, x, y) if alone.cells else None
        plain, clump = ladder_shape(grid.neighbour_table(w, h), m, grid.block_mask(w, h, x, y), alone.row,
                                    alone.inner)
        weight, got_clump = _ladder_shape_for(w, h, "bounded", m, x, y)
        assert got_clump == clump and ladder_keeps(w, h, m, x, y) == (*alone[2:5], alone.keep_bbbv_up)
        scaled = (alone.edge, alone.corner) != (64, 64)
        for cy in range(h):
            for cx in range(w):
                want = int(plain[cy * w + cx]) * (4 if scaled else 1)
                if cx in (0, w - 1) or cy in (0, h - 1):
                    want = want * alone.edge // 64
                if cx in (0, w - 1) and cy in (0, h - 1):
                    want = want * alone.corner // 64
                if alone.taper:
                    rim = cx in (0, w - 1) or cy in (0, h - 1)
                    want *= 256 - (0 if rim else alone.taper * max(max(abs(cx - x), abs(cy - y)) - 3, 0))
                want *= fine(alone, w, h, x, y, cx, cy)
                want *= int(cells[cy * w + cx]) if alone.cells else 1
                assert weight[cy * w + cx] == want, (w, h, cx, cy)
    # 30x16/130 takes the 130 row's weights as they are, with a table of per-cell scales on top
    a = LADDER_ALONE[30, 16, 130, 15, 8]
    assert (a.edge, a.corner, a.row, a.taper, a.inner, a.fine, a.cells) == (64, 64, None, 0, INNER_WEIGHT, (), True)
    # 30x16/170's row is in steps of 1/64: its inner cells weigh 64 (x 64, its fine scales' unit), its rim
    # its first ring weight; its clump base lies between whole numbers; its fine groups hold the cells
    # they name: 8, 8 and 4 two king steps from the corners, 4 and 6 in the click's first ring, 12 and 12
    # in its second
    weight, clump = _ladder_shape_for(30, 16, "bounded", 170, 15, 8)
    alone = LADDER_ALONE[30, 16, 170, 15, 8]
    assert alone.inner == 64 and weight[5 * 30 + 7] == 64 * 64 and weight[0 * 30 + 7] == alone.row[1][0] * 64
    assert clump == alone.row[3] and clump.denominator > 1
    from sweeplab.generators.noguess import FINE_GROUPS, fine_groups
    sizes = {name: int(cells.sum()) for name, cells in fine_groups(30, 16, 15, 8).items()}
    assert sizes == dict(zip(FINE_GROUPS, (8, 8, 4, 4, 6, 12, 12)))
    assert ladder_keeps(30, 24, 200, 3, 3) == (ladder_keep_total(720, 200), ladder_keep_openings(720, 200), 256, 256)
    # 30x16/200's own row differs from LADDER_SHAPES's 200 row (which the chain after it is measured for)
    assert (ladder_shape(grid.neighbour_table(30, 16), 200, grid.block_mask(30, 16, 15, 8))[0]
            != _ladder_shape_for(30, 16, "bounded", 200, 15, 8)[0] // 256).any()


def test_the_chain_makes_moves_per_ladder_try_by_the_density():
    """Two moves per cell the ladder tried at 130 mines on 30x16, one at 170, two at 200 (the rows
    of LADDER_SHAPES), in between interpolated by mines per cell, at least 50; after a repair
    three per mine."""
    assert [default_steps(480, m, True, 300) for m in (100, 130, 170, 200, 300)] == [600, 600, 300, 600, 600]
    assert default_steps(480, 150, True, 300) == 450 and default_steps(480, 185, True, 300) == 450
    assert default_steps(480, 170, True, 20) == 50 and default_steps(480, 170, False, 300) == 510
    mid = [default_steps(480, m, True, 1000) for m in range(130, 171)]
    assert mid == sorted(mid, reverse=True)  # fewer the closer to 170
    r = generate(30, 16, 170, 3, 3, 5)  # (from the centre 170 is a level of LADDER_ALONE)
    assert r.start == "ladder" and r.steps == max(50, r.ladder_tries)


def test_the_ladders_weights_are_made_once_per_level_and_click_and_shared_read_only():
    """generate() takes the ladder's weights from a cache (their numpy work was 3% of a 130-mine
    board): they must be ladder_shape's for that level and click, the same array each time, and
    nobody may write to them."""
    from sweeplab.generators.noguess import _ladder_shape_for, cell_scales, ladder_shape
    for w, h, m, x, y, topology in ((30, 16, 130, 15, 8, "bounded"), (30, 16, 170, 3, 2, "bounded"),
                                    (9, 9, 30, 4, 4, "torus")):
        weight, clump = _ladder_shape_for(w, h, topology, m, x, y)
        want, want_clump = ladder_shape(grid.neighbour_table(w, h, topology), m,
                                        grid.block_mask(w, h, x, y, topology))
        if (w, h, m, x, y) == (30, 16, 130, 15, 8):  # a level with a table of per-cell scales
            want = want * cell_scales(w, h, m, x, y)
        assert clump == want_clump and (weight == want).all()
        assert _ladder_shape_for(w, h, topology, m, x, y)[0] is weight
        with pytest.raises(ValueError):
            weight[0] = 1


def _laddered(seed, mines, keep_total, keep_openings, keep_bbbv=256, keep_bbbv_up=256):
    """A 96-mine rejection sample on 30x16 from (15, 8), then the ladder's adds up to `mines` with
    these thinnings: (the sample's mines, the ladder's board), the board checked certified."""
    from sweeplab.generators import noguess as G
    from sweeplab.generators.certify import workspace
    from sweeplab.rng import seed_key
    w, h, x, y = 30, 16, 15, 8
    n, excluded, nbr = w * h, grid.block_mask(w, h, x, y), grid.neighbour_table(w, h)
    p, state, _, ok = G._rejection(n, 96, excluded, nbr, y * w + x, np.uint64(seed_key(seed)), 2000,
                                   G.DEFAULT_LEAF_BUDGET, workspace(w, h))
    sample = p.mines.copy()
    weight, clump = G.ladder_shape(nbr, mines, excluded)
    _, added, _, p = G._ladder(p, excluded, np.uint64(state), mines - 96, G.LADDER_TRIES_PER_MINE, weight, clump,
                               nbr, keep_total, keep_openings, keep_bbbv, 1, 16, keep_bbbv_up)
    board = Board._from_flat(w, h, p.mines.copy())
    assert ok and added == mines - 96 and board.mine_count == mines and certify(board, x, y)[0]
    return sample, board


def test_the_ladder_thins_its_adds_that_use_the_mine_total():
    """With none of them kept, every add the ladder keeps has a play that does not use the total,
    so its last board does not need the total; with all kept (the pace once used at 130
    mines), the same starts need it on some boards."""
    needs = {0: [], 16: []}
    for seed in range(12):
        for keep_total in needs:
            _, board = _laddered(seed, 150, keep_total, 256)
            needs[keep_total].append(certify(board, 15, 8)[1])
    assert not any(needs[0]) and any(needs[16])


def test_the_ladder_keeps_adds_that_use_the_total_by_density():
    from sweeplab.generators.noguess import KEEP_TOTAL, LADDER_SHAPES, ladder_keep_total
    assert ladder_keep_total(480, 130) == KEEP_TOTAL[0] == ladder_keep_total(480, 100)
    assert ladder_keep_total(480, 170) == KEEP_TOTAL[1]
    assert ladder_keep_total(480, 200) == KEEP_TOTAL[2] == ladder_keep_total(480, 300)
    for low, high, mines in ((0, 1, 150), (1, 2, 185)):
        keep = ladder_keep_total(480, mines)
        assert min(KEEP_TOTAL[low], KEEP_TOTAL[high]) <= keep <= max(KEEP_TOTAL[low], KEEP_TOTAL[high])
    assert len(KEEP_TOTAL) == len(LADDER_SHAPES)


@pytest.mark.slow
def test_the_ladder_thins_its_adds_that_leave_fewer_openings():
    """With none of them kept, no add the ladder keeps leaves the board fewer openings, so its last
    board has at least its start's; with all kept, some of the same starts end with fewer. By density
    like the total's thinning: only 130 mines on 30x16 thins, 170 and 200 keep all."""
    from sweeplab.generators import noguess as G
    from sweeplab.kernels import count_numbers
    from sweeplab.stats import label_openings
    nbr = grid.neighbour_table(30, 16)

    def openings(mines):
        return label_openings(mines, count_numbers(mines, nbr), nbr)[1]

    fewer = {0: [], 256: []}
    for seed in range(12):
        for keep_openings in fewer:
            sample, board = _laddered(seed, 130, 16, keep_openings)
            fewer[keep_openings].append(openings(board.flat_mines) < openings(sample))
    assert not any(fewer[0]) and any(fewer[256])
    k = G.KEEP_OPENINGS
    assert k[0] < 256 and k[1] == k[2] == 256
    assert [G.ladder_keep_openings(480, m) for m in (100, 130, 150, 170, 200, 300)] == \
        [k[0], k[0], round((k[0] + k[1]) / 2), k[1], k[2], k[2]]  # (150: halfway from 130 to 170)
    assert len(G.KEEP_OPENINGS) == len(G.LADDER_SHAPES)


def _bbbv_gained(mines, **thinning):
    """The 3BV each of eight ladder boards (seeds 0 to 7, `_laddered`) gained over its start, with its
    adds that lower 3BV or raise it kept as `thinning` says (keep_bbbv, keep_bbbv_up; 256: all)."""
    from sweeplab.kernels import count_numbers
    from sweeplab.stats import bbbv_kernel
    nbr = grid.neighbour_table(30, 16)

    def bbbv(mines):
        return bbbv_kernel(mines, count_numbers(mines, nbr), nbr)

    keeps = dict(keep_bbbv=256, keep_bbbv_up=256) | thinning
    gained = []
    for seed in range(8):
        sample, board = _laddered(seed, mines, 16, 256, keeps["keep_bbbv"], keeps["keep_bbbv_up"])
        gained.append(bbbv(board.flat_mines) - bbbv(sample))
    return gained


@pytest.mark.slow
def test_the_ladder_thins_its_adds_that_lower_3bv():
    """With none of them kept, no add the ladder keeps lowers the board's 3BV, so from the same starts
    its boards gain far more 3BV over their 24 adds than with all kept. Only 30x16/170 and 200 from
    the centre thin them (LADDER_ALONE); by density the ladder keeps all."""
    from sweeplab.generators import noguess as G
    none_kept, all_kept = _bbbv_gained(120, keep_bbbv=0), _bbbv_gained(120)
    assert min(none_kept) > max(all_kept) > 0, (none_kept, all_kept)
    for m in (170, 200):
        assert G.ladder_keeps(30, 16, m, 15, 8)[2] < 256 and G.ladder_keeps(30, 16, m, 3, 3)[2] == 256


def test_the_ladder_thins_its_adds_that_raise_3bv():
    """With none of them kept, no add the ladder keeps raises the board's 3BV, so each board ends with
    at most its start's; with all kept, most end with more. Only 30x16/130 from the centre thins them."""
    from sweeplab.generators import noguess as G
    none_kept, all_kept = _bbbv_gained(104, keep_bbbv_up=0), _bbbv_gained(104)
    assert max(none_kept) <= 0 < sum(g > 0 for g in all_kept) - len(all_kept) // 2, (none_kept, all_kept)
    assert G.ladder_keeps(30, 16, 130, 15, 8)[3] < 256 and G.ladder_keeps(30, 16, 130, 3, 3)[3] == 256
    assert all(G.ladder_keeps(w, h, m, x, y)[3] == 256 for (w, h, m, x, y) in G.LADDER_ALONE if m != 130)


@pytest.mark.slow
def test_a_clump_base_between_whole_numbers_counts_each_mine_next_to_a_cell_as_its_denominator():
    """The ladder draws a cell by weight x (clump base + mines next to it); a base a/b is drawn as
    weight x (a + b x mines next to it). With a/b a whole number c, that is 2 x weight x (c + mines)
    for b = 2: the same draws, so the same board, as the whole base with the weights doubled."""
    from sweeplab.generators import noguess as G
    from sweeplab.generators.certify import workspace
    from sweeplab.rng import seed_key
    w, h, x, y = 30, 16, 15, 8
    n, excluded, nbr = w * h, grid.block_mask(w, h, x, y), grid.neighbour_table(w, h)
    weight, _ = G.ladder_shape(nbr, 130, excluded)
    boards = []
    for seed in (3, 4):
        for scale, clump, per_mine in ((1, 10, 2), (2, 5, 1)):
            p, state, _, ok = G._rejection(n, 96, excluded, nbr, y * w + x, np.uint64(seed_key(seed)), 2000,
                                           G.DEFAULT_LEAF_BUDGET, workspace(w, h))
            _, added, _, p = G._ladder(p, excluded, np.uint64(state), 24, G.LADDER_TRIES_PER_MINE, weight * scale,
                                       clump, nbr, 16, 256, 256, per_mine)
            assert ok and added == 24
            boards.append(p.mines.copy())
    assert (boards[0] == boards[1]).all() and (boards[2] == boards[3]).all() and (boards[0] != boards[2]).any()


def test_a_level_s_fractions_reach_the_ladder_as_whole_numbers(monkeypatch):
    """30x16/170's clump base (21/4) and keep of the adds that use the total (37/4 of 16) reach the
    compiled ladder as whole numbers: base 21 with 4 per mine next to a cell, and 37 kept of 64; so
    does 30x16/130's keep (23/2 of 16: 23 of 32)."""
    from sweeplab.generators import noguess as G
    alone = G.LADDER_ALONE[30, 16, 170, 15, 8]
    assert alone.row[3].denominator > 1 and alone.keep_total.denominator > 1
    seen, ladder = [], G._ladder

    def spy(p, excluded, state, extra, tries_per_mine, weight, clump, nbr, keep_total, keep_openings, keep_bbbv,
            per_mine=1, total_of=16, keep_bbbv_up=256):
        seen.append((clump, per_mine, keep_total, total_of))
        return ladder(p, excluded, state, extra, tries_per_mine, weight, clump, nbr, keep_total, keep_openings,
                      keep_bbbv, per_mine, total_of, keep_bbbv_up)

    monkeypatch.setattr(G, "_ladder", spy)
    assert generate(30, 16, 170, 15, 8, 1).start == "ladder"
    assert seen == [(21, 4, 37, 64)]
    seen.clear()
    generate(30, 16, 130, 15, 8, 1)
    assert seen == [(21, 1, 23, 32)]
    seen.clear()
    generate(30, 16, 200, 15, 8, 1)  # whole numbers stay as they were
    assert seen == [(1, 1, 9, 16)]


def test_the_repair_starts_the_chain_where_the_ladder_stalls():
    r = generate(30, 16, 300, 15, 8, 1, steps=50)  # the default budget: a repair can take a fresh board or two
    assert r.start == "repair" and r.tries > 0 and r.steps == 50
    assert r.board.mine_count == 300 and certify(r.board, 15, 8)[0]


def test_the_repair_start_can_be_asked_for_where_the_ladder_would_start():
    # long-chain references start from the repair too (another start, other biases)
    r = generate(30, 16, 170, 15, 8, 3, method="mcmc", steps=60, chain_start="repair")
    assert (r.start, r.ladder_tries, r.steps) == ("repair", 0, 60) and r.tries > 0
    assert r.board.mine_count == 170 and certify(r.board, 15, 8)[0]
    assert generate(30, 16, 170, 15, 8, 3).start == "ladder"
    with pytest.raises(InvalidBoardError, match="allowed: auto, repair"):
        generate(30, 16, 170, 15, 8, 3, chain_start="ladder-ish")


@pytest.mark.slow
def test_auto_leaves_rejection_for_the_chain_on_a_large_board():
    # 22% mines, where auto would reject; on 70x70 seed 0's rejection needs hundreds of boards
    assert generate(70, 70, 1070, 35, 35, 0, method="rejection").tries > AUTO_REJECTION_TRIES
    r = generate(70, 70, 1070, 35, 35, 0)
    assert r.method == "mcmc" and r.certified and certify(r.board, 35, 35)[0]


def test_exhausted_budget_raises_and_never_returns_an_uncertified_board_as_certified():
    # 85 mines on 10x10 leave 6 free cells outside the click's block: a random board almost never
    # certifies, so 50 tries run out; the repair gets no moves at all
    with pytest.raises(GenerationError, match="no certified no-guess board"):
        generate(10, 10, 85, 5, 5, 0, method="rejection", tries=50)
    with pytest.raises(GenerationError, match="within 0 repair moves"):
        generate(10, 10, 85, 5, 5, 0, method="mcmc", tries=0)
    r = generate(10, 10, 85, 5, 5, 0, method="rejection", tries=20, allow_uncertified=True)
    assert r.certified is False and not certify(r.board, 5, 5)[0]


def test_full_board_is_certified_by_the_total():
    # every cell outside the click's block is a mine: the total says so
    r = generate(6, 6, 27, 2, 2, 0)
    block = grid.block_mask(6, 6, 2, 2)
    assert r.certified and certify(r.board, 2, 2)[0]
    assert (r.board.flat_mines == ~block).all()


def test_registry_names_and_bad_input():
    assert lookup("ng").name == lookup("no-guess").name == "noguess"
    with pytest.raises(InvalidBoardError, match="off the 30x16 board; x in 0..29"):
        generate(30, 16, 99, 30, 8, 0)
    with pytest.raises(InvalidBoardError, match="allowed"):
        generate(30, 16, 99, 15, 8, 0, method="magic")
    with pytest.raises(InvalidBoardError, match="do not fit"):
        generate(30, 16, 472, 15, 8, 0)


def test_cli_board_count_writes_that_many_certified_boards(tmp_path):
    from sweeplab.cli import cli
    out = tmp_path / "boards.txt"
    res = CliRunner().invoke(cli, ["board", "--generator", "noguess", "--preset", "intermediate", "--click",
                                   "7,7", "--seed", "5", "--count", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    from sweeplab.board import parse_boards
    assert out.read_text().count("click: 7,7\n") == 3  # each board keeps the click it is certified from
    boards = parse_boards(out.read_bytes())
    assert len(boards) == 3
    assert len(set(boards)) == 3
    for i, b in enumerate(boards):
        assert b == generate(16, 16, 40, 7, 7, 5 + i).board
        assert certify(b, 7, 7)[0]


@pytest.mark.slow
def test_cli_uniformity_reports_and_plots(tmp_path):
    from sweeplab.cli import cli
    png = tmp_path / "heat.png"
    res = CliRunner().invoke(cli, ["uniformity", "--preset", "intermediate", "--boards", "30", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    assert "chi-square per dof" in res.output and "mean 3BV" in res.output and "mine total" in res.output
    assert png.stat().st_size > 1000


def test_kept_reference_sample_is_what_it_claims():
    from sweeplab.cli.uniformity import Sample
    ref = Sample.load("tests/data/noguess_reference_99.npz")
    assert (ref.width, ref.height, ref.boards) == (30, 16, 5000)
    assert ref.counts.sum() == 99 * 5000
    assert ref.counts[grid.block_mask(30, 16, 15, 8)].sum() == 0
    # about a third of no-guess expert boards need the mine total (solving.md)
    assert 0.25 < ref.needs_total.mean() < 0.42
    # its first boards, drawn again, figure by figure
    from sweeplab.cli.uniformity import FIGURES, draw_sample
    again = draw_sample(30, 16, 99, 15, 8, 20, 1_000_003, method="rejection", tries=1 << 40)
    for name in FIGURES:
        assert list(getattr(again, name)) == list(getattr(ref, name)[:20]), name


@pytest.mark.slow
@pytest.mark.parametrize("path, seed, boards", [("tests/data/noguess_reference_130.npz", 0, 2000),
                                                ("tests/data/noguess_reference_130_seed1.npz", 1, 2000),
                                                ("tests/data/noguess_reference_130_seed2.npz", 2, 2000),
                                                ("tests/data/noguess_reference_130_seed3.npz", 3, 10000),
                                                ("tests/data/noguess_reference_130_seed4.npz", 4, 10000)])
def test_kept_130_mine_references_are_rejection_sampled(path, seed, boards):
    """The 130-mine references (about 20 minutes of one core per 2,000 boards, kept as data) must be
    what the rejection generator draws: their first boards are drawn again here and compared board
    by board, figure by figure."""
    from sweeplab.cli.uniformity import FIGURES, Sample, draw_sample
    ref = Sample.load(path)
    assert (ref.width, ref.height, ref.boards) == (30, 16, boards)
    assert ref.counts.sum() == 130 * boards
    assert ref.counts[grid.block_mask(30, 16, 15, 8)].sum() == 0
    again = draw_sample(30, 16, 130, 15, 8, 2, seed + 1_000_003, method="rejection", tries=1 << 40)
    for name in FIGURES:
        assert list(getattr(again, name)) == list(getattr(ref, name)[:2]), name


def test_kept_170_mine_long_chain_reference_is_what_it_claims():
    """At 170 mines rejection is out of reach: the reference is 1,000 boards each from a chain of
    5,000 moves (tools/make_reference.py --steps 5000), certified and with the click's block free."""
    from sweeplab.cli.uniformity import Sample
    ref = Sample.load("tests/data/noguess_chain_170.npz")
    assert (ref.width, ref.height, ref.boards, ref.label) == (30, 16, 1000, "chain of 5000 moves")
    assert ref.counts.sum() == 170 * 1000
    assert ref.counts[grid.block_mask(30, 16, 15, 8)].sum() == 0
    assert (ref.edge <= 170).all() and (ref.corner <= 4).all() and (ref.touching <= 8 * 170).all()


@pytest.mark.slow
@pytest.mark.parametrize("path, boards, seed", [("tests/data/noguess_chain_170_repair.npz", 1000, 2),
                                                ("tests/data/noguess_chain_170_repair_seed3.npz", 3000, 3)])
def test_the_kept_170_mine_chain_references_from_the_repair(path, boards, seed):
    """The second and third 170-mine references: 1,000 and 3,000 chains of 20,000 moves each from the
    repair's start (tools/make_reference.py --seed 2 or 3 --steps 20000 --chain-start repair); the first
    board of each, drawn again, has the same figures."""
    from sweeplab.cli.uniformity import Sample, draw_sample
    ref = Sample.load(path)
    assert (ref.width, ref.height, ref.boards) == (30, 16, boards)
    assert ref.label == "chain of 20000 moves from the repair start"
    assert ref.counts.sum() == 170 * boards and ref.counts[grid.block_mask(30, 16, 15, 8)].sum() == 0
    again = draw_sample(30, 16, 170, 15, 8, 1, seed + 1_000_003, method="mcmc", steps=20000, chain_start="repair")
    for name in ("bbbv", "openings", "needs_total", "edge", "corner", "touching"):
        assert getattr(again, name)[0] == getattr(ref, name)[0], name


# The ladder's weights when the kept long-chain references were drawn: a
# reference's first board is drawn again with them.
SHAPES_THEN = ((130 / 480, (23, 18, 14), 30, 12, (21, 14), (16, 16), 2.0),
               (170 / 480, (33, 22, 14), 80, 4, (19, 14), (16, 16), 2.0),
               (200 / 480, (67, 32, 14), 1200, 1, (16, 13), (19, 19), 2.0))
KEEP_TOTAL_THEN = (16, 8, 6)  # and no add thinned for the openings it closes (as they were then)


@pytest.mark.slow
@pytest.mark.parametrize("path, h, steps, seed, start, rows", [
    ("tests/data/noguess_chain_200.npz", 16, 10000, 0, "auto", 2),
    ("tests/data/noguess_chain_200_repair.npz", 16, 10000, 2, "repair", 3),
    ("tests/data/noguess_chain_200_repair20k.npz", 16, 20000, 3, "repair", 3),
    ("tests/data/noguess_chain_200_ladder20k.npz", 16, 20000, 4, "auto", 3),
    ("tests/data/noguess_chain_30x24_200.npz", 24, 5000, 0, "auto", 3),
    ("tests/data/noguess_chain_30x24_200_repair.npz", 24, 5000, 2, "repair", 3)])
def test_the_kept_200_mine_chain_references(path, h, steps, seed, start, rows, monkeypatch):
    """At 200 mines long-chain references: 1,000 chains each from the ladder (seed 0) and from the
    repair (seed 2), of 10,000 moves on 30x16 and 5,000 on 30x24, and on 30x16 two more of 20,000
    moves, from the repair (seed 3) and the ladder (seed 4) (tools/make_reference.py --steps S
    [--chain-start repair]); each one's first board, drawn again, has the same figures. The first
    was drawn before the ladder's weights were measured at 200 mines on 30x16: its start is drawn
    with the weights then in force (the first `rows` of SHAPES_THEN, 170's held above it)."""
    from sweeplab.cli.uniformity import Sample, draw_sample
    from sweeplab.generators import noguess as G
    ref = Sample.load(path)
    assert (ref.width, ref.height, ref.boards) == (30, h, 1000)
    assert ref.label == f"chain of {steps} moves from the {start} start"
    assert ref.counts.sum() == 200 * 1000 and ref.counts[grid.block_mask(30, h, 15, h // 2)].sum() == 0
    monkeypatch.setattr(G, "LADDER_SHAPES", SHAPES_THEN[:rows])
    monkeypatch.setattr(G, "KEEP_TOTAL", KEEP_TOTAL_THEN[:rows])
    monkeypatch.setattr(G, "KEEP_OPENINGS", (256,) * rows)
    monkeypatch.setattr(G, "LADDER_ALONE", {})
    G._ladder_shape_for.cache_clear()
    try:
        again = draw_sample(30, h, 200, 15, h // 2, 1, seed + 1_000_003, method="mcmc", steps=steps,
                            chain_start=start)
    finally:
        G._ladder_shape_for.cache_clear()  # no weights made with the rows patched here outlive the test
    for name in ("bbbv", "openings", "needs_total", "edge", "corner", "touching"):
        assert getattr(again, name)[0] == getattr(ref, name)[0], name


@pytest.mark.slow
def test_boards_at_130_mines_match_the_rejection_references(monkeypatch):
    """The default's boards (the ladder's alone at 130 mines) against the two kept rejection
    references joined: 3BV, edge share, corner rate, clumping and the share needing the total each
    within 2.5 standard errors. The ladder without its two thinnings fails the same check (its
    boards need the total more often), so the check has the power to catch a ladder gone wrong."""
    from sweeplab.cli.uniformity import Sample, compare, draw_sample
    from sweeplab.generators import noguess as G
    ref = Sample.join([Sample.load("tests/data/noguess_reference_130.npz"),
                       Sample.load("tests/data/noguess_reference_130_seed1.npz")])
    named = ("bbbv", "edge", "corner", "touching", "needs_total")
    now = compare(draw_sample(30, 16, 130, 15, 8, 400, 7), ref)
    assert max(abs(now["figures"][f]["diff_in_se"]) for f in named) < 2.5, now
    monkeypatch.setitem(G.LADDER_ALONE, (30, 16, 130, 15, 8),
                        G.LADDER_ALONE[30, 16, 130, 15, 8]._replace(keep_total=16, keep_openings=256))
    plain = compare(draw_sample(30, 16, 130, 15, 8, 400, 7), ref)
    assert max(abs(plain["figures"][f]["diff_in_se"]) for f in named) > 2.5, plain


@pytest.mark.slow
def test_boards_at_30x24_200_alone_match_the_long_chains(monkeypatch):
    """At 30x24/200 from the centre (a LADDER_ALONE level) the default's boards, the ladder's alone,
    against the two long-chain references joined: 3BV, edge share, corner rate, clumping and the
    share needing the total each within 2.5 standard errors. Without its rim scales (the 130 row's
    weights as interpolated there) the rim is over-filled past that, so the check can fail."""
    from sweeplab.cli.uniformity import Sample, compare, draw_sample
    from sweeplab.generators import noguess as G
    ref = Sample.join([Sample.load("tests/data/noguess_chain_30x24_200.npz"),
                       Sample.load("tests/data/noguess_chain_30x24_200_repair.npz")])
    named = ("bbbv", "edge", "corner", "touching", "needs_total")
    now = compare(draw_sample(30, 24, 200, 15, 12, 1000, 7), ref)
    assert max(abs(now["figures"][f]["diff_in_se"]) for f in named) < 2.5, now
    level = (30, 24, 200, 15, 12)
    monkeypatch.setitem(G.LADDER_ALONE, level, G.LADDER_ALONE[level]._replace(edge=64, corner=64))
    G._ladder_shape_for.cache_clear()
    try:
        plain = compare(draw_sample(30, 24, 200, 15, 12, 1000, 7), ref)
    finally:
        G._ladder_shape_for.cache_clear()  # no weights made with the entry patched here outlive the test
    assert max(plain["figures"][f]["diff_in_se"] for f in ("edge", "corner")) > 2.5, plain


@pytest.mark.slow
@pytest.mark.parametrize("mines, references, without, figure, past", [
    (170, ("170", "170_repair", "170_repair_seed3"), dict(keep_total=16, keep_openings=256, keep_bbbv=256),
     "needs_total", 3),
    (200, ("200_repair", "200_repair20k", "200_ladder20k"), dict(keep_bbbv=256), "bbbv", -3)])
def test_boards_alone_at_170_and_200_mines_match_the_long_chains(monkeypatch, mines, references, without, figure,
                                                                  past):
    """At 30x16/170 and 200 from the centre (levels of LADDER_ALONE) the default's boards, the ladder's
    alone, against the three long chains joined (170: 5,000 moves from the ladder, 20,000 from the repair
    twice; 200: 10,000 and 20,000 moves from the repair, 20,000 from the ladder): 3BV, openings, edge
    share, corner rate, clumping and the share needing the total each within 3 standard errors.
    Without their thinnings the boards fall past that (170: they need the total more often; 200: they
    are 3BV-poor), so the check can fail."""
    from sweeplab.cli.uniformity import Sample, compare, draw_sample
    from sweeplab.generators import noguess as G
    ref = Sample.join([Sample.load(f"tests/data/noguess_chain_{name}.npz") for name in references])
    named = ("bbbv", "openings", "edge", "corner", "touching", "needs_total")
    now = compare(draw_sample(30, 16, mines, 15, 8, 600, 11), ref)
    assert max(abs(now["figures"][f]["diff_in_se"]) for f in named) < 3, now
    level = (30, 16, mines, 15, 8)
    monkeypatch.setitem(G.LADDER_ALONE, level, G.LADDER_ALONE[level]._replace(**without))
    plain = compare(draw_sample(30, 16, mines, 15, 8, 600, 11), ref)
    assert plain["figures"][figure]["diff_in_se"] * (past / abs(past)) > abs(past), plain
