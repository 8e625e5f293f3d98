"""A changed judge is not an agent regression (docs/judge.md, "A changed judge").

When a judged metric's judge on a case differs from the baseline's (core/judge_fingerprint.py),
the baseline's score is not evidence about this run. Where the run judged the baseline's
recorded outputs again with its own judge (`Results.rejudged`, made by runner/rejudge.py), the
gate compares with those scores instead: like with like. Where it could not (no recorded
outputs, a file that lost them, no judge), the metric's baseline score is left out for that case:
its delta is reported, never gated; its threshold still applies, as for a metric new to the
baseline; accepting the results records the new judge. `judged_alike` is the gate's hook.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from ..schema import MetricResult, Status
from ..schema.baseline import Baseline, BaselineCase, BaselineMetric
from ..schema.judge import JudgeFingerprint
from ..schema.results import RejudgedBaseline
from .digest import ScoredCase, ScoredMetric, ScoredResults
from .judge_fingerprint import differences, judge_id
from .metrics.registry import REGISTRY


@dataclass(frozen=True)
class JudgeChange:
    """One metric whose judge changed, over the cases it changed on."""

    metric: str
    before: JudgeFingerprint  # the baseline's judge (the most common, if cases differ)
    after: JudgeFingerprint  # this run's
    what: tuple[str, ...]  # what differs, in words
    rejudged: tuple[str, ...]  # cases whose recorded outputs were judged again: compared like with like
    not_rejudged: tuple[str, ...]  # cases that could not be: their deltas are not gated
    baseline_mean: float | None  # on the re-judged cases: the baseline's scores, by the old judge
    rejudged_mean: float | None  # ... the same outputs by the new judge
    candidate_mean: float | None  # ... this run, by the new judge
    old_mean: float | None = None  # on the cases not re-judged: the baseline's scores (old judge)
    new_mean: float | None = None  # ... and this run's (new judge): reported, not gated

    @property
    def judge_delta(self) -> float | None:
        """How much the judge change alone moves the score, on the same outputs."""
        return None if self.rejudged_mean is None or self.baseline_mean is None else self.rejudged_mean - self.baseline_mean

    @property
    def total_delta(self) -> float | None:
        return None if self.candidate_mean is None or self.baseline_mean is None else self.candidate_mean - self.baseline_mean

    @property
    def agent_delta(self) -> float | None:
        """What is left for the agent: this run against the re-judged baseline."""
        return None if self.candidate_mean is None or self.rejudged_mean is None else self.candidate_mean - self.rejudged_mean


@dataclass(frozen=True)
class _Changed:
    case: str
    where: tuple[str, str, str]  # suite, eval set, case: ids may hold '/', so the key is never split
    metric: str
    before: JudgeFingerprint
    after: JudgeFingerprint
    old: BaselineMetric
    new: ScoredMetric
    rejudged: MetricResult | None


def changed_judge(baseline: Baseline, old: BaselineCase, case: ScoredCase, name: str) -> JudgeFingerprint | None:
    """The baseline's judge of `name` on this case when this run's differs from it (None: the
    same judge, or a case whose test changed: the gate calls that incomparable)."""
    after = case.metrics[name].judge
    if after is None or old.fingerprint != case.fingerprint or name not in old.metrics:
        return None
    before = baseline.judge_of(old, name) or _legacy_judge(name, after)
    return before if before is not None and differences(before, after) else None


def _legacy_judge(name: str, after: JudgeFingerprint) -> JudgeFingerprint | None:
    """The judge of a baseline written before fingerprints were kept. Its config fingerprint then
    covered the judge options, and it still matches only if they were the defaults (a criterion
    hashed today has its options set to them): so that is the judge it had. Its prompts and the
    versions that answered are unknown, and taken to be this run's."""
    spec = REGISTRY.get(name)
    field = spec.criterion_type.model_fields.get("judge_model_options") if spec else None
    if field is None or field.default_factory is None:
        return None
    options = field.default_factory()  # type: ignore[call-arg]
    return JudgeFingerprint(model=options.judge_model, prompt=after.prompt, num_samples=options.num_samples, config=options.judge_model_config)


def _same_request(a: JudgeFingerprint, b: JudgeFingerprint) -> bool:
    """Asked of the same judge: the reported versions may differ between two sets of samples."""
    return not differences(a.model_copy(update={"versions": []}), b.model_copy(update={"versions": []}))


def rejudged_for(rejudged: Mapping[tuple[str, str, str, str], list[RejudgedBaseline]], baseline: Baseline, old: BaselineCase,
                 case: ScoredCase, name: str) -> MetricResult | None:
    """This run's re-judging of exactly this baseline entry (its outputs, its judge), if made;
    `rejudged`: the results' re-judgings by case key and metric."""
    entry = old.metrics[name]
    outputs = baseline.outputs_of(old, name)
    after = case.metrics[name].judge
    for found in rejudged.get((case.suite, case.eval_set_id, case.eval_id, name), []):
        if found.outputs == outputs and found.was == entry.judge and found.result.judge and after \
                and _same_request(found.result.judge, after):
            return found.result
    return None


