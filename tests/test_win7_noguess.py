"""The Windows 7 no-guess patch: its three rules against brute force, their fixed point, the loop against
a plain transcription (tests/win7_patch_plain.py) and golden vectors, the fallback, the clamp, seeds."""

import itertools
import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import Board, Game, generators
from sweeplab.errors import InvalidBoardError
from sweeplab.generators.win7 import CLAMP_MESSAGE, Win7Notice, win7_board
from sweeplab.generators.win7_noguess import (
    MINES,
    NOTHING,
    ORDERS,
    PROGRESS,
    SAFE,
    Win7NoGuess,
    decide,
    patch_board,
    patch_play,
)
from sweeplab.kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE

from . import win7_patch_plain as plain

GOLDEN = json.loads(plain.GOLDEN.read_text())


def plain_board(laid: set, width: int, height: int) -> Board:
    return Board.from_text(plain.text(width, height, laid))


# --- the three rules ---------------------------------------------------------------------------

def consistent_layouts(board: Board, cells: np.ndarray) -> np.ndarray:
    """Every mine layout of the hidden cells next to an open number (flags are mines, open cells safe)
    that agrees with the open numbers, without the mine total: bool (layouts, cells). (Hidden cells
    next to no open number are left safe: with no mine total, nothing constrains them.)"""
    n = board.width * board.height
    nbr = board.neighbours
    near = np.zeros(n, dtype=np.bool_)
    for c in np.flatnonzero(cells == OPEN_STATE):
        near[nbr[c][nbr[c] >= 0]] = True
    hidden = np.flatnonzero((cells == HIDDEN_STATE) & near)
    layouts = np.zeros((1 << hidden.size, n), dtype=np.bool_)
    bits = (np.arange(1 << hidden.size)[:, None] >> np.arange(hidden.size)) & 1
    layouts[:, hidden] = bits.astype(np.bool_)
    layouts[:, cells == FLAG_STATE] = True
    ok = np.ones(layouts.shape[0], dtype=np.bool_)
    for c in np.flatnonzero(cells == OPEN_STATE):
        around = nbr[c][nbr[c] >= 0]
        ok &= layouts[:, around].sum(axis=1) == board.flat_numbers[c]
    return layouts[ok]


