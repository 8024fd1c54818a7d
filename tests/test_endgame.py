"""The compiled end game (solver/endgame.py) against a plain-Python search of the same game written
here (Python-int bitsets, recursion, exact integer counts), against the exact optimum of perfect play
(solver/optimal.py), on positions of small boards and of real expert games."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sweeplab import Game, View, make_rule
from sweeplab.solver import analyse
from sweeplab.solver.endgame import endgame_search
from sweeplab.solver.layouts import enumerate_layouts
from sweeplab.solver.optimal import OptimalPlay
from sweeplab.solver.players import endgame_move, make_player
from sweeplab.view import FLAG

from .test_players import small_views


# --- the oracle: the same search, plainly, over Python-int bitsets ---------------------------------
def plain_sights(view, mines, undecided, L):
    """Per undecided cell, {what its reveal shows: bitmask of the layouts showing it}; a mine is None,
    a 0 shows every (cell, number) its cascade opens."""
    var = np.flatnonzero(undecided.reshape(-1)).tolist()
    nbr = view.neighbours
    known = mines.reshape(-1) | (view.cells.reshape(-1) == FLAG)
    near = [[var.index(int(j)) for j in nbr[c] if j >= 0 and int(j) in var] for c in var]
    base = [sum(bool(known[j]) for j in nbr[c] if j >= 0) for c in var]
    out = [{} for _ in var]
    for r, row in enumerate(L):
        value = [-1 if row[k] else base[k] + sum(bool(row[i]) for i in near[k]) for k in range(len(var))]
        for k in range(len(var)):
            if value[k] != 0:
                key = None if value[k] < 0 else value[k]
            else:
                seen, todo = {k}, [k]
                while todo:
                    j = todo.pop()
                    if value[j] == 0:
                        for i in near[j]:
                            if i not in seen:
                                seen.add(i)
                                todo.append(i)
                key = tuple(sorted((j, value[j]) for j in seen))
            out[k][key] = out[k].get(key, 0) | (1 << r)
    return out


def plain_wins(sights, count):
    """(W of all layouts, {cell: W after revealing it first}): the layouts perfect play wins."""
    mine = [o.get(None, 0) for o in sights]
    shows = [[b for key, b in o.items() if key is not None] for o in sights]
    memo = {}

    def after(s, k):
        return sum(win(s & b) for b in shows[k] if s & b)

    def win(s):
        if s not in memo:
            values = []
            for k in range(len(sights)):
                safe = s & ~mine[k]
                parts = [b for b in shows[k] if s & b]
                if safe == s and len(parts) > 1:  # a free reveal that tells something: never worse
                    values = [after(s, k)]
                    break
                if safe and safe != s:
                    values.append(after(s, k))
            memo[s] = max(values) if values else s.bit_count()
        return memo[s]

    root = (1 << count) - 1
    return win(root), {k: after(root, k) for k in range(len(sights)) if root & ~mine[k] and root & mine[k]}


def plain_visits(sights, count):
    """(W, the cell revealed first, new states) of the compiled search's own walk, written plainly:
    a free reveal alone when there is one, else the guesses safest first then by cell, a guess's
    parts in the order of their first layouts, a guess dropped once even winning its other parts
    cannot beat the best found, the remaining guesses skipped once none is safe often enough. A new
    state is one of more than one layout not settled before: the count the budget limits, so equal
    counts mean the same positions fit the budget."""
    mine = [o.get(None, 0) for o in sights]
    shows = [[b for key, b in o.items() if key is not None] for o in sights]
    memo, spent = {}, [0]

    def parts(s, k):
        return sorted((s & b for b in shows[k] if s & b), key=lambda p: p & -p)

    def win(s, root=False):
        size = s.bit_count()
        if size == 1 and not root:
            return 1, -1
        if s in memo:
            return memo[s], -1
        spent[0] += 1
        free = [k for k in range(len(sights)) if s & ~mine[k] == s and len(parts(s, k)) > 1]
        if free:
            value, cell = sum(win(p)[0] for p in parts(s, free[0])), free[0]
        else:
            guesses = sorted((k for k in range(len(sights)) if 0 < (s & ~mine[k]).bit_count() < size),
                             key=lambda k: (-(s & ~mine[k]).bit_count(), k))
            value, cell = -1, -1
            for k in guesses:
                left = (s & ~mine[k]).bit_count()
                if left <= value:
                    break
                got = 0
                for p in parts(s, k):
                    left -= p.bit_count()
                    got += win(p)[0]
                    if got + left <= value:
                        break
                else:
                    if got > value:
                        value, cell = got, k
            if cell < 0:
                value = size
        if not root:
            memo[s] = value
        return value, cell

    value, cell = win((1 << count) - 1, root=True)
    return value, cell, spent[0]


@st.composite
def positions(draw):
    """A position of a small board where a guess is due: (view, analysis, undecided)."""
    view = draw(small_views())
    a = analyse(view)
    assume(1 < a.layouts <= 300 and not a.safe.any())
    return view, a, view.hidden & ~a.mines


@pytest.mark.slow
@settings(max_examples=80, suppress_health_check=list(HealthCheck), deadline=None)
@given(positions())
def test_compiled_end_game_counts_what_the_plain_search_counts(pos):
    view, a, undecided = pos
    L = enumerate_layouts(view, a.mines, undecided, a.layouts)
    wins, per_cell = plain_wins(plain_sights(view, a.mines, undecided, L), len(L))
    var = np.flatnonzero(undecided.reshape(-1))
    e = endgame_search(view, a.mines, undecided, a.layouts, 10**7, every=True)
    assert (e.wins, e.layouts) == (wins, a.layouts)
    assert e.cell_wins == {int(var[k]): w for k, w in per_cell.items()}
    assert e.cell_wins[e.cell] == wins  # the move it names wins as much as the best
    cut = endgame_search(view, a.mines, undecided, a.layouts, 10**7)  # with cut-offs at the root too
    assert cut.wins == wins and per_cell[int(np.flatnonzero(var == cut.cell)[0])] == wins


@pytest.mark.slow
@settings(max_examples=80, suppress_health_check=list(HealthCheck), deadline=None)
@given(positions())
def test_compiled_end_game_walks_the_plain_walk(pos):
    """The same wins, the same first cell and the same count of new states as the walk written
    plainly: a shortcut of the search (a guess whose parts are all settled counted without entering
    them) changes neither which cell it names nor which positions fit its budget."""
    view, a, undecided = pos
    L = enumerate_layouts(view, a.mines, undecided, a.layouts)
    wins, cell, states = plain_visits(plain_sights(view, a.mines, undecided, L), len(L))
    e = endgame_search(view, a.mines, undecided, a.layouts, 10**7)
    var = np.flatnonzero(undecided.reshape(-1))
    assert (e.wins, e.cell, e.states) == (wins, int(var[cell]) if cell >= 0 else -1, states)


@pytest.mark.slow
@settings(max_examples=30, suppress_health_check=list(HealthCheck), deadline=None)
@given(positions())
def test_compiled_end_game_is_perfect_play(pos):
    view, a, undecided = pos
    best = OptimalPlay(view.width, view.height, view.mine_count).moves(view)
    e = endgame_search(view, a.mines, undecided, a.layouts, 10**7, every=True)
    assert Fraction(e.wins, e.layouts) == max(best.values())
    for c, w in e.cell_wins.items():
        assert Fraction(w, e.layouts) == best[c % view.width, c // view.width]


def expert_guesses(seed, lo, hi):
    """Positions of real expert games (played by `safest`) where a guess is due with lo < layouts <=
    hi: (view, analysis, undecided)."""
    for i in range(200):
        game = Game(rule=make_rule("opening", 30, 16, 99, seed + i))
        game.open(3, 3)
        player = make_player("safest", i)
        while not game.over:
            view = game.view()
            a = analyse(view)
            if not a.safe.any() and lo < a.layouts <= hi:
                yield view, a, view.hidden & ~a.mines
            for mv in player.moves(view):
                if not game.over:
                    game.open(mv.x, mv.y)


@pytest.mark.slow
def test_end_game_on_expert_positions_matches_the_plain_search():
    """Positions of real expert games with up to 120 layouts: cascades through long chains of
    undecided cells, flags, many cells."""
    checked = 0
    for view, a, undecided in expert_guesses(7000, 1, 120):
        L = enumerate_layouts(view, a.mines, undecided, a.layouts)
        wins, _ = plain_wins(plain_sights(view, a.mines, undecided, L), len(L))
        assert endgame_search(view, a.mines, undecided, a.layouts, 10**7).wins == wins
        checked += 1
        if checked == 12:
            break
    assert checked == 12


def test_end_game_gives_up_over_budget():
    view = View.from_text("mines: 4\n1###\n####\n####\n")
    a = analyse(view)
    undecided = view.hidden & ~a.mines
    assert endgame_move(view, a.mines, undecided, a.layouts, budget=3) is None
    full = endgame_search(view, a.mines, undecided, a.layouts, 10**6)
    assert full.states > 3
    assert endgame_search(view, a.mines, undecided, a.layouts, full.states).wins == full.wins
    assert endgame_search(view, a.mines, undecided, a.layouts, full.states - 1) is None
    assert endgame_search(view, a.mines, undecided, a.layouts - 1, 10**6) is None  # more layouts than allowed


@pytest.mark.slow
def test_strong_plays_the_end_game_perfectly_past_main_s_old_limit():
    """`strong` guesses by the end game in positions of a few hundred layouts (main searched at most
    200), and its guess wins as much as perfect play's."""
    from sweeplab.solver.players import ENDGAME, FIFTY, StrongPlayer
    checked = 0
    for view, a, undecided in expert_guesses(9100, 200, StrongPlayer.endgame_layouts):
        e = endgame_search(view, a.mines, undecided, a.layouts, 10**7, every=True)
        (move,) = StrongPlayer(checked).moves(view)
        if e.states <= StrongPlayer.endgame_budget:  # an unavoidable guess goes first, and is as good
            assert move.note in (ENDGAME, FIFTY)
            assert e.cell_wins[move.y * view.width + move.x] == e.wins
            checked += move.note == ENDGAME
        if checked == 3:
            break
    assert checked == 3


def test_end_game_declines_a_position_too_wide_to_list():
    """A 1 in the corner of a 20x20 board with 2 mines: 1,188 layouts over 399 cells, where a 0's
    cascade crosses the board in almost every layout. The search declines it at once (it took 16 s
    to list what every reveal shows) rather than hang; a narrower board of the same kind is searched."""
    from sweeplab.solver.endgame import MAX_SIGHT_WORK
    for w, searched in ((20, False), (6, True)):
        view = View.from_text("mines: 2\n" + "\n".join(["1" + "#" * (w - 1)] + ["#" * w] * (w - 1)) + "\n")
        a = analyse(view)
        undecided = view.hidden & ~a.mines
        assert (np.count_nonzero(undecided) ** 2 * a.layouts <= MAX_SIGHT_WORK) == searched
        assert (endgame_search(view, a.mines, undecided, a.layouts, 10**6) is not None) == searched
