"""Board statistics at scale: `sweeplab board` on large boards, `sweeplab stats` on a 3 MB file of tiny
boards, `sweeplab board --count N --format svg`: wall time and peak memory of each command.

    python benchmarks/bench_board_stats.py [--src DIR ...] [--rounds 3]

Each command runs as a fresh process (`python -m sweeplab`) on its kernels' cache, warmed by one run
first; with several --src (source trees, e.g. another checkout's src/) the trees take turns, round
after round, and the table gives each tree's medians side by side.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine  # noqa: E402

HERE = Path(__file__).resolve().parent.parent / "src"


def tiny_boards(path: Path, size: int = 3_000_000, seed: int = 1) -> int:
    """A text file of `size` bytes of boards 1..4 cells a side, a third of the cells mines."""
    rng = random.Random(seed)
    out, total = [], 0
    while total < size:
        w, h = rng.randint(1, 4), rng.randint(1, 4)
        rows = "\n".join("".join(rng.choice("*..") for _ in range(w)) for _ in range(h))
        out.append(rows)
        total += len(rows) + 2
    path.write_text("\n\n".join(out) + "\n")
    return len(out)


def timed(src: str, args: list[str], timeout: float) -> tuple[float, float]:
    """(seconds, peak MB) of `python -m sweeplab ARGS` with `src` first on the path; (inf, nan) past
    `timeout` seconds (the run stopped there)."""
    env = {**os.environ, "PYTHONPATH": src}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak memory
    timer.cancel()
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode < 0:
        return float("inf"), float("nan")
    if proc.returncode != 0:
        raise SystemExit(f"failed: python -m sweeplab {' '.join(args)}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", action="append", default=None, help="a source tree (default: this checkout's src)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300, help="seconds before a run counts as never finishing")
    a = ap.parse_args()
    srcs = a.src or [str(HERE)]
    work = Path(tempfile.mkdtemp())
    count = tiny_boards(work / "tiny.txt")
    cases = [
        ("board 400x400 (3BV, openings, islands)", ["board", "--width", "400", "--height", "400", "--mines",
                                                   "32000", "--seed", "1", "-o", str(work / "b.txt")]),
        ("stats 400x400 (with ZiNi)", ["stats", str(work / "b.txt"), "--json"]),
        (f"stats 3 MB, {count:,} tiny boards", ["stats", str(work / "tiny.txt"), "--format", "csv"]),
        ("board --count 200 --format svg", ["board", "--preset", "expert", "--count", "200", "--format", "svg",
                                            "-o", str(work / "200.svg")]),
        ("board --count 2000 --format svg", ["board", "--preset", "expert", "--count", "2000", "--format", "svg",
                                             "-o", str(work / "2000.svg")]),
    ]
    for src in srcs:  # one run each to compile or load the kernels
        timed(src, ["board", "--preset", "beginner"], a.timeout)
        timed(src, ["stats", str(work / "tiny.txt")], a.timeout)
    results = {(s, c): [] for s in srcs for c, _ in cases}
    for _ in range(a.rounds):
        for name, args in cases:
            for src in srcs:  # alternating trees within each round
                results[src, name].append(timed(src, args, a.timeout))
    print(f"machine: {machine()} (shared; medians of {a.rounds} rounds; s: wall seconds, MB: peak resident memory)")
    head = f"{'command':40}" + "".join(f" | {'s':>7} {'MB':>6}" for _ in srcs)
    print(head)
    print("-" * len(head))
    for name, _ in cases:
        cols = []
        for src in srcs:
            runs = results[src, name]
            wall = statistics.median(r[0] for r in runs)
            mem = statistics.median(r[1] for r in runs)
            cols.append(f" | {wall:7.2f} {mem:6.0f}")
        print(f"{name:40}" + "".join(cols))
    for i, src in enumerate(srcs):
        print(f"column {i + 1}: {src}")


if __name__ == "__main__":
    main()
