"""The no-guess chain's mixing study: how many moves forget the start, at every size, density and click.

    python benchmarks/bench_noguess_mixing.py --dir mixing                      # 9x9 and 16x16 (resumable)
    python benchmarks/bench_noguess_mixing.py --dir mixing --grid expert,held-out --cluster local --workers 2
    python benchmarks/bench_noguess_mixing.py --dir mixing --grid quick         # four points
    python benchmarks/bench_noguess_mixing.py --dir mixing --points 30x16/141/centre --chains 256
    python benchmarks/bench_noguess_mixing.py --exact                           # small levels, exactly

Grids: `small` (9x9 and 16x16, 20% to 60% of the free cells mined, clicks at the centre, an edge and
a corner), `expert` (30x16 at 20% to 50%, 30x24 at 30% and 40%, clicks at the centre and in a
corner's block), `held-out` (points the rule is not fitted on, reported apart) and `quick`;
`--points` names points instead (30x16/120/corner,...). `--table` runs nothing (no records, no
checks): each point is read from its records in `--dir` with the most chains a start. Each task
is a batch of `--batch` chains a start of one point, fanned out as `sweeplab bench` fans out
games (`sweeplab.lab.runner.fan_out`: local processes, `--cluster local` or `--scheduler
tcp://...`); each batch's records land in `--dir` as it finishes, so a rerun runs only what is
missing, and Dask runs again a task whose worker died.

For each point (size, mines, first click) `--chains` chains start from each of two very different
starts (the plain insertion: too few mines on the rim; the repair: too many in the corners, and
too few boards that need the mine total) and run for 8 units of the study's clock (a unit: mines x
(free / (free - mines)) ** 3 moves, about the moves in which each mine is moved once; 16 units
from 35% of the free cells mined, 24 from 45%, where the bias decays slowly), the boards' figures
recorded every eighth of a unit: 3BV, openings, the mines on the rim, in the corners' 3x3s, in the
ring round the click's block and in the half of the board farthest from the click, and whether the
board needs the mine total. Two chains of each start run on 40 units more. Printed per point (moves
are proposed moves):

- acc: the share of moves kept (the long chains);
- tau_int: the largest integrated autocorrelation time of the figures, in moves (the long chains
  past their first 8 units; autocorrelation averaged over the chains, Sokal's window with c = 5);
- bias0: the largest bias of a start's boards, in standard deviations of the figure across
  boards (the stationary ones: the last quarter of the burn-in chains, and the long chains), with
  the start and the figure;
- tau_burn: the slowest decay of such a bias, in moves: until it falls to 1/e of bias0, over the
  figures whose bias0 is at least 5 standard errors (of the start's mean over its chains);
- need: the burn-in that leaves at most 0.01 standard deviation of bias: tau_burn x ln(bias0 /
  0.01); where no start's bias reaches 5 standard errors, (tau_int / 2) x ln(5 se / 0.01), as if
  a bias at the edge of detection decayed at the slowest pace the stationary chains show; beside
  it a 90% bootstrap interval (each start's chains drawn again with replacement; a point whose
  need is the edge-of-detection estimate in every draw shows a single value);
- rule: the rule's moves (`chain_length.chain_moves`), and rule / need, its margin;
- nR-hat: the nested R-hat (Margossian et al. 2022) of `--check-chains` chains a start run to the
  rule's length, the two starts as the superchains, over the records of their last unit; an exact
  sampler scores about 1 + 1 / (2 chains);
- |z|: the largest bias left at the rule's length (the same chains' last boards), of either start
  and any figure, in standard errors (an exact sampler: the largest of 14 standard normals, about
  2.5).

`--exact` measures nothing: on small levels whose certified boards can all be listed it computes
the chain's transition matrix (`sweeplab.lab.uniformity.chain_transition`) and from it, for the
worst start, the moves after which every board's law is within 0.01 and 0.001 of uniform in total
variation, beside the relaxation time (1 / (1 - the second eigenvalue)), the study's clock and
the rule.

Last, the rule's constants from the fitted points' needs (`fit_forms`): for each form of FORMS,
BURN_IN x mines x min(free / (free - mines), 2) ** (p x (free / 100) ** s) (the density's power
growing with the size where s > 0), times (free / 100) ** q (the size term) and c where the click's
block holds a corner cell (the click term), the p, q, s and c whose largest margin below 40% of the
free cells mined is least, each with the least BURN_IN that gives every fitted point a margin of at
least 1.5 and every small level of `--exact` at least its exact need (EXACT_NEEDS: TV 0.001); the
form taken is the one with the fewest terms whose largest margin below 40% is within 10% of the
least (`chosen_form`), then the held-out points' margins under it.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import re
import time

import numpy as np

from sweeplab import grid
from sweeplab._numba_cache import njit
from sweeplab.generators import chain_length as L
from sweeplab.generators import noguess as G
from sweeplab.generators.certify import position, settle, tried_uses_total, workspace
from sweeplab.lab.runner import fan_out
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
BOOTSTRAP = 200  # resamples of the chains for a need's interval
FIT_POWERS = tuple(float(p) for p in np.arange(3.0, 16.01, 0.5))
FIT_SIZES = tuple(float(q) for q in np.arange(-1.0, 2.01, 0.0625))
FIT_CLICKS = tuple(float(c) for c in np.arange(1.0, 3.01, 0.25))
FIT_DENSITY_SIZES = tuple(float(s) for s in np.arange(0.0, 0.501, 0.05))
# The forms fitted, the fewest terms first, each holding the one before it: (name, the size powers q,
# the corner's factors c, the powers s of the size in the density's power).
FORMS = (("mines, density", (0.0,), (1.0,), (0.0,)), ("mines, density, size", FIT_SIZES, (1.0,), (0.0,)),
         ("mines, density by size, size", FIT_SIZES, (1.0,), FIT_DENSITY_SIZES),
         ("mines, density by size, size, click", FIT_SIZES, FIT_CLICKS, FIT_DENSITY_SIZES))
FORM_GAIN = 0.1  # a form with more terms is taken where it lowers the largest light margin by more than this share
MARGIN = 1.5  # the least rule / need the fit allows at any point
HELD_OUT = ((30, 16, 170, "centre"), (24, 24, 200, "centre"), (20, 20, 120, "corner"), (30, 16, 120, "corner"),
            (24, 30, 180, "centre"))  # never fitted on
GRIDS = ("small", "expert", "held-out", "quick")
# The needs the findings' table gives for points of the small grid (256 chains a start below 35% of
# the free cells mined, 64 above; the same measure), used with --table where the point's records are
# not in --dir: (point, need).
PUBLISHED = (((9, 9, 14, "centre"), 41), ((9, 9, 15, "edge"), 44), ((9, 9, 15, "corner"), 53),
             ((9, 9, 22, "centre"), 121), ((9, 9, 22, "edge"), 151), ((9, 9, 30, "edge"), 656),
             ((9, 9, 38, "corner"), 3436), ((9, 9, 46, "corner"), 5649), ((16, 16, 49, "centre"), 111),
             ((16, 16, 76, "corner"), 828), ((16, 16, 99, "centre"), 3404), ((16, 16, 101, "corner"), 6636),
             ((16, 16, 124, "centre"), 39856), ((16, 16, 126, "corner"), 27992))


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
            state, a, p = G.chain(p, excluded, state, every)
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


def level_of(point):
    """A point's level (its click's block excluded) and click cell."""
    w, h, mines, name = point
    x, y = clicks(w, h)[name]
    return G.Level(w, h, mines, x, y, "bounded", G.DEFAULT_LEAF_BUDGET), x, y


def horizon(free: int, mines: int) -> int:
    """The burn-in chains' length in units: longer where the bias decays slowly (the dense boards),
    so that its decay is seen."""
    share = mines / free
    return BURN_UNITS if share < 0.35 else 2 * BURN_UNITS if share < 0.45 else 3 * BURN_UNITS


def begin(level, key, how):
    """A chain's start of the kind `how`, seeded by `key` (a repair can run out of moves at the
    densest points: then it starts again from the next seed)."""
    for attempt in range(10):
        p, state, ok, _, got = G.start_chain(level, np.uint64(stream_key(key, attempt)), G.DEFAULT_TRIES, how,
                                        insert_tries=1000 * level.mines)
        if ok and got == how:
            return p
    raise RuntimeError(f"no {how} start at {level.width}x{level.height}/{level.mines} from ({level.x}, {level.y})")


def run_batch(point, units, first, last, seed) -> dict:
    """Chains first..last-1 from each start of one point: `burn` [start, chain, record, figure] to
    `units` units, and where the batch holds chains below LONG_CHAINS, `long` [chain, record,
    figure]: those chains on for LONG_UNITS - BURN_UNITS more, with their moves kept."""
    level, _, _ = level_of(point)
    w, h, mines, _ = point
    x, y = level.x, level.y
    every = max(1, int(round(L.relaxation(level.free, mines) / RECORDS_PER_UNIT)))
    n_burn = units * RECORDS_PER_UNIT + 1
    n_long = (LONG_UNITS - BURN_UNITS) * RECORDS_PER_UNIT
    region = regions(w, h, x, y)
    judge = workspace(w, h)
    burn = np.zeros((2, last - first, n_burn, len(FIGURES)))
    longs = [c for c in range(first, last) if c < LONG_CHAINS]
    long = np.zeros((2 * len(longs), n_long + 1, len(FIGURES)))
    kept = 0
    for s, how in enumerate(G.STARTS):
        for c in range(first, last):
            key = stream_key(seed, 2 * c + s)
            p = begin(level, key, how)
            state, _, p = record(p, level.excluded, np.uint64(stream_key(key, 10)), n_burn, every, region, judge,
                                 burn[s, c - first])
            if c in longs:
                state, k, p = record(p, level.excluded, np.uint64(state), n_long + 1, every, region, judge,
                                     long[2 * longs.index(c) + s])
                kept += k
    return {"burn": burn, "long": long[:, 1:], "kept": kept, "every": every, "free": level.free, "mines": mines}


def run_check(point, moves, chains, seed) -> dict:
    """`chains` chains from each start of one point run for `moves` moves (the rule's), their
    figures recorded over the last unit: `at` [start, chain, record, figure], the last record at
    `moves`."""
    level, x, y = level_of(point)
    w, h, mines, _ = point
    every = max(1, int(round(L.relaxation(level.free, mines) / RECORDS_PER_UNIT)))
    n = min(RECORDS_PER_UNIT, moves // every) + 1
    silent = moves - (n - 1) * every
    region = regions(w, h, x, y)
    judge = workspace(w, h)
    at = np.zeros((2, chains, n, len(FIGURES)))
    for s, how in enumerate(G.STARTS):
        for c in range(chains):
            key = stream_key(seed, 2 * c + s)
            p = begin(level, key, how)
            state, _, p = G.chain(p, level.excluded, np.uint64(stream_key(key, 11)), silent)
            record(p, level.excluded, np.uint64(state), n, every, region, judge, at[s, c])
    return {"at": at, "moves": moves}


def join_batches(parts: list[dict]) -> dict:
    """One point's records from its batches' (in chain order)."""
    d = dict(parts[0])
    d["burn"] = np.concatenate([b["burn"] for b in parts], axis=1)
    d["long"] = np.concatenate([b["long"] for b in parts if b["long"].shape[0]], axis=0)
    kept = sum(int(b["kept"]) for b in parts)
    n_long = d["long"].shape[0] * d["long"].shape[1]
    d["acc"] = kept / (n_long * int(d["every"]))
    del d["kept"]
    return d


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


def burn_need(burn, mu, sd, live, every, tau_int) -> tuple[float, tuple, tuple]:
    """need, bias0 and tau_burn (see the module's doc) of burn-in records burn [start, chain,
    record, figure], the figures' stationary mean mu and deviation sd."""
    chains = burn.shape[1]
    se = 1 / math.sqrt(chains)
    need, bias0, tau_burn = 0.0, (0.0, "", ""), (0.0, "")
    for s, how in enumerate(G.STARTS):
        for f in live:
            bias = (burn[s, :, :, f].mean(axis=0) - mu[f]) / sd[f]
            if abs(bias[0]) > abs(bias0[0]):
                bias0 = (float(bias[0]), how, FIGURES[f])
            if abs(bias[0]) < 5 * se:
                continue
            smooth = np.convolve(abs(bias), np.ones(3) / 3, mode="same")
            smooth[0] = abs(bias[0])
            below = np.flatnonzero(smooth < abs(bias[0]) / math.e)
            t = below[0] * every if below.size else burn.shape[2] * every
            need = max(need, t * math.log(abs(bias[0]) / TOLERANCE))
            if t > tau_burn[0]:
                tau_burn = (t, f"{how} {FIGURES[f]}")
    if need == 0:  # no start's bias is measurable: one at the edge of detection, decaying as slowly as any figure
        need = tau_int / 2 * math.log(5 * se / TOLERANCE)
    return need, bias0, tau_burn


def stationary_law(d: dict):
    """A point's stationary records (the long chains past 16 units) and each figure's mean and
    deviation over them and the last quarter of the burn-in chains, and the figures that vary."""
    burn, long = d["burn"], d["long"]
    units = (burn.shape[2] - 1) // RECORDS_PER_UNIT
    stationary = long[:, (16 - BURN_UNITS) * RECORDS_PER_UNIT:]
    late = np.concatenate([burn[:, :, units * 3 * RECORDS_PER_UNIT // 4:].reshape(-1, burn.shape[3]),
                           stationary.reshape(-1, burn.shape[3])])
    mu, sd = late.mean(axis=0), late.std(axis=0)
    return stationary, mu, sd, [f for f in range(len(FIGURES)) if sd[f] > 0]


def analyse(d: dict, check: dict | None, corner: bool) -> dict:
    """The table's figures for one point's records (moves throughout); need_90 a 90% bootstrap
    interval of the need (each start's burn-in chains drawn again with replacement, the stationary
    law as measured); `corner`: the click's block holds a corner cell (the rule's click term);
    nR-hat and |z| from the check's chains at the rule's length, where given."""
    burn, every = d["burn"], int(d["every"])
    free, mines = int(d["free"]), int(d["mines"])
    stationary, mu, sd, live = stationary_law(d)
    out = {"acc": float(d["acc"]), "unit": L.relaxation(free, mines), "rule": L.chain_moves(free, mines, corner),
           "tau_int": (0.0, ""), "free": free, "mines": mines, "units": (burn.shape[2] - 1) // RECORDS_PER_UNIT}
    for f in live:
        t = integrated_time(stationary[:, :, f]) * every
        if t > out["tau_int"][0]:
            out["tau_int"] = (t, FIGURES[f])
    out["need"], out["bias0"], out["tau_burn"] = burn_need(burn, mu, sd, live, every, out["tau_int"][0])
    rng, chains = np.random.default_rng(0), burn.shape[1]
    needs = [burn_need(np.stack([burn[s, rng.integers(0, chains, chains)] for s in range(2)]), mu, sd, live, every,
                       out["tau_int"][0])[0] for _ in range(BOOTSTRAP)]
    out["need_90"] = tuple(float(q) for q in np.quantile(needs, [0.05, 0.95]))
    out["nr_hat"] = out["z"] = float("nan")
    if check is not None:
        at = check["at"]
        out["nr_hat"] = max(nested_r_hat(at[:, :, :, f]) for f in live)
        out["z"] = max(abs(at[s, :, -1, f].mean() - mu[f]) / (sd[f] / math.sqrt(at.shape[1]))
                       for s in range(2) for f in live)
    return out


def free_cells(w: int, h: int, name: str) -> int:
    x, y = clicks(w, h)[name]
    return w * h - int(grid.block_mask(w, h, x, y).sum())


def grid_points(name: str) -> list[tuple[int, int, int, str]]:
    """A grid's points (width, height, mines, click)."""
    if name == "quick":
        chosen = [(9, 9, 0.4, "corner"), (16, 16, 0.3, "edge"), (30, 16, 0.35, "centre"), (30, 24, 0.3, "centre")]
    elif name == "small":
        chosen = [(w, h, share, c) for w, h in SIZES[:2] for share in DENSITIES for c in clicks(w, h)]
    elif name == "expert":
        chosen = [(w, h, share, c) for w, h, shares in ((30, 16, (0.2, 0.3, 0.4, 0.5)), (30, 24, (0.3, 0.4)))
                  for share in shares for c in ("centre", "corner")]
    else:
        return list(HELD_OUT)
    return [(w, h, int(round(share * free_cells(w, h, c))), c) for w, h, share, c in chosen]


def parse_point(text: str) -> tuple[int, int, int, str]:
    """A point from WxH/MINES/CLICK."""
    m = re.fullmatch(r"(\d+)x(\d+)/(\d+)/(centre|edge|corner)", text.strip())
    if not m:
        raise ValueError(f"bad point {text!r}: write WxH/MINES/CLICK, the click centre, edge or corner")
    w, h, mines = int(m[1]), int(m[2]), int(m[3])
    if not (4 <= w <= 60 and 4 <= h <= 60 and 0 < mines < free_cells(w, h, m[4])):
        raise ValueError(f"bad point {text!r}: sides 4 to 60 and mines from 1 to the free cells less one")
    return w, h, mines, m[4]


def shape(r: dict, p, q=0.0, c=1.0, s=0.0):
    """A form of the rule at a point, BURN_IN aside: mines x min(free / (free - mines), the cap) **
    (p x (free / SIZE_UNIT) ** s) x (free / SIZE_UNIT) ** q, times c where the click is in a
    corner's block (p, q, c and s numbers or arrays of one shape: then an array)."""
    return L.rule_form(r["free"], r["mines"], r["click"] == "corner", 1.0, p, q, s, c)


def exact_points() -> list[dict]:
    """The small levels' exact needs (EXACT_NEEDS) as points of the fit."""
    out = []
    for (w, h, m, (x, y)), need in zip(EXACT_LEVELS, EXACT_NEEDS):
        out.append({"free": w * h - int(grid.block_mask(w, h, x, y).sum()), "mines": m, "need": float(need),
                    "click": "corner" if L.corner_click(w, h, x, y) else "centre"})
    return out


def fit_rule(results: list[dict], exact: list[dict], p, q, c, s=0.0):
    """The least BURN_IN of the form (p, q, c, s) with margin (rule / need) at least MARGIN at every
    measured point and at least 1 at every exact one, and the measured points' margins. The constants
    may be arrays of one shape (a grid of forms): then BURN_IN is such an array and each margin too."""
    need = np.array([r["need"] for r in results]).reshape((-1,) + (1,) * np.ndim(p))
    per_need = np.array([shape(r, p, q, c, s) for r in results]) / need  # the margins at BURN_IN 1
    burn = MARGIN / per_need.min(axis=0)
    if exact:
        burn = np.maximum(burn, np.max([r["need"] / shape(r, p, q, c, s) for r in exact], axis=0))
    margins = burn * per_need
    return (burn, list(margins)) if np.ndim(p) else (float(burn), [float(m) for m in margins])


def light_margin(results: list[dict], margins: list[float]) -> float:
    """The largest margin of the points below 40% of the free cells mined."""
    return max([m for m, r in zip(margins, results) if r["mines"] < 0.4 * r["free"]], default=0.0)


def fit_forms(results: list[dict], exact: list[dict]) -> list[tuple]:
    """Per form of FORMS, its best constants: (name, p, q, c, s, BURN_IN, margins, moves in all), the
    best those whose largest margin below 40% of the free cells mined is least (the moves the
    points' boards cost break ties), `fit_rule` over each form's whole grid at once."""
    out = []
    light = np.array([r["mines"] < 0.4 * r["free"] for r in results])
    for name, sizes, factors, density_sizes in FORMS:
        grid_ = [a.ravel() for a in np.meshgrid(FIT_POWERS, sizes, factors, density_sizes, indexing="ij")]
        burn, margins = fit_rule(results, exact, *grid_)
        margins = np.array(margins)  # [point, constants]
        lights = np.round(margins[light].max(axis=0) if light.any() else np.zeros(burn.shape), 6)
        cost = burn * np.array([shape(r, *grid_) for r in results]).sum(axis=0)
        best = int(np.lexsort((cost, lights))[0])
        p, q, c, s = (float(a[best]) for a in grid_)
        out.append((name, p, q, c, s, float(burn[best]), [float(m) for m in margins[:, best]], float(cost[best])))
    return out


def chosen_form(results: list[dict], forms: list[tuple]) -> tuple:
    """The form the rule takes: the first of FORMS (the fewest terms) whose largest margin below 40%
    is within FORM_GAIN of the least any form reaches (a term is kept only where it earns that)."""
    least = min(light_margin(results, f[6]) for f in forms)
    return next(f for f in forms if light_margin(results, f[6]) <= least * (1 + FORM_GAIN))


def point_path(folder, point, chains, seed) -> str:
    level, x, y = level_of(point)
    w, h, mines, _ = point
    return os.path.join(folder, f"{w}x{h}_{mines}_{x}_{y}_{chains}_{seed}_u{horizon(level.free, mines)}")


def richest_path(folder, point, chains, seed) -> str:
    """The point's records in `folder` with the most chains a start (`point_path`'s if none)."""
    level, x, y = level_of(point)
    w, h, mines, _ = point
    name = re.compile(rf"{w}x{h}_{mines}_{x}_{y}_(\d+)_{seed}_u{horizon(level.free, mines)}\.npz")
    have = [int(m[1]) for m in map(name.fullmatch, os.listdir(folder) if os.path.isdir(folder) else []) if m]
    return point_path(folder, point, max(have, default=chains), seed)


def point_key(seed, point) -> int:
    w, h, mines, name = point
    return stream_key(seed, w * 1_000_000 + h * 10_000 + mines * 10 + list(clicks(w, h)).index(name))


def save(path: str, d: dict) -> None:
    np.savez_compressed(path + ".tmp.npz", **d)
    os.replace(path + ".tmp.npz", path)


def run_job(job) -> dict:
    """One task: a batch of a point's chains ("burn") or its check at the rule's length."""
    t = time.process_time()
    kind, point, *rest = job
    d = run_batch(point, *rest) if kind == "burn" else run_check(point, *rest)
    return {**d, "cpu": time.process_time() - t}


def _task(jobs, i, _):
    return run_job(jobs[i])


def jobs_for(points, a) -> tuple[list, dict]:
    """The tasks left (batches of chains, checks) and, per point file, its batches' paths."""
    jobs, batches = [], {}
    for point in points:
        level, _, _ = level_of(point)
        base, key = (richest_path if a.table else point_path)(a.dir, point, a.chains, a.seed), point_key(a.seed, point)
        if a.table and not os.path.exists(base + ".npz"):
            continue
        if not os.path.exists(base + ".npz"):
            parts = []
            for first in range(0, a.chains, a.batch):
                last = min(first + a.batch, a.chains)
                part = f"{base}_c{first:03d}-{last:03d}.npz"
                parts.append(part)
                if not os.path.exists(part):
                    jobs.append((part, ("burn", point, horizon(level.free, point[2]), first, last, key)))
            batches[base + ".npz"] = parts
        moves = L.chain_moves(level.free, point[2], level.corner)
        check = f"{base}_rule{moves}_{a.check_chains}.npz"
        if a.check_chains and not a.table and not os.path.exists(check):
            jobs.append((check, ("check", point, moves, a.check_chains, key)))
    return jobs, batches


# (width, height, mines, click): every certified board listed in seconds, a few thousand at most (the
# matrix is dense: its spectrum costs the cube of their number)
EXACT_LEVELS = ((5, 4, 9, (0, 0)), (6, 6, 22, (2, 2)), (6, 6, 28, (0, 0)), (5, 5, 8, (2, 2)))
# What `--exact` prints for them: the fewest moves after which every start's law is within 0.001 of
# uniform in total variation (the fit holds the rule to at least these: see the findings).
EXACT_NEEDS = (2137, 416, 1261, 49)


def exact_table() -> None:
    """The chain's mixing on small levels, computed from its exact transition matrix."""
    from sweeplab.lab.uniformity import certified_boards, chain_transition, moves_within
    print(f"{'level':>8} {'click':>6} {'density':>7} {'boards':>6} {'relax':>6} {'clock':>6} {'TV 0.01':>7} "
          f"{'TV 0.001':>8} {'rule':>6} {'rule / TV 0.001':>15}")
    for w, h, m, (x, y) in EXACT_LEVELS:
        free = w * h - int(grid.block_mask(w, h, x, y).sum())
        boards = certified_boards(w, h, m, x, y)
        p = chain_transition(w, h, m, x, y, boards)
        spectrum = np.linalg.eigh(p)
        second = float(np.sort(np.abs(spectrum[0]))[-2])
        near, nearer = moves_within(spectrum, 0.01), moves_within(spectrum, 0.001)
        rule = L.chain_moves(free, m, L.corner_click(w, h, x, y))
        print(f"{f'{w}x{h}/{m}':>8} {f'{x},{y}':>6} {m / free:>7.0%} {len(boards):>6} {1 / (1 - second):>6.0f} "
              f"{L.relaxation(free, m):>6.0f} {near:>7} {nearer:>8} {rule:>6} {rule / nearer:>15.1f}", flush=True)
    print("(relax: 1 / (1 - the second largest eigenvalue's size), in moves; clock: the study's unit, "
          "`chain_length.relaxation`; TV d: the fewest moves after which every start's law is within d of uniform)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", help="folder for each point's records (a rerun reads them back)")
    ap.add_argument("--exact", action="store_true", help="the small levels' exact mixing (nothing else)")
    ap.add_argument("--grid", default="small", help=f"the grids to run, comma-separated: {', '.join(GRIDS)}; "
                    "held-out points are not fitted on")
    ap.add_argument("--points", help="points to run instead of --grid's, comma-separated WxH/MINES/CLICK (click: "
                    "centre, edge or corner), e.g. 30x16/120/corner; those of HELD_OUT are reported apart")
    ap.add_argument("--chains", type=int, default=64, help="chains from each start")
    ap.add_argument("--check-chains", type=int, default=32, help="chains from each start run to the rule's length "
                    "for nR-hat and |z| (0: none)")
    ap.add_argument("--batch", type=int, default=16, help="chains from each start a task")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--table", action="store_true", help="run nothing new (no records, no checks): each point's "
                    "records with the most chains in --dir; points with none take the need the findings' table gives "
                    "them (PUBLISHED), or are left out")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (or the LocalCluster's)")
    ap.add_argument("--cluster", choices=["local"], help="a Dask LocalCluster of --workers processes")
    ap.add_argument("--scheduler", help="a Dask scheduler, tcp://HOST:PORT (its workers import this script: "
                    "benchmarks/ on their path)")
    a = ap.parse_args()
    if a.exact:
        return exact_table()
    if not a.dir:
        ap.error("--dir is needed (or --exact)")
    names = a.grid.split(",")
    if any(n not in GRIDS for n in names):
        ap.error(f"unknown grid in {a.grid!r}; allowed: {', '.join(GRIDS)}")
    if a.chains < 2 or a.batch < 1 or a.check_chains < 0 or a.workers < 1:
        ap.error("--chains must be at least 2, --batch and --workers at least 1, --check-chains at least 0")
    points = list(dict.fromkeys(p for n in names for p in grid_points(n)))
    if a.points:
        try:
            points = [parse_point(t) for t in a.points.split(",")]
        except ValueError as e:
            ap.error(str(e))
    os.makedirs(a.dir, exist_ok=True)
    held = set(HELD_OUT)
    jobs, batches = jobs_for(points, a)
    t = time.time()
    for (i, _), d in fan_out(functools.partial(_task, [j for _, j in jobs]), [(i, i + 1) for i in range(len(jobs))],
                             workers=a.workers, scheduler=a.scheduler, cluster=a.cluster):
        save(jobs[i][0], d)
        for path, parts in batches.items():
            if jobs[i][0] in parts and all(os.path.exists(q) for q in parts):
                loaded = [dict(np.load(q)) for q in parts]
                save(path, {**join_batches(loaded), "cpu": sum(float(b["cpu"]) for b in loaded)})
                for q in parts:
                    os.remove(q)
    print(f"ran {len(jobs)} tasks in {time.time() - t:.0f} s; rule: chain_moves = {L.BURN_IN} x mines x "
          f"min(free / (free - mines), {L.RATIO_CAP:g}) ** ({L.BURN_IN_POWER} x (free / {L.SIZE_UNIT}) ** "
          f"{L.DENSITY_SIZE_POWER}) x (free / {L.SIZE_UNIT}) ** {L.SIZE_POWER} x ({L.CORNER_FACTOR} where the click's "
          f"block holds a corner cell); {a.chains} chains from each start (at most; a point's richest records with --table), "
          f"{a.check_chains} to the rule's length; tolerance {TOLERANCE} sd; moves are proposed moves")
    header = (f"{'level':>10} {'click':>6} {'density':>7} {'acc':>5} {'tau_int':>19} {'bias0':>26} {'tau_burn':>25} "
              f"{'need':>6} {'need 90%':>13} {'chains':>6} {'rule':>6} {'margin':>6} {'nR-hat':>6} {'|z|':>5} {'cpu s':>5}")
    fitted, others = [], []
    for label, group in (("fitted on", [p for p in points if p not in held]),
                         ("held out", [p for p in points if p in held])):
        if not group:
            continue
        print(f"\n{label}:\n{header}")
        for point in group:
            w, h, mines, name = point
            base = (richest_path if a.table else point_path)(a.dir, point, a.chains, a.seed)
            level, _, _ = level_of(point)
            check = f"{base}_rule{L.chain_moves(level.free, mines, level.corner)}_{a.check_chains}.npz"
            if not os.path.exists(base + ".npz") and point not in dict(PUBLISHED):
                continue
            if not os.path.exists(base + ".npz"):  # (--table: the findings' need)
                r = {"free": level.free, "mines": mines, "need": float(dict(PUBLISHED)[point]),
                     "rule": L.chain_moves(level.free, mines, level.corner), "click": name}
                (fitted if label == "fitted on" else others).append(r)
                print(f"{f'{w}x{h}/{mines}':>10} {name:>6} {mines / level.free:>7.0%} {'(the findings table)':>77} "
                      f"{r['need']:>6.0f} {'':>13} {64:>6} {r['rule']:>6} {r['rule'] / r['need']:>6.2f}", flush=True)
                continue
            d = dict(np.load(base + ".npz"))
            r = {**analyse(d, dict(np.load(check)) if os.path.exists(check) else None, level.corner), "click": name}
            lo, hi = r["need_90"]
            (fitted if label == "fitted on" else others).append(r)
            (ti, tn), (b0, bs, bn), (tb, tbn) = r["tau_int"], r["bias0"], r["tau_burn"]
            cpu = float(d["cpu"]) + (float(np.load(check)["cpu"]) if os.path.exists(check) else 0.0)
            tau_burn = f"{tb:.0f} {tbn}" if tb else "-"
            print(f"{f'{w}x{h}/{mines}':>10} {name:>6} {mines / level.free:>7.0%} {r['acc']:>5.2f} "
                  f"{f'{ti:.0f} {tn}':>19} {f'{b0:+.2f} {bs} {bn}':>26} {tau_burn:>25} {r['need']:>6.0f} "
                  f"{f'{lo:.0f}-{hi:.0f}':>13} {d['burn'].shape[1]:>6} {r['rule']:>6} {r['rule'] / r['need']:>6.2f} "
                  f"{r['nr_hat']:>6.3f} {r['z']:>5.2f} {cpu:>5.0f}",
                  flush=True)
    print(f"\nan exact sampler's nR-hat: about {1 + 1 / (2 * a.check_chains):.3f}" if a.check_chains else "")
    if not fitted:
        return
    exact = exact_points()
    forms = fit_forms(fitted, exact)
    print(f"the rule's forms: BURN_IN x mines x min(free / (free - mines), {L.RATIO_CAP:g}) ** (p x (free / "
          f"{L.SIZE_UNIT}) ** s) x (free / {L.SIZE_UNIT}) ** q x (c where the click is in a corner's block); per form "
          f"the p, q, c and s whose largest margin below 40% is least, with the least BURN_IN giving every fitted "
          f"point a margin of at least {MARGIN} and every small level at least its exact need (TV 0.001, --exact):")
    print(f"{'form':>35} {'p':>5} {'q':>7} {'c':>5} {'s':>5} {'BURN_IN':>9} {'margins':>12} {'below 40%':>9} "
          f"{'moves in all':>12}")
    for name, p, q, c, s, burn, margins, cost in forms:
        print(f"{name:>35} {p:>5g} {q:>7g} {c:>5g} {s:>5g} {burn:>9.4g} "
              f"{f'{min(margins):.2f}-{max(margins):.2f}':>12} {light_margin(fitted, margins):>9.2f} {int(cost):>12,}")
    name, p, q, c, s, burn, margins, _ = chosen_form(fitted, forms)
    print(f"the fit: {name}, p {p:g}, q {q:g}, c {c:g}, s {s:g}, BURN_IN {burn:.4g}; margins {min(margins):.2f} to "
          f"{max(margins):.2f}, below 40% up to {light_margin(fitted, margins):.2f}")
    for r, m in zip(fitted, margins):
        print(f"  {r['mines']:>4} mines on {r['free']:>4} free cells, {r['click']:>6}: need {r['need']:>8.0f} "
              f"rule {burn * shape(r, p, q, c, s):>8.0f} margin {m:>5.2f}")
    for r in exact:
        rule = burn * shape(r, p, q, c, s)
        print(f"  exact: {r['mines']} mines on {r['free']} free cells: rule {rule:.0f}, "
              f"TV 0.001 need {r['need']:.0f}, rule / need {rule / r['need']:.2f}")
    for r in others:
        rule = burn * shape(r, p, q, c, s)
        print(f"  held out: {r['mines']} mines on {r['free']} free cells, {r['click']}: need {r['need']:.0f}, "
              f"rule {rule:.0f}, margin {rule / r['need']:.2f}")

if __name__ == "__main__":
    import bench_noguess_mixing  # tasks pickle by reference to this module (workers import it), not to __main__
    bench_noguess_mixing.main()
