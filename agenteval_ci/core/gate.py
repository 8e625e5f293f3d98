"""The noise-aware gate: compare a results file with a baseline and decide (pure, no I/O).

Plain-words design in docs/gate.md. In short: the case is the unit (repeats are averaged
within a case); per metric a seeded paired bootstrap over cases gives the delta's CI and an
exact sign test counts per-case pass->fail flips, Bonferroni-corrected over metrics; a case
that passed every baseline run and failed every candidate run is a hard break, tested with
Fisher's exact test and Holm's correction over all case x metric pairs. When no case shows
run-to-run noise (deterministic agents, or a single run), any newly failing case fails.
With `num_runs: auto` a sequential rule (sequential.py) replaces the fixed-sample tests of
metrics that show noise, since the runs were chosen by peeking at them.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Protocol

from ..schema import Status
from ..schema.baseline import Baseline, BaselineCase, BaselineMetric
from ..schema.project import MAX_NUM_RUNS
from ..schema.settings import GateSettings, Severity
from .baseline import rubric_pass_rates
from .budgets import BudgetSummary, SuiteCost, budget_reasons, compare_budgets, over_budget_cases, suite_costs
from .digest import ScoredCase, ScoredMetric, ScoredResults
from .head_to_head import HEAD_TO_HEAD, HeadToHead, head_to_head
from .judge_change import JudgeChange, judged_alike
from .judge_fingerprint import tolerance_scale
from .metrics.base import unscored_evidence
from .policy import PartResults, has_parts, metric_names, of_severity, part_baseline, policy_lines
from .selection import selected
from .sequential import LEAN, CaseCounts, CaseEvidence, Counts, MetricEvidence, metric_evidence
from .shards import in_shard

OUTCOMES = (
    "regressed", "over_budget", "newly_failing", "worsened", "unevaluated", "fixed", "flaky", "improved", "unchanged", "incomparable", "new", "removed",
)
FALL = 1e-9  # any_drop: a fall smaller than this is the rounding of equal scores' means
BOOTSTRAP_WORK = 4_000_000  # resamples x cases; bounds the time on very large suites


@dataclass(frozen=True)
class RubricSummary:
    rubric_id: str
    baseline_rate: float | None
    candidate_rate: float | None
    cases: int


@dataclass(frozen=True)
class MetricSummary:
    name: str
    verdict: str  # regressed | improved | unchanged | no baseline
    cases: int  # comparable cases used for inference
    baseline_mean: float | None
    candidate_mean: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    mode: str  # stochastic | deterministic
    flips_down: int = 0  # case passed in the baseline, fails now
    flips_up: int = 0
    flip_p: float | None = None
    hard_breaks: int = 0  # credible per-case breaks
    candidate_passed: int = 0
    candidate_failed: int = 0
    reason: str = ""
    rubrics: tuple[RubricSummary, ...] = ()
    evidence: float | None = None  # num_runs: auto: the sequential evidence of a drop
    evidence_bar: float | None = None  # ... and the value that fails the gate
    unsure: tuple[str, ...] = ()  # ... cases still unsure when the runs ended, most doubtful first
    leaning: bool = False  # ... and the evidence leans toward a drop: the gate fails
    settle: str = ""  # ... what would settle the most doubtful case


@dataclass(frozen=True, slots=True)  # one per gated metric of every case: small
class CaseMetric:
    name: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    baseline_status: str | None
    candidate_status: str
    threshold: float | None
    comparable: bool
    counted: bool = False  # this metric made the case a regression


@dataclass(frozen=True, slots=True)  # one per case: small
class CaseOutcome:
    suite: str
    eval_set_id: str
    eval_id: str
    outcome: str
    status: str | None  # candidate case status; None for removed
    baseline_status: str | None
    metrics: tuple[CaseMetric, ...] = ()
    note: str = ""

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.eval_set_id}/{self.eval_id}"

    @property
    def counted(self) -> list[str]:
        """The metrics that made this case a regression."""
        return [m.name for m in self.metrics if m.counted]

    @property
    def worse_metrics(self) -> list[str]:
        """The metrics that matter for this case: those counted as regressions, else those failing."""
        return self.counted or [m.name for m in self.metrics if m.candidate_status == Status.FAILED.value]


@dataclass(frozen=True)
class Comparison:
    verdict: str  # passed | failed
    exit_code: int
    regressions: int  # cases the gate counts as regressed
    fail_on: str
    has_baseline: bool
    reasons: tuple[str, ...]
    metrics: tuple[MetricSummary, ...]
    cases: CaseOutcomes  # most important first
    counts: dict[str, int] = field(default_factory=dict)
    confidence: float = 0.95
    tolerance: float = 0.05
    baseline_edited: bool = False
    accepted_by: str = ""  # the verdict used the PR's own baseline, accepted by this writer
    warnings: tuple[str, ...] = ()  # what the gate saw but was told not to fail on (gate.not_evaluated: warn)
    budgets: tuple[BudgetSummary, ...] = ()  # gate.budgets, per suite and figure (core/budgets/)
    costs: tuple[SuiteCost, ...] = ()  # the agent's model cost per run of each suite, baseline -> PR
    judge_changes: tuple[JudgeChange, ...] = ()  # judged metrics whose judge differs from the baseline's
    policy: tuple[str, ...] = ()  # gate.metrics' rules that differ from the defaults, in words (core/policy.py)
    advisories: tuple[Advisory, ...] = ()  # the metrics that warn or only report, each part judged apart
    head_to_head: tuple[HeadToHead, ...] = ()  # head_to_head_v1 against the baseline's recorded answers (core/head_to_head.py)


@dataclass(frozen=True)
class Advisory:
    """The metrics of one non-blocking severity, compared as the gate compares the blocking ones:
    `warn` says what would have failed (its `reasons`), `report` only shows (no verdict)."""

    severity: str  # warn | report
    reasons: tuple[str, ...]  # warn: what fails here, never failing the check
    metrics: tuple[MetricSummary, ...]
    cases: tuple[CaseOutcome, ...]  # warn: its cases that regressed, newly fail, worsened or lost evidence


# ---------------------------------------------------------------- statistics (stdlib only)


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
    return sum(math.comb(n, k) for k in range(down, n + 1)) / 2**n


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


# ---------------------------------------------------------------- pairing


@dataclass(frozen=True)
class Pair:
    """One metric on one case that both sides scored under the same test and config."""

    case: str
    baseline: float
    candidate: float
    baseline_passes: int
    baseline_fails: int
    candidate_passes: int
    candidate_fails: int
    baseline_passed: bool
    candidate_passed: bool
    noisy: bool  # runs disagree on at least one side
    history: Counts  # every run of the baseline's history of this case (num_runs: auto weighs it)
    suite: str = ""
    scale: float = 1.0  # the tolerance's multiplier for this metric (judge_fingerprint.tolerance_scale)

    @property
    def delta(self) -> float:
        return self.candidate - self.baseline

    @property
    def counts(self) -> CaseCounts:
        return CaseCounts(self.case, self.history, Counts(self.candidate_passes, self.candidate_fails))

    @property
    def is_hard_break(self) -> bool:
        return self.baseline_fails == 0 and self.baseline_passes > 0 and self.candidate_passes == 0 and self.candidate_fails > 0


def case_key(case: ScoredCase) -> str:
    return case.key


def _gated(metric: ScoredMetric | BaselineMetric) -> bool:
    return metric.threshold is not None and metric.status != Status.INFORMATIONAL


def _pair(key: str, old: BaselineMetric, new: ScoredMetric, suite: str = "") -> Pair | None:
    old_scores = [s for s in old.runs if s is not None]
    new_scores = [r.score for r in new.runs if r.score is not None]
    if old.score is None or new.score is None:
        return None
    new_statuses = [r.status for r in new.runs]
    baseline_passes, baseline_fails = old.pass_counts()
    return Pair(
        case=key,
        baseline=mean(old_scores) if old_scores else old.score,
        candidate=new.score,
        baseline_passes=baseline_passes,
        baseline_fails=baseline_fails,
        candidate_passes=new_statuses.count(Status.PASSED),
        candidate_fails=new_statuses.count(Status.FAILED),
        baseline_passed=old.status == Status.PASSED,
        candidate_passed=new.status == Status.PASSED,
        noisy=len(set(old_scores)) > 1 or len(set(new_scores)) > 1,
        history=Counts(*old.history_counts()),
        suite=suite,
        scale=tolerance_scale(new.judge),
    )


def comparable(old: BaselineCase, case: ScoredCase, name: str) -> bool:
    previous = old.metrics.get(name)
    return previous is not None and old.fingerprint == case.fingerprint and previous.config_fingerprint == case.metrics[name].config_fingerprint


def each_pair(results: ScoredResults, baseline: Baseline) -> Iterator[tuple[str, Pair]]:
    """(metric, pair) of every case in turn: made one at a time, never all held."""
    for case in results.cases:
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id)
        if old is None:
            continue
        for name, metric in case.metrics.items():
            if _gated(metric) and comparable(old, case, name):
                pair = _pair(case_key(case), old.metrics[name], metric, case.suite)
                if pair is not None:
                    yield name, pair


def metric_pairs(results: ScoredResults, baseline: Baseline) -> dict[str, list[Pair]]:
    """Every pair, by metric (num_runs: auto's re-run planner reads them whole)."""
    pairs: dict[str, list[Pair]] = {}
    for name, pair in each_pair(results, baseline):
        pairs.setdefault(name, []).append(pair)
    return pairs


@dataclass
class Paired:
    """What the gate's tests read of one metric's pairs, added a pair at a time: the scores as
    arrays of floats (8 bytes a case; the bootstrap draws from them as from a list, and `sum`
    adds them as it adds a list), the flips as counts, and case keys only of the cases that
    may count as regressions. `num_runs: auto` keeps each case's run counts for the sequential
    rule (its suites are run live, by agents: never the 100,000-case recorded kind)."""

    tolerance: float
    keep_counts: bool = False
    baseline: array[float] = field(default_factory=lambda: array("d"))
    candidate: array[float] = field(default_factory=lambda: array("d"))
    deltas: array[float] = field(default_factory=lambda: array("d"))
    down: int = 0  # passed in the baseline, fails now
    up: int = 0
    newly_failing: set[str] = field(default_factory=set)
    worsened: set[str] = field(default_factory=set)
    noisy: bool = False  # runs disagree on at least one side of some case
    breaks: dict[str, float] = field(default_factory=dict)  # case -> Fisher's p of its every-run break
    counts: list[CaseCounts] = field(default_factory=list)
    fallen: dict[str, float] = field(default_factory=dict)  # any_drop: case -> its fall, noise or not

    def add(self, pair: Pair, any_drop: bool = False) -> None:
        self.baseline.append(pair.baseline)
        self.candidate.append(pair.candidate)
        self.deltas.append(pair.delta)
        self.down += pair.baseline_passed and not pair.candidate_passed
        self.up += pair.candidate_passed and not pair.baseline_passed
        if pair.baseline_passed and not pair.candidate_passed:
            self.newly_failing.add(pair.case)
        if pair.delta < -self.tolerance:
            self.worsened.add(pair.case)
        self.noisy = self.noisy or pair.noisy
        if pair.is_hard_break:
            self.breaks[pair.case] = hard_break_p(pair.baseline_passes, pair.candidate_fails)
        else:
            self.breaks.pop(pair.case, None)  # a repeated case: its last pair stands, as in a dict
        if self.keep_counts:
            self.counts.append(pair.counts)
        if any_drop and pair.delta < -FALL:
            self.fallen[pair.case] = pair.delta
        else:
            self.fallen.pop(pair.case, None)

    def __len__(self) -> int:
        return len(self.deltas)


def paired_metrics(results: ScoredResults, baseline: Baseline, settings: GateSettings) -> dict[str, Paired]:
    """Each metric's pairs, tallied in one pass over the cases."""
    paired: dict[str, Paired] = {}
    auto = results.adaptive is not None
    for name, pair in each_pair(results, baseline):
        if name not in paired:
            paired[name] = Paired(settings.for_metric(name).tolerance * pair.scale, keep_counts=auto)
        paired[name].add(pair, settings.any_drop_of(pair.suite, name))
    return paired


# ---------------------------------------------------------------- per metric


@dataclass(frozen=True)
class _Inference:
    summary: MetricSummary
    counted: frozenset[str]  # case keys this metric's regression is made of


def _infer_metric(
    name: str, pairs: Paired, settings: GateSettings, alpha: float, breaks: set[str], noise: bool,
    sequential: MetricEvidence | None = None, max_runs: int = 0,
) -> _Inference:
    """`sequential` (num_runs: auto) replaces the fixed-sample tests, which peeking would fool,
    and the deterministic rule: the suite's fitted flakiness says how much a flip tells."""
    delta = mean(pairs.deltas)
    # A fixed-sample interval means nothing over runs chosen by peeking: none in num_runs: auto.
    draws = bootstrap_means(pairs.deltas, f"{settings.seed}:{name}") if sequential is None else []
    two_sided = (1 - settings.confidence) / 2
    ci_low, ci_high = (quantile(draws, two_sided), quantile(draws, 1 - two_sided)) if draws else (None, None)
    down, up = pairs.down, pairs.up
    flip_p = sign_test_p(down, up)
    deterministic = not noise and sequential is None
    dropped = delta < -pairs.tolerance
    credible_mean = bool(draws) and quantile(draws, 1 - alpha) < 0
    credible_flips = flip_p <= alpha
    newly_failing, worsened = pairs.newly_failing, pairs.worsened
    unsure: tuple[str, ...] = ()
    settle = ""
    if sequential is not None:
        regressed = sequential.regressed or sequential.leaning
        doubtful = sorted(sequential.doubtful(), key=lambda c: (-sequential.chance(c), c.counts.key))
        unsure = tuple(c.counts.key for c in doubtful)
        settle = _what_settles(sequential, doubtful[0], max_runs) if doubtful and not sequential.regressed else ""
        reason = _sequential_reason(sequential, settle) if regressed else ""
    elif deterministic:  # no noise to hide in: any newly failing case, any case that dropped
        regressed = bool(newly_failing or worsened) or dropped
        reason = "deterministic: no run-to-run variation in these runs or the baseline's history, so every newly failing or worsened case counts" if regressed else ""
    else:
        regressed = dropped and (credible_mean or credible_flips)
        reason = _stochastic_reason(credible_mean, credible_flips) if regressed else ""
    if pairs.fallen and not regressed:
        regressed, reason = True, _any_drop_reason(pairs.fallen)
    credible_rise = ci_low > 0 if ci_low is not None else sign_test_p(up, down) <= alpha
    improved = not regressed and delta > pairs.tolerance and credible_rise
    counted = set(breaks)  # the breaks are of this metric's pairs
    if regressed and sequential is not None:
        counted |= {c.counts.key for c in sequential.cases if sequential.chance(c) >= 0.5}
    elif regressed:
        counted |= worsened
        counted |= newly_failing if deterministic else set()
    counted |= set(pairs.fallen)
    summary = MetricSummary(
        name=name,
        verdict="regressed" if regressed else "improved" if improved else "unchanged",
        cases=len(pairs),
        baseline_mean=mean(pairs.baseline),
        candidate_mean=mean(pairs.candidate),
        delta=delta,
        ci_low=ci_low,
        ci_high=ci_high,
        mode="sequential" if sequential else "deterministic" if deterministic else "stochastic",
        flips_down=down,
        flips_up=up,
        flip_p=flip_p,
        hard_breaks=len(counted & breaks),
        reason=reason,
        evidence=sequential.evidence if sequential else None,
        evidence_bar=sequential.bar if sequential else None,
        unsure=unsure,
        leaning=bool(sequential and sequential.leaning),
        settle=settle,
    )
    return _Inference(summary, frozenset(counted))


def _with_rule(summary: MetricSummary, settings: GateSettings) -> str:
    """A regression's reason, naming the metric's own settings when gate.metrics gives it some."""
    rule = settings.metrics.get(summary.name)
    own = [f"{k} {getattr(rule, k):g}" for k in ("tolerance", "case_drop", "power") if rule is not None and getattr(rule, k) is not None]
    if summary.verdict != "regressed" or not own:
        return summary.reason
    return f"{summary.reason}; under gate.metrics.{summary.name}: {', '.join(own)}"


def _any_drop_reason(fallen: dict[str, float]) -> str:
    first = min(fallen, key=lambda case: (fallen[case], case))
    return f"any_drop: {len(fallen)} case(s) scored lower than in the baseline, noise or not (most: {first} {fallen[first]:+.3g})"


def _sequential_reason(sequential: MetricEvidence, settle: str) -> str:
    if sequential.regressed:
        return f"sequential evidence {sequential.evidence:.3g} reached its bar {sequential.bar:g}"
    why = (f"at least {LEAN:g}: a drop more likely than not" if sequential.evidence >= LEAN
           else f"above 1, and a case at least {sequential.power:.0%} likely to be one that dropped")
    return f"still unsure when the runs ended, and the evidence leans toward a drop: {sequential.evidence:.3g} ({why}; {sequential.bar:g} would be sure); {settle}"


def _what_settles(sequential: MetricEvidence, case: CaseEvidence, max_runs: int) -> str:
    """The runs that would settle the most doubtful case, in words."""
    now = case.counts.now
    found = sequential.settle(case, MAX_NUM_RUNS - now.runs)
    fail = f"{found.fails_to_fail} more failing run(s) would make the gate sure of a drop" if found.fails_to_fail else "no number of failing runs alone would"
    clear = f"{found.passes_to_clear} passing run(s) would clear it" if found.passes_to_clear else "passing runs alone would not clear it"
    left = "it reached max_runs" if now.runs >= max_runs else f"{max_runs - now.runs} run(s) below max_runs were left when the run budget ran out"
    return (f"{len(sequential.doubtful())} case(s) still unsure, most of all {case.counts.key} (history passed {case.counts.history}, "
            f"now {now}; chance it dropped {sequential.chance(case):.0%}): {fail}, {clear}; {left} (raise max_runs or run_budget)")


def _stochastic_reason(credible_mean: bool, credible_flips: bool) -> str:
    why = [w for w, ok in (("the mean's drop is outside the noise", credible_mean), ("pass->fail flips outnumber fixes beyond chance", credible_flips)) if ok]
    return "; ".join(why)


def _hard_breaks(paired: dict[str, Paired], alpha: float) -> dict[str, set[str]]:
    """Per metric, the cases whose every-run break survives Holm over all noisy case x metric pairs."""
    noisy_metrics = {name: p for name, p in paired.items() if p.noisy}
    pvalues = {(name, case): p for name, metric in noisy_metrics.items() for case, p in metric.breaks.items()}
    rejected = holm(pvalues, alpha, sum(len(p) for p in noisy_metrics.values()))
    out: dict[str, set[str]] = {}
    for name, case in rejected:
        out.setdefault(name, set()).add(case)
    return out


def _rubric_summaries(name: str, results: ScoredResults, baseline: Baseline | None) -> tuple[RubricSummary, ...]:
    """Each rubric's pass rate, baseline vs PR, over the same cases: the comparable ones where
    the rubric was judged on both sides (every judged case when there is no baseline)."""
    old_rates: dict[str, array[float]] = {}
    new_rates: dict[str, array[float]] = {}
    for case in results.cases:
        if name not in case.metrics:
            continue
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id) if baseline else None
        if baseline is not None and (old is None or not comparable(old, case, name)):
            continue
        before = old.metrics[name].rubrics if old else None
        for rubric, rate in rubric_pass_rates(case.metrics[name]).items():
            if before is not None and rubric not in before:
                continue  # judged on one side only: a pass rate over different cases would mislead
            new_rates.setdefault(rubric, array("d")).append(rate)
            if before is not None:
                old_rates.setdefault(rubric, array("d")).append(before[rubric])
    return tuple(
        RubricSummary(
            rubric_id=rubric,
            baseline_rate=mean(old_rates[rubric]) if rubric in old_rates else None,
            candidate_rate=mean(new_rates[rubric]) if rubric in new_rates else None,
            cases=max(len(new_rates.get(rubric, ())), len(old_rates.get(rubric, ()))),
        )
        for rubric in sorted(set(old_rates) | set(new_rates))
    )


