"""The no-guess chain's mixing study: how many moves forget the start, at every size, density and click.

    python benchmarks/bench_noguess_mixing.py --dir mixing          # the grid (hours; resumable)
    python benchmarks/bench_noguess_mixing.py --dir mixing --quick  # four points

For each point (size, mines, first click) `--chains` chains start from each of two very different
starts (the plain insertion: too few mines on the rim; the repair: too many in the corners, and
too few boards that need the mine total) and run for 8 units of the study's clock (a unit: mines x
(free / (free - mines)) ** 3 moves, about the moves in which each mine is moved once), the
boards' figures recorded every eighth of a unit: 3BV, openings, the mines on the rim, in the
corners' 3x3s, in the ring round the click's block and in the half of the board farthest from
the click, and whether the board needs the mine total. Two chains of each start run on to 48
units. Printed per point (moves are proposed moves):

- acc: the share of moves kept (the long chains);
- tau_int: the largest integrated autocorrelation time of the figures, in moves (the long chains
  past 16 units; autocorrelation averaged over the chains, Sokal's window with c = 5);
- bias0: the largest bias of a start's boards, in standard deviations of the figure across
  boards (the stationary ones: past 6 units, and the long chains past 16), with the start and
  the figure;
- tau_burn: the slowest decay of such a bias, in moves: until it falls to 1/e of bias0, over the
  figures whose bias0 is at least 5 standard errors (of the start's mean over its chains);
- need: the burn-in that leaves at most 0.01 standard deviation of bias: tau_burn x ln(bias0 /
  0.01); where no start's bias reaches 5 standard errors, (tau_int / 2) x ln(5 se / 0.01), as if
  a bias at the edge of detection decayed at the slowest pace the stationary chains show;
- rule: the rule's moves (`noguess.chain_moves`), and rule / need, its margin;
- nR-hat: the nested R-hat (Margossian et al. 2022) at the rule's length, the two starts as the
  superchains, over the records of its last unit; an exact sampler scores about
  1 + 1 / (2 chains);
- |z|: the largest bias left at the rule's length, of either start and any figure, in standard
  errors (an exact sampler: the largest of 14 standard normals, about 2.5).

Last, for each power p of the rule's form BURN_IN x mines x (free / (free - mines)) ** p, the
least BURN_IN that meets every point's need, and the moves the grid's boards would cost.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from sweeplab import grid
from sweeplab._numba_cache import njit
from sweeplab.generators import noguess as G
from sweeplab.generators.certify import position, settle, tried_uses_total, workspace
from sweeplab.rng import stream_key
from sweeplab.stats import openings_and_bbbv

FIGURES = ("3BV", "openings", "rim", "corners", "click ring", "far half", "needs total")
SIZES = ((9, 9), (16, 16), (30, 16), (30, 24))
DENSITIES = (0.2, 0.3, 0.4, 0.5, 0.6)  # of the free cells (outside the click's block)
RECORDS_PER_UNIT = 8
BURN_UNITS = 8
LONG_UNITS = 48
LONG_CHAINS = 2  # per start
TOLERANCE = 0.01  # of a figure's standard deviation: the bias a burn-in may leave
POWERS = (2.0, 2.5, 3.0, 3.5, 4.0, 5.0)


def unit(free: int, mines: int) -> float:
    """The study's clock, in moves (independent of the rule's constants)."""
    return mines * (free / (free - mines)) ** 3


def clicks(w: int, h: int) -> dict[str, tuple[int, int]]:
    return {"centre": (w // 2, h // 2), "edge": (w // 2, 0), "corner": (0, 0)}


def regions(w: int, h: int, x: int, y: int) -> np.ndarray:
    """Per cell, the regions it counts in, as bits: rim, corners' 3x3s, ring round the click's
    block, the half of the board farthest from the click."""
    col, row = np.arange(w * h) % w, np.arange(w * h) // w
    kx, ky = np.minimum(col, w - 1 - col), np.minimum(row, h - 1 - row)
    far = np.maximum(abs(col - x), abs(row - y))
    bits = (np.minimum(kx, ky) == 0) * 1 + (np.maximum(kx, ky) <= 2) * 2 + (far == 2) * 4
    return (bits + (far > np.median(far)) * 8).astype(np.int64)


@njit
def record(p, excluded, state, records, every, region, judge_room, out):
    """Run the chain `records - 1` times `every` moves, recording the figures of each board (the
    first too) in out[r]. Returns (state, moves kept, position)."""
    kept = 0
    for r in range(records):
        if r > 0:
            state, a, p = G._chain(p, excluded, state, every)
            kept += a
        openings, bbbv = openings_and_bbbv(p.mines, p.numbers, p.nbr)
        out[r, 0] = bbbv
        out[r, 1] = openings
        for g in range(4):
            out[r, 2 + g] = 0
        for i in range(p.mines.shape[0]):
            if p.mines[i]:
                for g in range(4):
                    if region[i] & (1 << g):
                        out[r, 2 + g] += 1
        q = position(p.mines.copy(), p.nbr, p.click, p.budget, judge_room)
        settle(q)  # a fresh play of the board (it certifies): does it need the total?
        out[r, 6] = 1.0 if tried_uses_total(q) else 0.0
    return state, kept, p


def run_point(w, h, mines, x, y, chains, seed) -> dict:
    """The records of one point: `burn` [start, chain, record, figure] from each start to
    BURN_UNITS units, `long` [chain, record, figure] from there on to LONG_UNITS, and the long
    chains' share of moves kept."""
    level = G._Level(w, h, mines, x, y, "bounded", G.DEFAULT_LEAF_BUDGET)
    every = max(1, int(round(unit(level.free, mines) / RECORDS_PER_UNIT)))
    n_burn = BURN_UNITS * RECORDS_PER_UNIT + 1
    n_long = (LONG_UNITS - BURN_UNITS) * RECORDS_PER_UNIT
    region = regions(w, h, x, y)
    judge = workspace(w, h)
    burn = np.zeros((2, chains, n_burn, len(FIGURES)))
    long = np.zeros((2 * LONG_CHAINS, n_long + 1, len(FIGURES)))
    kept = 0
    for s, how in enumerate(G.STARTS):
        for c in range(chains):
            key = stream_key(seed, 2 * c + s)
            for attempt in range(10):  # (at the densest points a repair can run out of moves)
                p, state, ok, _, got = G._begin(level, np.uint64(stream_key(key, attempt)), G.DEFAULT_TRIES, how,
                                                insert_tries=1000 * mines)
                if ok and got == how:
                    break
            else:
                raise RuntimeError(f"no start at {w}x{h}/{mines} from ({x}, {y})")
            state, _, p = record(p, level.excluded, np.uint64(stream_key(key, 10)), n_burn, every, region, judge,
                                 burn[s, c])
            if c < LONG_CHAINS:
                state, k, p = record(p, level.excluded, np.uint64(state), n_long + 1, every, region, judge,
                                     long[s * LONG_CHAINS + c])
                kept += k
    return {"burn": burn, "long": long[:, 1:], "every": every, "free": level.free, "mines": mines,
            "acc": kept / (2 * LONG_CHAINS * n_long * every)}


