"""The verdict: every part of the comparison put together, the gate's reasons and the tally."""

from __future__ import annotations

from dataclasses import replace

from ...schema import Status
from ...schema.baseline import Baseline, BaselineCase
from ...schema.settings import GateSettings, Severity
from ..budgets import BudgetSummary, budget_reasons, compare_budgets, over_budget_cases, suite_costs
from ..digest import ScoredCase, ScoredResults
from ..head_to_head import HEAD_TO_HEAD, HeadToHead, head_to_head
from ..judge_change import judged_alike
from ..metrics.base import unscored_evidence
from ..policy import PartResults, has_parts, metric_names, of_severity, part_baseline, policy_lines
from .case_outcomes import case_outcome, evaluated, lost_evidence, removed_cases
from .inference import metric_summaries
from .outcome_store import OutcomeList, OutcomeTuple
from .pairing import case_key, gated
from .records import OUTCOMES, Advisory, CaseMetric, CaseOutcome, CaseOutcomes, Comparison, MetricSummary


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
    summaries, counted = metric_summaries(results, baseline, settings)
    head = _head_to_head(results, baseline, settings)
    summaries += [_head_summary(h) for h in head]
    blocking = _budgets_of(budgets, settings, "block")
    cases = outcomes if outcomes is not None else OutcomeList()
    tally = _Tally(_errored(results), regression=settings.fail_on != "threshold" and baseline is not None)
    over = over_budget_cases(blocking)
    for case in results.cases:
        outcome = _with_budget(case_outcome(case, baseline, counted, settings), over)
        cases.add(outcome)
        tally.add(outcome, case)
    for outcome in removed_cases(results, baseline, cases) if baseline else ():
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
        return previous is not None and evaluated(previous) and gated(previous)

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