def sequential_evidence(name: str, pairs: dict[str, list[Pair]], settings: GateSettings, baseline: Baseline) -> MetricEvidence:
    """num_runs: auto: one metric's sequential evidence; alpha is shared out over the metrics (Bonferroni)."""
    return _evidence(name, [p.counts for p in pairs[name]], len(pairs), settings.for_metric(name), baseline)


def _evidence(name: str, counts: list[CaseCounts], metrics: int, settings: GateSettings, baseline: Baseline) -> MetricEvidence:
    alpha = (1 - settings.confidence) / max(1, metrics)
    return metric_evidence(name, counts, settings.case_drop, alpha, settings.power, planned_population(baseline, name))


def _baseline_metrics(baseline: Baseline, name: str) -> Iterator[BaselineMetric]:
    found = (case.metrics.get(name) for sets in baseline.suites.values() for cases in sets.values() for case in cases.values())
    return (m for m in found if m is not None)


def planned_population(baseline: Baseline, name: str) -> list[Counts]:
    """Every baseline case's planned pass counts on a metric (the suite's prior is fitted to them):
    the same for each shard and for their merge."""
    return [Counts(*m.planned_counts()) for m in _baseline_metrics(baseline, name)]


def noisy(pairs: Iterable[Pair] | Paired, baseline: Baseline | None, name: str) -> bool:
    """Run-to-run variation seen on this metric: in these runs, or in any baseline case's history
    (a case is deterministic only on evidence, never because it happened to run once)."""
    if pairs.noisy if isinstance(pairs, Paired) else any(p.noisy for p in pairs):
        return True
    return baseline is not None and any(all(m.history_counts()) for m in _baseline_metrics(baseline, name))


