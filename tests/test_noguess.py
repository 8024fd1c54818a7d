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
from sweeplab.generators.chain_length import CORNER_FACTOR, chain_moves, corner_click, rejection_tries
from sweeplab.generators.noguess import boards, generate
from sweeplab.generators.uniform import uniform_board
from sweeplab.rng import stream_key
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
            mines = generate(30, 16, m, 15, 8, s, method="chain", steps=0).board.flat_mines.copy()
            a = int(rng.choice(np.flatnonzero(mines)))
            b = int(rng.choice(np.flatnonzero(~mines & free)))
            mines[a], mines[b] = False, True
            board = Board._from_flat(30, 16, mines, "bounded")
            ours = certify(board, 15, 8)[0]
            assert ours == play_with_project_solver(board, 15, 8), (m, s)
            verdicts.append(ours)
    assert any(verdicts) and not all(verdicts)


@pytest.mark.slow
def moved_cells(src, dst, src2, dst2):
    """A change as play_moved takes it (int32, as the generators pass it)."""
    return np.int32(src), np.int32(dst), np.int32(src2), np.int32(dst2)


def test_a_moved_mine_replayed_from_the_old_log_gets_a_fresh_plays_verdict():
    """`play_moved` keeps the old play's deductions whose reasons still hold; the verdict must be a
    fresh play's, for accepted and rejected moves, pairs of moves and added mines, chained one after
    another as the generator does."""
    w, h = 30, 16
    n = w * h
    nbr = grid.neighbour_table(w, h)
    click = 8 * w + 15
    free_cells = ~grid.block_mask(w, h, 15, 8)
    rng = np.random.default_rng(5)
    scratch, fresh_scratch = new_scratch(nbr), new_scratch(nbr)
    verdicts = set()
    for m in (99, 130, 170):
        mines = generate(w, h, m, 15, 8, 11, method="chain", steps=0).board.flat_mines.copy()
        numbers = K.count_numbers(mines, nbr)
        cur, nxt = new_play(n), new_play(n)
        assert play_fresh((mines, numbers, nbr), click, 200_000, cur, scratch) == SOLVED
        for step in range(80):
            b = int(rng.choice(np.flatnonzero(~mines & free_cells)))
            a2 = b2 = -1
            if step % 4 == 0:  # a mine added, as the insertion does
                a = -1
                set_mine(mines, numbers, nbr, b, True)
            else:
                a = int(rng.choice(np.flatnonzero(mines)))
                if step % 4 == 1:  # two mines moved at once, as the chain's pairs are
                    a2 = int(rng.choice(np.flatnonzero(mines & (np.arange(n) != a))))
                    b2 = int(rng.choice(np.flatnonzero(~mines & free_cells & (np.arange(n) != b))))
                    move_mine(mines, numbers, nbr, a2, b2)
                move_mine(mines, numbers, nbr, a, b)
            assert (numbers == K.count_numbers(mines, nbr)).all()
            moved = play_moved((mines, numbers, nbr), click, 200_000, cur, nxt, scratch, moved_cells(a, b, a2, b2))
            fresh = play_fresh((mines, K.count_numbers(mines, nbr), nbr), click, 200_000, new_play(n), fresh_scratch)
            assert moved == fresh
            verdicts.add((moved, "add" if a < 0 else "pair" if a2 >= 0 else "move"))
            if moved == SOLVED:  # go on from the new board, as the chain does
                cur, nxt = nxt, cur
            elif a < 0:
                set_mine(mines, numbers, nbr, b, False)
            else:
                move_mine(mines, numbers, nbr, b, a)
                if a2 >= 0:
                    move_mine(mines, numbers, nbr, b2, a2)
    # accepted and rejected moves, pairs and adds were all checked
    assert verdicts == {(v, kind) for v in (SOLVED, 1) for kind in ("add", "move", "pair")}


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


