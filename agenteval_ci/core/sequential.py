"""The sequential rule behind `num_runs: auto` (pure math, stdlib only).

The model, its guarantee and its assumptions in plain words: docs/gate.md, "Adaptive runs".

Per gated metric, each case has an unknown pass rate. The suite's spread of pass rates (the
prior, on a grid) is fitted to the baseline's *planned* runs of every case (runs whose number
was fixed before any outcome was seen, so the fit is not biased by re-runs that stopped once a
case passed). A case's own rate is then known as well as its whole history tells (every run:
a posterior does not depend on why the runs were made). Its Bayes factor weighs its runs now
under "the rate is the baseline's" against "it dropped by `case_drop`" (or broke outright).
The suite's evidence averages, over two shares of changed cases (one case of the suite, a
tenth of the cases), the product over cases of (1 - share + share x factor): a test martingale
when nothing changed, whoever chose the runs and whenever the rounds stopped, so it ever reaches
its bar 1/(EVIDENCE_ALPHA x alpha) with probability at most EVIDENCE_ALPHA x alpha (Ville); the
rest of alpha is left to the end rule below. The rounds settle once no case is doubtful and a
drop on a tenth of the cases is ruled out; rounds that end unsure fail the gate when the evidence
leans toward a drop (LEAN).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

GRID = tuple(i / 20 for i in range(21))  # pass rates 0, 0.05, ..., 1
EM_ROUNDS = 15  # EM from an even spread, stopped early: short histories cannot pin the spread down
SMOOTHING = 2  # passes of a (1/4, 1/2, 1/4) kernel over the rates strictly between 0 and 1
BREAK = 0.1  # the alternative's weight on a total break; the rest on a drop of exactly case_drop
DESIGN_SHARE = 0.1  # the share of changed cases the rounds try to rule out (besides a single case)
MANY = 3  # ... when that share is at least this many cases
EVIDENCE_ALPHA = 0.8  # the share of alpha the evidence's bar spends (25 at 5%); the rest is the unsure end's (LEAN)
LEAN = 8.0  # evidence at which a regression is more likely than not, if one PR in nine regressed


@dataclass(frozen=True)
class Counts:
    passes: int
    fails: int

    @property
    def runs(self) -> int:
        return self.passes + self.fails

    def plus(self, passes: int = 0, fails: int = 0) -> Counts:
        return Counts(self.passes + passes, self.fails + fails)

    def __str__(self) -> str:
        return f"{self.passes}/{self.runs}"


@dataclass(frozen=True)
class CaseCounts:
    key: str
    history: Counts  # the baseline's runs of this case, every accepted run in its window
    now: Counts


# ---------------------------------------------------------------- the prior


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


def fit_prior(population: list[Counts]) -> tuple[float, ...]:
    """The spread of pass rates over the suite's cases (weights on GRID), fitted to their planned
    runs by EM from an even spread, stopped after EM_ROUNDS (run to the end, EM piles the mass of
    cases whose few agreeing runs cannot tell 1 from 0.95 onto 1, and a 3-run baseline then
    false-alarms near alpha; stopped early, it keeps them doubtful); smoothed between 0 and 1 (EM's estimate is spiky, and a case whose many runs fall
    between two spikes would look surer than it is); and one imaginary case of any rate mixed in
    (weight 1/(N+1)), so that no rate is ruled out by the prior alone. Deterministic cases (rates 0
    and 1) keep their weight: they are what lets one confirmed flip fail the gate."""
    return _fit(tuple(sorted(Counter((c.passes, c.fails) for c in population).items())))


@lru_cache(maxsize=64)
def _fit(groups: tuple[tuple[tuple[int, int], int], ...]) -> tuple[float, ...]:
    seen = [(Counts(*k), n) for k, n in groups if sum(k)]
    total = sum(n for _, n in seen)
    weights = [1 / len(GRID)] * len(GRID)
    tables = [(_normalized([_log_likelihood(g, c) for g in GRID]), n) for c, n in seen]
    for _ in range(EM_ROUNDS if seen else 0):
        totals = [0.0] * len(GRID)
        for table, n in tables:
            joint = [w * lik for w, lik in zip(weights, table)]
            norm = sum(joint)
            totals = [t + n * j / norm for t, j in zip(totals, joint)]
        weights = [t / total for t in totals]
    weights = _smoothed(weights)
    floor = 1 / (sum(n for _, n in groups) + 1)
    return tuple((1 - floor) * w + floor / len(GRID) for w in weights)


def _smoothed(weights: list[float]) -> list[float]:
    inner = weights[1:-1]
    mass = sum(inner)
    for _ in range(SMOOTHING if mass > 0 else 0):
        padded = [inner[0], *inner, inner[-1]]
        inner = [(a + 2 * b + c) / 4 for a, b, c in zip(padded, padded[1:], padded[2:])]
    scale = mass / sum(inner) if mass > 0 else 0.0
    return [weights[0], *(w * scale for w in inner), weights[-1]]


# ---------------------------------------------------------------- one case


def _posterior(prior: tuple[float, ...], counts: Counts) -> list[float]:
    return _normalized([math.log(w) + _log_likelihood(g, counts) for w, g in zip(prior, GRID)])


def chance_flaky(prior: tuple[float, ...], counts: Counts) -> float:
    """The chance a case's pass rate lies strictly between 0 and 1, given its runs."""
    post = _posterior(prior, counts)
    return 1 - post[0] - post[-1]


