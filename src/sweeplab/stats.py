"""Board and game statistics: 3BV, openings, islands, ZiNi, and the click statistics of a game.

3BV counts one click per opening (a connected region of zeros with its border) plus one per
numbered safe cell that borders no zero.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ._numba_cache import njit
from .board import Board


@njit
def label_openings(mines, numbers, nbr):
    """Label each opening: zeros and their border get the opening's id (1..k); 0 elsewhere.

    A border cell touching two openings keeps the first id. Returns (labels, k).
    """
    n = mines.shape[0]
    labels = np.zeros(n, dtype=np.int32)
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    k = 0
    for s in range(n):
        if mines[s] or numbers[s] != 0 or seen[s]:
            continue
        k += 1
        seen[s] = True
        labels[s] = k
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            i = queue[head]
            head += 1
            for d in range(8):
                j = nbr[i, d]
                if j < 0 or mines[j]:
                    continue
                if labels[j] == 0:
                    labels[j] = k
                if numbers[j] == 0 and not seen[j]:
                    seen[j] = True
                    queue[tail] = j
                    tail += 1
    return labels, k


@njit
def openings_and_bbbv(mines, numbers, nbr):
    """(openings, 3BV): 3BV is the openings plus the numbered safe cells that border no zero."""
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    count = k
    for i in range(n):
        if not mines[i] and labels[i] == 0:
            count += 1
    return k, count


@njit
def bbbv_kernel(mines, numbers, nbr):
    """3BV: openings plus numbered safe cells that border no zero."""
    return openings_and_bbbv(mines, numbers, nbr)[1]


@njit
def islands_kernel(mines, numbers, nbr):
    """Islands: 8-connected groups of numbered safe cells outside every opening."""
    labels, _ = label_openings(mines, numbers, nbr)
    return count_components(~mines & (labels == 0), nbr)


@njit
def count_components(member, nbr):
    """Number of 8-connected groups of the cells where `member` is True."""
    n = member.shape[0]
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    count = 0
    for s in range(n):
        if not member[s] or seen[s]:
            continue
        count += 1
        seen[s] = True
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            i = queue[head]
            head += 1
            for d in range(8):
                j = nbr[i, d]
                if j >= 0 and member[j] and not seen[j]:
                    seen[j] = True
                    queue[tail] = j
                    tail += 1
    return count


@njit
def solved_bbbv_kernel(mines, numbers, nbr, opened):
    """3BV already done in a position: openings whose zeros are all open, plus open lone numbers."""
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    whole = np.ones(k + 1, dtype=np.bool_)
    for i in range(n):
        if labels[i] > 0 and numbers[i] == 0 and not opened[i]:
            whole[labels[i]] = False
    count = 0
    for o in range(1, k + 1):
        if whole[o]:
            count += 1
    for i in range(n):
        if not mines[i] and labels[i] == 0 and opened[i]:
            count += 1
    return count


@njit
def _zini_premium(i, mines, numbers, labels, nbr, opened, flagged, seen):
    """(3BV units a chord at i would complete, clicks it costs: open i if closed, flags, chord)."""
    gain = 0
    cost = 1
    if not opened[i]:
        cost += 1
        if labels[i] == 0:
            gain += 1  # a lone number opened by the click itself
    m = 0
    for d in range(8):
        j = nbr[i, d]
        if j < 0 or opened[j]:
            continue
        if mines[j]:
            if not flagged[j]:
                cost += 1
        elif labels[j] == 0:
            gain += 1
        elif numbers[j] == 0:
            new = True
            for q in range(m):
                if seen[q] == labels[j]:
                    new = False
            if new:
                seen[m] = labels[j]
                m += 1
                gain += 1
    return gain, cost


@njit
def zini_kernel(mines, numbers, nbr):
    """Greedy ZiNi (Zimmermann and Nikolaus): while some number's chord completes at least as much
    3BV as it costs in clicks, take the best (first in row-major order on ties); otherwise left-click
    the first 3BV unit still closed. Counts every click: left, flag and chord."""
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    opened = np.zeros(n, dtype=np.bool_)
    flagged = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    seen = np.empty(8, dtype=np.int32)
    clicks = 0
    while True:
        best, best_premium = -1, 0
        for i in range(n):
            if mines[i] or numbers[i] == 0:
                continue
            gain, cost = _zini_premium(i, mines, numbers, labels, nbr, opened, flagged, seen)
            if gain > 0 and gain - cost >= best_premium and (best < 0 or gain - cost > best_premium):
                best, best_premium = i, gain - cost
        if best >= 0:
            i = best
            if not opened[i]:
                clicks += 1
                opened[i] = True
            for d in range(8):
                j = nbr[i, d]
                if j >= 0 and mines[j] and not flagged[j]:
                    flagged[j] = True
                    clicks += 1
            clicks += 1
            for d in range(8):
                j = nbr[i, d]
                if j >= 0 and not mines[j] and not opened[j]:
                    _zini_open(j, mines, numbers, nbr, opened, queue)
            continue
        nxt = -1
        for i in range(n):
            if not mines[i] and not opened[i] and (numbers[i] == 0 or labels[i] == 0):
                nxt = i
                break
        if nxt < 0:
            break
        clicks += 1
        _zini_open(nxt, mines, numbers, nbr, opened, queue)
    return clicks


@njit
def _zini_open(s, mines, numbers, nbr, opened, queue):
    opened[s] = True
    if numbers[s] != 0:
        return
    head, tail = 0, 1
    queue[0] = s
    while head < tail:
        i = queue[head]
        head += 1
        for d in range(8):
            j = nbr[i, d]
            if j >= 0 and not mines[j] and not opened[j]:
                opened[j] = True
                if numbers[j] == 0:
                    queue[tail] = j
                    tail += 1


def bbbv(board: Board) -> int:
    """Bechtel's Board Benchmark Value: fewest left clicks to open the board without flags."""
    return int(bbbv_kernel(board.flat_mines, board.flat_numbers, board.neighbours))


