"""No-guess generator: time per board by density, ms-toollib's laymine_solvable beside it, the
densest boards that still generate, and an independent check of many boards.

    python benchmarks/bench_noguess.py                      # speed table + density sweep
    python benchmarks/bench_noguess.py --verify 100000      # + N boards at 99 mines checked by
                                                            #   the project's solver (sweeplab.solver)
    python benchmarks/bench_noguess.py --no-speed --verify 2000 --verify-mines 130   # chain boards
    python benchmarks/bench_noguess.py --no-speed --against --tatham DIR     # beside Tatham's and ms-toollib's
    python benchmarks/bench_noguess.py --no-speed --stages 200      # where a chain board's time goes

`--against` times sweeplab, Simon Tatham's Mines (its `minegen`, built here from the source
folder given to `--tatham`, which holds mines.c, misc.c, random.c, tree234.c, malloc.c and
puzzles.h: `git clone https://git.tartarus.org/simon/puzzles.git`; nothing of it is kept in
this repository) and ms-toollib's `laymine_solvable_adjust` in one run, taking turns in rounds
(`--rounds`) so that the box's changing load falls on all three alike.

Times are CPU seconds of this process (time.process_time), medians per board: the shared
2-core box is loaded by other work, and wall time there measures the neighbours.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

from sweeplab import grid
from sweeplab import kernels as K
from sweeplab.generators.noguess import generate
from sweeplab.rng import stream_key
from sweeplab.stats import bbbv


def timed(fn, k):
    out, times = [], []
    for i in range(k):
        t = time.process_time()
        out.append(fn(i))
        times.append(time.process_time() - t)
    return out, times


def speed_table(boards: int) -> None:
    print(f"{'level':>16} {'method':>9} {'boards':>6} {'median ms':>10} {'mean ms':>8} {'p90 ms':>7} "
          f"{'ladder':>6} {'moves':>6} {'chain acc':>9} {'mean 3BV':>8}")
    cases = [(30, 16, 99), (30, 16, 130), (30, 16, 170), (30, 24, 148), (30, 24, 200)]
    generate(30, 16, 99, 15, 8, 0)  # compile
    generate(30, 16, 170, 15, 8, 0, steps=2)
    for w, h, m in cases:
        x, y = w // 2, h // 2
        res, times = timed(lambda i: generate(w, h, m, x, y, stream_key(1, i)), boards)
        ms = [t * 1e3 for t in times]
        acc = sum(r.accepted for r in res) / max(1, sum(r.steps for r in res))
        # ladder: median cells the ladder tried; moves: median chain moves proposed
        print(f"{f'{w}x{h}/{m}':>16} {res[0].method:>9} {boards:>6} {statistics.median(ms):>10.2f} "
              f"{statistics.mean(ms):>8.2f} {np.percentile(ms, 90):>7.2f} "
              f"{statistics.median(r.ladder_tries for r in res):>6.0f} {statistics.median(r.steps for r in res):>6.0f} "
              f"{acc:>9.2f} {statistics.mean(bbbv(r.board) for r in res):>8.1f}")
    try:
        import ms_toollib as mst
    except ImportError:
        print("ms-toollib not installed: no comparison")
        return
    for m, tries in ((99, 1_000_000), (130, 2_000)):
        res, times = timed(lambda i: mst.laymine_solvable(16, 30, m, 8, 15, tries), max(5, boards // 2))
        ok = sum(bool(r[1]) for r in res)
        print(f"{f'30x16/{m}':>16} {'ms-toollib':>9} {len(res):>6} {statistics.median(times) * 1e3:>10.2f} "
              f"{statistics.mean(times) * 1e3:>8.2f} {np.percentile(times, 90) * 1e3:>7.2f} "
              f"{'':>6} {'':>6} {'':>9} {'':>8}  laymine_solvable(max_times={tries}): {ok}/{len(res)} solvable "
              "(no mine total)")


AGAINST = ((30, 16, 99), (30, 16, 130), (30, 16, 170), (30, 16, 200), (30, 24, 200))


def build_tatham(source: str) -> str:
    """Compile benchmarks/tatham/driver.c against Tatham's source folder; the binary's path."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tatham")
    out = os.path.join(tempfile.mkdtemp(prefix="sweeplab-tatham-"), "minegen")
    src = os.path.abspath(os.path.expanduser(source))
    subprocess.run(["gcc", "-O2", "-w", "-I", src, "-o", out, os.path.join(here, "driver.c"),
                    os.path.join(here, "stubs.c")] + [os.path.join(src, f) for f in
                                                      ("misc.c", "random.c", "tree234.c", "malloc.c")] + ["-lm"],
                   check=True)
    return out


