"""One round of complete deduction, timed alone: the engine's against the certifier's before it.

    python research/one_engine/rounds.py capture --out rounds.npz [--boards 2] [--moves 150]
    python research/one_engine/rounds.py time --old OLD_TREE --new NEW_TREE --rounds-file rounds.npz [--runs 6] [--no-reuse]
    python research/one_engine/rounds.py parts --rounds-file rounds.npz

`capture` records the positions at which a no-guess chain's plays start a round of complete
deduction: certified 30x16 boards with 130 and 170 mines (clicked at the centre, `generate` with
seeds 0..boards-1) each run `--moves` chain moves with the kernels as plain Python (numba off), so
that the round's function can be wrapped and its inputs kept. `time` runs, in each tree's own
interpreter and taking turns (old, new, old, ...), that tree's round function on every recorded
position in the order the chains played them (the engine's `solver.playthrough.complete_step`, on
the play's position and a scratch that remembers the components swept to no avail, fresh at each
pass as at a chain's start; `--no-reuse`: every component swept; trees before it took the
position's rows), checks that both decide the same cells, and prints the CPU time per round of
each run and the medians' ratio. A round is about a third of generation's time, and
whole-generation timings swing more than the gap sought, so the round is measured where it can be
measured closely. `parts` splits the engine's round (this checkout's) into what it is made of:
the constraints built, the components put in their narrow order (and the round's arrays
allocated), and the sweeps of components of up to 12 cells and of larger ones, each part timed as
the best of 5 runs of `--repeat` passes, every component swept (as a round that decides nothing
does), the copying in of each position taken off; then the round as the chains played it, in the
same compiled loop (components swept to no avail skipped, the mine total where it is needed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

W, H, X, Y = 30, 16, 15, 8
LEVELS = (130, 170)


def capture(out: str, boards: int, moves: int) -> None:
    subprocess.run([sys.executable, __file__, "starts", "--boards", str(boards), "--out", out + ".starts.npz"],
                   check=True)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, __file__, "record", "--out", out, "--moves", str(moves)], env=env, check=True)


def starts(boards: int, out: str) -> None:
    """The certified start boards and the grid's scratch, made with numba on (the scratch's tables
    are built by kernels that rely on numba's arithmetic)."""
    from sweeplab.generators import certify as C
    from sweeplab.generators.noguess import generate
    flats = [generate(W, H, mines, X, Y, s).board.flat_mines for mines in LEVELS for s in range(boards)]
    si, sb, sm = C.workspace(W, H)[2]
    np.savez(out, boards=np.array(flats), si=si, sb=sb, sm=sm)


def record(out: str, moves: int) -> None:
    from sweeplab import grid
    from sweeplab.generators import certify as C
    from sweeplab.generators import noguess as G
    from sweeplab.solver import playthrough as play
    from sweeplab.solver.state import HID, HMASK, KNO, ST

    kept: dict[str, list] = {k: [] for k in ("st", "numbers", "hid", "kno", "hmask", "left")}
    inner = play.complete_step

    def wrapped(numbers, nbr, pi, pb, si, sb, mines_left, budget):
        for k, v in (("st", pb[ST]), ("numbers", numbers), ("hid", pi[HID]), ("kno", pi[KNO]), ("hmask", pi[HMASK])):
            kept[k].append(np.array(v, copy=True))
        kept["left"].append(int(mines_left))
        return inner(numbers, nbr, pi, pb, si, sb, mines_left, budget)

    play.complete_step = wrapped
    for module in list(sys.modules.values()):  # (numba's int64 arithmetic, which plain numpy refuses)
        if getattr(module, "__name__", "").startswith("sweeplab") and hasattr(module, "popcount"):
            module.popcount = lambda x: bin(int(x) & 0xFFFFFFFFFFFFFFFF).count("1")
    nbr = grid.neighbour_table(W, H, "bounded")
    excluded = grid.block_mask(W, H, X, Y, "bounded")
    made = np.load(out + ".starts.npz")
    for i, mines in enumerate(made["boards"]):
        room = (C.new_play(W * H), C.new_play(W * H), (made["si"].copy(), made["sb"].copy(), made["sm"].copy()))
        p = C.position(mines.copy(), nbr, Y * W + X, C.DEFAULT_LEAF_BUDGET, room)
        assert C.start(p) == C.SOLVED
        t = time.time()
        G.chain(p, excluded, np.uint64(1000 + i), moves)
        print(f"board {i}: {len(kept['left'])} rounds so far ({time.time() - t:.0f} s)", file=sys.stderr)
    np.savez_compressed(out, **{k: np.array(v) for k, v in kept.items()})


