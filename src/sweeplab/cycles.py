"""The board-cycle laboratory: every cycle, basin and tail of WinMine's board-to-board map.

WinMine never reseeds, so "the state at the start of a board" determines every board after
it: the map  state -> state after laying one board  is a function on a finite set, and its
iterates must fall into cycles. rand() % 2**j sees only the low 16 + j bits of the state, so
when width and height are powers of two (8x8, 16x16) the map lives on 2**(16+k) states and is
analysed exhaustively; otherwise bit 31 is the only bit that never matters and the map lives
on 2**31 states, where the cycle reached from one state is found by Brent's method, which
keeps no memory per board.

Everything here starts from a rand() state and runs forward. Nothing takes a board seen in a
real game and tells where in its cycle it is (see docs/board-cycles.md, "Ethics").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numba as nb
import numpy as np

from . import grid
from .board import Board
from .errors import InvalidBoardError
from .generators.winmine import TICK_SEEDS, draw_board, shift_target, trace_winmine, winmine_board
from .kernels import count_numbers
from .msvc import check_state, divisor_magic
from .stats import bbbv_kernel

Progress = Callable[[int, int], None]  # (done, total) in boards


def _is_pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def reduced_bits(width: int, height: int) -> int:
    """How many low state bits decide the boards: 16 + log2(larger side) for power-of-two sides, else 31."""
    if _is_pow2(width) and _is_pow2(height):
        return 16 + max(width.bit_length(), height.bit_length()) - 1
    return 31


@dataclass(frozen=True)
class Size:
    width: int
    height: int
    mines: int

    def __post_init__(self):
        grid.check_size(self.width, self.height)
        if not 1 <= self.mines < self.width * self.height:
            raise InvalidBoardError(f"{self.mines} mines on {self.width}x{self.height}; allowed "
                                    f"1..{self.width * self.height - 1}")
        if self.width > 32768 or self.height > 32768:
            raise InvalidBoardError("rand() % side needs sides up to 32768")

    @property
    def bits(self) -> int:
        return reduced_bits(self.width, self.height)

    @property
    def exhaustive(self) -> bool:
        return self.bits < 31

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    def args(self):
        return self.width, self.height, self.mines, divisor_magic(self.width), divisor_magic(self.height)

    def nbr(self):
        return grid.neighbour_table(self.width, self.height)


# --- kernels -----------------------------------------------------------------------------------

@nb.njit(cache=True, inline="always")
def _next(state, width, height, mines, mw, mh, mask, occ, order):
    s = draw_board(state, width, height, mines, mw, mh, occ, order)
    for k in range(mines):
        occ[order[k]] = False
    return np.uint32(s & mask)


@nb.njit(cache=True)
def successor_table(bits, width, height, mines, mw, mh):
    """next[s] = the reduced state after laying a board from reduced state s, for all 2**bits states."""
    n = 1 << bits
    mask = np.uint32(n - 1)
    nxt = np.empty(n, dtype=np.uint32)
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    for s in range(n):
        nxt[s] = _next(np.uint32(s), width, height, mines, mw, mh, mask, occ, order)
    return nxt


@nb.njit(cache=True)
def functional_graph(nxt):
    """Cycles of a map on 0..n-1: (cycle id of every state, boards before its cycle, cycle lengths,
    the smallest state of each cycle). Each state is walked once."""
    n = nxt.shape[0]
    cyc = np.full(n, -1, dtype=np.int32)
    dist = np.full(n, -1, dtype=np.int32)
    path = np.empty(n, dtype=np.uint32)
    lengths = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    ncyc = 0
    for s0 in range(n):
        if dist[s0] >= 0:
            continue
        top = 0
        s = np.uint32(s0)
        while dist[s] < 0 and cyc[s] != -2:
            cyc[s] = -2  # on the current walk
            path[top] = s
            top += 1
            s = nxt[s]
        if dist[s] < 0:  # the walk closed on itself: a new cycle from path[j] on
            j = top - 1
            while path[j] != s:
                j -= 1
            low = path[j]
            for t in range(j, top):
                cyc[path[t]] = ncyc
                dist[path[t]] = 0
                if path[t] < low:
                    low = path[t]
            lengths[ncyc] = top - j
            first[ncyc] = low
            ncyc += 1
            top = j
        for t in range(top - 1, -1, -1):
            u = path[t]
            v = nxt[u]
            cyc[u] = cyc[v]
            dist[u] = dist[v] + 1
    return cyc, dist, lengths[:ncyc].copy(), first[:ncyc].copy()


@nb.njit(cache=True)
def walk_states(state, count, width, height, mines, mw, mh, mask):
    """The reduced states at the start of `count` consecutive boards from `state`."""
    out = np.empty(count, dtype=np.uint32)
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    s = np.uint32(state & mask)
    for i in range(count):
        out[i] = s
        s = _next(s, width, height, mines, mw, mh, mask, occ, order)
    return out


@nb.njit(cache=True)
def packed_boards(states, width, height, mines, mw, mh):
    """The boards laid from `states`, one row of packed mine bits each (for counting distinct boards)."""
    n = width * height
    nbytes = (n + 7) // 8
    out = np.zeros((states.shape[0], nbytes), dtype=np.uint8)
    occ = np.zeros(n, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    for b in range(states.shape[0]):
        draw_board(states[b], width, height, mines, mw, mh, occ, order)
        for k in range(mines):
            i = order[k]
            out[b, i >> 3] |= np.uint8(1 << (i & 7))
            occ[i] = False
    return out


@nb.njit(cache=True)
def brent_lambda(power, lam, tortoise, hare, budget, width, height, mines, mw, mh, mask):
    """Brent's first phase, resumable: run at most `budget` boards; the cycle length is `lam` once
    tortoise == hare. Returns (power, lam, tortoise, hare, boards run)."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    done = 0
    while tortoise != hare and done < budget:
        if power == lam:
            tortoise = hare
            power *= 2
            lam = 0
        hare = _next(hare, width, height, mines, mw, mh, mask, occ, order)
        lam += 1
        done += 1
    return power, lam, tortoise, hare, done