def integrated_time(x: np.ndarray, c: float = 5.0) -> float:
    """Integrated autocorrelation time of chains x [chain, step] (in steps): the autocorrelation
    averaged over the chains, summed up to Sokal's window (the least M with M >= c tau(M))."""
    x = x - x.mean(axis=1, keepdims=True)
    n = x.shape[1]
    f = np.fft.rfft(x, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:, :n].mean(axis=0)
    if acf[0] <= 0:
        return float("nan")
    taus = 2 * np.cumsum(acf / acf[0]) - 1
    window = np.flatnonzero(np.arange(n) >= c * taus)
    return float(taus[window[0]] if window.size else taus[-1])


def nested_r_hat(x: np.ndarray) -> float:
    """Nested R-hat of draws x [superchain, chain, draw]: sqrt(1 + B / W), B the variance of the
    superchains' means, W the mean within a superchain of the variance of its chains' means plus
    their mean variance within a chain."""
    chain_means = x.mean(axis=2)
    between = chain_means.mean(axis=1).var(ddof=1)
    within = chain_means.var(axis=1, ddof=1) + (x.var(axis=2, ddof=1).mean(axis=1) if x.shape[2] > 1 else 0)
    w = within.mean()
    return float(math.sqrt(1 + between / w)) if w > 0 else float("nan")


def analyse(d: dict) -> dict:
    """The table's figures for one point's records (moves throughout)."""
    burn, long, every = d["burn"], d["long"], int(d["every"])
    free, mines = int(d["free"]), int(d["mines"])
    chains = burn.shape[1]
    stationary = long[:, (16 - BURN_UNITS) * RECORDS_PER_UNIT:]
    late = np.concatenate([burn[:, :, 6 * RECORDS_PER_UNIT:].reshape(-1, burn.shape[3]),
                           stationary.reshape(-1, burn.shape[3])])
    mu, sd = late.mean(axis=0), late.std(axis=0)
    live = [f for f in range(len(FIGURES)) if sd[f] > 0]
    out = {"acc": float(d["acc"]), "unit": unit(free, mines), "rule": G.chain_moves(free, mines),
           "tau_int": (0.0, ""), "bias0": (0.0, "", ""), "tau_burn": (0.0, ""), "free": free, "mines": mines}
    for f in live:
        t = integrated_time(stationary[:, :, f]) * every
        if t > out["tau_int"][0]:
            out["tau_int"] = (t, FIGURES[f])
    se = 1 / math.sqrt(chains)
    need = 0.0
    for s, how in enumerate(G.STARTS):
        for f in live:
            bias = (burn[s, :, :, f].mean(axis=0) - mu[f]) / sd[f]
            if abs(bias[0]) > abs(out["bias0"][0]):
                out["bias0"] = (float(bias[0]), how, FIGURES[f])
            if abs(bias[0]) < 5 * se:
                continue
            smooth = np.convolve(abs(bias), np.ones(3) / 3, mode="same")
            smooth[0] = abs(bias[0])
            below = np.flatnonzero(smooth < abs(bias[0]) / math.e)
            t = below[0] * every if below.size else burn.shape[2] * every
            need = max(need, t * math.log(abs(bias[0]) / TOLERANCE))
            if t > out["tau_burn"][0]:
                out["tau_burn"] = (t, f"{how} {FIGURES[f]}")
    if need == 0:  # no start's bias is measurable: one at the edge of detection, decaying as slowly as any figure
        need = out["tau_int"][0] / 2 * math.log(5 * se / TOLERANCE)
    out["need"] = need
    stop = int(round(out["rule"] / every))
    if stop < burn.shape[2]:
        window = burn[:, :, max(0, stop - RECORDS_PER_UNIT):stop + 1]
        out["nr_hat"] = max(nested_r_hat(window[:, :, :, f]) for f in live)
        out["z"] = max(abs(burn[s, :, stop, f].mean() - mu[f]) / (sd[f] * se) for s in range(2) for f in live)
    else:
        out["nr_hat"] = out["z"] = float("nan")
    return out


