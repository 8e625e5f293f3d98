"""Scoring: cases x runs x metrics -> case results, with ADK's aggregation and status rules.

All metric work of a whole run is gathered at once, so LLM-judged metrics share the
judge's single concurrency bound instead of going metric by metric or case by case.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..schema import CaseResult, EvalCase, Invocation, MetricResult, MetricRun, RunRecord, Status
from .builtin_tools import counted
from .digest import AgentRun, ScoredMetric
from .fingerprint import case_fingerprint
from .judge_fingerprint import JudgeTrace, fingerprint, merged
from .judging import Judge
from .metrics import ConfiguredMetric, MetricInput, adk_mean, not_evaluated, status_for
from .metrics.base import NO_REFERENCE

T = TypeVar("T")


@dataclass(frozen=True)
class CaseToScore:
    """One eval case with what the agent did in each run, and the metrics that judge it."""

    case: EvalCase
    runs: list[RunRecord]
    metrics: list[ConfiguredMetric]
    eval_set_id: str
    eval_set_file: str | None = None
    suite: str = "default"
    # head_to_head_v1: the baseline's recorded runs of this case (same test), or None and why
    baseline_runs: list[RunRecord] | None = None
    baseline_missing: str = "no baseline"
    count_builtin_tools: bool = False  # the suite's `builtin_tools: count`


def _start(metric: ConfiguredMetric, item: CaseToScore, run: RunRecord, judge: Judge | None) -> MetricRun | Awaitable[MetricRun]:
    """A deterministic metric's result now; a judged metric's coroutine, to be gathered."""
    if metric.spec.needs_expected and item.case.conversation is None:
        return not_evaluated(f"{metric.name} compares with an expected conversation; {NO_REFERENCE}")
    actual = [counted(i) for i in run.invocations] if item.count_builtin_tools else run.invocations
    inp = MetricInput(metric.criterion, actual, item.case.conversation, item.case, judge, tuple(run.unreported or ()),
                      *_baseline_turns(item, run) if metric.spec.head_to_head else (None, ""), final_state=run.final_session_state)
    return metric.spec.evaluate(inp)


def _baseline_turns(item: CaseToScore, run: RunRecord) -> tuple[list[Invocation] | None, str]:
    """The baseline's recorded run matched with this one (the same index, round robin), or why none."""
    if not item.baseline_runs:
        return None, item.baseline_missing
    recorded = item.baseline_runs[run.index % len(item.baseline_runs)]
    if recorded.error:
        return None, f"the baseline's recorded run failed: {recorded.error}"
    return recorded.invocations, ""


def aggregate(metric: ConfiguredMetric, runs: list[MetricRun], trace: JudgeTrace | None = None) -> MetricResult:
    """Over runs: the mean of the runs' scores, then ADK's `score >= threshold`; a judged
    metric keeps its judge's fingerprint (who answered: `trace`)."""
    scores = [r.score for r in runs if r.score is not None]
    score = adk_mean(scores) if scores else None
    if metric.spec.informational:  # as ADK: INFORMATIONAL even when no figure is available
        status = Status.INFORMATIONAL
    elif metric.threshold is None:  # compared with the baseline, not a threshold: judged or not
        status = Status.PASSED if score is not None else Status.NOT_EVALUATED
    else:
        status = status_for(score, metric.criterion.threshold)
    reason = next((r.reason for r in runs if r.reason), None) if score is None else _explained(status, runs)
    judged_without = list(dict.fromkeys(item for r in runs for item in r.judged_without or [])) or None
    return MetricResult(
        score=score,
        threshold=metric.threshold,
        status=status,
        reason=reason,
        config_fingerprint=metric.fingerprint,
        judged_without=judged_without,
        judge=fingerprint(metric, trace),
        runs=runs,
    )


def _explained(status: Status, runs: list[MetricRun]) -> str | None:
    """A failed score's reason: the explanation a user's metric gave for its first failed run
    (core/metrics/user.py keeps it in the run's details), so every report can say why."""
    if status != Status.FAILED:
        return None
    found = (r.details.get("explanation") for r in runs if r.status == Status.FAILED and isinstance(r.details, dict))
    return next((text for text in found if isinstance(text, str) and text), None)


def case_status(metrics: Mapping[str, ScoredMetric], runs: Sequence[AgentRun]) -> tuple[Status, str | None]:
    """`adk eval`'s rule: a failed run or any FAILED metric fails the case; NOT_EVALUATED
    and INFORMATIONAL are ignored; nothing evaluated at all is NOT_EVALUATED."""
    errors = [r.error for r in runs if r.error]
    if errors:
        return Status.FAILED, f"{len(errors)} of {len(runs)} run(s) failed: {errors[0]}"
    failed = [name for name, m in metrics.items() if m.status == Status.FAILED]
    if failed:
        return Status.FAILED, "below threshold: " + ", ".join(failed)
    if any(m.status == Status.PASSED for m in metrics.values()):
        return Status.PASSED, None
    return Status.NOT_EVALUATED, "no metric was evaluated"


