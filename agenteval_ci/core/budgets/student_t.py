"""Student's t distribution, exactly (no SciPy): the budgets' bar over the cases."""

from __future__ import annotations

import math
from statistics import NormalDist


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (p > 0.5), by bisection on its exact CDF (A&S 26.7.3/4); the normal
    quantile with the Cornish-Fisher terms beyond 200 degrees of freedom."""
    z = NormalDist().inv_cdf(p)
    if df > 200:
        return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    lo, hi = 0.0, max(10.0, 4 * z)
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for t >= 0."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:  # odd
        term, total = 1.0, 1.0 if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        inside = (2 / math.pi) * (theta + (s * math.cos(theta) * total if df > 1 else 0.0))
    else:
        term, total = 1.0, 1.0
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        inside = s * total
    return 0.5 + inside / 2
