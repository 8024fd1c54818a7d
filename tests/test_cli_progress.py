"""Progress that means something on a terminal (bench's win rate, the seed map's long laps, a batch of
boards), and figures printed as a reader expects them (a pluck of 0 is 0.0000)."""

import os
import pty
import subprocess
import sys

import numpy as np

from sweeplab import cycles as C
from sweeplab.cli.bench import won_so_far
from sweeplab.cli.replay import pluck_text
from sweeplab.replays.judge import pluck


def on_a_terminal(*args, timeout=600) -> tuple[int, str]:
    """Run `sweeplab ARGS` with stdout and stderr on a pseudo-terminal; its exit status and all it wrote."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", *args], stdout=follower, stderr=follower,
                            env=dict(os.environ, COLUMNS="120", TERM="xterm"))
    os.close(follower)
    chunks = []
    try:
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed: the program ended
                break
            if not data:
                break
            chunks.append(data)
        code = proc.wait(timeout=timeout)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return code, b"".join(chunks).decode("utf-8", "replace")


def test_a_pluck_of_no_luck_is_zero_not_minus_zero():
    assert pluck(1) == 0.0 and str(pluck(1)) == "0.0" and pluck(0) is None
    assert pluck(0.5) == -np.log10(0.5)
    assert [pluck_text(v) for v in (-0.0, 0.0, None, 1e308, 0.30103)] == ["0.0000", "0.0000", "infinite", "infinite",
                                                                          "0.3010"]


def test_bench_shows_no_win_rate_before_a_task_reports_its_wins():
    assert won_so_far(0, 0) == "win rate: after a task ends"
    assert won_so_far(0, 1000) == "won 0.00% of 1,000" and won_so_far(523, 1000) == "won 52.30% of 1,000"


def test_bench_progress_on_a_terminal_never_shows_a_rate_of_games_not_counted():
    code, text = on_a_terminal("bench", "--player", "safest", "--preset", "beginner", "--games", "60",
                               "--task-size", "20", "--workers", "1")
    assert code == 0, text
    assert "win rate: after a task ends" in text and "won 0.00%" not in text, text
    assert "of 20" in text or "of 40" in text, text  # a rate over the games of the tasks that ended


def test_cycle_marks_in_chunks_are_the_marks_of_one_lap():
    args = (*C.Size(8, 8, 10).args(), np.uint32(C.Size(8, 8, 10).mask))
    w = C.walk(C.Size(8, 8, 10), 12345)
    seen = []
    whole = C.cycle_marks(np.uint32(w.entry), w.length, 6, args)
    chunked = C.cycle_marks(np.uint32(w.entry), w.length, 6, args, progress=lambda d, t: seen.append((d, t)),
                            chunk=1000)
    assert all(np.array_equal(a, b) for a, b in zip(whole, chunked)) and whole[0].size > 10
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1] == (w.length, w.length)
    assert len(seen) == -(-(w.length - 1) // 1000)
    # each mark is the state at its index: stepping from the entry reaches it
    states, index = whole
    k = int(index[5])
    assert int(C.advance(np.uint32(w.entry), k, *args)) == int(states[5])


def test_the_seed_map_says_what_it_is_doing_while_it_walks_its_cycles():
    stages, ticks = [], []
    C.seed_map(C.Size(8, 8, 10), seeds=np.arange(0, 65536, 97), stage=stages.append,
               progress=lambda d, t: ticks.append((stages[-1] if stages else None, d, t)))
    assert stages[:3] == ["finding a cycle", "start-up seeds", "marking the cycle"], stages
    assert "marking the cycle" in {s for s, _, _ in ticks} and "finding a cycle" in {s for s, _, _ in ticks}
    assert ticks[-1][0] == "start-up seeds" and ticks[-1][1] == ticks[-1][2] == 65536 // 97 + 1


def test_cycles_seeds_on_a_terminal_shows_its_stages():
    code, text = on_a_terminal("cycles", "seeds", "--version", "win98", "--preset", "beginner")
    assert code == 0, text
    assert "finding a cycle" in text and "marking the cycle" in text and "start-up seeds" in text, text
    assert "Where the 65,536 start-up seeds lead (2 cycles)" in text


def test_a_batch_of_boards_shows_a_bar_on_a_terminal_and_one_summary(tmp_path):
    out = tmp_path / "b.txt"
    code, text = on_a_terminal("board", "--preset", "beginner", "--count", "300", "-o", str(out))
    assert code == 0, text
    assert "300/300" in text and text.count("300 boards, 9x9, 10 mines; mean") == 1, text


def test_a_no_guess_board_shows_the_time_it_takes_on_a_terminal_and_nothing_on_a_pipe(tmp_path):
    args = ("board", "--generator", "noguess", "--width", "16", "--height", "16", "--mines", "60", "--click", "8,8")
    code, text = on_a_terminal(*args, "-o", str(tmp_path / "a.txt"))
    assert code == 0, text
    assert "laying a noguess 16x16/60 board" in text and "16x16, 60 mines, 3BV" in text, text
    piped = subprocess.run([sys.executable, "-m", "sweeplab", *args, "-o", str(tmp_path / "b.txt")], capture_output=True,
                           text=True, timeout=600)
    assert piped.returncode == 0 and "laying" not in piped.stderr + piped.stdout, piped.stderr
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()  # (the same seed: the same board)
    # other generators make a board in microseconds and say nothing but its figures
    code, text = on_a_terminal("board", "--preset", "expert", "-o", str(tmp_path / "c.txt"))
    assert code == 0 and "laying" not in text and "30x16, 99 mines, 3BV" in text, text