def against(boards: int, tatham: str | None, adjust_boards: int, rounds: int) -> None:
    """Median CPU ms per board: sweeplab, Tatham's minegen, ms-toollib's laymine_solvable_adjust.

    The three take turns in `rounds` rounds, each round a slice of every level's boards, so that a
    change in the shared box's load falls on all three alike; the ratios are of the pooled medians,
    with the lowest and highest ratio of any one round beside them."""
    binary = build_tatham(tatham) if tatham else None
    try:
        import ms_toollib as mst
    except ImportError:
        mst = None
    generate(30, 16, 170, 15, 8, 0)  # compile
    times = {level: ([], [], []) for level in AGAINST}  # per level: ours, Tatham's, adjust's, per round
    for r in range(rounds):
        for w, h, m in AGAINST:
            x, y = w // 2, h // 2
            ours, theirs, adj = times[w, h, m]
            first, k = r * boards // rounds, (r + 1) * boards // rounds - r * boards // rounds
            ours.append(timed(lambda i: generate(w, h, m, x, y, stream_key(1, first + i)), k)[1])
            if binary:
                lines = subprocess.run([binary, str(w), str(h), str(m), str(x), str(y), str(k), str(first)],
                                       check=True, capture_output=True, text=True).stdout.split("\n")
                theirs.append([float(t.split()[0]) / 1e3 for t in lines if t.strip()])
            if mst is not None:
                ka = max(1, (r + 1) * adjust_boards // rounds - r * adjust_boards // rounds)
                adj.append(timed(lambda i: mst.laymine_solvable_adjust(h, w, m, y, x), ka)[1])

    def ms(per_round):
        return statistics.median(t for one in per_round for t in one) * 1e3 if per_round else float("nan")

    def spread(mine, other):
        if not other:
            return ""
        ratios = [statistics.median(b) / statistics.median(a) for a, b in zip(mine, other)]
        return f"{min(ratios):.2f}-{max(ratios):.2f}"

    print(f"{'level':>10} {'sweeplab ms':>11} {'Tatham ms':>9} {'Tatham/us':>9} {'by round':>10} {'adjust ms':>9} "
          f"{'adjust/us':>9} {'by round':>10}   (medians; {boards} boards ours and Tatham's, {adjust_boards} adjust, "
          f"in {rounds} rounds)")
    for (w, h, m), (ours, theirs, adj) in times.items():
        o = ms(ours)
        print(f"{f'{w}x{h}/{m}':>10} {o:>11.2f} {ms(theirs):>9.2f} {ms(theirs) / o:>9.2f} {spread(ours, theirs):>10} "
              f"{ms(adj):>9.2f} {ms(adj) / o:>9.2f} {spread(ours, adj):>10}", flush=True)


def stages(boards: int) -> None:
    """Where the time of a chain board goes: the ladder's 20% rejection sample, the ladder, the
    chain; and a chain move's cost, accepted or rejected, found by trying each move `extra` more
    times (a repeat runs warm, with the branches already seen: a lower bound on a first try)."""
    from sweeplab._numba_cache import njit
    from sweeplab.generators import noguess as G
    from sweeplab.generators.certify import SOLVED, keep, try_move, undo, workspace
    from sweeplab.rng import below, seed_key

    @njit
    def chain(p, excluded, state, steps, extra_accepted, extra_rejected):
        mpos, fpos = np.flatnonzero(p.mines).astype(np.int32), np.flatnonzero(~p.mines & ~excluded).astype(np.int32)
        accepted = 0
        for _ in range(steps):  # as noguess._chain, with the repeats
            state, a = below(state, mpos.shape[0])
            state, b = below(state, fpos.shape[0])
            src, dst = mpos[a], fpos[b]
            if try_move(p, src, dst) == SOLVED:
                for _ in range(extra_accepted):
                    undo(p, src, dst)
                    try_move(p, src, dst)
                mpos[a], fpos[b] = dst, src
                accepted += 1
                p = keep(p)
            else:
                undo(p, src, dst)
                for _ in range(extra_rejected):
                    try_move(p, src, dst)
                    undo(p, src, dst)
        return accepted

    def run(w, h, m, k, extra_accepted, extra_rejected):
        n, x, y = w * h, w // 2, h // 2
        excluded, nbr = grid.block_mask(w, h, x, y), grid.neighbour_table(w, h)
        room = workspace(w, h)
        times, counts = [], []
        for i in range(k):
            state = np.uint64(seed_key(stream_key(1, i)))
            t0 = time.process_time()
            base = min(m, int(G.LADDER_BASE_DENSITY * n))
            p, state, laid, _ = G._rejection(n, base, excluded, nbr, y * w + x, state, G.LADDER_BASE_TRIES,
                                             G.DEFAULT_LEAF_BUDGET, room)
            t1 = time.process_time()
            state, added, tried, p = G.ladder(p, excluded, state, m - base, G.ladder_draws(w, h, m, x, y), nbr)
            t2 = time.process_time()
            steps = G.chain_steps(w, h, m, x, y, "bounded", True, tried)
            accepted = chain(p, excluded, np.uint64(state), steps, extra_accepted, extra_rejected)
            times.append((t1 - t0, t2 - t1, time.process_time() - t2))
            counts.append((laid, tried, steps, accepted))
        return np.array(times) * 1e3, np.array(counts, dtype=float)

    print(f"{'level':>10} {'sample ms':>9} {'boards':>6} {'ladder ms':>9} {'tries':>6} {'chain ms':>8} {'moves':>6} "
          f"{'kept':>5} {'total ms':>8} {'kept move us':>12} {'refused us':>10}   (means; medians of the total)")
    for w, h, m in ((30, 16, 130), (30, 16, 170), (30, 16, 200), (30, 24, 200)):
        run(w, h, m, 2, 1, 1)  # compile
        k = boards if m == 130 or w == 30 and h == 24 else max(10, boards // 4)
        t, c = run(w, h, m, k, 0, 0)
        ta, _ = run(w, h, m, k, 2, 0)
        tr, _ = run(w, h, m, k, 0, 2)
        mean, moves, kept = t.mean(axis=0), c[:, 2].mean(), c[:, 3].mean()
        # (no moves, as where the ladder's board is the board: no per-move figure)
        per_kept = f"{(ta[:, 2].mean() - mean[2]) / 2 / kept * 1e3:.1f}" if kept else "-"
        per_refused = f"{(tr[:, 2].mean() - mean[2]) / 2 / (moves - kept) * 1e3:.1f}" if moves > kept else "-"
        print(f"{f'{w}x{h}/{m}':>10} {mean[0]:>9.3f} {c[:, 0].mean():>6.1f} {mean[1]:>9.3f} {c[:, 1].mean():>6.1f} "
              f"{mean[2]:>8.3f} {moves:>6.1f} {kept:>5.1f} {statistics.median(t.sum(axis=1)):>8.3f} "
              f"{per_kept:>12} {per_refused:>10}", flush=True)


def density_sweep() -> None:
    print(f"\n{'level':>16} {'seed':>4} {'ok':>3} {'cpu s':>6} {'start':>6} {'repairs':>7} {'accepted/steps':>14}")
    for w, h, counts in ((30, 16, (200, 250, 300, 350, 380, 400)), (30, 24, (300, 400, 500, 560))):
        for m in counts:
            t = time.process_time()
            try:
                r = generate(w, h, m, w // 2, h // 2, 1, tries=3000, steps=50)
                ok, start, rep, acc = "yes", r.start, r.tries, f"{r.accepted}/{r.steps}"
            except Exception as e:  # GenerationError: the budget ran out
                ok, start, rep, acc = "no", "-", "-", type(e).__name__
            print(f"{f'{w}x{h}/{m}':>16} {1:>4} {ok:>3} {time.process_time() - t:>6.2f} {start:>6} {rep:>7} {acc:>14}")


def verify(n: int, mines: int = 99) -> None:
    """n boards from the generator, each played by the project's complete solver (not the generator's)."""
    from sweeplab.solver.complete import analyse_kernel

    TOO_COMPLEX = 6  # analyse_kernel's status when a component passes its counting-table bound

    w, h, x, y = 30, 16, 15, 8
    nbr = grid.neighbour_table(w, h)
    size = w * h
    state = np.zeros(size, dtype=np.int8)
    queue = np.empty(size, dtype=np.int32)
    bad = declined = 0
    try:
        import ms_toollib as mst
    except ImportError:
        mst = None
    t0 = time.process_time()
    gen_time = 0.0
    for i in range(n):
        t = time.process_time()
        board = generate(w, h, mines, x, y, stream_key(2024, i)).board
        gen_time += time.process_time() - t
        numbers, mine = board.flat_numbers, board.flat_mines
        state[:] = K.HIDDEN_STATE
        K.flood_open(state, numbers, nbr, y * w + x, queue)
        while np.count_nonzero(state == K.OPEN_STATE) < size - mines:
            cells = np.full(size, -1, dtype=np.int8)
            cells[state == K.OPEN_STATE] = numbers[state == K.OPEN_STATE]
            cells[state == K.FLAG_STATE] = -2
            res = analyse_kernel(cells, nbr, True, mines)
            hidden = state == K.HIDDEN_STATE
            safe, sure = res[3] & hidden, res[4] & hidden
            if res[0] == TOO_COMPLEX and mst is not None:  # the project solver declines: ms-toollib decides
                declined += 1
                shown = np.where(state == K.OPEN_STATE, numbers, np.where(state == K.FLAG_STATE, 11, 10))
                prob = np.array(mst.cal_probability_onboard(shown.reshape(h, w).astype(int).tolist(),
                                                            float(mines))[0]).reshape(-1)
                safe, sure = (prob == 0) & hidden, (prob == 1) & hidden
                res = (0,)
            if res[0] != 0 or (safe & mine).any() or not mine[sure].all() or not (safe.any() or sure.any()):
                bad += 1
                print(f"board {i} (seed stream_key(2024, {i})) is not certified by the project solver")
                break
            state[sure] = K.FLAG_STATE
            for j in np.flatnonzero(safe):
                K.flood_open(state, numbers, nbr, int(j), queue)
        if (i + 1) % 10000 == 0:
            print(f"  {i + 1} boards checked, {bad} uncertified, {declined} positions the project solver "
                  f"declined (decided by ms-toollib), {time.process_time() - t0:.0f} s", flush=True)
    print(f"\nindependent check: {n} boards at 30x16/{mines} from (15, 8), {bad} not certified by "
          f"sweeplab.solver ({declined} positions it declined as too complex were decided by ms-toollib's "
          f"cal_probability_onboard with the mine total; generation {gen_time / n * 1e3:.2f} ms/board mean, check "
          f"{(time.process_time() - t0 - gen_time) / n * 1e3:.2f} ms/board)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=30, help="boards per level in the speed table")
    ap.add_argument("--verify", type=int, default=0, help="boards at 99 mines to check with the project solver")
    ap.add_argument("--verify-mines", type=int, default=99, help="mines on the 30x16 boards --verify checks")
    ap.add_argument("--no-speed", action="store_true", help="skip the speed table and the density sweep")
    ap.add_argument("--against", action="store_true", help="side by side with Tatham's Mines and ms-toollib's "
                    "laymine_solvable_adjust")
    ap.add_argument("--against-boards", type=int, default=200, help="boards per level for --against")
    ap.add_argument("--rounds", type=int, default=5, help="--against takes turns in this many rounds")
    ap.add_argument("--stages", type=int, default=0, help="boards for the table of where a chain board's time "
                    "goes (130 mines and 30x24/200; a quarter as many at 170 and 200 on 30x16)")
    ap.add_argument("--tatham", default=None, help="folder of Simon Tatham's puzzles source (with mines.c)")
    a = ap.parse_args()
    if a.against and not 1 <= a.rounds <= a.against_boards:
        ap.error(f"--rounds must be from 1 to --against-boards ({a.against_boards}), so that every round times "
                 f"a board; got {a.rounds}")
    print("machine: shared 2-core x86_64; CPU time of this process per board")
    if not a.no_speed:
        speed_table(a.boards)
        density_sweep()
    if a.stages:
        stages(a.stages)
    if a.against:
        against(a.against_boards, a.tatham, max(5, a.against_boards // 2), a.rounds)
    if a.verify:
        verify(a.verify, a.verify_mines)


if __name__ == "__main__":
    main()
