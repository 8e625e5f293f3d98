"""Per case: its outcome against the baseline (regressed, worsened, fixed, flaky, ...)."""

from __future__ import annotations

from collections.abc import Iterator

from ...schema import Status
from ...schema.baseline import Baseline, BaselineCase, BaselineMetric
from ...schema.settings import GateSettings
from ..digest import ScoredCase, ScoredMetric, ScoredResults
from ..judge_fingerprint import tolerance_scale
from ..selection import selected
from ..shards import in_shard
from .pairing import case_key, comparable, gated
from .records import CaseMetric, CaseOutcome, CaseOutcomes


def _case_metrics(case: ScoredCase, old: BaselineCase | None, counted: set[tuple[str, str]]) -> tuple[CaseMetric, ...]:
    out = []
    for name, metric in sorted(case.metrics.items()):
        if not gated(metric):
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
        assert old is not None  # a metric is dropped only from a baseline case
        previous = old.metrics[name]
        out.append(CaseMetric(name, previous.score, None, None, previous.status.value, Status.NOT_EVALUATED.value, previous.threshold, False))
    return tuple(out)


def _dropped_metrics(case: ScoredCase, old: BaselineCase | None) -> list[str]:
    if old is None:
        return []
    return sorted(n for n, m in old.metrics.items() if evaluated(m) and m.threshold is not None and n not in case.metrics)


def evaluated(metric: ScoredMetric | BaselineMetric) -> bool:
    return metric.status in (Status.PASSED, Status.FAILED)


def lost_evidence(case: ScoredCase, old: BaselineCase | None) -> list[str]:
    """Gated metrics the baseline scored on this case that have no score now: each
    "metric: why" (an unreadable judge reply, no key, a removed criterion)."""
    if old is None:
        return []
    lost = [f"{n}: no longer configured" for n in _dropped_metrics(case, old)]
    for name, metric in sorted(case.metrics.items()):
        previous = old.metrics.get(name)
        if previous is not None and evaluated(previous) and gated(previous) and metric.status == Status.NOT_EVALUATED:
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


def case_outcome(case: ScoredCase, baseline: Baseline | None, counted: set[tuple[str, str]], settings: GateSettings) -> CaseOutcome:
    old = baseline.case(case.suite, case.eval_set_id, case.eval_id) if baseline else None
    metrics = _case_metrics(case, old, counted)

    def outcome(name: str, note: str) -> CaseOutcome:
        return CaseOutcome(suite=case.suite, eval_set_id=case.eval_set_id, eval_id=case.eval_id, outcome=name, status=case.status.value,
                           baseline_status=old.status.value if old else None, note=note, metrics=metrics)

    if old is None:
        return outcome("new", case.reason or "")
    changed = _changed_test(case, old)
    if changed:
        return outcome("incomparable", changed)
    lost = lost_evidence(case, old)
    return outcome(_outcome(case, old, metrics, settings, lost), case.reason or "; ".join(lost))


def removed_cases(results: ScoredResults, baseline: Baseline, outcomes: CaseOutcomes) -> Iterator[CaseOutcome]:
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
