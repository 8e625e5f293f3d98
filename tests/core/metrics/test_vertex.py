"""Vertex AI's trajectory metrics: per turn, then the mean over the case's turns."""

from __future__ import annotations

import pytest

from agenteval_ci.core.metrics import REGISTRY, MetricInput
from agenteval_ci.core.metrics.vertex import precision, recall
from agenteval_ci.schema import BaseCriterion, EvalCase, FunctionCall, Invocation, SingleToolUseCriterion, Status


def call(name: str, **args) -> FunctionCall:
    return FunctionCall(name=name, args=args)


def turn(*calls: FunctionCall) -> Invocation:
    return Invocation.model_validate(
        {"user_content": {"parts": [{"text": "hi"}]}, "intermediate_data": {"tool_uses": [c.model_dump() for c in calls]}}
    )


def score(metric: str, actual: list[Invocation], expected: list[Invocation] | None, threshold: float = 1.0, **extra):
    spec = REGISTRY[metric]
    criterion = spec.criterion_type(threshold=threshold, **extra)
    case = EvalCase(eval_id="c", conversation=expected or [turn()])
    return spec.evaluate(MetricInput(criterion, actual, expected, case))


A, B, C = call("a", x=1), call("b"), call("c", y=[1, 2])


@pytest.mark.parametrize(
    "metric, actual, expected, value",
    [
        ("trajectory_exact_match", [A, B], [A, B], 1.0),
        ("trajectory_exact_match", [B, A], [A, B], 0.0),
        ("trajectory_exact_match", [A, B, C], [A, B], 0.0),
        ("trajectory_in_order_match", [A, C, B], [A, B], 1.0),
        ("trajectory_in_order_match", [B, A], [A, B], 0.0),
        ("trajectory_any_order_match", [B, C, A], [A, B], 1.0),
        ("trajectory_any_order_match", [A, A], [A, B], 0.0),
        ("trajectory_precision", [A, B, C, C], [A, B, C], 0.75),  # the second C has no partner left
        ("trajectory_precision", [call("a", x=1.0)], [A], 1.0),  # 1 == 1.0, as everywhere else
        ("trajectory_precision", [call("a", x=2)], [A], 0.0),  # name and args both must match
        ("trajectory_recall", [A], [A, B], 0.5),
        ("trajectory_recall", [A, B, C], [A, B], 1.0),
    ],
)
def test_reference_metrics_score_one_turn(metric, actual, expected, value):
    run = score(metric, [turn(*actual)], [turn(*expected)], threshold=0.5)
    assert run.score == value
    assert run.status == (Status.PASSED if value >= 0.5 else Status.FAILED)


def test_empty_trajectories():
    assert precision([], []) == 1.0 and recall([], []) == 1.0
    assert precision([], [A]) == 0.0 and recall([], [A]) == 0.0
    assert precision([A], []) == 0.0 and recall([A], []) == 1.0


def test_multi_turn_is_the_mean_of_turns():
    run = score("trajectory_recall", [turn(A), turn(), turn(A, B)], [turn(A, B), turn(C), turn(A, B)], threshold=0.6)
    assert [p.score for p in run.per_invocation] == [0.5, 0.0, 1.0]
    assert run.score == 0.5 and run.status == Status.FAILED


def test_turn_count_mismatch_is_not_evaluated():
    run = score("trajectory_exact_match", [turn(A)], [turn(A), turn(B)])
    assert run.score is None and run.status == Status.NOT_EVALUATED and "2" in run.reason


def test_single_tool_use_needs_no_reference():
    spec = REGISTRY["trajectory_single_tool_use"]
    assert not spec.needs_expected and spec.criterion_type is SingleToolUseCriterion
    run = score("trajectory_single_tool_use", [turn(A, B), turn(C)], None, threshold=0.5, tool_name="b")
    assert [p.score for p in run.per_invocation] == [1.0, 0.0] and run.score == 0.5 and run.status == Status.PASSED


def test_reference_metrics_take_a_plain_threshold():
    assert all(REGISTRY[name].criterion_type is BaseCriterion for name in ("trajectory_precision", "trajectory_recall"))
