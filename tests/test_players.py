"""Players: soundness (a certain move never hits a mine), seeing only a View, forced 50/50s, the
exhaustive end game against a plain recursion, and layout enumeration against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from sweeplab import Game, View, make_rule
from sweeplab.errors import SweeplabError
from sweeplab.lab.autoplay import autoplay
from sweeplab.solver.players import PLAYERS, Move, Player, StrongPlayer, endgame_move, enumerate_layouts, make_player
from sweeplab.view import HIDDEN

PLAYED = ("rules", "safest", "strong")


def test_registry_by_name():
    assert set(PLAYED) <= set(PLAYERS)
    assert make_player("strong", 3).name == "strong"
    with pytest.raises(SweeplabError, match="unknown player 'perfect'; allowed"):
        make_player("perfect", 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", PLAYED)
def test_certain_moves_never_hit_a_mine(name):
    """Soundness on real games: every move a player called certain is safe on the board."""
    certain = guesses = wins = 0
    levels = [(9, 9, 10, "opening", (3, 3))] * 60 + [(16, 16, 40, "safe", (0, 0))] * 15 + \
             [(30, 16, 99, "opening", (3, 3))] * 8
    for i, (w, h, m, rule, at) in enumerate(levels):
        game = Game(rule=make_rule(rule, w, h, m, 1000 + i))
        r = autoplay(game, make_player(name, i), at, record=True)
        mines = game.board.mines
        for p in r.moves:
            if p.move.certain:
                certain += 1
                assert not mines[p.move.y, p.move.x], f"{name} called a mine safe in game {i}"
            else:
                guesses += 1
        assert r.unsound == 0
        assert r.won == (game.status == "won")
        assert r.certain + r.guesses == len(r.moves)
        wins += r.won
    assert certain > 500 and guesses > 0 and wins > 0


def test_player_sees_only_the_view():
    """A player's move depends on nothing but the view: the same view rebuilt from its text (no
    game anywhere) gives the same moves, and a player holds no game or board."""
    game = Game(rule=make_rule("opening", 30, 16, 99, 7))
    game.open(3, 3)
    for _ in range(6):
        view = game.view()
        for name in PLAYED:
            a, b = make_player(name, 5), make_player(name, 5)
            assert a.moves(view) == b.moves(View.from_text(view.to_text()))
            assert set(vars(a)) == {"rng"}  # its seed: a player keeps no state from move to move
        move = make_player("strong", 5).moves(view)[0]
        if not game.board.mines[move.y, move.x]:
            game.open(move.x, move.y)
        if game.over:
            break


def test_autoplay_refuses_a_player_that_does_nothing():
    class Idle(Player):
        name = "idle"

        def moves(self, view):
            return []

    class Stubborn(Player):
        name = "stubborn"

        def moves(self, view):
            return [Move("open", 3, 3, False)]  # already open after the first click

    with pytest.raises(SweeplabError, match="no move"):
        autoplay(Game(rule=make_rule("opening", 9, 9, 10, 1)), Idle(0), (3, 3))
    with pytest.raises(SweeplabError, match="changed nothing"):
        autoplay(Game(rule=make_rule("opening", 9, 9, 10, 1)), Stubborn(0), (3, 3))


def _strong_undecided(view):
    from sweeplab.solver import analyse
    a = analyse(view)
    return a, view.hidden & ~a.mines & ~a.safe


def test_forced_fifty_is_guessed_at_once_and_only_when_forced():
    forced = View.from_text("mines: 2\n11##\n####\n")  # (0,0)=1 sees only (0,1),(1,1): one mine
    a, und = _strong_undecided(forced)
    move = StrongPlayer(0)._forced_fifty(forced, a.mines, und, a.probability)
    # (1,0)=1 also sees (2,0),(2,1): those could later tell (0,1) from (1,1), so not forced
    assert move is None
    forced = View.from_text("mines: 1\n11\n##\n")
    a, und = _strong_undecided(forced)
    moves = {StrongPlayer(s)._forced_fifty(forced, a.mines, und, a.probability) for s in range(20)}
    assert moves == {Move("open", 0, 1, False), Move("open", 1, 1, False)}


def _brute_layouts(view):
    """Every mine set on the hidden cells consistent with the numbers and the total, by brute force."""
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    hidden = np.flatnonzero(cells == HIDDEN)
    out = []
    for mines in itertools.combinations(hidden.tolist(), view.mine_count):
        mine = np.zeros(cells.size, dtype=bool)
        mine[list(mines)] = True
        ok = all(int(mine[nbr[i][nbr[i] >= 0]].sum()) == cells[i] for i in np.flatnonzero(cells >= 0))
        if ok:
            out.append(frozenset(mines))
    return out


def _guess_position(view):
    """(analysis, brute-force layouts, flat cells, neighbours, flat known mines) of a small view on
    which a guess is due (hypothesis skips the others)."""
    from sweeplab.solver import analyse
    a = analyse(view)
    assume(not a.safe.any())
    return a, _brute_layouts(view), view.cells.reshape(-1), view.neighbours, a.mines.reshape(-1)


def _groups(layouts, c, nbr):
    """The layouts where c is safe, grouped by the number c shows."""
    ns = nbr[c][nbr[c] >= 0]
    parts = {}
    for lay in layouts:
        if c not in lay:
            parts.setdefault(sum(1 for j in ns if j in lay), []).append(lay)
    return parts


def _brute_progress(layouts, c, hidden, nbr, blend=0.0):
    """One-move score of c over `layouts` (all equally likely), from the layouts alone: each number
    weighted by its share, times the best next safety (1 for a certain cell) blended with the second."""
    others = [j for j in hidden if j != c]
    score = 0.0
    for group in _groups(layouts, c, nbr).values():
        share = len(group) / len(layouts)
        risk = sorted(sum(j in lay for lay in group) / len(group) for j in others)
        if not others:
            score += share
        else:
            second = risk[1] if len(risk) > 1 else risk[0]
            score += share * (1 - (1 - blend) * risk[0] - blend * second)
    return score


@st.composite
def small_views(draw):
    w, h = draw(st.integers(2, 5)), draw(st.integers(2, 4))
    m = draw(st.integers(1, max(1, w * h // 3)))
    board = make_rule("safe", w, h, m, draw(st.integers(0, 10**6))).board_for(0, 0)[0]
    game = Game(board)
    game.open(0, 0)
    for x, y in draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1)), max_size=4)):
        if not board.mines[y, x] and not game.over:
            game.open(x, y)
    assume(not game.over)  # a won game shows flags; players only ever see games in play
    return game.view()


@pytest.mark.slow
@settings(max_examples=60)
@given(small_views())
def test_enumerated_layouts_match_brute_force(view):
    from sweeplab.solver import analyse
    a = analyse(view)
    undecided = view.hidden & ~a.mines
    L = enumerate_layouts(view, a.mines, undecided, 10**6)
    var = np.flatnonzero(undecided.reshape(-1))
    known = set(np.flatnonzero(a.mines.reshape(-1)).tolist())
    got = {frozenset(var[row].tolist()) | known for row in L}
    brute = _brute_layouts(view)
    assert len(L) == len(got) == len(brute) == a.layouts
    assert got == set(brute)


def _shows(lay, c, cells, nbr):
    """What revealing c shows in the layout `lay` (a set of mine cells), on a board where every
    hidden cell is in `cells`: None for a mine, else its number, and for a 0 every (cell, number)
    its cascade opens."""
    def number(j):
        return sum(1 for i in nbr[j] if i >= 0 and i in lay)
    if c in lay:
        return None
    if number(c):
        return number(c)
    opened, todo = set(), [c]
    while todo:
        j = todo.pop()
        if j in opened:
            continue
        opened.add(j)
        if number(j) == 0:
            todo.extend(i for i in nbr[j] if i >= 0 and i in cells)
    return tuple(sorted((j, number(j)) for j in opened))


def _plain_win(layouts, cells, nbr):
    """Best chance to win by revealing cells one by one, plain recursion over lists of layouts: a
    cell safe in every layout left is opened for free when its reveal splits them."""
    def split(group, c):
        parts = {}
        for lay in group:
            parts.setdefault(_shows(lay, c, cells, nbr), []).append(lay)
        return parts

    def win(group):
        best = None
        for c in cells:
            parts = split(group, c)
            if len(parts) == 1:
                continue
            got = sum(len(g) * win(g) for v, g in parts.items() if v is not None) / len(group)
            if None not in parts:  # free: take it (it can only help)
                return got
            best = got if best is None or got > best else best
        return 1.0 if best is None else best
    return win, split


@pytest.mark.slow
@settings(max_examples=40, suppress_health_check=list(HealthCheck))
@given(small_views())
def test_endgame_choice_is_optimal_by_plain_recursion(view):
    from sweeplab.solver import analyse
    a = analyse(view)
    undecided = view.hidden & ~a.mines
    assume(1 < a.layouts <= 40)
    move = endgame_move(view, a.mines, undecided, a.layouts, budget=10**6)
    layouts = _brute_layouts(view)
    nbr = view.neighbours
    cells = np.flatnonzero(undecided.reshape(-1)).tolist()
    win, split = _plain_win(layouts, set(cells), nbr)
    chosen = move.y * view.width + move.x

    def after(c):  # chance to win when c is revealed first
        return sum(len(g) * win(g) for v, g in split(layouts, c).items() if v is not None) / len(layouts)

    best = max(after(c) for c in cells)
    assert after(chosen) == pytest.approx(best, abs=1e-12)
    assert not move.certain


def _stuck_views(count, seed, rule="opening", at=(3, 3), per_game=None):
    """Positions from real expert games where complete deduction finds nothing (a guess is due),
    at most `per_game` from one game."""
    from sweeplab.solver import analyse
    out = []
    i = 0
    while len(out) < count:
        game = Game(rule=make_rule(rule, 30, 16, 99, seed + i))
        i += 1
        game.open(*at)
        player, taken = make_player("safest", i), 0
        while not game.over and len(out) < count and taken != per_game:
            view = game.view()
            a = analyse(view)
            if not a.safe.any():
                out.append((view, a))
                taken += 1
            for mv in player.moves(view):
                if game.over:
                    break
                game.open(mv.x, mv.y)
    return out


def test_strong_guesses_a_near_safest_undecided_cell():
    for view, a in _stuck_views(12, 500):
        player = StrongPlayer(1)
        player.endgame_layouts, player.fifty_first = 0, False
        (move,) = player.moves(view)
        assert not move.certain
        assert view.hidden[move.y, move.x] and not a.mines[move.y, move.x]
        p = np.where(view.hidden & ~a.mines, a.probability, np.inf)
        assert 1 - p[move.y, move.x] >= (1 - p.min()) * (1 - player.wide_near) - 1e-12


def test_local_guess_when_the_exact_analysis_declines():
    from sweeplab.solver.players import BEYOND_EXACT, SafestPlayer
    view = View.from_text("mines: 1\n1##\n###\n")
    # frontier cells risk 1/3 (the 1 among three), off-frontier 1/5 (one mine in five unknown cells)
    picks = {SafestPlayer(s)._local_guess(view, np.zeros((2, 3), bool)) for s in range(12)}
    assert picks == {Move("open", 2, 0, False, BEYOND_EXACT), Move("open", 2, 1, False, BEYOND_EXACT)}


def test_rules_are_repeated_with_the_mines_they_found():
    from sweeplab.solver import analyse, deduce_rules
    from sweeplab.solver.players import rules_until_safe
    # found in a real 6x5 game: one level of the rules finds mines but no safe cell
    view = View.from_text("mines: 7\n1##100\n122100\n000011\n22223#\n##2###\n")
    once_safe, once_mines = deduce_rules(view)
    assert not once_safe.any() and once_mines.any()
    safe, mines = rules_until_safe(view)
    a = analyse(view)
    assert safe.any()
    assert not (safe & ~a.safe).any() and not (mines & ~a.mines).any()  # sound: complete agrees
    assert make_player("rules", 0).moves(view)[0].certain


@pytest.mark.parametrize("name", ["safest", "strong"])
def test_a_declined_position_is_played_by_the_local_estimate(name, monkeypatch):
    import sweeplab.solver.players as players
    from sweeplab.errors import TooComplexError
    from sweeplab.solver.players import BEYOND_EXACT

    def declined(view, **kw):
        raise TooComplexError("too complex (test)")

    monkeypatch.setattr(players, "analyse", declined)
    view = View.from_text("mines: 1\n1##\n###\n")  # the rules decide nothing here
    (move,) = make_player(name, 0).moves(view)
    assert move.note == BEYOND_EXACT and not move.certain and (move.x, move.y) in {(2, 0), (2, 1)}


@pytest.mark.slow
@pytest.mark.parametrize("blend,progress_cells", [(0.0, 0), (0.2, 0), (0.0, StrongPlayer.progress_cells)])
@settings(max_examples=40, suppress_health_check=list(HealthCheck))
@given(view=small_views())
def test_progress_score_matches_brute_force(view, blend, progress_cells):
    """The look-ahead score of every undecided cell, recomputed from the brute-force layouts: each
    number weighted by its share, 1 when some other cell is then safe in every layout, else the best
    safety then; times 1 + the progress weight x the chance that some other cell is then certain
    while more than `progress_cells` undecided cells are left (never on these small boards by
    default); a cell that can show only one number cut by the dead penalty."""
    a, layouts, cells, nbr, mines = _guess_position(view)
    base = cells.copy()
    base[mines & (base == HIDDEN)] = -2
    player = StrongPlayer(0)
    player.blend = blend
    player.progress_cells = progress_cells
    for c in np.flatnonzero((cells == HIDDEN) & ~mines):
        got = player._score_progress(view, a, base, int(c))
        others = [int(j) for j in np.flatnonzero(cells == HIDDEN) if not mines[j]]
        want = _brute_progress(layouts, int(c), others, nbr, blend)
        progress = sum(len(g) for g in _groups(layouts, int(c), nbr).values()
                       if any(not any(j in lay for lay in g) for j in others if j != c)) / len(layouts)
        if len(others) > progress_cells:
            want *= 1 + player.progress_weight * progress
        if len(_groups(layouts, int(c), nbr)) == 1:
            want *= 1 - player.dead_penalty
        assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=60, suppress_health_check=list(HealthCheck))
@given(small_views())
def test_progress_and_expected_clears_match_brute_force(view):
    """The chance that a guess is safe and leaves some other cell certain, and the expected count of
    such cells, recomputed from the brute-force layouts (each number's group of layouts)."""
    from sweeplab.solver.lookahead import flagged, progress_detail
    a, layouts, cells, nbr, mines = _guess_position(view)
    base = flagged(view, a)
    hidden = [int(j) for j in np.flatnonzero(cells == HIDDEN) if not mines[j]]
    for c in hidden:
        want_progress = want_clears = 0.0
        for group in _groups(layouts, c, nbr).values():
            certain = [j for j in hidden if j != c and not any(j in lay for lay in group)]
            want_progress += len(group) / len(layouts) * bool(certain)
            want_clears += len(group) / len(layouts) * len(certain)
        d = progress_detail(view, a, base, c)
        assert d.progress == pytest.approx(want_progress, abs=1e-9)
        assert d.clears == pytest.approx(want_clears, abs=1e-9)


@settings(max_examples=80, suppress_health_check=list(HealthCheck))
@given(small_views())
@example(View.from_text("mines: 3\n###\n#3#\n###\n"))
def test_unavoidable_sets_cannot_be_told_apart_by_any_reveal(view):
    """Brute force: for each set T found, any two layouts that agree outside T give the same number
    on every hidden cell that is safe in both, inside T as well as outside (so no reveal ever
    separates them), and each cell of T is a mine in some layout and safe in another (a guess is
    needed)."""
    from sweeplab.solver import analyse
    from sweeplab.solver.fifty import unavoidable_sets
    a = analyse(view)
    undecided = view.hidden & ~a.mines & ~a.safe
    sets = unavoidable_sets(view, a.mines, undecided)
    layouts = _brute_layouts(view)
    nbr = view.neighbours
    hidden = np.flatnonzero(view.hidden.reshape(-1))
    for t in sets:
        members = set(t)
        assert all(any(c in lay for lay in layouts) and any(c not in lay for lay in layouts) for c in t)
        by_outside = {}
        for lay in layouts:
            by_outside.setdefault(frozenset(lay - members), []).append(lay)
        for group in by_outside.values():
            for c in hidden:
                shown = {sum(1 for j in nbr[c] if j >= 0 and int(j) in lay) for lay in group if int(c) not in lay}
                assert len(shown) <= 1



@pytest.mark.slow
@settings(max_examples=60, suppress_health_check=list(HealthCheck), deadline=None)
@given(small_views())
@example(View.from_text("mines: 3\n###\n#3#\n###\n"))
def test_an_unavoidable_guess_is_an_optimal_move(view):
    """The exact optimum (`solver.optimal`) as the oracle: every cell the unavoidable-guess rule may
    pick (the safest of a set it finds) is worth as much as the best move of perfect play. The
    example is the 3x3/3 centre showing its 3: a rule that ignores reveals inside the set guesses an
    edge cell (19/56 of winning) where a corner wins 5/14."""
    from sweeplab.solver import analyse
    from sweeplab.solver.fifty import unavoidable_sets
    from sweeplab.solver.optimal import OptimalPlay
    a = analyse(view)
    assume(not a.safe.any())
    sets = unavoidable_sets(view, a.mines, view.hidden & ~a.mines)
    assume(sets)
    values = OptimalPlay(view.width, view.height, view.mine_count).moves(view)
    best = max(values.values())
    p = a.probability.reshape(-1)
    for t in sets:
        safest = [c for c in t if p[c] <= min(p[list(t)]) + 1e-12]
        assert all(values[c % view.width, c // view.width] == best for c in safest)


def test_strong_plays_the_3x3_centre_optimally():
    """3x3/3, the centre open with its 3: the eight cells around hold 3 mines, but a corner's number
    tells its two edge neighbours apart, so `strong` must not guess at once at any safest cell of the
    ring; perfect play opens a corner (5/14), and so must `strong`."""
    from fractions import Fraction

    from sweeplab.solver.optimal import OptimalPlay
    view = View.from_text("mines: 3\n###\n#3#\n###\n")
    values = OptimalPlay(3, 3, 3).moves(view)
    assert max(values.values()) == Fraction(5, 14) and values[1, 0] == Fraction(19, 56)
    for seed in range(8):
        (move,) = StrongPlayer(seed).moves(view)
        assert values[move.x, move.y] == Fraction(5, 14)


@pytest.mark.slow
@settings(max_examples=60, suppress_health_check=list(HealthCheck))
@given(small_views())
def test_safe_whenever_matches_brute_force(view):
    """The cells that dominate a guess c (safe in every layout where c is safe), from the layouts."""
    from sweeplab.solver import analyse
    from sweeplab.solver.lookahead import flagged, safe_whenever
    a = analyse(view)
    assume(not a.safe.any())
    layouts = _brute_layouts(view)
    cells = view.cells.reshape(-1)
    hidden = [int(j) for j in np.flatnonzero(cells == HIDDEN)]
    base = flagged(view, a)
    for c in np.flatnonzero((cells == HIDDEN) & ~a.mines.reshape(-1)):
        got = set(np.flatnonzero(safe_whenever(view, a, base, int(c))).tolist())
        alive = [lay for lay in layouts if c not in lay]
        want = {d for d in hidden if d != c and not any(d in lay for lay in alive)
                and not all(d in lay for lay in layouts)}
        assert got == want


def test_a_dominated_guess_is_replaced_by_the_cell_that_dominates_it():
    """Here (1,1) being safe forces the mines where they leave the right-hand cells safe, so those
    dominate it: the player opens one of them instead, and nothing dominates that one."""
    from sweeplab.solver import analyse
    from sweeplab.solver.lookahead import flagged, safe_whenever
    view = View.from_text("mines: 3\n1####\n##2##\n#2###\n#####\n")
    a = analyse(view)
    assert not a.safe.any()
    base = flagged(view, a)
    und = view.hidden & ~a.mines
    c = 1 * view.width + 1
    assert safe_whenever(view, a, base, c).any()
    p = a.probability.reshape(-1)
    d = StrongPlayer(0)._undominated(view, a, base, c, und)
    assert d != c and safe_whenever(view, a, base, c)[d] and p[d] < p[c]
    assert not (safe_whenever(view, a, base, d) & (p < p[d])).any()
    # the player's own guesses on real stuck positions are never strictly dominated
    for v, a in _stuck_views(8, 900):
        player = StrongPlayer(1)
        player.endgame_layouts, player.fifty_first = 0, False
        (move,) = player.moves(v)
        i = move.y * v.width + move.x
        p = a.probability.reshape(-1)
        assert not (safe_whenever(v, a, flagged(v, a), i) & (p < p[i])).any()


def _look_ahead_score(player, view, a, base, c):
    """The default look-ahead's score of guessing c, as the player's docstring specifies it."""
    from sweeplab.solver.lookahead import progress_detail
    d = progress_detail(view, a, base, c, player.blend)
    weight = player.progress_weight if np.count_nonzero(base == HIDDEN) > player.progress_cells else 0.0
    return d.score * (1.0 + weight * d.progress) * (0.0 if d.shown == 1 else 1.0)


def _wide_candidates_plainly(view, a, player):
    """JSMinesweeper's candidate cells, written out cell by cell from the rule: every frontier cell
    (undecided, beside an open number) within `wide_near` of the best safety; when the off-frontier
    cells are within `off_near` of the best frontier cell, all of them if fewer than `few_off`, else
    those two steps left, right, up or down from a number that sees an undecided cell, or with two
    or three hidden neighbours."""
    w, h = view.width, view.height
    cells = view.cells
    und = view.hidden & ~a.mines

    def around(x, y):
        return [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if (dx or dy) and 0 <= x + dx < w and 0 <= y + dy < h]

    safety = {(x, y): 1 - float(a.probability[y, x]) for y in range(h) for x in range(w) if und[y, x]}
    front = {c for c in safety if any(cells[y, x] >= 0 for x, y in around(*c))}
    off = set(safety) - front
    best = max(safety.values())
    out = {c for c in front if safety[c] >= best * (1 - player.wide_near)}
    best_front = max((safety[c] for c in front), default=0.0)
    if off and max(safety[c] for c in off) > best_front * (1 - player.off_near):
        if len(off) < player.few_off:
            out |= off
        else:
            numbers = [(x, y) for y in range(h) for x in range(w)
                       if cells[y, x] > 0 and any(und[y2, x2] for x2, y2 in around(x, y))]
            two_steps = {(x + dx, y + dy) for x, y in numbers for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2))}
            out |= {c for c in off if c in two_steps
                    or 2 <= sum(cells[y, x] == HIDDEN for x, y in around(*c)) <= 3}
    return out


@pytest.mark.slow
def test_wide_candidates_are_jsminesweepers_cells_safest_first():
    """On positions of expert games where a guess is due (opening and safe corner, early and late),
    the look-ahead's candidates are exactly the cells the rule names, safest first."""
    player = StrongPlayer(1)
    views = _stuck_views(25, 800) + _stuck_views(25, 900, "safe", (0, 0), per_game=3)
    kinds = set()
    for view, a in views:
        und = view.hidden & ~a.mines
        p = np.where(und, a.probability, np.inf).reshape(-1)
        got = player._wide_candidates(view, p, und)
        want = _wide_candidates_plainly(view, a, player)
        assert {(c % view.width, c // view.width) for c in got} == want
        assert all(p[x] <= p[y] for x, y in zip(got, got[1:]))
        shown = np.append(view.cells.reshape(-1) >= 0, False)
        kinds.add(tuple(sorted({bool(shown[view.neighbours[c]].any()) for c in got})))
    assert kinds >= {(False, True), (True,)}  # positions with off-frontier candidates, and without


def test_strong_looks_ahead_on_the_wide_candidates():
    """The guess of the default look-ahead (no end game, no forced 50/50s, no dominance) is the best
    scored of the wide candidates, by the player's own score."""
    from sweeplab.solver.lookahead import flagged

    for view, a in _stuck_views(12, 1000, "safe", (0, 0), per_game=3):
        player = StrongPlayer(1)
        player.endgame_layouts, player.fifty_first, player.dominance = 0, False, False
        base = flagged(view, a)

        def score(c, player=player, view=view, a=a, base=base):
            return _look_ahead_score(player, view, a, base, c)

        und = view.hidden & ~a.mines
        cands = player._wide_candidates(view, np.where(und, a.probability, np.inf).reshape(-1), und)
        (move,) = player.moves(view)
        got = move.y * view.width + move.x
        assert got in cands
        assert score(got) >= max(map(score, cands)) - 1e-12


def test_a_look_cut_short_could_not_have_passed_its_bar():
    """`progress_detail` with a score to beat: None only where the look taken in full scores (times
    1 + the progress weight x its progress) at most that, else the very same look; never cut below
    the full score, and some looks are cut."""
    from sweeplab.solver.lookahead import flagged, progress_detail
    rng = np.random.default_rng(5)
    cut = kept = 0
    for view, a in _stuck_views(6, 1200, "safe", (0, 0), per_game=2):
        base = flagged(view, a)
        for c in np.flatnonzero((view.hidden & ~a.mines).reshape(-1))[:10]:
            full = progress_detail(view, a, base, int(c), 0.2)
            for weight in (0.0, 0.2):
                score = full.score * (1.0 + weight * full.progress)
                for bar in (score - 1e-6, score, score + 1e-6, float(rng.uniform(0.0, 1.0))):
                    got = progress_detail(view, a, base, int(c), 0.2, bar, weight)
                    if got is None:
                        cut += 1
                        assert score <= bar
                    else:
                        kept += 1
                        assert got[:4] == full[:4] and np.array_equal(got.whenever, full.whenever)
                    assert got is not None or bar >= score
    assert cut and kept


class _LookingInFull(StrongPlayer):
    """`strong` scoring every look-ahead candidate in full: no cut, no looks kept for dominance."""

    def _score(self, view, a, base, c, p, undecided, beat=None, looks=None):
        return super()._score(view, a, base, c, p, undecided)


@pytest.mark.parametrize("rule,at", [("opening", (3, 3)), ("safe", (0, 0))])
def test_cutting_looks_short_leaves_every_guess_as_it_was(rule, at):
    """On stuck expert positions the look-ahead guess (dominance included) is the same cell whether
    hopeless candidates are cut short or every candidate is looked at in full."""
    for view, _ in _stuck_views(16, 1300, rule, at, per_game=3):
        got = []
        for player in (StrongPlayer(1), _LookingInFull(1)):
            player.endgame_layouts, player.fifty_first = 0, False
            got.append(player.moves(view))
        assert got[0] == got[1]