def run_side(path: str, repeat: int, reuse: bool) -> None:
    """Time this interpreter's round function on every recorded round, in the order they were
    played; print CPU ns a round and a digest of the decisions. The engine's round takes the
    play's position and scratch, which remembers the components swept to no avail (each pass
    starts from a fresh scratch, as a chain starts; `reuse` False: every component swept)."""
    import hashlib

    from sweeplab import grid
    try:
        from sweeplab.solver.playthrough import complete_step as step
    except ImportError:
        from sweeplab.generators.certify import _complete_step as step
    d = np.load(path)
    nbr = grid.neighbour_table(W, H, "bounded")
    n = W * H
    rounds = d["left"].shape[0]
    plain = step.py_func.__code__.co_argcount == 10  # (the round before it took the position's rows)
    if plain:
        rows = [tuple(d[k][i] for k in ("st", "numbers", "hid", "kno", "hmask")) + (int(d["left"][i]),)
                for i in range(rounds)]
        safe = np.zeros(n, dtype=np.bool_)
        mine = np.zeros(n, dtype=np.bool_)

        def one(r, scratch):
            st, numbers, hid, kno, hmask, left = rows[r]
            safe[:] = False
            mine[:] = False
            got = step(st, numbers, nbr, hid, kno, hmask, left, safe, mine, 200_000)
            return got, safe, mine
    else:
        from sweeplab.solver.state import HID, HMASK, KNO, MINE_OUT, SAFE_OUT, ST, new_play, reuse_quiet, scratch_for
        rows = []
        for i in range(rounds):
            pi, pb, _ = new_play(n)
            pb[ST] = d["st"][i]
            pi[HID], pi[KNO], pi[HMASK] = d["hid"][i], d["kno"][i], d["hmask"][i]
            rows.append((d["numbers"][i], pi, pb, int(d["left"][i])))

        def one(r, scratch):
            numbers, pi, pb, left = rows[r]
            si, sb, _ = scratch
            sb[SAFE_OUT] = False
            sb[MINE_OUT] = False
            got = step(numbers, nbr, pi, pb, si, sb, left, 200_000)
            return got, sb[SAFE_OUT], sb[MINE_OUT]

    def fresh():
        scratch = scratch_for(W, H) if not plain else None
        if not plain:
            reuse_quiet(scratch, reuse)
        return scratch

    h = hashlib.sha1()
    scratch = fresh()
    for r in range(rounds):  # (compiles, and the decisions)
        got, safe, mine = one(r, scratch)
        h.update(np.array([got[0], got[1], got[2]], dtype=np.int64).tobytes() + safe.tobytes() + mine.tobytes())
    spent = 0.0
    for _ in range(repeat):
        scratch = fresh()
        t = time.process_time()
        for r in range(rounds):
            one(r, scratch)
        spent += time.process_time() - t
    print(spent / (repeat * rounds) * 1e9, h.hexdigest()[:16])


def parts(path: str, repeat: int) -> None:
    from numba import njit

    from sweeplab import grid
    from sweeplab.solver.frontier import frame, order_component
    from sweeplab.solver.playthrough import complete_step
    from sweeplab.solver.state import HID, HMASK, KNO, MINE_OUT, ROUNDS, SAFE_OUT, SKIPPED, ST, new_play, scratch_for
    from sweeplab.solver.sweep import OK, backward, clear, sweep, workspace

    @njit
    def upto(st_, numbers_, hid_, kno_, hmask_, nbr, repeat, stage, lo, hi):
        """Every round to `stage`: -1 its position copied in only, 0 built and split, 1 ordered and
        allocated, 2 components of lo..hi cells swept forward, 3 and backward."""
        t = 0
        pi, pb, _ = new_play(st_.shape[1])
        for _ in range(repeat):
            for r in range(st_.shape[0]):
                pb[ST] = st_[r]
                pi[HID] = hid_[r]
                pi[KNO] = kno_[r]
                pi[HMASK] = hmask_[r]
                if stage < 0:
                    t += 1
                    continue
                cs = frame(numbers_[r], nbr, pi, pb)
                nf = cs.front.shape[0]
                ncomp = cs.comp_start.shape[0] - 1
                if stage == 0:
                    t += nf
                    continue
                maxm = 0
                for c in range(ncomp):
                    maxm = max(maxm, cs.comp_start[c + 1] - cs.comp_start[c])
                    order_component(cs, c)
                ws = workspace(4 * maxm + 8, maxm, cs.con_cell.shape[0], np.int64(1))
                F = np.zeros((4 * maxm + 8, 1))
                can = np.zeros(2 * nf, dtype=np.bool_)
                one = np.ones(1, dtype=np.bool_)
                out = (np.zeros(1), can[:nf], can[nf:])
                for c in range(ncomp):
                    m = cs.comp_start[c + 1] - cs.comp_start[c]
                    if stage == 1 or m < lo or m > hi:
                        continue
                    status, F, ws = sweep(cs, c, F, 0.0, ws)
                    if stage == 3 and status == OK:
                        backward(cs, c, F, ws, one, one, out, False)
                    clear(F, ws, m, status)
                    t += 1
        return t

    @njit
    def played(st_, numbers_, hid_, kno_, hmask_, left_, nbr, si0, sb, repeat):
        """Every round as a chain plays it (components swept to no avail skipped, the mine total
        where it is needed), each pass from a fresh scratch: (rounds under the total, components
        skipped)."""
        pi, pb, _ = new_play(st_.shape[1])
        used = 0
        si = si0
        for _ in range(repeat):
            si = si0.copy()
            used = 0
            for r in range(st_.shape[0]):
                pb[ST] = st_[r]
                pi[HID] = hid_[r]
                pi[KNO] = kno_[r]
                pi[HMASK] = hmask_[r]
                sb[SAFE_OUT] = False
                sb[MINE_OUT] = False
                used += complete_step(numbers_[r], nbr, pi, pb, si, sb, left_[r], 200_000)[2]
        return used, si[ROUNDS, SKIPPED]

    d = np.load(path)
    args = tuple(d[k] for k in ("st", "numbers", "hid", "kno", "hmask")) + (grid.neighbour_table(W, H, "bounded"),)
    rounds = d["left"].shape[0]

    def best(stage, lo=0, hi=0):
        upto(*args, 1, stage, lo, hi)
        out = float("inf")
        for _ in range(5):
            t = time.process_time()
            upto(*args, repeat, stage, lo, hi)
            out = min(out, time.process_time() - t)
        return out / (repeat * rounds) * 1e6

    copied = best(-1)
    built, ordered = best(0) - copied, best(1) - copied
    si0, sb, _ = scratch_for(W, H)
    as_played = args[:5] + (d["left"], args[5], si0, sb)
    played(*as_played, 1)
    whole = float("inf")
    for _ in range(5):
        t = time.process_time()
        under_total, skipped = played(*as_played, repeat)
        whole = min(whole, time.process_time() - t)
    whole = whole / (repeat * rounds) * 1e6 - copied
    small_f, small = best(2, 1, 12) - copied - ordered, best(3, 1, 12) - copied - ordered
    large_f, large = best(2, 13, 1 << 30) - copied - ordered, best(3, 13, 1 << 30) - copied - ordered
    print(f"{rounds} rounds; microseconds a round (best of 5 runs of {repeat} passes), every component swept:")
    print(f"  constraints built, components split            {built:6.2f}")
    print(f"  components in their narrow order, arrays made  {ordered - built:6.2f}")
    print(f"  components of up to 12 cells: forward, all     {small_f:6.2f} {small:6.2f}")
    print(f"  components of 13 cells or more: forward, all   {large_f:6.2f} {large:6.2f}")
    print(f"  the round, all told                            {ordered + small + large:6.2f}")
    print(f"a round as the chains played it (a pass from a fresh scratch: {skipped} components skipped as swept to "
          f"no avail and unchanged, {under_total} rounds under the mine total): {whole:6.2f}")