@settings(max_examples=200, deadline=None)
@given(shape=st.sampled_from([(6, 6, "bounded"), (7, 5, "bounded"), (8, 8, "bounded"), (6, 6, "torus"), (9, 9, "torus")]),
       density=st.floats(0.15, 0.35), seed=st.integers(0, 2**32 - 1))
def test_play_moved_reaches_a_fresh_plays_position_from_any_log(shape, density, seed):
    """From any logged play (solved or stuck), the replay of a moved or added mine, or of two mines
    moved at once, must end where a fresh play ends (the closure of sound deductions is unique):
    same verdict, same cells known (for a solved board, the same cells open). Every single-number
    and pair deduction it logs must hold where it stands. The chain goes on from each new log,
    solved or not."""
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
    play_fresh((mines, numbers, nbr), click, 200_000, cur, scratch)
    for _ in range(12):
        space = np.flatnonzero(~mines & free_cells)
        if space.size == 0:
            break
        b = int(rng.choice(space))
        a2 = b2 = -1
        kind = rng.random()
        if kind < 0.3:  # the insertion's step: a mine added at b
            a = -1
            set_mine(mines, numbers, nbr, b, True)
        else:
            a = int(rng.choice(np.flatnonzero(mines)))
            move_mine(mines, numbers, nbr, a, b)
            others = np.flatnonzero(mines & (np.arange(n) != b))
            room = np.flatnonzero(~mines & free_cells & (np.arange(n) != a))
            if kind > 0.7 and others.size and room.size:  # the chain's pair: a second mine to a second cell
                a2, b2 = int(rng.choice(others)), int(rng.choice(room))
                move_mine(mines, numbers, nbr, a2, b2)
        moved = play_moved((mines, numbers, nbr), click, 200_000, cur, nxt, scratch, moved_cells(a, b, a2, b2))
        want = play_fresh((mines, numbers, nbr), click, 200_000, fresh, scratch)
        assert moved == want
        # a solved play may leave mines unflagged once every safe cell is open
        got, wanted = nxt[1][ST], fresh[1][ST]
        same = (got == 1) == (wanted == 1) if want == SOLVED else got == wanted
        assert same.all(), "the replay stopped somewhere else than a fresh play"
        assert _log_holds(mines, numbers, nbr, nxt[0], nxt[1], nxt[2][EVENTS])
        cur, nxt = nxt, cur


# --- the generator ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("method", ["rejection", "chain"])
def test_generated_small_boards_are_no_guess_by_brute_force(method):
    for s in range(12):
        x, y = s % 5, (s * 3) % 4
        r = generate(5, 4, 6, x, y, s, method=method, tries=100_000)
        assert r.certified and r.board.mine_count == 6 and r.method == method
        assert brute_force_no_guess(r.board, x, y)


def test_generated_expert_boards_pass_the_project_solver():
    for m, seeds in ((99, range(6)), (130, range(3)), (170, range(2))):
        for s in seeds:
            r = generate(30, 16, m, 15, 8, s)
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
    for kw in ({"method": "rejection"}, {"method": "chain", "steps": 40}):
        a = generate(30, 16, 99, 15, 8, 42, **kw).board
        assert a == generate(30, 16, 99, 15, 8, 42, **kw).board
        assert a != generate(30, 16, 99, 15, 8, 43, **kw).board
        assert a != generate(30, 16, 99, 14, 8, 42, **kw).board
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    assert generate(16, 16, 40, 3, 3, rng_a).board == generate(16, 16, 40, 3, 3, rng_b).board


def test_the_chain_makes_the_rules_moves_from_either_start():
    free = 30 * 16 - 9
    for start in ("insert", "repair"):
        r = generate(30, 16, 150, 15, 8, 5, method="chain", chain_start=start)
        assert (r.method, r.start, r.steps) == ("chain", start, chain_moves(free, 150, False))
        assert 0 < r.accepted < r.steps and (r.tries > 0) == (start == "repair")
        assert certify(r.board, 15, 8)[0] and r.board.mine_count == 150
    with pytest.raises(InvalidBoardError, match="allowed: insert, repair"):
        generate(30, 16, 170, 15, 8, 3, chain_start="ladder")