@nb.njit(cache=True)
def dp_run(state, index, ring, budget, dbits, width, height, mines, mw, mh, mask):
    """Walk until a distinguished state (its hash has `dbits` leading zero bits) or `budget` boards,
    writing every state into `ring` at its index mod len(ring). Returns (state, index, found)."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    rmask = ring.shape[0] - 1
    shift = np.uint32(32 - dbits)
    s = np.uint32(state)
    for _ in range(budget):
        s = _next(s, width, height, mines, mw, mh, mask, occ, order)
        index += 1
        ring[index & rmask] = s
        if np.uint32(s * np.uint32(0x9E3779B1)) >> shift == 0:
            return s, index, True
    return s, index, False


@nb.njit(cache=True)
def dp_mu(state, start, stop, lam, ring, width, height, mines, mw, mh, mask):
    """The first index m in [start, stop] whose state equals the state lam boards later (read from
    `ring`), walking from `state` at index `start`; -1 if none."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    rmask = ring.shape[0] - 1
    s = np.uint32(state)
    for m in range(start, stop + 1):
        if s == ring[(m + lam) & rmask]:
            return m
        s = _next(s, width, height, mines, mw, mh, mask, occ, order)
    return -1


@nb.njit(cache=True)
def advance(state, count, width, height, mines, mw, mh, mask):
    """The reduced state `count` boards after `state`."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    s = np.uint32(state & mask)
    for _ in range(count):
        s = _next(s, width, height, mines, mw, mh, mask, occ, order)
    return s


@nb.njit(cache=True)
def brent_mu(tortoise, hare, mu, budget, width, height, mines, mw, mh, mask):
    """Brent's second phase, resumable: step both (hare lam boards ahead) until they meet; mu counts."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    done = 0
    while tortoise != hare and done < budget:
        tortoise = _next(tortoise, width, height, mines, mw, mh, mask, occ, order)
        hare = _next(hare, width, height, mines, mw, mh, mask, occ, order)
        mu += 1
        done += 1
    return tortoise, hare, mu, done


@nb.njit(cache=True)
def _one_click_shift(occ, numbers, width, height, mines, nbr, queue, seen):
    """A cell whose first click shifts its mine away and then opens the whole board, or -1."""
    n = width * height
    target = -1
    for y in range(height - 1):
        for x in range(width - 1):
            if not occ[y * width + x]:
                target = y * width + x
                break
        if target >= 0:
            break
    if target < 0:
        return -1
    safe = n - mines
    for c in range(n):
        if not occ[c]:
            continue
        # c's number after the shift: its mine neighbours, plus the moved mine if it lands beside c
        near = numbers[c]
        for d in range(8):
            if nbr[c, d] == target:
                near += 1
        if near != 0 and safe > 1:
            continue
        occ[c] = False
        occ[target] = True
        nb2 = count_numbers(occ, nbr)
        for i in range(n):
            seen[i] = False
        seen[c] = True
        head, tail, opened = 0, 1, 1
        queue[0] = c
        while head < tail:
            i = queue[head]
            head += 1
            if nb2[i] != 0:
                continue
            for d in range(8):
                j = nbr[i, d]
                if j >= 0 and not seen[j] and not occ[j]:
                    seen[j] = True
                    opened += 1
                    queue[tail] = j
                    tail += 1
        occ[c] = True
        occ[target] = False
        if opened == safe:
            return c
    return -1