def _changes(results: ScoredResults, baseline: Baseline) -> list[_Changed]:
    rejudged: dict[tuple[str, str, str, str], list[RejudgedBaseline]] = {}
    for entry in results.rejudged or []:  # indexed once: a judge swap on a big suite re-judges every case
        rejudged.setdefault((entry.suite, entry.eval_set_id, entry.eval_id, entry.metric), []).append(entry)
    found = []
    for case in results.cases:
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id)
        if old is None:
            continue
        for name, metric in sorted(case.metrics.items()):
            if metric.threshold is None:  # no score compared with the baseline's (head_to_head_v1 judges against its answers)
                continue
            before = changed_judge(baseline, old, case, name)
            if before is not None and metric.judge is not None:
                found.append(_Changed(case.key, (case.suite, case.eval_set_id, case.eval_id), name, before, metric.judge, old.metrics[name], metric, rejudged_for(rejudged, baseline, old, case, name)))
    return found


def _standing_in(old: BaselineMetric, rejudged: MetricResult, judge: str) -> BaselineMetric:
    """The baseline entry as the new judge scores the same recorded runs. Its history is those
    runs alone: the older accepts were judged by the old judge, and only the last one's outputs
    are kept, so the new judge's view of the case rests on them (a shorter history, which the
    gate treats more strictly)."""
    from .baseline import baseline_metric  # the baseline's own rule for what a metric keeps

    fresh = baseline_metric(rejudged, len(rejudged.runs))  # the recorded runs are the planned ones
    return old.model_copy(update={
        "score": fresh.score, "runs": fresh.runs, "run_statuses": fresh.run_statuses, "status": fresh.status,
        "rubrics": fresh.rubrics, "history": fresh.history, "judge": judge,
    })


def judged_alike(results: ScoredResults, baseline: Baseline) -> tuple[Baseline, tuple[JudgeChange, ...]]:
    """The baseline the gate compares `results` with: where a judge changed, the re-judged
    scores stand in for the old ones, and where none were made the old ones are left out."""
    changes = _changes(results, baseline)
    if not changes:
        return baseline, ()
    adjusted = baseline.model_copy(deep=True)
    for change in changes:
        suite, eval_set_id, eval_id = change.where
        old = adjusted.suites[suite][eval_set_id][eval_id]
        if change.rejudged is not None:
            key = judge_id(change.after)
            adjusted.judges[key] = change.after
            old.metrics[change.metric] = _standing_in(change.old, change.rejudged, key)
        else:
            del old.metrics[change.metric]
        old.status = _restated_status(baseline.case(suite, eval_set_id, eval_id) or old, old)
        adjusted.suites[suite][eval_set_id][eval_id] = old  # stored back: a baseline's cases may be kept on disk (files/spill.py)
    return adjusted, tuple(_summaries(changes))


def _restated_status(before: BaselineCase, after: BaselineCase) -> Status:
    """The case's status as the stand-in scores give it (ADK's rule, core/scoring.py
    `case_status`), so its outcome follows the scores the gate compares: a stricter judge on the
    same outputs does not make a case newly failing, nor a lenient one fixed. A case that failed
    with no metric failing failed on its runs, which no judge decided: it stays failed."""
    if before.status == Status.FAILED and not any(m.status == Status.FAILED for m in before.metrics.values()):
        return Status.FAILED
    statuses = {m.status for m in after.metrics.values()}
    if Status.FAILED in statuses:
        return Status.FAILED
    return Status.PASSED if Status.PASSED in statuses else Status.NOT_EVALUATED


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _most_common(judges: list[JudgeFingerprint]) -> JudgeFingerprint:
    counts = Counter(judge_id(j) for j in judges)
    wanted = counts.most_common(1)[0][0]
    return next(j for j in judges if judge_id(j) == wanted)


def _summaries(changes: list[_Changed]) -> list[JudgeChange]:
    by_metric: dict[str, list[_Changed]] = {}
    for change in changes:
        by_metric.setdefault(change.metric, []).append(change)
    out = []
    for name, found in sorted(by_metric.items()):
        again = [c for c in found if c.rejudged is not None]
        not_again = [c for c in found if c.rejudged is None]
        before, after = _most_common([c.before for c in found]), _most_common([c.after for c in found])
        out.append(JudgeChange(
            metric=name, before=before, after=after, what=tuple(differences(before, after)),
            rejudged=tuple(c.case for c in again), not_rejudged=tuple(c.case for c in not_again),
            baseline_mean=_mean([c.old.score for c in again]),
            rejudged_mean=_mean([c.rejudged.score for c in again if c.rejudged is not None]),
            candidate_mean=_mean([c.new.score for c in again]),
            old_mean=_mean([c.old.score for c in not_again]), new_mean=_mean([c.new.score for c in not_again]),
        ))
    return out