def test_the_rule_grows_with_the_mines_and_the_density():
    # more mines, or the same mines on fewer cells, need more moves; an empty or a full board none
    for corner in (False, True):
        assert (chain_moves(471, 99, corner) < chain_moves(471, 130, corner) < chain_moves(471, 170, corner)
                < chain_moves(471, 200, corner))
        assert chain_moves(711, 200, corner) < chain_moves(471, 200, corner)
        assert chain_moves(471, 0, corner) == chain_moves(471, 471, corner) == 0
        assert rejection_tries(471, 0, corner) >= 1


@given(st.integers(16, 1500), st.floats(0.45, 0.9), st.integers(2, 4), st.booleans())
def test_the_rule_spends_more_moves_a_mine_on_a_larger_dense_board_of_the_same_density(free, share, k, corner):
    # the mixing study: from 40% of the free cells mined a larger board mixes slower per mine (per
    # mine at 40%: 16x16 34 moves, 30x16 77, 30x24 175); lighter, the need per mine is about flat
    # in size, or falls (at 20%: 9x9 2.9, 16x16 2.3, 30x16 1.9), and the rule may too
    mines = max(1, int(share * free))
    assert chain_moves(k * free, k * mines, corner) >= k * chain_moves(free, mines, corner) - k


def test_a_click_whose_block_holds_a_corner_cell_gets_the_corner_factor():
    assert all(corner_click(30, 16, x, y) for x, y in ((0, 0), (1, 1), (29, 0), (28, 14), (0, 15)))
    assert not any(corner_click(30, 16, x, y) for x, y in ((2, 2), (15, 0), (0, 8), (27, 1), (15, 8)))
    assert not corner_click(30, 16, 0, 0, "torus")  # (a torus has no corner)
    for free, mines in ((471, 130), (711, 200), (72, 10)):
        assert chain_moves(free, mines, True) == pytest.approx(CORNER_FACTOR * chain_moves(free, mines, False), abs=2)
    r = generate(30, 16, 150, 1, 0, 5, method="chain")
    assert r.steps == chain_moves(30 * 16 - 6, 150, True)  # (a 2x3 block at the top edge)


def test_where_the_insertion_stalls_the_repair_starts():
    r = generate(30, 16, 300, 15, 8, 1, method="chain", steps=50)
    assert r.start == "repair" and r.tries > 0 and r.steps == 50
    assert r.board.mine_count == 300 and certify(r.board, 15, 8)[0]


def test_auto_leaves_rejection_for_the_chain_when_it_is_not_cheap():
    # 30x16 with 99 mines: about 7 boards a certified one, well within what the chain would cost
    r = generate(30, 16, 99, 15, 8, 0)
    assert r.method == "rejection" and r.tries <= rejection_tries(471, 99, False)
    # with 130 thousands of boards: the chain
    r = generate(30, 16, 130, 3, 3, 0)
    assert r.method == "chain" and r.certified and certify(r.board, 3, 3)[0]


def test_a_batch_is_one_warm_chain_where_the_chain_makes_its_boards():
    made = list(boards(16, 16, 100, 2, 13, 7, 5))
    first = generate(16, 16, 100, 2, 13, stream_key(7, 0))
    assert made[0] == first and first.method == "chain"
    assert [r.start for r in made[1:]] == ["batch"] * 4 and len({r.board for r in made}) == 5
    for r in made:
        assert r.certified and certify(r.board, 2, 13)[0] and r.board.mine_count == 100
    assert [r.board for r in boards(16, 16, 100, 2, 13, 7, 5)] == [r.board for r in made]
    # where rejection makes the first board, it makes every board, each from its own seed
    cheap = list(boards(16, 16, 30, 8, 8, 7, 3))
    assert [r.board for r in cheap] == [generate(16, 16, 30, 8, 8, stream_key(7, i)).board for i in range(3)]


