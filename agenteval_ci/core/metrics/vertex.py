"""Vertex AI's trajectory metrics, computed locally per invocation and averaged over the case.

Semantics follow Vertex AI's documentation of its Gen AI evaluation service: a tool call
matches another when both name and args are equal (ids ignored, `1 == 1.0`). Vertex does
not document empty trajectories; we take "nothing expected and nothing called" as a
perfect score, and "nothing called" as precision 0 when something was expected
(docs/metrics.md lists these choices).
"""

from __future__ import annotations

from typing import Callable

from ...schema import FunctionCall, MetricRun, SingleToolUseCriterion
from .base import MetricInput, mean_run, score_turns, scored_turn
from .trajectory import any_order_match, exact_match, in_order_match, same_call

Trajectory = list[FunctionCall]
TrajectoryScore = Callable[[Trajectory, Trajectory], float]


def _matched_count(calls: Trajectory, pool: Trajectory) -> int:
    """How many of `calls` find a distinct equal call in `pool` (a duplicate matches once)."""
    unused = list(pool)
    matched = 0
    for call in calls:
        index = next((i for i, other in enumerate(unused) if same_call(call, other, ignore_args=False)), None)
        if index is not None:
            matched += 1
            del unused[index]
    return matched


def precision(predicted: Trajectory, reference: Trajectory) -> float:
    """Share of the predicted calls that the reference also holds."""
    if not predicted:
        return 1.0 if not reference else 0.0
    return _matched_count(predicted, reference) / len(predicted)


def recall(predicted: Trajectory, reference: Trajectory) -> float:
    """Share of the reference calls that the agent made."""
    if not reference:
        return 1.0
    return _matched_count(reference, predicted) / len(reference)


def _as_score(match: Callable[[Trajectory, Trajectory], bool]) -> TrajectoryScore:
    return lambda predicted, reference: 1.0 if match(predicted, reference) else 0.0


SCORERS: dict[str, TrajectoryScore] = {
    "trajectory_exact_match": _as_score(exact_match),
    "trajectory_in_order_match": _as_score(in_order_match),
    "trajectory_any_order_match": _as_score(any_order_match),
    "trajectory_precision": precision,
    "trajectory_recall": recall,
}


def reference_metric(name: str) -> Callable[[MetricInput], MetricRun]:
    """The evaluate function of one reference-based Vertex trajectory metric."""
    score_pair = SCORERS[name]

    def evaluate(inp: MetricInput) -> MetricRun:
        return score_turns(inp, lambda actual, expected: score_pair(actual.tool_calls, expected.tool_calls))

    evaluate.__name__ = f"evaluate_{name}"
    return evaluate


def evaluate_single_tool_use(inp: MetricInput) -> MetricRun:
    """1.0 for a turn in which the agent called `tool_name` at least once; no reference needed."""
    criterion = inp.criterion
    assert isinstance(criterion, SingleToolUseCriterion)
    per_invocation = []
    for actual in inp.actual:
        score = 1.0 if any(call.name == criterion.tool_name for call in actual.tool_calls) else 0.0
        per_invocation.append(scored_turn(score, criterion.threshold))
    if not per_invocation:
        return MetricRun(reason="the agent produced no invocation")
    return mean_run(per_invocation, criterion.threshold)
