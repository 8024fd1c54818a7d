"""The 1997 paper's experiments on the automaton (`sweeplab.automaton`): density sweeps with
confidence intervals, steps against the side n, and the automaton beside a complete solver and
guessing players, game by game.

The automaton's own names that its command line uses are imported here too, so that
`sweeplab automaton` reaches the whole lab through this one module.
"""

from __future__ import annotations

import numpy as np

from ..automaton import CLOSED, MARKED, OPEN, Batch, Evolution, check_density, random_batch, run_batch  # noqa: F401 (CLOSED: the CLI's)
from ..board import Board
from ..errors import AutomatonError, SweeplabError
from ..game import WON, Game
from ..rng import seed_key, stream_key
from ..solver import analyse
from ..solver.players import make_player
from .autoplay import autoplay
from .intervals import mean_ci, quantile_ci, wilson


def summarise(evo: Evolution) -> dict:
    """The paper's measures over a batch: share solved (open or marked), the chance that at least
    half the board stays closed (the paper's failure), and the steps to the fixed point."""
    share = evo.solved_share
    games = share.size
    failed = int(np.count_nonzero(evo.closed_share >= 0.5))
    mean = mean_ci(share, 0.0, 1.0)
    quart = [quantile_ci(share, q) for q in (0.25, 0.5, 0.75)]
    steps = evo.steps.astype(np.float64)
    return {
        "games": games,
        "solved_mean": mean[0], "solved_mean_ci": [mean[1], mean[2]],
        "solved_q1": quart[0][0], "solved_median": quart[1][0], "solved_q3": quart[2][0],
        "solved_quartile_ci": [[q[1], q[2]] for q in quart],
        "all_solved": float(np.count_nonzero(share == 1.0) / games),
        # no starting cell is a 0, so neither clause can ever fire: the fixed point is the start
        "stuck_at_start": float(np.count_nonzero(evo.steps == 0) / games),
        # the failure of the spreading wave itself, once some starting cell was a 0
        "half_closed_given_started": (float(np.count_nonzero((evo.closed_share >= 0.5) & (evo.steps > 0))
                                            / np.count_nonzero(evo.steps > 0)) if (evo.steps > 0).any()
                                      else float("nan")),
        "half_closed": failed / games, "half_closed_ci": list(wilson(failed, games)),
        "steps_mean": mean_ci(steps)[0], "steps_mean_ci": list(mean_ci(steps)[1:]),
        "steps_median": float(np.median(steps)), "steps_max": int(steps.max()),
        "steps_started_mean": (mean_ci(steps[steps > 0])[0] if (steps > 0).any() else float("nan")),
        "steps_started_mean_ci": (list(mean_ci(steps[steps > 0])[1:]) if (steps > 0).sum() > 1
                                  else [float("nan")] * 2),
    }


def parse_densities(text: str) -> list[float]:
    """'0.02:0.30:0.01' (start:stop:step, stop included) or '0.05,0.1,0.15'."""
    try:
        if ":" in text:
            start, stop, step = (float(v) for v in text.split(":"))
            if step <= 0 or stop < start:
                raise ValueError
            count = int(round((stop - start) / step)) + 1
            values = [round(start + k * step, 10) for k in range(count)]
        else:
            values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise AutomatonError(f"densities {text!r}: write START:STOP:STEP (e.g. 0.02:0.30:0.01, STEP > 0, "
                             "STOP >= START) or a list like 0.05,0.1") from None
    if not values:
        raise AutomatonError("no densities given; write START:STOP:STEP or a comma-separated list")
    return [check_density(v) for v in values]


def sweep(size: int, densities, games: int, topologies=("bounded", "torus"), seed=0) -> list[dict]:
    """The paper's experiment: for every topology and density, `games` random boards run to their
    fixed point. Game i uses the same uniforms at every density and on both topologies."""
    rows = []
    for topology in topologies:
        for p in densities:
            batch = random_batch(size, p, seed, games, topology=topology)
            evo = run_batch(batch)
            rows.append({"size": size, "topology": topology, "density": p, **summarise(evo),
                         **soundness(batch, evo)})
    return rows


def soundness(batch: Batch, evo: Evolution) -> dict:
    """Mines the automaton opened and safe cells it marked over a batch: both must be 0."""
    return {"mines_opened": int(np.count_nonzero(batch.mines & (evo.status == OPEN))),
            "safe_marked": int(np.count_nonzero(~batch.mines & (evo.status == MARKED)))}