def test_exhausted_budget_raises_and_never_returns_an_uncertified_board_as_certified():
    # 85 mines on 10x10 leave 6 free cells outside the click's block: a random board almost never
    # certifies, so 50 tries run out; the repair gets no moves at all
    with pytest.raises(GenerationError, match="no certified no-guess board"):
        generate(10, 10, 85, 5, 5, 0, method="rejection", tries=50)
    with pytest.raises(GenerationError, match="within 0 repair moves"):
        generate(10, 10, 85, 5, 5, 0, method="chain", tries=0)
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
    made = parse_boards(out.read_bytes())
    assert len(made) == 3
    assert len(set(made)) == 3
    # a batch: the generator's own batch for the seed (one warm chain where the chain serves)
    assert made == [r.board for r in boards(16, 16, 40, 7, 7, 5, 3)]
    for b in made:
        assert certify(b, 7, 7)[0]


@pytest.mark.slow
def test_cli_uniformity_reports_and_plots(tmp_path):
    from sweeplab.cli import cli
    png = tmp_path / "heat.png"
    res = CliRunner().invoke(cli, ["uniformity", "--preset", "intermediate", "--boards", "30", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    assert "chi-square per dof" in res.output and "mean 3BV" in res.output and "mine total" in res.output
    assert png.stat().st_size > 1000


# --- the kept references ---------------------------------------------------------------------

# The rejection references' parts: (seed, boards), as make_reference.py drew them, in order.
REJECTION_PARTS = {99: ((0, 5000),), 130: ((0, 2000), (1, 2000), (2, 2000), (3, 10000), (4, 10000))}


@pytest.mark.parametrize("mines", [99, 130])
def test_the_rejection_references_are_what_rejection_draws(mines):
    """The rejection references (about 20 minutes of one core per 2,000 boards at 130 mines, kept as
    data) are exactly uniform over the certified boards: each part's first board is drawn again here
    and compared figure by figure."""
    from sweeplab.lab.uniformity import FIGURES, REFERENCE_OFFSET, Sample, draw_sample
    ref = Sample.load(f"tests/data/noguess_rejection_30x16_{mines}.npz")
    total = sum(k for _, k in REJECTION_PARTS[mines])
    assert (ref.width, ref.height, ref.boards, ref.label) == (30, 16, total, "rejection")
    assert ref.counts.sum() == mines * total and ref.counts[grid.block_mask(30, 16, 15, 8)].sum() == 0
    at = 0
    for seed, k in REJECTION_PARTS[mines]:
        again = draw_sample(30, 16, mines, 15, 8, 1, seed + REFERENCE_OFFSET, method="rejection", tries=1 << 40)
        for name in FIGURES:
            assert getattr(again, name)[0] == getattr(ref, name)[at], (seed, name)
        at += k
    if mines == 99:  # about a third of no-guess expert boards need the mine total (solving.md)
        assert 0.25 < ref.needs_total.mean() < 0.42


@pytest.mark.parametrize("name, height, mines, boards", [("30x16_170", 16, 170, 5000), ("30x16_200", 16, 200, 4000),
                                                        ("30x24_200", 24, 200, 2000)])
def test_the_long_chain_references_hold_what_they_say(name, height, mines, boards):
    from sweeplab.lab.uniformity import Sample
    ref = Sample.load(f"tests/data/noguess_chains_{name}.npz")
    assert (ref.width, ref.height, ref.boards) == (30, height, boards) and ref.label.startswith("long chains")
    assert ref.counts.sum() == mines * boards and ref.counts[grid.block_mask(30, height, 15, height // 2)].sum() == 0
    assert (ref.edge <= mines).all() and (ref.corner <= 4).all() and (ref.touching <= 8 * mines).all()
