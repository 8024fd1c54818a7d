"""How far from perfect: perfect play's win rate bracketed on the anchor cases' own boards.

    python research/bench_ceiling.py --cases beginner-opening --seed 1 --games 200000 --workers 2 \\
        --cache CACHE_DIR

Game i is game i of `bench_winrate.py` seeded --seed (the same board and player seed). Perfect play
opens every certain cell before it guesses, so it reaches the same first position needing a guess
as `strong` (whose deduction is complete). There `ceiling.py` (beside this script) gives perfect play's chance: exact
by the end game when at most --exact layouts remain (and the search fits --budget states), else an
upper bound. `strong` then plays the game on, as `sweeplab bench` does. Per case:

- no guess: games won by deduction alone (every player wins them);
- exact: games whose first guess the end game solves (the mean of perfect play's chance there);
- bounded: the rest (the mean of their ceiling, and the share `strong` won);
- strong: its wins on these boards, with the 95% Wilson interval (those of `sweeplab bench` with the
  same seed);
- perfect >=: the mean over games of 1, the exact chance, or `strong`'s outcome: what a player that
  plays `strong` but the exact end game from that first guess wins, so perfect play wins at least it;
- perfect <=: the mean of 1, the exact chance, or the ceiling: perfect play wins at most it;
  both with a 95% normal interval for the mean;
- needs: the win rate at which a run of --run-games games has the target as the lower end of its
  95% Wilson interval (the bar `benchmarks/bench_winrate.py` holds `strong` to);
- pass <=: the chance that such a run of a player winning `perfect <=`'s upper end passes (under
  a half where that end is below `needs`); no player, perfect play included, passes more often.

Each chunk of games is kept in --cache (by case, seed, chunk, limits and a digest of the sweeplab
source, so an edit is never answered from the cache), and a run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "benchmarks")]  # the harnesses and the benchmarks' cases
from bench_paired import source_tag  # noqa: E402
from bench_winrate import CASES, TARGETS  # noqa: E402

CHUNK = 500
NONE, EXACT, BOUNDED = 0, 1, 2
MEMO: dict = {}  # a worker's ceilings by position, kept across its chunks (the safe click's few first numbers)


def play(case: str, seed: int, start: int, stop: int, exact: int, budget: int) -> dict:
    """Per game: the kind of its first guess, perfect play's chance there (exact or a ceiling; 1 with
    no guess), and whether `strong` won."""
    from ceiling import ceiling  # (research/ceiling.py, beside this script)

    from sweeplab.errors import TooComplexError
    from sweeplab.game import WON, Game
    from sweeplab.generators import make_rule, rule_seed
    from sweeplab.lab.autoplay import autoplay
    from sweeplab.lab.runner import game_seeds
    from sweeplab.solver.complete import analyse
    from sweeplab.solver.players import make_player

    w, h, m, rule, at = CASES[case]
    kinds, values, won = [], [], []
    cpu = time.process_time()
    for i in range(start, stop):
        board_seed, player_seed = game_seeds(seed, i)
        game = Game(rule=make_rule(rule, w, h, m, rule_seed(rule, board_seed)))
        player = make_player("strong", player_seed)
        game.open(*at)
        kind, value = NONE, 1.0
        while not game.over:
            view = game.view()
            moves = player.moves(view)
            if not moves[0].certain:  # the first guess: perfect play is here too
                try:
                    c = ceiling(view, analyse(view), exact_layouts=exact, budget=budget, memo=MEMO)
                    kind, value = (EXACT if c.exact else BOUNDED), c.value
                except TooComplexError:  # past the exact count: no bound but the trivial one
                    kind, value = BOUNDED, 1.0
                game.open(moves[0].x, moves[0].y)  # strong's own guess, then strong plays on
                autoplay(game, player)
                break
            for mv in moves:
                if game.cell_state(mv.x, mv.y) != "open":
                    game.open(mv.x, mv.y)
        kinds.append(kind)
        values.append(value)
        won.append(game.status == WON)
    return {"kind": kinds, "value": values, "won": won, "cpu": time.process_time() - cpu}


def needs(target: float, games: int) -> float:
    """The least win rate whose Wilson interval over `games` games has `target` as its lower end."""
    from sweeplab.lab.intervals import wilson
    lo, hi = target, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if wilson(round(mid * games), games)[0] >= target else (mid, hi)
    return hi


def pass_chance(rate: float, need: float, games: int) -> float:
    """The chance that a run of `games` games of a player winning `rate` wins at least `need`."""
    se = math.sqrt(rate * (1 - rate) / games)
    return 0.5 * math.erfc((need - rate) / se / math.sqrt(2))


def chunks(args, case):
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    out, todo, tag = [], [], source_tag(None)
    for start in range(0, args.games, CHUNK):
        stop = min(start + CHUNK, args.games)
        path = cache / f"{case}-s{args.seed}-{start}-{stop}-e{args.exact}-b{args.budget}-{tag}.json"
        out.append(path)
        if not path.exists():
            todo.append((path, start, stop))
    return out, todo


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default="beginner-opening,beginner-safe-corner,intermediate-opening,"
                                       "intermediate-safe-corner")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--exact", type=int, default=20000, help="solve the first guess exactly up to this many layouts")
    ap.add_argument("--budget", type=int, default=2_000_000, help="... and this many end-game states")
    ap.add_argument("--run-games", type=int, default=200_000, help="the length of the run the bar is for, for `needs`")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "sweeplab-ceiling"))
    args = ap.parse_args(argv)
    for case in args.cases.split(","):
        if case not in CASES:
            raise SystemExit(f"unknown case {case!r}; allowed: {', '.join(CASES)}")
    print(f"# {args.games} games a case, seed {args.seed}; exact up to {args.exact} layouts and "
          f"{args.budget} states")
    print(f"{'case':24} {'no guess':>8} {'exact':>14} {'bounded':>22} {'strong':>26} {'perfect >=':>24} "
          f"{'perfect <=':>24} {'target':>7} {'needs':>7} {'pass <=':>7}")
    from sweeplab.lab.intervals import mean_ci, wilson
    for case in args.cases.split(","):
        paths, todo = chunks(args, case)
        t0 = time.perf_counter()
        with ProcessPoolExecutor(args.workers) as pool:
            futures = {pool.submit(play, case, args.seed, a, b, args.exact, args.budget): p
                       for p, a, b in todo}
            for f, p in futures.items():
                p.write_text(json.dumps(f.result()))
        parts = [json.loads(p.read_text()) for p in paths]
        kind = np.concatenate([r["kind"] for r in parts])
        value = np.concatenate([r["value"] for r in parts])
        won = np.concatenate([r["won"] for r in parts]).astype(bool)
        n = kind.size
        ex, bd = kind == EXACT, kind == BOUNDED
        lower = np.where(bd, won, value)
        w_lo, w_hi = wilson(int(won.sum()), n)
        lm, ll, lh = mean_ci(lower.astype(float), 0.0, 1.0)
        um, ul, uh = mean_ci(value, 0.0, 1.0)
        target = TARGETS[case]
        need = needs(target, args.run_games)
        chance = pass_chance(uh, need, args.run_games)
        print(f"{case:24} {np.mean(kind == NONE):8.2%} {ex.sum():6} {value[ex].mean() if ex.any() else 0:7.4f} "
              f"{bd.sum():6} {value[bd].mean() if bd.any() else 0:7.4f} {won[bd].mean() if bd.any() else 0:7.4f} "
              f"{won.mean():8.3%} [{w_lo:.3%}, {w_hi:.3%}] {lm:8.3%} [{ll:.3%}, {lh:.3%}] "
              f"{um:8.3%} [{ul:.3%}, {uh:.3%}] {target:7.2%} {need:7.3%} {chance:7.1%}")
        print(f"{'':24} ({time.perf_counter() - t0:.0f} s, {sum(r['cpu'] for r in parts):.0f} CPU-s in all)")


if __name__ == "__main__":
    main()