def scaling(sizes, density: float, games: int, topologies=("bounded", "torus"), seed=0) -> list[dict]:
    """Steps to the fixed point against the side n, at one density."""
    rows = []
    for topology in topologies:
        for n in sizes:
            evo = run_batch(random_batch(n, density, seed, games, topology=topology))
            summary = summarise(evo)
            rows.append({"size": n, "topology": topology, "density": density, **summary,
                         "steps_per_side": summary["steps_started_mean"] / n})
    return rows


# --- the automaton beside a complete solver, game by game -------------------------------------------

PLAYER_SALT = 0xA0DA_3A72_1997_0001  # player seeds: a stream apart from the boards'


def logic_fixed_point(board, starts) -> tuple[float, bool]:
    """From the same starting cells, complete deduction (open every safe cell, count every known
    mine) repeated until it stalls. The view carries the board's actual mine total. Returns
    (share of the board open or known to be a mine, won)."""
    game = Game(board)
    for x, y in starts:
        if not game.over:
            game.open(x, y)
    known = np.zeros((board.height, board.width), dtype=np.bool_)
    while not game.over:
        a = analyse(game.view())
        known = a.mines
        ys, xs = np.nonzero(a.safe & game.view().hidden)
        if xs.size == 0:
            break
        for x, y in zip(xs, ys):
            if not game.over:
                game.open(int(x), int(y))
    if game.status == WON:
        return 1.0, True
    if game.over:
        raise SweeplabError("complete deduction opened a mine: the deduction core is unsound on this board")
    view = game.view()
    return float(np.count_nonzero(view.opened | known) / board.size), False


def compare(size: int, density: float, games: int, topology: str = "bounded", seed=0,
            players=(), *, first: int = 0) -> dict:
    """Game by game on the same boards and starting cells: the automaton's share solved, complete
    deduction's share, and whether each named player (which may guess) wins from those cells.
    A player that raises on a game (its solver refusing a position) is counted as losing it, and
    the count is kept under "errors"."""
    batch = random_batch(size, density, seed, games, topology=topology, first=first)
    evo = run_batch(batch)
    logic = np.empty(games)
    wins = {name: np.zeros(games, dtype=np.bool_) for name in players}
    errors = {name: 0 for name in players}
    pkey = seed_key(seed) ^ PLAYER_SALT
    for g in range(games):
        board = Board(batch.layout(g), topology)
        starts = batch.start_cells(g)
        logic[g] = logic_fixed_point(board, starts)[0]
        for name in players:
            game = Game(board)
            for x, y in starts:
                if not game.over:
                    game.open(x, y)
            try:
                if not game.over:
                    autoplay(game, make_player(name, stream_key(pkey, first + g)))
            except SweeplabError:  # a player that gives up (e.g. a counting limit) loses that game
                errors[name] += 1
            wins[name][g] = game.status == WON
    return {"automaton": evo.solved_share, "logic": logic, "wins": wins, "errors": errors,
            "mines": batch.mines.sum(axis=1)}


def summarise_comparison(result: dict) -> dict:
    auto, logic = result["automaton"], result["logic"]
    games = auto.size
    out = {
        "compared_games": games,
        "automaton_mean_same_games": float(auto.mean()),
        "automaton_all_solved_same_games": float(np.count_nonzero(auto == 1.0) / games),
        "logic_mean": mean_ci(logic)[0], "logic_mean_ci": list(mean_ci(logic, 0.0, 1.0)[1:]),
        "logic_median": float(np.median(logic)),
        "logic_half_closed": float(np.count_nonzero(logic <= 0.5) / games),
        "logic_all_solved": float(np.count_nonzero(logic == 1.0) / games),
        "gain_mean": float((logic - auto).mean()),
        "logic_beats_automaton": float(np.count_nonzero(logic > auto) / games),
        "players": {},
    }
    for name, won in result["wins"].items():
        k = int(np.count_nonzero(won))
        out["players"][name] = {"wins": k, "games": games, "win_rate": k / games, "win_rate_ci": list(wilson(k, games)),
                                "errors": result.get("errors", {}).get(name, 0)}
    return out

__all__ = ["compare", "logic_fixed_point", "parse_densities", "scaling", "soundness", "summarise", "summarise_comparison",
           "sweep"]