def _metric_names(results: ScoredResults) -> list[str]:
    return sorted({name for c in results.cases for name, m in c.metrics.items() if _gated(m)})


def _candidate_counts(name: str, results: ScoredResults) -> tuple[int, int, float | None]:
    passed = failed = 0
    scores: array[float] = array("d")
    for case in results.cases:
        metric = case.metrics.get(name)
        if metric is None:
            continue
        if metric.score is not None:
            scores.append(metric.score)
        passed += metric.status == Status.PASSED
        failed += metric.status == Status.FAILED
    return passed, failed, mean(scores) if scores else None


def _summaries(results: ScoredResults, baseline: Baseline | None, settings: GateSettings) -> tuple[list[MetricSummary], set[tuple[str, str]]]:
    """Per metric summary, and the (case key, metric) pairs counted as regressions."""
    names = _metric_names(results)
    paired = paired_metrics(results, baseline, settings) if baseline else {}
    alpha = (1 - settings.confidence) / max(1, 2 * len(paired))  # Bonferroni: two tests per metric
    auto = results.adaptive is not None
    breaks = {} if auto else _hard_breaks(paired, 1 - settings.confidence)  # Fisher's test is fixed-sample
    summaries, counted = [], set()
    for name in names:
        passed, failed, candidate_mean = _candidate_counts(name, results)
        rubrics = _rubric_summaries(name, results, baseline)
        if name in paired:
            own = settings.for_metric(name)
            sequential = _evidence(name, paired[name].counts, len(paired), own, baseline) if auto and baseline else None
            max_runs = results.adaptive.max_runs if results.adaptive else 0
            noise = noisy(paired[name], baseline, name)
            inference = _infer_metric(name, paired[name], own, alpha, breaks.get(name, set()), noise, sequential, max_runs)
            summary = inference.summary
            counted |= {(case, name) for case in inference.counted}
        else:
            summary = MetricSummary(name, "no baseline", 0, None, candidate_mean, None, None, None, "stochastic")
        summaries.append(replace(summary, candidate_passed=passed, candidate_failed=failed, rubrics=rubrics, reason=_with_rule(summary, settings)))
    return summaries, counted


