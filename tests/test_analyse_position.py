"""The analysis board's positions: every form a person brings one in, and the link's code, read back."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import View
from sweeplab.board import Board
from sweeplab.errors import PositionError
from sweeplab.play.analyse_position import MAX_CELLS, AnalysisPosition, from_cells, read_file_field, read_position


@st.composite
def positions(draw):
    topology = draw(st.sampled_from(["bounded", "torus"]))
    low = 3 if topology == "torus" else 1
    w, h = draw(st.integers(low, 12)), draw(st.integers(low, 9))
    cells = draw(st.lists(st.sampled_from([-2, -1, -1, -1, 0, 1, 2, 3, 8]), min_size=w * h, max_size=w * h))
    mines = draw(st.one_of(st.none(), st.integers(0, w * h)))
    return AnalysisPosition(np.array(cells, dtype=np.int8).reshape(h, w), mines, topology)


@settings(max_examples=200)
@given(positions())
def test_a_code_reads_back_as_its_position(pos):
    code = pos.code
    assert AnalysisPosition.from_code(code) == pos
    assert len(code) <= 12 + 4 * pos.cells.size  # never longer than a few characters a cell


@settings(max_examples=60)
@given(positions())
def test_the_view_text_reads_back(pos):
    if pos.mines is None:
        return
    text = pos.view().to_text()
    assert read_position(text) == (pos, None)
    assert from_cells(pos.text, pos.width, pos.height, pos.mines, pos.topology) == pos


def test_a_long_run_of_hidden_cells_is_short():
    assert AnalysisPosition(np.full((16, 30), -1, dtype=np.int8), 99).code == "30x16x99.H480"
    assert AnalysisPosition.from_code("3x2x-.aHbFc2").text == "0#1F22"
    assert AnalysisPosition.from_code("3x3x1.torus.H9").topology == "torus"


def test_jsminesweeper_positions():
    pos, board = read_position("3x2x2\nH1F\n0MH\n")
    assert board is None and pos.mines == 2
    assert pos.text == "#1F0F#"


def test_forum_grids_with_spaces_borders_and_blanks():
    grid = "+---+---+---+\n| 1 | ? | ? |\n|---|---|---|\n| . | 1 | F |\n+---+---+---+\n"
    pos, _ = read_position(grid)
    assert pos.mines is None and pos.text == "1##01F"
    assert read_position("1??\n.1*\n")[0] == pos
    assert read_position("1 # -\n_ 1 !\n")[0] == pos


def test_board_files_open_before_their_first_click():
    b = Board("*..\n...\n.*.\n")
    for data in (b.to_text(), b.to_json(), b.to_mbf()):
        pos, board = read_position(data)
        assert board == b and pos.mines == 2 and pos.text == "#" * 9
    assert read_position(base64.b64decode(base64.b64encode(b.to_mbf())))[1] == b


def test_a_game_s_cells_read_as_the_player_saw_them():
    # a "?" mark, the mines shown at the end and a wrong flag: hidden, hidden, a flag
    pos = from_cells("1?*XW0", 3, 2, 2)
    assert pos.text == "1###F0"


@pytest.mark.parametrize("text, words", [
    ("", "nothing to read"),
    ("1 ? x\n", "cannot read the row"),
    ("12\n1\n", "differ in length"),
    ("3x3x1\nHHH\n", "3 rows of cells, but 1"),
    ("3x1x1\nHXH\n", "'H' hidden"),
    ("mines: x\n##\n", "not an integer"),
    ("mines: 5\n##\n", "mine total"),
    ("{\"width\": 2}", "as a board file"),
])
def test_bad_text_says_what_is_wrong(text, words):
    with pytest.raises(PositionError, match=words):
        read_position(text)


@pytest.mark.parametrize("code, words", [
    ("9x9x10", "not a position code"), ("3x3x1.H8", "gives 8 cells"), ("3x3x1.H10", "run past"),
    ("3x3x1.Hz", "cells hold 'z'"), ("3x3x10.H9", "mine total"), ("200x200x1.H40000", "at most"),
    ("3x3x1.flat.H9", "topology"), (7, "must be a string"),
])
def test_bad_codes_say_what_is_wrong(code, words):
    with pytest.raises(PositionError, match=words):
        AnalysisPosition.from_code(code)


def test_bad_cells_and_files():
    with pytest.raises(PositionError, match="a 2x2 board has 4"):
        from_cells("###", 2, 2, 1)
    with pytest.raises(PositionError, match="allowed"):
        from_cells("#a##", 2, 2, 1)
    with pytest.raises(PositionError, match="at most"):
        from_cells("#" * (MAX_CELLS + 1), MAX_CELLS + 1, 1, 0)
    with pytest.raises(PositionError, match="width must be an integer"):
        from_cells("##", "2", 1, 0)
    with pytest.raises(PositionError, match="base64"):
        read_file_field("not base64!")
    assert read_file_field(base64.b64encode(b"\x01\x02").decode()) == b"\x01\x02"
    with pytest.raises(PositionError, match="mine total"):
        AnalysisPosition(np.zeros((2, 2), dtype=np.int8), True)
    json.dumps(AnalysisPosition.from_code("2x1x-.H2").text)  # a plain string
    assert AnalysisPosition(View.from_text("mines: 1\n1#\n").cells, 1) == read_position("mines: 1\n1#\n")[0]
