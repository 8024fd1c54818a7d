"""The learned player beside strong, safest and rules on the same boards, its unsound moves, its speed.

    python benchmarks/bench_learned.py --games 10000 --workers 2 --out bench-learned   # the docs' table

Cases are bench_winrate.py's openings (beginner and intermediate first click opening at (2,2),
expert at (3,3)); game i of every player is game i of `sweeplab bench --seed SEED` (the lab
runner's board and player seeds), so the win rates are `sweeplab bench --player NAME`'s and the
learned player and `strong` can be compared game by game. Every move of the learned player is
judged against the exact analysis of the position it was made in: a proven-safe cell (certain), a
guess where no cell was proven safe (needed), a guess while a proven-safe cell was left (unsound:
safe ignored), a proven mine (unsound: mine opened). Per-game outcomes go to --out, one JSON file
per task, keyed by a digest of the sources and the weights, so a stopped run resumes and the table
can be printed again without playing (--games up to what is there).

"g/cpu-s": games per CPU-second of one worker process, everything in the games counted but the
judge's own analysis (numba's compiling too, so quote a second run after an edit). A learned move
is one turn of the player: its network's cell, and when that cell is proven safe the position's
other proven-safe cells with it (solver/learned.py), so a turn is judged by its first cell.
Published figures are printed as published.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_winrate import CASES  # noqa: E402

LEVEL_CASES = ("beginner-opening", "intermediate-opening", "expert-opening")
PLAYERS = ("learned", "strong", "safest", "rules")
KINDS = ("certain", "needed", "ignored", "mine")  # how each learned move stood (see the docstring)
PUBLISHED = {  # case: [(who, figure, note)]
    "beginner-opening": [("PSEQ-D256", "97.17%", "Tu et al., b1f6c1c4/MineSweeperProb, first click opening at (2,2)")],
    "intermediate-opening": [
        ("PSEQ-D256", "89.08%", "Tu et al., b1f6c1c4/MineSweeperProb, first click opening at (2,2)"),
        ("yakvrz/minesweeper-ppo", "87.2% [85.7, 88.6]", "PPO, residual CNN; 2,048 games, 3x3-safe first click")],
    "expert-opening": [("JSMinesweeper", "54.3%", "bulk runs, first click opening at (3,3)")],
}


def play(player: str, case: str, seed: int, start: int, stop: int) -> dict:
    """Games start..stop-1 of a case: won bits, CPU seconds, and for the learned player how each
    move stood in the exact analysis and how the fatal move of each lost game stood."""
    from sweeplab.game import Game
    from sweeplab.generators import make_rule, rule_seed
    from sweeplab.lab.autoplay import autoplay
    from sweeplab.lab.runner import game_seeds
    from sweeplab.solver.players import make_player

    w, h, m, rule, at = CASES[case]
    out = {"won": [], "kinds": dict.fromkeys(KINDS, 0), "fatal": {}, "cpu": 0.0}
    cpu0 = time.process_time()
    for i in range(start, stop):
        board_seed, player_seed = game_seeds(seed, i)
        game = Game(rule=make_rule(rule, w, h, m, rule_seed(rule, board_seed)))
        p = make_player(player, player_seed)
        judged = Judged(p) if player == "learned" else p
        r = autoplay(game, judged, at)
        out["won"].append(bool(r.won))
        if judged is not p:
            out["cpu"] -= judged.cpu  # the judge's own analysis is not the player's time
            for k in KINDS:
                out["kinds"][k] += judged.kinds.count(k)
            if not r.won:
                out["fatal"][str(i)] = judged.kinds[-1]
    out["cpu"] = time.process_time() - cpu0
    return out


class Judged:
    """A player whose every move is judged against the exact analysis of its position."""

    def __init__(self, player):
        self.player, self.name, self.kinds, self.cpu = player, player.name, [], 0.0

    def moves(self, view):
        from sweeplab.solver.complete import analyse
        moves = self.player.moves(view)
        t0 = time.process_time()
        a = analyse(view)  # (a real game's positions stay far inside the exact count's budget)
        self.cpu += time.process_time() - t0
        mv = moves[0]
        if a.safe[mv.y, mv.x]:
            self.kinds.append("certain")
        elif a.mines[mv.y, mv.x]:
            self.kinds.append("mine")
        else:
            self.kinds.append("ignored" if (a.safe & view.hidden).any() else "needed")
        return moves


def digest(player: str) -> str:
    """What a player's games depend on: sweeplab's sources, and the weights for the learned player."""
    from sweeplab._numba_cache import source_key
    from sweeplab.solver.learned import WEIGHTS
    weights = hashlib.sha1(WEIGHTS.read_bytes()).hexdigest() if player == "learned" else ""
    return hashlib.sha1((source_key() + weights).encode()).hexdigest()[:12]


def results(player, case, seed, games, workers, out: Path, task) -> dict:
    """Per-game results of games 0..games-1, from --out where there, else played (and saved)."""
    from sweeplab.lab.runner import fan_out, split
    key = digest(player)
    done, todo = {}, []
    for a, b in split([(0, games)], task):
        f = out / f"{player}-{case}-s{seed}-{a}-{b}-{key}.json"
        if f.exists():
            done[a] = json.loads(f.read_text())
        else:
            todo.append((a, b))
    for (a, b), r in fan_out(functools.partial(play, player, case, seed), todo, workers=workers) if todo else ():
        (out / f"{player}-{case}-s{seed}-{a}-{b}-{key}.json").write_text(json.dumps(r))
        done[a] = r
    total = {"won": [], "kinds": dict.fromkeys(KINDS, 0), "fatal": {}, "cpu": 0.0}
    for a in sorted(done):
        r = done[a]
        total["won"] += r["won"]
        total["cpu"] += r["cpu"]
        total["fatal"].update(r["fatal"])
        for k in KINDS:
            total["kinds"][k] += r["kinds"][k]
    return total


def main(argv=None):
    from sweeplab.lab.intervals import wilson
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--task", type=int, default=500, help="games per task (and per saved file)")
    ap.add_argument("--cases", default=",".join(LEVEL_CASES))
    ap.add_argument("--players", default=",".join(PLAYERS))
    ap.add_argument("--out", default="bench-learned", help="folder of per-task results (resumable)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    players = args.players.split(",")
    runs = {}
    print(f"seed {args.seed}, {args.games} games a row, the lab runner's boards; 95% Wilson intervals")
    print(f"{'case':22} {'player':24} {'wins':>7} {'win rate':>9} {'95% Wilson':>17} {'g/cpu-s':>8}")
    for case in args.cases.split(","):
        for player in players:
            r = runs[case, player] = results(player, case, args.seed, args.games, args.workers, out, args.task)
            n, k = len(r["won"]), sum(r["won"])
            lo, hi = wilson(k, n)
            print(f"{case:22} {player:24} {k:7d} {k / n:9.2%} {lo:8.2%}-{hi:7.2%} {n / r['cpu']:8.1f}", flush=True)
        for who, figure, note in PUBLISHED.get(case, []):
            print(f"{case:22} {who:24} {'':7} {figure:>27}  (published: {note})")
    if "learned" in players and "strong" in players:
        mistakes(runs, args.cases.split(","))


def mistakes(runs: dict, cases) -> None:
    """Learned against strong game by game, and how the learned player's moves and fatal moves stood."""
    print("\nlearned against strong, game by game; the learned player's moves judged by the exact analysis")
    print(f"{'case':22} {'both won':>8} {'only L':>7} {'only S':>7} {'both lost':>9} {'McNemar z':>9} | "
          f"{'moves':>8} {'unsound':>8} {'mine':>6} {'ignored':>7} | {'L lost, S won: fatal move':<34}")
    for case in cases:
        lw, sw = runs[case, "learned"]["won"], runs[case, "strong"]["won"]
        both = sum(a and b for a, b in zip(lw, sw))
        only_l = sum(a and not b for a, b in zip(lw, sw))
        only_s = sum(b and not a for a, b in zip(lw, sw))
        lost = len(lw) - both - only_l - only_s
        z = (only_l - only_s) / math.sqrt(only_l + only_s) if only_l + only_s else 0.0
        k = runs[case, "learned"]["kinds"]
        moves = sum(k.values())
        bad = k["mine"] + k["ignored"]
        fatal = runs[case, "learned"]["fatal"]
        where = [fatal[str(i)] for i, (a, b) in enumerate(zip(lw, sw)) if b and not a]
        told = ", ".join(f"{t} {where.count(t)}" for t in ("needed", "ignored", "mine") if where.count(t))
        print(f"{case:22} {both:8d} {only_l:7d} {only_s:7d} {lost:9d} {z:9.2f} | {moves:8d} {bad / moves:8.3%} "
              f"{k['mine']:6d} {k['ignored']:7d} | {told}")


if __name__ == "__main__":
    main()