# ---------------------------------------------------------------- per case


def _case_metrics(case: ScoredCase, old: BaselineCase | None, counted: set[tuple[str, str]]) -> tuple[CaseMetric, ...]:
    out = []
    for name, metric in sorted(case.metrics.items()):
        if not _gated(metric):
            continue
        previous = old.metrics.get(name) if old else None
        same = old is not None and previous is not None and comparable(old, case, name)
        base = previous.score if previous else None
        out.append(
            CaseMetric(
                name=name,
                baseline=base,
                candidate=metric.score,
                delta=None if base is None or metric.score is None or not same else metric.score - base,
                baseline_status=previous.status.value if previous else None,
                candidate_status=metric.status.value,
                threshold=metric.threshold,
                comparable=same,
                counted=(case_key(case), name) in counted,
            )
        )
    for name in _dropped_metrics(case, old):  # gated in the baseline, gone from the config now
        previous = old.metrics[name]
        out.append(CaseMetric(name, previous.score, None, None, previous.status.value, Status.NOT_EVALUATED.value, previous.threshold, False))
    return tuple(out)


def _dropped_metrics(case: ScoredCase, old: BaselineCase | None) -> list[str]:
    if old is None:
        return []
    return sorted(n for n, m in old.metrics.items() if _evaluated(m) and m.threshold is not None and n not in case.metrics)


