"""research/bench_jsm.py: its layout resampler (every layout it returns is consistent with the
position, and one of its moves keeps the uniform distribution over those layouts, the property its
judging of JSMinesweeper's and strong's choices rests on, checked against the full enumeration),
and its finding of the guesses where a recorded path and `strong` differ."""


import numpy as np
from bench_jsm import resample

from sweeplab.board import Board
from sweeplab.game import Game
from sweeplab.solver.complete import analyse
from sweeplab.solver.layouts import enumerate_layouts


def _position(seed, w=6, h=4, m=5, clicks=2):
    """A position with numbers, frontier and off-frontier cells, and between 30 and 400 layouts."""
    rng = np.random.default_rng(seed)
    while True:
        mines = rng.choice(w * h, m, replace=False)
        g = Game(Board.from_indices(w, h, mines))
        for c in rng.permutation([c for c in range(w * h) if c not in mines])[:clicks]:
            if not g.over and g.cell_state(int(c) % w, int(c) // w) == "hidden":
                g.open(int(c) % w, int(c) // w)
        if g.over:
            continue
        v = g.view()
        a = analyse(v)
        off = (v.cells.reshape(-1) < 0) & ~np.append(v.cells.reshape(-1) >= 0, False)[v.neighbours].any(axis=1)
        if 30 <= a.layouts <= 400 and off.any() and not (a.safe.any() or a.mines.any()):
            return v


def _layouts(view):
    hidden = view.cells < 0
    L = enumerate_layouts(view, np.zeros_like(hidden), hidden, 10_000)
    full = np.zeros((len(L), hidden.size), dtype=bool)
    full[:, np.flatnonzero(hidden.reshape(-1))] = L
    return full


def test_resampled_layouts_are_consistent_and_uniform():
    for seed in (2, 3):
        view = _position(seed)
        L = _layouts(view)
        index = {row.tobytes(): k for k, row in enumerate(L)}
        rng = np.random.default_rng(seed)
        n = 40 * len(L)
        seen = np.zeros(len(L))
        for _ in range(n):
            start = L[rng.integers(len(L))]  # a uniform draw: one move must leave it uniform
            got = resample(view, start, rng, 1)
            key = got.tobytes()
            assert key in index, "a layout that breaks a number or the mine total"
            seen[index[key]] += 1
        # chi-square against uniform: a biased move (e.g. the off-frontier count ignored) fails
        expected = n / len(L)
        chi2 = ((seen - expected) ** 2 / expected).sum()
        dof = len(L) - 1
        assert chi2 < dof + 5 * np.sqrt(2 * dof), (chi2, dof)


def test_resampling_moves_away_from_the_start():
    view = _position(4)
    L = _layouts(view)
    rng = np.random.default_rng(4)
    lay = L[0]
    reached = {resample(view, lay, rng, 5).tobytes() for _ in range(200)}
    assert len(reached) > len(L) // 3


def _strong_path(case, seed, i, mines):
    """`strong`'s own clicks in game i, as bench_jsm reads JSMinesweeper's: (cell, 1) for a certain
    clear, (cell, its safety) for a guess; the first click first."""
    from bench_jsm import CASES

    from sweeplab.lab.runner import game_seeds
    from sweeplab.solver.complete import analyse
    from sweeplab.solver.players import make_player

    w, h, m, rule, at = CASES[case]
    g = Game(Board.from_indices(w, h, mines))
    player = make_player("strong", game_seeds(seed, i)[1])
    path = [(at[0] + w * at[1], 1.0)]
    g.open(*at)
    while not g.over:
        view = g.view()
        mv = player.moves(view)
        if mv[0].certain:
            for mo in mv:
                if g.cell_state(mo.x, mo.y) == "hidden":
                    path.append((mo.x + w * mo.y, 1.0))
                    g.open(mo.x, mo.y)
        else:
            c = mv[0].x + w * mv[0].y
            path.append((c, 1.0 - float(analyse(view).probability.reshape(-1)[c])))
            g.open(mv[0].x, mv[0].y)
    return path, g


def test_divergences_find_exactly_the_guesses_that_differ():
    """Along `strong`'s own path there is no divergence; with one of its guesses swapped for another
    safe cell, the first divergence is that guess, with both cells named."""
    from bench_jsm import boards, divergences

    case, seed = "expert-safe-corner", 2
    mines = boards(case, seed, 30)
    swapped = 0
    for i in range(30):
        path, g = _strong_path(case, seed, i, mines[i])
        assert list(divergences(case, seed, i, mines[i], path)) == []
        guesses = [k for k, (c, p) in enumerate(path) if k and p < 1]
        if g.status != "won" or not guesses:
            continue
        k = guesses[0]
        mine = np.zeros(480, dtype=bool)
        mine[mines[i]] = True
        opened_before = {c for c, _ in path[:k]}
        other = next(c for c in range(480) if not mine[c] and c != path[k][0] and c not in opened_before
                     and not any(abs(c % 30 - d % 30) <= 1 and abs(c // 30 - d // 30) <= 1 for d in opened_before))
        bent = path[:k] + [(other, 0.5)] + path[k + 1:]
        d = next(divergences(case, seed, i, mines[i], bent))
        assert (d["move"], d["jsm"], d["strong"]) == (k, other, path[k][0])
        swapped += 1
    assert swapped >= 3
