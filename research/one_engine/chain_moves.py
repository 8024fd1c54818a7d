"""Where a no-guess chain move's time goes: each phase of the certifier timed per move, with counts.

    python research/one_engine/chain_moves.py [--mines 130,170,200] [--moves 3000] [--boards 2]

From certified 30x16 boards (clicked at (15, 8), this checkout's generator), single-mine moves are
proposed as the chain proposes them (a uniform mine to a uniform free cell outside the click's
block) and kept iff the board they give certifies, as the chain keeps them. Each move is certified
here in phases called one at a time from Python, each call timed (the cost of a call of an empty
kernel with the same arguments is taken off): the replay of the old log (recertify._replay, with
its start `_keep_first` and its `_recount`), the local rules (`rules.settle`), the rounds of
complete deduction (`playthrough.complete_step`) and the reveal of what they found. The counts say
how much of the old log the replay kept as it was, how much it went through, and whether the replay
alone gave the verdict. A fresh play of the same board is timed beside it for comparison.
Times are wall clock of one process on a shared machine: compare shares, not absolute figures.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sweeplab import grid
from sweeplab._numba_cache import njit
from sweeplab.generators import certify as C
from sweeplab.generators.noguess import generate
from sweeplab.solver import playthrough as P
from sweeplab.solver import recertify as R
from sweeplab.solver import rules
from sweeplab.solver.state import EVENTS, FLAGGED

W, H, X, Y = 30, 16, 15, 8


@njit
def _complete(numbers, nbr, pi, pb, si, sb, left, budget):
    return P.complete_step(numbers, nbr, pi, pb, si, sb, left, budget)


@njit
def _nothing(board, click, old, play, scratch, moved):
    return 0, 0


def certify_in_phases(mines, numbers, nbr, click, old, play, scratch, src, dst, base):
    """The verdict of the moved board, from `old`, in timed phases: (status, phase times in ns,
    counts)."""
    board = (mines, numbers, nbr)
    pi, pb, meta = play
    si, sb, _ = scratch
    times = {"replay": 0, "settle": 0, "complete": 0, "reveal": 0}
    counts = {"rounds": 0, "total_rounds": 0}
    t = time.perf_counter_ns()
    status, wtop = R._replay(board, click, old, play, scratch, (np.int32(src), np.int32(dst), np.int32(-1),
                                                                np.int32(-1)))
    times["replay"] = time.perf_counter_ns() - t - base
    counts["replayed"] = int(meta[EVENTS])
    if status != P.PLAY_ON:
        return status, times, counts
    total = int(mines.sum())
    goal = mines.shape[0] - total
    while True:
        t = time.perf_counter_ns()
        how = rules.settle(numbers, nbr, play, scratch, wtop, goal)
        times["settle"] += time.perf_counter_ns() - t - base
        if how == rules.DONE:
            return P.SOLVED, times, counts
        if how == rules.BROKEN:
            return P.STUCK, times, counts
        t = time.perf_counter_ns()
        got, status, used = _complete(numbers, nbr, pi, pb, si, sb, total - meta[FLAGGED], budget=P.DEFAULT_LEAF_BUDGET)
        times["complete"] += time.perf_counter_ns() - t - base
        counts["rounds"] += 1
        counts["total_rounds"] += bool(used)
        if status != P.SOLVED:
            return status, times, counts
        if got == 0:
            return P.STUCK, times, counts
        t = time.perf_counter_ns()
        wtop = rules.reveal_found(numbers, nbr, pi, pb, meta, si, sb,
                                  P.WHY_TOTAL if used else P.WHY_COMPONENT)
        times["reveal"] += time.perf_counter_ns() - t - base


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mines", default="130,170,200")
    ap.add_argument("--moves", type=int, default=3000, help="moves proposed a level")
    ap.add_argument("--boards", type=int, default=2, help="certified boards a level to start chains from")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    nbr = grid.neighbour_table(W, H, "bounded")
    block = grid.block_mask(W, H, X, Y, "bounded").reshape(-1)
    click = Y * W + X
    rng = np.random.default_rng(args.seed)
    room = C.workspace(W, H)
    fresh_room = C.workspace(W, H)
    # the empty call's cost, taken off each timed call
    args0 = ((block, block, nbr), click, room[0], room[1], room[2], (np.int32(0), np.int32(0), np.int32(-1),
                                                                     np.int32(-1)))
    _nothing(*args0)
    empty = []
    for _ in range(2000):
        t = time.perf_counter_ns()
        _nothing(*args0)
        empty.append(time.perf_counter_ns() - t)
    base = int(statistics.median(empty))
    print(f"empty call: {base} ns (taken off each phase)")
    print("| mines | moves | kept | replay alone answers | events kept as logged (median share) | "
          "events gone through (median) | rounds a move (mean) | us a move: replay / settle / complete / reveal"
          " (mean) | us a move, kept / rejected (median) | fresh play us (median) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in [int(s) for s in args.mines.split(",")]:
        rows = []
        per = args.moves // args.boards
        for b in range(args.boards):
            mines = generate(W, H, m, X, Y, 1000 + b).board.flat_mines.copy()
            p = C.position(mines, nbr, click, C.DEFAULT_LEAF_BUDGET, room)
            assert C.start(p) == C.SOLVED
            for step in range(per + 20):  # (the first 20 compile and warm up: not counted)
                mine_cells = np.flatnonzero(mines)
                free = np.flatnonzero(~mines & ~block)
                src, dst = int(rng.choice(mine_cells)), int(rng.choice(free))
                old_events = int(p.play[2][EVENTS])
                t_first = R.first_touch(p.play[0], p.play[1], nbr, src, dst)
                C.move_mine(mines, p.numbers, nbr, src, dst)
                status, times, counts = certify_in_phases(mines, p.numbers, nbr, click, p.play, p.spare, p.scratch,
                                                          src, dst, base)
                if status == C.BUDGET:
                    status = C.settle(p)
                fr = C.position(mines.copy(), nbr, click, C.DEFAULT_LEAF_BUDGET, fresh_room)
                t = time.perf_counter_ns()
                C.start(fr)
                fresh = time.perf_counter_ns() - t - base
                kept = status == C.SOLVED
                if step >= 20:
                    rows.append(dict(kept=kept, times=times, counts=counts, fresh=fresh,
                                     kept_share=min(t_first, old_events) / old_events,
                                     gone=old_events - min(t_first, old_events),
                                     replay_alone=counts.get("rounds", 0) == 0 and times["settle"] == 0))
                if kept:
                    p = C.keep(p)
                else:
                    C.move_mine(mines, p.numbers, nbr, dst, src)
        n = len(rows)
        mean = {k: statistics.fmean(r["times"][k] for r in rows) / 1000 for k in rows[0]["times"]}
        tot = [sum(r["times"].values()) / 1000 for r in rows]
        kept = [x for x, r in zip(tot, rows) if r["kept"]]
        rej = [x for x, r in zip(tot, rows) if not r["kept"]]
        for what in (True, False):
            sel = [r for r in rows if r["kept"] == what]
            print(f"  {m} {'kept' if what else 'rejected'}: median us " + ", ".join(
                f"{k} {statistics.median(r['times'][k] for r in sel) / 1000:.1f}" for k in rows[0]["times"]) +
                "; mean us " + ", ".join(f"{k} {statistics.fmean(r['times'][k] for r in sel) / 1000:.1f}"
                                          for k in rows[0]["times"]) +
                f"; rounds mean {statistics.fmean(r['counts'].get('rounds', 0) for r in sel):.2f}"
                f", with total {statistics.fmean(r['counts'].get('total_rounds', 0) for r in sel):.2f}")
        print(f"| {m} | {n} | {len(kept) / n:.1%} | {sum(r['replay_alone'] for r in rows) / n:.1%} | "
              f"{statistics.median(r['kept_share'] for r in rows):.2f} | {statistics.median(r['gone'] for r in rows)} | "
              f"{statistics.fmean(r['counts'].get('rounds', 0) for r in rows):.2f} | "
              f"{mean['replay']:.1f} / {mean['settle']:.1f} / {mean['complete']:.1f} / {mean['reveal']:.1f} | "
              f"{statistics.median(kept) if kept else float('nan'):.1f} / {statistics.median(rej):.1f} | "
              f"{statistics.median(r['fresh'] for r in rows) / 1000:.1f} |", flush=True)


if __name__ == "__main__":
    main()