def points(quick: bool):
    if quick:
        yield from ((9, 9, 0.4, "corner"), (16, 16, 0.3, "edge"), (30, 16, 0.35, "centre"), (30, 24, 0.3, "centre"))
        return
    for w, h in SIZES:
        for share in DENSITIES:
            for name in clicks(w, h):
                yield w, h, share, name


def least_burn_in(results: list[dict]) -> list[tuple[float, float, int]]:
    """For each power p: the least BURN_IN whose rule meets every point's need, and the moves the
    points' boards would then cost together."""
    out = []
    for p in POWERS:
        shape = [r["mines"] * (r["free"] / (r["free"] - r["mines"])) ** p for r in results]
        burn = max(r["need"] / s for r, s in zip(results, shape))
        out.append((p, burn, int(sum(burn * s for s in shape))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="folder for each point's records (a rerun reads them back)")
    ap.add_argument("--chains", type=int, default=64, help="chains from each start")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="four points only")
    ap.add_argument("--part", default="0/1", help="K/N: run only every N-th point from the K-th (the others' rows "
                    "are shown if their records are in --dir already); N processes fill the folder together")
    a = ap.parse_args()
    part, parts = (int(v) for v in a.part.split("/"))
    os.makedirs(a.dir, exist_ok=True)
    print(f"rule: chain_moves = {G.BURN_IN} x mines x (free / (free - mines)) ** {G.RELAXATION_POWER}; "
          f"{a.chains} chains from each start; tolerance {TOLERANCE} sd; moves are proposed moves")
    print(f"{'level':>10} {'click':>6} {'density':>7} {'acc':>5} {'tau_int':>19} {'bias0':>26} {'tau_burn':>25} "
          f"{'need':>6} {'rule':>6} {'margin':>6} {'nR-hat':>6} {'|z|':>5} {'cpu s':>5}")
    results = []
    for index, (w, h, share, name) in enumerate(points(a.quick)):
        x, y = clicks(w, h)[name]
        free = w * h - int(grid.block_mask(w, h, x, y).sum())
        mines = int(round(share * free))
        path = os.path.join(a.dir, f"{w}x{h}_{mines}_{x}_{y}_{a.chains}_{a.seed}.npz")
        t = time.process_time()
        if not os.path.exists(path):
            if index % parts != part:
                continue
            key = stream_key(a.seed, w * 1_000_000 + h * 10_000 + mines * 10 + list(clicks(w, h)).index(name))
            d = run_point(w, h, mines, x, y, a.chains, key)
            np.savez_compressed(path + ".tmp.npz", **d)
            os.replace(path + ".tmp.npz", path)
        r = analyse(dict(np.load(path)))
        results.append(r)
        (ti, tn), (b0, bs, bn), (tb, tbn) = r["tau_int"], r["bias0"], r["tau_burn"]
        level, tau_int, bias0 = f"{w}x{h}/{mines}", f"{ti:.0f} {tn}", f"{b0:+.2f} {bs} {bn}"
        tau_burn = f"{tb:.0f} {tbn}" if tb else "-"
        print(f"{level:>10} {name:>6} {share:>7.0%} {r['acc']:>5.2f} {tau_int:>19} {bias0:>26} {tau_burn:>25} "
              f"{r['need']:>6.0f} {r['rule']:>6} {r['rule'] / r['need']:>6.2f} {r['nr_hat']:>6.3f} {r['z']:>5.2f} "
              f"{time.process_time() - t:>5.0f}", flush=True)
    print(f"\nan exact sampler's nR-hat: about {1 + 1 / (2 * a.chains):.3f}")
    for p, burn, cost in least_burn_in(results):
        print(f"power {p:g}: least BURN_IN {burn:.2f}; the points' boards {cost:,} moves in all")


if __name__ == "__main__":
    main()