def time_sides(old: str, new: str, path: str, runs: int, repeat: int, reuse: bool) -> None:
    times: dict[str, list[float]] = {"old": [], "new": []}
    digests = {}
    for r in range(runs):
        for side, tree in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
            env = dict(os.environ, PYTHONPATH=os.path.join(tree, "src"))
            python = os.path.join(tree, ".venv", "bin", "python")
            flags = [] if reuse or side == "old" else ["--no-reuse"]
            ns, digest = subprocess.run([python, os.path.abspath(__file__), "side", "--rounds-file", path,
                                         "--repeat", str(repeat), *flags], env=env, check=True,
                                        capture_output=True, text=True, cwd=tree).stdout.split()
            times[side].append(float(ns))
            digests[side] = digest
            print(f"run {r} {side}: {float(ns) / 1e3:.2f} us a round", flush=True)
    rounds = np.load(path)["left"].shape[0]
    old_m, new_m = float(np.median(times["old"])), float(np.median(times["new"]))
    same = "the same" if digests["old"] == digests["new"] else "DIFFERENT"
    print(f"{rounds} rounds, {runs} runs a side: old {old_m / 1e3:.2f} us, new {new_m / 1e3:.2f} us a round "
          f"(medians), new / old {new_m / old_m:.2f}; decisions {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("task", choices=("capture", "time", "parts", "starts", "record", "side"))
    ap.add_argument("--out")
    ap.add_argument("--boards", type=int, default=2, help="start boards a level")
    ap.add_argument("--moves", type=int, default=150, help="chain moves from each start")
    ap.add_argument("--old")
    ap.add_argument("--new")
    ap.add_argument("--rounds-file")
    ap.add_argument("--runs", type=int, default=6, help="runs a side, taking turns")
    ap.add_argument("--repeat", type=int, default=5, help="passes over the rounds in a run")
    ap.add_argument("--no-reuse", action="store_true",
                    help="the new side sweeps every component every round (no quiet component skipped)")
    a = ap.parse_args()
    if a.task == "capture":
        capture(a.out, a.boards, a.moves)
    elif a.task == "starts":
        starts(a.boards, a.out)
    elif a.task == "record":
        record(a.out, a.moves)
    elif a.task == "parts":
        parts(a.rounds_file, a.repeat)
    elif a.task == "side":
        run_side(a.rounds_file, a.repeat, not a.no_reuse)
    else:
        time_sides(a.old, a.new, a.rounds_file, a.runs, a.repeat, not a.no_reuse)


if __name__ == "__main__":
    main()
