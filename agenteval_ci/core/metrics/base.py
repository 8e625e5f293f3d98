"""What every metric receives and returns, and ADK's aggregation rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Awaitable, Callable, Optional, Protocol, Union

from ...schema import BaseCriterion, EvalCase, Invocation, InvocationScore, MetricRun, Status
from ..judging import Judge
from .judge_context import MediaNotes

# End the reason of a metric that does not apply to a case: a reference-based metric on a
# scenario case, the simulated user's metric on a fixed conversation. Such a metric is neither
# missing evidence nor lost coverage, nor a reason to refuse an accept.
NO_REFERENCE = "a conversation_scenario case has none"
NO_SIMULATED_USER = "this case has a fixed conversation"


class GatedScore(Protocol):
    """What the evidence rule reads of a scored metric (core/digest.py's ScoredMetric)."""

    @property
    def reason(self) -> str | None: ...
    @property
    def threshold(self) -> float | None: ...
    @property
    def status(self) -> Status: ...


def unscored_evidence(metric: GatedScore) -> bool:
    """A gated metric without a score though it applies to the case: not evaluated for any
    reason (a judge that failed, no key, an unreadable reply) but "does not apply"."""
    reason = metric.reason or ""
    applies = NO_REFERENCE not in reason and NO_SIMULATED_USER not in reason
    return metric.threshold is not None and metric.status == Status.NOT_EVALUATED and applies


@dataclass(frozen=True)
class MetricInput:
    """One metric, one run of one case."""

    criterion: BaseCriterion
    actual: list[Invocation]
    expected: Optional[list[Invocation]]  # None for scenario cases
    case: EvalCase
    judge: Judge | None = None  # for LLM-judged metrics; None when none is configured
    unreported: tuple[str, ...] = ()  # the run's RunRecord.unreported: what the agent could not report
    # head_to_head_v1: the baseline's recorded turns of the same case (the run of the same index,
    # round robin), or None and why there are none (core/head_to_head.py)
    baseline: Optional[list[Invocation]] = None
    baseline_missing: str = ""
    final_state: Optional[dict[str, Any]] = None  # the run's RunRecord.final_session_state: None when not reported
    # What this run's judge requests did with the conversation's images and files (ask_samples
    # notes it, the judged_without flag reads it).
    media_notes: MediaNotes = field(default_factory=MediaNotes, compare=False)


Evaluate = Callable[[MetricInput], Union[MetricRun, Awaitable[MetricRun]]]


@dataclass(frozen=True)
class MetricSpec:
    name: str
    criterion_type: type[BaseCriterion]
    evaluate: Evaluate
    description: str
    needs_expected: bool = False  # reference-based: NOT_EVALUATED on scenario cases
    informational: bool = False  # reports a figure, never passes or fails
    judged: bool = False  # asks the LLM judge
    # The judge reads the agent's instructions and tool declarations (a turn's app_details): a
    # served agent records them only in its traces (`traces: true`).
    reads_app_details: bool = False
    # Compared with the baseline's recorded answers, not with a threshold: no case fails on it,
    # the suite's rule decides (core/head_to_head.py); its criterion's threshold is not read.
    head_to_head: bool = False
    # The agent's session state after the last turn (RunRecord.final_session_state): the runner
    # asks the agent for it only when a metric of the case reads it.
    reads_final_state: bool = False
    # Judged metrics: the files under agenteval_ci/core that the judge's prompts are made from;
    # their hash is part of the judge's fingerprint (core/judge_fingerprint.py).
    prompts: tuple[str, ...] = ()
    # A user's metric (core/metrics/user.py, or a judge from a template: llm_template.py): the hash of its code, its judge fingerprint's prompt
    # (core/judge_fingerprint.py), so an edit of the metric is told apart from a change of the agent.
    user_code_hash: str = ""
    # ... and the interval it declares, when finite: the gate's tolerance is a share of its width.
    user_interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class ConfiguredMetric:
    """A metric as configured: its spec, its typed criterion and threshold."""

    spec: MetricSpec
    criterion: BaseCriterion
    fingerprint: str

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def threshold(self) -> float | None:
        return None if self.spec.informational or self.spec.head_to_head else self.criterion.threshold



def adk_mean(values: list[float]) -> float:
    """A running sum then one division, exactly as ADK's evaluators add up (bit-identical;
    builtin sum() compensates rounding on Python >= 3.12 and would differ in the last bit)."""
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


def status_for(score: Optional[float], threshold: float) -> Status:
    """ADK's rule: `score >= threshold` passes."""
    if score is None:
        return Status.NOT_EVALUATED
    return Status.PASSED if score >= threshold else Status.FAILED


@lru_cache(maxsize=4096)
def _turn(score: float, status: Status) -> InvocationScore:
    return InvocationScore(score=score, status=status)


def scored_turn(score: float, threshold: float) -> InvocationScore:
    """A turn's score and status. Records are never changed once made, so turns with the
    same score share one: thousands of turns score exactly 1.0 or 0.0."""
    return _turn(score, status_for(score, threshold))


def mean_run(per_invocation: list[InvocationScore], threshold: float) -> MetricRun:
    """ADK's per-invocation evaluators: the case score is the mean over scored invocations."""
    scores = [p.score for p in per_invocation if p.score is not None]
    if not scores:
        reasons = {p.reason for p in per_invocation if p.reason}
        return MetricRun(per_invocation=per_invocation, reason="; ".join(sorted(reasons)) or "no invocation was scored")
    overall = adk_mean(scores)
    return MetricRun(score=overall, status=status_for(overall, threshold), per_invocation=per_invocation)


def not_evaluated(reason: str) -> MetricRun:
    return MetricRun(status=Status.NOT_EVALUATED, reason=reason)


def paired(inp: MetricInput) -> list[tuple[Invocation, Invocation]] | MetricRun:
    """Actual and expected turns side by side, or NOT_EVALUATED saying why they cannot be."""
    if inp.expected is None:
        return not_evaluated(f"needs an expected conversation; {NO_REFERENCE}")
    if len(inp.actual) != len(inp.expected):
        return not_evaluated(
            f"the agent produced {len(inp.actual)} invocation(s) but the case expects {len(inp.expected)}"
        )
    return list(zip(inp.actual, inp.expected))


def score_turns(inp: MetricInput, score_turn: Callable[[Invocation, Invocation], float]) -> MetricRun:
    """A reference-based metric turn by turn (actual vs expected), then ADK's mean over turns."""
    threshold = inp.criterion.threshold
    pairs = paired(inp)
    if isinstance(pairs, MetricRun):
        return pairs
    per_invocation = []
    for actual, expected in pairs:
        score = score_turn(actual, expected)
        per_invocation.append(scored_turn(score, threshold))
    return mean_run(per_invocation, threshold)
