"""Is a budget's rise beyond noise: the typical case's rise (geometric means) against what
shuffling each case's runs between now and the baseline would give, and the suite total's bound."""

from __future__ import annotations

import itertools
import math
import random
from array import array
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from statistics import NormalDist

from .pairs import SAME, Pair
from .student_t import t_quantile

# The share of alpha a noisy budget's test spends. The shuffle's spread is exact but its normal
# approximation is not: with lopsided noise (a run in six stops early) and tens of cases the whole
# alpha read 6-9% false alarms on some suites; 3/5 of it keeps every suite measured under 5% and
# costs a point or two of power where the budget, not the noise, is what the estimate must clear.
# Under 30 cases the bar is drawn from the shuffles themselves, which is exact: it spends 3/5 too,
# so that its rate (at the share spent, on any noise) stays well under 5% as measured, not at it.
ALPHA_SPENT = 0.6
DRAWN_BELOW = 30  # cases: fewer, and the bar is drawn (few cases of unequal spread defeat Student's t)
DRAWS = 4000  # shuffles of the whole suite drawn for the bar
SPLITS_KEPT = 256  # a case's ways to split its runs kept whole up to this many; more are sampled


def increase_of(before: float, after: float) -> float:
    if before == 0:
        return 0.0 if after == 0 else math.inf
    return after / before - 1


def _t_bound(values: Collection[float], alpha: float) -> tuple[float, float] | None:
    """(mean, its one-sided 1 - alpha lower bound) by Student's t over cases; None under 2 cases."""
    n = len(values)
    if n < 2:
        return None
    centre = sum(values) / n
    spread = math.sqrt(sum((x - centre) ** 2 for x in values) / (n - 1))
    return centre, centre - t_quantile(1 - alpha, n - 1) * spread / math.sqrt(n)


def total_bound(pairs: Collection[Pair], increase: float, alpha: float) -> float | None:
    """The lower bound on the suite's total increase: the ratio of sums linearized case by case
    (each case's c - R b over the mean b)."""
    if math.isinf(increase):
        return increase
    ratio, mean_before = increase + 1, sum(p.delta.baseline for p in pairs) / max(1, len(pairs))
    found = _t_bound(array("d", ((p.delta.candidate - ratio * p.delta.baseline) / mean_before for p in pairs)), alpha)
    return None if found is None else increase + found[1]


def offset_of(pairs: Collection[Pair]) -> float:
    """A figure of 0 is offset by a hundredth of the mean figure (a count going from 0 to 1 is a
    large rise, not an infinite one)."""
    return 0.01 * sum(p.delta.baseline for p in pairs) / len(pairs) or 1e-9


@dataclass(frozen=True)
class Shuffled:
    """A case's log ratio (the mean log figure now minus the baseline's) and how it would spread
    if nothing had changed: then its runs now and the baseline's are exchangeable, and the ratio
    is one draw of `now` runs out of all of them. Its mean over such draws is 0; `variance` and
    `skew` (the third cumulant) are those of sampling without replacement, exactly."""

    ratio: float
    variance: float
    skew: float
    spread: float  # the runs' variance (n - 1): what each further run now would shrink


def shuffled(pair: Pair, offset: float, runs: int | None = None) -> Shuffled:
    now = [math.log(v + offset) for v in pair.now[:runs]]
    before = [math.log(v + offset) for v in pair.before]
    r, b = len(now), len(before)
    both = now + before
    n = r + b
    centre = sum(both) / n
    deviations = [x - centre for x in both]
    spread = sum(d * d for d in deviations) / (n - 1) if n > 1 else 0.0
    third = sum(d**3 for d in deviations) / n
    skew = (n / b) ** 3 * third * b * (b - r) / (r * r * (n - 1) * (n - 2)) if n > 2 else 0.0
    return Shuffled(sum(now) / r - sum(before) / b, spread * (1 / r + 1 / b), skew, spread)


def _columns(cases: Iterable[Shuffled]) -> tuple[array[float], array[float], array[float]]:
    """The cases' log ratios, variances and skews, a column each: summed as lists were."""
    ratios, variances, skews = array("d"), array("d"), array("d")
    for c in cases:
        ratios.append(c.ratio)
        variances.append(c.variance)
        skews.append(c.skew)
    return ratios, variances, skews


@dataclass(frozen=True)
class Rise:
    """The typical case's rise (geometric means, as a ratio - 1) and how sure it is."""

    typical: float
    bound: float | None  # the lower end of its one-sided 1 - alpha interval; None without noise to judge by
    error: float  # the standard error of the mean log ratio, were nothing changed
    critical: float  # how many standard errors the mean must clear

    def plausible(self, budget: float, power: float) -> bool:
        """A rise beyond the budget is not ruled out: it lies within the mean's `power` upper bound."""
        return math.log1p(budget) < math.log1p(self.typical) + NormalDist().inv_cdf(power) * self.error


