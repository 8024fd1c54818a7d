"""JSMinesweeper's solver and `strong` on the very same boards: paired wins, and where they choose differently.

    python research/bench_jsm.py --jsm /path/to/JSMinesweeper --case expert-safe-corner --seed 2 --games 2000
    python research/bench_jsm.py --jsm ... --games 20000 --wins-only   # the paired wins alone
    python research/bench_jsm.py --jsm ... --games 3000 --judge 100 --samples 24   # each kind judged again
    python research/bench_jsm.py --jsm ... --games 20000 --every --workers 2       # the whole gap, decomposed

--jsm is a work tree of DavidNHill/JSMinesweeper (e.g. `git --git-dir=MIRROR archive HEAD | tar x`
into a scratch folder); node must be on PATH. Both players' games and the divergences are cached
in --cache, so a second run (another --judge) replays nothing.

JSMinesweeper (DavidNHill/JSMinesweeper, not part of sweeplab) is played headless in node by
`jsm_driver.js`, which loads the solver's own files from the checkout given by --jsm and plays
each board as its bulk run does (no flags; every certain clear, else the first action). The
boards are game i of `sweeplab.lab.run` seeded --seed (laid by sweeplab's first-click rule), so
`strong` (bench_paired's game i) and JSMinesweeper play the same mines.

Then, for every game, JSMinesweeper's moves are replayed through sweeplab's `Game`, and at each of
its guesses `strong` is asked what it would open there: the first guess where the two differ is
the game's *divergence*. Both cells are then judged without the luck of the rest of the game by
playing `strong` on from each of them on the real board (the true layout is a uniform draw among
those consistent with the position), same player seed: summed over many divergences of one kind,
the difference in wins estimates which choice is better and by how much. Divergences are sorted by
kind: a forced 50/50, an end game (at most 3,000 layouts), the first guess of the game, a guess
off the frontier (by either player), a frontier guess; or JSMinesweeper guessing a 50/50 early
(it does so while safe cells are left; the guess costs the same later), or guessing where `strong`
finds a safe cell. `--judge N` judges N divergences of each kind again on layouts resampled from
the real board (`resample`), `strong` playing on from both cells on each.

`--every` judges every guess where they differ along JSMinesweeper's path, not only the first, the
same way: following JSMinesweeper through its first k guesses and then `strong` goes from
`strong` (k = 0) to JSMinesweeper (all of them), and each step changes the expected result by
that guess's difference, so the differences summed over all games add up (up to noise) to the
whole gap between the two players, shown by kind and by the guess's number.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "benchmarks")]  # the harnesses and the benchmarks' cases
from bench_winrate import CASES  # noqa: E402


def boards(case, seed, games):
    """The mine indices (x + width*y) of games 0..games-1, laid by the case's first-click rule."""
    from sweeplab.game import Game
    from sweeplab.generators import make_rule, rule_seed
    from sweeplab.lab.runner import game_seeds

    w, h, m, rule, at = CASES[case]
    out = []
    for i in range(games):
        board_seed, _ = game_seeds(seed, i)
        g = Game(rule=make_rule(rule, w, h, m, rule_seed(rule, board_seed)))
        g.open(*at)
        out.append([int(c) for c in np.flatnonzero(g.board.flat_mines)])
    return out


def play_jsm(jsm, case, mines, cache):
    w, h, m, rule, at = CASES[case]
    path = Path(cache)
    if path.exists():
        got = [json.loads(x) for x in path.read_text().splitlines()]
        if len(got) >= len(mines):
            return got[:len(mines)]
    lines = "".join(json.dumps({"id": i, "w": w, "h": h, "m": m, "start": at[0] + w * at[1],
                                "zero": rule == "opening", "mines": ms, "rseed": 12345 + i}) + "\n"
                    for i, ms in enumerate(mines))
    t0 = time.time()
    r = subprocess.run(["node", str(HERE / "jsm_driver.js"), jsm], input=lines, capture_output=True, text=True,
                       check=True)
    got = [json.loads(x) for x in r.stdout.splitlines()]
    print(f"  JSMinesweeper: {len(got)} games in {time.time() - t0:.0f} s ({r.stderr.strip()})")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(r.stdout)
    return got


