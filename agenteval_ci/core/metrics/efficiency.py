"""google-adk 2.13's informational efficiency metrics: figures per turn, never pass or fail.

tool_call_count_v1, inference_call_count_v1, token_usage_v1 and invocation_duration_v1.
Each is computed per invocation; the case figure is the average over the invocations that
have one. None means "not available" (the invocation carries no events, usage or timing),
never zero. The arithmetic (which counts add up, what is rounded) matches ADK's evaluators
value for value (tests/core/metrics/test_differential.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, Callable, Optional

from ...schema import Invocation, InvocationEvents, InvocationScore, MetricRun, Status, UsageMetadata
from .base import MetricInput

_NOT_AVAILABLE = "not available for this invocation"


def _as_dict(breakdown: Any) -> dict[str, Optional[float]]:
    """A flat breakdown as a dict (dataclasses.asdict deep-copies, which costs in hot loops)."""
    return dict(vars(breakdown))


def _informational(score: Optional[float], details: Optional[dict[str, Any]] = None) -> InvocationScore:
    if details is None:
        return _plain_figure(score)
    reason = None if score is not None else _NOT_AVAILABLE
    return InvocationScore(score=score, status=Status.INFORMATIONAL, reason=reason, details=details)


def _breakdown_turn(breakdown: Any, headline: str) -> InvocationScore:
    figure = getattr(breakdown, headline)
    if figure is None and all(v is None for v in vars(breakdown).values()):
        return _unavailable_turn(type(breakdown))  # type: ignore[arg-type]  # a class is hashable
    return _informational(figure, _as_dict(breakdown))


@lru_cache(maxsize=None)
def _unavailable_turn(breakdown_type: Callable[[], Any]) -> InvocationScore:
    """A turn with no figure at all, one shared record per kind of breakdown (see below)."""
    return _informational(None, _as_dict(breakdown_type()))


@lru_cache(maxsize=1024)
def _plain_figure(score: Optional[float]) -> InvocationScore:
    """Records are never changed once made, so one per figure serves every turn that has
    it: counts repeat across thousands of turns."""
    reason = None if score is not None else _NOT_AVAILABLE
    return InvocationScore(score=score, status=Status.INFORMATIONAL, reason=reason)


def _average(values: list[float]) -> Optional[float]:
    # builtin sum, as ADK's evaluators do here (unlike their running sums elsewhere)
    return sum(values) / len(values) if values else None


def _run(per_invocation: list[InvocationScore], score: Optional[float], details: Optional[dict[str, Any]] = None) -> MetricRun:
    reason = None if score is not None else ("no invocation" if not per_invocation else _NOT_AVAILABLE)
    return MetricRun(
        score=score, status=Status.INFORMATIONAL, reason=reason, per_invocation=per_invocation, details=details
    )


def _per_invocation_metric(value_of: Callable[[Invocation], Optional[float]]) -> Callable[[MetricInput], MetricRun]:
    def evaluate(inp: MetricInput) -> MetricRun:
        values = [value_of(actual) for actual in inp.actual]
        per_invocation = [_informational(v) for v in values]
        return _run(per_invocation, _average([v for v in values if v is not None]))

    return evaluate


def tool_call_count(invocation: Invocation) -> Optional[float]:
    return float(len(invocation.tool_calls))


def inference_call_count(invocation: Invocation) -> Optional[float]:
    """Events that came from a model call (they carry usage or a model version)."""
    if not isinstance(invocation.intermediate_data, InvocationEvents):
        return None
    events = invocation.intermediate_data.invocation_events
    return float(sum(1 for e in events if e.usage_metadata is not None or e.model_version is not None))


evaluate_tool_call_count = _per_invocation_metric(tool_call_count)
evaluate_inference_call_count = _per_invocation_metric(inference_call_count)


# ---------------------------------------------------------------- tokens


@dataclass
class TokenBreakdown:
    """ADK's TokenUsageDetails: counts nest (total = input + output); None = nobody reported it."""

    total_tokens: Optional[float] = None
    input_tokens: Optional[float] = None
    prompt_tokens: Optional[float] = None
    cached_tokens: Optional[float] = None
    tool_use_tokens: Optional[float] = None
    output_tokens: Optional[float] = None
    candidates_tokens: Optional[float] = None
    reasoning_tokens: Optional[float] = None


_TOKEN_FIELDS = tuple(f.name for f in fields(TokenBreakdown))


def _add(total: Optional[float], count: Optional[float]) -> Optional[float]:
    return total if count is None else (total or 0) + count


