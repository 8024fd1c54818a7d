"""The board-cycle laboratory: every cycle, basin and tail of WinMine's board-to-board map.

WinMine never reseeds, so "the state at the start of a board" determines every board after
it: the map  state -> state after laying one board  is a function on a finite set, and its
iterates must fall into cycles. rand() % 2**j sees only the low 16 + j bits of the state, so
when width and height are powers of two (8x8, 16x16) the map lives on 2**(16+k) states and is
analysed exhaustively; otherwise bit 31 is the only bit that never matters and the map lives
on 2**31 states, where the cycle reached from one state is found by Brent's method, which
keeps no memory per board.

Surveys over a cycle and the demos of its phenomena are in `lab/cycles.py`, their figures in
`figures.py`. Everything here starts from a rand() state and runs forward. Nothing takes a board seen in a
real game and tells where in its cycle it is (see docs/board-cycles.md, "Ethics").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import grid
from ._numba_cache import njit
from .board import Board
from .errors import InvalidBoardError
from .generators.winmine import TICK_SEEDS, draw_board, winmine_board
from .msvc import check_state, divisor_magic

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

@njit(inline="always")
def _next(state, width, height, mines, mw, mh, mask, occ, order):
    s = draw_board(state, width, height, mines, mw, mh, occ, order)
    for k in range(mines):
        occ[order[k]] = False
    return np.uint32(s & mask)


@njit
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


@njit
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


@njit
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


@njit
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


@njit
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


@njit
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


@njit
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


@njit
def advance(state, count, width, height, mines, mw, mh, mask):
    """The reduced state `count` boards after `state`."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    s = np.uint32(state & mask)
    for _ in range(count):
        s = _next(s, width, height, mines, mw, mh, mask, occ, order)
    return s


@njit
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


@njit(inline="always")
def _distinguished(s, shift):
    return np.uint32(s * np.uint32(0x9E3779B1)) >> shift == 0


@njit
def marks_between(state, start, stop, dbits, width, height, mines, mw, mh, mask):
    """The distinguished states at indices start..stop-1 of a walk whose state at index start - 1 is
    `state`, with their indices, and the state at index stop - 1 (where the next call goes on)."""
    occ = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    shift = np.uint32(32 - dbits)
    states = [np.uint32(0)]  # (typed by a first item, taken out again)
    index = [np.int64(0)]
    states.pop()
    index.pop()
    s = np.uint32(state)
    for i in range(start, stop):
        s = _next(s, width, height, mines, mw, mh, mask, occ, order)
        if _distinguished(s, shift):
            states.append(s)
            index.append(np.int64(i))
    return np.array(states, dtype=np.uint32), np.array(index, dtype=np.int64), s


def cycle_marks(entry, length, dbits, args, progress: Progress | None = None,
                chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """The marks of a cycle: its index-0 state and every distinguished state, with their indices; a
    lap of the cycle in chunks, so that `progress` (boards done, the lap's length) moves."""
    states, index = [np.array([entry], dtype=np.uint32)], [np.zeros(1, dtype=np.int64)]
    s = np.uint32(entry)
    for lo in range(1, length, chunk):
        hi = min(length, lo + chunk)
        st, ix, s = marks_between(s, lo, hi, dbits, *args)
        states.append(st)
        index.append(ix)
        if progress:
            progress(hi, length)
    return np.concatenate(states), np.concatenate(index)


@njit
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
             chunk: int = 1024, stage: Callable[[str], None] | None = None) -> SeedReport:
    """The cycle and tail of every start-up seed (default all 65,536), for any size.

    A lap of the first cycle found records its distinguished states (one in 2**dbits); each seed
    then walks only until it meets one of them. A seed that meets none gets its own walk(),
    which adds its cycle. `progress` gets (done, total) in seeds; while a cycle is found and while
    its lap is marked (most of the time on large sizes) it gets boards instead, `stage` saying which
    ("finding a cycle", "marking the cycle", "start-up seeds").
    """
    def say(what: str) -> None:
        if stage:
            stage(what)

    seeds = np.arange(TICK_SEEDS, dtype=np.uint32) if seeds is None else np.asarray(seeds, dtype=np.uint32)
    args = (*size.args(), np.uint32(size.mask))
    cycle_out = np.full(seeds.size, -1, dtype=np.int64)
    tail_out = np.full(seeds.size, -1, dtype=np.int64)
    found: list[WalkReport] = []
    marks: list[tuple[np.ndarray, np.ndarray]] = []

    def add_cycle(w: WalkReport):
        found.append(w)
        say("marking the cycle")
        marks.append(cycle_marks(np.uint32(w.entry), w.length, dbits, args, progress))
        say("start-up seeds")

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
                say("finding a cycle")
                w = walk(size, int(seeds[f]), progress=progress)
                say("start-up seeds")
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
            pos = circle_positions(size.bits)[states]
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


_CIRCLE_POSITIONS: dict[int, np.ndarray] = {}


@njit
def _position_table(bits):
    n = 1 << bits
    out = np.empty(n, dtype=np.int64)
    s = np.uint32(0)
    mask = np.uint32(n - 1)
    for i in range(n):
        out[s & mask] = i
        s = np.uint32(s * np.uint32(214013) + np.uint32(2531011))
    return out


def circle_positions(bits: int) -> np.ndarray:
    """For each of the 2**bits low-bit states, how many rand() calls after state 0 it comes."""
    if bits not in _CIRCLE_POSITIONS:
        _CIRCLE_POSITIONS[bits] = _position_table(bits)
    return _CIRCLE_POSITIONS[bits]


def board_at(size: Size, state: int) -> Board:
    return winmine_board(int(state) & 0xFFFFFFFF, size.width, size.height, size.mines)[0]