@st.composite
def positions(draw):
    """A small board with some of its safe cells open and some of its mines flagged."""
    w, h = draw(st.integers(3, 5)), draw(st.integers(3, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mines = rng.random((h, w)) < draw(st.floats(0.1, 0.5))
    board = Board(mines)
    cells = np.full(w * h, HIDDEN_STATE, dtype=np.int8)
    flat = board.flat_mines
    cells[~flat & (rng.random(w * h) < draw(st.floats(0.2, 0.8)))] = OPEN_STATE
    cells[flat & (rng.random(w * h) < draw(st.floats(0, 0.6)))] = FLAG_STATE
    return board, cells


@settings(max_examples=300)
@given(positions())
def test_every_conclusion_of_the_rules_holds_in_every_layout(position):
    board, cells = position
    layouts = consistent_layouts(board, cells)
    scratch = np.empty((3, 8), dtype=np.int32)
    for c in np.flatnonzero((cells == OPEN_STATE) & (board.flat_numbers > 0)):
        what, k = decide(cells, board.flat_numbers, board.neighbours, board.width, c, *scratch)
        found = scratch[0, :k]
        assert (what == NOTHING) == (k == 0)
        if what == SAFE:
            assert not layouts[:, found].any()
        elif what == MINES:
            assert layouts[:, found].all()


def test_the_subset_rule_is_weaker_than_the_overlap_rule():
    # Two open numbers side by side, a 1 and a 4: their hidden cells overlap, neither set holds the
    # other. The pair rule on overlapping numbers (sweeplab's) sees that the 4's own column must hold
    # its 3 mines beyond the 1's, so the 1's own column is safe; brute force agrees. The patch's
    # three rules decide nothing here.
    board = Board.from_text(".*.*\n...*\n...*\n")
    cells = np.full(12, HIDDEN_STATE, dtype=np.int8)
    cells[[5, 6]] = OPEN_STATE
    assert board.flat_numbers[5] == 1 and board.flat_numbers[6] == 4
    scratch = np.empty((3, 8), dtype=np.int32)
    assert [decide(cells, board.flat_numbers, board.neighbours, 4, c, *scratch)[0] for c in (5, 6)] == [NOTHING] * 2
    layouts = consistent_layouts(board, cells)
    own_a, own_b = [0, 4, 8], [3, 7, 11]
    assert not layouts[:, own_a].any() and layouts[:, own_b].all()


@pytest.mark.parametrize("seed", range(40))
def test_the_solver_stops_exactly_at_the_fixed_point_of_the_three_rules(seed):
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(9, 17)), int(rng.integers(9, 13))
    m = int(rng.integers(5, w * h // 4))
    x, y = int(rng.integers(w)), int(rng.integers(h))
    board = win7_board(int(rng.integers(2**32)), w, h, m, x, y)
    laid = set(np.flatnonzero(board.flat_mines).tolist())
    opened, flagged = plain.fixed_point(w, h, laid, x, y)
    for order, progress in itertools.product(ORDERS, PROGRESS):
        cells = patch_play(board, x, y, order=order, progress=progress).reshape(-1)
        assert set(np.flatnonzero(cells == OPEN_STATE).tolist()) == opened
        assert set(np.flatnonzero(cells == FLAG_STATE).tolist()) == flagged


# --- the loop ----------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", GOLDEN, ids=lambda e: f"{e['seed']}-{e['width']}x{e['height']}/{e['mines']}-"
                                                       f"{e['removal']}")
def test_golden_boards(entry):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Win7Notice)
        r = patch_board(entry["seed"], entry["width"], entry["height"], entry["mines"], *entry["click"],
                        removal=entry["removal"])
    assert (r.board.to_text(), r.attempts, r.fell_back) == (entry["board"], entry["attempts"], entry["fell_back"])


def test_golden_vectors_are_the_plain_transcriptions():
    for e in GOLDEN[:7]:  # the quick ones; the 500-attempt fallback is checked below
        assert plain.patch(e["seed"], e["width"], e["height"], e["mines"], *e["click"], removal=e["removal"]) == \
            (e["board"], e["attempts"], e["fell_back"])


levels = st.sampled_from([(9, 9, 10), (9, 9, 20), (16, 16, 40), (12, 10, 30), (30, 16, 99)])


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), levels, st.sampled_from(["shift", "swap"]), st.data())
def test_the_loop_matches_the_plain_transcription(seed, level, removal, data):
    w, h, m = level
    x, y = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1))
    r = patch_board(seed, w, h, m, x, y, removal=removal)
    assert (r.board.to_text(), r.attempts, r.fell_back) == plain.patch(seed, w, h, m, x, y, removal=removal)
    assert not r.board.mines[max(0, y - 1):y + 2, max(0, x - 1):x + 2].any()
    if r.attempts == 1 and removal == "shift":
        assert r.board == win7_board(seed, w, h, m, x, y)  # the first attempt is the Windows 7 board


def test_the_attempts_continue_one_rand_stream():
    # attempt k is the k-th Windows 7 placement of the one stream: k-1 boards' draws after srand(seed)
    seed, w, h, m, x, y = 123456789, 30, 16, 99, 0, 15
    needed = patch_board(seed, w, h, m, x, y).attempts
    assert needed > 3
    rand = plain.rand_stream(seed)
    boards = [plain_board(plain.lay(rand, w, h, m, x, y), w, h) for _ in range(needed)]
    assert boards[0] == win7_board(seed, w, h, m, x, y)
    tried = Win7NoGuess(w, h, m, seed).each_attempt(x, y)
    assert [next(tried) for _ in range(needed + 1)][:needed] == [(b, k == needed) for k, b in enumerate(boards, 1)]
    for k in range(1, needed + 2):
        r = patch_board(seed, w, h, m, x, y, attempts=k)
        assert r.board == boards[min(k, needed) - 1] and r.attempts == min(k, needed) and r.fell_back == (k < needed)


