"""The one engine side by side with the commit before it: identical results, and the speed of each.

    python research/one_engine/compare.py --old OLD_TREE --new NEW_TREE positions --count 1000
    python research/one_engine/compare.py --old ... --new ... positions --count 100000 --fractions
    python research/one_engine/compare.py --old ... --new ... certify --boards 20000
    python research/one_engine/compare.py --old ... --new ... noguess --seeds 200
    python research/one_engine/compare.py --old ... --new ... bench --games 10000 --players strong,rules,safest
    python research/one_engine/compare.py --old ... --new ... bench --games 2000 --players strong --case expert-safe-corner
    python research/one_engine/compare.py --old ... --new ... optimal
    python research/one_engine/compare.py --old ... --new ... speed-analyse --count 1000

Each tree runs in its own processes with its own interpreter (TREE/.venv/bin/python), chunk by
chunk, the two sides taking turns (old first in even chunks, new first in odd ones), so a change
in the shared machine's load falls on both alike. Every item's result must be equal; the first
differences are printed. Times are CPU seconds of the worker processes; ratios are new / old.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SIDE = HERE / "side.py"


def run_side(tree: str, args: list[str]) -> tuple[list[dict], dict]:
    python = os.path.join(tree, ".venv", "bin", "python")
    out = subprocess.run([python, str(SIDE), *args], cwd=tree, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{tree}: {' '.join(args)} failed:\n{out.stderr[-3000:]}")
    lines = [json.loads(s) for s in out.stdout.splitlines() if s.strip()]
    return [x for x in lines if "i" in x], next((x for x in lines if "i" not in x), {})


def both(old: str, new: str, chunk: int, args: list[str]):
    """Run the chunk on both sides, old first in even chunks; ((old items, old timing), (new ...))."""
    if chunk % 2 == 0:
        a = run_side(old, args)
        b = run_side(new, args)
    else:
        b = run_side(new, args)
        a = run_side(old, args)
    return a, b


class Tally:
    def __init__(self, name: str):
        self.name, self.items, self.diffs, self.cpu = name, 0, [], {"old": 0.0, "new": 0.0}

    def add(self, a_items, b_items, a_time, b_time, ignore=()):
        for x, y in zip(a_items, b_items):
            self.items += 1
            for k in ignore:
                x.pop(k, None)
                y.pop(k, None)
            if x != y:
                self.diffs.append((x, y))
        if len(a_items) != len(b_items):
            self.diffs.append(({"items": len(a_items)}, {"items": len(b_items)}))
        self.cpu["old"] += a_time.get("cpu", 0.0)
        self.cpu["new"] += b_time.get("cpu", 0.0)

    def report(self):
        ratio = self.cpu["new"] / self.cpu["old"] if self.cpu["old"] else float("nan")
        print(f"| {self.name} | {self.items} | {len(self.diffs)} | {self.cpu['old']:.1f} | {self.cpu['new']:.1f} | "
              f"{ratio:.3f} |", flush=True)
        for x, y in self.diffs[:3]:
            print(f"  old: {json.dumps(x)[:600]}\n  new: {json.dumps(y)[:600]}", file=sys.stderr)


def header():
    print("| task | items | differing | old CPU s | new CPU s | new / old |")
    print("|---|---|---|---|---|---|", flush=True)


def make_positions(path: Path, count: int, seed: int) -> None:
    """`count` positions from random safe play (tests/solver_positions.py): expert mostly, with
    intermediate, beginner, denser expert and flagged positions mixed in."""
    sys.path.insert(0, os.getcwd())
    from tests.solver_positions import play_positions
    if count <= 1000:  # the benchmark's positions (benchmarks/bench_solver.py)
        groups = [(count, dict(seed=11, moves=(5, 150)))]
    else:
        groups = [(count * 60 // 100, dict(seed=seed, moves=(5, 150))),
                  (count * 15 // 100, dict(seed=seed + 1, width=16, height=16, mines=40, moves=(3, 80))),
                  (count * 10 // 100, dict(seed=seed + 2, width=9, height=9, mines=10, moves=(1, 30))),
                  (count * 10 // 100, dict(seed=seed + 3, mines=130, moves=(5, 150))),
                  (count * 5 // 100, dict(seed=seed + 4, moves=(5, 150), flags=True))]
    vs = []
    for k, kw in groups:
        vs += play_positions(k, **kw)
    cells = np.full((len(vs), 480), -1, dtype=np.int8)
    for i, v in enumerate(vs):
        cells[i, :v.cells.size] = v.cells.reshape(-1)
    np.savez_compressed(path, cells=cells, mines=np.array([v.mine_count for v in vs]),
                        width=np.array([v.width for v in vs]), height=np.array([v.height for v in vs]))


def make_boards(path: Path, count: int, seed: int) -> None:
    """`count` uniform boards (30x16 from 40 to 200 mines, and the three classic levels), each with
    a first click whose 3x3 is kept free, and a few mine moves to try from it."""
    sys.path.insert(0, os.getcwd())
    from sweeplab.generators.uniform import uniform_board
    rng = np.random.default_rng(seed)
    levels = [(30, 16, m) for m in range(40, 201, 10)] + [(9, 9, 10), (16, 16, 40), (30, 24, 200)]
    out = np.zeros((count, 720), dtype=np.bool_)
    meta = {k: np.zeros(count, dtype=np.int64) for k in ("width", "height", "click", "seed", "moves")}
    for i in range(count):
        w, h, m = levels[i % len(levels)]
        x, y = int(rng.integers(w)), int(rng.integers(h))
        keep = np.zeros((h, w), dtype=bool)
        keep[max(0, y - 1):y + 2, max(0, x - 1):x + 2] = True
        b = uniform_board(w, h, m, int(rng.integers(2**62)), exclude=keep.reshape(-1))
        out[i, :w * h] = b.flat_mines
        meta["width"][i], meta["height"][i], meta["click"][i] = w, h, y * w + x
        meta["seed"][i], meta["moves"][i] = int(rng.integers(2**62)), 4
    np.savez_compressed(path, mines=out, **meta)


# bench's cases: (first-click rule, first click "x,y" or "" for the player's own); those of
# benchmarks/bench_winrate.py and research/bench_hill.py besides the player's own opening
CASES = {"opening": ("opening", ""), "expert-opening": ("opening", "3,3"), "expert-safe-corner": ("safe", "0,0")}


def chunks(total: int, size: int):
    return [(a, min(a + size, total)) for a in range(0, total, size)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("task", choices=["positions", "certify", "noguess", "bench", "optimal", "speed-analyse"])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--fractions", action="store_true")
    ap.add_argument("--boards", type=int, default=20000)
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--mines", default="99,130,170,200")
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--players", default="strong,rules,safest")
    ap.add_argument("--case", default="opening", choices=sorted(CASES),
                    help="bench: the first-click rule and cell (default: opening, the player's own first click)")
    ap.add_argument("--chunk", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--data", default=None, help="where the positions and boards are kept (default: a temp folder)")
    ap.add_argument("--seed", type=int, default=44)
    args = ap.parse_args(argv)
    old, new = os.path.abspath(args.old), os.path.abspath(args.new)
    data = Path(args.data or tempfile.mkdtemp(prefix="one-engine-"))
    data.mkdir(parents=True, exist_ok=True)
    header()
    if args.task in ("positions", "speed-analyse"):
        path = data / f"positions-{args.count}-{args.seed}.npz"
        if not path.exists():
            make_positions(path, args.count, args.seed)
        if args.task == "positions":
            t = Tally(f"analyse, {args.count} positions" + (" with fractions" if args.fractions else ""))
            for k, (a, b) in enumerate(chunks(args.count, args.chunk or 2000)):
                extra = ["--fractions"] if args.fractions else []
                (ai, at), (bi, bt) = both(old, new, k, ["analyse", str(path), str(a), str(b)] + extra)
                t.add(ai, bi, at, bt)
            t.report()
        else:
            ratios, olds, news = [], [], []
            for k, (a, b) in enumerate(chunks(args.count, args.chunk or 250)):
                (_, at), (_, bt) = both(old, new, k, ["time-analyse", str(path), str(a), str(b), str(args.rounds)])
                olds += at["times"]
                news += bt["times"]
            ratios = [y / x for x, y in zip(olds, news) if x > 0]
            print(f"| analyse, {len(olds)} positions, best of {args.rounds} each | median old "
                  f"{statistics.median(olds) * 1e3:.3f} ms | median new {statistics.median(news) * 1e3:.3f} ms | "
                  f"median per-position ratio {statistics.median(ratios):.3f} | ratio of sums "
                  f"{sum(news) / sum(olds):.3f} |")
    elif args.task == "certify":
        path = data / f"boards-{args.boards}-{args.seed}.npz"
        if not path.exists():
            make_boards(path, args.boards, args.seed)
        t = Tally(f"certifier, {args.boards} boards (a fresh play and 4 moves each)")
        for k, (a, b) in enumerate(chunks(args.boards, args.chunk or 5000)):
            (ai, at), (bi, bt) = both(old, new, k, ["certify", str(path), str(a), str(b)])
            t.add(ai, bi, at, bt)
        t.report()
    elif args.task == "noguess":
        for m in [int(x) for x in args.mines.split(",")]:
            t = Tally(f"no-guess boards 30x16/{m}, seeds 0..{args.seeds - 1}")
            told, tnew = [], []
            for k, (a, b) in enumerate(chunks(args.seeds, args.chunk or max(1, args.seeds // 10))):
                (ai, at), (bi, bt) = both(old, new, k, ["noguess", str(m), str(a), str(b)])
                t.add(ai, bi, at, bt)
                told += at["times"]
                tnew += bt["times"]
            t.report()
            print(f"|   median ms a board | | | {statistics.median(told) * 1e3:.2f} | "
                  f"{statistics.median(tnew) * 1e3:.2f} | {statistics.median(tnew) / statistics.median(told):.3f} |",
                  flush=True)
    elif args.task == "bench":
        for player in args.players.split(","):
            t = Tally(f"bench {player}, expert {args.case}, games 0..{args.games - 1}")
            for k, (a, b) in enumerate(chunks(args.games, args.chunk or 1000)):
                (ai, at), (bi, bt) = both(old, new, k, ["bench", player, str(a), str(b), *CASES[args.case]])
                t.add(ai, bi, at, bt)
            t.report()
            print(f"|   games per CPU-second | | | {args.games / t.cpu['old']:.2f} | {args.games / t.cpu['new']:.2f} | "
                  f"{t.cpu['old'] / t.cpu['new']:.3f} |", flush=True)
    elif args.task == "optimal":
        boards = ["3x3/1-safe@0,0", "3x3/2-safe@0,0", "3x3/3-safe@1,1", "4x4/2-safe@0,0", "4x4/3-safe@0,0",
                  "4x4/4-safe@0,0", "4x4/5-safe@0,0", "4x4/6-safe@0,0", "4x4/4-opening@0,0", "4x4/6-opening@0,0",
                  "5x5/3-safe@0,0", "5x5/4-safe@0,0", "5x5/5-safe@0,0", "5x5/5-opening@2,2", "5x5/5-opening@0,0"]
        t = Tally("optimum of every board in benchmarks/bench_optimal.py")
        for k, board in enumerate(boards):
            (ai, at), (bi, bt) = both(old, new, k, ["optimal", board])
            t.add(ai, bi, at, bt)
            print(f"|   {board}: {ai[0]['wins']}/{ai[0]['layouts']} | | {int(ai != bi)} | {at['cpu']:.2f} | "
                  f"{bt['cpu']:.2f} | {bt['cpu'] / max(at['cpu'], 1e-9):.3f} |", flush=True)
        t.report()


if __name__ == "__main__":
    main()
