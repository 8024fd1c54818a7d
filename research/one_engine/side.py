"""One side of the engine comparison: run a task with whichever sweeplab this Python imports and
print one JSON line per item (what must be identical) plus one line of timing.

    python side.py analyse positions.npz START STOP [--fractions]
    python side.py certify boards.npz START STOP
    python side.py noguess MINES START STOP
    python side.py bench PLAYER START STOP [RULE [X,Y]]
    python side.py optimal BOARD
    python side.py time-analyse positions.npz START STOP ROUNDS

Run by compare.py, once with each side's interpreter; it never imports the other side.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

import numpy as np


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")


def digest(a) -> str:
    return hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def views(path: str, start: int, stop: int):
    from sweeplab import View
    data = dict(np.load(path))  # (each lookup of an npz file unpacks the whole array again)
    cells, mines = data["cells"], data["mines"]
    for i in range(start, min(stop, len(cells))):
        h, w = int(data["height"][i]), int(data["width"][i])
        yield i, View(cells[i, :h * w].reshape(h, w).astype(np.int8), int(mines[i]))


def analyse_task(path: str, start: int, stop: int, fractions: bool) -> None:
    from sweeplab import View
    from sweeplab.solver import analyse
    from sweeplab.view import FLAG, HIDDEN
    cpu = time.process_time()
    for i, v in views(path, start, stop):
        out = {"i": i}
        try:
            a = analyse(v)
        except Exception as e:  # the error is part of the result: same type, same words
            out["error"] = f"{type(e).__name__}: {e}"
            emit(out)
            continue
        unknown = v.cells < 0
        out["safe"] = np.flatnonzero(a.safe.reshape(-1)).tolist()
        out["mines"] = np.flatnonzero(a.mines.reshape(-1)).tolist()
        out["layouts"] = str(a.layouts)
        out["range"] = list(a.mine_range)
        out["p"] = [float(p).hex() for p in a.probability[unknown]]
        if fractions:
            # P(mine) as an exact fraction: the layouts with the cell a mine over all layouts, both
            # counted exactly by the engine (`Analysis.layouts`), one cell per distinct position
            # class: every frontier cell, and one cell off the frontier (they share their odds)
            base = v.cells.reshape(-1).copy()
            base[base == FLAG] = HIDDEN  # untrusted flags are hidden cells to the analysis
            und = np.flatnonzero((base == HIDDEN) & ~(a.safe | a.mines).reshape(-1))
            nbr = v.neighbours
            near_number = np.array([any(base[j] >= 0 for j in nbr[c] if j >= 0) for c in und], dtype=bool)
            pick = und[near_number].tolist() + und[~near_number][:1].tolist()
            num = {}
            for c in pick:
                t = base.copy()
                t[c] = FLAG
                num[c] = str(analyse(View(t.reshape(v.cells.shape), v.mine_count), trust_flags=True).layouts)
            out["fractions"] = num
        emit(out)
    emit({"cpu": time.process_time() - cpu})


def hidden_digest(C, p) -> str:
    """Which cells the position's last play left hidden (`C.hidden` of each cell, read from the
    play's states at once: a kernel call per cell would cost more than the play)."""
    from sweeplab.kernels import HIDDEN_STATE
    return digest(p.play[1][C.ST] == HIDDEN_STATE)


def certify_task(path: str, start: int, stop: int) -> None:
    from sweeplab import grid
    from sweeplab.generators import certify as C
    data = dict(np.load(path))  # (each lookup of an npz file unpacks the whole array again)
    cpu = time.process_time()
    for i in range(start, min(stop, len(data["mines"]))):
        w, h = int(data["width"][i]), int(data["height"][i])
        mines = data["mines"][i, :w * h].astype(np.bool_).copy()
        click = int(data["click"][i])
        nbr = grid.neighbour_table(w, h, "bounded")
        room = C.workspace(w, h)
        p = C.position(mines, nbr, click, C.DEFAULT_LEAF_BUDGET, room)
        verdicts = [int(C.start(p))]
        known = [hidden_digest(C, p)]
        rng = np.random.default_rng(int(data["seed"][i]))
        for _ in range(int(data["moves"][i])):
            src = int(rng.choice(np.flatnonzero(p.mines)))
            free = np.flatnonzero(~p.mines)
            free = free[free != click]
            dst = int(rng.choice(free))
            v = int(C.try_move(p, src, dst))
            total = bool(C.tried_uses_total(p))
            verdicts.append(v * 2 + total)
            if v == C.SOLVED or rng.random() < 0.3:  # keep some stuck boards too: the log goes on from them
                p = C.keep(p)
                known.append(hidden_digest(C, p))
            else:
                C.undo(p, src, dst)
        emit({"i": i, "verdicts": verdicts, "known": known})
    emit({"cpu": time.process_time() - cpu})