@settings(max_examples=15)
@given(st.integers(0, 2**32 - 1), levels)
def test_order_and_progress_never_change_the_board(seed, level):
    w, h, m = level
    results = {(r.board.to_text(), r.attempts, r.fell_back)
               for r in (patch_board(seed, w, h, m, w // 2, h // 2, order=o, progress=p)
                         for o, p in itertools.product(ORDERS, PROGRESS))}
    assert len(results) == 1


def test_the_fallback_keeps_the_last_attempt_unchecked():
    entry = next(e for e in GOLDEN if e["fell_back"])
    seed, w, h, m, (x, y) = entry["seed"], entry["width"], entry["height"], entry["mines"], entry["click"]
    r = patch_board(seed, w, h, m, x, y)
    assert r.fell_back and r.attempts == 500
    rand = plain.rand_stream(seed)
    for _ in range(500):
        laid = plain.lay(rand, w, h, m, x, y)
    assert r.board == plain_board(laid, w, h)  # the 500th attempt, as laid
    opened, _ = plain.fixed_point(w, h, laid, x, y)
    assert len(opened) < w * h - m  # which the rules cannot open
    assert "fallback" in r.note() and "unchecked" in r.note()
    short = patch_board(seed, w, h, m, x, y, attempts=3)  # a shorter budget keeps its own last attempt
    assert short.fell_back and short.attempts == 3 and short.board != r.board


def test_the_clamp_is_windows_7s():
    with pytest.warns(Win7Notice, match=CLAMP_MESSAGE):
        rule = Win7NoGuess(10, 10, 99, 5)
    assert rule.mines == 91 and rule.asked == 99
    board = Game(rule=rule)
    board.open(5, 5)
    assert board.status == "won" and board.board.mine_count == 91  # only the click's 3x3 is free: it opens all
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Win7NoGuess(10, 10, 91, 5).notice is None


def test_the_same_seed_gives_the_same_board():
    a = generators.make("win7-noguess", 30, 16, 99, 1262304000)
    b = generators.make("win7-patch", 30, 16, 99, 1262304000)
    assert a.board_for(3, 4) == b.board_for(3, 4) and a.restart(3, 4) == a.board_for(3, 4)[0]
    assert patch_board(1262304001, 30, 16, 99, 3, 4).board != a.board_for(3, 4)[0]
    assert a.last.note().startswith("The patch's three rules open this board")


def test_game_plays_and_records_the_rule():
    rule = generators.make("win7-noguess", 16, 16, 40, 99, removal="swap")
    g = Game(rule=rule)
    assert g.open(8, 8) > 1
    assert g.record()["rule"] == {"rule": "win7-noguess", "seed": 99, "removal": "swap"}
    again = generators.make("win7-noguess", 16, 16, 40, **{k: v for k, v in g.record()["rule"].items()
                                                            if k != "rule"})
    assert again.board_for(8, 8)[0] == g.board


@pytest.mark.parametrize("kwargs, words", [
    ({"removal": "pop"}, "allowed: shift, swap"), ({"order": "spiral"}, "allowed: rows, columns"),
    ({"progress": "never"}, "allowed: sweep, restart"), ({"attempts": 0}, "positive integer"),
    ({"seed": -1}, "0..4294967295"), ({"width": 8}, "allowed 9..30")])
def test_bad_options_say_what_is_allowed(kwargs, words):
    args = {"width": 9, "height": 9, "mines": 10, "seed": 1, **kwargs}
    with pytest.raises(InvalidBoardError, match=words):
        generators.make("win7-noguess", **args)


def test_the_click_must_be_on_the_board():
    with pytest.raises(InvalidBoardError, match="off the 9x9 board"):
        Win7NoGuess(9, 9, 10, 1).result(9, 0)