def _evaluated(metric: ScoredMetric | BaselineMetric) -> bool:
    return metric.status in (Status.PASSED, Status.FAILED)


def lost_evidence(case: ScoredCase, old: BaselineCase | None) -> list[str]:
    """Gated metrics the baseline scored on this case that have no score now: each
    "metric: why" (an unreadable judge reply, no key, a removed criterion)."""
    if old is None:
        return []
    lost = [f"{n}: no longer configured" for n in _dropped_metrics(case, old)]
    for name, metric in sorted(case.metrics.items()):
        previous = old.metrics.get(name)
        if previous is not None and _evaluated(previous) and _gated(previous) and metric.status == Status.NOT_EVALUATED:
            lost.append(f"{name}: {metric.reason or 'not evaluated'}")
    return lost


def _is_flaky(case: ScoredCase) -> bool:
    return any(len({r.status for r in m.runs if r.status in (Status.PASSED, Status.FAILED)}) > 1 for m in case.metrics.values())


def _changed_test(case: ScoredCase, old: BaselineCase) -> str:
    if old.fingerprint != case.fingerprint:
        return "the expected content changed (user turns, expected tools or responses, rubrics)"
    changed = sorted(n for n, m in case.metrics.items() if n in old.metrics and old.metrics[n].config_fingerprint != m.config_fingerprint)
    return f"metric configuration changed: {', '.join(changed)}" if changed else ""


def _outcome(case: ScoredCase, old: BaselineCase, metrics: tuple[CaseMetric, ...], settings: GateSettings, lost: list[str]) -> str:
    def tolerance(m: CaseMetric) -> float:  # the metric's own, scaled to its declared interval
        return settings.for_metric(m.name).tolerance * _scale_of(case, m.name)

    was, now = old.status == Status.PASSED, case.status == Status.PASSED
    if any(m.counted for m in metrics) or (was and case.run_errors):  # a crash is never noise
        return "regressed"
    if was and case.status == Status.FAILED:
        return "newly_failing"
    if any(m.delta is not None and m.delta < -tolerance(m) for m in metrics):
        return "worsened"
    if lost:
        return "unevaluated"
    if old.status == Status.FAILED and now:
        return "fixed"
    if _is_flaky(case):
        return "flaky"
    moved = [m for m in metrics if m.delta is not None]
    if moved and any(m.delta > tolerance(m) for m in moved if m.delta is not None) and all(m.delta >= -tolerance(m) for m in moved if m.delta is not None):
        return "improved"
    return "unchanged"


def _scale_of(case: ScoredCase, name: str) -> float:
    metric = case.metrics.get(name)
    return tolerance_scale(metric.judge) if metric is not None else 1.0


