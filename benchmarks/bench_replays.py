"""Replay speed: `--analyse` of an expert replay, and reading 1,000 replay files.

    python benchmarks/bench_replays.py [--files DIR] [--repeat 5] [--count 1000]

Without --files it makes its own EVF files (games played by a player that opens every certain
cell, flags every certain mine and otherwise clicks the safest cell), so a fresh clone can run
it; with --files DIR (e.g. the community's AVF/RMV/MVF/EVF samples) it uses those. Targets:
--analyse of an expert replay under 1 s (median), 1,000 files read under 10 s.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._timing import machine, median_us  # noqa: E402

from sweeplab import Game, make_rule  # noqa: E402
from sweeplab.replays.evf import game_to_evf  # noqa: E402
from sweeplab.replays.judge import judge  # noqa: E402
from sweeplab.replays.read import read_many, read_replay, replay_paths  # noqa: E402
from sweeplab.solver import analyse  # noqa: E402


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def solver_game(width, height, mines, seed) -> Game:
    """A game as a careful player plays it: every certain cell, every certain mine flagged, else the safest."""
    clock = Clock()
    g = Game(rule=make_rule("opening", width, height, mines, seed), marks=False, clock=clock)
    g.open(width // 2, height // 2)
    while not g.over:
        view = g.view()
        a = analyse(view)
        hidden = view.cells == -1
        for y, x in zip(*(a.mines & hidden).nonzero()):
            clock.now += 0.2
            g.flag(int(x), int(y))
        safe = list(zip(*(a.safe & hidden).nonzero()))
        if not safe:
            p = a.probability.copy()
            p[~hidden] = 2.0
            safe = [divmod(int(p.argmin()), width)]
        for y, x in safe:
            if g.over:
                break
            clock.now += 0.25
            g.open(int(x), int(y))
    return g


def make_files(folder: Path) -> list[Path]:
    out = []
    for name, (w, h, m), seeds in (("expert", (30, 16, 99), range(3)), ("intermediate", (16, 16, 40), range(2)),
                                   ("beginner", (9, 9, 10), range(3))):
        for s in seeds:
            p = folder / f"{name}-{s}.evf"
            p.write_bytes(game_to_evf(solver_game(w, h, m, s), player="bench"))
            out.append(p)
    return out


def median_s(fn, repeat):
    return median_us(fn, repeat=repeat, warmup=0) / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=Path, help="a folder of replay files to use instead of made ones")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--count", type=int, default=1000)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-replays-"))
    try:
        files = replay_paths([str(args.files)])[0] if args.files else make_files(tmp)
        read_replay(files[0])  # compile and start the ms-toollib worker outside the timings
        print(f"machine: {machine()}; source: {'files in ' + str(args.files) if args.files else 'made EVF games'}")
        print()
        print("| replay | clicks judged | guesses | read (ms-toollib parse + engine) | sweeplab's judging | "
              "ms-toollib's own click analysis (for comparison) | `sweeplab replay FILE --analyse --json`: wall / CPU |")
        print("|---|---|---|---|---|---|---|")
        for f in files:
            r = read_replay(f)
            if (r.board.width, r.board.height, r.board.mine_count) != (30, 16, 99):
                continue
            j = judge(r.game)
            read = median_s(lambda: read_replay(f), args.repeat)
            judging = median_s(lambda: judge(r.game), args.repeat)
            features = median_s(lambda: read_replay(f, features=True), args.repeat) - read
            cmd = [sys.executable, "-m", "sweeplab", "replay", str(f), "--analyse", "--json"]
            walls, cpus = [], []
            for _ in range(max(3, args.repeat // 2)):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True)
                walls.append(time.perf_counter() - t0)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            print(f"| {f.name} | {len(j.clicks)} | {len(j.guesses)} | {1000 * read:.0f} ms | {1000 * judging:.0f} ms | "
                  f"{1000 * features:.0f} ms | {statistics.median(walls):.2f} s / {statistics.median(cpus):.2f} s |")
        walls, cpus = [], []
        for _ in range(3):  # what every command pays before it starts: Python, numpy, numba, the kernels' cache
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import sweeplab.solver, sweeplab.replays.judge"], check=True)
            walls.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        print(f"| (for scale: importing sweeplab and its solver alone) | | | | | | "
              f"{statistics.median(walls):.2f} s / {statistics.median(cpus):.2f} s |")
        many = tmp / "many"
        many.mkdir()
        for i in range(args.count):
            src = files[i % len(files)]
            shutil.copy(src, many / f"{i:04d}-{src.name}")
        paths = sorted(many.iterdir())
        print()
        print(f"| reading {args.count} files | seconds | per file |")
        print("|---|---|---|")
        t0 = time.perf_counter()
        rows = list(read_many(paths))
        t = time.perf_counter() - t0
        bad = sum(isinstance(r, Exception) for _, r in rows)
        print(f"| library `read_many` (2 ms-toollib processes), {bad} unreadable | {t:.2f} | {1000 * t / len(paths):.1f} ms |")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sweeplab", "replay", str(many), "--json", "--no-progress"], check=True,
                       capture_output=True)
        t = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        print(f"| `sweeplab replay FOLDER --json` (whole command; CPU of it and its ms-toollib processes: {cpu:.2f} s) "
              f"| {t:.2f} | {1000 * t / len(paths):.1f} ms |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
