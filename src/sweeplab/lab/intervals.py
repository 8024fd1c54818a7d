"""Interval estimates for the lab's measures: the Wilson score interval for win rates, and intervals
for a mean and a quantile of a sample."""

from __future__ import annotations

import math

import numpy as np

from ..errors import SweeplabError

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (default 95%) for `successes` out of `trials`.

    Unlike the normal approximation it stays inside [0, 1] and behaves at 0 and at n wins.
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise SweeplabError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    n = float(trials)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return lo, hi


def rate(successes: float, trials: float) -> float:
    return successes / trials if trials else float("nan")


def mean_ci(values: np.ndarray, low: float = -np.inf, high: float = np.inf) -> tuple[float, float, float]:
    """Mean and its normal-approximation 95% interval, kept inside [low, high]."""
    n = values.size
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return mean, float(max(low, mean - half)), float(min(high, mean + half))


def quantile_ci(values: np.ndarray, q: float) -> tuple[float, float, float]:
    """Quantile q and a distribution-free 95% interval from the order statistics."""
    v = np.sort(values)
    n = v.size
    half = Z95 * np.sqrt(n * q * (1 - q))
    lo = int(max(0, np.floor(n * q - half)))
    hi = int(min(n - 1, np.ceil(n * q + half)))
    return float(np.quantile(v, q)), float(v[lo]), float(v[hi])


def normal_tail(z: float) -> float:
    """P(|Z| >= z) for a standard normal Z (two-sided)."""
    return math.erfc(abs(z) / math.sqrt(2))


def chi2_tail(chi2_per_dof: float, dof: int) -> float:
    """P(X >= chi2) for X chi-square with `dof` degrees, by the Wilson-Hilferty cube-root normal
    approximation (within a few percent of the tail for the hundreds of degrees a heat map has)."""
    if dof < 1:
        return 1.0
    k = 2 / (9 * dof)
    z = (chi2_per_dof ** (1 / 3) - (1 - k)) / math.sqrt(k)
    return 0.5 * math.erfc(z / math.sqrt(2))


def uniformity_verdict(result: dict, level: float = 0.01) -> tuple[bool, str]:
    """(consistent, one sentence) for a generator-against-reference comparison (`uniformity`'s
    result: the heat map's chi-square per dof and each figure's difference in standard errors):
    the tests together at `level`, each at level / (number of tests) (Bonferroni)."""
    figures = result["figures"]
    tests = 1 + len(figures)
    each = level / tests
    failed = []
    p = chi2_tail(result["chi2_per_dof"], result["dof"])
    if p < each:
        failed.append(f"the mine frequencies (chi-square p = {p:.2g})")
    for name, f in figures.items():
        z = f["diff_in_se"]
        if z != z or normal_tail(z) < each:  # NaN: a figure constant in one sample only
            failed.append(f"{name} ({z:+.1f} standard errors)")
    if failed:
        return False, (f"departs from uniform at the {level:.0%} level (each of {tests} tests at {each:.2g}): "
                       + ", ".join(failed))
    return True, (f"no departure from uniform found at the {level:.0%} level ({tests} tests, each at {each:.2g}); "
                  "a larger sample would see smaller ones")