def openings(board: Board) -> int:
    return int(label_openings(board.flat_mines, board.flat_numbers, board.neighbours)[1])


def islands(board: Board) -> int:
    return int(islands_kernel(board.flat_mines, board.flat_numbers, board.neighbours))


def zini(board: Board) -> int:
    return int(zini_kernel(board.flat_mines, board.flat_numbers, board.neighbours))


@dataclass(frozen=True)
class BoardStats:
    width: int
    height: int
    mines: int
    topology: str
    bbbv: int
    openings: int
    islands: int
    zini: int
    density: float

    def as_dict(self) -> dict:
        return asdict(self)


def board_stats(board: Board) -> BoardStats:
    return BoardStats(board.width, board.height, board.mine_count, board.topology, bbbv(board), openings(board),
                      islands(board), zini(board), board.mine_count / board.size)


@dataclass(frozen=True)
class GameStats:
    """Click statistics of a game. Effective clicks are opens and chords that opened a cell and
    right clicks that placed a flag; IOE = 3BV / clicks; correctness = effective / clicks;
    throughput = 3BV / effective clicks; 3BV/s uses the 3BV solved (all of it for a win)."""

    status: str
    time: float
    bbbv: int
    bbbv_solved: int
    clicks: int
    left_clicks: int
    right_clicks: int
    chords: int
    effective_clicks: int
    bbbv_per_second: float
    ioe: float
    correctness: float
    throughput: float

    def as_dict(self) -> dict:
        return asdict(self)


def game_stats(game) -> GameStats:
    """Statistics of a game from its board and action log (the game may be unfinished)."""
    board = game.board
    log = game.log
    clicks = len(log)
    left = sum(1 for a in log if a.kind == "open")
    right = sum(1 for a in log if a.kind == "flag")
    chords = sum(1 for a in log if a.kind == "chord")
    effective = sum(1 for a in log if a.opened > 0 or a.flagged)
    if board is None:
        total = solved = 0
    else:
        total = bbbv(board)
        opened = game.view().opened.reshape(-1)
        solved = int(solved_bbbv_kernel(board.flat_mines, board.flat_numbers, board.neighbours, opened))
    t = game.elapsed

    def ratio(a, b):
        return a / b if b else 0.0

    return GameStats(game.status, t, total, solved, clicks, left, right, chords, effective, ratio(solved, t),
                     ratio(solved, clicks), ratio(effective, clicks), ratio(solved, effective))
