"""Where `strong`'s time goes on expert games: cProfile's cumulative seconds of the engine's entry points.

    python research/strong/profile_strong.py --case expert-opening --games 200 [--start 0]

Plays games start..start+games-1 of `sweeplab.lab.run` (seed 1) for the case (benchmarks/
bench_winrate.py's CASES), after a few games that compile the kernels, under cProfile; prints the
total CPU seconds and the cumulative share of the calls that make up a `strong` move: the rules,
the complete analysis of the position, the forced 50/50s, the end game (sights, search), the
look-ahead's trials and the dominance check. Compiled kernels are opaque to cProfile: each one's
time is its Python caller's.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "benchmarks")]
from bench_winrate import CASES  # noqa: E402

PARTS = [  # (label, module file tail, function name)
    ("rules (rules_until_safe)", "player.py", "rules_until_safe"),
    ("complete analysis of the position (analyse)", "complete.py", "analyse"),
    ("forced 50/50s (unavoidable_sets)", "fifty.py", "unavoidable_sets"),
    ("end game (endgame_search)", "endgame.py", "endgame_search"),
    ("  layouts (enumerate_layouts)", "layouts.py", "enumerate_layouts"),
    ("  sights", "perfect.py", "sights"),
    ("  search", "perfect.py", "search"),
    ("look-ahead (_lookahead)", "players.py", "_lookahead"),
    ("  candidates", "players.py", "_wide_candidates"),
    ("  scores (_score)", "players.py", "_score"),
    ("  dominance (_undominated)", "players.py", "_undominated"),
    ("  trial analyses (analyse_trial)", "complete.py", "analyse_trial"),
    ("game and view (Game.open_cells, Game.act, Game.view)", "game.py", "open_cells"),
    ("", "game.py", "act"),
    ("", "game.py", "view"),
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="expert-opening", choices=sorted(CASES))
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--player", default="strong")
    ap.add_argument("--top", type=int, default=0, help="also list this many functions by their own time")
    args = ap.parse_args(argv)
    from sweeplab.lab import BenchSpec
    from sweeplab.lab.runner import play_games
    w, h, m, rule, at = CASES[args.case]
    spec = BenchSpec(args.player, w, h, m, rule, at, 1)
    play_games(spec, 10_000, 10_005)  # compiled before the clock starts
    prof = cProfile.Profile(time.process_time)
    cpu = time.process_time()
    prof.enable()
    c = play_games(spec, args.start, args.start + args.games)
    prof.disable()
    cpu = time.process_time() - cpu
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    print(f"{args.case}, {args.player}, games {args.start}..{args.start + args.games - 1}: {c.wins} won, "
          f"{cpu:.1f} CPU s under the profiler ({args.games / cpu:.1f} games per CPU second)")
    for label, tail, name in PARTS:
        got = [(v[3], v[1]) for (f, _, fn), v in stats.items() if fn == name and f.endswith(tail)]
        cum = sum(x for x, _ in got)
        calls = sum(x for _, x in got)
        print(f"  {label or '':48} {cum:7.2f} s {100 * cum / cpu:5.1f} %  {calls:8d} calls")
    if args.top:
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