def typical_rise(pairs: Collection[Pair], alpha: float, runs: int | None = None) -> Rise:
    """The typical case's rise: per case the mean log figure now minus the baseline's (geometric
    means, so that averaging five baseline runs against one run now does not bias a skewed
    figure), averaged over cases, as a ratio - 1; every case counts once, so a suite whose cases
    differ tenfold in size is not decided by its largest few. Beyond noise when the mean clears
    what shuffling each case's runs between now and the baseline would give 1 - alpha of the time
    (nothing changed: they are exchangeable). From 30 cases the shuffles' spread is known exactly
    (from every run, both sides, not from the cases' spread, so a suite whose noise is lopsided -
    a run in six stops early - is not fooled when the few runs now happen to miss it); the bar is
    Student's t over the cases, and the shuffles' skew raises it, never lowers it (Cornish-Fisher).
    Under 30 cases, where one case of large spread would put that bar out of reach, the bar is
    drawn from the shuffles themselves."""
    offset = offset_of(pairs)
    ratios, variances, skews = _columns(shuffled(p, offset, runs) for p in pairs)
    n = len(ratios)
    mean = sum(ratios) / n
    variance = sum(variances)
    error = math.sqrt(variance) / n
    if 1 < n < DRAWN_BELOW and variance > 0 and alpha > 0:
        gap = mean - _drawn_bar(pairs, offset, runs, alpha)
        return Rise(math.expm1(mean), math.expm1(gap if abs(gap) > SAME else 0.0), error, (mean - gap) / error)
    z = _bar(alpha, n)
    if variance <= 0 or math.isinf(z):
        return Rise(math.expm1(mean), None, error, z)
    skew = sum(skews) / variance**1.5
    critical = z + max(0.0, skew / 6 * (z * z - 1))
    return Rise(math.expm1(mean), math.expm1(mean - critical * error), error, critical)


def _drawn_bar(pairs: Collection[Pair], offset: float, runs: int | None, alpha: float) -> float:
    """The mean log ratio that shuffling each case's runs between now and the baseline exceeds
    at most alpha of the time, from DRAWS shuffles of the suite (seeded: the same runs, the same
    bar). A deterministic rise of every case of ten, one run a side, is 1 in 1,024 of them."""
    rng = random.Random(len(pairs))
    totals = [0.0] * DRAWS
    for p in pairs:
        for i, ratio in enumerate(rng.choices(_split_ratios(p, offset, runs, rng), k=DRAWS)):
            totals[i] += ratio
    totals.sort()
    return totals[math.ceil((1 - alpha) * DRAWS) - 1] / len(pairs)


def _split_ratios(pair: Pair, offset: float, runs: int | None, rng: random.Random) -> list[float]:
    """The case's log ratio under each way to split its runs into as many now as it has and the
    rest before: every way, or SPLITS_KEPT drawn when there are more."""
    now = [math.log(v + offset) for v in pair.now[:runs]]
    pooled = now + [math.log(v + offset) for v in pair.before]
    r, b, total = len(now), len(pooled) - len(now), sum(pooled)
    splits = itertools.combinations(pooled, r) if math.comb(r + b, r) <= SPLITS_KEPT else (rng.sample(pooled, r) for _ in range(SPLITS_KEPT))
    return [sum(chosen) / r - (total - sum(chosen)) / b for chosen in splits]


def _bar(alpha: float, cases: int) -> float:
    """Standard errors to clear: Student's t quantile over the cases rather than the normal one,
    the room the shuffle's normal approximation needs with few cases (none under 2 cases)."""
    return t_quantile(1 - alpha, cases - 1) if alpha > 0 and cases > 1 else math.inf


def runs_to_settle(pairs: Collection[Pair], rise: Rise, alpha: float) -> int | None:
    """Runs per case now that would put this rise beyond noise at one look, were it real; None
    when no number would (the baseline's own runs are too few: their noise alone is too large)."""
    offset, n = offset_of(pairs), len(pairs)
    spreads, per_baseline_run = array("d"), array("d")
    for p in pairs:
        spread = shuffled(p, offset).spread
        spreads.append(spread)
        per_baseline_run.append(spread / len(p.before))
    aim = (n * math.log1p(rise.typical) / _bar(alpha, n)) ** 2 - sum(per_baseline_run)
    if rise.typical <= 0 or aim <= 0:
        return None
    return max(1, math.ceil(sum(spreads) / aim))
