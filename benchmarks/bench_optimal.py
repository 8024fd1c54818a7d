"""How far the players are from perfect play: on small boards, the exact win probability of perfect
play (`sweeplab optimal`) beside each player's win rate (`sweeplab bench`) on the same board, rule and
first click, with its 95% Wilson interval, and the gap (optimum - win rate, with the interval it
takes from the win rate's: the optimum is exact).

    python benchmarks/bench_optimal.py --games 20000 --workers 1              # the table in docs
    python benchmarks/bench_optimal.py --games 2000 --players strong,safest --boards 4x4/3-safe@0,0
    python benchmarks/bench_optimal.py --games 20000 --players strong --every-layout 6000

A board is WxH/M-RULE@X,Y; any player name `sweeplab bench` knows may be given.

`--every-layout N` also plays each player once on every layout the rule allows, on boards with at
most N of them (one process; with `--games 0`, nothing else), all with one player seed. A player
that sees the same views draws its coin the same way, so with one seed it is one fixed strategy,
and the layouts it wins are that strategy's exact value, no luck in it. Perfect play's value is
optimum x layouts; `won - perfect` is 0 exactly when every choice the player made was a best one,
and below 0 by what its mistakes cost (another seed is another strategy: its ties broken otherwise).
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import time

import numpy as np
from _timing import machine

from sweeplab.board import Board
from sweeplab.game import Game
from sweeplab.generators import kept_free
from sweeplab.lab import BenchSpec, run, summary
from sweeplab.lab.autoplay import autoplay
from sweeplab.lab.runner import game_seeds
from sweeplab.solver.optimal import OptimalPlay
from sweeplab.solver.players import make_player

BOARDS = ["3x3/1-safe@0,0", "3x3/2-safe@0,0", "3x3/3-safe@1,1",
          "4x4/2-safe@0,0", "4x4/3-safe@0,0", "4x4/4-safe@0,0", "4x4/5-safe@0,0", "4x4/6-safe@0,0",
          "4x4/4-opening@0,0", "4x4/6-opening@0,0",
          "5x5/3-safe@0,0", "5x5/4-safe@0,0", "5x5/5-safe@0,0", "5x5/5-opening@2,2", "5x5/5-opening@0,0"]


def parse(board: str):
    m = re.fullmatch(r"(\d+)x(\d+)/(\d+)-(\w+)@(\d+),(\d+)", board)
    if not m:
        raise SystemExit(f"bad board {board!r}; write WxH/M-RULE@X,Y, e.g. 4x4/3-safe@0,0")
    w, h, mines, rule, x, y = m.groups()
    return int(w), int(h), int(mines), rule, (int(x), int(y))


def layouts(w: int, h: int, m: int, keep: np.ndarray):
    """Every layout (mine indices) with the cells `keep` (the first-click rule's, `kept_free`) free, each once."""
    return itertools.combinations(np.flatnonzero(~keep).tolist(), m)


def every_layout(player: str, w: int, h: int, m: int, keep: np.ndarray, at: tuple[int, int],
                 seed: int) -> tuple[int, int]:
    """(layouts won, layouts): `player`, first click at `at`, once on every layout with `keep` free,
    each game with the same player seed (game 0's of a run seeded `seed`): one fixed strategy, its
    exact value."""
    won = total = 0
    for mines in layouts(w, h, m, keep):
        game = Game(Board.from_indices(w, h, list(mines)))
        won += autoplay(game, make_player(player, game_seeds(seed, 0)[1]), at).won
        total += 1
    return won, total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="games per player and board (0: none sampled)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--players", default="strong,safest")
    ap.add_argument("--boards", default=",".join(BOARDS), help="comma-separated WxH/M-RULE@X,Y")
    ap.add_argument("--every-layout", type=int, default=0, metavar="N",
                    help="also play every layout once, on boards with at most N layouts")
    args = ap.parse_args(argv)
    boards = re.findall(r"[^,]+,\d+", args.boards)  # a board's click holds a comma too
    print(f"# {machine()} (shared); {args.games} games per player and board, seed {args.seed}, "
          f"{args.workers} worker(s)")
    print(f"{'board':8} {'rule':8} {'click':5} {'optimum':>13} {'decimal':>8} {'search':>7} | "
          f"{'player':8} {'win rate':>8} {'95% Wilson':>17} {'gap':>7} {'gap 95%':>17}"
          + (f" | {'every layout: won':<20} {'perfect':>9} {'won - perfect':>13}" if args.every_layout else ""))
    for board in boards:
        w, h, m, rule, at = parse(board)
        keep = kept_free(rule, w, h, m, *at)
        every = args.every_layout and math.comb(w * h - int(keep.sum()), m) <= args.every_layout
        t0 = time.perf_counter()
        opt = OptimalPlay(w, h, m).first_click(*at, keep)
        search = time.perf_counter() - t0
        p = opt.probability
        head = (f"{w}x{h}/{m}".ljust(8) + f" {rule:8} {at[0]},{at[1]}".ljust(15)
                + f" {str(p.numerator) + '/' + str(p.denominator):>13} {float(p):8.4f} {search:6.1f}s")
        for k, player in enumerate(args.players.split(",")):
            sampled = f"{'-':>8} {'-':>17} {'-':>7} {'-':>17}"  # --games 0: every layout only
            if args.games:
                s = summary(run(BenchSpec(player, w, h, m, rule, at, args.seed), args.games, workers=args.workers))
                lo, hi = s["wilson95"]
                sampled = (f"{s['win_rate']:8.2%} {lo:8.2%}-{hi:7.2%} {float(p) - s['win_rate']:+7.2%} "
                           f"{float(p) - hi:+8.2%}-{float(p) - lo:+7.2%}")
            counted = ""
            if every:
                won, total = every_layout(player, w, h, m, keep, at, args.seed)
                perfect = p * total  # an integer: the optimum is wins / layouts
                assert perfect.denominator == 1, (board, perfect)
                counted = f" | {won:>7} of {total:<9} {int(perfect):>9} {won - int(perfect):>+13}"
            print(f"{head if k == 0 else ' ' * len(head)} | {player:8} {sampled}{counted}", flush=True)


if __name__ == "__main__":
    main()