def _case_outcome(case: ScoredCase, baseline: Baseline | None, counted: set[tuple[str, str]], settings: GateSettings) -> CaseOutcome:
    old = baseline.case(case.suite, case.eval_set_id, case.eval_id) if baseline else None
    metrics = _case_metrics(case, old, counted)
    common = dict(suite=case.suite, eval_set_id=case.eval_set_id, eval_id=case.eval_id, status=case.status.value, metrics=metrics)
    if old is None:
        return CaseOutcome(outcome="new", baseline_status=None, note=case.reason or "", **common)
    changed = _changed_test(case, old)
    if changed:
        return CaseOutcome(outcome="incomparable", baseline_status=old.status.value, note=changed, **common)
    lost = lost_evidence(case, old)
    outcome = _outcome(case, old, metrics, settings, lost)
    return CaseOutcome(outcome=outcome, baseline_status=old.status.value, note=case.reason or "; ".join(lost), **common)


def _removed(results: ScoredResults, baseline: Baseline, outcomes: CaseOutcomes) -> Iterator[CaseOutcome]:
    """Baseline cases of the suites in these results that did not run (of those `run -k` and
    `--shard` kept: another shard's cases are that shard's to compare): `outcomes` holds every
    case that ran."""
    suites = set(results.suites) | {c.suite for c in results.cases}
    for s in sorted(baseline.suites):
        for e in sorted(baseline.suites[s]) if s in suites else ():
            cases = baseline.suites[s][e]
            for i in sorted(cases):
                kept = selected(results.case_filter, s, e, i) and in_shard(results.shard, e, i)
                if kept and not outcomes.with_key(f"{s}/{e}/{i}"):
                    yield CaseOutcome(suite=s, eval_set_id=e, eval_id=i, outcome="removed", status=None, baseline_status=cases[i].status.value)


# ---------------------------------------------------------------- case outcomes, kept


class CaseOutcomes(Protocol):
    """Every case's outcome of a comparison, read most important first (`importance`). Where
    they are kept is the caller's choice: in memory (`OutcomeList`, sealed as an `OutcomeTuple`),
    or on disk for a big suite (files/spilled_outcomes.py)."""

    def add(self, case: CaseOutcome) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[CaseOutcome]: ...
    def __getitem__(self, index: int) -> CaseOutcome: ...
    def of(self, outcome: str) -> Iterator[CaseOutcome]:
        """Those of one outcome, most important first."""
        ...
    def with_key(self, key: str) -> list[CaseOutcome]:
        """Those of one case key (one, unless a results file repeats a case), most important first."""
        ...


def importance(case: CaseOutcome) -> tuple[int, bool, float, str]:
    """Most important first: by outcome, failing before passing, the largest drop, then the key."""
    drops = [m.delta for m in case.metrics if m.delta is not None]
    return OUTCOMES.index(case.outcome), case.status != Status.FAILED.value, min(drops, default=0.0), case.key


class OutcomeList:
    """CaseOutcomes in memory while a comparison is made (`compare` then seals them as an OutcomeTuple)."""

    def __init__(self) -> None:
        self._cases: list[CaseOutcome] = []
        self._by_key: dict[str, list[CaseOutcome]] = {}

    def add(self, case: CaseOutcome) -> None:
        self._cases.append(case)
        self._by_key.setdefault(case.key, []).append(case)

    def __len__(self) -> int:
        return len(self._cases)

    def __iter__(self) -> Iterator[CaseOutcome]:
        return iter(sorted(self._cases, key=importance))

    def __getitem__(self, index: int) -> CaseOutcome:
        return sorted(self._cases, key=importance)[index]

    def of(self, outcome: str) -> Iterator[CaseOutcome]:
        return (c for c in self if c.outcome == outcome)

    def with_key(self, key: str) -> list[CaseOutcome]:
        return sorted(self._by_key.get(key, []), key=importance)


class OutcomeTuple(tuple[CaseOutcome, ...]):
    """Sealed CaseOutcomes in memory, most important first: a tuple (what a small comparison's
    `cases` is, and what `dataclasses.asdict` copies)."""

    def add(self, case: CaseOutcome) -> None:
        raise TypeError("a comparison's outcomes are sealed")

    def of(self, outcome: str) -> Iterator[CaseOutcome]:
        return (c for c in self if c.outcome == outcome)

    def with_key(self, key: str) -> list[CaseOutcome]:
        return self._by_key.get(key, [])

    @cached_property
    def _by_key(self) -> dict[str, list[CaseOutcome]]:
        by_key: dict[str, list[CaseOutcome]] = {}
        for case in self:
            by_key.setdefault(case.key, []).append(case)
        return by_key


# ---------------------------------------------------------------- the verdict


def compare(results: ScoredResults, baseline: Baseline | None, settings: GateSettings, outcomes: CaseOutcomes | None = None) -> Comparison:
    """`outcomes`: where the cases' outcomes are kept (empty; default: in memory). With metrics
    that warn or only report (gate.metrics' severity), the blocking ones decide and the others
    are compared apart (core/policy.py)."""
    # A changed judge: re-judged baseline scores stand in for the old ones, or the old ones are left out.
    baseline, judge_changes = judged_alike(results, baseline) if baseline is not None else (None, ())
    budgets = compare_budgets(results, baseline, settings)
    costs = suite_costs(results, baseline)
    if not has_parts(settings):
        whole = _compare_part(results, baseline, settings, outcomes, budgets)
        return replace(whole, budgets=budgets, costs=costs, judge_changes=judge_changes, policy=policy_lines(settings, metric_names(settings, results)))
    block = _compare_part(*_part(results, baseline, settings, "block"), settings, outcomes, budgets)
    warned = _compare_part(*_part(results, baseline, settings, "warn"), settings, None, ())
    shown = _compare_part(*_part(results, baseline, settings, "report"), settings, None, ())
    advised = tuple(budget_reasons(_budgets_of(budgets, settings, "warn"))[0])
    advisories = (_advisory("warn", replace(warned, reasons=warned.reasons + advised), settings), _advisory("report", shown, settings))
    return replace(block, budgets=budgets, costs=costs, judge_changes=judge_changes, policy=policy_lines(settings, metric_names(settings, results)),
                   advisories=tuple(a for a in advisories if a.metrics or a.reasons))


