"""Formats round-trip (text, MBF, JSON, view text, SVG) and bad input says what is wrong."""

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import Board, FormatError, View, parse_board

from .strategies import boards


@given(boards())
def test_text_round_trip(board):
    assert Board.from_text(board.to_text(), board.topology) == board


@given(boards(topology="bounded", max_side=40))
def test_mbf_round_trip(board):
    data = board.to_mbf()
    assert len(data) == 4 + 2 * board.mine_count
    assert Board.from_mbf(data) == board


@given(boards())
def test_json_round_trip(board):
    assert Board.from_json(board.to_json()) == board


@given(boards(topology="bounded"))
def test_parse_board_detects_each_format(board):
    for data in (board.to_text().encode(), board.to_mbf(), board.to_json().encode()):
        if data.strip() == b"" :
            continue
        assert parse_board(data) == board


def test_mbf_layout_is_as_specified():
    # width, height, 2-byte big-endian count, then (x, y) byte pairs
    b = Board("..*\n*..")
    assert b.to_mbf() == bytes([3, 2, 0, 2, 2, 0, 0, 1])


@given(st.integers(3, 12), st.integers(3, 12), st.integers(0, 2**32), st.floats(0, 0.4))
def test_view_text_round_trip(w, h, seed, p):
    rng = np.random.default_rng(seed)
    cells = rng.integers(-2, 9, size=(h, w)).astype(np.int8)
    view = View(cells, int(rng.integers(0, w * h + 1)), topology=rng.choice(["bounded", "torus"]))
    assert View.from_text(view.to_text()) == view


@given(boards())
def test_svg_is_well_formed_and_shows_every_mine(board):
    root = ET.fromstring(board.to_svg())
    circles = [e for e in root.iter() if e.tag.endswith("circle")]
    assert len(circles) == board.mine_count
    assert root.get("width") == str(board.width * 20)


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("*.\n*", "row 2 has 1 cells"),
    ("*x\n..", "allowed: '\\*' \\(mine\\) and '.' \\(safe\\)"),
])
def test_bad_text_says_what_is_wrong(text, message):
    with pytest.raises(FormatError, match=message):
        Board.from_text(text)


@pytest.mark.parametrize("data, message", [
    (b"\x03", "too short"),
    (b"\x00\x03\x00\x00", "width and height must be 1..255"),
    (b"\x03\x03\x00\x02\x00\x00", "needs 8 bytes"),
    (b"\x03\x03\x00\x01\x05\x00", "off the 3x3"),
    (b"\x03\x03\x00\x02\x01\x01\x01\x01", "twice"),
])
def test_bad_mbf_says_what_is_wrong(data, message):
    with pytest.raises(FormatError, match=message):
        Board.from_mbf(data)


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ("[]", "must be an object"),
    ('{"width": 3}', "lacks height, mines"),
    ('{"width": 3, "height": 3, "mines": [[3, 0]]}', "off the 3x3"),
    ('{"width": 3, "height": 3, "mines": [[0]]}', "pairs"),
    ('{"width": 0, "height": 3, "mines": []}', "width 0"),
])
def test_bad_json_says_what_is_wrong(text, message):
    with pytest.raises(FormatError, match=message):
        Board.from_json(text)


@pytest.mark.parametrize("text, message", [
    ("###\n###", "mines: N"),
    ("mines: 3\n#x#", "allowed: '#' hidden"),
    ("mines: 3\n###\n##", "differ in length"),
    ("mines: many\n###", "not an integer"),
    ("colour: red\n###", "unknown header"),
])
def test_bad_view_text_says_what_is_wrong(text, message):
    with pytest.raises(FormatError, match=message):
        View.from_text(text)


def test_mbf_refuses_what_it_cannot_hold():
    with pytest.raises(FormatError, match="255x255"):
        Board(np.zeros((2, 300), dtype=bool)).to_mbf()
    with pytest.raises(FormatError, match="topology"):
        Board("*..\n...\n...", topology="torus").to_mbf()


def test_json_carries_topology():
    b = Board("*..\n...\n...", topology="torus")
    assert json.loads(b.to_json())["topology"] == "torus"
