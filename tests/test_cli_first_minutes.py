"""What a new user meets on the command line: commands compute only what they print and stream what
they write, huge or hostile inputs get one line, messages name the right command, plurals read right."""

import itertools
import json
import os
import pty
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import sweeplab.cli.boards as boards_cli
import sweeplab.stats as stats_mod
from sweeplab import Board, load_board, uniform_board
from sweeplab.board import parse_boards
from sweeplab.stats import board_stats

from .test_cli import run
from .test_cli_errors import one_line_exit_2


# --- 7: only what is printed; streamed output ---------------------------------------------------------
def test_board_does_not_compute_zini_which_it_does_not_print(capsys, monkeypatch):
    def no_zini(*_):
        raise AssertionError("board computed ZiNi")
    asked = []
    figures = stats_mod.figures_kernel

    def measuring(mines, nbr, zini):
        asked.append(zini)
        return figures(mines, nbr, zini)
    monkeypatch.setattr(stats_mod, "zini", no_zini)
    monkeypatch.setattr(stats_mod, "figures_kernel", measuring)
    code, _, err = run(capsys, "board", "--preset", "expert", "--seed", "3", "--count", "2")
    assert code == 0 and err.count("3BV") == 1 and err.startswith("2 boards, "), err
    assert asked == [False, False]


def test_board_svg_count_is_written_as_each_board_is_made(tmp_path, capsys, monkeypatch):
    out = tmp_path / "boards.svg"
    sizes = []
    lay = boards_cli.lay_board

    def laying(*args, **kw):
        sizes.append(out.stat().st_size if out.exists() else 0)
        return lay(*args, **kw)
    monkeypatch.setattr(boards_cli, "lay_board", laying)
    code, _, _ = run(capsys, "board", "--preset", "beginner", "--count", "4", "--format", "svg", "-o", str(out))
    assert code == 0
    assert sizes[0] == 0 and sizes[1] > 0 and sizes == sorted(sizes) and len(set(sizes)) == 4  # grows per board
    root = ET.fromstring(out.read_text())
    groups = root.findall("{http://www.w3.org/2000/svg}g")
    one = ET.fromstring(uniform_board(9, 9, 10, 0).to_svg())
    h = float(one.get("height"))
    assert len(groups) == 4 and float(root.get("height")) == 4 * h + 3 * boards_cli.BoardWriter.GAP
    assert groups[3].get("transform") == f"translate(0,{3 * (h + boards_cli.BoardWriter.GAP):g})"


def test_stats_measures_boards_as_they_come_and_agrees_with_one_at_a_time():
    from sweeplab.stats import stats_of_layouts
    rng = np.random.default_rng(7)

    def endless():  # boards of mixed sizes and topologies, without end: nothing may hold them all
        for i in itertools.count():
            w, h = int(rng.integers(3, 9)), int(rng.integers(3, 9))
            topo = "torus" if i % 5 == 0 else "bounded"
            yield w, h, rng.random(w * h) < 0.25, topo

    got = list(itertools.islice(stats_of_layouts(endless()), 50))
    rng = np.random.default_rng(7)
    want = [board_stats(Board._from_flat(w, h, m, t)) for w, h, m, t in itertools.islice(endless(), 50)]
    assert got == want
    plain = next(stats_of_layouts([(9, 9, uniform_board(9, 9, 10, 1).flat_mines, "bounded")], with_zini=False))
    assert plain.zini == 0 and plain.bbbv == board_stats(uniform_board(9, 9, 10, 1)).bbbv


def test_stats_of_many_tiny_boards_reads_them_all_in_file_order(tmp_path, capsys):
    boards = [Board(np.random.default_rng(i).random((1 + i % 4, 1 + i % 3)) < 0.3) for i in range(300)]
    path = tmp_path / "tiny.txt"
    path.write_text("\n".join(b.to_text() for b in boards))
    assert parse_boards(path.read_bytes()) == boards
    code, out, _ = run(capsys, "stats", str(path), "--format", "csv")
    rows = out.strip().splitlines()[1:]
    assert code == 0 and len(rows) == 300
    assert [int(r.split(",")[5]) for r in rows] == [board_stats(b).bbbv for b in boards]
    code, out, _ = run(capsys, "stats", str(path), "--json")
    assert [r["zini"] for r in json.loads(out)] == [board_stats(b).zini for b in boards]


