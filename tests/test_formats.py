"""Formats round-trip (text, MBF, JSON, view text, SVG) and bad input says what is wrong."""

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import Board, FormatError, View, parse_board

from .strategies import boards


@pytest.mark.slow
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


# --- files of several boards ----------------------------------------------------------------------
from sweeplab.board import detect_format, dump_boards, load_boards, parse_boards  # noqa: E402


@pytest.mark.slow
@given(st.lists(boards(), min_size=1, max_size=5), st.sampled_from(["text", "json"]))
def test_multi_board_files_round_trip_with_their_topology(bs, fmt):
    assert parse_boards(dump_boards(bs, fmt)) == bs


@pytest.mark.slow
@given(st.lists(boards(topology="bounded", max_side=40), min_size=1, max_size=5))
def test_mbf_records_in_a_row_round_trip(bs):
    data = dump_boards(bs, "mbf")
    assert len(data) == sum(4 + 2 * b.mine_count for b in bs)
    assert parse_boards(data) == bs


@pytest.mark.slow
@given(st.lists(boards(), min_size=1, max_size=4))
def test_a_json_array_of_boards_reads_back(bs):
    assert parse_boards(json.dumps([b.to_dict() for b in bs]).encode()) == bs


@given(boards())
def test_format_is_detected_from_the_content(board):
    assert detect_format(dump_boards([board], "text")) == "text"
    assert detect_format(dump_boards([board], "json")) == "json"
    if board.topology == "bounded" and board.mine_count:
        assert detect_format(board.to_mbf()) == "mbf"


def test_text_carries_the_torus_and_bounded_text_stays_plain():
    torus = Board("*...\n....\n....", topology="torus")
    text = dump_boards([torus], "text").decode()
    assert text.splitlines()[0] == "topology: torus"
    assert parse_boards(text.encode()) == [torus]
    assert dump_boards([Board("*..\n...")], "text") == b"*..\n...\n"
    with pytest.raises(FormatError, match="says 'topology: torus' but topology bounded"):
        parse_boards(text.encode(), "bounded")


@pytest.mark.parametrize("data, message", [
    (b"*.x\n...\n", "row 1 holds 'x'"),
    (b"*.. \n...\n", "row 1 holds ' '"),
    (b"*..\t\n...\n", "row 1 holds '\\t'"),
    (b"[1, 2]", "board 1: a JSON board must be an object"),
    (b'{"width": 3}', "JSON board lacks height, mines"),
    (b'{"width": 3, "height": 3, "mines": []}\n{"width": 3\n', "JSON line 2"),
    (b"...\n...\n\n*.\n...\n", "board 2: board text row 2 has 3 cells, row 1 has 2"),
])
def test_each_format_explains_its_own_errors(data, message):
    """Text with a stray character or a JSON array is not sent to the MBF reader."""
    with pytest.raises(FormatError) as e:
        parse_boards(data)
    assert message in str(e.value) and "MBF" not in str(e.value)


def test_empty_input_says_what_was_expected():
    with pytest.raises(FormatError, match="empty input; expected a board as text"):
        parse_boards(b" \n")


def test_a_short_mbf_record_is_explained_by_number(tmp_path):
    good = Board("*..\n..*").to_mbf()
    with pytest.raises(FormatError, match="board 2: MBF says 2 mines, so it needs 8 bytes; it has 5"):
        parse_boards(good + good[:5])
    path = tmp_path / "two.mbf"
    path.write_bytes(good + good)
    assert load_boards(path) == [Board("*..\n..*")] * 2
