"""Statistics: 3BV against ms-toollib, openings, islands, ZiNi, and a game's click statistics."""

from collections import deque

import ms_toollib
import numpy as np
import pytest
from hypothesis import given

from sweeplab import Board, Game, uniform_board
from sweeplab.presets import PRESETS
from sweeplab.stats import bbbv, board_stats, game_stats, islands, openings, zini

from .strategies import boards


def ms_rows(board: Board) -> list[list[int]]:
    return np.where(board.mines, -1, board.numbers).astype(int).tolist()


@pytest.mark.slow
@pytest.mark.parametrize("level", sorted(PRESETS))
def test_3bv_agrees_with_ms_toollib_on_1000_boards(level):
    w, h, m = PRESETS[level]
    for seed in range(1000):
        board = uniform_board(w, h, m, seed)
        assert bbbv(board) == ms_toollib.cal_bbbv(ms_rows(board)), seed


@pytest.mark.parametrize("level", sorted(PRESETS))
def test_openings_agree_with_ms_toollib(level):
    w, h, m = PRESETS[level]
    for seed in range(300):
        board = uniform_board(w, h, m, seed)
        assert openings(board) == ms_toollib.cal_op(ms_rows(board)), seed


def components(board: Board, members) -> int:
    """Count 8-connected components of a set of flat indices (independent BFS)."""
    members = set(members)
    seen, count = set(), 0
    for s in members:
        if s in seen:
            continue
        count += 1
        seen.add(s)
        todo = deque([s])
        while todo:
            i = todo.popleft()
            for j in board.neighbours[i]:
                j = int(j)
                if j >= 0 and j in members and j not in seen:
                    seen.add(j)
                    todo.append(j)
    return count


@pytest.mark.slow
@given(boards())
def test_3bv_openings_islands_by_definition(board):
    mines, nums = board.flat_mines, board.flat_numbers
    zeros = [i for i in range(board.size) if not mines[i] and nums[i] == 0]
    near_zero = {int(j) for i in zeros for j in board.neighbours[i] if j >= 0}
    lone = [i for i in range(board.size) if not mines[i] and nums[i] > 0 and i not in near_zero]
    n_open = components(board, zeros)
    assert openings(board) == n_open
    assert bbbv(board) == n_open + len(lone)
    assert islands(board) == components(board, lone)


def plain_zini(board: Board) -> int:
    n, mines, nums = board.size, board.flat_mines, board.flat_numbers
    nbr = [[int(j) for j in board.neighbours[i] if j >= 0] for i in range(n)]
    # openings: label zero regions in row-major discovery order; borders keep the first label
    label = [0] * n
    k = 0
    for s in range(n):
        if mines[s] or nums[s] or label[s]:
            continue
        k += 1
        label[s] = k
        todo, done = deque([s]), {s}
        while todo:
            i = todo.popleft()
            for j in nbr[i]:
                if mines[j]:
                    continue
                if not label[j]:
                    label[j] = k
                if nums[j] == 0 and j not in done:
                    done.add(j)
                    todo.append(j)
    opened, flagged = [False] * n, [False] * n

    def open_from(s):
        opened[s] = True
        if nums[s]:
            return
        todo = deque([s])
        while todo:
            i = todo.popleft()
            for j in nbr[i]:
                if not mines[j] and not opened[j]:
                    opened[j] = True
                    if nums[j] == 0:
                        todo.append(j)

    clicks = 0
    while True:
        best, best_p = None, None
        for i in range(n):
            if mines[i] or nums[i] == 0:
                continue
            gain = 1 if (not opened[i] and label[i] == 0) else 0
            cost = 1 + (0 if opened[i] else 1) + sum(1 for j in nbr[i] if mines[j] and not flagged[j])
            gain += sum(1 for j in nbr[i] if not opened[j] and not mines[j] and label[j] == 0)
            gain += len({label[j] for j in nbr[i] if not opened[j] and not mines[j] and nums[j] == 0})
            if gain > 0 and gain - cost >= 0 and (best_p is None or gain - cost > best_p):
                best, best_p = i, gain - cost
        if best is not None:
            if not opened[best]:
                clicks += 1
                opened[best] = True
            for j in nbr[best]:
                if mines[j] and not flagged[j]:
                    flagged[j] = True
                    clicks += 1
            clicks += 1
            for j in nbr[best]:
                if not mines[j] and not opened[j]:
                    open_from(j)
            continue
        rest = [i for i in range(n) if not mines[i] and not opened[i] and (nums[i] == 0 or label[i] == 0)]
        if not rest:
            return clicks
        clicks += 1
        open_from(rest[0])


@pytest.mark.slow
@given(boards(topology="bounded", max_side=10))
def test_zini_kernel_matches_the_plain_greedy(board):
    assert zini(board) == plain_zini(board)
    assert zini(board) <= bbbv(board)


def test_zini_is_close_to_ms_toollib():
    # A second opinion: ms-toollib breaks ties differently, so boards differ by a click or two,
    # but the averages must agree closely.
    ours, theirs = [], []
    for seed in range(200):
        board = uniform_board(30, 16, 99, seed)
        ours.append(zini(board))
        theirs.append(ms_toollib.cal_zini(ms_rows(board)))
    ours, theirs = np.array(ours), np.array(theirs)
    assert abs(ours.mean() - theirs.mean()) < 0.01 * theirs.mean()
    assert np.abs(ours - theirs).max() <= 6


def test_board_stats_fields():
    # Worked by hand: zeros at (2,0),(3,0) and (0,2),(1,2) form two openings whose borders
    # cover every number, so 3BV = 2; the numbers form no island.
    st = board_stats(Board("*...\n....\n...*"))
    assert (st.width, st.height, st.mines, st.bbbv, st.openings, st.islands) == (4, 3, 2, 2, 2, 0)
    assert st.density == pytest.approx(2 / 12)


class StepClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1.0
        return self.now


def test_game_stats_from_the_log():
    board = Board("*..*\n....\n....\n*...")
    game = Game(board, clock=StepClock())
    game.flag(0, 0)        # effective (a flag placed)
    game.open(3, 3)        # opens the opening
    game.open(3, 3)        # wasted
    game.flag(0, 0)        # flag -> ?, not effective
    rest = np.flatnonzero(~board.flat_mines & ~game.view().opened.reshape(-1))
    for i in rest:
        game.open(int(i) % 4, int(i) // 4)
    st = game_stats(game)
    assert st.status == "won"
    assert st.clicks == 4 + len(rest) and st.left_clicks == 2 + len(rest) and st.right_clicks == 2
    assert st.effective_clicks == 2 + len(rest)
    assert st.bbbv == bbbv(board) == st.bbbv_solved
    assert st.ioe == pytest.approx(st.bbbv / st.clicks)
    assert st.correctness == pytest.approx(st.effective_clicks / st.clicks)
    assert st.throughput == pytest.approx(st.bbbv / st.effective_clicks)
    assert st.bbbv_per_second == pytest.approx(st.bbbv / game.elapsed)


def test_solved_3bv_of_a_lost_game_counts_only_finished_units():
    board = Board(".....\n.....\n*****\n.....\n.....")  # two openings, one each side of the wall
    game = Game(board)
    game.open(0, 0)   # the top opening
    game.open(0, 2)   # a mine
    st = game_stats(game)
    assert st.status == "lost" and (st.bbbv_solved, st.bbbv) == (1, 2)
