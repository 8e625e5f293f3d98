"""Budgets: the allowed increase of a suite's tokens, model calls, tool calls, latency and dollar
cost against the baseline, judged as the score gate judges a drop (pure; docs/gate.md, "Budgets").

Per suite and budgeted figure, each case the baseline has figures for (same test) is paired
with its runs now, and the case is the unit. A budget is **breached** when

- the figure is **deterministic** (no case's runs vary, on either side, and some case ran at
  least twice to show it) and any case's figure rose by more than the budget, as a worsened case
  does in a deterministic score gate; or
- the **typical case's rise** (per case, the mean log figure now minus the baseline's; averaged
  over cases, as a ratio - 1) is beyond the budget and beyond noise, one-sided (did it rise?):
  its mean clears what it would be, 1 - alpha of the time, were each case's runs now and the
  baseline's shuffled between the two (nothing changed: they are exchangeable). That spread is
  computed exactly from every run; the bar is Student's t over the cases, raised by the
  shuffles' skew (never lowered).

The suite's total (the cases' mean figures summed, baseline -> PR: what the bill says) is shown
beside it. Alpha, 1 - confidence, is shared out over the suite's budgets (Bonferroni). With
`num_runs: auto` the budgets are tested on every case's first round and on its first
floor(run_budget) runs, at half of alpha each (`Looks`); while a breach is plausible but not
beyond noise, the cases whose runs vary run again until the second look. Each look is a test of
a fixed share of the runs, so however the rounds go the chance of breaching an unchanged figure
stays below alpha.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from array import array
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from statistics import NormalDist

from ..schema.baseline import Baseline, BaselineCase
from ..schema.settings import GateSettings, percent
from .digest import ScoredCase, ScoredResults
from .figures import FIGURES, run_figure

CASES_SHOWN = 10  # per-case deltas kept per budget, the largest rises first
SAME = 1e-9  # relative: figures closer than this are the same figure (floats written and read back)


# ---------------------------------------------------------------- statistics


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


@dataclass(frozen=True)
class Looks:
    """When the budgets are tested, and at what share of alpha. Fixed runs: once, on every run,
    at all of it. `num_runs: auto`: at most twice, each on a fixed share of the data, so that
    the re-runs a doubtful budget asks for cannot spend its alpha twice: on every case's first
    `first` runs (the first round) and on its first `last` runs (the most the run budget pays for
    every case), each at half of alpha. Between the two the budget only decides whether to go on."""

    first: int = 0  # 0: fixed runs, one look on every run
    last: int = 0

    def share(self, runs: int) -> float:
        """Alpha's share for a look on every case's first `runs` runs."""
        if not self.first or self.last <= self.first:
            return 1.0
        return 0.5 if runs in (self.first, self.last) else 0.0


def looks_of(results: ScoredResults) -> Looks:
    adaptive = results.adaptive
    if adaptive is None:
        return Looks()
    return Looks(adaptive.min_runs, max(adaptive.min_runs, min(adaptive.max_runs, int(adaptive.run_budget))))


# ---------------------------------------------------------------- one budget of one suite


@dataclass(frozen=True)
class CaseDelta:
    case: str
    baseline: float
    candidate: float
    runs: int  # runs now

    @property
    def rise(self) -> float:
        """Relative: +0.5 is 50% more; inf from nothing to something."""
        if self.baseline == 0:
            return 0.0 if self.candidate == 0 else math.inf
        return self.candidate / self.baseline - 1


@dataclass(frozen=True)
class BudgetSummary:
    suite: str
    key: str
    budget: float  # the allowed increase, 0.1 for +10%
    verdict: str  # breached | within | unsure (num_runs: auto, not the last look) | no baseline | not measured | figures lost
    cases: int  # paired cases
    baseline_total: float | None  # the paired cases' mean figures, summed: per run of the suite
    candidate_total: float | None
    increase: float | None  # candidate_total / baseline_total - 1; None from nothing (a total of 0) to something
    bound: float | None  # the lower end of the increase's 1 - alpha interval (informational)
    mode: str  # stochastic | deterministic
    drivers: tuple[CaseDelta, ...] = ()  # cases whose figure rose by more than the budget, largest first
    over: tuple[str, ...] = ()  # ... every such case's key, when the budget is breached
    reason: str = ""
    lost: tuple[str, ...] = ()  # cases whose baseline has the figure and whose runs now have none: why
    typical: float | None = None  # the typical case's rise (what the breach is judged on): geometric means, - 1
    typical_bound: float | None = None  # ... and the lower end of its 1 - alpha interval

    @property
    def breached(self) -> bool:
        return self.verdict == "breached"

    @property
    def doubtful(self) -> bool:
        """Within, but only because the rise over the budget is not beyond noise (the reason says what would settle it)."""
        return self.verdict == "within" and self.mode == "stochastic" and self.typical is not None and self.typical > self.budget + SAME

    @property
    def what(self) -> str:
        return FIGURES[self.key].what


def _candidate_mean(case: ScoredCase, key: str) -> tuple[float | None, int]:
    values = [v for v in (run_figure(r, key) for r in case.runs) if v is not None]
    return (sum(values) / len(values) if values else None), len(values)


def _varies(values: list[float]) -> bool:
    return len(values) > 1 and max(values) - min(values) > SAME * max(1.0, abs(max(values)))


@dataclass(frozen=True)
class _Pair:
    delta: CaseDelta
    before: tuple[float, ...]  # each baseline run's figure
    now: tuple[float, ...]  # each run's figure now

    @property
    def noisy(self) -> bool:
        return _varies(list(self.before)) or _varies(list(self.now))

    @property
    def settled(self) -> bool:
        """Its runs agree, and ran more than once to show it: a further run would tell nothing."""
        return not self.noisy and self.repeated

    @property
    def repeated(self) -> bool:
        """Ran more than once on some side: its agreement is evidence of no noise."""
        return len(self.before) > 1 or len(self.now) > 1


class _Pairs(Collection[_Pair]):
    """One budget's paired cases, kept in columns (the figures in one array): ~150 bytes a case
    where a `_Pair` object is ~500, so a 500,000-case suite's budget fits beside the comparison.
    Iterating gives each case's `_Pair`, made when asked for, in the results' order."""

    def __init__(self) -> None:
        self._keys: list[str] = []
        self._figures = array("d")  # each case's baseline runs, then its runs now
        self._ends = array("q")  # where each case's figures end in `_figures`
        self._now = array("q")  # how many of them are runs now

    def add(self, key: str, before: list[float], now: list[float]) -> None:
        self._keys.append(key)
        self._figures.extend(before + now)
        self._ends.append(len(self._figures))
        self._now.append(len(now))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[_Pair]:
        start = 0
        for key, end, runs in zip(self._keys, self._ends, self._now):
            before, now = tuple(self._figures[start:end - runs]), tuple(self._figures[end - runs:end])
            yield _Pair(CaseDelta(key, sum(before) / len(before), sum(now) / len(now), runs), before, now)
            start = end

    def __contains__(self, item: object) -> bool:
        return any(p == item for p in self)


def _pairs(results: ScoredResults, baseline: Baseline, suite: str, key: str) -> tuple[_Pairs, list[str], str]:
    """The paired cases, the cases that lost the figure, and why no run of the suite has it now
    ("" when one has, or no case ran without failing)."""
    pairs, lost = _Pairs(), []
    measured, unmeasured = False, ""
    for case in results.cases:
        if case.suite != suite:
            continue
        now = [v for v in (run_figure(r, key) for r in case.runs) if v is not None]
        measured = measured or bool(now)
        if not now and not case.run_errors and not unmeasured:
            unmeasured = f"{case.key}: {_missing(case, key)}"
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id)
        before = [v for v in (old.figures.get(key, []) if old is not None and _same_test(old, case) else []) if v is not None]
        if not before:
            continue
        if not now:
            if not case.run_errors:
                lost.append(f"{case.key}: {_missing(case, key)}")
            continue
        pairs.add(case.key, before, now)
    return pairs, lost, "" if measured else unmeasured


NOT_MEASURED = "not measured"
FIGURES_LOST = "figures lost"  # the baseline has the figure, and no case has it now: not "no baseline"
_USAGE = ("its model calls' token usage (ADK's events; a Python callable's or an HTTP agent's reply: `usage`, "
          "with `model` to price it; or its traces)")
_REPORTED_BY = {"invocation_duration_v1": "its turns' durations"}


def _same_test(old: BaselineCase | None, case: ScoredCase) -> bool:
    return old is not None and old.fingerprint == case.fingerprint


def _missing(case: ScoredCase, key: str) -> str:
    if key == "cost_usd":
        unpriced = sorted({m for r in case.runs for m in r.unpriced_models or []})
        if unpriced:
            return f"cost_usd unknown: no price for {', '.join(unpriced)} (add it under `prices:` in agenteval.yaml)"
        return "cost_usd unknown: no model call reported its token usage"
    return f"{key} not reported by any run"


def _increase(before: float, after: float) -> float:
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


def total_bound(pairs: Collection[_Pair], increase: float, alpha: float) -> float | None:
    """The lower bound on the suite's total increase: the ratio of sums linearized case by case
    (each case's c - R b over the mean b)."""
    if math.isinf(increase):
        return increase
    ratio, mean_before = increase + 1, sum(p.delta.baseline for p in pairs) / max(1, len(pairs))
    found = _t_bound(array("d", ((p.delta.candidate - ratio * p.delta.baseline) / mean_before for p in pairs)), alpha)
    return None if found is None else increase + found[1]


def _offset(pairs: Collection[_Pair]) -> float:
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


def shuffled(pair: _Pair, offset: float, runs: int | None = None) -> Shuffled:
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


def typical_rise(pairs: Collection[_Pair], alpha: float, runs: int | None = None) -> Rise:
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
    offset = _offset(pairs)
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


def _drawn_bar(pairs: Collection[_Pair], offset: float, runs: int | None, alpha: float) -> float:
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


def _split_ratios(pair: _Pair, offset: float, runs: int | None, rng: random.Random) -> list[float]:
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


def runs_to_settle(pairs: Collection[_Pair], rise: Rise, alpha: float) -> int | None:
    """Runs per case now that would put this rise beyond noise at one look, were it real; None
    when no number would (the baseline's own runs are too few: their noise alone is too large)."""
    offset, n = _offset(pairs), len(pairs)
    spreads, per_baseline_run = array("d"), array("d")
    for p in pairs:
        spread = shuffled(p, offset).spread
        spreads.append(spread)
        per_baseline_run.append(spread / len(p.before))
    aim = (n * math.log1p(rise.typical) / _bar(alpha, n)) ** 2 - sum(per_baseline_run)
    if rise.typical <= 0 or aim <= 0:
        return None
    return max(1, math.ceil(sum(spreads) / aim))


def budget_summary(suite: str, key: str, budget: float, pairs: Collection[_Pair], lost: list[str], alpha: float,
                   last_look: bool = True, looks: Looks = Looks(), power: float = 0.9, unmeasured: str = "") -> BudgetSummary:
    """Deterministic: any case's rise beyond the budget breaches it. Otherwise the typical case's
    rise must be beyond the budget and beyond noise (one-sided: did it rise?). The suite's total
    is reported beside it (what the bill says), with its own bound. `unmeasured`: why no run of
    the suite has the figure now (a budget no evidence can hold, not one that passed)."""
    if not pairs and lost:
        why = (f"the baseline has {FIGURES[key].what} for {len(lost)} case(s) and no run has it now (first: {lost[0]}); "
               f"the agent must report {_REPORTED_BY.get(key, _USAGE)} again: the baseline's figures stay the reference")
        return BudgetSummary(suite, key, budget, FIGURES_LOST, 0, None, None, None, None, "stochastic", reason=why, lost=tuple(lost))
    if not pairs and unmeasured:
        why = (f"no run of the suite reported {FIGURES[key].what} (first: {unmeasured}); the agent must report "
               f"{_REPORTED_BY.get(key, _USAGE)}, or drop this budget for the suite (`suite_budgets: {{{suite}: {{{key}: null}}}}`)")
        return BudgetSummary(suite, key, budget, NOT_MEASURED, 0, None, None, None, None, "stochastic", reason=why, lost=tuple(lost))
    if not pairs:
        why = ("no case of the baseline has this figure for the same test: accept a baseline made with this budget set "
               "(from runs that report the figure: a model's usage, a price, turn durations)")
        return BudgetSummary(suite, key, budget, "no baseline", 0, None, None, None, None, "stochastic", reason=why, lost=tuple(lost))
    before, after = sum(p.delta.baseline for p in pairs), sum(p.delta.candidate for p in pairs)
    increase = _increase(before, after)
    deterministic = not any(p.noisy for p in pairs) and any(p.repeated for p in pairs)
    def rose() -> Iterator[CaseDelta]:  # the cases whose figure rose by more than the budget
        return (p.delta for p in pairs if p.delta.rise > budget + SAME)

    over = sum(1 for _ in rose())
    runs = look_runs(pairs, looks)
    share = looks.share(runs)
    rise = typical_rise(pairs, alpha * share, runs if looks.first else None)
    bound = None if deterministic else total_bound(pairs, increase, alpha)
    unsure = False
    if deterministic:
        breached = bool(over) or increase > budget + SAME
        reason = (f"{over} case(s) rose by more than {percent(budget)}, and no case's runs vary (deterministic)" if breached else "")
    else:
        beyond = rise.typical > budget + SAME
        breached = beyond and rise.bound is not None and rise.bound > 0
        unsure = not breached and (beyond or (not last_look and rise.plausible(budget, power)))
        reason = _noisy_reason(pairs, rise, budget, alpha, breached, beyond, looks, runs)
    verdict = "breached" if breached else "unsure" if unsure and not last_look else "within"
    return BudgetSummary(
        suite, key, budget, verdict, len(pairs), before, after, _finite(increase), _finite(bound), "deterministic" if deterministic else "stochastic",
        drivers=tuple(heapq.nsmallest(CASES_SHOWN, rose(), key=lambda d: (-(d.candidate - d.baseline), d.case))),
        over=tuple(sorted(d.case for d in rose())) if breached else (), reason=reason, lost=tuple(lost),
        typical=rise.typical, typical_bound=rise.bound,
    )


def look_runs(pairs: Collection[_Pair], looks: Looks) -> int:
    """The runs now every case is judged on at this look: the fewest any case whose runs vary
    has (a case whose runs agree is not run again), at most the last look's."""
    if not looks.first:
        return max(len(p.now) for p in pairs)
    varying = [len(p.now) for p in pairs if not p.settled]
    return min(min(varying, default=looks.last), looks.last)


def _noisy_reason(pairs: Collection[_Pair], rise: Rise, budget: float, alpha: float, breached: bool, beyond: bool, looks: Looks, runs: int) -> str:
    share = looks.share(runs)
    words = (f"the typical case rose {_pct(rise.typical)} ({1 - alpha * share:.{0 if share == 1 else 1}%} bound {_pct(rise.bound)})" if share
             else f"the typical case rose {_pct(rise.typical)} (judged at {looks.first} or {looks.last} runs per case; its cases have {runs})")
    if breached:
        return f"over the budget and beyond noise: {words}"
    if not beyond:
        return ""
    return f"unsure: over the budget by the estimate but not beyond noise: {words}; {_what_settles(pairs, rise, alpha)}"


def _what_settles(pairs: Collection[_Pair], rise: Rise, alpha: float) -> str:
    if len(pairs) < 2:  # the bar is Student's t over the cases: one case has no spread to judge by
        return "one case has the figure on both sides, too few to tell a rise from noise: more cases with it would"
    needed = runs_to_settle(pairs, rise, alpha)
    if needed:
        return f"about {needed} run(s) per case would settle it if the rise is real (`num_runs: {needed}`, or `num_runs: auto`)"
    return "more runs now cannot settle it: the baseline's own runs are too few (accept a baseline run with a higher num_runs)"


def _finite(value: float | None) -> float | None:
    """JSON has no infinity: a rise from nothing is None, and says so where shown."""
    return None if value is None or math.isinf(value) else value


def _pct(value: float | None) -> str:
    if value is None:
        return "–"
    return "+inf%" if math.isinf(value) else f"{value:+.1%}"


def compare_budgets(results: ScoredResults, baseline: Baseline | None, settings: GateSettings, *, last_look: bool = True) -> tuple[BudgetSummary, ...]:
    """Every budget of every suite in the results, against the baseline (none without one)."""
    if baseline is None:
        return ()
    suites = sorted(set(results.suites) | {c.suite for c in results.cases})
    found = []
    for suite in suites:
        budgets = settings.budgets_for(suite)
        if not budgets:
            continue
        alpha = (1 - settings.confidence) * ALPHA_SPENT / len(budgets)
        for key, budget in sorted(budgets.items()):
            pairs, lost, unmeasured = _pairs(results, baseline, suite, key)
            found.append(budget_summary(suite, key, budget, pairs, lost, alpha, last_look, looks_of(results), settings.power, unmeasured))
    return tuple(found)


def over_budget_cases(budgets: Iterable[BudgetSummary]) -> dict[str, list[str]]:
    """Case key -> the budgets it breached (as `key +x%`)."""
    cases: dict[str, list[str]] = {}
    for summary in budgets:
        by_case = {d.case: d for d in summary.drivers}
        for key in sorted(summary.over):
            rise = f" {_pct(by_case[key].rise)}" if key in by_case else ""
            cases.setdefault(key, []).append(f"{summary.key}{rise}")
    return cases


def budget_reasons(budgets: Iterable[BudgetSummary]) -> tuple[list[str], list[str]]:
    """(why the gate fails, figures missing now: those the baseline had, and budgets no run measured)."""
    failed, lost = [], []
    for s in budgets:
        if s.breached:
            shown = ", ".join(f"{d.case} {fmt_figure(s.key, d.baseline)} → {fmt_figure(s.key, d.candidate)} ({_pct(d.rise)})" for d in s.drivers[:3])
            failed.append(f"{s.suite}: over budget on {s.key} ({s.what}, summed over {s.cases} case(s)): {fmt_figure(s.key, s.baseline_total)} → "
                          f"{fmt_figure(s.key, s.candidate_total)}, {change_text(s.increase)} against {percent(s.budget)} allowed; {s.reason}"
                          + (f"; most: {shown}" if shown else ""))
        if s.lost:
            lost.append(f"{s.suite}: {len(s.lost)} case(s) lost the budgeted figure {s.key} (first: {s.lost[0]})")
        elif s.verdict == NOT_MEASURED:
            lost.append(f"{s.suite}: the budget on {s.key} was not measured: {s.reason}")
    return failed, lost


def fmt_figure(key: str, value: float | None) -> str:
    """A figure as reports show it: its unit's decimals, thousands separated, dollars marked."""
    if value is None:
        return "–"
    return f"${value:,.{FIGURES[key].digits}f}" if key == "cost_usd" else f"{value:,.{FIGURES[key].digits}f}"


def change_text(increase: float | None) -> str:
    """A suite's change in words; None is a rise from nothing."""
    return "up from nothing" if increase is None else _pct(increase)


# ---------------------------------------------------------------- num_runs: auto


@dataclass(frozen=True)
class BudgetRerun:
    key: str
    why: str
    priority: float


def budget_reruns(results: ScoredResults, baseline: Baseline | None, settings: GateSettings) -> tuple[list[BudgetRerun], str]:
    """After a round: the cases to run again because a breach of a budget is plausible but not
    beyond noise yet, and, when a budget is already breached, why no round can undo that. Every
    case of the suite whose runs vary, up to the last look's runs (the look needs them all), the
    noisiest first: a run of those shrinks the noise most."""
    wanted: list[BudgetRerun] = []
    looks = looks_of(results)
    for s in compare_budgets(results, baseline, settings, last_look=False):
        if s.breached:
            return [], f"{s.suite}: over budget on {s.key} ({change_text(s.increase)} against {percent(s.budget)})"
        if s.verdict != "unsure" or baseline is None:
            continue
        pairs = _pairs(results, baseline, s.suite, s.key)[0]
        offset = _offset(pairs)
        noise = {p.delta.case: shuffled(p, offset).spread for p in pairs if not p.settled and len(p.now) < looks.last}
        top = max(noise.values(), default=0.0) or 1.0
        why = (f"{s.key}: a rise over its budget ({percent(s.budget)}) is not ruled out, nor beyond noise yet "
               f"(the typical case {_pct(s.typical)}, the suite {change_text(s.increase)})")
        wanted += [BudgetRerun(case, why, 0.5 * value / top) for case, value in noise.items()]
    return wanted, ""


# ---------------------------------------------------------------- the agent's dollar cost


@dataclass(frozen=True)
class SuiteCost:
    """What one run of the suite cost in the agent's model calls (the cases' mean cost per run,
    summed), and against the baseline over the cases both have priced."""

    suite: str
    cost: float | None  # every case now; None when some case's cost is unknown (`unknown` says why)
    unknown: str = ""
    cases: int = 0  # paired with the baseline
    baseline: float | None = None  # those cases in the baseline ...
    paired: float | None = None  # ... and now
    change: float | None = None  # paired / baseline - 1


def suite_costs(results: ScoredResults, baseline: Baseline | None) -> tuple[SuiteCost, ...]:
    """Per suite whose agent reported its model usage (a Python agent may report none)."""
    found = (_suite_cost(results, baseline, suite) for suite in sorted({c.suite for c in results.cases}))
    return tuple(cost for cost in found if cost is not None)


def _suite_cost(results: ScoredResults, baseline: Baseline | None, suite: str) -> SuiteCost | None:
    """A case at a time (a suite may have 100,000s): the first case without a cost, and a count."""
    def cases() -> Iterator[ScoredCase]:
        return (c for c in results.cases if c.suite == suite)

    if not any(r.cost_usd is not None or r.unpriced_models for c in cases() for r in c.runs):
        return None  # no model call reported its usage: nothing to price, nothing to say
    means, missing, first = array("d"), 0, ""
    for case in cases():
        if case.run_errors:
            continue
        mean = _candidate_mean(case, "cost_usd")[0]
        if mean is None:
            missing += 1
            first = first or f"{case.key}: {_missing(case, 'cost_usd')}"
        else:
            means.append(mean)
    cost = None if missing or not means else sum(means)
    pairs = _pairs(results, baseline, suite, "cost_usd")[0] if baseline else _Pairs()
    before = sum(p.delta.baseline for p in pairs) if pairs else None
    after = sum(p.delta.candidate for p in pairs) if pairs else None
    change = _finite(_increase(before, after)) if before is not None and after is not None else None
    unknown = f"{missing} case(s) without a cost (first: {first})" if missing else ""
    return SuiteCost(suite, cost, unknown, len(pairs), before, after, change)
