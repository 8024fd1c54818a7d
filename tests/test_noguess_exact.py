"""The no-guess chain checked exactly on small dense levels, where every certified board can be listed:
its move graph is connected, a move is kept exactly when the board it gives is on the list (even
where the certifier's leaf budget stops a play), the chain's exact transition matrix brings every
start to the uniform law within the rule's moves, and the generator's boards are uniform on the list."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import grid
from sweeplab._numba_cache import njit
from sweeplab.generators import noguess as G
from sweeplab.generators.certify import BUDGET, SOLVED, position, settle, start, try_move, undo, workspace
from sweeplab.generators.chain_length import chain_moves, corner_click, relaxation
from sweeplab.lab.uniformity import (
    certified_boards,
    chain_transition,
    exact_chi_square,
    farthest_from_uniform,
    moves_within,
)

# (width, height, mines, click): rejection keeps 2.2%, 4.7% and 0.07% of their layouts. (5x5 with 13
# mines from the corner holds as well, but listing its 203,490 layouts takes minutes: too long for the suite.)
LEVELS = [(5, 4, 9, (0, 0)), (6, 6, 22, (2, 2)), (6, 6, 28, (0, 0))]
_LISTS: dict = {}


def listed(level):
    """The level's certified boards: flat layouts, and their bit keys (cell i: bit i), sorted."""
    if level not in _LISTS:
        w, h, m, (x, y) = level
        boards = certified_boards(w, h, m, x, y)
        keys = boards.astype(np.int64) @ (np.int64(1) << np.arange(w * h, dtype=np.int64))
        order = np.argsort(keys)
        _LISTS[level] = boards[order], keys[order]
    return _LISTS[level]


def keys_of(layouts: np.ndarray) -> np.ndarray:
    return layouts.astype(np.int64) @ (np.int64(1) << np.arange(layouts.shape[1], dtype=np.int64))


@njit
def every_move(p, excluded, key):
    """Every move of the certified position `p` (its board's bit key `key`) made by the generator's
    `_move` and, where kept, made back the same way. Returns per move: the board it gives (bit key),
    whether it was kept, whether the move back was kept, and the verdict of the play from the old
    board's log before any settling (`try_move`'s own)."""
    mines = np.flatnonzero(p.mines)
    free = np.flatnonzero(~p.mines & ~excluded)
    k = mines.shape[0] * free.shape[0]
    target = np.empty(k, dtype=np.int64)
    kept = np.zeros(k, dtype=np.bool_)
    back = np.zeros(k, dtype=np.bool_)
    raw = np.empty(k, dtype=np.int64)
    j = 0
    for src in mines:
        for dst in free:
            target[j] = key ^ (np.int64(1) << src) ^ (np.int64(1) << dst)
            raw[j] = try_move(p, src, dst)
            undo(p, src, dst)
            kept[j], p = G._move(p, src, dst)
            if kept[j]:
                back[j], p = G._move(p, dst, src)
            j += 1
    return target, kept, back, raw


@njit
def every_pair(p, excluded, key):
    """Every move of two mines at once from the certified position `p` (bit key `key`), made by the
    generator's `_pair`. Returns per move: the board it gives (bit key), whether it was kept."""
    mines = np.flatnonzero(p.mines)
    free = np.flatnonzero(~p.mines & ~excluded)
    nm, nf = mines.shape[0], free.shape[0]
    k = nm * (nm - 1) // 2 * (nf * (nf - 1) // 2)
    target = np.empty(k, dtype=np.int64)
    kept = np.zeros(k, dtype=np.bool_)
    j = 0
    for i1 in range(nm):
        for i2 in range(i1 + 1, nm):
            for f1 in range(nf):
                for f2 in range(f1 + 1, nf):
                    a1, a2, b1, b2 = mines[i1], mines[i2], free[f1], free[f2]
                    target[j] = key ^ (np.int64(1) << a1) ^ (np.int64(1) << a2) ^ (np.int64(1) << b1) ^ (
                        np.int64(1) << b2)
                    kept[j], p = G._pair(p, a1, b1, a2, b2)
                    if kept[j]:  # back again, by the same move
                        _, p = G._pair(p, b1, a1, b2, a2)
                    j += 1
    return target, kept


