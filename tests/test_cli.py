"""The `sweeplab` command: board and stats, and one clear line with exit 2 for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sweeplab import Board, uniform_board
from sweeplab.cli import main
from sweeplab.stats import bbbv


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code or 0, out.out, out.err


def test_board_prints_the_seeded_board_and_its_3bv(capsys):
    code, out, err = run(capsys, "board", "--preset", "expert", "--seed", "1")
    assert code == 0
    board = Board.from_text(out)
    assert board == uniform_board(30, 16, 99, 1)
    assert f"3BV {bbbv(board)}" in err


@pytest.mark.parametrize("fmt", ["text", "mbf", "json", "svg"])
def test_board_writes_each_format(tmp_path, capsys, fmt):
    path = tmp_path / f"b.{fmt}"
    code, out, _ = run(capsys, "board", "--preset", "beginner", "--seed", "5", "--click", "4,4",
                       "--first-click", "opening", "--format", fmt, "--out", str(path))
    assert code == 0 and "3BV" in out
    data = path.read_bytes()
    if fmt == "svg":
        assert data.startswith(b"<svg")
        return
    board = {"text": lambda d: Board.from_text(d.decode()), "mbf": Board.from_mbf,
             "json": lambda d: Board.from_json(d.decode())}[fmt](data)
    assert board.mine_count == 10 and not board.mines[3:6, 3:6].any()
    code, out, _ = run(capsys, "stats", str(path), "--json")
    assert code == 0 and json.loads(out)["bbbv"] == bbbv(board)


@pytest.mark.parametrize("args, message", [
    (["board", "--width", "0", "--height", "5", "--mines", "1"], "width 0 is out of range"),
    (["board", "--width", "5", "--height", "5", "--mines", "30"], "30 mines do not fit"),
    (["board", "--preset", "beginner", "--click", "9,0", "--first-click", "safe"], "off the 9x9 board"),
    (["board", "--preset", "beginner", "--click", "nine"], "not a cell"),
    (["board", "--preset", "beginner", "--first-click", "opening"], "give --click"),
    (["board", "--preset", "beginner", "--seed", "-1"], "non-negative"),
    (["board", "--generator", "nope"], "unknown generator"),
    (["board", "--width", "9"], "needs --width, --height and --mines"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) <= 2 and out == ""


def test_malformed_file_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("*.\n*")
    code, _, err = run(capsys, "stats", str(path))
    assert code == 2 and "row 2 has 1 cells" in err and len(err.strip().splitlines()) == 1


def test_console_script_and_module_run():
    script = Path(sys.executable).with_name("sweeplab")  # the venv's console script
    for cmd in ([str(script)], [sys.executable, "-m", "sweeplab"]):
        done = subprocess.run([*cmd, "board", "--width", "4", "--height", "3", "--mines", "2", "--seed", "3"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert Board.from_text(done.stdout) == uniform_board(4, 3, 2, 3)


def test_winmine_levels_follow_the_version_and_count_continues_the_session(tmp_path, capsys):
    from sweeplab.generators.winmine import WinMineSession
    out = tmp_path / "b.txt"
    code, _, _ = run(capsys, "board", "--generator", "win98", "--preset", "beginner", "--seed", "7",
                     "--count", "3", "--out", str(out))
    assert code == 0
    boards = [Board.from_text(chunk) for chunk in out.read_text().split("\n\n")]
    session = WinMineSession("win98", tick=7)
    assert boards == [session.next_board("beginner") for _ in range(3)]
    assert boards[0].width == boards[0].height == 8
    code, text, _ = run(capsys, "board", "--generator", "winxp", "--preset", "beginner", "--seed", "7")
    assert Board.from_text(text).width == 9