def _likelihoods(counts: Counts) -> list[float]:
    """rate^passes (1-rate)^fails on the grid, scaled so the largest is 1 (the scale cancels)."""
    logs = [_log_likelihood(g, counts) for g in GRID]
    top = max(logs)
    return [math.exp(v - top) if v > -math.inf else 0.0 for v in logs]


def _dropped_to(index: int, drop: float) -> tuple[tuple[int, float], ...]:
    """The alternative for a case whose baseline rate is GRID[index]: its rate now is `drop`
    lower (weight 1 - BREAK) or 0 (BREAK). A rate below `drop` cannot drop that far: unchanged."""
    lower = math.floor((GRID[index] - drop) * (len(GRID) - 1) + 1e-9)
    if lower < 0:
        return ((index, 1.0),)
    return ((lower, 1 - BREAK), (0, BREAK))


@dataclass(frozen=True)
class Prediction:
    """A case's runs now, predicted from its history: under "unchanged" and under "dropped"."""

    unchanged: list[float]  # weight of each grid rate now, times the runs' likelihood there
    dropped: list[float]

    @property
    def factor(self) -> float:
        """The Bayes factor: P(runs now | dropped) / P(runs now | unchanged)."""
        unchanged, dropped = sum(self.unchanged), sum(self.dropped)
        return dropped / unchanged if unchanged > 0 else math.inf

    def next_pass(self) -> tuple[float, float]:
        """P(the next run passes) under "unchanged" and under "dropped"."""
        return _mean_rate(self.unchanged), _mean_rate(self.dropped)


def _mean_rate(weights: list[float]) -> float:
    total = sum(weights)
    return sum(w * g for w, g in zip(weights, GRID)) / total if total > 0 else 0.5


def predict(prior: tuple[float, ...], case: CaseCounts, drop: float) -> Prediction:
    post = _posterior(prior, case.history)
    now = _likelihoods(case.now)
    moved = [0.0] * len(GRID)
    for i, weight in enumerate(post):
        for j, share in _dropped_to(i, drop):
            moved[j] += weight * share
    return Prediction([w * n for w, n in zip(post, now)], [w * n for w, n in zip(moved, now)])


