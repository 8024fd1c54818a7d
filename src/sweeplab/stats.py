"""Board and game statistics: 3BV, openings, islands, ZiNi, and the click statistics of a game.

3BV counts one click per opening (a connected region of zeros with its border) plus one per
numbered safe cell that borders no zero.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numba as nb
import numpy as np

from .board import Board


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def bbbv_kernel(mines, numbers, nbr):
    """3BV: openings plus numbered safe cells that border no zero."""
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    count = k
    for i in range(n):
        if not mines[i] and labels[i] == 0:
            count += 1
    return count


@nb.njit(cache=True)
def islands_kernel(mines, numbers, nbr):
    """Islands: 8-connected groups of numbered safe cells outside every opening."""
    n = mines.shape[0]
    labels, _ = label_openings(mines, numbers, nbr)
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    count = 0
    for s in range(n):
        if mines[s] or labels[s] != 0 or seen[s]:
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
                if j >= 0 and not mines[j] and labels[j] == 0 and not seen[j]:
                    seen[j] = True
                    queue[tail] = j
                    tail += 1
    return count


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def zini_kernel(mines, numbers, nbr):
    """Greedy ZiNi: fewest clicks with flags and chords, choosing at each step the chord with the
    best premium (3BV it completes minus the clicks it costs); then one click per 3BV left."""
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    opened = np.zeros(n, dtype=np.bool_)
    flagged = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    clicks = 0
    while True:
        best, best_gain = -1, 0
        for i in range(n):
            if mines[i] or numbers[i] == 0:
                continue
            cost = 1  # the chord
            if not opened[i]:
                cost += 1
            gain = 0
            if not opened[i] and labels[i] == 0:
                gain += 1
            for d in range(8):
                j = nbr[i, d]
                if j < 0:
                    continue
                if mines[j]:
                    if not flagged[j]:
                        cost += 1
                elif not opened[j]:
                    if numbers[j] == 0 or labels[j] == 0:
                        gain += 1  # an unopened opening, or a lone number
            premium = gain - cost
            if premium >= best_gain and gain > 0 and (best < 0 or premium > best_gain):
                best, best_gain = i, premium
        if best < 0:
            break
        i = best
        if not opened[i]:
            clicks += 1
            _zini_open(i, mines, numbers, nbr, opened, queue)
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
    # every 3BV unit still closed costs one left click
    done = np.zeros(k + 1, dtype=np.bool_)
    for i in range(n):
        if mines[i] or opened[i]:
            continue
        if labels[i] == 0:
            clicks += 1
        elif numbers[i] == 0 and not done[labels[i]]:
            done[labels[i]] = True
            clicks += 1
            _zini_open(i, mines, numbers, nbr, opened, queue)
    return clicks


@nb.njit(cache=True)
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
