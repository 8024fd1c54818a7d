"""Where the 50/50 influence changes `strong`'s look-ahead guess, which choice is better, exactly.

    python research/bench_influence.py --boards 6x5/6,7x4/6,8x4/7 --games 300

On small boards (a safe first click in the corner) `strong` plays with its end game off, so that
its look-ahead makes every guess; at each guess the look-ahead chooses with the influence
(`InfluencePlayer.fifty_influence` in research/influence.py = --weight, JSMinesweeper's 0.9 by default) and without it (0),
and where the two differ the exact optimum (`solver.optimal.OptimalPlay.moves`) gives each
choice's worth: the chance perfect play wins after it. Printed per board: the guesses, those the
influence changes, how many of those it makes better, worse or no different, and the mean gain
in win chance per changed guess with a 95% interval. The game goes on with the choice made
without the influence, so both are judged on the same positions.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time


def measure(w: int, h: int, m: int, games: int, seed: int, weight: float) -> dict:
    from influence import InfluencePlayer  # (research/influence.py, beside this script)

    from sweeplab import Game, make_rule
    from sweeplab.solver.optimal import OptimalPlay

    opt = OptimalPlay(w, h, m)
    guesses = 0
    gains = []
    for i in range(games):
        game = Game(rule=make_rule("safe", w, h, m, seed * 1_000_003 + i))
        game.open(0, 0)
        while not game.over:
            view = game.view()
            picks = []
            for wgt in (0.0, weight):
                player = InfluencePlayer(i)
                player.endgame_layouts = 0  # the look-ahead makes every guess
                player.fifty_influence = wgt
                picks.append(player.moves(view))
            plain, lifted = picks[0][0], picks[1][0]
            if not plain.certain and plain.note == "look-ahead":
                guesses += 1
                if (plain.x, plain.y) != (lifted.x, lifted.y):
                    values = opt.moves(view)
                    gains.append(float(values[lifted.x, lifted.y] - values[plain.x, plain.y]))
            for mv in picks[0]:
                if game.over:
                    break
                game.open(mv.x, mv.y)
    return {"guesses": guesses, "gains": gains}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", default="6x5/6,7x4/6,8x4/7", help="WxH/M,... (at most 64 cells: the exact search)")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--weight", type=float, default=0.9, help="the influence weight tried (InfluencePlayer.fifty_influence)")
    args = ap.parse_args(argv)
    weight = args.weight
    print(f"# {platform.machine()}, Python {platform.python_version()}; seed {args.seed}, {args.games} games a board, "
          f"safe first click at (0,0), end game off, influence weight {weight}")
    print(f"{'board':8} {'guesses':>8} {'changed':>8} {'better':>7} {'worse':>6} {'same':>5} "
          f"{'mean gain':>10} {'95% CI':>18} {'seconds':>8}")
    for spec in args.boards.split(","):
        size, m = spec.split("/")
        w, h = (int(v) for v in size.split("x"))
        t0 = time.process_time()
        r = measure(w, h, int(m), args.games, args.seed, weight)
        g = r["gains"]
        n = len(g)
        mean = sum(g) / n if n else 0.0
        sd = math.sqrt(sum((x - mean) ** 2 for x in g) / (n - 1)) if n > 1 else 0.0
        half = 1.96 * sd / math.sqrt(n) if n else 0.0
        print(f"{spec:8} {r['guesses']:8d} {n:8d} {sum(x > 0 for x in g):7d} {sum(x < 0 for x in g):6d} "
              f"{sum(x == 0 for x in g):5d} {mean:+10.4f} {mean - half:+8.4f}..{mean + half:+.4f} "
              f"{time.process_time() - t0:8.0f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
