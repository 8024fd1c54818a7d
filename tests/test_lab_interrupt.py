"""A lab run a person can watch and stop: the progress moves per game, one Ctrl-C stops every worker at
once and keeps the finished tasks, and a first click the rule keeps safe is no guess."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from sweeplab.lab import BenchSpec, play_games, read_done, run

SPEC = BenchSpec("safest", 9, 9, 10, "opening", (3, 3), seed=2024)


def test_progress_moves_per_game_not_per_task():
    seen = []
    total = run(SPEC, 40, workers=1, task_games=20, on_progress=seen.append)
    assert seen == list(range(1, 41)) and total.games == 40  # every game, not each task's end
    pooled = []  # workers count in a shared counter that the parent reads as it waits
    assert run(SPEC, 40, workers=2, task_games=20, on_progress=pooled.append).outcome() == total.outcome()
    assert pooled == sorted(set(pooled)) and pooled[-1] == 40


def test_a_first_click_the_rule_keeps_safe_is_no_guess():
    certified = run(BenchSpec("strong", 9, 9, 10, "noguess", seed=5), 12, workers=1)
    assert certified.guesses == 0 and certified.wins == 12  # no-guess boards need no guess, the first click none
    fixed = run(BenchSpec("strong", 9, 9, 10, "none", seed=5), 12, workers=1)
    assert fixed.guesses >= 12  # on a fixed board the first click can lose: a guess


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_one_ctrl_c_stops_bench_and_its_workers_at_once_keeping_finished_tasks(tmp_path):
    out = tmp_path / "runs.csv"
    args = [sys.executable, "-m", "sweeplab", "bench", "--player", "safest", "--preset", "beginner", "--games",
            "10000000", "--workers", "2", "--task-size", "20", "--seed", "3", "--out", str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 600  # (a first run compiles the kernels first)
        while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 3):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        workers = _children(proc.pid)
        assert len(workers) >= 2, workers
        proc.send_signal(signal.SIGINT)  # one Ctrl-C; how soon it stops is bench_first_minutes.py's figure
        stdout, stderr = proc.communicate(timeout=60)  # (a guard: without the stop it would run for hours)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0] and str(out) in lines[0] and "Traceback" not in stderr
    assert not any(_alive(w) for w in workers)  # every worker stopped with it
    spec = BenchSpec("safest", 9, 9, 10, "opening", None, seed=3)
    done = read_done(out, spec)
    assert done and all(c.games == b - a == 20 for (a, b), c in done.items())
    assert f"{sum(c.games for c in done.values()):,} of 10,000,000 games" in lines[0]
    a, b = min(done)
    assert done[a, b].outcome() == play_games(spec, a, b).outcome()  # what was kept is what was played