@nb.njit(cache=True)
def survey_chunk(state, count, width, height, mines, mw, mh, mask, nbr, hist, best_b, best_i, best_s, start,
                 oneclick_i, oneclick_c, n_oneclick):
    """Walk `count` boards from `state`: add each 3BV to `hist`, keep the lowest-3BV boards in
    best_* (sorted, ties by index), and record boards the first-click shift can win in one click."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    queue = np.empty(width * height, dtype=np.int32)
    seen = np.zeros(width * height, dtype=np.bool_)
    keep = best_b.shape[0]
    s = np.uint32(state & mask)
    for b in range(count):
        nxt = np.uint32(draw_board(s, width, height, mines, mw, mh, occ, order) & mask)
        numbers = count_numbers(occ, nbr)
        v = bbbv_kernel(occ, numbers, nbr)
        hist[v] += 1
        if v < best_b[keep - 1]:
            j = keep - 1
            while j > 0 and best_b[j - 1] > v:
                best_b[j] = best_b[j - 1]
                best_i[j] = best_i[j - 1]
                best_s[j] = best_s[j - 1]
                j -= 1
            best_b[j] = v
            best_i[j] = start + b
            best_s[j] = s
        c = _one_click_shift(occ, numbers, width, height, mines, nbr, queue, seen)
        if c >= 0:
            if n_oneclick < oneclick_i.shape[0]:
                oneclick_i[n_oneclick] = start + b
                oneclick_c[n_oneclick] = c
            n_oneclick += 1
        for k in range(mines):
            occ[order[k]] = False
        s = nxt
    return s, n_oneclick


# --- results -----------------------------------------------------------------------------------

@dataclass
class Cycle:
    length: int
    start: int                  # a reduced state on the cycle (the smallest, when the space was searched)
    parity: int                 # the low bit of every state on it
    basin: int | None = None    # reduced states whose boards end in this cycle
    seeds: int | None = None    # start-up seeds (ticks 0..65535) that end in it
    distinct_boards: int | None = None
    laps: int | None = None     # times round the rand() circle of 2**bits states in one cycle of boards

    def as_dict(self):
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class SpaceReport:
    """The whole reduced state space of a power-of-two size."""

    width: int
    height: int
    mines: int
    bits: int
    cycles: list[Cycle]
    distinct_boards: int
    tail_mean: float
    tail_max: int
    tail_histogram: list[int]     # tail_histogram[t] = start-up seeds with t boards before the cycle
    space_tail_max: int

    def as_dict(self):
        d = dict(self.__dict__)
        d["cycles"] = [c.as_dict() for c in self.cycles]
        return d


@dataclass
class WalkReport:
    """The cycle reached from one state (Brent's method)."""

    width: int
    height: int
    mines: int
    bits: int
    state: int          # the state walked from, reduced
    tail: int           # boards before the cycle (mu)
    length: int         # boards in the cycle (lambda)
    entry: int          # the reduced state where the walk enters the cycle
    parity: int
    boards_run: int     # boards laid to find these

    def as_dict(self):
        return dict(self.__dict__)


@nb.njit(cache=True, inline="always")
def _distinguished(s, shift):
    return np.uint32(s * np.uint32(0x9E3779B1)) >> shift == 0


@nb.njit(cache=True)
def cycle_marks(entry, length, dbits, width, height, mines, mw, mh, mask):
    """The marks of a cycle: its index-0 state and every distinguished state, with their indices."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    shift = np.uint32(32 - dbits)
    states = [np.uint32(entry)]
    index = [np.int64(0)]
    s = np.uint32(entry)
    for i in range(1, length):
        s = _next(s, width, height, mines, mw, mh, mask, occ, order)
        if _distinguished(s, shift):
            states.append(s)
            index.append(np.int64(i))
    return np.array(states, dtype=np.uint32), np.array(index, dtype=np.int64)


@nb.njit(cache=True)
def assign_seeds(seeds, key_states, key_cycle, key_index, mark_states, mark_index, mark_start, lengths, dbits,
                 patience, cycle_out, tail_out, width, height, mines, mw, mh, mask):
    """For each seed, the known cycle its boards end in and the exact tail; -1 when none was met
    within `patience` distinguished states (a new cycle, or a very long tail).

    key_* are every cycle's marks sorted by state; mark_* are the marks of cycle c, by index, at
    mark_start[c]:mark_start[c+1]. The seed walks to a marked state d (index i on its cycle, k
    boards on); its tail is the first j at which it meets the cycle state at index i - k + j.
    """
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    shift = np.uint32(32 - dbits)
    for q in range(seeds.shape[0]):
        s = np.uint32(seeds[q] & mask)
        x0 = s
        k = 0
        seen = 0
        c = -1
        i = 0
        while True:
            if _distinguished(s, shift) or k == 0:
                p = np.searchsorted(key_states, s)
                if p < key_states.shape[0] and key_states[p] == s:
                    c = key_cycle[p]
                    i = key_index[p]
                    break
                if _distinguished(s, shift):
                    seen += 1
                    if seen > patience:
                        break
            s = _next(s, width, height, mines, mw, mh, mask, occ, order)
            k += 1
        cycle_out[q] = c
        if c < 0:
            tail_out[q] = -1
            continue
        lam = lengths[c]
        t = (i - k) % lam
        lo, hi = mark_start[c], mark_start[c + 1]
        m = lo + np.searchsorted(mark_index[lo:hi], t, side="right") - 1
        b = mark_states[m]
        for _ in range(t - mark_index[m]):
            b = _next(b, width, height, mines, mw, mh, mask, occ, order)
        a = x0
        j = 0
        while a != b:
            a = _next(a, width, height, mines, mw, mh, mask, occ, order)
            b = _next(b, width, height, mines, mw, mh, mask, occ, order)
            j += 1
        tail_out[q] = j


@dataclass
class SeedReport:
    """Where the 65,536 start-up seeds lead on a size whose state space is too large to search."""

    width: int
    height: int
    mines: int
    cycles: list[dict]            # [{"length", "entry", "parity", "seeds"}], most seeds first
    tail_mean: float
    tail_max: int
    tail_histogram: list[int]

    def as_dict(self):
        return dict(self.__dict__)


def seed_map(size: Size, *, seeds=None, dbits: int = 8, progress: Progress | None = None,
             chunk: int = 1024) -> SeedReport:
    """The cycle and tail of every start-up seed (default all 65,536), for any size.

    A lap of the first cycle found records its distinguished states (one in 2**dbits); each seed
    then walks only until it meets one of them. A seed that meets none gets its own walk(),
    which adds its cycle.
    """
    seeds = np.arange(TICK_SEEDS, dtype=np.uint32) if seeds is None else np.asarray(seeds, dtype=np.uint32)
    args = (*size.args(), np.uint32(size.mask))
    cycle_out = np.full(seeds.size, -1, dtype=np.int64)
    tail_out = np.full(seeds.size, -1, dtype=np.int64)
    found: list[WalkReport] = []
    marks: list[tuple[np.ndarray, np.ndarray]] = []

    def add_cycle(w: WalkReport):
        found.append(w)
        marks.append(cycle_marks(np.uint32(w.entry), w.length, dbits, *args))

    def tables():
        key_states = np.concatenate([m[0] for m in marks])
        key_cycle = np.concatenate([np.full(m[0].size, c, dtype=np.int64) for c, m in enumerate(marks)])
        key_index = np.concatenate([m[1] for m in marks])
        o = np.argsort(key_states, kind="stable")
        start = np.cumsum([0] + [m[0].size for m in marks]).astype(np.int64)
        return (key_states[o], key_cycle[o], key_index[o], np.concatenate([m[0] for m in marks]),
                np.concatenate([m[1] for m in marks]), start, np.array([w.length for w in found], dtype=np.int64))

    def assign(idx, patience):
        co, to = np.empty(idx.size, dtype=np.int64), np.empty(idx.size, dtype=np.int64)
        assign_seeds(seeds[idx], *tables(), dbits, patience, co, to, *args)
        cycle_out[idx], tail_out[idx] = co, to

    for lo in range(0, seeds.size, chunk):
        part = np.arange(lo, min(seeds.size, lo + chunk))
        if found:
            assign(part, 8)
        for f in part[cycle_out[part] < 0].tolist():
            # met no known cycle within 8 marks: a cycle found since, a long tail, or a new cycle
            for patience in (8, 1 << 12):
                if found:
                    assign(np.array([f]), patience)
                if cycle_out[f] >= 0:
                    break
            else:
                w = walk(size, int(seeds[f]))
                probe = np.empty(1, dtype=np.int64), np.empty(1, dtype=np.int64)
                if found:  # on a cycle every distinguished state is a mark of it: one is enough to tell
                    assign_seeds(np.array([w.entry], dtype=np.uint32), *tables(), dbits, 1, *probe, *args)
                if not found or probe[0][0] < 0:
                    add_cycle(w)
                assign(np.array([f]), 1 << 20)
        if progress:
            progress(int(part[-1]) + 1, seeds.size)
    counts = np.bincount(cycle_out, minlength=len(found))
    order = np.argsort(-counts, kind="stable")
    cyc = [{"length": found[c].length, "entry": found[c].entry, "parity": found[c].parity, "seeds": int(counts[c])}
           for c in order]
    return SeedReport(size.width, size.height, size.mines, cyc, float(tail_out.mean()), int(tail_out.max()),
                      np.bincount(tail_out).tolist())


@dataclass
class Survey:
    """3BV over a cycle, its dream boards, and the boards a first-click shift can win in one click."""

    boards: int
    bbbv_histogram: dict[int, int]
    bbbv_mean: float
    dream: list[dict]              # [{"index", "state", "bbbv"}], lowest 3BV first
    one_click: int
    one_click_examples: list[dict] = field(default_factory=list)  # [{"index", "state", "click": [x, y]}]

    def as_dict(self):
        return dict(self.__dict__)


def analyse_space(size: Size, *, distinct: bool = True) -> tuple[SpaceReport, dict]:
    """Every cycle of a power-of-two size, with basins and the tails of the 65,536 start-up seeds.

    Returns the report and the arrays behind it (`next`, `cycle`, `tail`) for further study.
    """
    if not size.exhaustive:
        raise InvalidBoardError(f"{size.width}x{size.height}: the whole state space is searched only when width and "
                                "height are powers of two (2**31 states otherwise); use walk() for a cycle from a state")
    nxt = successor_table(size.bits, *size.args())
    cyc, dist, lengths, firsts = functional_graph(nxt)
    basins = np.bincount(cyc, minlength=len(lengths))
    ticks = np.arange(min(TICK_SEEDS, 1 << size.bits))
    seeds = np.bincount(cyc[ticks], minlength=len(lengths))
    order = np.argsort(-lengths, kind="stable")
    cycles, rows = [], []
    for c in order:
        cycle = Cycle(int(lengths[c]), int(firsts[c]), int(firsts[c]) & 1, int(basins[c]), int(seeds[c]))
        if distinct:
            states = walk_states(np.uint32(firsts[c]), int(lengths[c]), *size.args(), np.uint32(size.mask))
            packed = packed_boards(states, *size.args())
            cycle.distinct_boards = int(np.unique(packed, axis=0).shape[0])
            # rand() calls of every board, from the positions of consecutive states on the circle
            pos = _positions(size.bits)[states]
            calls = (np.roll(pos, -1) - pos) % (1 << size.bits)
            total = int(calls.sum())
            assert total % (1 << size.bits) == 0, "a cycle must close on the rand() circle"
            cycle.laps = total >> size.bits
            rows.append(packed)
        cycles.append(cycle)
    total = int(np.unique(np.concatenate(rows), axis=0).shape[0]) if distinct else -1
    tails = dist[ticks]
    report = SpaceReport(size.width, size.height, size.mines, size.bits, cycles, total, float(tails.mean()),
                         int(tails.max()), np.bincount(tails).tolist(), int(dist.max()))
    return report, {"next": nxt, "cycle": cyc, "tail": dist, "order": order}


METHODS = ("distinguished", "brent")


def walk(size: Size, state: int, *, method: str = "distinguished", progress: Progress | None = None,
         chunk: int = 1 << 20) -> WalkReport:
    """The cycle reached from rand() state `state` and the tail before it.

    `brent`: Brent's method, no memory at all, about four laps of boards. `distinguished`
    (default): remember only the states whose hash has 10 leading zero bits (one board in 1024)
    and a ring of the last 65,536 states; a repeat among those gives the cycle length after about
    one lap, and the ring gives the exact tail. Both give the same answer (tests check it).
    """
    if method == "brent":
        return _brent(size, state, progress, chunk)
    if method != "distinguished":
        raise InvalidBoardError(f"unknown cycle-finding method {method!r}; allowed: {', '.join(METHODS)}")
    mask = np.uint32(size.mask)
    x0 = np.uint32(check_state(state) & size.mask)
    args = (*size.args(), mask)
    expect = int((1 << size.bits) / expected_calls(size)) + 1
    ring = np.zeros(1 << 16, dtype=np.uint32)
    ring[0] = x0
    seen = {}                     # distinguished state -> index
    marks = [(0, int(x0))]        # (index, state) of x0 and every distinguished state, in order
    if (int(x0) * 0x9E3779B1 & 0xFFFFFFFF) >> 22 == 0:
        seen[int(x0)] = 0
    s, i = x0, 0
    while True:
        s, i, found = dp_run(s, i, ring, chunk, 10, *args)
        if progress:
            progress(i, max(expect, i))
        if not found:
            continue
        key = int(s)
        if key in seen:
            j = seen[key]
            break
        seen[key] = i
        marks.append((i, key))
    lam = i - j
    # the tail ends in (t, j]: t is the last mark before j, a state before the cycle (or x0)
    t, st = max((m for m in marks if m[0] < j), default=(0, int(x0)))
    run = i
    if j - t < ring.shape[0] - 1:
        mu = int(dp_mu(np.uint32(st), t, j, lam, ring, *args))
        run += j - t
    else:  # a gap longer than the ring (about e**-64 likely): step both from t, lam apart
        hare = advance(np.uint32(st), lam, *args)
        tort, hare, m, done = brent_mu(np.uint32(st), hare, 0, 1 << 62, *args)
        mu = t + int(m)
        run += lam + 2 * int(done)
    entry = int(advance(np.uint32(st), mu - t, *args))
    if progress:
        progress(run, run)
    return WalkReport(size.width, size.height, size.mines, size.bits, int(x0), int(mu), int(lam), entry,
                      entry & 1, int(run))


def _brent(size, state, progress, chunk) -> WalkReport:
    """Brent's method: a tortoise that jumps to the hare at every power of two; no memory per board."""
    mask = np.uint32(size.mask)
    x0 = np.uint32(check_state(state) & size.mask)
    args = (*size.args(), mask)
    # about four laps of the state circle: a guess for the progress bar only
    expect = int(4 * (1 << size.bits) / expected_calls(size)) + 1
    power, lam = 1, 1
    tortoise, hare = x0, advance(x0, 1, *args)
    run = 1
    while tortoise != hare:
        power, lam, tortoise, hare, done = brent_lambda(power, lam, tortoise, hare, chunk, *args)
        run += done
        if progress:
            progress(run, max(expect, run))
    # second phase: the hare lam boards ahead of the tortoise, both from x0, until they meet
    tortoise, hare = x0, x0
    left = lam
    while left:
        step = min(left, chunk)
        hare = advance(hare, step, *args)
        left -= step
        run += step
        if progress:
            progress(run, max(expect, run))
    mu = 0
    while tortoise != hare:
        tortoise, hare, mu, done = brent_mu(tortoise, hare, mu, chunk, *args)
        run += 2 * done
        if progress:
            progress(run, max(expect, run))
    if progress:
        progress(run, run)
    return WalkReport(size.width, size.height, size.mines, size.bits, int(x0), int(mu), int(lam), int(tortoise),
                      int(tortoise) & 1, int(run))


def expected_calls(size: Size) -> float:
    """Mean rand() calls per board: two per draw, and draws until each mine finds a free cell."""
    n = size.width * size.height
    return 2.0 * sum(n / (n - k) for k in range(size.mines))


def survey(size: Size, start: int, length: int, *, keep: int = 5, progress: Progress | None = None,
           chunk: int = 1 << 16) -> Survey:
    """3BV histogram, lowest-3BV boards and one-click shift wins over `length` boards from `start`."""
    mask = np.uint32(size.mask)
    hist = np.zeros(size.width * size.height + 1, dtype=np.int64)
    best_b = np.full(keep, 1 << 30, dtype=np.int64)
    best_i = np.full(keep, -1, dtype=np.int64)
    best_s = np.zeros(keep, dtype=np.uint32)
    oc_i = np.full(16, -1, dtype=np.int64)
    oc_c = np.full(16, -1, dtype=np.int64)
    n_oc = 0
    s = np.uint32(start & size.mask)
    done = 0
    nbr = size.nbr()
    while done < length:
        step = min(chunk, length - done)
        s, n_oc = survey_chunk(s, step, *size.args(), mask, nbr, hist, best_b, best_i, best_s, done, oc_i, oc_c, n_oc)
        done += step
        if progress:
            progress(done, length)
    values = np.nonzero(hist)[0]
    dream = [{"index": int(best_i[k]), "state": int(best_s[k]), "bbbv": int(best_b[k])}
             for k in range(keep) if best_i[k] >= 0]
    examples = []
    for k in range(min(n_oc, oc_i.shape[0])):
        i = int(oc_i[k])
        st = int(walk_states(np.uint32(start & size.mask), i + 1, *size.args(), mask)[i])
        c = int(oc_c[k])
        examples.append({"index": i, "state": st, "click": [c % size.width, c // size.width]})
    return Survey(int(length), {int(v): int(hist[v]) for v in values},
                  float((hist * np.arange(hist.size)).sum() / max(1, hist.sum())), dream, int(n_oc), examples)


def board_at(size: Size, state: int) -> Board:
    return winmine_board(int(state) & 0xFFFFFFFF, size.width, size.height, size.mines)[0]


# --- the phenomena ---------------------------------------------------------------------------------

@dataclass
class Panel:
    """One board of a figure: a title, the board, and cells to outline, by colour."""

    title: str
    board: Board
    marks: dict[str, np.ndarray] = field(default_factory=dict)


def _mask(size_w, size_h, cells) -> np.ndarray:
    m = np.zeros(size_w * size_h, dtype=np.bool_)
    m[list(cells)] = True
    return m.reshape(size_h, size_w)


def stream_sources(size: Size, state: int, spans: list[tuple[int, str]], first_offset: int = 0):
    """For the board laid from `state`, which named span of the rand() stream placed each mine.

    `spans` are (calls from the reference point where the span ends, name); the board itself
    starts `first_offset` calls after that reference point.
    """
    order, offsets, calls, _ = trace_winmine(np.uint32(state), size.width, size.height, size.mines)
    out = {}
    for cell, off in zip(order.tolist(), offsets.tolist()):
        at = first_offset + off
        name = next((nm for end, nm in spans if at < end), spans[-1][1])
        out.setdefault(name, []).append(cell)
    return out, int(calls)


def parity_demo(size: Size) -> tuple[dict, list[Panel]]:
    """Two cycles, and why: the low state bit flips at every rand() call; a board makes an even
    number of calls, so the low bit at the start of every board never changes."""
    report, _ = analyse_space(size, distinct=False)
    rows = []
    panels = []
    for c in report.cycles:
        st = c.start
        _, _, calls, _ = trace_winmine(np.uint32(st), size.width, size.height, size.mines)
        rows.append({"length": c.length, "parity": c.parity, "basin": c.basin, "first_state": st,
                     "first_board_calls": int(calls)})
        panels.append(Panel(f"cycle of {c.length:,}: state {st} ({'odd' if c.parity else 'even'})", board_at(size, st)))
    low_bits = [(st * 214013 + 2531011) & 1 for st in (0, 1)]
    return {"cycles": rows, "low_bit_after_one_call": {"from_even": low_bits[0], "from_odd": low_bits[1]},
            "calls_always_even": True}, panels


def convergence_demo(size: Size, tick: int, *, limit: int = 6) -> tuple[dict, list[Panel]]:
    """The first boards after start-up from `tick`: each is a blend of two consecutive cycle boards."""
    report, arrays = analyse_space(size, distinct=False)
    bits, mask = size.bits, size.mask
    x = check_state(tick) & mask
    tail = int(arrays["tail"][x])
    cyc = int(arrays["cycle"][x])
    c_len = int(np.bincount(arrays["cycle"][arrays["tail"] == 0])[cyc])
    entry = int(advance(np.uint32(x), tail, *size.args(), np.uint32(mask)))
    # positions of the cycle's board starts on the state circle (the full-period LCG mod 2**bits)
    states = walk_states(np.uint32(entry), c_len, *size.args(), np.uint32(mask))
    pos = _positions(bits)[states]
    order = np.argsort(pos)
    spos = pos[order]
    rows, panels = [], []
    s = x
    for i in range(min(tail, limit)):
        p = int(_positions(bits)[s])
        k = int(np.searchsorted(spos, p, side="right") - 1)  # the cycle board whose span holds p
        a, b = int(order[k % c_len]), int(order[(k + 1) % c_len])
        qa, qb = int(spos[k % c_len]), int(spos[(k + 1) % c_len])
        off_b = (qb - p) % (1 << bits)
        board_a = board_at(size, states[a])
        board_b = board_at(size, states[b])
        src, calls = stream_sources(size, s, [(off_b, "first"), (1 << 40, "second")])
        mine = board_at(size, s)
        from_a = [c for c in src.get("first", []) if board_a.flat_mines[c]]
        from_b = [c for c in src.get("second", []) if board_b.flat_mines[c]]
        # number cycle boards from the one where the sequence locks in (0), earlier ones negative
        a = a - c_len if a > c_len // 2 else a
        b = b - c_len if b > c_len // 2 else b
        rows.append({"board": i + 1, "state": s, "between_cycle_boards": [a, b], "offset_into_first": (p - qa) % (1 << bits),
                     "mines_from_first": len(from_a), "mines_from_second": len(from_b),
                     "other_mines": size.mines - len(from_a) - len(from_b)})
        panels.append(Panel(f"start-up board {i + 1}", mine,
                            {"#0060ff": _mask(size.width, size.height, from_a),
                             "#ff8000": _mask(size.width, size.height, from_b)}))
        if i < 2:
            panels.append(Panel(f"cycle board {a}", board_a, {"#0060ff": _mask(size.width, size.height, from_a)}))
            panels.append(Panel(f"cycle board {b}", board_b, {"#ff8000": _mask(size.width, size.height, from_b)}))
        s = int(advance(np.uint32(s), 1, *size.args(), np.uint32(mask)))
    return {"tick": tick, "tail": tail, "cycle_length": c_len, "entry_state": entry, "boards": rows}, panels


_POSITIONS: dict[int, np.ndarray] = {}


@nb.njit(cache=True)
def _position_table(bits):
    n = 1 << bits
    out = np.empty(n, dtype=np.int64)
    s = np.uint32(0)
    mask = np.uint32(n - 1)
    for i in range(n):
        out[s & mask] = i
        s = np.uint32(s * np.uint32(214013) + np.uint32(2531011))
    return out


def _positions(bits: int) -> np.ndarray:
    if bits not in _POSITIONS:
        _POSITIONS[bits] = _position_table(bits)
    return _POSITIONS[bits]


def order_demo(size: Size, state: int, mines: int) -> tuple[dict, list[Panel]]:
    """Mines come in a fixed order: from `state`, a custom board with `mines` mines takes the first
    mines of the board that would have come, and the next full board takes its leftover mines and
    then the first mines of the board after it."""
    s0 = check_state(state)
    full = board_at(size, s0)
    _, _, calls_full, s1 = trace_winmine(np.uint32(s0), size.width, size.height, size.mines)
    custom, s_c = winmine_board(s0, size.width, size.height, mines)
    _, _, calls_c, _ = trace_winmine(np.uint32(s0), size.width, size.height, mines)
    following = board_at(size, s_c)
    after = board_at(size, int(s1))
    src, _ = stream_sources(size, s_c, [(calls_full, "leftover"), (1 << 40, "next")], first_offset=int(calls_c))
    left = [c for c in src.get("leftover", []) if full.flat_mines[c]]
    nxt = [c for c in src.get("next", []) if after.flat_mines[c]]
    first_k = set(np.flatnonzero(custom.flat_mines).tolist()) <= set(np.flatnonzero(full.flat_mines).tolist())
    w, h = size.width, size.height
    panels = [Panel("the board that would have come", full, {"#0060ff": custom.mines}),
              Panel(f"custom, {mines} mines", custom, {"#0060ff": custom.mines}),
              Panel("the next full board", following, {"#ff00ff": _mask(w, h, left), "#ff8000": _mask(w, h, nxt)}),
              Panel("the board after that one", after, {"#ff8000": _mask(w, h, nxt)})]
    return {"state": s0, "custom_mines": mines, "custom_is_first_mines": bool(first_k),
            "next_full_board": {"leftover_mines": len(left), "first_mines_of_next": len(nxt),
                                "other": size.mines - len(left) - len(nxt)}}, panels


def quadrant_demo(state: int, big: Size = Size(16, 16, 40), small: Size = Size(8, 8, 10)) -> tuple[dict, list[Panel]]:
    """From one state, the 8x8 board's mines are the 16x16 stream's draws with x and y taken mod 8."""
    s0 = check_state(state)
    b_big = board_at(big, s0)
    b_small = board_at(small, s0)
    # the big board's draw stream, folded: the small board takes the first distinct folded draws
    from .msvc import rand_many
    draws, _ = rand_many(np.uint32(s0), 4 * small.width * small.height)
    folded, seen, used = [], set(), []
    for k in range(0, draws.size, 2):
        x, y = int(draws[k]) % big.width, int(draws[k + 1]) % big.height
        fx, fy = x % small.width, y % small.height
        if (fx, fy) not in seen:
            seen.add((fx, fy))
            folded.append(fy * small.width + fx)
            used.append(y * big.width + x)
        if len(folded) == small.mines:
            break
    matches = sorted(folded) == sorted(np.flatnonzero(b_small.flat_mines).tolist())
    placed_big = [c for c in used if b_big.flat_mines[c]]
    stacked = b_big.mines.reshape(big.height // small.height, small.height, big.width // small.width,
                                  small.width).sum(axis=(0, 2))
    panels = [Panel("16x16 board from the state", b_big, {"#ff8000": _mask(big.width, big.height, used)}),
              Panel("8x8 board from the same state", b_small, {"#ff8000": b_small.mines})]
    return {"state": s0, "small_equals_folded_draws": bool(matches),
            "small_mines_that_fold_a_big_mine": len(placed_big),
            "stacked_big_mines": stacked.tolist()}, panels


def shift_demo(version_name: str, level, state: int, games: int = 20) -> tuple[dict, list[Panel]]:
    """The first-click shift moves a mine but leaves the rand() state alone: the next boards are the same.

    `level` is (width, height, mines), already checked against the version's limits."""
    from .generators.winmine import WinMineSession
    from .presets import Level
    a = WinMineSession(version_name, state=state)
    b = WinMineSession(version_name, state=state)
    a.level = b.level = Level(*level)
    shifts, same, panels = 0, 0, []
    for g in range(games):
        game = a.new_game()
        laid = game.laid
        x, y = laid.mine_positions()[0]  # click the first mine: always a shift
        game.open(x, y)
        shifted = game.board
        if shifted != laid:
            shifts += 1
        same += int(b.next_board() == laid)
        if g == 0:
            t = shift_target(laid)
            panels.append(Panel("board as laid, first click on a mine", laid, {"#ff0000": _mask(laid.width, laid.height, [y * laid.width + x])}))
            panels.append(Panel("after the shift", shifted, {"#ff00ff": _mask(laid.width, laid.height, [t[1] * laid.width + t[0]])}))
    nxt_a, nxt_b = a.next_board(), b.next_board()
    panels.append(Panel(f"board {games + 1}, with shifts", nxt_a))
    panels.append(Panel(f"board {games + 1}, without", nxt_b))
    return {"games": games, "shifts": shifts, "laid_boards_equal": same, "next_board_equal": nxt_a == nxt_b,
            "state_after_equal": a.state == b.state}, panels


# --- drawing -----------------------------------------------------------------------------------------

def panels_svg(panels: list[Panel], *, cell: int = 16, columns: int = 4) -> str:
    """One SVG of several boards side by side, titled, with coloured outlines (Board.to_svg inside)."""
    if not panels:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
    pw = max(max(p.board.width for p in panels) * cell + 16, 220)  # room for the titles
    ph = max(p.board.height for p in panels) * cell + 30
    cols = min(columns, len(panels))
    rows = (len(panels) + cols - 1) // cols
    W, H = cols * pw, rows * ph
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="Tahoma, Verdana, sans-serif">', f'<rect width="{W}" height="{H}" fill="#ffffff"/>']
    for k, p in enumerate(panels):
        x0, y0 = (k % cols) * pw + 8, (k // cols) * ph + 22
        out.append(f'<text x="{x0}" y="{y0 - 7}" font-size="11">{_esc(p.title)}</text>')
        colours = list(p.marks.items())
        first = colours[0][1] if colours else None
        inner = p.board.to_svg(cell=cell, highlight=first)
        if colours:
            inner = inner.replace('stroke="#ff00ff"', f'stroke="{colours[0][0]}"')
        extra = []
        for colour, mask in colours[1:]:
            ys, xs = np.nonzero(mask)
            for y, x in zip(ys.tolist(), xs.tolist()):
                extra.append(f'<rect x="{x * cell + 1}" y="{y * cell + 1}" width="{cell - 2}" height="{cell - 2}" '
                             f'fill="none" stroke="{colour}" stroke-width="2"/>')
        inner = inner.replace("</svg>", "".join(extra) + "</svg>")
        out.append(inner.replace("<svg ", f'<svg x="{x0}" y="{y0}" ', 1))
    out.append("</svg>")
    return "".join(out)


def panels_png(panels: list[Panel], path: str, *, columns: int = 4) -> None:
    """The same figure as panels_svg, drawn with matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from .svg import NUMBER_COLOURS
    cols = min(columns, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.0 * rows), squeeze=False)
    for ax in axes.ravel():
        ax.axis("off")
    for k, p in enumerate(panels):
        ax = axes[k // cols][k % cols]
        b = p.board
        ax.set_xlim(0, b.width)
        ax.set_ylim(b.height, 0)
        ax.set_aspect("equal")
        ax.add_patch(plt.Rectangle((0, 0), b.width, b.height, color="#c0c0c0"))
        for y in range(b.height):
            for x in range(b.width):
                if b.mines[y, x]:
                    ax.add_patch(plt.Circle((x + 0.5, y + 0.5), 0.28, color="black"))
                elif b.numbers[y, x]:
                    ax.text(x + 0.5, y + 0.55, str(b.numbers[y, x]), ha="center", va="center",
                            fontsize=6, color=NUMBER_COLOURS[b.numbers[y, x]], weight="bold")
        for colour, mask in p.marks.items():
            ys, xs = np.nonzero(mask)
            for y, x in zip(ys.tolist(), xs.tolist()):
                ax.add_patch(plt.Rectangle((x + 0.05, y + 0.05), 0.9, 0.9, fill=False, edgecolor=colour, lw=1.5))
        ax.set_title(p.title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
