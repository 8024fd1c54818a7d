"""How many rejected chain moves a look for twin cells would answer without a play.

    python research/one_engine/twin_cells.py [--mines 130,170,200] [--moves 1500]

Two hidden cells, one a mine, that every safe cell (the click included) touches equally often are
twins: swapped, every number reads the same and the mine total too, so no play ever decides
them, and a board that holds twins is never certified. A certified board holds none, so twins
after a move touch a moved cell: one of them is a moved cell or its neighbour, and the other is
within two steps of it, or is, like it, walled in by mines. Moves are proposed and kept as the
chain does (research/one_engine/chain_moves.py); each rejected move is counted if it made twins,
and a move that made twins and was kept would stop the run (the look must be sound).
"""

from __future__ import annotations

import argparse

import numpy as np

from sweeplab import grid
from sweeplab.generators import certify as C
from sweeplab.generators.noguess import generate

W, H, X, Y = 30, 16, 15, 8


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mines", default="130,170,200")
    ap.add_argument("--moves", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    nbr = grid.neighbour_table(W, H, "bounded")
    block = grid.block_mask(W, H, X, Y, "bounded").reshape(-1)
    click, n = Y * W + X, W * H
    near2 = [{int(k) for j in nbr[u] if j >= 0 for k in (j, *nbr[j]) if k >= 0 and k != u} for u in range(n)]

    def twins(mines, a, b):
        for side in (a, b):
            for c in nbr[side]:
                if c >= 0 and c != a and c != b and not mines[c] and list(nbr[c]).count(a) != list(nbr[c]).count(b):
                    return False
        return True

    def walled(mines, u):
        return all(mines[c] for c in nbr[u] if c >= 0)

    def made_twins(mines, src, dst):
        for u in {int(c) for x in (src, dst) for c in (x, *nbr[x]) if c >= 0} - {click}:
            if any(v != click and mines[v] != mines[u] and twins(mines, u, v) for v in near2[u]):
                return True
            if walled(mines, u) and any(v not in (u, click) and mines[v] != mines[u] and walled(mines, v)
                                        and twins(mines, u, v) for v in range(n)):
                return True
        return False

    room = C.workspace(W, H)
    rng = np.random.default_rng(args.seed)
    print("| mines | moves | kept | rejected moves with twins |")
    print("|---:|---:|---:|---:|")
    for m in [int(s) for s in args.mines.split(",")]:
        mines = generate(W, H, m, X, Y, 1000).board.flat_mines.copy()
        p = C.position(mines, nbr, click, C.DEFAULT_LEAF_BUDGET, room)
        assert C.start(p) == C.SOLVED
        kept = rejected = caught = 0
        for _ in range(args.moves):
            src = int(rng.choice(np.flatnonzero(mines)))
            dst = int(rng.choice(np.flatnonzero(~mines & ~block)))
            status = C.try_move(p, src, dst)
            if status == C.BUDGET:
                status = C.settle(p)
            twin = made_twins(mines, src, dst)
            if status == C.SOLVED:
                assert not twin, f"twins on a certified board: {src} -> {dst}"
                kept += 1
                p = C.keep(p)
            else:
                rejected += 1
                caught += twin
                C.undo(p, src, dst)
        print(f"| {m} | {args.moves} | {kept / args.moves:.1%} | {caught / max(rejected, 1):.1%} |", flush=True)


if __name__ == "__main__":
    main()