def noguess_task(mines: int, start: int, stop: int) -> None:
    from sweeplab.generators.noguess import generate
    from sweeplab.rng import stream_key
    generate(30, 16, mines, 15, 8, 0)  # compiled before the clock starts
    times = []
    for s in range(start, stop):
        t = time.process_time()
        r = generate(30, 16, mines, 15, 8, stream_key(1, s))
        times.append(time.process_time() - t)
        emit({"i": s, "board": digest(r.board.flat_mines), "method": r.method, "steps": r.steps,
              "certified": bool(r.certified)})
    emit({"cpu": sum(times), "times": times})


def bench_task(player: str, start: int, stop: int, rule: str = "opening", at: str = "") -> None:
    """Games start..stop-1 of `sweeplab bench` (seed 1) on expert with the first-click `rule`, the
    first click at `at` ("x,y"; empty: the player's own): each game's counts and a digest of every
    move it made (cell, certain or not, how a guess was chosen), so that equal games are the same
    moves, not only the same tallies."""
    from sweeplab.game import Game
    try:
        from sweeplab.generators import make_rule, rule_seed
    except ImportError:  # a checkout from before the first-click rules joined the generators' registry
        from sweeplab.firstclick import make_rule, rule_seed
    from sweeplab.lab import BenchSpec
    from sweeplab.lab.autoplay import autoplay
    from sweeplab.lab.runner import game_seeds, play_games
    from sweeplab.solver.players import make_player
    first = tuple(int(v) for v in at.split(",")) if at else None
    spec = BenchSpec(player, 30, 16, 99, rule, first, 1)
    play_games(spec, 0, 1)  # compiled before the clock starts
    cpu = 0.0
    for g in range(start, stop):
        c = play_games(spec, g, g + 1)
        cpu += c.cpu_seconds
        board_seed, player_seed = game_seeds(spec.seed, g)  # the same game again, its moves recorded
        game = Game(rule=make_rule(rule, 30, 16, 99, rule_seed(rule, board_seed)))
        r = autoplay(game, make_player(player, player_seed), first, record=True)
        moves = hashlib.sha1(repr([(m.move.x, m.move.y, m.move.certain, m.move.note, m.opened, m.exploded)
                                   for m in r.moves]).encode()).hexdigest()[:16]
        emit({"i": g, "outcome": list(c.outcome()), "moves": moves})
    emit({"cpu": cpu, "games": stop - start})


def optimal_task(board: str) -> None:
    import re

    try:
        from sweeplab.generators import kept_free
    except ImportError:  # (as in bench_task)
        from sweeplab.firstclick import kept_free
    from sweeplab.solver.optimal import OptimalPlay
    w, h, m, rule, x, y = re.fullmatch(r"(\d+)x(\d+)/(\d+)-(\w+)@(\d+),(\d+)", board).groups()
    w, h, m, x, y = int(w), int(h), int(m), int(x), int(y)
    cpu = time.process_time()
    o = OptimalPlay(w, h, m).first_click(x, y, kept_free(rule, w, h, m, x, y))
    emit({"i": board, "wins": o.wins, "layouts": o.layouts})
    emit({"cpu": time.process_time() - cpu})


def time_analyse_task(path: str, start: int, stop: int, rounds: int) -> None:
    from sweeplab.solver import analyse
    vs = [v for _, v in views(path, start, stop)]
    for v in vs[:20]:
        try:
            _ = analyse(v).layouts  # (compiled before the clock starts)
        except Exception:
            pass
    best = [float("inf")] * len(vs)
    for _ in range(rounds):
        for k, v in enumerate(vs):
            t = time.perf_counter()
            try:
                analyse(v)
            except Exception:
                pass
            best[k] = min(best[k], time.perf_counter() - t)
    emit({"times": best})


def main(argv: list[str]) -> None:
    task = argv[0]
    if task == "analyse":
        analyse_task(argv[1], int(argv[2]), int(argv[3]), "--fractions" in argv)
    elif task == "certify":
        certify_task(argv[1], int(argv[2]), int(argv[3]))
    elif task == "noguess":
        noguess_task(int(argv[1]), int(argv[2]), int(argv[3]))
    elif task == "bench":
        bench_task(argv[1], int(argv[2]), int(argv[3]), *argv[4:6])
    elif task == "optimal":
        optimal_task(argv[1])
    elif task == "time-analyse":
        time_analyse_task(argv[1], int(argv[2]), int(argv[3]), int(argv[4]))
    else:
        raise SystemExit(f"unknown task {task!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