def information(prediction: Prediction) -> float:
    """How much the next run can tell "dropped" from "unchanged" (Jeffreys' divergence of the two
    predictions of its outcome): high for a case whose history says it always passes."""
    p0, p1 = (min(max(p, 1e-9), 1 - 1e-9) for p in prediction.next_pass())
    return (p1 - p0) * (math.log(p1 / p0) - math.log((1 - p1) / (1 - p0)))


# ---------------------------------------------------------------- one gated metric


@dataclass(frozen=True)
class CaseEvidence:
    counts: CaseCounts
    factor: float
    information: float  # of its next run
    next_pass: tuple[float, float] = (0.5, 0.5)  # P(its next run passes) if unchanged, if dropped


@dataclass(frozen=True)
class Settle:
    """What would settle a case that is still unsure: this many more failing runs would fail the
    gate (0: none within the runs looked at), this many passing runs would clear it (0: not
    within 100)."""

    fails_to_fail: int
    passes_to_clear: int


@dataclass(frozen=True)
class MetricEvidence:
    name: str
    bar: float  # 1/(EVIDENCE_ALPHA x alpha): the evidence that fails the gate
    cases: tuple[CaseEvidence, ...]
    power: float  # settle a case once the chance it dropped is below 1 - power
    prior: tuple[float, ...]
    drop: float  # case_drop
    suite_cases: int  # the baseline's cases of this metric: a shard weighs "one case" as the whole suite does

    @cached_property
    def shares(self) -> tuple[float, ...]:
        return tuple(sorted({1 / max(1, self.suite_cases, len(self.cases)), DESIGN_SHARE}))

    @cached_property
    def log_evidence(self) -> tuple[float, ...]:
        """log of each share's product over cases."""
        return tuple(_log_product(self.cases, s) for s in self.shares)

    @cached_property
    def evidence(self) -> float:
        """The suite's evidence of a drop on this metric: the mean over shares."""
        return _mean_exp(self.log_evidence)

    @property
    def regressed(self) -> bool:
        return self.evidence >= self.bar

    def chance(self, case: CaseEvidence) -> float:
        """The chance this case dropped, if some share of the cases did (each share as likely as
        its evidence says)."""
        return _chance(case.factor, self.shares, self.log_evidence)

    def telling(self, case: CaseEvidence) -> float:
        """What the case's next run would tell about whether it dropped, at its chance now (the
        mutual information of the two): a case that passed every run so far tells less with each
        further pass, so the runs that look for hidden drops spread over the cases instead of
        piling onto the ones that already passed most."""
        chance = self.chance(case)
        unchanged, dropped = case.next_pass
        return _entropy((1 - chance) * unchanged + chance * dropped) - (1 - chance) * _entropy(unchanged) - chance * _entropy(dropped)

    def doubtful(self) -> list[CaseEvidence]:
        """Cases whose chance of having dropped is still above 1 - power: re-run them."""
        return [c for c in self.cases if self.chance(c) > 1 - self.power]

    @property
    def small(self) -> bool:
        """Under MANY cases in DESIGN_SHARE of the suite: no drop on several cases to look for."""
        return DESIGN_SHARE * max(self.suite_cases, len(self.cases)) < MANY

    @cached_property
    def open(self) -> bool:
        """Is a drop on DESIGN_SHARE of the cases not ruled out yet? Ruled out once its evidence is
        below 1 - power without the most suspicious case (whose own re-runs settle it): if that
        many cases had dropped, evidence this low would come up at most 1 - power of the time.
        In a small suite even every other case passing forever could not bring the evidence that
        low; there, halfway to that floor (on a log scale) rules it out. Under MANY cases there
        is no drop on several cases to look for: each case's own re-runs settle it."""
        if self.small or len(self.cases) < 2:
            return False
        top = max(self.cases, key=lambda c: c.factor)
        rest = [c for c in self.cases if c is not top]
        return any(_log_product(rest, s) > self._ruled_out(s, len(rest)) for s in self.shares if s >= DESIGN_SHARE)

    def _ruled_out(self, share: float, cases: int) -> float:
        return max(math.log(1 - self.power), cases * math.log(1 - share) / 2)

    @property
    def leaning(self) -> bool:
        """The rounds ended unsure and the evidence leans toward a drop: it fails the gate. Either
        the suite's evidence is at least LEAN, or it favors a drop at all (above 1) and some
        doubtful case is, by then, at least `power` likely to be the one that dropped."""
        if self.regressed:
            return False
        doubtful = self.doubtful()
        return bool(doubtful) and (self.evidence >= LEAN or (self.evidence > 1 and any(self.chance(c) >= self.power for c in doubtful)))

    def settle(self, case: CaseEvidence, runs_left: int) -> Settle:
        """More runs of one case, all failing or all passing, until the verdict changes."""
        fails = next((k for k in range(1, runs_left + 1) if self._with(case, fails=k).regressed), 0)
        passes = next((k for k in range(1, 101) if self._cleared(case, k)), 0)
        return Settle(fails, passes)

    def _cleared(self, case: CaseEvidence, passes: int) -> bool:
        after = self._with(case, passes=passes)
        return after.chance(after.cases[-1]) <= 1 - self.power

    def _with(self, case: CaseEvidence, passes: int = 0, fails: int = 0) -> MetricEvidence:
        """This evidence, had `case` had more runs (the case moves last)."""
        counts = CaseCounts(case.counts.key, case.counts.history, case.counts.now.plus(passes, fails))
        others = tuple(c for c in self.cases if c is not case)
        return replace(self, cases=(*others, _case_evidence(self.prior, counts, self.drop)))


