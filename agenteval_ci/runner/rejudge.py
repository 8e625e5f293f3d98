"""Judging recorded outputs again, running no agent: the baseline's, when this run's judge of a
metric differs from the baseline's (docs/judge.md, "A changed judge"), and any stored outputs
with the current criteria (`agenteval rejudge`).

The baseline's outputs are judged by a judge of their own (a fresh repeat count, the same cache):
an output the agent gave again in this run is then judged from the same cache entries as the
run's, so an unchanged agent compares equal whatever the new judge thinks of it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.digest import ScoredCase
from ..core.judge_change import changed_judge
from ..core.metrics import ConfiguredMetric
from ..core.results_record import total_usage, with_judge_usage
from ..core.scoring import CaseToScore, score_all, score_each
from ..errors import InputError
from ..files.baseline_outputs import outputs_path, read_outputs
from ..judge import Judge, make_judge
from ..schema import CaseResult, JudgeUsage, MetricResult, Results
from ..schema.baseline import Baseline
from ..schema.results import RejudgedBaseline
from ..schema.settings import JudgeSettings

MetricsOf = Callable[[ScoredCase], list[ConfiguredMetric]]  # the criteria a case is scored with now
REJUDGING = " (re-judging the baseline)"  # how the stats name the judge's work on the baseline's outputs


@dataclass(frozen=True)
class _Wanted:
    case: ScoredCase  # this run's case (or its digest): its test is the baseline's (same fingerprint)
    metrics: dict[str, str]  # metric -> the baseline's judge id of it


def _wanted(cases: Sequence[ScoredCase], baseline: Baseline) -> dict[str, _Wanted]:
    """By digest of recorded runs: the cases and metrics whose judge changed."""
    wanted: dict[str, _Wanted] = {}
    for case in cases:
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id)
        for name in sorted(case.metrics) if old else []:
            assert old is not None
            digest = baseline.outputs_of(old, name)
            was = old.metrics[name].judge if name in old.metrics else None
            compared = case.metrics[name].threshold is not None  # head_to_head_v1's scores are never the baseline's to re-judge
            if digest and was and compared and changed_judge(baseline, old, case, name) is not None:
                wanted.setdefault(digest, _Wanted(case, {})).metrics[name] = was
    return wanted


def lean(metric: MetricResult) -> MetricResult:
    """What the gate needs of a re-judged metric: no per-turn details."""
    return metric.model_copy(update={"runs": [run.model_copy(update={"per_invocation": []}) for run in metric.runs]})


def with_rejudged(header: Results, cases: Sequence[ScoredCase], baseline: Baseline | None, baseline_path: str | Path,
                  metrics_of: MetricsOf, settings: JudgeSettings, environ: Mapping[str, str]) -> Results:
    """A results file's other fields (`header`, written after its `cases`, here their digests)
    with the baseline's recorded outputs judged again wherever a judge changed."""
    rejudged, usage = rejudged_baseline(cases, baseline, baseline_path, metrics_of, settings, environ)
    if not rejudged:
        return header
    return header.model_copy(update={"rejudged": [*(header.rejudged or []), *rejudged], "stats": _with_usage(header, usage)})


def rejudged_baseline(
    cases: Sequence[ScoredCase], baseline: Baseline | None, baseline_path: str | Path, metrics_of: MetricsOf,
    settings: JudgeSettings, environ: Mapping[str, str],
) -> tuple[list[RejudgedBaseline], dict[str, JudgeUsage]]:
    """The baseline's recorded outputs judged again wherever a judge changed on `cases` (whole, or
    their digests: the eval case judged with is the recorded one, the same test by fingerprint),
    and the judge's usage doing it."""
    wanted = _wanted(cases, baseline) if baseline is not None else {}
    if not wanted:
        return [], {}
    path = outputs_path(baseline_path)
    try:
        records = read_outputs(path, set(wanted))
    except InputError as exc:
        print(f"warning: cannot re-judge the baseline's recorded outputs: {exc}; judged deltas of a changed judge are not gated",
              file=sys.stderr)
        return [], {}
    items, order = [], []
    for digest, need in wanted.items():
        record = records.get(digest)
        metrics = [m for m in metrics_of(need.case) if m.name in need.metrics]
        if record is None or not metrics:
            continue
        case = need.case
        items.append(CaseToScore(record.eval_case, record.runs, metrics, case.eval_set_id, case.eval_set_file, case.suite))
        order.append((digest, need))
    if not items:
        return [], {}
    judge = make_judge(settings, environ)
    scored = score_all(items, judge)
    rejudged = [
        RejudgedBaseline(suite=need.case.suite, eval_set_id=need.case.eval_set_id, eval_id=need.case.eval_id, metric=name,
                         outputs=digest, was=was, result=lean(case.metrics[name]))
        for (digest, need), case in zip(order, scored) for name, was in sorted(need.metrics.items())
    ]
    usage = {f"{name}{REJUDGING}": u for name, u in judge.usage().items()}
    print(f"agenteval: the judge changed since the baseline: judged {len(items)} case(s)' recorded baseline outputs again "
          f"with this run's judge ({judge.stats().calls} judge call(s))", file=sys.stderr)
    return rejudged, usage


def _with_usage(results: Results, more: dict[str, JudgeUsage]) -> object:
    per_metric = dict(results.stats.judge_by_metric)
    for name, usage in more.items():
        per_metric[name] = total_usage([per_metric[name], usage]) if name in per_metric else usage
    return with_judge_usage(results.stats, per_metric)


def metrics_by_eval_set(pairs: list[tuple[str, str, list[ConfiguredMetric]]]) -> MetricsOf:
    """The criteria of each (suite, eval set id), as a run resolved them."""
    table = {(suite, eval_set_id): metrics for suite, eval_set_id, metrics in pairs}
    return lambda case: table.get((case.suite, case.eval_set_id), [])


@dataclass
class Skipped:
    """The stored cases no criteria cover: how many, and the first's key."""

    count: int = 0
    first: str = ""

    def add(self, key: str) -> None:
        self.first = self.first or key
        self.count += 1


def rescore_each(cases: Iterable[CaseResult], metrics_of: MetricsOf, judge: Judge | None, emit: Callable[[CaseResult], None]) -> Skipped:
    """Stored cases scored again with the criteria `metrics_of` gives, running no agent, each
    handed to `emit` in order as soon as it is scored (never more than a window of cases held);
    the cases no criteria cover are left out, and counted."""
    from .suites import agent_metrics

    skipped = Skipped()

    def items() -> Iterator[CaseToScore]:
        for case in cases:
            metrics = metrics_of(case)
            if not metrics:
                skipped.add(case.key)
                continue
            yield CaseToScore(case.eval_case, case.runs, metrics, case.eval_set_id, case.eval_set_file, case.suite)

    score_each(items(), judge, lambda c: emit(c.model_copy(update={"metrics": {**c.metrics, **agent_metrics(c.runs)}})))
    return skipped