@dataclass(frozen=True)
class Scoring:
    """A case being scored: its result now when every metric is deterministic, else its judged
    metrics to await. Thousands of cheap deterministic scores would otherwise spend much of
    their time in the event loop."""

    done: CaseResult | None = None
    judged: Coroutine[Any, Any, CaseResult] | None = None

    async def result(self) -> CaseResult:
        if self.done is not None:
            return self.done
        assert self.judged is not None  # one of the two, always
        return await self.judged


Traces = dict[str, JudgeTrace]


def score_case(item: CaseToScore, judge: Judge | None = None) -> Scoring:
    traces: Traces = {m.name: JudgeTrace(judge) for m in item.metrics if m.spec.judged and judge is not None}
    started = [[_start(m, item, run, traces.get(m.name, judge)) for run in item.runs] for m in item.metrics]
    ready = [[r for r in runs if isinstance(r, MetricRun)] for runs in started]
    if all(len(done) == len(runs) for done, runs in zip(ready, started)):
        return Scoring(done=_case_result(item, ready, traces))
    return Scoring(judged=_judged_case(item, started, traces))


async def _judged_case(item: CaseToScore, started: list[list[MetricRun | Awaitable[MetricRun]]], traces: Traces) -> CaseResult:
    done = iter(await _gather([r for runs in started for r in runs if not isinstance(r, MetricRun)]))
    return _case_result(item, [[r if isinstance(r, MetricRun) else next(done) for r in runs] for runs in started], traces)


def _case_result(item: CaseToScore, per_metric: list[list[MetricRun]], traces: Traces) -> CaseResult:
    metrics = {m.name: aggregate(m, runs, traces.get(m.name)) for m, runs in zip(item.metrics, per_metric)}
    status, reason = case_status(metrics, item.runs)
    return CaseResult(
        suite=item.suite,
        eval_set_id=item.eval_set_id,
        eval_set_file=item.eval_set_file,
        eval_id=item.case.eval_id,
        fingerprint=case_fingerprint(item.case),
        status=status,
        reason=reason,
        metrics=metrics,
        runs=item.runs,
        eval_case=item.case,
    )


def with_more_runs(old: CaseResult, new: CaseResult, metrics: list[ConfiguredMetric]) -> CaseResult:
    """A case over its earlier runs and a later round's: each metric re-aggregated, none re-judged."""
    per_metric = {m.name: _rounds(m, old.metrics[m.name], new.metrics[m.name]) for m in metrics}
    runs = old.runs + new.runs
    status, reason = case_status(per_metric, runs)
    return old.model_copy(update={"metrics": per_metric, "runs": runs, "status": status, "reason": reason})


def _rounds(metric: ConfiguredMetric, old: MetricResult, new: MetricResult) -> MetricResult:
    combined = aggregate(metric, old.runs + new.runs)
    return combined.model_copy(update={"judge": merged(old.judge, new.judge)})


def score_all(items: list[CaseToScore], judge: Judge | None = None) -> list[CaseResult]:
    """Every case; the judged ones all at once under the judge's bound. Results keep
    the order of `items`."""
    started = [score_case(item, judge) for item in items]
    pending = [s.judged for s in started if s.judged is not None]
    if not pending:
        return [s.done for s in started if s.done is not None]
    import asyncio  # judged work only: a run of deterministic metrics never loads it

    judged = iter(asyncio.run(_gather(pending)))
    return [s.done if s.done is not None else next(judged) for s in started]


JUDGED_IN_FLIGHT = 256  # cases whose judged metrics are awaited at once: enough to keep the judge's own bound busy


def score_each(items: Iterable[CaseToScore], judge: Judge | None, emit: Callable[[CaseResult], None], window: int = JUDGED_IN_FLIGHT) -> None:
    """Every case, handed to `emit` in the order of `items` as soon as it and those before it are
    scored; never more than `window` judged cases held at once, so a big suite streams through."""
    started = (score_case(item, judge) for item in items)
    first = next(started, None)
    while first is not None and first.done is not None:  # deterministic metrics: no event loop at all
        emit(first.done)
        first = next(started, None)
    if first is not None:
        import asyncio  # judged work only

        asyncio.run(_score_in_order(first, started, emit, window))


async def _score_in_order(first: Scoring, rest: Iterator[Scoring], emit: Callable[[CaseResult], None], window: int) -> None:
    import asyncio

    pending: deque[asyncio.Future[CaseResult]] = deque()
    for scoring in itertools.chain([first], rest):
        pending.append(asyncio.ensure_future(scoring.result()))
        while pending and (pending[0].done() or len(pending) >= window):
            emit(await pending.popleft())
    while pending:
        emit(await pending.popleft())


async def _gather(awaitables: Sequence[Awaitable[T]]) -> list[T]:
    import asyncio

    return list(await asyncio.gather(*awaitables))
