"""Board: numbers, neighbours, identity, immutability, uniform generation."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import Board, InvalidBoardError, uniform_board
from sweeplab.grid import block_mask, neighbour_table

from .strategies import boards


def brute_numbers(mines: np.ndarray, torus: bool) -> np.ndarray:
    h, w = mines.shape
    out = np.zeros((h, w), dtype=int)
    for y in range(h):
        for x in range(w):
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    if dx == dy == 0:
                        continue
                    nx, ny = x + dx, y + dy
                    if torus:
                        nx, ny = nx % w, ny % h
                    elif not (0 <= nx < w and 0 <= ny < h):
                        continue
                    out[y, x] += mines[ny, nx]
    return out


@given(boards())
def test_numbers_equal_neighbour_mine_counts(board):
    assert np.array_equal(board.numbers, brute_numbers(board.mines, board.topology == "torus"))


@pytest.mark.slow
@given(boards())
def test_neighbour_table_is_symmetric_and_distinct(board):
    nbr = neighbour_table(board.width, board.height, board.topology)
    for i in range(board.size):
        row = [j for j in nbr[i] if j >= 0]
        assert len(row) == len(set(row)) and i not in row
        for j in row:
            assert i in nbr[j]


def test_torus_corner_sees_the_opposite_corners():
    b = Board("...\n...\n..*", topology="torus")
    assert b.number(0, 0) == 1
    assert Board("...\n...\n..*").number(0, 0) == 0


@given(boards())
def test_repr_rebuilds_the_board(board):
    rebuilt = eval(repr(board), {"Board": Board})
    assert rebuilt == board and hash(rebuilt) == hash(board)


def test_board_is_immutable():
    b = Board("*.\n..")
    with pytest.raises(ValueError):
        b.mines[0, 0] = False
    with pytest.raises(ValueError):
        b.numbers[0, 0] = 3


def test_equality_sees_topology():
    assert Board("*..\n...\n...") != Board("*..\n...\n...", topology="torus")


@pytest.mark.parametrize("args", [(0, 5, 1), (5, 0, 1), (1001, 5, 1), (5, 5, 26), (5, 5, -1)])
def test_impossible_sizes_are_rejected(args):
    with pytest.raises(InvalidBoardError, match="allowed"):
        uniform_board(*args, seed=1)


def test_small_torus_is_rejected():
    with pytest.raises(InvalidBoardError, match="torus"):
        Board("*.\n..", topology="torus")


@given(st.integers(1, 30), st.integers(1, 24), st.data())
def test_uniform_board_has_the_mines_and_avoids_excluded_cells(w, h, data):
    n = w * h
    x, y = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1))
    exclude = block_mask(w, h, x, y)
    mines = data.draw(st.integers(0, n - int(exclude.sum())))
    seed = data.draw(st.integers(0, 2**63))
    b = uniform_board(w, h, mines, seed, exclude=exclude)
    assert b.mine_count == mines
    assert not b.flat_mines[exclude].any()
    assert b == uniform_board(w, h, mines, seed, exclude=exclude)  # seeded


def test_uniform_board_is_uniform_on_a_tiny_grid():
    # 2 mines on 4 cells: 6 layouts, each should appear about 1/6 of the time.
    counts = {}
    for seed in range(6000):
        key = tuple(uniform_board(2, 2, 2, seed).flat_mines)
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6
    expected = 1000
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 20.5  # 5 degrees of freedom, p ~ 0.001


def test_generator_seed_is_accepted_and_reproducible():
    a = uniform_board(30, 16, 99, np.random.default_rng(7))
    b = uniform_board(30, 16, 99, np.random.default_rng(7))
    assert a == b


def test_bad_seed_is_rejected():
    with pytest.raises(ValueError, match="seed"):
        uniform_board(9, 9, 10, seed=-3)
    with pytest.raises(ValueError, match="seed"):
        uniform_board(9, 9, 10, seed="abc")


def test_golden_uniform_boards_do_not_change():
    # Pinned on first release: the same seed must give the same board in every later version.
    import json
    from pathlib import Path
    golden = json.loads((Path(__file__).parent / "data" / "golden_uniform.json").read_text())
    for case in golden:
        b = uniform_board(case["width"], case["height"], case["mines"], case["seed"])
        assert b.to_text() == case["text"], case["seed"]



def test_a_board_counts_its_numbers_with_the_certifier_s_compile_of_the_kernel(tmp_path):
    """The no-guess certifier counts numbers of writable mines (made in compiled code); a board hands
    the kernel its mines writable too, so the first no-guess click compiles the kernel once. A fresh
    process and numba cache: only this board's call types the kernel."""
    code = ("import numba, numpy as np\n"
            "from sweeplab import Board\n"
            "from sweeplab.kernels import count_numbers\n"
            "Board('*..\\n...\\n...')\n"
            "print(*[str(s[0]) for s in count_numbers.signatures], sep='|')\n"
            "print(numba.typeof(np.zeros(1, np.bool_)))\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    compiled, writable = out.stdout.splitlines()
    assert compiled == writable
