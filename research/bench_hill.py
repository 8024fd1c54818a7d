"""`strong` beside David Hill's Java solver (the record holder on expert), each on one core: games per CPU second.

    python research/bench_hill.py --hill HILL_CHECKOUT --case expert-opening --games 2000 --rounds 4

--hill is a work tree of DavidNHill/Minesweeper (e.g. `git --git-dir=MIRROR archive HEAD | tar x`
into a scratch folder); javac and java 17 must be on PATH. Its sources and `hill_driver/Run.java`
(a driver of its own bulk runner: one solver thread, no flags, its SMALL_ANALYSIS settings, the
first click at the case's cell on the case's kind of start) are compiled into a temporary folder.

The two take turns, round by round, pinned to the same core (`taskset`): a Java round is one JVM
that first plays --warm games (the JIT's warm-up, not counted) and then --games counted ones; a
`strong` round is one process that plays a few games first (numba's kernels loaded) and then
--games counted ones (`sweeplab.lab.runner.play_games`, game i of `sweeplab bench` with the
round's seed). CPU seconds are the process's own, every thread of the JVM counted. Printed per
round, then the medians and their ratio. The boards differ (each program lays its own), so win
rates are shown only as a check that both play the level.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = {"expert-opening": ("opening", (3, 3)), "expert-safe-corner": ("safe", (0, 0))}


def build(hill: Path, out: Path) -> None:
    folders = ["Asynchronous", "MinesweeperGameState", "MineSweeperSolver"]
    missing = [f for f in folders if not (hill / f).is_dir()]
    if missing:
        raise SystemExit(f"--hill {hill} is not a DavidNHill/Minesweeper work tree (no {', '.join(missing)})")
    sources = [str(p) for f in folders for p in (hill / f).rglob("*.java")] + [str(HERE / "hill_driver" / "Run.java")]
    listing = out / "sources.txt"
    listing.write_text("\n".join(sources))
    subprocess.run(["javac", "-nowarn", "-d", str(out / "classes"), f"@{listing}"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pin(core: int) -> list[str]:
    return ["taskset", "-c", str(core)] if shutil.which("taskset") else []


def hill_round(classes: Path, start: str, games: int, warm: int, seed: int, core: int) -> tuple[int, int, float]:
    """(games, wins, CPU seconds) of the counted games of one JVM, after its warm-up games."""
    out = subprocess.run(pin(core) + ["java", "-cp", str(classes), "hilldriver.Run", str(warm), str(games), start,
                                      str(seed)], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^COUNTED (\d+) (\d+) ([\d.]+)$", out, re.M)
    assert m, out
    return int(m.group(1)), int(m.group(2)), float(m.group(3))


STRONG = """
import sys, time
from sweeplab.lab.runner import BenchSpec, play_games
spec = BenchSpec("strong", 30, 16, 99, sys.argv[1], (int(sys.argv[2]), int(sys.argv[3])), int(sys.argv[4]))
games = int(sys.argv[5])
play_games(spec, games, games + 20)  # kernels loaded, caches warm (other games than the counted ones)
t = time.process_time()
c = play_games(spec, 0, games)
print("ROUND", c.games, c.wins, time.process_time() - t)
"""


def strong_round(rule: str, at: tuple[int, int], games: int, seed: int, core: int) -> tuple[int, int, float]:
    out = subprocess.run(pin(core) + [sys.executable, "-c", STRONG, rule, str(at[0]), str(at[1]), str(seed), str(games)],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"^ROUND (\d+) (\d+) ([\d.]+)$", out, re.M)
    assert m, out
    return int(m.group(1)), int(m.group(2)), float(m.group(3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hill", required=True, type=Path, help="a work tree of DavidNHill/Minesweeper")
    ap.add_argument("--case", default="expert-opening", choices=sorted(CASES))
    ap.add_argument("--games", type=int, default=2000, help="counted games a round, each side")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--warm", type=int, default=1000, help="the JVM's warm-up games a round, not counted")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--core", type=int, default=os.cpu_count() - 1 if os.cpu_count() else 0)
    a = ap.parse_args()
    kind, at = CASES[a.case]
    rule = "opening" if kind == "opening" else "safe"
    with tempfile.TemporaryDirectory(prefix="hill-") as tmp:
        build(a.hill.resolve(), Path(tmp))
        classes = Path(tmp) / "classes"
        print(f"{a.case}: {a.games} counted games a round each, {a.rounds} rounds taking turns, both on core {a.core}; "
              f"load {os.getloadavg()[0]:.1f}")
        print(f"{'round':>5} {'side':>8} {'games':>6} {'won':>6} {'CPU s':>7} {'games/CPU s':>11}")
        rates: dict[str, list[float]] = {"hill": [], "strong": []}
        for r in range(a.rounds):
            for side in ("hill", "strong"):
                t = time.perf_counter()
                if side == "hill":
                    played, won, cpu = hill_round(classes, kind, a.games, a.warm, a.seed * 1000 + r, a.core)
                else:
                    played, won, cpu = strong_round(rule, at, a.games, a.seed * 1000 + r, a.core)
                rates[side].append(played / cpu)
                print(f"{r:>5} {side:>8} {played:>6} {won / played:>6.1%} {cpu:>7.1f} {played / cpu:>11.1f}"
                      f"   ({time.perf_counter() - t:.0f} s wall)", flush=True)
        h, s = statistics.median(rates["hill"]), statistics.median(rates["strong"])
        print(f"medians: Java {h:.1f}, strong {s:.1f} games per CPU second; strong / Java {s / h:.2f}")


if __name__ == "__main__":
    main()
