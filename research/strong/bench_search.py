"""The end game's search alone, on the positions `strong` meets: CPU time of `perfect.search` per position.

    python research/strong/bench_search.py record --case expert-opening --games 400 --out obs.npz
    python research/strong/bench_search.py time obs.npz [--rounds 3] [--every]
    OLD_TREE/.venv/bin/python research/strong/bench_search.py time obs.npz   # the same searches, another checkout

`record` plays the games (seed 1, as `sweeplab bench`) and keeps what each end-game search is
given (its sights, its budget); `time` runs `perfect.search` on each, best of --rounds, and prints
the total, the states searched and a digest of the results (equal digests: equal wins, cells, states
and, with --every, each root guess's wins), so that two checkouts can be compared on the very same
searches: run this script with each checkout's interpreter.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "benchmarks")]
from bench_winrate import CASES  # noqa: E402


def record(case: str, games: int, out: str) -> None:
    from sweeplab.lab import BenchSpec
    from sweeplab.lab.runner import play_games
    from sweeplab.solver import endgame
    got: list[tuple[np.ndarray, int]] = []
    search = endgame.search

    def keep(obs, budget, *rest):
        got.append((obs.copy(), budget))
        return search(obs, budget, *rest)

    endgame.search = keep
    w, h, m, rule, at = CASES[case]
    play_games(BenchSpec("strong", w, h, m, rule, at, 1), 0, games)
    np.savez_compressed(out, budget=np.array([b for _, b in got]), **{f"o{i}": o for i, (o, _) in enumerate(got)})
    print(f"{len(got)} end-game searches in {games} games")


def time_all(path: str, rounds: int, every: bool) -> None:
    from sweeplab.solver.perfect import new_memo, search, signatures
    data = np.load(path)
    budget = data["budget"]
    obs = [data[f"o{i}"] for i in range(len(budget))]
    search(obs[0], int(budget[0]), False, -1, *signatures(obs[0].shape[1]), new_memo(1 << 10))  # compiled first
    digest = hashlib.sha1()
    total, states = 0.0, 0
    for o, b in zip(obs, budget):
        z1, z2 = signatures(o.shape[1])
        best = float("inf")
        for _ in range(rounds):
            t = time.process_time()
            wins, k, spent, rootw, _ = search(o, int(b), every, -1, z1, z2, new_memo(1 << 10))
            best = min(best, time.process_time() - t)
        total += best
        states += spent
        digest.update(f"{wins},{k},{spent},{rootw.tolist() if every else ''};".encode())
    what = " (every root guess)" if every else ""
    print(f"{len(obs)} searches{what}: {total:.3f} CPU s (best of {rounds} each), {states} states, "
          f"results {digest.hexdigest()[:16]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="task", required=True)
    r = sub.add_parser("record")
    r.add_argument("--case", default="expert-opening", choices=sorted(CASES))
    r.add_argument("--games", type=int, default=400)
    r.add_argument("--out", required=True)
    t = sub.add_parser("time")
    t.add_argument("path")
    t.add_argument("--rounds", type=int, default=3)
    t.add_argument("--every", action="store_true", help="search each root guess in full (no cut-off at the root)")
    args = ap.parse_args(argv)
    if args.task == "record":
        record(args.case, args.games, args.out)
    else:
        time_all(args.path, args.rounds, args.every)


if __name__ == "__main__":
    main()
