"""The `sweeplab` command: board and stats, and one clear line with exit 2 for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sweeplab import Board, parse_board, uniform_board
from sweeplab.cli import main
from sweeplab.stats import bbbv


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code or 0, out.out, out.err


@pytest.mark.slow
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
    board = parse_board(data)  # (a text file's 'click: 4,4' line is a file header, as 'topology:' is)
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


@pytest.mark.slow
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


# --- round trips, stdin, tables -----------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["text", "json", "mbf"])
def test_board_count_reads_back_with_stats_one_row_per_board(tmp_path, capsys, fmt):
    from sweeplab import generators
    path = tmp_path / f"b.{fmt}"
    code, _, _ = run(capsys, "board", "--preset", "beginner", "--seed", "3", "--count", "3", "--format", fmt,
                     "--out", str(path))
    assert code == 0
    want = [generators.make("uniform", 9, 9, 10, 3 + i, first_click="none").board_before() for i in range(3)]
    code, out, _ = run(capsys, "stats", str(path), "--json")
    assert code == 0
    assert [r["bbbv"] for r in json.loads(out)] == [bbbv(b) for b in want]
    code, out, _ = run(capsys, "stats", str(path), "--format", "csv")
    lines = out.splitlines()
    assert lines[0].startswith("board,width,height,mines") and len(lines) == 4
    assert [int(line.split(",")[0]) for line in lines[1:]] == [1, 2, 3]


@pytest.mark.slow
def test_stats_reads_stdin():
    board = uniform_board(8, 6, 7, 2)
    for data in (board.to_text().encode(), board.to_mbf(), board.to_json().encode()):
        done = subprocess.run([sys.executable, "-m", "sweeplab", "stats", "-", "--json"], input=data,
                              capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["bbbv"] == bbbv(board)


def test_torus_text_carries_its_topology_and_mbf_refuses_it(tmp_path, capsys):
    path = tmp_path / "t.txt"
    code, _, _ = run(capsys, "board", "--preset", "beginner", "--topology", "torus", "--out", str(path))
    assert code == 0 and path.read_text().startswith("topology: torus\n")
    code, out, _ = run(capsys, "stats", str(path), "--json")
    assert json.loads(out)["topology"] == "torus"
    code, _, err = run(capsys, "board", "--preset", "beginner", "--topology", "torus", "--format", "mbf")
    assert code == 2 and "MBF has no topology field" in err


@pytest.mark.parametrize("text, message", [
    ("*.x\n...\n", "holds 'x'"), ("*.. \n...\n", "holds ' '"), ("*..\t\n", "holds '\\t'"),
    ("[1, 2]", "must be an object"),
])
def test_stats_lets_the_right_reader_explain(tmp_path, capsys, text, message):
    path = tmp_path / "bad"
    path.write_text(text)
    code, _, err = run(capsys, "stats", str(path))
    assert code == 2 and message in err and "MBF" not in err and len(err.strip().splitlines()) == 1


def test_board_count_svg_is_one_document(capsys):
    import xml.etree.ElementTree as ET
    code, out, _ = run(capsys, "board", "--preset", "beginner", "--count", "3", "--format", "svg")
    assert code == 0
    root = ET.fromstring(out)  # one root, or this raises
    assert len([e for e in root if e.tag.endswith("g")]) == 3
    mines = [e for e in root.iter() if e.tag.endswith("circle")]
    assert len(mines) == 30


# --- solve: strict JSON, hidden cells never shown as numbers ---------------------------------------
POSITION = "mines: 10\n##########\n#F11######\n#1100#####\n#1000#####\n#100000###\n##########\n"


def test_solve_json_is_strict_even_with_trusted_flags(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text(POSITION)
    code, out, _ = run(capsys, "solve", str(path), "--json", "--trust-flags")
    assert code == 0

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    data = json.loads(out, parse_constant=refuse)
    assert data["probability"][1][1] is None  # the trusted flag at (1, 1)
    assert "trusted flags" in data["probability_null"]
    assert data["probability"][0][0] is not None


def test_solve_grid_never_shows_a_hidden_cell_as_a_number(tmp_path, capsys):
    """One mine among ~400 hidden cells: each is 0.25%, which must not print as the open number 0."""
    path = tmp_path / "p.txt"
    rows = ["0" + "#" * 19] + ["#" * 20] * 19
    path.write_text("mines: 1\n" + "\n".join(rows) + "\n")
    code, out, _ = run(capsys, "solve", str(path))
    assert code == 0
    grid = out.splitlines()[-20:]
    cells = [c for line in grid for c in line.split()]
    assert len(cells) == 400 and cells[0] == "0"
    assert cells.count("<1%") == 400 - 1 - 3 and cells.count("S") == 3
