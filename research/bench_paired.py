"""Paired win-rate comparison of two players on the same boards and player seeds, game by game.

    python research/bench_paired.py --case expert-opening --games 3000 --a strong \\
        --b strong --b-python OTHER_CHECKOUT/.venv/bin/python   # against another checkout's player

Game i of both runs is game i of `sweeplab.lab.run` seeded --seed (the same board and player
seed), so the players differ only by their decisions. Printed: each player's wins with a 95%
Wilson interval, the games only A won and only B won, and McNemar's z = (a - b) / sqrt(a + b)
(|z| > 1.96: a difference at 95%). `--b-python` plays B with another interpreter (another
checkout of sweeplab, e.g. a worktree of an older commit; it runs without PYTHONPATH, so that A may
come from a work tree run with PYTHONPATH=src); its per-game outcomes are cached in
--cache so several A variants compare against one B run (keyed by a digest of the source that
played them, so another checkout or an edit is never answered from the cache).

`--breakdown` also sorts the lost games of each player by the position of the fatal guess:
a forced 50/50 (two cells no reveal can ever tell apart), an end game (at most --endgame
layouts), a larger position, or one beyond the exact analysis.

Speed (games per CPU-second) counts everything in the timed games, numba's compiling included:
after a source edit each kernel compiles when a game first reaches it, so quote the speed of a
second run (B's is cached; run A again) or a run long enough for that to vanish.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "benchmarks")]  # the harnesses and the benchmarks' cases
from bench_winrate import CASES  # noqa: E402


def play(player: str, case: str, seed: int, start: int, stop: int, breakdown: bool, endgame: int) -> dict:
    """Per-game outcomes of games start..stop-1: won bits, CPU seconds, and the class of each loss."""
    from sweeplab.game import Game
    from sweeplab.generators import make_rule, rule_seed
    from sweeplab.lab.autoplay import autoplay
    from sweeplab.lab.runner import game_seeds
    from sweeplab.solver.players import make_player

    w, h, m, rule, at = CASES[case]
    name, _, knobs = player.partition(":")  # "strong:endgame_layouts=500,wide_near=0.05": knobs to try
    knobs = {k: float(v) if "." in v else int(v) for k, v in (kv.split("=") for kv in knobs.split(",") if kv)}
    won, losses, unsound = [], {}, 0
    cpu0 = time.process_time()
    for i in range(start, stop):
        board_seed, player_seed = game_seeds(seed, i)
        game = Game(rule=make_rule(rule, w, h, m, rule_seed(rule, board_seed)))
        p = make_player(name, player_seed)
        for k, v in knobs.items():
            if not hasattr(p, k):
                raise SystemExit(f"player {name} has no knob {k}")
            setattr(p, k, v)
        r = autoplay(game, p, at, record=breakdown)
        won.append(bool(r.won))
        unsound += r.unsound
        if breakdown and not r.won:
            losses[i] = [int(p.move.x) + w * int(p.move.y) for p in r.moves]
    cpu = time.process_time() - cpu0
    return {"won": won, "cpu": cpu, "unsound": unsound, "losses": losses}


def loss_classes(case: str, seed: int, losses: dict, endgame: int) -> dict:
    """Replay each lost game to its fatal guess and classify that position (with this checkout's
    code, so both players' losses are sorted by the same rule)."""
    from sweeplab.game import Game
    from sweeplab.generators import make_rule, rule_seed
    from sweeplab.lab.runner import game_seeds

    w, h, m, rule, at = CASES[case]
    kinds: dict[str, int] = {}
    for i, cells in losses.items():
        board_seed, _ = game_seeds(seed, int(i))
        game = Game(rule=make_rule(rule, w, h, m, rule_seed(rule, board_seed)))
        game.open(*at)
        for c in cells[:-1]:
            if game.cell_state(c % w, c // w) != "open":
                game.open(c % w, c // w)
        k = classify(game.view(), cells[-1], endgame)
        kinds[k] = kinds.get(k, 0) + 1
    return kinds


def classify(view, cell: int, endgame: int) -> str:
    """The kind of position a fatal guess at `cell` was made in: a forced 50/50 (the cell one of
    two that no reveal can tell apart), an end game (at most `endgame` layouts), larger, or beyond
    the exact analysis."""
    import numpy as np

    from sweeplab.errors import TooComplexError
    from sweeplab.solver.complete import analyse
    from sweeplab.solver.fifty import forced_pairs

    try:
        a = analyse(view)
    except TooComplexError:
        return "beyond-exact"
    undecided = view.hidden & ~a.mines
    if any(cell in p for p in forced_pairs(view, a.mines, undecided)):
        return "forced-50/50"
    return "end-game" if a.layouts <= endgame and np.count_nonzero(undecided) <= 64 else "large"


def own_env(python) -> dict | None:
    """The environment for another checkout's interpreter: without PYTHONPATH, which would make it
    import this checkout's sweeplab (run with PYTHONPATH=src) instead of its own."""
    return None if python is None else {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def source_tag(python) -> str:
    """A digest of the sweeplab source that `python` (None: this interpreter) imports: outcomes cached
    under one player name from another checkout, or from this one before an edit, are not reused."""
    code = "import pathlib, sweeplab; print(pathlib.Path(sweeplab.__file__).parent)"
    root = Path(subprocess.run([python or sys.executable, "-c", code], check=True, capture_output=True,
                               text=True, env=own_env(python)).stdout.strip())
    digest = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:12]


def outcomes(label, player, python, case, seed, games, breakdown, endgame, cache):
    tag = source_tag(python)
    key = f"{label}-{tag}-{player}-{case}-s{seed}-{games}{'-b' + str(endgame) if breakdown else ''}.json"
    path = Path(cache) / key.replace("/", "_")
    if path.exists():
        return json.loads(path.read_text())
    if not breakdown:  # a longer cached run of the same: its first games are these games
        stem = f"{label}-{tag}-{player}-{case}-s{seed}-".replace("/", "_")
        for other in Path(cache).glob(stem + "*.json"):
            n = other.stem[len(stem):]
            if n.isdigit() and int(n) >= games:
                out = json.loads(other.read_text())
                out["cpu"] *= games / int(n)
                out["won"] = out["won"][:games]
                return out
    if python:
        cmd = [python, __file__, "--worker", player, case, str(seed), str(games), str(int(breakdown)), str(endgame)]
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=own_env(python)).stdout)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(out))
        return out
    out = play(player, case, seed, 0, games, breakdown, endgame)
    if label == "B":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(out))
    return out