def _part(results: ScoredResults, baseline: Baseline | None, settings: GateSettings, severity: Severity) -> tuple[ScoredResults, Baseline | None]:
    keep = of_severity(settings, severity)
    return PartResults(results, keep), part_baseline(baseline, keep) if baseline is not None else None


_ADVISED = ("regressed", "newly_failing", "worsened", "unevaluated")


def _advisory(severity: str, part: Comparison, settings: GateSettings) -> Advisory:
    """What a non-blocking part found: `warn` keeps its reasons and its cases that got worse;
    `report` keeps the metrics' figures without a verdict."""
    if severity == "report":
        metrics = tuple(replace(m, verdict="reported", reason="") for m in part.metrics)
        return Advisory(severity, (), metrics, ())
    reasons = part.reasons + (part.warnings if settings.not_evaluated == "fail" else ())
    return Advisory(severity, reasons, part.metrics, tuple(c for c in part.cases if c.outcome in _ADVISED))


def _budgets_of(budgets: tuple[BudgetSummary, ...], settings: GateSettings, severity: Severity) -> tuple[BudgetSummary, ...]:
    """The budgets of one severity (gate.budget_severity; a budget blocks unless set there)."""
    return tuple(b for b in budgets if settings.budget_severity.get(b.key, "block") == severity)  # type: ignore[call-overload]


def _compare_part(results: ScoredResults, baseline: Baseline | None, settings: GateSettings, outcomes: CaseOutcomes | None,
                  budgets: tuple[BudgetSummary, ...]) -> Comparison:
    """The verdict over these results' metrics; `budgets` (of the whole results) breached by a
    blocking budget fail it."""
    summaries, counted = _summaries(results, baseline, settings)
    head = _head_to_head(results, baseline, settings)
    summaries += [_head_summary(h) for h in head]
    blocking = _budgets_of(budgets, settings, "block")
    cases = outcomes if outcomes is not None else OutcomeList()
    tally = _Tally(_errored(results), regression=settings.fail_on != "threshold" and baseline is not None)
    over = over_budget_cases(blocking)
    for case in results.cases:
        outcome = _with_budget(_case_outcome(case, baseline, counted, settings), over)
        cases.add(outcome)
        tally.add(outcome, case)
    for outcome in _removed(results, baseline, cases) if baseline else ():
        cases.add(outcome)
        tally.add(outcome)
    reasons = _reasons(baseline, summaries, tally, settings.fail_on)
    over_budget, lost_figures = budget_reasons(blocking)
    reasons += over_budget if settings.fail_on != "threshold" else []
    evidence = _missing_evidence(results, baseline) + lost_figures + [_unjudged(h) for h in head if h.not_evaluated]
    if settings.not_evaluated == "fail":
        reasons += evidence
    failed = bool(reasons) and settings.fail_on != "never"
    return Comparison(
        verdict="failed" if failed else "passed",
        exit_code=1 if failed else 0,
        regressions=tally.counts["regressed"],
        fail_on=settings.fail_on,
        has_baseline=baseline is not None,
        reasons=tuple(reasons),
        metrics=tuple(summaries),
        cases=OutcomeTuple(cases) if outcomes is None else cases,
        counts=tally.counts,
        confidence=settings.confidence,
        tolerance=settings.tolerance,
        warnings=tuple(evidence) if settings.not_evaluated == "warn" else (),
        head_to_head=head,
    )


def _head_to_head(results: ScoredResults, baseline: Baseline | None, settings: GateSettings) -> tuple[HeadToHead, ...]:
    """head_to_head_v1's record, when the results have it; only cases the baseline has under the
    same test can miss their answer (a new case has none to lose)."""
    def compared(case: ScoredCase) -> bool:
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id) if baseline is not None else None
        return old is not None and old.fingerprint == case.fingerprint

    found = head_to_head(results.cases, compared, HEAD_TO_HEAD, settings.confidence)
    return (found,) if found is not None else ()


def _head_summary(h: HeadToHead) -> MetricSummary:
    """The head-to-head record as a row of the metrics table: the net win rate is its delta."""
    return MetricSummary(h.metric, h.verdict, h.wins + h.ties + h.losses, None, None, h.net, h.ci_low, h.ci_high, "head-to-head",
                         flips_down=h.losses, flips_up=h.wins, flip_p=h.p_loss, reason=h.reason)


def _unjudged(h: HeadToHead) -> str:
    return _first(list(h.not_evaluated), f"{h.metric} score(s) not evaluated where the baseline has the case")


_OVER_BUDGET_RANK = OUTCOMES.index("over_budget")


def _with_budget(case: CaseOutcome, over: dict[str, list[str]]) -> CaseOutcome:
    """A case whose figure drove a breached budget is over budget (a regressed case stays
    regressed), and its note says by how much."""
    if case.key not in over:
        return case
    note = "; ".join(filter(None, [f"over budget: {', '.join(over[case.key])}", case.note]))
    return replace(case, outcome="over_budget" if OUTCOMES.index(case.outcome) > _OVER_BUDGET_RANK else case.outcome, note=note)