@njit
def fresh_boards(p, excluded, key, state, tries):
    """`tries` fresh uniform boards proposed to the certified position `p` by the generator's
    `_fresh`, each undone again where kept. Returns per proposal the board (bit key) and whether it
    was kept."""
    n = p.mines.shape[0]
    target = np.empty(tries, dtype=np.int64)
    kept = np.zeros(tries, dtype=np.bool_)
    old = p.mines.copy()
    for t in range(tries):
        board, _ = G.lay_uniform(n, int(old.sum()), excluded, state)  # the board _fresh will propose
        target[t] = 0
        for i in range(n):
            if board[i]:
                target[t] |= np.int64(1) << i
        state, kept[t], p = G._fresh(p, excluded, state)
        if kept[t]:  # back to the old board (a position with its play)
            for i in range(n):
                if p.mines[i] != old[i]:
                    G.set_mine(p.mines, p.numbers, p.nbr, i, old[i])
            settle(p)
            p = G.keep(p)
    return target, kept


def positions(level, budget):
    """(position, bit key) for every listed board, played, with the certifier's leaf budget `budget`."""
    w, h, m, (x, y) = level
    boards, keys = listed(level)
    nbr, room = grid.neighbour_table(w, h), workspace(w, h)
    for flat, key in zip(boards, keys):
        p = position(flat.copy(), nbr, y * w + x, budget, room)
        status = start(p)
        if status == BUDGET:
            assert settle(p) == SOLVED
            p = G.keep(p)
        else:
            assert status == SOLVED
        yield p, key


def moves_of(level, budget):
    """every_move over every listed board, with the certifier's leaf budget `budget`, joined, and
    the board each move left."""
    w, h, m, (x, y) = level
    excluded = grid.block_mask(w, h, x, y)
    out = []
    for p, key in positions(level, budget):
        moves = every_move(p, excluded, key)
        out.append(moves + (np.full(moves[0].shape[0], key),))
    return [np.concatenate(parts) for parts in zip(*out)]


@pytest.mark.slow  # (every certified board of the level, played)
@pytest.mark.parametrize("level", LEVELS)
def test_the_move_graph_on_the_certified_boards_is_connected(level):
    """Single moves join the certified boards of the levels but one; on 5x4 with 9 mines from the
    corner two boards reach only each other by them, and the moves of two mines at once join them
    to the rest."""
    w, h, m, (x, y) = level
    boards, keys = listed(level)
    target, kept, _, _, source = moves_of(level, G.DEFAULT_LEAF_BUDGET)
    parent = {int(k): int(k) for k in keys}

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in zip(source[kept].tolist(), target[kept].tolist()):
        parent[root(a)] = root(b)
    sizes: dict = {}
    for k in keys.tolist():
        sizes[root(k)] = sizes.get(root(k), 0) + 1
    assert sorted(sizes.values()) == ([2, 245] if level == (5, 4, 9, (0, 0)) else [len(keys)])
    biggest = max(sizes, key=sizes.get)
    excluded = grid.block_mask(w, h, x, y)
    for p, key in positions(level, G.DEFAULT_LEAF_BUDGET):
        if root(int(key)) != biggest:
            pairs, kept_pairs = every_pair(p, excluded, key)
            for b in pairs[kept_pairs].tolist():
                parent[root(int(key))] = root(b)
    assert len({root(k) for k in keys.tolist()}) == 1


@pytest.mark.slow  # (every certified board of the level, played)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("budget", [G.DEFAULT_LEAF_BUDGET, 1])
def test_a_move_is_kept_exactly_when_the_board_it_gives_is_certified(level, budget):
    """The acceptance is the new board's alone, so every proposal is symmetric: kept iff the board it
    gives is on the list, and then the move back is kept too. With a leaf budget of one layout the
    certifier declines many positions (BUDGET) and whether a play meets one depends on its order;
    those moves are settled by a play with no budget, and still kept exactly when they should be.
    The moves of two mines and the fresh boards, sampled, likewise."""
    w, h, m, (x, y) = level
    _, keys = listed(level)
    target, kept, back, raw, _ = moves_of(level, budget)
    certified = np.isin(target, keys)
    assert (kept == certified).all()
    assert back[kept].all()
    assert certified.any() and not certified.all()
    if budget == 1:  # the budget declined positions, among them boards that certify: the settling was needed
        assert ((raw == BUDGET) & certified).any() and ((raw == BUDGET) & ~certified).any()
    else:
        assert not (raw == BUDGET).any()
    excluded = grid.block_mask(w, h, x, y)
    for i, (p, key) in enumerate(positions(level, budget)):
        if i % 50 == 0:
            pairs, kept_pairs = every_pair(p, excluded, key)
            assert (kept_pairs == np.isin(pairs, keys)).all()
            fresh, kept_fresh = fresh_boards(p, excluded, key, np.uint64(i + 1), 200)
            assert (kept_fresh == np.isin(fresh, keys)).all()


