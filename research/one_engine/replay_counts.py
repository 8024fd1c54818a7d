"""Counts inside the replay of a moved board (a numba kernel cProfile cannot see into): a research
copy of solver.recertify._replay's event loop and `_settle` with counters, for measuring only.

    python research/one_engine/replay_counts.py [--mines 130,170,200] [--moves 1500]

Moves are proposed and kept as research/one_engine/chain_moves.py does. Per move it counts the old
log's events kept as logged before the first touch, those gone through one by one (the slow path,
while a cell is stale) and those copied once nothing is stale (the fast path); the numbers the
local rules around stale cells checked, the pair searches they ran, and the component checks.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sweeplab import grid
from sweeplab._numba_cache import njit
from sweeplab.generators import certify as C
from sweeplab.generators.noguess import generate
from sweeplab.kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE
from sweeplab.solver import recertify as R
from sweeplab.solver.deduction import (
    ALL_MINES,
    UNDECIDED,
    WHY_CLICK,
    WHY_COMPONENT,
    WHY_NUMBER,
    WHY_PAIR,
    number_rule,
)
from sweeplab.solver.rules import next_decision
from sweeplab.solver.state import (
    CHECKED,
    EV_A,
    EV_B,
    EV_CELL,
    EV_WHY,
    EVENTS,
    FLAGGED,
    HID,
    INWORK,
    KNO,
    OPENED,
    ST,
    STALE,
    STALE1,
    STALE_NOW,
    WORK,
    log_event,
    reset_scratch,
    shown,
    sync,
)

W, H, X, Y = 30, 16, 15, 8
NAMES = ("kept as logged", "slow path", "fast path", "settle pops", "settle checks", "pair searches",
         "component checks", "pair re-checks", "stale at end", "replay answered")


@njit
def _settle_counted(numbers, nbr, pi, pb, meta, si, sb, sm, wtop, cnt):
    st = pb[ST]
    while wtop > 0:
        wtop -= 1
        a = si[WORK, wtop]
        sb[INWORK, a] = False
        cnt[3] += 1
        if si[STALE1, a] == 0 or si[CHECKED, a] == meta[EVENTS]:
            continue
        si[CHECKED, a] = meta[EVENTS]
        sync(pi, st, nbr, a)
        h = pi[HID, a]
        if h == 0:
            continue
        cnt[4] += 1
        rule = number_rule(numbers[a] - pi[KNO, a], h)
        if rule != UNDECIDED:
            for k in range(8):
                j = nbr[a, k]
                if j >= 0 and st[j] == HIDDEN_STATE:
                    wtop = R._settle_cell(pi, pb, meta, si, sb, nbr, numbers, j, rule == ALL_MINES, WHY_NUMBER, a, -1,
                                          wtop)
            continue
        s = 0
        while True:
            cnt[5] += 1
            s, b, lo, hi, a_mines, a_safe, b_mines, b_safe = next_decision(st, numbers, nbr, pi, si, sm, a, s, True)
            if s == 24:
                break
            for side in range(2):
                c, mines_k, safe_k = (a, a_mines, a_safe) if side == 0 else (b, b_mines, b_safe)
                for k in range(8):
                    q = nbr[c, k]
                    if (mines_k | safe_k) >> k & 1 and st[q] == HIDDEN_STATE:
                        wtop = R._settle_cell(pi, pb, meta, si, sb, nbr, numbers, q, mines_k >> k & 1 == 1, WHY_PAIR,
                                              lo, hi, wtop)
            s += 1


@njit
def replay_counted(board, click, old, play, scratch, src, dst, cnt, rules_on):
    """recertify._replay for a single moved mine, counting (cnt)."""
    mines, numbers, nbr = board
    old_i, old_b, old_m = old
    pi, pb, meta = play
    si, sb, sm = scratch
    n = mines.shape[0]
    reset_scratch(sb, n)
    meta[:] = 0
    st = pb[ST]
    stale = sb[STALE]
    near = si[STALE1]
    end, dst_spoke, dst_quiet, _, _ = R._keep_first(nbr, old_i, old_b, old_m, pi, pb, meta, si, sb, src, dst,
                                                    np.int32(-1), np.int32(-1))
    cnt[0] += end
    meta[STALE_NOW] = 2
    e = end
    last = old_m[EVENTS]
    while e < last:
        if meta[STALE_NOW] == 0:
            while e < last:
                x = old_i[EV_CELL, e]
                if st[x] == HIDDEN_STATE:
                    a = old_i[EV_A, e]
                    b = old_i[EV_B, e]
                    why = old_b[EV_WHY, e]
                    if a == dst or b == dst or (why >= WHY_COMPONENT and dst_spoke <= e <= dst_quiet):
                        break
                    log_event(pi, pb, meta, x, old_b[ST, x], why, a, b)
                cnt[2] += 1
                e += 1
            if e == last:
                break
        ev = e
        e += 1
        cnt[1] += 1
        x = old_i[EV_CELL, ev]
        if st[x] != HIDDEN_STATE or x == src or x == dst:
            continue
        why = old_b[EV_WHY, ev]
        a = old_i[EV_A, ev]
        b = old_i[EV_B, ev]
        mine = old_b[ST, x] == FLAG_STATE
        if why == WHY_NUMBER:
            ok = near[a] == 0
            if not ok and st[a] == OPEN_STATE:
                sync(pi, st, nbr, a)
                ok = R._number_implies(numbers, pi, pb, a, mine)
        elif why == WHY_PAIR:
            ok = near[a] == 0 and near[b] == 0
            if not ok and st[a] == OPEN_STATE and st[b] == OPEN_STATE:
                cnt[7] += 1
                sync(pi, st, nbr, a)
                sync(pi, st, nbr, b)
                ok = R._pair_implies(numbers, nbr, pi, pb, si, sm, a, b, x, mine)
        elif why == WHY_CLICK:
            ok = True
        else:
            ok = ev < dst_spoke or ev > dst_quiet
            if ok and meta[STALE_NOW] > 0:
                cnt[6] += 1
                ok = why == WHY_COMPONENT and R._component_clean(pb, nbr, si, sb, x)
        if ok:
            log_event(pi, pb, meta, x, shown(numbers, x, mine), why, a, b)
        else:
            stale[x] = True
            meta[STALE_NOW] += 1
            R._mark_stale(si, nbr, x, 1)
        wtop = R._push_near_stale(pb, si, sb, nbr, x, 0)
        if wtop > 0 and rules_on:
            _settle_counted(numbers, nbr, pi, pb, meta, si, sb, sm, wtop, cnt)
    cnt[8] += n - meta[OPENED] - meta[FLAGGED]
    cnt[9] += meta[OPENED] + meta[FLAGGED] == n


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mines", default="130,170,200")
    ap.add_argument("--moves", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    nbr = grid.neighbour_table(W, H, "bounded")
    block = grid.block_mask(W, H, X, Y, "bounded").reshape(-1)
    click = Y * W + X
    rng = np.random.default_rng(args.seed)
    room = C.workspace(W, H)
    count_room = C.workspace(W, H)
    print("| mines | moves | kept | " + " | ".join(f"{k}, kept / rejected (mean a move)" for k in NAMES) + " |")
    print("|---|---|---|" + "---|" * len(NAMES))
    for m in [int(s) for s in args.mines.split(",")]:
        mines = generate(W, H, m, X, Y, 1000).board.flat_mines.copy()
        p = C.position(mines, nbr, click, C.DEFAULT_LEAF_BUDGET, room)
        assert C.start(p) == C.SOLVED
        rows = []
        times = []
        for _ in range(args.moves):
            src = int(rng.choice(np.flatnonzero(mines)))
            dst = int(rng.choice(np.flatnonzero(~mines & ~block)))
            C.move_mine(mines, p.numbers, nbr, src, dst)
            cnt = np.zeros(len(NAMES), dtype=np.int64)
            spent = []
            for rules_on in (True, False, True, False):
                t = time.perf_counter_ns()
                replay_counted((mines, p.numbers, nbr), click, p.play, count_room[0], count_room[2], np.int32(src),
                               np.int32(dst), cnt, rules_on)
                spent.append(time.perf_counter_ns() - t)
                if rules_on and len(spent) == 1:
                    first = cnt.copy()
            cnt = first
            times.append((min(spent[0], spent[2]), min(spent[1], spent[3])))
            C.move_mine(mines, p.numbers, nbr, dst, src)
            status = C.try_move(p, src, dst)
            if status == C.BUDGET:
                status = C.settle(p)
            kept = status == C.SOLVED
            rows.append((kept, cnt))
            if kept:
                p = C.keep(p)
            else:
                C.undo(p, src, dst)
        k = [c for kept, c in rows if kept]
        r = [c for kept, c in rows if not kept]
        cells = [f"{np.mean([c[i] for c in k]):.1f} / {np.mean([c[i] for c in r]):.1f}" for i in range(len(NAMES))]
        print(f"| {m} | {len(rows)} | {len(k) / len(rows):.1%} | " + " | ".join(cells) + " |", flush=True)
        for what in (True, False):
            sel = [t for t, (kept, _) in zip(times[20:], rows[20:]) if kept == what]
            print(f"  {m} {'kept' if what else 'rejected'}: replay us median {np.median([a for a, _ in sel]) / 1e3:.1f},"
                  f" without the rules around stale cells {np.median([b for _, b in sel]) / 1e3:.1f}")


if __name__ == "__main__":
    main()