def _entropy(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -(p * math.log(p) + (1 - p) * math.log(1 - p))


def _log_product(cases: list[CaseEvidence] | tuple[CaseEvidence, ...], share: float) -> float:
    if any(math.isinf(c.factor) for c in cases):
        return math.inf
    return sum(math.log(1 - share + share * c.factor) for c in cases)


def _mean_exp(logs: tuple[float, ...]) -> float:
    top = max(logs)
    if top == math.inf or top > 700:
        return math.inf
    return math.exp(top) * sum(math.exp(v - top) for v in logs) / len(logs)


def _chance(factor: float, shares: tuple[float, ...], logs: tuple[float, ...]) -> float:
    if math.isinf(factor):
        return 1.0
    top = max(logs)
    if top == math.inf:
        return 1.0 if factor > 1 else 0.0
    weights = [math.exp(v - top) for v in logs]
    per_share = [s * factor / (1 - s + s * factor) for s in shares]
    return sum(w * c for w, c in zip(weights, per_share)) / sum(weights)


def _case_evidence(prior: tuple[float, ...], counts: CaseCounts, drop: float) -> CaseEvidence:
    prediction = predict(prior, counts, drop)
    factor = prediction.factor if counts.now.runs else 1.0  # no runs, no evidence (exactly)
    return CaseEvidence(counts, factor, information(prediction), prediction.next_pass())


def metric_evidence(name: str, cases: list[CaseCounts], drop: float, alpha: float, power: float, population: list[Counts]) -> MetricEvidence:
    """`alpha`: this metric's false-alarm rate; the bar spends EVIDENCE_ALPHA of it. `population`:
    the planned counts of every baseline case of this metric (the prior is fitted to them), so
    that shards and their merge weigh a case alike."""
    prior = fit_prior(population)
    found: dict[tuple[Counts, Counts], CaseEvidence] = {}  # cases with the same counts weigh the same
    evidence = []
    for c in cases:
        if (c.history, c.now) not in found:
            found[c.history, c.now] = _case_evidence(prior, c, drop)
        same = found[c.history, c.now]
        evidence.append(replace(same, counts=c))
    return MetricEvidence(name, 1 / (alpha * EVIDENCE_ALPHA), tuple(evidence), power, prior, drop, len(population))