class _First:
    """How many of something, and the first of them (a reason names one)."""

    def __init__(self) -> None:
        self.count = 0
        self.first: tuple[int, str] | None = None  # (position, text)

    def add(self, text: str, at: int = 0) -> None:
        self.count += 1
        if self.first is None or at < self.first[0]:
            self.first = (at, text)

    def reason(self, what: str) -> list[str]:
        return [f"{self.count} {what} (first: {self.first[1]})"] if self.first else []


def _first(items: list[str], what: str) -> str:
    return f"{len(items)} {what} (first: {items[0]})"


def _missing_evidence(results: ScoredResults, baseline: Baseline | None) -> list[str]:
    """No evidence is not a pass: cases where nothing was evaluated, gated scores the
    baseline had that are gone now, and gated scores no baseline stands in for (a first run,
    a new case or metric). Failed runs are reported as such, not here."""
    empty, lost, never = _First(), _First(), _First()
    for case in results.cases:
        if case.run_errors:
            continue
        key = case_key(case)
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id) if baseline else None
        if case.status == Status.NOT_EVALUATED:
            empty.add(f"{key}: {case.reason or 'no metric was evaluated'}")
        else:
            for why in unevidenced(case, old):
                never.add(f"{key} {why}")
        for why in lost_evidence(case, old):
            lost.add(f"{key} {why}")
    return (empty.reason("case(s) with no evaluated gated metric")
            + lost.reason("gated score(s) the baseline has were not evaluated now (lost coverage)")
            + never.reason("gated score(s) not evaluated, with no baseline score to stand in for them"))


def unevidenced(case: ScoredCase, old: BaselineCase | None) -> list[str]:
    """Gated metrics without a score on a case that the baseline has no score of theirs for
    either (no baseline yet, a new case or metric): each "metric: why". A first run with the
    judge down is no pass because another metric of each case was evaluated."""
    def baseline_scored(name: str) -> bool:
        previous = old.metrics.get(name) if old else None
        return previous is not None and _evaluated(previous) and _gated(previous)

    return [f"{name}: {m.reason or 'not evaluated'}" for name, m in sorted(case.metrics.items())
            if unscored_evidence(m) and not baseline_scored(name)]


def _errored(results: ScoredResults) -> dict[str, str]:
    """Cases whose agent runs failed: key -> reason."""
    return {case_key(c): c.reason or "" for c in results.cases if c.run_errors}


class _Tally:
    """What the verdict reads of every case's outcome, added one at a time (the results' order,
    then the removed cases): counts, and the first of each kind a reason names. Whether a case
    is broken (its runs failed, and comparing with a baseline it was not failing there already)
    is known only when every case with its key is in: the outcomes of such keys wait till then."""

    def __init__(self, errored: dict[str, str], regression: bool) -> None:
        self.counts = dict.fromkeys(OUTCOMES, 0)
        self.errored = errored
        self.regression = regression
        self.still_failing: set[str] = set()  # of the errored keys
        self.waiting: list[tuple[int, CaseOutcome]] = []
        self.below = 0  # results cases below their thresholds, runs not failed
        self.new_failing = 0
        self.unmatched = _First()
        self.added = 0

    def add(self, outcome: CaseOutcome, case: ScoredCase | None = None) -> None:
        self.counts[outcome.outcome] += 1
        self.below += case is not None and case.status == Status.FAILED and not case.run_errors
        if outcome.key in self.errored:
            if self.regression and outcome.baseline_status == Status.FAILED.value and outcome.outcome != "incomparable":
                self.still_failing.add(outcome.key)
            self.waiting.append((self.added, outcome))
        else:
            self._count(self.added, outcome)
        self.added += 1

    def _count(self, at: int, outcome: CaseOutcome) -> None:
        """An outcome whose case is not broken."""
        self.new_failing += outcome.outcome == "new" and outcome.status == Status.FAILED.value
        if outcome.outcome != "new":
            for m in outcome.metrics:
                if _below_without_baseline(m):
                    self.unmatched.add(f"{outcome.key} {m.name}", at)

    def broken(self) -> dict[str, str]:
        """Key -> reason of the cases whose agent runs failed; counts the outcomes that waited."""
        broken = {k: why for k, why in self.errored.items() if k not in self.still_failing}
        for at, outcome in self.waiting:
            if outcome.key not in broken:
                self._count(at, outcome)
        self.waiting = []
        return broken


def _reasons(baseline: Baseline | None, summaries: list[MetricSummary], tally: _Tally, fail_on: str) -> list[str]:
    """Why the gate fails (empty: it passes) under `fail_on`; `never` reports the same reasons."""
    broken = tally.broken()
    reasons = [_first([f"{k}: {why}" for k, why in broken.items()], "case(s) whose agent runs failed")] if broken else []
    if fail_on == "threshold" or baseline is None:
        return reasons + ([f"{tally.below} case(s) below their thresholds"] if tally.below else [])
    reasons += [f"{s.name}: regressed ({s.reason})" for s in summaries if s.verdict == "regressed"]
    breaks = sum(s.hard_breaks for s in summaries)
    if breaks:
        reasons.append(f"{breaks} hard break(s): cases that passed every baseline run fail every run now")
    if tally.new_failing:
        reasons.append(f"{tally.new_failing} new case(s) below their thresholds")
    # nothing to compare with, so its threshold decides, as for a new case
    reasons += tally.unmatched.reason("score(s) below the threshold of a metric new to the case's baseline or changed since")
    return reasons


def _below_without_baseline(metric: CaseMetric) -> bool:
    return not metric.comparable and metric.threshold is not None and metric.candidate_status == Status.FAILED.value
