"""The tests the gate runs, stdlib only: the bootstrap, the sign test, Fisher's hard breaks, Holm."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

BOOTSTRAP_WORK = 4_000_000  # resamples x cases; bounds the time on very large suites

def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def quantile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between order statistics."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_means(deltas: Sequence[float], seed: str) -> list[float]:
    """Sorted means of case-resampled deltas; seeded, so the same inputs give the same CI."""
    rng = random.Random(seed)
    n = len(deltas)
    resamples = max(400, min(2000, BOOTSTRAP_WORK // n))
    return sorted(sum(rng.choices(deltas, k=n)) / n for _ in range(resamples))


def sign_test_p(down: int, up: int) -> float:
    """Exact one-sided sign test: P(at least `down` of the discordant cases go down | no change)."""
    n = down + up
    if n == 0:
        return 1.0
    return float(sum(math.comb(n, k) for k in range(down, n + 1)) / 2**n)  # int / int: exact for any n


def hard_break_p(baseline_runs: int, candidate_runs: int) -> float:
    """Fisher's exact one-sided p when every baseline run passed and every candidate run failed."""
    return 1 / math.comb(baseline_runs + candidate_runs, baseline_runs)


def holm(pvalues: dict[tuple[str, str], float], alpha: float, family_size: int) -> set[tuple[str, str]]:
    """The keys Holm's step-down procedure rejects at family-wise level alpha; pairs that
    were not tested still count in `family_size` (their p-value is 1)."""
    rejected: set[tuple[str, str]] = set()
    ordered = sorted(pvalues.items(), key=lambda kv: (kv[1], kv[0]))
    for rank, (key, p) in enumerate(ordered):
        if p > alpha / (family_size - rank):
            break
        rejected.add(key)
    return rejected