def report(case, seed, games, la, lb, A, B, breakdown):
    from sweeplab.lab.intervals import wilson

    a, b = A["won"], B["won"]
    only_a = sum(x and not y for x, y in zip(a, b))
    only_b = sum(y and not x for x, y in zip(a, b))
    z = (only_a - only_b) / math.sqrt(only_a + only_b) if only_a + only_b else 0.0
    print(f"{case}, seed {seed}, {games} games, paired")
    for lab, R in ((la, A), (lb, B)):
        w = sum(R["won"])
        lo, hi = wilson(w, games)
        print(f"  {lab:24} {w:7d} wins {w / games:8.2%} [{lo:.2%}-{hi:.2%}]  {games / R['cpu']:7.1f} games/cpu-s"
              f"  unsound {R['unsound']}")
    print(f"  only A won {only_a}, only B won {only_b}, net {only_a - only_b:+d} "
          f"({(only_a - only_b) / games:+.2%}), McNemar z = {z:+.2f}")
    if breakdown:
        for lab, R in ((la, A), (lb, B)):
            kinds = loss_classes(case, seed, R["losses"], breakdown)
            print(f"  losses of {lab}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        player, case, seed, games, breakdown, endgame = argv[1:]
        print(json.dumps(play(player, case, int(seed), 0, int(games), bool(int(breakdown)), int(endgame))))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="expert-opening", choices=sorted(CASES))
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--a", default="strong", help="player A (this checkout); name:knob=value,... tries knobs")
    ap.add_argument("--b", default="strong", help="player B (the same syntax)")
    ap.add_argument("--b-python", default=None, help="interpreter of another checkout to play B with")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "sweeplab-paired"),
                    help="where B's per-game outcomes are kept, to compare several A against one B run")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--endgame", type=int, default=1000, help="layouts up to which a position is an end game")
    args = ap.parse_args(argv)
    lb = args.b + (" (" + Path(args.b_python).parents[2].name + ")" if args.b_python else "")
    B = outcomes("B", args.b, args.b_python, args.case, args.seed, args.games, args.breakdown, args.endgame,
                 args.cache)
    A = outcomes("A", args.a, None, args.case, args.seed, args.games, args.breakdown, args.endgame, args.cache)
    report(args.case, args.seed, args.games, args.a, lb, A, B, args.breakdown and args.endgame)


if __name__ == "__main__":
    main()
