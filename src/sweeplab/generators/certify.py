"""The no-guess certifier: a position that can be started, have a mine moved, be kept or undone, and
give its verdict. A thin client of the solver's engine, as Simon Tatham's generator is of his
solver: a play (solver.playthrough) decides the board from its click with the rules, complete deduction
and the mine total; a moved or added mine is certified from the last play's log (solver.recertify).

Verdicts: SOLVED (logic alone opens the board), STUCK (a guess is needed), BUDGET (a component had
more layouts than the leaf budget: not certified), BOOM (the click is a mine).

Whether a play meets a component past the budget can depend on the order it went in (a replay
goes in the old board's order), so a BUDGET verdict belongs to the play, not to the board.
`settle` plays such a board afresh with no budget: its verdict, SOLVED or STUCK, is complete
deduction's closure, the board's alone (BUDGET only where a component is past what the sweep can
hold at all: numbers packed in two dimensions, never met on a real board).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..kernels import HIDDEN_STATE, OPEN_STATE, count_numbers
from ..solver.deduction import WHY_NUMBER, WHY_PAIR  # noqa: F401  (a play's log says why, in the engine's words)
from ..solver.playthrough import BOOM, BUDGET, DEFAULT_LEAF_BUDGET, SOLVED, STUCK, play_fresh  # noqa: F401
from ..solver.recertify import play_moved
from ..solver.state import EV_A, EV_B, EV_CELL, EV_WHY, EVENTS, NEEDED_TOTAL, ST, new_play, new_scratch, scratch_for  # noqa: F401


@njit(_nrt=False)
def move_mine(mines, numbers, nbr, src, dst):
    """Move the mine at `src` to the free cell `dst`, keeping `numbers` right."""
    mines[src] = False
    mines[dst] = True
    for k in range(8):
        j = nbr[src, k]
        if j >= 0:
            numbers[j] -= 1
        j = nbr[dst, k]
        if j >= 0:
            numbers[j] += 1


@njit(_nrt=False)
def set_mine(mines, numbers, nbr, cell, mine):
    """Lay a mine at free `cell` (mine=True) or take the one there away, keeping `numbers` right."""
    mines[cell] = mine
    by = 1 if mine else -1
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0:
            numbers[j] += by


NO_BUDGET = 1 << 62  # a leaf budget no component's layouts reach: `settle`'s

# The generators' view of the certifier. The play logs inside are the engine's own.
Candidate = namedtuple("Candidate", "mines numbers nbr click budget play spare scratch")
Candidate.__doc__ = """A board being certified from its click: the flat mines and their numbers (changed in place by
`try_move` and `undo`), the grid, the click, the leaf budget, the log of the board's last play, a
spare log for a changed board's play until it is kept, and the grid's scratch. Made by
`position`, played by `start`."""


@njit(inline='always')
def position(mines, nbr, click, budget, room):
    """A Candidate for the board `mines` (its numbers counted here) in `room` (from `workspace`)."""
    return Candidate(mines, count_numbers(mines, nbr), nbr, click, budget, room[0], room[1], room[2])


@njit(inline='always')
def start(p):
    """Play the board from its click; the verdict."""
    return play_fresh((p.mines, p.numbers, p.nbr), p.click, p.budget, p.play, p.scratch)


@njit(inline='always')
def try_move(p, src, dst):
    """Move the mine at `src` to the free cell `dst` (src < 0: lay a new mine at dst) and certify
    the changed board from the last play's log; the verdict. Then `keep(p)` or `undo(p, src, dst)`."""
    if src < 0:
        set_mine(p.mines, p.numbers, p.nbr, dst, np.bool_(True))
    else:
        move_mine(p.mines, p.numbers, p.nbr, src, dst)
    return play_moved((p.mines, p.numbers, p.nbr), p.click, p.budget, p.play, p.spare, p.scratch,
                      (np.int32(src), np.int32(dst), np.int32(-1), np.int32(-1)))


@njit(inline='always')
def try_pair(p, a1, b1, a2, b2):
    """Move the mines at `a1` and `a2` to the distinct free cells `b1` and `b2` and certify the
    changed board from the last play's log, in one replay; the verdict. Then `keep(p)`, or
    `undo(p, a2, b2)` and `undo(p, a1, b1)`."""
    move_mine(p.mines, p.numbers, p.nbr, a1, b1)
    move_mine(p.mines, p.numbers, p.nbr, a2, b2)
    return play_moved((p.mines, p.numbers, p.nbr), p.click, p.budget, p.play, p.spare, p.scratch,
                      (np.int32(a1), np.int32(b1), np.int32(a2), np.int32(b2)))


@njit(inline='always')
def settle(p):
    """After `start` or `try_move` answered BUDGET: the board as it stands played afresh with no leaf
    budget, into the spare log; the verdict, SOLVED or STUCK, is the board's own (no order of play
    gets further than complete deduction's closure, and a play with no budget reaches it). Then
    `keep(p)` makes that play the position's (or, after try_move, `undo`)."""
    # np.int64: a global passed as it is reaches play_fresh as a literal, compiled a second time for it
    return play_fresh((p.mines, p.numbers, p.nbr), p.click, np.int64(NO_BUDGET), p.spare, p.scratch)


@njit(inline='always')
def keep(p):
    """The position after its tried move: the changed board's play becomes its play."""
    return Candidate(p.mines, p.numbers, p.nbr, p.click, p.budget, p.spare, p.play, p.scratch)


@njit(inline='always')
def undo(p, src, dst):
    """Take back the tried move (the last play still stands for the board)."""
    if src < 0:
        set_mine(p.mines, p.numbers, p.nbr, dst, np.bool_(False))
    else:
        move_mine(p.mines, p.numbers, p.nbr, dst, src)


@njit(inline='always')
def hidden(p, i):
    """Did the last play leave cell i hidden (neither opened nor known to be a mine)?"""
    return p.play[1][ST, i] == HIDDEN_STATE


@njit(inline='always')
def tried_uses_total(p):
    """Does the tried move's play (before `keep` or `undo`) use the mine total?"""
    return p.spare[2][NEEDED_TOTAL] == 1


@njit(inline='always')
def revealed(p, i):
    """Did the last play open cell i?"""
    return p.play[1][ST, i] == OPEN_STATE


def workspace(width: int, height: int, topology: str = "bounded"):
    """Room for a position on this grid: two play logs and the scratch."""
    n = width * height
    return new_play(n), new_play(n), scratch_for(width, height, topology)


def certify(board, x: int, y: int, *, budget: int = DEFAULT_LEAF_BUDGET) -> tuple[bool, bool]:
    """(certified, needs the mine total) for `board` played from the first click (x, y)."""
    nbr = grid.neighbour_table(board.width, board.height, board.topology)
    mines = board.flat_mines
    play = new_play(mines.shape[0])
    status = play_fresh((mines, board.flat_numbers, nbr), y * board.width + x, budget, play,
                        scratch_for(board.width, board.height, board.topology))
    return status == SOLVED, bool(play[2][NEEDED_TOTAL])
