"""Local rules, hints and `sweeplab solve`, on positions worked out by hand and against brute force."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings

from sweeplab import View
from sweeplab.cli import main
from sweeplab.errors import InconsistentPositionError
from sweeplab.solver import analyse, deduce_rules, hint
from sweeplab.solver.deduction import WHY_COMPONENT, WHY_NUMBER, WHY_PAIR, WHY_TOTAL

from .test_solver_complete import brute_force, small_views

ONE_TWO_ONE = "mines: 2\n###\n121\n000\n"


def cells(mask):
    return sorted((int(x), int(y)) for y, x in zip(*np.nonzero(mask)))


def test_one_two_one_rules_find_the_mines_complete_finds_the_middle():
    v = View.from_text(ONE_TWO_ONE)
    safe, mines = deduce_rules(v)
    assert cells(mines) == [(0, 0), (2, 0)]  # pair rule: the 2 minus the 1 beside it
    assert cells(safe) == []  # the middle needs a second level
    a = analyse(v)
    assert cells(a.mines) == [(0, 0), (2, 0)] and cells(a.safe) == [(1, 0)]
    assert a.layouts == 1


def test_single_number_rules():
    safe, mines = deduce_rules(View.from_text("mines: 2\n1#\n##\n#1\n"))
    assert not safe.any() and not mines.any()
    safe, mines = deduce_rules(View.from_text("mines: 1\n1#\n"))
    assert cells(mines) == [(1, 0)]
    safe, mines = deduce_rules(View.from_text("mines: 2\n0##\n###\n"))
    assert cells(safe) == [(0, 1), (1, 0), (1, 1)]


def test_only_the_mine_total_decides():
    v = View.from_text("mines: 1\n#1##\n")
    safe, mines = deduce_rules(v)
    assert not safe.any()
    a = analyse(v)
    assert cells(a.safe) == [(3, 0)]  # the 1 takes the only mine; the far cell is safe
    assert a.probability[0, 0] == 0.5 and a.mine_range == (1, 1)


@pytest.mark.slow
@settings(max_examples=200)
@given(small_views())
def test_rules_are_sound(view):
    """Whatever the rules decide, every layout that fits the numbers agrees (mine total or not)."""
    if view is None:
        return
    safe, mines = deduce_rules(view)
    total, counts = brute_force(view)
    for c, k in counts.items():
        y, x = divmod(c, view.width)
        if safe[y, x]:
            assert k == 0
        if mines[y, x]:
            assert k == total


def test_rules_refuse_contradictions():
    with pytest.raises(InconsistentPositionError, match="cannot be satisfied"):
        deduce_rules(View.from_text("mines: 1\n5#\n##\n"))


# --- hints -------------------------------------------------------------------------------------

def test_hint_safe_explains_with_a_number():
    h = hint(View.from_text(ONE_TWO_ONE))
    assert h.kind == "safe" and h.cells == [(1, 0)] and h.probability == 1.0
    assert "already touches" in h.reason and ("(0, 0)" in h.reason or "(2, 0)" in h.reason)


def test_hint_names_cells_in_the_callers_words_and_lists_the_cells_it_names():
    name = lambda x, y: f"C{x + 1}R{y + 1}"  # noqa: E731
    h = hint(View.from_text(ONE_TWO_ONE), name=name)
    # the engine settles the middle with the 1 on the right (the left one would do as well)
    assert h.cells == [(1, 0)] and h.named == [(2, 1), (2, 0)]  # the number that shows it, then its mine
    assert h.reason.startswith("The 1 at C3R2 already touches 1 certain mine (C3R1)") and "C2R1 among them" in h.reason
    assert "(" not in h.reason.replace("(C3R1)", "")
    h = hint(View.from_text("mines: 1\n1#\n"), name=name)
    assert h.kind == "mine" and h.named == [(0, 0)] and "The 1 at C1R1" in h.reason
    assert hint(View.from_text("mines: 1\n1#\n")).as_dict()["named"] == [[0, 0]]


def test_hint_mine_when_nothing_is_safe():
    h = hint(View.from_text("mines: 2\n1#\n##\n#1\n"))  # two mines for two 1s: none in the shared cells
    assert h.kind == "safe" and h.cells == [(0, 1), (1, 1)]
    h = hint(View.from_text("mines: 1\n1#\n"))
    assert h.kind == "mine" and h.cells == [(1, 0)] and "only 1 hidden neighbour" in h.reason


def test_hint_tells_of_a_wrong_flag():
    h = hint(View.from_text("mines: 1\n1#F\n"))
    assert h.kind == "safe" and h.cells == [(2, 0)] and "flag" in h.reason


def test_hint_gives_the_pair_that_decided_the_cell():
    # the 1 at (3, 1) sees only cells the 1 at (2, 1) sees too: its mine is the other 1's, so the
    # other 1's cell away from it, (1, 0), is safe (the subset rule on that pair, nothing else)
    name = lambda x, y: f"C{x + 1}R{y + 1}"  # noqa: E731
    v = View.from_text("mines: 2\n####\n#211\n")
    r = analyse(v).reason(1, 0)
    assert (r.why, r.a, r.b, r.rest_a, r.rest_b) == (WHY_PAIR, 6, 7, 1, 1)
    h = hint(v, name=name)
    assert h.kind == "safe" and h.cells[0] == (1, 0) and set(h.named) >= {(2, 1), (3, 1)}
    assert "the 1 at C4R2 touches the 1 at C3R2 too" in h.reason and "C2R1 among them" in h.reason


def test_hint_says_when_the_mine_total_decided():
    h = hint(View.from_text("mines: 1\n#1##\n"))
    assert h.cells == [(3, 0)] and "mine total (1)" in h.reason


def _layouts_without_total(view):
    """Every layout of the hidden cells that fits the numbers, whatever its mine count."""
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    u = np.flatnonzero(cells < 0)
    masks = np.arange(1 << len(u), dtype=np.int64)
    ok = np.ones(len(masks), dtype=bool)
    for i in np.flatnonzero(cells >= 0):
        cm = sum(1 << k for k, c in enumerate(u) if c in nbr[i])
        ok &= np.bitwise_count(masks & cm) == int(cells[i])
    return u, masks[ok]


@pytest.mark.slow
@settings(max_examples=200)
@given(small_views())
def test_engine_reasons_hold(view):
    """Each decided cell's reason (Analysis.reason) is one that decides it: the number or pair
    touches it on the right side, the mines they knew of were certain, and a component's count
    decides it without the mine total."""
    if view is None:
        return
    try:
        a = analyse(view)
    except InconsistentPositionError:
        return
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    total, counts = brute_force(view)
    certain_mine = {c for c, k in counts.items() if k == total}
    u, free = _layouts_without_total(view)

    def around(p):
        return {int(q) for q in nbr[p] if q >= 0}

    def knew(p, rest):  # the mines the number had found must be certain ones
        return 0 <= rest <= cells[p] and cells[p] - rest <= len(around(p) & certain_mine)

    for i in np.flatnonzero(a.decided.reshape(-1) & (cells < 0)):
        safe = bool(a.safe.reshape(-1)[i])
        r = a.reason(int(i) % view.width, int(i) // view.width)
        if r.why == WHY_NUMBER:
            assert i in around(r.a) and knew(r.a, r.rest_a) and (r.rest_a == 0) == safe
        elif r.why == WHY_PAIR:
            assert knew(r.a, r.rest_a) and knew(r.b, r.rest_b) and r.rest_b >= r.rest_a
            own, other = (r.a, r.b) if safe else (r.b, r.a)
            assert i in around(own) and i not in around(other)
        elif r.why == WHY_COMPONENT:
            k = list(u).index(i)
            values = {int(m >> k & 1) for m in free}
            assert values == {0 if safe else 1}
        else:
            assert r.why == WHY_TOTAL


def test_hint_guess_is_the_strong_players_with_its_chances():
    v = View.from_text("mines: 10\n#########\n#########\n###1112##\n###1001##\n###1001##\n###2111##\n"
                       "#########\n#########\n#########\n")
    a = analyse(v)
    h = hint(v)
    assert h.kind == "guess" and len(h.cells) == 1
    x, y = h.cells[0]
    from sweeplab.solver.players import StrongPlayer
    move = StrongPlayer(0).moves(v)[0]
    assert (x, y) == (move.x, move.y)  # the default player's guess
    best = 1 - np.nanmin(a.probability)
    assert best * (1 - StrongPlayer.wide_near) - 1e-12 <= h.probability <= best + 1e-12
    assert 1 - a.probability[y, x] == pytest.approx(h.probability)
    assert 0 <= h.progress <= h.probability
    assert "safe with probability" in h.reason and "%" in h.reason


def test_guess_progress_matches_brute_force():
    """The chance that a guess is safe and leads to a certain safe cell, counted layout by layout."""
    v = View.from_text("mines: 3\n####\n#21#\n####\n")
    a = analyse(v)
    from sweeplab.grid import neighbour_table
    from sweeplab.solver.hints import guess_progress
    nbr = neighbour_table(4, 3)
    i = 0  # corner (0, 0)
    prog, zero = guess_progress(v, a, i)
    # brute force: every layout; the number cell 0 would show; then is anything newly certain?
    unknown = np.flatnonzero(v.cells.reshape(-1) < 0)
    total, _ = brute_force(v)
    hits = zeros = 0
    for n in range(9):
        c = v.cells.copy().reshape(-1)
        c[i] = n
        v2 = View(c.reshape(3, 4), 3)
        t2, counts2 = brute_force(v2)
        if t2 == 0:
            continue
        zeros += t2 if n == 0 else 0
        if any(k == 0 for k in counts2.values()):
            hits += t2
    assert prog == pytest.approx(hits / total) and zero == pytest.approx(zeros / total)
    assert len(unknown) == 10 and nbr.shape == (12, 8)


# --- sweeplab solve ----------------------------------------------------------------------------

def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code or 0, out.out, out.err


def test_solve_prints_certain_cells_and_probabilities(tmp_path, capsys):
    p = tmp_path / "pos.txt"
    p.write_text(ONE_TWO_ONE)
    code, out, _ = run(capsys, "solve", str(p))
    assert code == 0
    assert "certain safe:  1,0" in out and "certain mines: 0,0 2,0" in out
    assert "consistent layouts: 1" in out


def test_solve_json(tmp_path, capsys):
    p = tmp_path / "pos.txt"
    p.write_text("mines: 1\n#1##\n")
    code, out, _ = run(capsys, "solve", str(p), "--json", "--hint")
    assert code == 0
    d = json.loads(out)
    assert d["safe"] == [[3, 0]] and d["mines_certain"] == []
    assert d["probability"] == [[0.5, None, 0.5, 0.0]]
    assert d["layouts"] == "2" and d["hint"]["kind"] == "safe"


def test_solve_bad_input_is_one_line_exit_2(tmp_path, capsys):
    p = tmp_path / "pos.txt"
    p.write_text("mines: 1\n5#\n##\n")
    code, _, err = run(capsys, "solve", str(p))
    assert code == 2 and err.count("\n") == 1 and "cannot be satisfied" in err
    p.write_text("1#\n##\n")
    code, _, err = run(capsys, "solve", str(p))
    assert code == 2 and "mines" in err


def test_hint_guesses_a_forced_fifty_at_once_and_says_why():
    h = hint(View.from_text("mines: 1\n11\n##\n"))
    assert h.kind == "guess" and h.cells[0] in {(0, 1), (1, 1)}
    assert "50/50" in h.reason and h.probability == pytest.approx(0.5)


def test_hint_in_the_end_game_searches_every_layout():
    v = View.from_text("mines: 2\n1###\n####\n")  # few layouts: the exhaustive search chooses
    a = analyse(v)
    h = hint(v)
    assert h.kind == "guess" and f"only {a.layouts} layouts" in h.reason
    x, y = h.cells[0]
    assert 1 - a.probability[y, x] == pytest.approx(h.probability)
