"""Windows 7: placement at the first click, the 3x3 exclusion, order-kept removal, restart, the clamp."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import Game, generators
from sweeplab.cli import cli
from sweeplab.errors import InvalidBoardError
from sweeplab.generators.win7 import CLAMP_MESSAGE, Win7, Win7Notice, win7_board

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_microsoft.json").read_text())


def plain_win7(seed, width, height, mines, cx, cy):
    """Windows 7's placement written plainly: the C runtime's rand(), and at the first click each mine
    drawn as rand() % (cells left) from the list of cells outside the click's 3x3 block, then taken out."""
    state = seed

    def rand():
        nonlocal state
        state = (state * 214013 + 2531011) % 2**32
        return (state >> 16) & 0x7FFF
    candidates = [y * width + x for y in range(height) for x in range(width)
                  if not (abs(x - cx) <= 1 and abs(y - cy) <= 1)]
    mines = min(mines, width * height - 9)
    cells = set()
    while len(cells) < mines and candidates:
        i = rand() % len(candidates)
        cells.add(candidates.pop(i))
    return "".join("".join("*" if y * width + x in cells else "." for x in range(width)) + "\n"
                   for y in range(height))


levels = st.tuples(st.integers(9, 30), st.integers(9, 24)).flatmap(
    lambda wh: st.tuples(st.just(wh[0]), st.just(wh[1]), st.integers(0, wh[0] * wh[1] - 9)))


@pytest.mark.slow
@given(st.integers(0, 2**32 - 1), levels, st.data())
def test_placement_matches_the_spec(seed, level, data):
    w, h, m = level
    x, y = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1))
    b = win7_board(seed, w, h, m, x, y)
    assert b.to_text() == plain_win7(seed, w, h, m, x, y)
    assert b.mine_count == m
    assert not b.mines[max(0, y - 1):y + 2, max(0, x - 1):x + 2].any()  # the click always opens


@pytest.mark.parametrize("entry", GOLDEN["win7"], ids=lambda e: f"{e['seed']}-{e['width']}x{e['height']}")
def test_golden_boards(entry):
    args = (entry["seed"], entry["width"], entry["height"], entry["mines"], *entry["click"])
    assert win7_board(*args).to_text() == entry["board"] == plain_win7(*args)


def test_restart_gives_the_same_board_and_seeds_differ():
    rule = Win7(16, 16, 40, 1262304000)
    first = rule.board_for(3, 4)[0]
    assert rule.restart(3, 4) == first
    assert Win7(16, 16, 40, 1262304001).board_for(3, 4)[0] != first
    g = Game(rule=rule)
    assert g.open(3, 4) > 1 and g.board == first  # the click opens an opening


def test_clamp_is_announced_not_silent():
    with pytest.warns(Win7Notice, match=CLAMP_MESSAGE):
        rule = Win7(9, 9, 80, 5)
    assert rule.mines == 72 and rule.asked == 80 and CLAMP_MESSAGE in rule.notice
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Win7(9, 9, 72, 5).notice is None  # exactly w*h - 9: no clamp


def test_limits_and_registry():
    assert generators.lookup("vista").name == "win7"
    rule = generators.make("win7", 30, 16, 99, 1700000000)
    assert rule.board_before() is None
    assert rule.board_for(0, 0)[0] == win7_board(1700000000, 30, 16, 99, 0, 0)
    with pytest.raises(InvalidBoardError, match="allowed 9..30"):
        Win7(31, 16, 99, 0)
    with pytest.raises(InvalidBoardError, match="allowed 9..24"):
        Win7(9, 25, 10, 0)
    with pytest.raises(InvalidBoardError, match="not state"):
        generators.make("win7", 9, 9, 10, 0, state=5)
    with pytest.raises(InvalidBoardError, match="0..4294967295"):
        Win7(9, 9, 10, 2**32)


def test_board_command():
    r = CliRunner().invoke(cli, ["board", "--generator", "win7", "--seed", "1262304000", "--preset", "intermediate",
                                 "--click", "15,15"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("click: 15,15\n" + plain_win7(1262304000, 16, 16, 40, 15, 15))
    r = CliRunner().invoke(cli, ["board", "--generator", "win7", "--seed", "1", "--preset", "beginner"])
    assert r.exit_code != 0


def test_corner_click_keeps_only_the_clipped_block_free():
    b = win7_board(99, 9, 9, 72, 0, 0)  # 4 cells of the block exist; 81 - 4 candidates for 72 mines
    assert not b.mines[:2, :2].any() and np.count_nonzero(b.mines) == 72
