"""Per metric: did it regress, improve or hold, by the fixed-sample tests, the deterministic
rule or the sequential rule of num_runs: auto; and its rubrics."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from ...schema import Status
from ...schema.baseline import Baseline, BaselineMetric
from ...schema.project import MAX_NUM_RUNS
from ...schema.settings import GateSettings
from ..baseline import rubric_pass_rates
from ..digest import ScoredResults
from ..sequential import LEAN, CaseCounts, CaseEvidence, Counts, MetricEvidence, metric_evidence
from .pairing import Pair, Paired, comparable, gated, paired_metrics
from .records import MetricSummary, RubricSummary
from .statistics import bootstrap_means, holm, mean, quantile, sign_test_p


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
    counted = _counted(pairs, breaks, regressed, deterministic, sequential)
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


def _counted(pairs: Paired, breaks: set[str], regressed: bool, deterministic: bool, sequential: MetricEvidence | None) -> set[str]:
    """The cases a metric's verdict counts against: its hard breaks and any_drop's falls always;
    when it regressed, the cases the rule that decided blames."""
    counted = set(breaks) | set(pairs.fallen)  # the breaks are of this metric's pairs
    if regressed and sequential is not None:
        counted |= {c.counts.key for c in sequential.cases if sequential.chance(c) >= 0.5}
    elif regressed:
        counted |= pairs.worsened
        counted |= pairs.newly_failing if deterministic else set()
    return counted


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
    return sorted({name for c in results.cases for name, m in c.metrics.items() if gated(m)})


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


def metric_summaries(results: ScoredResults, baseline: Baseline | None, settings: GateSettings) -> tuple[list[MetricSummary], set[tuple[str, str]]]:
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
