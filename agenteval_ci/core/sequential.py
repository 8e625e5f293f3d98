"""The sequential rule behind `num_runs: auto` (pure math, stdlib only).

Plain words in docs/gate.md, "Adaptive runs". Per gated metric and comparable case, a Bayes
factor weighs two predictions of the case's runs now: "its pass rate is the baseline's"
against "it dropped by at least `case_drop`". The baseline's pass rate is known only as well
as its runs tell: it is a posterior on a grid of rates, under a prior fitted to every case's
baseline runs (empirical Bayes). The suite's evidence averages, over a few shares of changed
cases, the product over cases of (1 - share + share x factor). If nothing changed it is a
nonnegative martingale with mean 1 however the cases to re-run are chosen and whenever the
rounds stop, so by Ville's inequality it ever reaches 1/alpha with probability at most alpha.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate

GRID = tuple(i / 20 for i in range(21))  # pass rates 0, 0.05, ..., 1
SHARES = (0.02, 0.1, 0.3)  # shares of changed cases the suite's evidence averages over
PRIOR_SHARE = 0.1  # the share behind a case's chance of having dropped
FLOOR = 0.01  # prior weight spread evenly, so no rate is ever ruled out by the prior alone
EM_ROUNDS = 40


@dataclass(frozen=True)
class Counts:
    passes: int
    fails: int


@dataclass(frozen=True)
class CaseCounts:
    key: str
    baseline: Counts
    now: Counts


def _log_likelihood(rate: float, counts: Counts) -> float:
    """log(rate^passes (1-rate)^fails), -inf when impossible."""
    if (rate == 0 and counts.passes) or (rate == 1 and counts.fails):
        return -math.inf
    passed = counts.passes * math.log(rate) if counts.passes else 0.0
    return passed + (counts.fails * math.log(1 - rate) if counts.fails else 0.0)


def _normalized(logs: list[float]) -> list[float]:
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    total = sum(weights)
    return [w / total for w in weights]


def fit_prior(baselines: list[Counts]) -> list[float]:
    """The spread of pass rates over the suite's cases (weights on GRID), fitted to their
    baseline runs by EM; a little weight everywhere. Cases with the same counts share the work."""
    groups = Counter((c.passes, c.fails) for c in baselines if c.passes + c.fails)
    tables = {k: _normalized([_log_likelihood(g, Counts(*k)) for g in GRID]) for k in groups}
    total = sum(groups.values())
    weights = [1 / len(GRID)] * len(GRID)
    for _ in range(EM_ROUNDS if groups else 0):
        totals = [0.0] * len(GRID)
        for k, n in groups.items():
            joint = [w * l for w, l in zip(weights, tables[k])]
            norm = sum(joint)
            totals = [t + n * j / norm for t, j in zip(totals, joint)]
        weights = [t / total for t in totals]
    return [(1 - FLOOR) * w + FLOOR / len(GRID) for w in weights]


def _posterior(prior: list[float], counts: Counts) -> list[float]:
    logs = [math.log(w) + _log_likelihood(g, counts) if w > 0 else -math.inf for w, g in zip(prior, GRID)]
    return _normalized(logs)


def _likelihood(rate: float, counts: Counts, scale: float) -> float:
    value = _log_likelihood(rate, counts) - scale
    return math.exp(value) if value > -745 else 0.0


def bayes_factor(prior: list[float], case: CaseCounts, drop: float) -> float:
    """P(runs now | dropped by >= drop) / P(runs now | unchanged), both averaged over the
    posterior of the baseline rate; a dropped rate is any grid rate at least `drop` below."""
    if not case.now.passes + case.now.fails:
        return 1.0
    post = _posterior(prior, case.baseline)
    scale = max(_log_likelihood(g, case.now) for g in GRID)  # keeps both sums in range
    now = [_likelihood(g, case.now, scale) for g in GRID]
    below = list(accumulate(now, initial=0.0))  # below[j]: sum over the j lowest rates
    unchanged = dropped = 0.0
    for i, (weight, rate) in enumerate(zip(post, GRID)):
        lower = bisect_right(GRID, rate - drop + 1e-9)  # how many grid rates lie `drop` or more below
        unchanged += weight * now[i]
        dropped += weight * (below[lower] / lower if lower else now[i])
    return dropped / unchanged if unchanged > 0 else math.inf


def chance_dropped(factor: float) -> float:
    """The posterior chance that this case dropped, if PRIOR_SHARE of cases had."""
    if math.isinf(factor):
        return 1.0
    return PRIOR_SHARE * factor / (1 - PRIOR_SHARE + PRIOR_SHARE * factor)


def suite_evidence(factors: list[float]) -> float:
    """The mean over SHARES of prod(1 - share + share x factor): a test martingale under
    "no case changed" (each factor has mean 1 then, and cases are independent)."""
    if any(math.isinf(f) for f in factors):
        return math.inf
    logs = [sum(math.log(1 - s + s * f) for f in factors) for s in SHARES]
    top = max(logs)
    return math.exp(top) * sum(math.exp(v - top) for v in logs) / len(SHARES) if top < 700 else math.inf


# ---------------------------------------------------------------- one gated metric


@dataclass(frozen=True)
class CaseEvidence:
    counts: CaseCounts
    factor: float  # Bayes factor: dropped vs unchanged

    @property
    def chance_dropped(self) -> float:
        return chance_dropped(self.factor)


@dataclass(frozen=True)
class MetricEvidence:
    name: str
    evidence: float  # the suite's evidence of a drop on this metric
    bar: float  # 1/alpha: the evidence that fails the gate
    cases: tuple[CaseEvidence, ...]

    @property
    def regressed(self) -> bool:
        return self.evidence >= self.bar

    def unsure(self, power: float) -> list[CaseEvidence]:
        """Cases that may still have dropped more likely than 1 - power allows."""
        return [c for c in self.cases if c.chance_dropped > 1 - power]


def metric_evidence(name: str, cases: list[CaseCounts], drop: float, alpha: float, population: list[Counts] | None = None) -> MetricEvidence:
    """`population`: the baseline counts the prior is fitted to (default: these cases'); every
    case of the baseline, so that shards and their merge weigh a case alike."""
    prior = fit_prior(population if population is not None else [c.baseline for c in cases])
    factors: dict[tuple[Counts, Counts], float] = {}  # cases with the same counts have the same factor
    for c in cases:
        if (c.baseline, c.now) not in factors:
            factors[c.baseline, c.now] = bayes_factor(prior, c, drop)
    evidence = tuple(CaseEvidence(c, factors[c.baseline, c.now]) for c in cases)
    return MetricEvidence(name, suite_evidence([e.factor for e in evidence]), 1 / alpha, evidence)
