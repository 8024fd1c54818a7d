"""WinMine (Windows 3.1 to XP): placement, sessions, versions and limits, the first-click shift, golden boards."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import Board, Game, generators
from sweeplab.cli import cli
from sweeplab.errors import InvalidBoardError
from sweeplab.generators import make_rule
from sweeplab.generators.winmine import VERSIONS, Shift, WinMineSession, shift_target, version, winmine_board

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_microsoft.json").read_text())


def plain_winmine(state, width, height, mines):
    """WinMine's placement written plainly (docs/board-cycles.md): x = rand() % width, then y = rand() %
    height, drawn again while the cell holds a mine."""
    def rand():
        nonlocal state
        state = (state * 214013 + 2531011) % 2**32
        return (state >> 16) & 0x7FFF
    board = [["."] * width for _ in range(height)]
    for _ in range(mines):
        while True:
            x = rand() % width
            y = rand() % height
            if board[y][x] == ".":
                break
        board[y][x] = "*"
    return "".join("".join(r) + "\n" for r in board), state


def plain_shift_target(text):
    """The first free cell scanning rows from the top, left to right, one short of the last row and column."""
    rows = text.split()
    for y in range(len(rows) - 1):
        for x in range(len(rows[0]) - 1):
            if rows[y][x] == ".":
                return x, y
    return None


sizes = st.tuples(st.integers(1, 40), st.integers(1, 40)).flatmap(
    lambda wh: st.tuples(st.just(wh[0]), st.just(wh[1]), st.integers(0, wh[0] * wh[1] - 1)))


@pytest.mark.slow
@given(st.integers(0, 2**32 - 1), sizes)
def test_placement_matches_the_spec(state, size):
    w, h, m = size
    board, after = winmine_board(state, w, h, m)
    want, want_after = plain_winmine(state, w, h, m)
    assert board.to_text() == want and after == want_after


@pytest.mark.parametrize("entry", GOLDEN["winmine"], ids=lambda e: f"{e['version']}-{e.get('tick', e.get('state'))}")
def test_golden_sessions(entry):
    start = {"tick": entry["tick"]} if "tick" in entry else {"state": entry["state"]}
    s = WinMineSession(entry["version"], **start)
    plain_state = s.state
    for g in entry["games"]:
        lv = g["level"]
        b = s.next_board(lv) if isinstance(lv, str) else s.next_board(width=lv[0], height=lv[1], mines=lv[2])
        w, h, m = s.level
        want, plain_state = plain_winmine(plain_state, w, h, m)   # the stream simply continues
        assert b.to_text() == g["board"] == want
        assert s.state == g["state_after"] == plain_state


def test_session_never_reseeds_and_level_changes_continue_the_stream():
    s = WinMineSession("winxp", tick=77)
    state = 77
    for level in ("beginner", "expert", "beginner", "intermediate"):
        b = s.next_board(level)
        w, h, m = s.level
        want, state = plain_winmine(state, w, h, m)
        assert b.to_text() == want
    assert s.games == 4 and s.start_state == 77


def test_versions_presets_and_limits():
    assert version("win98").beginner == (8, 8, 10) and version("winnt").beginner == (8, 8, 10)
    assert version("win2000").beginner == (9, 9, 10) and version("xp").beginner == (9, 9, 10)
    assert all(v.presets["expert"] == (30, 16, 99) for v in VERSIONS.values())
    xp = version("winxp")
    assert xp.max_mines(30, 24) == 667 and xp.max_mines(9, 9) == 64
    with pytest.raises(InvalidBoardError, match="allowed 9..30"):
        xp.level(width=8, height=9, mines=10)
    with pytest.raises(InvalidBoardError, match="allowed 9..24"):
        xp.level(width=9, height=25, mines=10)
    with pytest.raises(InvalidBoardError, match="allowed 10..64"):
        xp.level(width=9, height=9, mines=65)
    with pytest.raises(InvalidBoardError, match="allowed 10..49"):
        version("win98").level(width=8, height=8, mines=9)
    assert version("win95").level(width=8, height=8, mines=49) == (8, 8, 49)
    with pytest.raises(InvalidBoardError, match="allowed: win31"):
        version("win10")
    with pytest.raises(InvalidBoardError, match="0..65535"):
        WinMineSession("winxp", tick=65536)


# --- the first click -------------------------------------------------------------------------------

@given(st.integers(0, 2**32 - 1), st.sampled_from([(8, 8, 10), (9, 9, 40), (16, 16, 99), (30, 16, 99)]),
       st.data())
def test_shift_moves_a_mine_to_the_first_free_scanned_cell(state, level, data):
    board, _ = winmine_board(state, *level)
    rule = Shift(board)
    x = data.draw(st.integers(0, level[0] - 1))
    y = data.draw(st.integers(0, level[1] - 1))
    placed = rule.board_for(x, y)
    target = plain_shift_target(board.to_text())
    assert shift_target(board) == target
    if not board.is_mine(x, y):
        assert placed == (board, True)
    elif target is None:
        assert placed is None
    else:
        new, check_win = placed
        assert check_win is False
        want = [list(r) for r in board.to_text().split()]
        want[y][x], want[target[1]][target[0]] = ".", "*"
        assert new.to_text() == "".join("".join(r) + "\n" for r in want)


def test_shift_stops_one_short_of_last_row_and_column():
    # every cell of the scanned area is a mine; only the last row and column are free
    text = "".join("*" * 7 + ".\n" for _ in range(7)) + "........\n"
    board = Board(text)
    assert shift_target(board) is None
    game = Game(rule=Shift(board))
    assert game.open(0, 0) == 0 and game.status == "ready" and game.timer == 0  # the click did nothing
    assert game.open(7, 7) > 0 and game.status in ("playing", "won")


def test_one_click_bug_no_win_test_after_a_shift():
    # one mine at (3, 3) and (0, 0) free: a first click on the mine sends it to (0, 0), far from
    # (3, 3), which is then a 0 whose cascade opens every safe cell
    text = "\n".join(["." * 8] * 3) + "\n" + "...*....\n" + "\n".join(["." * 8] * 4) + "\n"
    board = Board(text)
    game = Game(rule=Shift(board))
    opened = game.open(3, 3)
    assert game.board.is_mine(0, 0) and not game.board.is_mine(3, 3)
    assert opened == 63  # every safe cell opened in one click ...
    assert game.status == "playing"  # ... and no win declared: the one-click bug
    plain = Game(rule=Shift(board))
    plain.open(7, 7)  # no shift: the usual win test runs
    assert plain.status == "won"


def test_right_click_and_chord_are_not_first_clicks():
    board, _ = winmine_board(5, 9, 9, 10)
    mx, my = board.mine_positions()[0]
    game = Game(rule=Shift(board))
    game.flag(mx, my)
    game.flag(mx, my)  # flag -> "?"
    game.flag(mx, my)  # "?" -> hidden
    game.chord(mx, my)  # a chord first: starts the timer, opens nothing
    assert game.status == "ready" and game.timer >= 1
    game.open(mx, my)
    assert game.status != "lost" and not game.board.is_mine(mx, my)


# --- registry and command line --------------------------------------------------------------------

def test_registry_names_and_aliases():
    for name, v in [("winxp", "winxp"), ("xp", "winxp"), ("win2000", "win2000"), ("win98", "win98"),
                    ("win95", "win95"), ("win31", "win31"), ("winme", "winme"), ("winnt", "winnt")]:
        assert generators.lookup(name).name == v
        assert generators.lookup(name).first_clicks == ("shift", "none")
    rule = generators.make("xp", 16, 16, 40, 321)
    assert rule.board_before() == WinMineSession("winxp", tick=321, preset="intermediate").next_board()
    rule = generators.make("win98", 8, 8, 10, 0, state=2**31 + 5, game=2)
    s = WinMineSession("win98", state=2**31 + 5)
    s.boards(2)
    assert rule.board_before() == s.next_board()
    with pytest.raises(InvalidBoardError, match="16-bit"):
        generators.make("winxp", 9, 9, 10, 70000)
    with pytest.raises(InvalidBoardError, match="allowed 9..30"):
        generators.make("winxp", 8, 8, 10, 0)
    assert generators.make("win98", 8, 8, 10, 0).board_before().width == 8
    fixed = generators.make("winxp", 9, 9, 10, 3, first_click="none")
    assert fixed.name == "none" and fixed.board_before() == WinMineSession("winxp", tick=3).next_board()
    shift = make_rule("shift", 9, 9, 10, 2**32 - 1)
    assert shift.board_before() == winmine_board(2**32 - 1, 9, 9, 10)[0]


def test_board_command_with_state():
    r = CliRunner().invoke(cli, ["board", "--generator", "winxp", "--state", "3735928559", "--preset", "expert"])
    assert r.exit_code == 0, r.output
    want, _ = plain_winmine(3735928559, 30, 16, 99)
    assert r.output.startswith(want)
    r = CliRunner().invoke(cli, ["board", "--generator", "win98", "--width", "8", "--height", "8", "--mines", "10",
                                 "--seed", "0"])
    assert r.output.startswith(plain_winmine(0, 8, 8, 10)[0])


def test_next_rule_makes_a_game_with_the_shift():
    s = WinMineSession("winxp", tick=9)
    g = Game(rule=s.next_rule())
    assert g.rule.name == "shift" and g.laid == WinMineSession("winxp", tick=9).next_board()
    assert g.rule.spec() == {"rule": "shift", "version": "winxp", "state": 9}
    assert np.count_nonzero(g.laid.mines) == 10
