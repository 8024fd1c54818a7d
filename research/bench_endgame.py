"""What the exhaustive end game is worth, and what it costs, measured on positions of real games.

    python research/bench_endgame.py --case expert-opening --seed 2 --games 1000

Plays the games of `sweeplab.lab.run` (seed --seed, game i with its board and player seed, as
bench_paired.py does) with --player. At every guess it makes in a position of at most --max-layouts
layouts, the compiled end game computes exactly V (the chance perfect play wins from there) and Q
(the chance after the player's own guess, then perfect play). By the performance-difference
identity, the mean over games of the sum of V - Q over the positions of at most K layouts along
the player's own games is exactly the win rate the player gains by playing perfectly wherever at
most K layouts are left: a paired run's difference, without the noise of the games' other luck.
Positions the search cannot finish within --budget states are counted as unsolved.

Also printed: the same gain when the search stops at a cap of states (a position over the cap
gains nothing and costs the time to reach it, taken in proportion to its states), and the cost of
the search that picks a move (cut-offs at the root, as the player runs it) per position, by how
many layouts it has: states and milliseconds, median / 90% / max, and the milliseconds per game it
would add at each limit.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "benchmarks")]  # the harnesses and the benchmarks' cases
from bench_winrate import CASES  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="expert-opening", choices=sorted(CASES))
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0, help="first game index")
    ap.add_argument("--player", default="strong", help="a player name, knobs as name:knob=value,...")
    ap.add_argument("--max-layouts", type=int, default=5000)
    ap.add_argument("--budget", type=int, default=20_000_000, help="states before a position counts as unsolved")
    ap.add_argument("--max-cells", type=int, default=None,
                    help="leave out positions with more undecided cells (as the player does)")
    ap.add_argument("--limits", default="200,1000,2000,5000")
    ap.add_argument("--budgets", default="50000,100000,200000,500000",
                    help="state caps of the move search: what each limit and cap would gain and cost")
    ap.add_argument("--compare-with", default=None, metavar="ENDGAME_PY",
                    help="another checkout's solver/endgame.py (e.g. main's pure-Python search): time its "
                         "endgame_move beside this one's on the positions of at most --max-layouts, with --budget")
    args = ap.parse_args(argv)
    if args.compare_with:
        return compare(args)

    from sweeplab.errors import TooComplexError
    from sweeplab.game import Game
    from sweeplab.generators import make_rule, rule_seed
    from sweeplab.lab.runner import game_seeds
    from sweeplab.solver.complete import analyse
    from sweeplab.solver.endgame import endgame_search
    from sweeplab.solver.players import make_player

    w, h, m, rule, at = CASES[args.case]
    name, _, knobs = args.player.partition(":")
    knobs = {k: float(v) if "." in v else int(v) for k, v in (kv.split("=") for kv in knobs.split(",") if kv)}
    limits = [int(k) for k in args.limits.split(",")]
    rows = []  # (game, layouts, V - Q as a fraction, states, ms of the move search, solved)
    won = 0
    t_all = time.process_time()
    t_search = 0.0
    for i in range(args.start, args.start + args.games):
        board_seed, player_seed = game_seeds(args.seed, i)
        game = Game(rule=make_rule(rule, w, h, m, rule_seed(rule, board_seed)))
        player = make_player(name, player_seed)
        for k, v in knobs.items():
            setattr(player, k, v)
        game.open(*at)
        while not game.over:
            view = game.view()
            moves = player.moves(view)
            if len(moves) == 1 and not moves[0].certain:
                t0 = time.process_time()
                try:
                    a = analyse(view)
                except TooComplexError:
                    a = None
                undecided = view.hidden & ~a.mines if a is not None else None
                if a is not None and 1 < a.layouts <= args.max_layouts and \
                        (args.max_cells is None or np.count_nonzero(undecided) <= args.max_cells):
                    c = moves[0].y * w + moves[0].x
                    s0 = time.process_time()
                    pick = endgame_search(view, a.mines, undecided, a.layouts, args.budget)
                    ms = 1000 * (time.process_time() - s0)
                    full = endgame_search(view, a.mines, undecided, a.layouts, args.budget, every=True) \
                        if pick is not None else None
                    if full is None:
                        rows.append((i, a.layouts, 0.0, args.budget, ms, False))
                    else:
                        rows.append((i, a.layouts, (full.wins - full.cell_wins[c]) / a.layouts, pick.states, ms, True))
                t_search += time.process_time() - t0
            for mv in moves:
                if game.over:
                    break
                if mv.certain and game.cell_state(mv.x, mv.y) == "open":
                    continue
                game.open(mv.x, mv.y)
        won += game.status == "won"
    cpu = time.process_time() - t_all
    n = args.games
    print(f"# {platform.machine()}, Python {platform.python_version()}; {args.case}, seed {args.seed}, games "
          f"{args.start}..{args.start + n - 1}, player {args.player}: {won} won ({100 * won / n:.2f}%); "
          f"{cpu:.0f} CPU-s, of which exact analysis {t_search:.0f}")
    print("gain of perfect play where at most K layouts are left (performance difference, per game):")
    print(f"{'K':>6} {'positions':>9} {'unsolved':>8} {'regret>0':>8} {'gain %':>8} {'95% CI':>17}")
    for k in limits:
        per_game = np.zeros(n)
        pos = unsolved = hurt = 0
        for g, lay, regret, _, _, ok in rows:
            if lay <= k:
                pos += 1
                unsolved += not ok
                hurt += regret > 1e-12
                per_game[g - args.start] += regret
        mean = per_game.mean()
        se = per_game.std(ddof=1) / math.sqrt(n) if n > 1 else 0.0
        print(f"{k:>6} {pos:>9} {unsolved:>8} {hurt:>8} {100 * mean:>8.3f} "
              f"{100 * (mean - 1.96 * se):>8.3f}-{100 * (mean + 1.96 * se):.3f}")
    print("with a cap on the move search's states (a position over it: no gain, and the time to reach the cap):")
    print(f"{'K':>6} {'cap':>8} {'solved':>7} {'over':>5} {'gain %':>8} {'95% CI':>17} {'ms/game':>8}")
    for k in limits:
        for cap in [int(b) for b in args.budgets.split(",")]:
            per_game = np.zeros(n)
            ms_total = 0.0
            solved = over = 0
            for g, lay, regret, s, ms, ok in rows:
                if lay > k:
                    continue
                if ok and s <= cap:
                    solved += 1
                    per_game[g - args.start] += regret
                    ms_total += ms
                else:
                    over += 1
                    ms_total += ms * min(1.0, cap / max(s, 1))
            mean = per_game.mean()
            se = per_game.std(ddof=1) / math.sqrt(n) if n > 1 else 0.0
            print(f"{k:>6} {cap:>8} {solved:>7} {over:>5} {100 * mean:>8.3f} "
                  f"{100 * (mean - 1.96 * se):>8.3f}-{100 * (mean + 1.96 * se):.3f} {ms_total / n:>8.2f}")
    print("cost of the move search per position (cut-offs at the root), by layouts:")
    print(f"{'layouts':>11} {'positions':>9} {'per game':>8} {'states med':>10} {'90%':>9} {'max':>9} "
          f"{'ms med':>7} {'90%':>7} {'max':>8} {'ms/game':>8}")
    edges = [1] + limits
    for lo, hi in zip(edges, edges[1:]):
        sel = [(s, ms) for _, lay, _, s, ms, ok in rows if lo < lay <= hi]
        if not sel:
            continue
        s = np.array([x for x, _ in sel], dtype=float)
        ms = np.array([y for _, y in sel])
        print(f"{f'{lo + 1}-{hi}':>11} {len(sel):>9} {len(sel) / n:>8.3f} {np.median(s):>10.0f} "
              f"{np.percentile(s, 90):>9.0f} {s.max():>9.0f} {np.median(ms):>7.2f} {np.percentile(ms, 90):>7.2f} "
              f"{ms.max():>8.1f} {ms.sum() / n:>8.2f}")


def compare(args):
    """Both end games' endgame_move, side by side on the same positions, within the old limits."""
    import importlib.util

    from sweeplab.game import Game
    from sweeplab.generators import make_rule, rule_seed
    from sweeplab.lab.runner import game_seeds
    from sweeplab.solver import endgame as new
    from sweeplab.solver.complete import analyse
    from sweeplab.solver.players import make_player

    spec = importlib.util.spec_from_file_location("sweeplab.solver._other_endgame", args.compare_with)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    w, h, m, rule, at = CASES[args.case]
    positions = []
    for i in range(args.start, args.start + args.games):
        board_seed, player_seed = game_seeds(args.seed, i)
        game = Game(rule=make_rule(rule, w, h, m, rule_seed(rule, board_seed)))
        player = make_player("strong", player_seed)
        game.open(*at)
        while not game.over:
            view = game.view()
            moves = player.moves(view)
            if len(moves) == 1 and not moves[0].certain:
                a = analyse(view)
                undecided = view.hidden & ~a.mines
                if 1 < a.layouts <= args.max_layouts:
                    positions.append((view, a, undecided))
            for mv in moves:
                if not game.over and not (mv.certain and game.cell_state(mv.x, mv.y) == "open"):
                    game.open(mv.x, mv.y)
    v, a, u = positions[0]
    new.endgame_move(v, a.mines, u, a.layouts, args.budget)  # compiled before timing
    print(f"# {platform.machine()}; {len(positions)} positions of {args.case} games (seed {args.seed}) with at "
          f"most {args.max_layouts:,} layouts, budget {args.budget:,} states each")
    print(f"{'end game':>10} {'total s':>8} {'ms/pos':>7} {'gave up':>7}")
    for label, mod in (("other", old), ("this", new)):
        t0 = time.process_time()
        gave_up = sum(mod.endgame_move(v, a.mines, u, a.layouts, args.budget) is None for v, a, u in positions)
        t = time.process_time() - t0
        print(f"{label:>10} {t:>8.2f} {1000 * t / len(positions):>7.2f} {gave_up:>7}")


if __name__ == "__main__":
    main()
