"""No-guess boards: speed side by side with Simon Tatham's Mines and ms-toollib, where a board's time
goes, the densest boards that generate, and many boards checked by two independent solvers.

    python benchmarks/bench_noguess.py --against --tatham DIR      # the speed table (rounds taking turns)
    python benchmarks/bench_noguess.py --stages 40                 # where a board's time goes
    python benchmarks/bench_noguess.py --densest                   # the densest boards that generate
    python benchmarks/bench_noguess.py --first-click 2000          # a game's first click on expert
    nice python benchmarks/bench_noguess.py --verify 100000 --verify-mines 130   # both solvers check each board
    nice python benchmarks/bench_noguess.py --verify 5000 --verify-from 27       # ... boards after the first 2,700
    python benchmarks/bench_noguess.py --verify 100000 --verify-mines 170 --verify-dir verify \
        --cluster local --workers 2                                               # on Dask, resumable

`--against` times sweeplab's `generate` (a board for a game: its own chain), Simon Tatham's Mines
(its `minegen`, built here from the source folder given to `--tatham`, which holds mines.c, misc.c,
random.c, tree234.c, malloc.c and puzzles.h; nothing of it is kept in this repository) and
ms-toollib's `laymine_solvable_adjust` in one run, taking turns in rounds (`--rounds`) so that the
box's changing load falls on all three alike; a batch's time per board (`noguess.boards`: one warm
chain) is beside them.

Times are CPU seconds of this process (time.process_time), medians per board: the shared 2-core box
is loaded by other work, and wall time there measures the neighbours.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

from sweeplab import grid
from sweeplab import kernels as K
from sweeplab.generators import noguess as G
from sweeplab.generators.noguess import boards, generate
from sweeplab.lab.runner import fan_out
from sweeplab.rng import stream_key

# (width, height, mines, click x, click y): the four expert densities and 30x24/200 from the
# centre, and two off-centre clicks
AGAINST = ((30, 16, 99, 15, 8), (30, 16, 130, 15, 8), (30, 16, 170, 15, 8), (30, 16, 200, 15, 8),
           (30, 24, 200, 15, 12), (30, 16, 130, 3, 3), (30, 16, 170, 0, 15))


def timed(fn, k):
    out, times = [], []
    for i in range(k):
        t = time.process_time()
        out.append(fn(i))
        times.append(time.process_time() - t)
    return out, times


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


def batch_ms(w, h, m, x, y, k) -> float:
    """CPU ms per board of a batch of k boards (one warm chain; its first board's chain included)."""
    t = time.process_time()
    for _ in boards(w, h, m, x, y, 1, k):
        pass
    return (time.process_time() - t) / k * 1e3


def against(per_level: int, tatham: str | None, adjust_boards: int, rounds: int) -> None:
    """Median CPU ms per board: sweeplab, Tatham's minegen, ms-toollib's laymine_solvable_adjust,
    taking turns in `rounds` rounds; the ratios are of the pooled medians, with the lowest and
    highest ratio of any one round beside them."""
    binary = build_tatham(tatham) if tatham else None
    try:
        import ms_toollib as mst
    except ImportError:
        mst = None
    generate(30, 16, 170, 15, 8, 0)  # compile (the chain)
    list(boards(30, 16, 130, 15, 8, 0, 2))  # ... and a batch's first play, called from Python
    times = {level: ([], [], []) for level in AGAINST}  # per level: ours, Tatham's, adjust's, per round
    made = {level: [] for level in AGAINST}
    for r in range(rounds):
        for level in AGAINST:
            w, h, m, x, y = level
            ours, theirs, adj = times[level]
            first, k = r * per_level // rounds, (r + 1) * per_level // rounds - r * per_level // rounds
            res, t = timed(lambda i: generate(w, h, m, x, y, stream_key(1, first + i)), k)
            ours.append(t)
            made[level] += res
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
            return "-"
        ratios = [statistics.median(b) / statistics.median(a) for a, b in zip(mine, other)]
        return f"{min(ratios):.2f}-{max(ratios):.2f}"

    print(f"{'level':>10} {'click':>7} {'method':>9} {'moves':>6} {'sweeplab ms':>11} {'Tatham ms':>9} "
          f"{'Tatham/us':>9} {'by round':>10} {'adjust ms':>9} {'adjust/us':>9} {'by round':>10} {'batch ms':>8}")
    for level, (ours, theirs, adj) in times.items():
        w, h, m, x, y = level
        o = ms(ours)
        method = statistics.mode(r.method for r in made[level])
        moves = statistics.median(r.steps for r in made[level])
        print(f"{f'{w}x{h}/{m}':>10} {f'{x},{y}':>7} {method:>9} {moves:>6.0f} {o:>11.2f} {ms(theirs):>9.2f} "
              f"{ms(theirs) / o:>9.2f} {spread(ours, theirs):>10} {ms(adj):>9.2f} {ms(adj) / o:>9.2f} "
              f"{spread(ours, adj):>10} {batch_ms(w, h, m, x, y, max(20, per_level // 2)):>8.2f}", flush=True)
    print(f"(medians of {per_level} boards a level for sweeplab and Tatham, {adjust_boards} for adjust, in {rounds} "
          "rounds taking turns; batch: a board of one warm chain, `noguess.boards`, after the round)")


def stages(k: int) -> None:
    """Where a chain board's time goes: the start (insertion or repair) and the chain; what a
    rejection board's play costs against a chain move (MOVES_PER_PLAY); and a board from `generate`
    (`auto`: rejection's boards first) against one from the chain alone."""
    from sweeplab.generators.certify import position, start, workspace
    from sweeplab.kernels import lay_uniform

    print(f"{'level':>10} {'start ms':>8} {'insert':>6} {'chain ms':>8} {'moves':>6} {'kept':>5} {'us/move':>7} "
          f"{'play us':>7} {'moves/play':>10} {'auto/chain':>10}   (means over {k} boards)")
    for w, h, m, x, y in AGAINST[1:5]:
        level = G.Level(w, h, m, x, y, "bounded", G.DEFAULT_LEAF_BUDGET)
        steps = G.chain_moves(level.free, m, level.corner)
        rows = []
        for i in range(k + 1):
            t0 = time.process_time()
            p, state, ok, _, how = G.start_chain(level, np.uint64(stream_key(3, i)), G.DEFAULT_TRIES, "insert")
            t1 = time.process_time()
            state, kept, p = G.chain(p, level.excluded, np.uint64(state), steps)
            rows.append((t1 - t0, time.process_time() - t1, how == "insert", kept))
        rows = np.array(rows[1:])  # (the first compiles)
        room = workspace(w, h)
        t = time.process_time()
        state = np.uint64(5)
        for _ in range(200):
            flat, state = lay_uniform(level.n, m, level.excluded, np.uint64(state))
            start(position(flat, level.nbr, level.click, level.budget, room))
        play = (time.process_time() - t) / 200
        move = rows[:, 1].mean() / steps
        # what `auto`'s rejection boards add to a board the chain makes: generate as a game calls it,
        # against the chain alone, the same seeds
        auto, alone = [], []
        for i in range(k):  # (taking turns, so that the box's load falls on both alike)
            auto += timed(lambda _: generate(w, h, m, x, y, stream_key(1, i)), 1)[1]
            alone += timed(lambda _: generate(w, h, m, x, y, stream_key(1, i), method="chain"), 1)[1]
        print(f"{f'{w}x{h}/{m}':>10} {rows[:, 0].mean() * 1e3:>8.2f} {rows[:, 2].mean():>6.2f} "
              f"{rows[:, 1].mean() * 1e3:>8.2f} {steps:>6} {rows[:, 3].mean() / steps:>5.2f} {move * 1e6:>7.1f} "
              f"{play * 1e6:>7.1f} {play / move:>10.1f} {statistics.median(auto) / statistics.median(alone):>10.2f}",
              flush=True)


def densest() -> None:
    """The densest boards that generate from the centre: one board a level, CPU seconds."""
    print(f"{'level':>10} {'ok':>3} {'cpu s':>6} {'start':>6} {'repairs':>7} {'moves':>6} {'kept':>5}")
    for w, h, counts in ((30, 16, (250, 300, 350, 400)), (30, 24, (400, 500, 560))):
        for m in counts:
            t = time.process_time()
            try:
                r = generate(w, h, m, w // 2, h // 2, 1)
                ok, start, rep, moves, kept = "yes", r.start, r.tries, r.steps, f"{r.accepted / max(r.steps, 1):.3f}"
            except Exception as e:  # GenerationError: the budget ran out
                ok, start, rep, moves, kept = "no", "-", "-", "-", type(e).__name__
            print(f"{f'{w}x{h}/{m}':>10} {ok:>3} {time.process_time() - t:>6.1f} {start:>6} {rep:>7} {moves:>6} "
                  f"{kept:>5}", flush=True)


def first_click(k: int) -> None:
    """A game's first click on a no-guess expert board (the board laid and certified in it): CPU ms
    of `Game.open`, from the centre and from random cells, median, p99 and the largest."""
    from sweeplab.game import Game
    from sweeplab.generators import make

    rng = np.random.default_rng(0)
    print(f"{'first click':>12} {'games':>6} {'median ms':>9} {'p99 ms':>7} {'max ms':>7}")
    for name in ("centre", "random"):
        times = []
        for i in range(k + 1):
            x, y = (15, 8) if name == "centre" else (int(rng.integers(30)), int(rng.integers(16)))
            g = Game(rule=make("noguess", 30, 16, 99, stream_key(9, i)))
            t = time.process_time()
            g.open(x, y)
            times.append(time.process_time() - t)
        ms = np.array(times[1:]) * 1e3
        print(f"{name:>12} {k:>6} {np.median(ms):>9.2f} {np.percentile(ms, 99):>7.2f} {ms.max():>7.2f}", flush=True)


def play_out(board, x, y, decide) -> bool:
    """Open the board from (x, y), then open every cell `decide` calls safe and flag every one it
    calls a mine, until done (True) or `decide` finds nothing (False). `decide(shown, hidden)` gets
    the cells as ms-toollib draws them (numbers, 10 hidden, 11 flagged)."""
    w, h, mines = board.width, board.height, board.mine_count
    nbr, numbers, mine = grid.neighbour_table(w, h), board.flat_numbers, board.flat_mines
    state, queue = np.full(w * h, K.HIDDEN_STATE, dtype=np.int8), np.empty(w * h, dtype=np.int32)
    K.flood_open(state, numbers, nbr, y * w + x, queue)
    while np.count_nonzero(state == K.OPEN_STATE) < w * h - mines:
        hidden = state == K.HIDDEN_STATE
        shown = np.where(state == K.OPEN_STATE, numbers, np.where(state == K.FLAG_STATE, 11, 10))
        safe, sure = decide(shown, hidden)
        if (safe & mine).any() or not mine[sure].all():
            raise AssertionError("a solver decided a cell wrongly")
        if not (safe.any() or sure.any()):
            return False
        state[sure] = K.FLAG_STATE
        for j in np.flatnonzero(safe):
            K.flood_open(state, numbers, nbr, int(j), queue)
    return True


VERIFY_LEVEL = (30, 16, 15, 8)  # the boards --verify checks: 30x16 from the centre
BATCH = 100  # boards a batch (one warm chain, seeded stream_key(2024, batch)): a task of --verify
TOO_COMPLEX = 6  # analyse_kernel's status when a component passes its counting-table bound


def verify_batch(mines: int, project_only: bool, count: int, batch: int, _stop: int = 0) -> dict:
    """Batch `batch` of --verify: its first `count` boards at 30x16/mines from (15, 8), as
    `noguess.boards` makes them (one warm chain seeded stream_key(2024, batch); its first board as
    `generate` does), each played from its first click by two solvers other than the generator's
    own bookkeeping: the project's (`sweeplab.solver.complete.analyse_kernel`, with the mine total; a
    position it declines as too complex is decided by ms-toollib, and counted) and ms-toollib's
    `cal_probability_onboard` alone (with the mine total), or the project's alone (`project_only`).
    Returns the boards each solver left unplayed (their indices in the batch), the positions declined
    and the CPU seconds of each part."""
    import ms_toollib as mst

    from sweeplab.solver.complete import analyse_kernel

    w, h, x, y = VERIFY_LEVEL
    nbr = grid.neighbour_table(w, h)
    declined = 0

    def by_ms_toollib(shown, hidden):
        prob = np.array(mst.cal_probability_onboard(shown.reshape(h, w).astype(int).tolist(), float(mines))[0])
        return (prob.reshape(-1) == 0) & hidden, (prob.reshape(-1) == 1) & hidden

    def by_project(shown, hidden):
        nonlocal declined
        cells = np.where(shown == 10, -1, np.where(shown == 11, -2, shown)).astype(np.int8)
        res = analyse_kernel(cells, nbr, True, mines)
        if res[0] == TOO_COMPLEX:
            declined += 1
            return by_ms_toollib(shown, hidden)
        return res[3] & hidden, res[4] & hidden

    solvers = [("project", by_project)] + ([] if project_only else [("ms-toollib", by_ms_toollib)])
    spent = {"generation": 0.0, "project": 0.0, "ms-toollib": 0.0}
    bad: dict[str, list[int]] = {name: [] for name, _ in solvers}
    t = time.process_time()
    made = [r.board for r in boards(w, h, mines, x, y, stream_key(2024, batch), count)]
    spent["generation"] = time.process_time() - t
    for i, board in enumerate(made):
        for name, decide in solvers:
            t = time.process_time()
            if not play_out(board, x, y, decide):
                bad[name].append(i)
            spent[name] += time.process_time() - t
    return {"batch": batch, "boards": len(made), "bad": bad, "declined": declined, "spent": spent}


def verify(n: int, mines: int, budget: float = float("inf"), first: int = 0, project_only: bool = False,
           folder: str | None = None, **backend) -> None:
    """n boards at 30x16/mines, in batches of BATCH from batch `first` on (`verify_batch`; runs from
    different `first` batches check different boards, and add up), each batch a task of the lab's
    fan-out (local processes, or Dask: `backend` is `fan_out`'s workers, scheduler, cluster). Each
    finished batch is written to `folder` (when given) as it lands, and a rerun reads it back instead
    of running it again. A board a solver leaves unplayed is printed with its seed. Stops once
    `budget` CPU seconds are spent (the batches in flight are dropped; those written stay)."""
    w, h, x, y = VERIFY_LEVEL
    tag = "project" if project_only else "both"
    counts = {b: min(BATCH, n - (b - first) * BATCH) for b in range(first, first + (n + BATCH - 1) // BATCH)}

    def path(b: int) -> str | None:
        return os.path.join(folder, f"verify_{w}x{h}_{mines}_{tag}_b{b:05d}_n{counts[b]}.json") if folder else None

    done: dict[int, dict] = {}
    for b in counts:
        p = path(b)
        if p and os.path.exists(p):
            with open(p) as f:
                done[b] = json.load(f)
    todo = [(b, b + 1) for b in counts if b not in done]
    work = functools.partial(_verify_task, mines, project_only, counts)
    spent = sum(sum(r["spent"].values()) for r in done.values())
    results = fan_out(work, todo, **backend) if todo else iter(())
    ran = 0
    try:
        for (b, _), r in results:
            done[b] = r
            ran += 1
            p = path(b)
            if p:
                with open(p + ".part", "w") as f:
                    json.dump(r, f)
                os.replace(p + ".part", p)
            for name, boards_left in r["bad"].items():
                for i in boards_left:
                    print(f"board {i} of batch {b} (seed stream_key(2024, {b})) is not certified by {name}", flush=True)
            spent += sum(r["spent"].values())
            if len(done) % 10 == 0:
                print(f"  {sum(d['boards'] for d in done.values())} boards checked", flush=True)
            if spent > budget:
                break
    finally:
        close = getattr(results, "close", None)
        if close:
            close()
    checked = sum(d["boards"] for d in done.values())
    if not checked:
        print("no batch checked")
        return
    bad = {name: sum(len(d["bad"].get(name, [])) for d in done.values()) for name in ("project", "ms-toollib")}
    declined = sum(d["declined"] for d in done.values())
    cpu = {k: sum(d["spent"][k] for d in done.values()) for k in ("generation", "project", "ms-toollib")}
    toollib = "-" if project_only else str(bad["ms-toollib"])
    print(f"ran {ran} batches ({len(counts) - len(todo)} read back from {folder})" if folder else f"ran {ran} batches")
    print(f"\n{'level':>10} {'click':>6} {'boards':>7} {'project':>8} {'declined':>8} {'ms-toollib':>10} "
          f"{'gen ms':>7} {'project ms':>10} {'toollib ms':>10}")
    print(f"{f'{w}x{h}/{mines}':>10} {f'{x},{y}':>6} {checked:>7} {bad['project']:>8} {declined:>8} {toollib:>10} "
          + " ".join(f"{cpu[k] / checked * 1e3:>{c}.2f}" for k, c in
                     (("generation", 7), ("project", 10), ("ms-toollib", 10))))
    print("(project, ms-toollib: boards each solver could not finish from the first click; declined: positions "
          "the project's solver passed to ms-toollib; CPU ms per board, summed over the workers)")


def _verify_task(mines, project_only, counts, batch, _stop):
    return verify_batch(mines, project_only, counts[batch], batch)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", action="store_true", help="side by side with Tatham's Mines and ms-toollib's "
                    "laymine_solvable_adjust")
    ap.add_argument("--against-boards", type=int, default=200, help="boards per level for --against")
    ap.add_argument("--rounds", type=int, default=10, help="--against takes turns in this many rounds")
    ap.add_argument("--tatham", default=None, help="folder of Simon Tatham's puzzles source (with mines.c)")
    ap.add_argument("--stages", type=int, default=0, help="boards a level for the table of where the time goes")
    ap.add_argument("--densest", action="store_true", help="the densest boards that generate")
    ap.add_argument("--first-click", type=int, default=0, help="games for the first-click table")
    ap.add_argument("--verify", type=int, default=0, help="boards to check with an independent solver")
    ap.add_argument("--verify-budget", type=float, default=float("inf"),
                    help="--verify stops at the first whole batch after this many CPU seconds")
    ap.add_argument("--verify-mines", type=int, default=130, help="mines on the 30x16 boards --verify checks")
    ap.add_argument("--verify-from", type=int, default=0, help="the batch of 100 boards --verify starts at (runs "
                    "from different batches check different boards)")
    ap.add_argument("--verify-project-only", action="store_true", help="--verify with the project's solver alone "
                    "(ms-toollib still decides the positions it declines)")
    ap.add_argument("--verify-dir", help="folder where --verify writes each batch as it lands (a rerun reads them back)")
    ap.add_argument("--workers", type=int, default=1, help="--verify's worker processes (or the LocalCluster's)")
    ap.add_argument("--cluster", choices=["local"], help="--verify on a Dask LocalCluster of --workers processes")
    ap.add_argument("--scheduler", help="--verify on a Dask scheduler, tcp://HOST:PORT (its workers import sweeplab)")
    a = ap.parse_args()
    if a.workers < 1 or a.verify < 0 or a.verify_from < 0:
        ap.error("--workers must be at least 1, --verify and --verify-from at least 0")
    if a.against and not 1 <= a.rounds <= a.against_boards:
        ap.error(f"--rounds must be from 1 to --against-boards ({a.against_boards}), so that every round times "
                 f"a board; got {a.rounds}")
    print("machine: shared 2-core x86_64; CPU time of this process per board")
    if a.against:
        against(a.against_boards, a.tatham, max(5, a.against_boards // 2), a.rounds)
    if a.stages:
        stages(a.stages)
    if a.densest:
        densest()
    if a.first_click:
        first_click(a.first_click)
    if a.verify:
        if a.verify_dir:
            os.makedirs(a.verify_dir, exist_ok=True)
        verify(a.verify, a.verify_mines, a.verify_budget, a.verify_from, a.verify_project_only, a.verify_dir,
               workers=a.workers, cluster=a.cluster, scheduler=a.scheduler)


if __name__ == "__main__":
    main()