# --- 12: one Ctrl-C stops a command at once, even inside a long kernel --------------------------------
SPINNING = """
import sys
import click
import numpy as np
from sweeplab import grid
from sweeplab.cli import COMMANDS, main
from sweeplab.stats import figures_kernel

@click.command()
def kernel():  # ZiNi of 1,000 boards of 300x300 in one kernel call: minutes with no Python between
    nbr = grid.neighbour_table(300, 300, "bounded")
    figures_kernel(np.zeros((1, 300 * 300), dtype=np.bool_), nbr, True)  # (compiled or loaded first)
    boards = np.tile(np.random.default_rng(1).random(300 * 300) < 0.2, (1000, 1))
    print("in the kernel", flush=True)
    print(figures_kernel(boards, nbr, True).sum())

COMMANDS["kernel"] = "__main__:kernel"
sys.argv = ["sweeplab", "kernel"]
main()
"""


def test_one_ctrl_c_stops_a_command_inside_a_long_kernel():
    import signal
    proc = subprocess.Popen([sys.executable, "-c", SPINNING], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline() == "in the kernel\n", proc.communicate()
        time.sleep(1)  # (the kernel starts a moment after the line; it runs for many seconds)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)  # (a guard: the kernel alone would run for hours)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err.splitlines() == ["sweeplab: interrupted"], err


def test_a_ctrl_c_between_kernels_is_python_s_own(capsys):
    # where Python sees the Ctrl-C itself, the command stops its own way: one line, status 130
    r = subprocess.run([sys.executable, "-c", SPINNING.replace(
        "figures_kernel(boards, nbr, True).sum()", "__import__('os').kill(__import__('os').getpid(), 2) or "
        "__import__('time').sleep(60)")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 130 and r.stderr.split() == ["aborted"], r.stderr


# --- 14: huge or hostile input ----------------------------------------------------------------------
def test_solve_on_a_150x150_position_answers_with_the_count_in_digits(tmp_path, capsys):
    from math import comb
    path = tmp_path / "all-hidden.txt"
    path.write_text("mines: 11250\n" + ("#" * 150 + "\n") * 150)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        exact = str(comb(22500, 11250))  # every layout of 11,250 mines on 22,500 hidden cells
    finally:
        sys.set_int_max_str_digits(limit)
    code, out, err = run(capsys, "solve", str(path))
    assert code == 0, err
    lead = f"{int(exact[:9]) / 1e8:.6f}"
    assert f"consistent layouts: about {lead}e{len(exact) - 1} ({len(exact)} digits)" in out
    code, out, _ = run(capsys, "solve", str(path), "--json")
    assert code == 0 and json.loads(out)["layouts"] == exact


@pytest.mark.parametrize("text, needle", [
    ('{"width": 9, "height": 9, "mines": [[1, ' + "9" * 5000 + "]]}", "number too long"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_stats_on_hostile_json_is_one_line(tmp_path, capsys, text, needle):
    path = tmp_path / "b.json"
    path.write_text(text)
    one_line_exit_2(capsys, ["stats", str(path)], needle)


# --- 18: the right command, the right words ------------------------------------------------------------
def test_stats_on_a_position_or_a_replay_names_the_command_that_reads_it(tmp_path, capsys):
    position = tmp_path / "position.txt"
    position.write_text("mines: 10\n" + "#########\n" * 9)
    one_line_exit_2(capsys, ["stats", str(position)], f"sweeplab solve {position}")
    replay = tmp_path / "game.evf"
    replay.write_bytes(b"\x00\x01evf")
    one_line_exit_2(capsys, ["stats", str(replay)], f"sweeplab replay {replay}")


def test_optimal_first_click_errors_say_what_its_help_says(capsys):
    for rule in ("shift", "noguess", "bogus"):
        _, err = one_line_exit_2(capsys, ["optimal", "--width", "3", "--height", "3", "--mines", "2",
                                          "--first-click", rule], "--first-click")
        assert "'none', 'safe', 'opening'" in err and "win7" not in err, err


def test_optimal_reports_its_search_time_apart_from_compiling(capsys):
    code, out, _ = run(capsys, "optimal", "--width", "3", "--height", "3", "--mines", "2", "--json")
    result = json.loads(out)
    assert code == 0 and result["seconds"] >= 0 and result["compile_seconds"] >= 0
    code, out, _ = run(capsys, "optimal", "--width", "3", "--height", "3", "--mines", "2")
    assert "s searching" in out


@pytest.mark.parametrize("host", ["nonsense.invalid", "8.8.8.8", " "])
def test_play_host_errors_speak_of_the_host(capsys, host):
    _, err = one_line_exit_2(capsys, ["play", "--no-browser", "--host", host], "--host")
    assert "--port" not in err


def test_board_says_1_mine_and_keeps_the_click_a_board_was_laid_for(tmp_path, capsys):
    code, _, err = run(capsys, "board", "--width", "3", "--height", "3", "--mines", "1")
    assert code == 0 and "1 mine," in err
    for fmt in ("text", "json"):
        path = tmp_path / f"ng.{fmt}"
        code, out, _ = run(capsys, "board", "--generator", "noguess", "--preset", "beginner", "--click", "2,6",
                           "--format", fmt, "-o", str(path))
        assert code == 0 and "first click 2,6" in out
        data = path.read_text()
        assert ("click: 2,6\n" in data) if fmt == "text" else (json.loads(data)["click"] == [2, 6])
        assert load_board(path).mine_count == 10


def test_bench_says_1_worker(capsys):
    code, out, _ = run(capsys, "bench", "--player", "safest", "--preset", "beginner", "--games", "2", "--workers",
                       "1", "--no-progress")
    assert code == 0 and "(2 games in " in out and ", 1 worker, " in out, out


def test_board_refuses_to_write_mbf_to_a_terminal():
    leader, follower = pty.openpty()
    try:
        r = subprocess.run([sys.executable, "-m", "sweeplab", "board", "--format", "mbf", "--preset", "beginner"],
                           stdout=follower, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(follower)
        os.close(leader)
    assert r.returncode == 2 and "binary" in r.stderr and "--out" in r.stderr and len(r.stderr.splitlines()) == 1


def test_uniformity_ends_with_a_verdict(capsys):
    from sweeplab.lab.intervals import chi2_tail, uniformity_verdict
    # the chi-square tail against scipy.stats.chi2.sf (computed apart: 1.0683e-3, 0.43100, 0.025380)
    assert chi2_tail(1.6, 70) == pytest.approx(1.0683e-3, rel=0.03)
    assert chi2_tail(1.02, 70) == pytest.approx(0.43100, rel=0.01)
    assert chi2_tail(1.1, 800) == pytest.approx(0.025380, rel=0.01)
    figure = {"gen": 0.0, "gen_se": 1.0, "ref": 0.0, "ref_se": 1.0}
    calm = {"chi2_per_dof": 1.02, "dof": 70, "figures": {"bbbv": {**figure, "diff_in_se": 1.1},
                                                          "openings": {**figure, "diff_in_se": -2.0}}}
    ok, text = uniformity_verdict(calm)
    assert ok and text.startswith("no departure from uniform found at the 1% level (3 tests")
    ok, text = uniformity_verdict({**calm, "figures": {**calm["figures"], "bbbv": {**figure, "diff_in_se": 4.0}}})
    assert not ok and "bbbv (+4.0 standard errors)" in text  # P(|Z| > 4) = 6e-5 < 0.01 / 3
    ok, text = uniformity_verdict({**calm, "chi2_per_dof": 1.6})  # 112 over 70 degrees: p about 1e-3 < 0.01 / 3
    assert not ok and "mine frequencies" in text
    code, out, _ = run(capsys, "uniformity", "--preset", "beginner", "--boards", "20")
    assert code == 0 and "verdict: " in out