def _either(a: Optional[int], b: Optional[int]) -> Optional[int]:
    """A direction's count: the sum of its parts, None only when neither part was reported."""
    return None if a is None and b is None else (a or 0) + (b or 0)


def _add_call(totals: TokenBreakdown, usage: UsageMetadata) -> None:
    totals.input_tokens = _add(totals.input_tokens, _either(usage.prompt_token_count, usage.tool_use_prompt_token_count))
    totals.prompt_tokens = _add(totals.prompt_tokens, usage.prompt_token_count)
    totals.cached_tokens = _add(totals.cached_tokens, usage.cached_content_token_count)
    totals.tool_use_tokens = _add(totals.tool_use_tokens, usage.tool_use_prompt_token_count)
    totals.output_tokens = _add(totals.output_tokens, _either(usage.candidates_token_count, usage.thoughts_token_count))
    totals.candidates_tokens = _add(totals.candidates_tokens, usage.candidates_token_count)
    totals.reasoning_tokens = _add(totals.reasoning_tokens, usage.thoughts_token_count)


def token_breakdown(invocation: Invocation) -> TokenBreakdown:
    totals = TokenBreakdown()
    for usage in invocation.usage:
        _add_call(totals, usage)
    # The headline is derived from the two directions, never the backend's own total.
    if totals.input_tokens is not None or totals.output_tokens is not None:
        totals.total_tokens = (totals.input_tokens or 0) + (totals.output_tokens or 0)
    _to_floats(totals)
    return totals


def _to_floats(breakdown: TokenBreakdown) -> None:
    """ADK stores the counts as floats; so do we, so the JSON reads the same. Summed as ints
    first (exact at any size), converted in place: a second breakdown per turn cost ~2% of a score."""
    counts = vars(breakdown)
    for name, count in counts.items():
        if count is not None:
            counts[name] = float(count)


def _average_tokens(all_details: list[TokenBreakdown]) -> TokenBreakdown:
    """Each count over every invocation (a count a call left out is zero for that turn),
    None only when no invocation reported it at all."""
    if len(all_details) == 1:  # x / 1 is x: the one turn is its own average
        return all_details[0]
    averaged = {}
    for name in _TOKEN_FIELDS:
        values = [getattr(d, name) for d in all_details]
        present = [v for v in values if v is not None]
        averaged[name] = sum(present) / len(values) if present else None
    return TokenBreakdown(**averaged)


def _breakdown_metric(
    breakdown_of: Callable[[Invocation], Any], average: Callable[[list[Any]], Any], headline: str
) -> Callable[[MetricInput], MetricRun]:
    """A metric whose figure (`headline`) comes with a breakdown, per turn and averaged."""

    def evaluate(inp: MetricInput) -> MetricRun:
        all_details = [breakdown_of(actual) for actual in inp.actual]
        per_invocation = [_breakdown_turn(d, headline) for d in all_details]
        if not per_invocation:
            return _run(per_invocation, None)
        overall = average(all_details)
        return _run(per_invocation, getattr(overall, headline), _as_dict(overall))

    return evaluate


evaluate_token_usage = _breakdown_metric(token_breakdown, _average_tokens, "total_tokens")


# ---------------------------------------------------------------- duration


@dataclass
class DurationBreakdown:
    """ADK's DurationDetails: model, tool and framework seconds partition the total."""

    total_seconds: Optional[float] = None
    model_seconds: Optional[float] = None
    tool_seconds: Optional[float] = None
    framework_seconds: Optional[float] = None


_DURATION_FIELDS = tuple(f.name for f in fields(DurationBreakdown))


def duration_breakdown(invocation: Invocation) -> DurationBreakdown:
    if invocation.duration is None:
        return DurationBreakdown()
    model, tool = invocation.model_duration, invocation.tool_duration
    framework = None
    if model is not None and tool is not None:
        # Clamped: the parts and the total close on the same clock a hair apart.
        framework = round(max(invocation.duration - model - tool, 0.0), 3)
    return DurationBreakdown(invocation.duration, model, tool, framework)


def _average_durations(all_details: list[DurationBreakdown]) -> DurationBreakdown:
    """Each part over the timed invocations only; an untimed turn is not a fast one."""
    averaged = {}
    for name in _DURATION_FIELDS:
        present = [getattr(d, name) for d in all_details if getattr(d, name) is not None]
        averaged[name] = round(sum(present) / len(present), 3) if present else None
    return DurationBreakdown(**averaged)


evaluate_invocation_duration = _breakdown_metric(duration_breakdown, _average_durations, "total_seconds")