def play_strong(case, seed, games, cache):
    path = Path(cache)
    if path.exists():
        got = json.loads(path.read_text())
        if len(got["won"]) >= games:
            return got
    from bench_paired import play
    got = play("strong", case, seed, 0, games, False, 1000)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(got))
    return got


def replayed(w, h, mines, opened):
    """A game of the board `mines` with the cells `opened` opened in turn (a cell a cascade already
    opened is passed over)."""
    from sweeplab.board import Board
    from sweeplab.game import Game

    g = Game(Board.from_indices(w, h, mines))
    for c in opened:
        if g.cell_state(c % w, c // w) != "open":
            g.open(c % w, c // w)
    return g


def continue_strong(w, h, mines, opened, cell, player_seed):
    """Open the cells `opened` then `cell` on the real board, and let `strong` play on: won?"""
    from sweeplab.lab.autoplay import autoplay
    from sweeplab.solver.players import make_player

    g = replayed(w, h, mines, opened)
    g.open(cell % w, cell // w)
    if g.over:
        return g.status == "won"
    return bool(autoplay(g, make_player("strong", player_seed)).won)


def resample(view, layout, rng, steps):
    """A layout consistent with `view`, from `layout` (one consistent with it) by `steps` heat-bath
    moves: a window of frontier cells near a random one is laid again, uniformly among its
    configurations that keep every number, together with the off-frontier cells (their mines
    uniform, so a configuration of j mines weighs C(off-frontier cells, their mines)). Each move keeps
    the uniform distribution over consistent layouts, so started from the real board (a uniform draw
    among them, given the position) every layout it returns is one too: correlated, not biased."""
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    n = cells.size
    shown = np.append(cells >= 0, False)
    hidden = cells < 0
    front = hidden & shown[nbr].any(axis=1)
    off = np.flatnonzero(hidden & ~front)
    fcells = np.flatnonzero(front)
    lay = layout.copy()
    if fcells.size == 0:
        steps = 1
    xs, ys = np.arange(n) % view.width, np.arange(n) // view.width
    for _ in range(steps):
        if fcells.size:
            c = fcells[rng.integers(fcells.size)]
            d = np.maximum(abs(xs[fcells] - xs[c]), abs(ys[fcells] - ys[c]))
            W = fcells[np.argsort(d, kind="stable")[:12]]
        else:
            W = np.zeros(0, dtype=np.int64)
        inW = np.zeros(n + 1, dtype=bool)
        inW[W] = True
        R = np.unique(nbr[W][nbr[W] >= 0])
        R = R[cells[R] >= 0]
        A = inW[nbr[R]] & (nbr[R] >= 0)  # (numbers, 8): which neighbours are in the window
        lay_pad = np.append(lay, False)
        need = cells[R] - (lay_pad[nbr[R]] & ~A & (nbr[R] >= 0)).sum(axis=1)
        idx = {int(w): k for k, w in enumerate(W)}
        M = np.zeros((len(R), len(W)), dtype=np.int64)
        for r in range(len(R)):
            for q in nbr[R[r]][A[r]]:
                M[r, idx[int(q)]] = 1
        k = len(W)
        configs = ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).astype(np.int64)
        ok = (configs @ M.T == need).all(axis=1)
        T = int(lay[W].sum() + lay[off].sum())
        j = configs.sum(axis=1)
        rest = T - j
        ok &= (rest >= 0) & (rest <= off.size)
        logw = np.full(len(configs), -np.inf)
        logw[ok] = [math.lgamma(off.size + 1) - math.lgamma(r + 1) - math.lgamma(off.size - r + 1) for r in rest[ok]]
        wts = np.exp(logw - logw.max())
        pick = rng.choice(len(configs), p=wts / wts.sum())
        lay[W] = configs[pick].astype(bool)
        lay[off] = False
        lay[rng.choice(off, size=int(rest[pick]), replace=False)] = True
    return lay


def kind_of(view, a, jcell, scell, first_guess, note):
    """The kind of a divergence (see the module's docstring)."""
    from sweeplab.solver.fifty import forced_pairs

    undecided = view.hidden & ~a.mines
    pairs = forced_pairs(view, a.mines, undecided)
    if any(jcell in p or scell in p for p in pairs) or note == "unavoidable":
        return "50/50"
    if a.layouts <= 3000:
        return "end game"
    if first_guess:
        return "first guess"
    cells = view.cells.reshape(-1)
    nbr = view.neighbours

    def off(c):
        ns = nbr[c][nbr[c] >= 0]
        return not (cells[ns] >= 0).any()
    if off(jcell) or off(scell):
        return "off frontier"
    return "frontier"


def divergences(case, seed, i, mines, moves):
    """Replay JSMinesweeper's moves of game i; at each of its guesses ask `strong`: every position
    where they differ, in order, as dicts (a position too complex to analyse is skipped, with
    kind "too complex")."""
    from sweeplab.board import Board
    from sweeplab.errors import TooComplexError
    from sweeplab.game import Game
    from sweeplab.lab.runner import game_seeds
    from sweeplab.solver.complete import analyse
    from sweeplab.solver.players import make_player

    w, h, m, rule, at = CASES[case]
    _, player_seed = game_seeds(seed, i)
    g = Game(Board.from_indices(w, h, mines))
    player = make_player("strong", player_seed)
    opened = []
    guesses = 0
    for k, (cell, prob) in enumerate(moves):
        if k and prob < 1:
            view = g.view()
            mv = player.moves(view)
            d = {"game": i, "move": k, "guess": guesses, "jsm": int(cell), "strong": mv[0].x + w * mv[0].y,
                 "opened": list(opened), "player_seed": int(player_seed)}
            if mv[0].certain:  # JSMinesweeper guessed where strong's deduction finds a safe cell
                yield {**d, "p_jsm": prob, "p_strong": 0.0, "layouts": 0, "note": "",
                       "kind": "early 50/50" if abs(prob - 0.5) < 1e-9 else "missed safe"}
            elif len(mv) == 1 and d["strong"] != cell:
                try:
                    a = analyse(view)
                except TooComplexError:
                    yield {**d, "kind": "too complex"}
                else:
                    p = a.probability.reshape(-1)
                    yield {**d, "p_jsm": float(p[cell]), "p_strong": float(p[d["strong"]]),
                           "layouts": float(a.layouts), "note": mv[0].note,
                           "kind": kind_of(view, a, cell, d["strong"], guesses == 0, mv[0].note)}
            guesses += 1
        if g.cell_state(cell % w, cell // w) != "open":
            g.open(cell % w, cell // w)
        opened.append(int(cell))
        if g.over:
            return


def divergence(case, seed, i, mines, moves):
    """The first position of game i where JSMinesweeper and `strong` choose differently, or None
    (None too when that position is too complex to analyse)."""
    d = next(divergences(case, seed, i, mines, moves), None)
    return None if d is None or d["kind"] == "too complex" else d


def every_divergence(job):
    """Every divergence along JSMinesweeper's path in one game, each judged by `strong` playing on
    from both cells on the real board (the same player seed for both, a fresh one per position).
    Summed over a game, JSMinesweeper's cell's wins less `strong`'s telescope: following
    JSMinesweeper through its first k guesses and then `strong`, from k = 0 (`strong`) to all of
    them (JSMinesweeper), each step changes the expected result by that position's difference."""
    case, seed, i, mines, moves = job
    w, h, m, rule, at = CASES[case]
    rows = []
    for d in divergences(case, seed, i, mines, moves):
        if d["kind"] != "too complex":
            ps = (d["player_seed"] + 1 + d["move"]) % 2**63
            d["j_cont"] = continue_strong(w, h, mines, d["opened"], d["jsm"], ps)
            d["s_cont"] = continue_strong(w, h, mines, d["opened"], d["strong"], ps)
        del d["opened"]
        rows.append(d)
    return rows


def decompose(case, seed, mines, J, workers):
    """`every_divergence` over all games (in `workers` processes), as a table by kind and by the
    number of the guess: where JSMinesweeper's lead over `strong` comes from."""
    from multiprocessing import Pool

    jobs = [(case, seed, i, mines[i], J[i]["moves"]) for i in range(len(mines))]
    t0 = time.time()
    with Pool(workers) as pool:
        rows = [d for got in pool.imap(every_divergence, jobs, chunksize=20) for d in got]
    judged = [d for d in rows if d["kind"] != "too complex"]
    print(f"  every guess where they differ, along JSMinesweeper's path: {len(rows)} in {len(mines)} games, "
          f"{len(rows) - len(judged)} too complex to judge ({time.time() - t0:.0f} s, {workers} processes)")
    print(f"  {'':14} {'n':>6} {'wins from JSM cell':>18} {'from strong cell':>16} {'net games':>9} {'95% CI':>13}")

    def line(label, sel):
        diff = np.array([d["j_cont"] - d["s_cont"] for d in sel], float)
        half = 1.96 * diff.std(ddof=1) * math.sqrt(len(diff)) if len(diff) > 1 else float("nan")
        print(f"  {label:14} {len(sel):6d} {sum(d['j_cont'] for d in sel):18d} {sum(d['s_cont'] for d in sel):16d} "
              f"{int(diff.sum()):+9d} {diff.sum() - half:+6.0f}..{diff.sum() + half:+.0f}")
    for k in ["early 50/50", "missed safe", "first guess", "off frontier", "frontier", "end game", "50/50"]:
        sel = [d for d in judged if d["kind"] == k]
        if sel:
            line(k, sel)
    for g in range(3):
        line(f"guess {g + 1}", [d for d in judged if d["guess"] == g])
    line("guess 4 on", [d for d in judged if d["guess"] >= 3])
    line("all", judged)
    return rows


def judge(case, rows, J, mines, per_kind, samples, steps, seed, kinds=None):
    """For up to `per_kind` divergences of each kind: `samples` layouts consistent with the position
    (`resample` from the real board), and on each `strong` playing on from JSMinesweeper's cell and
    from its own (the same player seed): the mean wins of each, per kind."""
    w, h, m, rule, at = CASES[case]
    rng = np.random.default_rng(seed)
    by_kind: dict[str, list] = {}
    for d in rows:
        if kinds is None or d["kind"] in kinds:
            by_kind.setdefault(d["kind"], []).append(d)
    out = {}
    for kind, sel in by_kind.items():
        sel = [sel[i] for i in sorted(rng.choice(len(sel), size=min(per_kind, len(sel)), replace=False))]
        res = []
        for d in sel:
            opened = [c for c, _ in J[d["game"]]["moves"][:d["move"]]]
            g = replayed(w, h, mines[d["game"]], opened)
            view = g.view()
            lay = g.board.flat_mines.copy()
            jw = sw = 0
            for k in range(samples):
                lay = resample(view, lay, rng, steps)
                ms = np.flatnonzero(lay)
                ps = (d["player_seed"] + k) % 2**63
                jw += continue_strong(w, h, ms, opened, d["jsm"], ps)
                sw += continue_strong(w, h, ms, opened, d["strong"], ps)
            res.append((jw / samples, sw / samples))
        out[kind] = res
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jsm", required=True, help="a checkout of DavidNHill/JSMinesweeper (its work tree)")
    ap.add_argument("--case", default="expert-safe-corner", choices=sorted(CASES))
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "sweeplab-jsm"))
    ap.add_argument("--out", default=None, help="JSON lines of every divergence, with both continuations")
    ap.add_argument("--judge", type=int, default=0, help="divergences of each kind judged by resampled layouts")
    ap.add_argument("--samples", type=int, default=30, help="layouts per judged divergence")
    ap.add_argument("--steps", type=int, default=20, help="resampling moves between two layouts")
    ap.add_argument("--kinds", default=None, help="judge only these kinds (comma-separated)")
    ap.add_argument("--every", action="store_true",
                    help="judge every guess where they differ along JSMinesweeper's path, not only the first: "
                         "the whole gap, by kind and by guess")
    ap.add_argument("--workers", type=int, default=1, help="processes for --every")
    ap.add_argument("--wins-only", action="store_true", help="print the paired wins and stop (no divergences)")
    args = ap.parse_args(argv)
    w, h, m, rule, at = CASES[args.case]
    tag = f"{args.case}-s{args.seed}"
    mines = boards(args.case, args.seed, args.games)
    J = play_jsm(args.jsm, args.case, mines, f"{args.cache}/jsm-{tag}.jsonl")
    S = play_strong(args.case, args.seed, args.games, f"{args.cache}/strong-{tag}.json")
    jw = [bool(r["won"]) for r in J]
    sw = S["won"][:args.games]
    n = args.games
    only_j = sum(a and not b for a, b in zip(jw, sw))
    only_s = sum(b and not a for a, b in zip(jw, sw))
    z = (only_s - only_j) / math.sqrt(only_j + only_s) if only_j + only_s else 0.0
    print(f"{args.case}, seed {args.seed}, {n} games, the same boards")
    print(f"  JSMinesweeper {sum(jw):6d} wins {sum(jw) / n:7.2%}   strong {sum(sw):6d} wins {sum(sw) / n:7.2%}")
    print(f"  only JSMinesweeper won {only_j}, only strong won {only_s}, McNemar z (strong - JSM) = {z:+.2f}")
    if args.wins_only:
        return
    t0 = time.process_time()
    rows = []
    rows_path = Path(f"{args.cache}/div-{tag}-{n}.jsonl")
    if rows_path.exists():
        rows = [json.loads(x) for x in rows_path.read_text().splitlines()]
    for i in range(n if not rows_path.exists() else 0):
        d = divergence(args.case, args.seed, i, mines[i], J[i]["moves"])
        if d is None:
            continue
        d["j_game"], d["s_game"] = jw[i], sw[i]
        d["j_cont"] = continue_strong(w, h, mines[i], d["opened"], d["jsm"], d["player_seed"])
        d["s_cont"] = continue_strong(w, h, mines[i], d["opened"], d["strong"], d["player_seed"])
        rows.append(d)
    if not rows_path.exists():
        rows_path.write_text("".join(json.dumps({k: v for k, v in d.items() if k != "opened"}) + "\n" for d in rows))
    if args.out:
        with open(args.out, "w") as f:
            for d in rows:
                f.write(json.dumps({k: v for k, v in d.items() if k != "opened"}) + "\n")
    print(f"  {len(rows)} games where strong would guess otherwise than JSMinesweeper somewhere "
          f"({time.process_time() - t0:.0f} CPU-s)")
    print(f"  {'kind':14} {'n':>5} {'JSM safer':>9} {'same p':>6} {'strong safer':>12} "
          f"{'strong on from JSM cell':>23} {'from strong cell':>16} {'diff':>6} {'95% CI':>15}")
    kinds = ["early 50/50", "missed safe", "first guess", "off frontier", "frontier", "end game", "50/50", "all"]
    for k in kinds:
        sel = [d for d in rows if k == "all" or d["kind"] == k]
        if not sel:
            continue
        jc = np.array([d["j_cont"] for d in sel], float)
        sc = np.array([d["s_cont"] for d in sel], float)
        diff = jc - sc
        se = diff.std(ddof=1) / math.sqrt(len(sel)) if len(sel) > 1 else float("nan")
        js = sum(d["p_jsm"] < d["p_strong"] - 1e-9 for d in sel)
        ss = sum(d["p_strong"] < d["p_jsm"] - 1e-9 for d in sel)
        print(f"  {k:14} {len(sel):5d} {js:9d} {len(sel) - js - ss:6d} {ss:12d} {jc.mean():23.3f} {sc.mean():16.3f} "
              f"{diff.mean():+6.3f} {diff.mean() - 1.96 * se:+.3f}..{diff.mean() + 1.96 * se:+.3f}")
    if args.judge:
        t0 = time.process_time()
        got = judge(args.case, rows, J, mines, args.judge, args.samples, args.steps, args.seed,
                    args.kinds.split(",") if args.kinds else None)
        print(f"  judged on {args.samples} layouts each, resampled from the real board "
              f"({time.process_time() - t0:.0f} CPU-s): strong playing on from each cell")
        print(f"  {'kind':14} {'n':>5} {'from JSM cell':>13} {'from strong cell':>16} {'diff':>7} {'95% CI':>15}"
              f" {'JSM better':>10} {'strong better':>13}")
        allr = []
        for k in kinds:
            res = got.get(k, []) if k != "all" else allr
            if not res:
                continue
            if k != "all":
                allr += res
            r = np.array(res)
            diff = r[:, 0] - r[:, 1]
            se = diff.std(ddof=1) / math.sqrt(len(r)) if len(r) > 1 else float("nan")
            print(f"  {k:14} {len(r):5d} {r[:, 0].mean():13.3f} {r[:, 1].mean():16.3f} {diff.mean():+7.3f} "
                  f"{diff.mean() - 1.96 * se:+.3f}..{diff.mean() + 1.96 * se:+.3f} {int((diff > 0).sum()):10d} "
                  f"{int((diff < 0).sum()):13d}")
    if args.every:
        decompose(args.case, args.seed, mines, J, args.workers)


if __name__ == "__main__":
    main()
