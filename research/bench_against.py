"""This checkout's speed against an earlier commit, side by side in one run: no-guess generation
(30x16 from the centre at 99, 130 and 170 mines) and `analyse` on the 1,000 benchmark positions
(bench_solver.py's: real expert games, seed 11).

    python research/bench_against.py --base COMMIT [--pairs 5] [--boards 40]

The base commit's `src` is unpacked with `git archive` into a temporary folder; each pair of runs
is one process on the base and one on this checkout, alternating, so a busy neighbour hits both
alike. Each run reports CPU-time medians (per board, per position); the table gives the median
over the runs and the ratio this / base. The positions are made once, by this checkout, and
handed to both as cell arrays.

Every run also hashes what it made (SHA-256 over each board's mines and `generate()`'s counters,
and over each analysis' decisions and probabilities), and one more run on each side, untimed,
hashes `enumerate_layouts` on the positions and `--games` expert games of the `strong` player
move by move: the last table says whether both sides made the same.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LEVELS = (99, 130, 170)

# One run: timings printed as JSON on the last line (the sweeplab imported is the one on PYTHONPATH).
RUN = r"""
import hashlib, json, pickle, sys, time
import numpy as np
from sweeplab import View
from sweeplab.generators.noguess import generate
from sweeplab.solver import TooComplexError, analyse
positions, boards, levels = sys.argv[1], int(sys.argv[2]), [int(m) for m in sys.argv[3].split(",")]
out, made = {}, {}
generate(30, 16, levels[0], 15, 8, 0)  # load the compiled kernels
for m in levels:
    ts = []
    h = hashlib.sha256()
    for seed in range(1000, 1000 + boards):
        c = time.thread_time()
        r = generate(30, 16, m, 15, 8, seed)
        ts.append(time.thread_time() - c)
        h.update(r.board.flat_mines.tobytes() + repr((r.certified, r.method, r.tries, r.accepted, r.steps)).encode())
    out[f"noguess {m}"] = float(np.median(ts))
    made[f"noguess {m}"] = h.hexdigest()[:16]
views = [View(c, k, t) for c, k, t in pickle.load(open(positions, "rb"))]
analyse(views[0])
ts = []
h = hashlib.sha256()
for v in views:
    c = time.thread_time()
    try:
        a = analyse(v)
    except TooComplexError:
        a = None
    ts.append(time.thread_time() - c)
    h.update(b"-" if a is None else a.safe.tobytes() + a.mines.tobytes() + a.probability.tobytes())
out["analyse"] = float(np.median(ts))
made["analyse"] = h.hexdigest()[:16]
print(json.dumps([out, made]))
"""

# The untimed run: the end game's layouts on the positions, and the strong player's games.
CHECK = r"""
import hashlib, json, pickle, sys
import numpy as np
from sweeplab import View
from sweeplab.generators import make_rule, rule_seed
from sweeplab.game import Game
from sweeplab.lab.autoplay import autoplay
from sweeplab.lab.runner import game_seeds
from sweeplab.solver import TooComplexError, analyse
from sweeplab.solver.players import enumerate_layouts, make_player
positions, games = sys.argv[1], int(sys.argv[2])
made = {}
h = hashlib.sha256()
for c, k, t in pickle.load(open(positions, "rb")):
    v = View(c, k, t)
    try:
        a = analyse(v)
    except TooComplexError:
        continue
    L = enumerate_layouts(v, a.mines, v.hidden & ~a.mines, 2000)
    h.update(b"over" if L is None else L.tobytes() + repr(L.shape).encode())
made["enumerate_layouts"] = h.hexdigest()[:16]
h = hashlib.sha256()
wins = 0
for i in range(games):
    board_seed, player_seed = game_seeds(1, i)
    game = Game(rule=make_rule("opening", 30, 16, 99, rule_seed("opening", board_seed)))
    r = autoplay(game, make_player("strong", player_seed), (3, 3), record=True)
    wins += r.won
    h.update(repr([(p.move, p.opened, p.exploded) for p in r.moves] + [r.won]).encode())
made[f"strong, {games} expert games"] = f"{h.hexdigest()[:16]} ({wins} won)"
print(json.dumps(made))
"""


def one_run(src: Path, positions: str, boards: int) -> tuple[dict, dict]:
    return _python(src, RUN, positions, str(boards), ",".join(map(str, LEVELS)))


def _python(src: Path, code: str, *args):
    """Run `code` in a fresh process on the sweeplab under `src`; its last line of output, as JSON."""
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True,
                          cwd=tempfile.gettempdir())
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the git revision to compare with (a commit, a tag, HEAD~1)")
    ap.add_argument("--pairs", type=int, default=5, help="alternating pairs of runs")
    ap.add_argument("--boards", type=int, default=40, help="no-guess boards per level per run")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--games", type=int, default=300, help="strong-player expert games compared move by move")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.solver_positions import play_positions
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "src"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        positions = str(Path(tmp) / "positions.pkl")
        views = play_positions(args.positions, seed=11, moves=(5, 150))
        with open(positions, "wb") as f:
            pickle.dump([(v.cells.copy(), v.mine_count, v.topology) for v in views], f)
        runs = {"base": [], "this": []}
        made = {"base": [], "this": []}
        for k in range(args.pairs):
            for side, src in (("base", base / "src"), ("this", ROOT / "src")):
                times, what = one_run(src, positions, args.boards)
                runs[side].append(times)
                made[side].append(what)
            print(f"pair {k + 1}: " + "  ".join(f"{name} {runs['this'][-1][name] / runs['base'][-1][name]:.3f}"
                                                for name in runs["this"][-1]), flush=True)
        checked = {side: _python(src, CHECK, positions, str(args.games))
                   for side, src in (("base", base / "src"), ("this", ROOT / "src"))}
    print(f"\nmachine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; "
          f"{args.pairs} alternating pairs, {args.boards} boards per level per run")
    print(f"\n| CPU median | {args.base} (median of runs) | this checkout | ratio | median of the pairs' ratios |\n"
          "|---|---|---|---|---|")
    for name in runs["this"][0]:
        b = float(np.median([r[name] for r in runs["base"]]))
        t = float(np.median([r[name] for r in runs["this"]]))
        pairs = float(np.median([r[name] / q[name] for r, q in zip(runs["this"], runs["base"])]))
        unit = "ms/board" if name.startswith("noguess") else "ms/position"
        print(f"| {name} ({unit}) | {b * 1e3:.3f} | {t * 1e3:.3f} | {t / b:.3f} | {pairs:.3f} |")
    print(f"\n| what was made (SHA-256, first 16 hex) | {args.base} | this checkout | same |\n|---|---|---|---|")
    for name in made["this"][0]:
        b = sorted({m[name] for m in made["base"]})  # every run of a side must make the same
        t = sorted({m[name] for m in made["this"]})
        print(f"| {name} ({args.boards if name.startswith('noguess') else args.positions}, every run) "
              f"| {' / '.join(b)} | {' / '.join(t)} | {'yes' if b == t and len(b) == 1 else 'NO'} |")
    for name in checked["this"]:
        b, t = checked["base"][name], checked["this"][name]
        print(f"| {name} | {b} | {t} | {'yes' if b == t else 'NO'} |")


if __name__ == "__main__":
    main()
