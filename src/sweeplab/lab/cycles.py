"""The board-cycle lab: surveys of a cycle (3BV, dream boards, one-click wins) and the demos of
WinMine's phenomena (parity, convergence, mine order, quadrants, the first-click shift) drawn
as figures. The cycle algorithms themselves are in `sweeplab.cycles`.

The algorithms and figures that `sweeplab cycles` uses are imported here too, so that the
command reaches the whole lab through this one module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._numba_cache import njit
from ..cycles import (  # noqa: F401 (the CLI's)
    METHODS,
    Progress,
    Size,
    advance,
    analyse_space,
    board_at,
    circle_positions,
    expected_calls,
    seed_map,
    walk,
    walk_states,
)
from ..figures import Panel, panels_png, panels_svg  # noqa: F401 (the CLI's)
from ..generators.winmine import draw_board, shift_target, trace_winmine, winmine_board
from ..kernels import count_numbers
from ..msvc import check_state
from ..stats import bbbv_kernel


@njit
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


@njit
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


# --- the phenomena ---------------------------------------------------------------------------------

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
    out: dict = {}
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
    pos = circle_positions(bits)[states]
    order = np.argsort(pos)
    spos = pos[order]
    rows, panels = [], []
    s = x
    for i in range(min(tail, limit)):
        p = int(circle_positions(bits)[s])
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
    from ..msvc import rand_many
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
    from ..game import Game
    from ..generators.winmine import WinMineSession
    from ..presets import Level
    a = WinMineSession(version_name, state=state)
    b = WinMineSession(version_name, state=state)
    a.level = b.level = Level(*level)
    shifts, same, panels = 0, 0, []
    for g in range(games):
        game = Game(rule=a.next_rule())
        laid = game.laid
        assert laid is not None  # WinMine lays its board before the first click
        x, y = laid.mine_positions()[0]  # click the first mine: always a shift
        game.open(x, y)
        shifted = game.board
        assert shifted is not None
        if shifted != laid:
            shifts += 1
        same += int(b.next_board() == laid)
        if g == 0:
            t = shift_target(laid)
            assert t is not None  # a board with a mine under the click has a free cell to shift it to
            w, h = laid.width, laid.height
            panels.append(Panel("board as laid, first click on a mine", laid, {"#ff0000": _mask(w, h, [y * w + x])}))
            panels.append(Panel("after the shift", shifted, {"#ff00ff": _mask(w, h, [t[1] * w + t[0]])}))
    nxt_a, nxt_b = a.next_board(), b.next_board()
    panels.append(Panel(f"board {games + 1}, with shifts", nxt_a))
    panels.append(Panel(f"board {games + 1}, without", nxt_b))
    return {"games": games, "shifts": shifts, "laid_boards_equal": same, "next_board_equal": nxt_a == nxt_b,
            "state_after_equal": a.state == b.state}, panels