UNIFORM_LEVEL = (5, 4, 9, (0, 0))  # 247 certified boards of 11,440 layouts, two of them reached by no single move


def drawn(made, level) -> np.ndarray:
    """How often each listed board of `level` is among the boards `made` (every one must be listed)."""
    _, keys = listed(level)
    got = keys_of(np.array([r.board.flat_mines for r in made]))
    at = np.searchsorted(keys, got)
    assert (keys[np.minimum(at, keys.size - 1)] == got).all(), "a board off the list of certified boards"
    return np.bincount(at, minlength=keys.size)


def transition(level) -> np.ndarray:
    w, h, m, (x, y) = level
    return chain_transition(w, h, m, x, y, listed(level)[0])


NEAR = 1e-3  # a law this close to the uniform one in total variation: no chi-square of 1,235 boards tells them apart


@pytest.mark.slow  # (the list)
def test_the_rules_length_brings_the_chain_to_uniform_from_every_certified_board():
    """Exactly, on the level's transition matrix: it is symmetric (so the uniform law on the list is
    stationary), and after the rule's moves every start, the boards no single move reaches
    included, is within NEAR of it in total variation (the tolerance the rule's fit holds it to on
    the small levels), which a relaxation time's moves are far from."""
    w, h, m, (x, y) = UNIFORM_LEVEL
    p = transition(UNIFORM_LEVEL)
    assert np.allclose(p, p.T, rtol=0, atol=1e-15) and np.allclose(p.sum(axis=1), 1)
    free = w * h - int(grid.block_mask(w, h, x, y).sum())
    rule = chain_moves(free, m, corner_click(w, h, x, y))
    spectrum = np.linalg.eigh(p)
    assert farthest_from_uniform(spectrum, rule) <= NEAR
    assert farthest_from_uniform(spectrum, int(relaxation(free, m))) > 0.5  # (a relaxation is far from enough here)


@pytest.mark.slow
def test_the_generators_boards_are_uniform_on_the_certified_boards():
    """1,235 boards (five a listed board: the chi-square's approximation holds), each from its own
    chain, against the exact uniform law on the list: the chi-square's z-score stays where an exact
    sampler's does. The chains are as long as the exact transition matrix says brings every start
    within NEAR of uniform (a few thousand moves; the rule's are checked on the matrix above), so
    the test sees the generator's moves follow that matrix."""
    w, h, m, (x, y) = UNIFORM_LEVEL
    steps = moves_within(np.linalg.eigh(transition(UNIFORM_LEVEL)), NEAR)
    made = (G.generate(w, h, m, x, y, i, method="chain", steps=steps) for i in range(1235))
    assert exact_chi_square(drawn(made, UNIFORM_LEVEL))[2] < 3.5


@pytest.mark.slow  # (thousands of boards, and the list)
def test_a_batchs_boards_are_uniform_and_a_start_without_enough_chain_is_not():
    """A batch (one warm chain, a board every `batch_spacing` moves) matches the exact uniform law;
    the insertion's boards alone, and chains of half a relaxation time, fail the same test."""
    w, h, m, (x, y) = UNIFORM_LEVEL
    assert exact_chi_square(drawn(G.boards(w, h, m, x, y, 3, 4940, method="chain"), UNIFORM_LEVEL))[2] < 3.5
    free = w * h - int(grid.block_mask(w, h, x, y).sum())
    for steps in (0, int(relaxation(free, m) / 2)):
        made = (G.generate(w, h, m, x, y, i, method="chain", steps=steps) for i in range(2470))
        assert exact_chi_square(drawn(made, UNIFORM_LEVEL))[2] > 8, steps


@given(st.floats(0.01, 0.99), st.floats(1e-6, 0.4))
def test_the_distance_after_moves_is_the_two_state_chains_closed_form(a, distance):
    """Two states swapped with probability a: from either, the distance to uniform after t moves is
    |1 - 2a| ** t / 2, so the fewest moves within `distance` are the least t where that holds."""
    spectrum = np.linalg.eigh(np.array([[1 - a, a], [a, 1 - a]]))
    for t in (1, 2, 7):
        assert farthest_from_uniform(spectrum, t) == pytest.approx(abs(1 - 2 * a) ** t / 2, abs=1e-12)
    t = moves_within(spectrum, distance)
    assert abs(1 - 2 * a) ** t / 2 <= distance * (1 + 1e-9)
    assert t == 1 or abs(1 - 2 * a) ** (t - 1) / 2 > distance * (1 - 1e-9)
